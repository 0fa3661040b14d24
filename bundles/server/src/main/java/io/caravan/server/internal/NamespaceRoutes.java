package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
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
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's namespace endpoints ({@link Namespaces}). Reading one, or seeing it listed, takes any capability in it;
 * writing and deleting take a management token, as in Nomad.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class NamespaceRoutes implements ApiRoutes {
    /** Open to anyone: the answer holds only the namespaces the caller has some capability in. */
    static final ApiEndpoint LIST = ApiEndpoint.of("Namespace.ListNamespaces", AclRule.PUBLIC);
    /**
     * Any capability in the namespace the path names (Nomad's {@code AllowNamespace}), whether or not it exists: a
     * caller without one gets a 403 either way, so the answer does not tell it which namespaces exist.
     */
    static final ApiEndpoint GET = ApiEndpoint.of("Namespace.GetNamespace", AclRule.anyOf(Capability.ALL.stream()
            .filter(c -> !Capability.DENY.equals(c)).map(AclRule::namespace).toArray(AclRule[]::new)));
    static final ApiEndpoint UPSERT = ApiEndpoint.of("Namespace.UpsertNamespaces", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE = ApiEndpoint.of("Namespace.DeleteNamespaces", AclRule.MANAGEMENT).onLeader()
            .namespacedBy(r -> r.pathParam("name"));

    /** What a namespace body may carry: its own fields, and the server-set ones a read returned (ignored). */
    private static final Set<String> KNOWN = Set.of("Name", "Description", "Meta", "CreateIndex", "ModifyIndex",
            "Hash");

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final AgentInfo agent;

    @Activate
    public NamespaceRoutes(@Reference ServerState state, @Reference RaftWrites writes, @Reference AgentInfo agent) {
        this.store = state.store();
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.agent = agent;
    }

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/namespaces", LIST, this::list)
                .getAsync("/v1/namespace/{name}", GET.namespacedBy(r -> r.pathParam("name")), this::get)
                .writeAsync("/v1/namespace", UPSERT, r -> upsert(r, null))
                .writeAsync("/v1/namespace/{name}", UPSERT, r -> upsert(r, r.pathParam("name")))
                .deleteAsync("/v1/namespace/{name}", DELETE, this::delete);
    }

    private CompletionStage<ApiResponse> list(ApiRequest r) {
        String prefix = r.options().prefix();
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.NAMESPACES.name());
            return new Indexed<>(Namespaces.all(s).filter(ns -> ns.name().startsWith(prefix))
                    .filter(ns -> JobRoutes.anyCapability(r.identity().acl(), ns.name())).toList(),
                    Math.max(1, s.tableIndex(NomadTables.NAMESPACES.name())));
        });
    }

    private CompletionStage<ApiResponse> get(ApiRequest r) {
        String name = r.pathParam("name");
        return reads.query(r, (s, ws) -> {
            ws.key(NomadTables.NAMESPACES.name(), name);
            var found = Namespaces.get(s, name);
            return new Indexed<>(found.orElse(null), found.map(Namespaces.Namespace::modifyIndex)
                    .orElse(Math.max(1, s.tableIndex(NomadTables.NAMESPACES.name()))));
        }).thenApply(answer -> {
            if (answer.body() == null) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "Namespace not found");
            }
            return answer;
        });
    }

    /**
     * Nomad's {@code PUT /v1/namespace[/:name]}: the body is the namespace; a path name must be the body's.
     *
     * @param path the name the URL gives; null for {@code /v1/namespace}
     */
    private CompletionStage<ApiResponse> upsert(ApiRequest r, String path) {
        JsonNode body = r.body(JsonNode.class);
        if (body == null || !body.isObject()) {
            throw CaravanException.badRequest("Request body must be a namespace object");
        }
        String name = body.path("Name").asText("");
        if (name.isEmpty() && path != null) {
            name = path;
        } else if (path != null && !path.equals(name)) {
            throw CaravanException.badRequest("Namespace name does not match request path");
        }
        for (var field = body.fieldNames(); field.hasNext(); ) {
            String f = field.next();
            JsonNode v = body.get(f);
            boolean empty = v.isNull() || (v.isTextual() && v.asText().isEmpty()) || (v.isContainerNode()
                    && v.isEmpty());
            if (!KNOWN.contains(f) && !empty) {
                // Quota, Capabilities, NodePoolConfiguration, Vault/ConsulConfiguration: nothing would enforce them.
                throw CaravanException.invalid(f, "not supported by Caravan");
            }
        }
        Map<String, String> meta = BodyFields.strings(body, "Meta");
        String description = BodyFields.text(body, "Description");
        Namespaces.Namespace ns = new Namespaces.Namespace(name, description, "", null, null, meta, 0, 0);
        Namespaces.problem(ns).ifPresent(problem -> {
            throw CaravanException.badRequest(problem);
        });
        return writes.submit(new Command.NamespaceUpsert(List.of(ns)))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        String name = r.pathParam("name");
        var snapshot = store.snapshot();
        Namespaces.refusal(snapshot, name, agent.region()).ifPresent(refused -> {
            throw CaravanException.badRequest(refused);
        });
        if (Namespaces.get(snapshot, name).isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "Namespace not found");
        }
        return writes.submit(new Command.NamespaceDelete(new ArrayList<>(List.of(name)), agent.region()))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }
}
