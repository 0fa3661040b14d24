package io.caravan.client.internal.hooks;

import java.util.ArrayList;
import java.util.List;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Port;
import io.caravan.api.model.Service;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.ServiceCheck;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.client.internal.alloc.AllocChecks;
import io.caravan.client.internal.alloc.ServiceRegistrar;

/**
 * Registers the task's services ({@code provider = "nomad"}) once the task runs, and with them the group's services
 * (the same IDs whichever task registers them first), and deregisters the task's own when it is dead for good; the
 * group's go when the whole allocation has stopped ({@link ServiceRegistrar#deregisterAlloc}). Names are
 * interpolated against the task's environment; a port label resolves to the allocated address and port.
 */
public final class ServiceHook implements TaskHook.Poststart, TaskHook.Recover, TaskHook.Stop {
    private final ServiceRegistrar registrar;
    private final AllocChecks checks;
    private volatile List<String> registered = List.of();

    public ServiceHook(ServiceRegistrar registrar) {
        this(registrar, null);
    }

    /** With {@code checks}: the services' checks run while the task does (null: none are run). */
    public ServiceHook(ServiceRegistrar registrar, AllocChecks checks) {
        this.registrar = registrar;
        this.checks = checks;
    }

    @Override
    public String name() {
        return "services";
    }

    @Override
    public void poststart(TaskHookContext ctx) {
        register(ctx);
    }

    @Override
    public void recovered(TaskHookContext ctx) {
        register(ctx);
    }

    @Override
    public void stop(TaskHookContext ctx) {
        if (checks != null) {
            checks.stop(ctx.task().name());
        }
        if (!registered.isEmpty()) {
            registrar.deregister(registered);
            registered = List.of();
        }
    }

    private void register(TaskHookContext ctx) {
        Allocation alloc = ctx.alloc();
        Interpolator env = ctx.interpolator();
        List<ServiceRegistration> own = registrations(alloc, ctx.task().name(), ctx.task().services(), env);
        TaskGroup group = alloc.lookupTaskGroup();
        List<ServiceRegistration> all = new ArrayList<>(own);
        if (group != null) {
            all.addAll(registrations(alloc, "group", group.services(), env));
        }
        if (!all.isEmpty()) {
            registered = own.stream().map(ServiceRegistration::id).toList();
            registrar.register(alloc.id(), all);
        }
        if (checks != null) {
            List<AllocChecks.Target> targets = new ArrayList<>(
                    checkTargets(alloc, ctx.task().name(), ctx.task().name(), ctx.task().services(), env));
            if (group != null) {
                targets.addAll(checkTargets(alloc, "group", null, group.services(), env));
            }
            checks.start(targets);
        }
    }

    /**
     * What each check of {@code services} probes: its own {@code port} and {@code address_mode} over the service's;
     * a group service's check runs for the task it names ({@code task}), if any.
     */
    static List<AllocChecks.Target> checkTargets(Allocation alloc, String owner, String task, List<Service> services,
                                                 Interpolator env) {
        List<AllocChecks.Target> out = new ArrayList<>();
        for (Service s : services) {
            if (s.provider() != null && !s.provider().isEmpty() && !Service.PROVIDER_NOMAD.equals(s.provider())) {
                continue;
            }
            String name = env.interpolate(s.name());
            for (ServiceCheck c : s.checks()) {
                String label = c.portLabel() == null || c.portLabel().isEmpty() ? s.portLabel() : c.portLabel();
                String mode = c.addressMode() == null || c.addressMode().isEmpty() ? s.addressMode()
                        : c.addressMode();
                Endpoint where = resolve(alloc, env.interpolate(label), mode);
                String runsIn = task != null ? task : c.taskName();
                out.add(new AllocChecks.Target(owner, alloc.taskGroup(), runsIn == null ? "" : runsIn, s, name, c,
                        where.address(), where.port()));
            }
        }
        return out;
    }

    /** The registrations of {@code services} (of the task, or the group: {@code owner} "group"). */
    static List<ServiceRegistration> registrations(Allocation alloc, String owner, List<Service> services,
                                                   Interpolator env) {
        boolean canary = alloc.deploymentStatus() != null && alloc.deploymentStatus().canary();
        List<ServiceRegistration> out = new ArrayList<>();
        for (Service s : services) {
            if (s.provider() != null && !s.provider().isEmpty() && !Service.PROVIDER_NOMAD.equals(s.provider())) {
                continue;   // refused at registration; an older job version is not ours to register
            }
            String name = env.interpolate(s.name());
            String label = env.interpolate(s.portLabel());
            Endpoint where = resolve(alloc, label, s.addressMode());
            String address = s.address() == null || s.address().isEmpty() ? where.address()
                    : env.interpolate(s.address());
            List<String> tags = (canary && !s.canaryTags().isEmpty() ? s.canaryTags() : s.tags()).stream()
                    .map(env::interpolate).toList();
            out.add(new ServiceRegistration(ServiceRegistration.allocServiceId(alloc.id(), owner, name, label),
                    name, alloc.namespace(), alloc.nodeId(), null, alloc.jobId(), alloc.id(), tags, address,
                    where.port(), 0, 0));
        }
        return out;
    }

    record Endpoint(String address, int port) {}

    /**
     * A port label's address and port: the host's for {@code auto} and {@code host}, the mapped port ({@code to})
     * for {@code alloc} and {@code driver}; a number is used as written, on the allocation's address.
     */
    static Endpoint resolve(Allocation alloc, String label, String addressMode) {
        boolean mapped = "alloc".equals(addressMode) || "driver".equals(addressMode);
        AllocatedResources res = alloc.allocatedResources();
        String fallbackIp = "";
        if (res != null && res.shared() != null) {
            if (!res.shared().networks().isEmpty() && res.shared().networks().get(0).ip() != null) {
                fallbackIp = res.shared().networks().get(0).ip();
            }
            for (AllocatedResources.AllocatedPort p : res.shared().ports()) {
                if (p.label().equals(label)) {
                    String ip = p.hostIp() == null || p.hostIp().isEmpty() ? fallbackIp : p.hostIp();
                    return new Endpoint(ip, mapped && p.to() > 0 ? p.to() : p.value());
                }
            }
        }
        if (res != null) {
            for (AllocatedResources.TaskResources t : res.tasks().values()) {
                for (NetworkResource net : t.networks()) {
                    List<Port> ports = new ArrayList<>(net.reservedPorts());
                    ports.addAll(net.dynamicPorts());
                    for (Port p : ports) {
                        if (p.label().equals(label)) {
                            return new Endpoint(net.ip(), mapped && p.to() > 0 ? p.to() : p.value());
                        }
                    }
                    if (fallbackIp.isEmpty() && net.ip() != null) {
                        fallbackIp = net.ip();
                    }
                }
            }
        }
        if (label != null && label.matches("\\d+")) {
            return new Endpoint(fallbackIp, Integer.parseInt(label));
        }
        return new Endpoint(fallbackIp, 0);
    }
}
