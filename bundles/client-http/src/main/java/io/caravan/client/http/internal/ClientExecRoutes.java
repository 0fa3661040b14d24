package io.caravan.client.http.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Identity;
import io.caravan.client.ClientAllocs;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import io.caravan.plugin.api.driver.ExecSession;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code alloc exec}: {@code GET /v1/client/allocation/:id/exec?task=&command=<JSON array>&tty=} upgraded to
 * a WebSocket carrying {@link io.caravan.api.exec.ExecFrames}. The command is started before the upgrade, so a bad
 * request (unknown task, a task not running, a driver without exec) is a plain HTTP error; but a call that brings its
 * token in the first message ({@code ws_handshake=true}, ACLs on, no header token) is upgraded first, and its command
 * starts only once that token passes the checks (a refusal closes the socket with 1008 and the reason). Each session pumps the
 * command's output on two threads of this component's pool while it runs.
 */
@Component(service = ApiRoutes.class)
public final class ClientExecRoutes implements ApiRoutes {
    /** {@code alloc-exec}; exec into a task without filesystem isolation (raw_exec) also takes {@code alloc-node-exec}. */
    static final ApiEndpoint EXEC = ApiEndpoint.of("ClientAllocations.Exec",
            AclRule.namespace(Capability.ALLOC_EXEC));
    static final AclRule NODE_EXEC = AclRule.namespace(Capability.ALLOC_NODE_EXEC);
    static final String NO_COMMAND = "command is not present";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClientAllocs allocs;
    private final ExecutorService pumps;
    private final Set<ExecSocket> open = ConcurrentHashMap.newKeySet();

    @Activate
    public ClientExecRoutes(@Reference ClientAllocs allocs) {
        this.allocs = allocs;
        AtomicInteger n = new AtomicInteger();
        this.pumps = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "caravan-alloc-exec-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Ends every session: their commands are killed and their connections closed. */
    @Deactivate
    void deactivate() {
        open.forEach(ExecSocket::end);
        open.clear();
        pumps.shutdownNow();
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/client/allocation/{alloc}/exec",
                ClientFsRoutes.inAllocNamespace(allocs, EXEC).withTokenInHandshake(), this::exec);
    }

    ApiResponse exec(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        String task = Params.nonEmpty(request, "task")
                .orElseThrow(() -> CaravanException.badRequest("missing task parameter"));
        List<String> command = command(request);
        boolean tty = Params.bool(request, "tty", false);
        boolean handshake = Params.bool(request, "ws_handshake", false);
        if (!request.header("Upgrade").map(u -> u.equalsIgnoreCase("websocket")).orElse(false)) {
            throw CaravanException.badRequest("expected a WebSocket upgrade request");
        }
        if (request.authenticationDeferred()) {
            // The token comes in the first message: nothing is looked up, and nothing starts, before it is checked.
            return ApiResponse.ok(ExecSocket.awaitingToken(token -> {
                Identity caller = request.authenticate(token);
                String namespace = allocs.namespace(allocId).orElse(request.options().namespace());
                if (!EXEC.rule().allows(caller, namespace)) {
                    throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
                }
                return start(allocId, task, command, tty, caller);
            }, pumps, open));
        }
        ExecSession session = start(allocId, task, command, tty, request.identity());
        return ApiResponse.ok(new ExecSocket(session, handshake, request.token().orElse(null), pumps, open));
    }

    /** Starts the command for {@code caller}, already allowed {@code alloc-exec} in the allocation's namespace. */
    private ExecSession start(String allocId, String task, List<String> command, boolean tty, Identity caller) {
        String namespace = allocs.namespace(allocId).orElseThrow(() -> ClientFsRoutes.unknownAllocation(allocId));
        try {
            if (!allocs.fsIsolated(allocId, task) && !NODE_EXEC.allows(caller, namespace)) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            return allocs.exec(allocId, task, command, tty);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage() == null ? "invalid request" : e.getMessage();
            if (message.startsWith("Unknown allocation")) {
                throw ClientFsRoutes.unknownAllocation(allocId);
            }
            if (message.endsWith("not found")) {
                throw CaravanException.notFound(message);
            }
            throw CaravanException.badRequest(message);
        } catch (UnsupportedOperationException e) {
            throw CaravanException.badRequest("exec not supported");
        } catch (IllegalStateException e) {
            throw new CaravanException(ErrorCode.INTERNAL, e.getMessage());
        }
    }

    /** {@code command}: a JSON array of at least one string. */
    static List<String> command(ApiRequest request) {
        String raw = Params.nonEmpty(request, "command").orElseThrow(() -> CaravanException.badRequest(NO_COMMAND));
        List<String> command;
        try {
            command = JSON.readValue(raw, new TypeReference<List<String>>() {});
        } catch (Exception e) {
            throw CaravanException.badRequest("command must be a JSON array of strings: " + raw);
        }
        if (command == null || command.isEmpty() || command.get(0) == null || command.get(0).isEmpty()) {
            throw CaravanException.badRequest(NO_COMMAND);
        }
        return List.copyOf(command);
    }
}
