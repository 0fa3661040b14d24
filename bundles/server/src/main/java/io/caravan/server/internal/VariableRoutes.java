package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.GoDuration;
import io.caravan.api.acl.AclRule;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.Page;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.http.filter.Filter;
import io.caravan.state.Indexed;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's variables: {@code /v1/vars} (metadata only) and {@code /v1/var/:path} (read, write with check-and-set or a
 * lock operation, delete). Each endpoint declares its variables capability; the handler checks it on the path (a list
 * drops the rows the caller may not list). Writes run on the leader, whose clock the lock rules use. Items are
 * encrypted before they are written and decrypted when read ({@link Variables}); lists show metadata only.
 */
@Component(service = ApiRoutes.class)
public final class VariableRoutes implements ApiRoutes {
    static final AclRule.Variable LIST_RULE = AclRule.variable("list");
    static final AclRule.Variable READ_RULE = AclRule.variable("read");
    static final AclRule.Variable WRITE_RULE = AclRule.variable("write");
    static final AclRule.Variable DESTROY_RULE = AclRule.variable("destroy");
    static final ApiEndpoint LIST = ApiEndpoint.of("Variables.List", LIST_RULE);
    static final ApiEndpoint READ = ApiEndpoint.of("Variables.Read", READ_RULE);
    static final ApiEndpoint APPLY = ApiEndpoint.of("Variables.Apply", WRITE_RULE).onLeader();
    static final ApiEndpoint DELETE = ApiEndpoint.of("Variables.Delete", DESTROY_RULE).onLeader();

    /** Nomad's path rule: URL-safe characters that templates do not use for anything else, at most 128. */
    private static final Pattern PATH = Pattern.compile("[a-zA-Z0-9\\-_~/]{1,128}");
    static final Duration MIN_LOCK_TTL = Duration.ofSeconds(10);
    static final Duration MAX_LOCK_TTL = Duration.ofHours(24);
    static final String DEFAULT_LOCK_TTL = "15s";
    static final String DEFAULT_LOCK_DELAY = "15s";
    private static final List<String> LOCK_OPERATIONS = List.of(Command.VariableLockUpdate.ACQUIRE,
            Command.VariableLockUpdate.RENEW, Command.VariableLockUpdate.RELEASE);

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final Variables variables;
    private final Clock clock;

    @Activate
    public VariableRoutes(@Reference ServerState state, @Reference RaftWrites writes,
                          @Reference Variables variables) {
        this(state.store(), writes, variables, Clock.systemUTC());
    }

    VariableRoutes(StateStore store, RaftWrites writes, Variables variables, Clock clock) {
        this.store = store;
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.variables = variables;
        this.clock = clock;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/vars", LIST, this::list)
                .getAsync("/v1/var/{path*}", READ, this::read)
                .routeAsync("HEAD", "/v1/var/{path*}", READ, this::read)
                .writeAsync("/v1/var/{path*}", APPLY, this::apply)
                .deleteAsync("/v1/var/{path*}", DELETE, this::delete);
    }

    private long now() {
        return Duration.between(Instant.EPOCH, clock.instant()).toNanos();
    }

    // ---- reads --------------------------------------------------------------------------------------------------

    private CompletionStage<ApiResponse> list(ApiRequest r) {
        QueryOptions o = r.options();
        String namespace = o.namespace();
        boolean every = namespace.equals("*");
        String prefix = o.prefix();
        Filter filter = o.filter().isEmpty() ? null : Filter.parse(o.filter());
        long now = now();
        Predicate<Variable.Entry> visible = e -> e.variable().path().startsWith(prefix)
                && LIST_RULE.allows(r.identity(), e.variable().namespace(), e.variable().path());
        String scan = every ? "" : NomadTables.key(namespace, prefix);
        return reads.indexed(r, (s, ws) -> {
            ws.table(NomadTables.VARIABLES.name());
            Stream<Variable.Entry> rows = o.nextToken().isEmpty() ? s.prefix(NomadTables.VARIABLES, scan)
                    : s.from(NomadTables.VARIABLES, o.nextToken().replaceFirst("\\.", "\0"))
                            .takeWhile(e -> e.key().startsWith(scan));
            Iterator<Variable.Entry> ordered = rows.iterator();
            Page<Variable.Entry> page = Page.of(ordered, e -> visible.test(e) && (filter == null
                            || filter.matches(NomadJson.mapper().valueToTree(e.shown(now).metadata()))),
                    e -> e.key().replace('\0', '.'), o.perPage());
            return new Indexed<>(page.map(e -> e.shown(now).metadata()),
                    s.tableIndex(NomadTables.VARIABLES.name()));
        }).thenApply(result -> ApiResponse.ok(result.value().items(),
                reads.meta(result.index(), result.value().nextToken())));
    }

