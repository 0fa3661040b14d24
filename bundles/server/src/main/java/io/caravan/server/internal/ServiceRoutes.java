package io.caravan.server.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.Indexed;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's native service discovery: {@code /v1/services} (names and tags per namespace), {@code /v1/service/:name}
 * (the instances, or {@code choose}n of them by rendezvous hashing) and {@code DELETE /v1/service/:name/:id}.
 * Reads are blocking queries on the registrations table.
 */
@Component(service = ApiRoutes.class)
public final class ServiceRoutes implements ApiRoutes {
    private static final AclRule READ_JOB = AclRule.namespace(Capability.READ_JOB);
    private static final AclRule SUBMIT_JOB = AclRule.namespace(Capability.SUBMIT_JOB);

    static final ApiEndpoint LIST = ApiEndpoint.of("ServiceRegistration.List", READ_JOB);
    static final ApiEndpoint GET = ApiEndpoint.of("ServiceRegistration.GetService", READ_JOB);
    static final ApiEndpoint DELETE = ApiEndpoint.of("ServiceRegistration.DeleteByID", SUBMIT_JOB).onLeader();

    static final StateReads.Namespaced<ServiceRegistration> SERVICES_READ = new StateReads.Namespaced<>(
            ServiceRegistration::namespace, Capability.READ_JOB);
    static final String NOT_FOUND = "service registration not found";

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;

    @Activate
    public ServiceRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this(state.store(), writes);
    }

    ServiceRoutes(StateStore store, RaftWrites writes) {
        this.store = store;
        this.reads = new StateReads(store, writes);
        this.writes = writes;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/services", LIST, this::list)
                .getAsync("/v1/service/{name}", GET, this::get)
                .deleteAsync("/v1/service/{name}/{id}", DELETE, this::delete);
    }

    /** Nomad's {@code ServiceRegistrationListStub}: one namespace's service names with their tags. */
    record NamespaceServices(String namespace, List<ServiceStub> services) {}

    record ServiceStub(String serviceName, List<String> tags) {}

    private CompletionStage<ApiResponse> list(ApiRequest r) {
        Predicate<ServiceRegistration> visible = SERVICES_READ.visibleTo(r);
        String namespace = r.options().namespace();
        String scan = "*".equals(namespace) ? "" : NomadTables.key(namespace, "");
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.SERVICE_REGISTRATIONS.name());
            Map<String, Map<String, TreeSet<String>>> byNamespace = new TreeMap<>();
            s.byIndexPrefix(NomadTables.SERVICE_REGISTRATIONS, "service", scan).filter(visible).forEach(reg ->
                    byNamespace.computeIfAbsent(reg.namespace(), k -> new TreeMap<>())
                            .computeIfAbsent(reg.serviceName(), k -> new TreeSet<>()).addAll(reg.tags()));
            List<NamespaceServices> out = new ArrayList<>();
            byNamespace.forEach((ns, services) -> out.add(new NamespaceServices(ns, services.entrySet().stream()
                    .map(e -> new ServiceStub(e.getKey(), List.copyOf(e.getValue()))).toList())));
            return new Indexed<>(out, Math.max(1, s.tableIndex(NomadTables.SERVICE_REGISTRATIONS.name())));
        });
    }

    private CompletionStage<ApiResponse> get(ApiRequest r) {
        String name = r.pathParam("name");
        Choice choice = Choice.parse(r.query("choose").orElse(null));
        String key = NomadTables.key(r.options().namespace(), name);
        Predicate<ServiceRegistration> visible = SERVICES_READ.visibleTo(r);
        return reads.query(r, (s, ws) -> {
            ws.indexKey(NomadTables.SERVICE_REGISTRATIONS.name(), "service", key);
            Stream<ServiceRegistration> rows = s.byIndex(NomadTables.SERVICE_REGISTRATIONS, "service", key)
                    .filter(visible).sorted(Comparator.comparing(ServiceRegistration::id));
            List<ServiceRegistration> found = choice == null ? rows.toList() : choice.choose(rows.toList());
            return new Indexed<>(found, Math.max(1, s.tableIndex(NomadTables.SERVICE_REGISTRATIONS.name())));
        });
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        String id = r.pathParam("id");
        ServiceRegistration reg = store.snapshot().get(NomadTables.SERVICE_REGISTRATIONS, id)
                .filter(s -> s.serviceName().equals(r.pathParam("name"))
                        && s.namespace().equals(r.options().namespace()))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, NOT_FOUND));
        return writes.submit(new Command.ServiceRegistrationDelete(List.of(reg.id())))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    /**
     * {@code choose=<n>|<key>}: the {@code n} instances that rank highest for {@code key} by rendezvous (highest
     * random weight) hashing, so each caller's key keeps picking the same instances while the set allows.
     */
    record Choice(int count, String key) {
        static Choice parse(String text) {
            if (text == null || text.isEmpty()) {
                return null;
            }
            int bar = text.indexOf('|');
            if (bar <= 0 || bar == text.length() - 1) {
                throw CaravanException.invalid("choose", "must be of the form <number>|<key>, got \"" + text + "\"");
            }
            int count;
            try {
                count = Integer.parseInt(text.substring(0, bar));
            } catch (NumberFormatException e) {
                throw CaravanException.invalid("choose", "the number of instances is not a number: \""
                        + text.substring(0, bar) + "\"");
            }
            if (count < 1) {
                throw CaravanException.invalid("choose", "the number of instances must be positive");
            }
            return new Choice(count, text.substring(bar + 1));
        }

        List<ServiceRegistration> choose(List<ServiceRegistration> all) {
            return all.stream().sorted(Comparator.comparing((ServiceRegistration s) -> weight(key, s.id()))
                    .reversed().thenComparing(ServiceRegistration::id)).limit(count).toList();
        }

        static String weight(String key, String id) {
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                sha.update(key.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(id.getBytes(StandardCharsets.UTF_8));
                return HexFormat.of().formatHex(sha.digest());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
