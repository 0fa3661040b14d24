package io.caravan.scheduler.internal.reconcile;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.caravan.api.model.Job;
import io.caravan.api.model.Resources;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;

/**
 * Whether an allocation of an older job version must be replaced, can take the new version in place, or needs
 * nothing.
 *
 * <p>The rule (Nomad's {@code tasksUpdated}): a change is <em>destructive</em> when the running tasks would see it —
 * the set of tasks, a task's driver, user, config, env, artifacts, templates, vault block, volume mounts,
 * lifecycle, resources (cpu, cores, memory, memory_max, devices, networks), the group's networks, ephemeral disk
 * or volumes, or the merged job/group/task meta (tasks see meta in their environment). Anything else — count,
 * update/migrate/reschedule/restart policies, constraints, affinities, spreads, services, priority — is applied
 * <em>in place</em>.
 */
public final class JobChanges {
    public enum Kind { IGNORE, IN_PLACE, DESTRUCTIVE }

    private JobChanges() {
    }

    public static Kind classify(Job running, Job wanted, String group) {
        if (running == null) {
            return Kind.DESTRUCTIVE;
        }
        if (sameVersion(running, wanted)) {
            return Kind.IGNORE;
        }
        return tasksUpdated(running, wanted, group) ? Kind.DESTRUCTIVE : Kind.IN_PLACE;
    }

    static boolean sameVersion(Job a, Job b) {
        if (a.jobModifyIndex() != null && b.jobModifyIndex() != null) {
            return a.jobModifyIndex().equals(b.jobModifyIndex());
        }
        return Objects.equals(a.version(), b.version());
    }

    static boolean tasksUpdated(Job a, Job b, String group) {
        TaskGroup ga = a.lookupTaskGroup(group);
        TaskGroup gb = b.lookupTaskGroup(group);
        if (ga == null || gb == null || ga.tasks().size() != gb.tasks().size()) {
            return true;
        }
        if (!Objects.equals(ga.networks(), gb.networks()) || !Objects.equals(ga.ephemeralDisk(), gb.ephemeralDisk())
                || !Objects.equals(ga.volumes(), gb.volumes())) {
            return true;
        }
        for (Task ta : ga.tasks()) {
            Task tb = task(gb, ta.name());
            if (tb == null || taskUpdated(ta, tb)
                    || !combinedMeta(a, ga, ta).equals(combinedMeta(b, gb, tb))) {
                return true;
            }
        }
        return false;
    }

    private static boolean taskUpdated(Task a, Task b) {
        return !Objects.equals(a.driver(), b.driver()) || !Objects.equals(a.user(), b.user())
                || !Objects.equals(a.config(), b.config()) || !Objects.equals(a.env(), b.env())
                || !Objects.equals(a.artifacts(), b.artifacts()) || !Objects.equals(a.templates(), b.templates())
                || !Objects.equals(a.vault(), b.vault()) || !Objects.equals(a.volumeMounts(), b.volumeMounts())
                || !Objects.equals(a.lifecycle(), b.lifecycle()) || resourcesUpdated(a.resources(), b.resources());
    }

    private static boolean resourcesUpdated(Resources a, Resources b) {
        if (a == null || b == null) {
            return a != b;
        }
        return !Objects.equals(a.cpu(), b.cpu()) || !Objects.equals(a.cores(), b.cores())
                || !Objects.equals(a.memoryMb(), b.memoryMb()) || !Objects.equals(a.memoryMaxMb(), b.memoryMaxMb())
                || !Objects.equals(a.devices(), b.devices()) || !Objects.equals(a.networks(), b.networks());
    }

    private static Map<String, String> combinedMeta(Job job, TaskGroup group, Task task) {
        Map<String, String> meta = new HashMap<>(job.meta());
        meta.putAll(group.meta());
        meta.putAll(task.meta());
        return meta;
    }

    private static Task task(TaskGroup group, String name) {
        List<Task> tasks = group.tasks();
        for (Task t : tasks) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }
}