    private CompletionStage<ApiResponse> read(ApiRequest r) {
        String namespace = namespace(r);
        String path = path(r);
        require(READ_RULE, r, namespace, path);
        String key = NomadTables.key(namespace, path);
        return reads.query(r, (s, ws) -> {
            ws.key(NomadTables.VARIABLES.name(), key);
            return new Indexed<>(s.get(NomadTables.VARIABLES, key), s.tableIndex(NomadTables.VARIABLES.name()));
        }).thenApply(answer -> {
            Optional<?> found = (Optional<?>) answer.body();
            if (found.isEmpty()) {
                throw new CaravanException(ErrorCode.NOT_FOUND, VariableApply.NOT_FOUND);
            }
            return new ApiResponse(200, variables.open(((Variable.Entry) found.get()).shown(now())), answer.meta());
        });
    }

    // ---- writes -------------------------------------------------------------------------------------------------

    /**
     * Nomad's {@code VariableDecrypted} as a request body. Indexes and times are the server's to set (a check-and-set
     * index comes as {@code ?cas}); on a plain write, {@code Lock.ID} names the holder of a locked variable, and the
     * lock's TTL and delay stay as acquired.
     */
    record Body(String namespace, String path, Map<String, Object> items, LockBody lock) {}

    record LockBody(String id, String ttl, String lockDelay) {}

