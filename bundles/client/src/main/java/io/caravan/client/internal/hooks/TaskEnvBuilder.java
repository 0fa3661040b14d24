package io.caravan.client.internal.hooks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Node;
import io.caravan.api.model.Port;
import io.caravan.api.model.Resources;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;

/**
 * A task's environment as Nomad builds it (client/taskenv): the {@code NOMAD_*} variables, node-independent port
 * variables, job/group/task meta ({@code NOMAD_META_<key>} as written and upper-cased), then the task's own
 * {@code env} block interpolated against all of that. Every {@code NOMAD_*} variable also exists as
 * {@code CARAVAN_*}. Directory variables are host paths: drivers without filesystem isolation (raw_exec) need them so.
 */
public final class TaskEnvBuilder {
    private static final Pattern ALLOC_INDEX = Pattern.compile(".*\\[(\\d+)]$");
    /** Nomad cleans these prefixes' keys to valid variable names (helper.CleanEnvVar). */
    private static final List<String> CLEANED_PREFIXES =
            List.of("NOMAD_ADDR_", "NOMAD_IP_", "NOMAD_PORT_", "NOMAD_HOST_PORT_", "NOMAD_META_");

    private TaskEnvBuilder() {
    }

    public static Map<String, String> build(Allocation alloc, Task task, Node node, AllocDir dir) {
        Map<String, String> env = new TreeMap<>();
        Job job = alloc.job();
        env.put("NOMAD_ALLOC_DIR", dir.shared().toString());
        env.put("NOMAD_TASK_DIR", dir.taskLocal(task.name()).toString());
        env.put("NOMAD_SECRETS_DIR", dir.taskSecrets(task.name()).toString());
        env.put("NOMAD_ALLOC_ID", alloc.id());
        env.put("NOMAD_SHORT_ALLOC_ID", alloc.id().length() > 8 ? alloc.id().substring(0, 8) : alloc.id());
        env.put("NOMAD_ALLOC_NAME", nz(alloc.name()));
        env.put("NOMAD_ALLOC_INDEX", allocIndex(alloc.name()));
        env.put("NOMAD_TASK_NAME", task.name());
        env.put("NOMAD_GROUP_NAME", nz(alloc.taskGroup()));
        env.put("NOMAD_JOB_ID", nz(job == null ? alloc.jobId() : job.id()));
        env.put("NOMAD_JOB_NAME", nz(job == null ? alloc.jobId() : job.name() == null ? job.id() : job.name()));
        if (job != null && job.parentId() != null && !job.parentId().isEmpty()) {
            env.put("NOMAD_JOB_PARENT_ID", job.parentId());
        }
        env.put("NOMAD_NAMESPACE", nz(alloc.namespace()));
        env.put("NOMAD_REGION", job == null || job.region() == null ? "global" : job.region());
        if (node != null) {
            env.put("NOMAD_DC", nz(node.datacenter()));
        }
        resources(env, alloc, task);
        ports(env, alloc, task);
        meta(env, job, alloc.lookupTaskGroup(), task);

        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> out.put(clean(k), v));
        // The task's env block may use everything above, and node attributes.
        Interpolator interpolator = new Interpolator(out, node);
        Map<String, String> own = new LinkedHashMap<>();
        task.env().forEach((k, v) -> own.put(k, interpolator.interpolate(v)));
        out.putAll(own);
        // CARAVAN_* aliases of every NOMAD_* variable (unless the task set one itself).
        new TreeMap<>(out).forEach((k, v) -> {
            if (k.startsWith("NOMAD_")) {
                out.putIfAbsent("CARAVAN_" + k.substring("NOMAD_".length()), v);
            }
        });
        return out;
    }

    private static void resources(Map<String, String> env, Allocation alloc, Task task) {
        AllocatedResources.TaskResources allocated = alloc.allocatedResources() == null ? null
                : alloc.allocatedResources().tasks().get(task.name());
        Resources asked = task.resources();
        long cpu = allocated != null && allocated.cpu() != null ? allocated.cpu().cpuShares()
                : asked != null && asked.cpu() != null ? asked.cpu() : 0;
        long mem = allocated != null && allocated.memory() != null ? allocated.memory().memoryMb()
                : asked != null && asked.memoryMb() != null ? asked.memoryMb() : 0;
        long memMax = allocated != null && allocated.memory() != null ? allocated.memory().memoryMaxMb()
                : asked != null && asked.memoryMaxMb() != null ? asked.memoryMaxMb() : 0;
        env.put("NOMAD_CPU_LIMIT", Long.toString(cpu));
        env.put("NOMAD_MEMORY_LIMIT", Long.toString(mem));
        if (memMax > 0) {
            env.put("NOMAD_MEMORY_MAX_LIMIT", Long.toString(memMax));
        }
    }

    /** Group ports (shared) and task-level network ports: label → host IP, host port, mapped port. */
    private static void ports(Map<String, String> env, Allocation alloc, Task task) {
        AllocatedResources resources = alloc.allocatedResources();
        if (resources == null) {
            return;
        }
        if (resources.shared() != null) {
            String fallbackIp = resources.shared().networks().isEmpty() ? null
                    : resources.shared().networks().get(0).ip();
            for (AllocatedResources.AllocatedPort p : resources.shared().ports()) {
                port(env, p.label(), p.hostIp() == null || p.hostIp().isEmpty() ? fallbackIp : p.hostIp(),
                        p.value(), p.to());
            }
        }
        AllocatedResources.TaskResources own = resources.tasks().get(task.name());
        if (own != null) {
            for (NetworkResource net : own.networks()) {
                for (Port p : net.reservedPorts()) {
                    port(env, p.label(), net.ip(), p.value(), p.to());
                }
                for (Port p : net.dynamicPorts()) {
                    port(env, p.label(), net.ip(), p.value(), p.to());
                }
            }
        }
    }

    private static void port(Map<String, String> env, String label, String ip, int hostPort, int to) {
        String host = Integer.toString(hostPort);
        String mapped = to > 0 ? Integer.toString(to) : host;
        env.put("NOMAD_PORT_" + label, mapped);
        env.put("NOMAD_HOST_PORT_" + label, host);
        env.put("NOMAD_ALLOC_PORT_" + label, mapped);
        if (ip != null && !ip.isEmpty()) {
            String addr = (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + host;
            env.put("NOMAD_IP_" + label, ip);
            env.put("NOMAD_HOST_IP_" + label, ip);
            env.put("NOMAD_ADDR_" + label, addr);
            env.put("NOMAD_HOST_ADDR_" + label, addr);
        }
    }

    /** Job, then group, then task meta (later wins); each key as written and upper-cased, as Nomad does. */
    private static void meta(Map<String, String> env, Job job, TaskGroup group, Task task) {
        Map<String, String> merged = new LinkedHashMap<>();
        if (job != null) {
            merged.putAll(job.meta());
        }
        if (group != null) {
            merged.putAll(group.meta());
        }
        merged.putAll(task.meta());
        merged.forEach((k, v) -> {
            env.put("NOMAD_META_" + k.toUpperCase(Locale.ROOT), v);
            env.put("NOMAD_META_" + k, v);
        });
    }

    static String allocIndex(String allocName) {
        Matcher m = ALLOC_INDEX.matcher(nz(allocName));
        return m.matches() ? m.group(1) : "0";
    }

    /** Nomad's CleanEnvVar for the prefixes it cleans: anything but letters, digits (not first), _ and . → _. */
    static String clean(String key) {
        if (CLEANED_PREFIXES.stream().noneMatch(key::startsWith)) {
            return key;
        }
        StringBuilder out = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                    || (i > 0 && c >= '0' && c <= '9');
            out.append(ok ? c : '_');
        }
        return out.toString();
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
