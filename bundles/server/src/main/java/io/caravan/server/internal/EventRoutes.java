package io.caravan.server.internal;

import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Identity;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code GET /v1/event/stream?topic=Topic:Key&index=N&namespace=ns}: Nomad's event stream as NDJSON, one
 * {@code {"Index":N,"Events":[…]}} line per Raft index with matching events and {@code {}} heartbeats. Each topic has
 * its own ACL rule ({@link EventFilter}), so the dispatcher lets every caller through and the handler decides. Served
 * by the server that receives it, from its own broker.
 */
@Component(service = ApiRoutes.class)
public final class EventRoutes implements ApiRoutes {
    static final ApiEndpoint STREAM = ApiEndpoint.of("Event.Stream", AclRule.OWN);

    private final EventBroker broker;
    private final ServerState state;

    @Activate
    public EventRoutes(@Reference EventBroker broker, @Reference ServerState state) {
        this.broker = broker;
        this.state = state;
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/event/stream", STREAM, this::stream);
    }

    private ApiResponse stream(ApiRequest r) {
        if (!broker.enabled()) {
            throw CaravanException.badRequest("the event stream is disabled on this server"
                    + " (server { enable_event_broker = false })");
        }
        long index = index(r.query("index"));
        Identity caller = r.identity();
        EventFilter filter = EventFilter.of(r.queryAll("topic"), r.options().namespace(), caller.acl());
        EventBroker.TokenWatch token = caller.kind() == Identity.Kind.TOKEN
                ? state.store().snapshot().get(NomadTables.ACL_TOKENS, caller.id()).map(EventBroker.TokenWatch::of)
                        .orElse(null)
                : null;
        return ApiResponse.stream(broker.subscribe(filter, index, token));
    }

    private static long index(Optional<String> given) {
        if (given.isEmpty() || given.get().isEmpty()) {
            return 0;
        }
        try {
            long index = Long.parseLong(given.get());
            if (index < 0) {
                throw new NumberFormatException();
            }
            return index;
        } catch (NumberFormatException e) {
            throw CaravanException.invalid("index", "failed to parse " + "\"" + given.get()
                    + "\": must be a Raft index (0 or more)");
        }
    }
}