    private CompletionStage<ApiResponse> apply(ApiRequest r) {
        String namespace = namespace(r);
        String path = path(r);
        require(WRITE_RULE, r, namespace, path);
        List<String> operations = LOCK_OPERATIONS.stream().filter(op -> r.query(op).isPresent()).toList();
        Optional<Long> cas = cas(r);
        if (operations.size() > 1) {
            throw CaravanException.badRequest("multiple lock operations: " + String.join(", ", operations));
        }
        if (!operations.isEmpty() && cas.isPresent()) {
            throw CaravanException.badRequest("cas can't be used with lock operations");
        }
        Body body = r.body(Body.class);
        if (body == null) {
            throw CaravanException.invalid("Items", "missing");
        }
        if (body.namespace() != null && !body.namespace().isEmpty() && !body.namespace().equals(namespace)) {
            throw CaravanException.invalid("Namespace", "the body names " + quote(body.namespace())
                    + " but the request is for namespace " + quote(namespace));
        }
        if (body.path() != null && !body.path().isEmpty() && !body.path().equals(path)) {
            throw CaravanException.invalid("Path", "the body names " + quote(body.path()) + " but the URL "
                    + quote(path));
        }
        Map<String, String> items = items(body.items(), operations.isEmpty());
        long now = now();
        Variable variable = variables.seal(new Variable(namespace, path, items, null, 0, 0, 0, 0));
        if (operations.isEmpty()) {
            LockBody named = body.lock();
            if (named == null) {
                return submit(r, new Command.VariableSet(variable, cas.isPresent(), cas.orElse(0L), null, now),
                        namespace, path, false);
            }
            duration(named.ttl(), DEFAULT_LOCK_TTL, "Lock.TTL");
            duration(named.lockDelay(), DEFAULT_LOCK_DELAY, "Lock.LockDelay");
            Variable.Lock lock = new Variable.Lock(named.id(), named.ttl(), named.lockDelay());
            return submit(r, new Command.VariableSet(variable.withLock(lock), cas.isPresent(), cas.orElse(0L),
                    named.id(), now), namespace, path, false);
        }
        String operation = operations.get(0);
        if (!operation.equals(Command.VariableLockUpdate.ACQUIRE) && variable.hasContent()) {
            throw CaravanException.invalid("Items", operation + " does not change the items; send none");
        }
        Variable.Lock lock = lock(operation, body.lock());
        return submit(r, new Command.VariableLockUpdate(operation, variable.withLock(lock), now), namespace, path,
                operation.equals(Command.VariableLockUpdate.RENEW));
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        String namespace = namespace(r);
        String path = path(r);
        require(DESTROY_RULE, r, namespace, path);
        Optional<Long> cas = cas(r);
        Command command = new Command.VariableDelete(namespace, path, cas.isPresent(), cas.orElse(0L), null, now());
        return writes.submit(command)
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())))
                .exceptionally(e -> conflict(r, e, namespace, path));
    }

    /** Writes and answers the variable as stored (its metadata for a renewal), or the conflict. */
    private CompletionStage<ApiResponse> submit(ApiRequest r, Command command, String namespace, String path,
                                                boolean metadataOnly) {
        String key = NomadTables.key(namespace, path);
        return writes.submit(command).thenApply(result -> {
            Variable stored = store.snapshot().get(NomadTables.VARIABLES, key).map(e -> e.at(now()))
                    .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, VariableApply.NOT_FOUND));
            return ApiResponse.ok(metadataOnly ? stored.metadata() : variables.open(stored),
                    QueryMeta.index(result.index()));
        }).exceptionally(e -> conflict(r, e, namespace, path));
    }

    /**
     * A 409 as Nomad answers it: the current variable as the body (its items only for a caller who may read them;
     * for a missing variable, just its namespace and path). Any other failure passes through.
     */
    private ApiResponse conflict(ApiRequest r, Throwable error, String namespace, String path) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (!(cause instanceof CaravanException c) || c.code() != ErrorCode.CONFLICT) {
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        }
        Optional<Variable.Entry> current = store.snapshot().get(NomadTables.VARIABLES,
                NomadTables.key(namespace, path));
        Variable body = current.map(e -> e.shown(now()))
                .orElse(new Variable(namespace, path, Map.of(), null, 0, 0, 0, 0));
        body = READ_RULE.allows(r.identity(), namespace, path) ? variables.open(body) : body.withItems(Map.of());
        return new ApiResponse(409, body, QueryMeta.index(store.snapshot().tableIndex(NomadTables.VARIABLES.name())));
    }

    // ---- request checks -----------------------------------------------------------------------------------------

    private static String namespace(ApiRequest r) {
        String namespace = r.options().namespace();
        if (namespace.equals("*")) {
            throw CaravanException.invalid("namespace", "can not target wildcard (\"*\") namespace");
        }
        return namespace;
    }

    /** The URL's path, checked as Nomad checks it (plus a clear word on {@code ..}). */
    static String path(ApiRequest r) {
        String path = r.pathParam("path");
        if (path == null || path.isEmpty()) {
            throw CaravanException.invalid("Path", "missing variable path");
        }
        if (path.contains("..")) {
            throw CaravanException.invalid("Path", "must not contain \"..\"");
        }
        if (!PATH.matcher(path).matches()) {
            throw CaravanException.invalid("Path", "invalid path " + quote(path)
                    + ": use at most 128 of the characters a-z A-Z 0-9 - _ ~ /");
        }
        String[] parts = path.split("/", -1);
        if (parts[0].equals("nomad")) {
            if (parts.length == 1) {
                throw CaravanException.invalid("Path", "\"nomad\" is a reserved top-level directory path, but you may"
                        + " write variables to \"nomad/jobs\", \"nomad/job-templates\", or below");
            }
            if (parts[1].equals("job-templates") && parts.length != 3) {
                throw CaravanException.invalid("Path", "\"nomad/job-templates\" is a reserved directory path, but you"
                        + " may write variables at the level below it, for example,"
                        + " \"nomad/job-templates/template-name\"");
            }
            if (!parts[1].equals("jobs") && !parts[1].equals("job-templates")) {
                throw CaravanException.invalid("Path", "only paths at \"nomad/jobs\" or \"nomad/job-templates\" and"
                        + " below are valid paths under the top-level \"nomad\" directory");
            }
        }
        return path;
    }

    private static void require(AclRule.Variable rule, ApiRequest r, String namespace, String path) {
        if (!rule.allows(r.identity(), namespace, path)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
    }

    private static Optional<Long> cas(ApiRequest r) {
        Optional<String> cas = r.query("cas");
        if (cas.isEmpty()) {
            return Optional.empty();
        }
        try {
            long index = Long.parseLong(cas.get());
            if (index < 0) {
                throw new NumberFormatException();
            }
            return Optional.of(index);
        } catch (NumberFormatException e) {
            throw CaravanException.invalid("cas", "failed to parse cas value " + quote(cas.get())
                    + ": must be an index (0 or more)");
        }
    }

    /** Items as strings, within Nomad's size limit; a lock operation may come without any. */
    private static Map<String, String> items(Map<String, Object> given, boolean required) {
        if (given == null || given.isEmpty()) {
            if (required) {
                throw CaravanException.invalid("Items", "empty variables are invalid");
            }
            return Map.of();
        }
        Map<String, String> items = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : given.entrySet()) {
            if (e.getKey().isEmpty()) {
                throw CaravanException.invalid("Items", "a key must not be empty");
            }
            if (!(e.getValue() instanceof String value)) {
                throw CaravanException.invalid("Items." + e.getKey(), "must be a string");
            }
            items.put(e.getKey(), value);
        }
        long size = new Variable("default", "x", items, null, 0, 0, 0, 0).size();
        if (size > Variable.MAX_SIZE) {
            throw CaravanException.invalid("Items", "variables are limited to 64KiB in total size ("
                    + Variable.MAX_SIZE + " bytes of keys and values); this one has " + size);
        }
        return items;
    }

    /**
     * The lock a lock operation carries: an acquire gets a new ID and Nomad's defaults (TTL 15s within 10s..24h,
     * LockDelay 15s); a renewal or release names the holder's ID.
     */
    private static Variable.Lock lock(String operation, LockBody given) {
        if (!operation.equals(Command.VariableLockUpdate.ACQUIRE)) {
            if (given == null || given.id() == null || given.id().isEmpty()) {
                throw CaravanException.invalid("Lock.ID", "missing: " + operation + " names the lock holder's ID");
            }
            return new Variable.Lock(given.id(), DEFAULT_LOCK_TTL, DEFAULT_LOCK_DELAY);
        }
        if (given != null && given.id() != null && !given.id().isEmpty()) {
            throw CaravanException.invalid("Lock.ID", "set by the server when a lock is acquired");
        }
        Duration ttl = duration(given == null ? null : given.ttl(), DEFAULT_LOCK_TTL, "Lock.TTL");
        Duration delay = duration(given == null ? null : given.lockDelay(), DEFAULT_LOCK_DELAY, "Lock.LockDelay");
        if (ttl.compareTo(MIN_LOCK_TTL) < 0 || ttl.compareTo(MAX_LOCK_TTL) > 0) {
            throw CaravanException.invalid("Lock.TTL", "TTL must be between 10 seconds and 24 hours");
        }
        if (delay.isNegative()) {
            throw CaravanException.invalid("Lock.LockDelay", "Lock delay and TTL must be positive");
        }
        return new Variable.Lock(UUID.randomUUID().toString(), GoDuration.format(ttl), GoDuration.format(delay));
    }

    private static Duration duration(String given, String fallback, String field) {
        if (given == null || given.isEmpty()) {
            return GoDuration.parse(fallback);
        }
        try {
            return GoDuration.parse(given);
        } catch (IllegalArgumentException e) {
            throw CaravanException.invalid(field, e.getMessage());
        }
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
