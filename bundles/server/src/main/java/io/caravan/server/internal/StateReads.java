package io.caravan.server.internal;

import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.Page;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.filter.Filter;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.TableSpec;
import io.caravan.state.WatchSet;

/**
 * How every read endpoint answers: a blocking query on the state store (no thread waits), one object or a 404, or
 * Nomad's list shape (namespace and prefix select, {@code filter} runs on full objects, the caller's ACL drops rows of
 * namespaces it may not read, then pages, then stubs). Reads are consistent unless {@code ?stale}: the query first
 * waits for this server to have applied what the leader had committed ({@link RaftWrites#beforeRead}, once, before a
 * blocking query's first run), and answers carry Nomad's leader headers.
 */
final class StateReads {
    private final StateStore store;
    private final RaftWrites raft;

    StateReads(StateStore store, RaftWrites raft) {
        this.store = store;
        this.raft = raft;
    }

    /** {@link StateStore#query} with the call's index and wait, after the wait for consistency the call asks for. */
    <R> CompletionStage<Indexed<R>> indexed(ApiRequest r, BiFunction<StateSnapshot, WatchSet, Indexed<R>> q) {
        QueryOptions o = r.options();
        return raft.beforeRead(o.allowStale()).thenCompose(ready -> store.query(o.minIndex(), o.maxWait(), q::apply));
    }

    /** A read's headers: its index, the next page's token (or null), and what this server knows of the leader. */
    QueryMeta meta(long index, String nextToken) {
        return raft.readMeta(index, nextToken);
    }

    /**
     * Which rows of a namespaced table a call may see: those of the namespace asked for (of every one for
     * {@code namespace=*}) whose namespace grants the caller {@code capability}. The dispatcher has checked the
     * capability in the namespace asked for, or for {@code *} in some namespace; rows are checked one by one here.
     */
    record Namespaced<T>(Function<? super T, String> namespaceOf, String capability) {
        Predicate<T> visibleTo(ApiRequest r) {
            String asked = r.options().namespace();
            Acl acl = r.identity().acl();
            return row -> {
                String ns = namespaceOf.apply(row);
                return ("*".equals(asked) || asked.equals(ns)) && acl.allowNamespace(ns, capability);
            };
        }

        /** The same rows of every namespace (a node's allocations), still only where the caller may read them. */
        Predicate<T> grantedTo(ApiRequest r) {
            Acl acl = r.identity().acl();
            return row -> acl.allowNamespace(namespaceOf.apply(row), capability);
        }
    }

    <R> CompletionStage<ApiResponse> query(ApiRequest r, BiFunction<StateSnapshot, WatchSet, Indexed<R>> q) {
        return indexed(r, q).thenApply(result -> ApiResponse.ok(result.value(), meta(result.index(), null)));
    }

    <T> CompletionStage<ApiResponse> one(ApiRequest r, TableSpec<T> table, String key, String notFound) {
        return query(r, (s, ws) -> {
            ws.key(table.name(), key);
            return new Indexed<>(s.get(table, key), s.tableIndex(table.name()));
        }).thenApply(answer -> {
            Optional<?> found = (Optional<?>) answer.body();
            if (found.isEmpty()) {
                throw new CaravanException(ErrorCode.NOT_FOUND, notFound);
            }
            return new ApiResponse(200, found.get(), answer.meta());
        });
    }

    /**
     * One object of a namespaced table by its ID: a 404 when missing, a 403 when its namespace does not grant the
     * caller the capability (it may have appeared, in another namespace, while a blocking query waited).
     */
    <T> CompletionStage<ApiResponse> one(ApiRequest r, TableSpec<T> table, String key, String notFound,
                                         Namespaced<T> namespaced) {
        Predicate<T> granted = namespaced.grantedTo(r);
        return one(r, table, key, notFound).thenApply(answer -> {
            @SuppressWarnings("unchecked")
            T row = (T) answer.body();
            if (!granted.test(row)) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            return answer;
        });
    }

    /** A list of a table without namespaces (nodes). */
    <T> CompletionStage<ApiResponse> list(ApiRequest r, TableSpec<T> table, BiFunction<StateSnapshot, T, ?> stub) {
        return list(r, table, null, stub);
    }

    /**
     * Nomad's list endpoint: namespace and prefix select, filter runs on full objects, rows the caller may not read
     * are dropped, then pages, then stubs.
     *
     * @param namespaced how a row names its namespace and what reading it takes; null for a table without
     * @param stub       the list form of a row, read from the same snapshot as the row
     */
    <T> CompletionStage<ApiResponse> list(ApiRequest r, TableSpec<T> table, Namespaced<T> namespaced,
                                          BiFunction<StateSnapshot, T, ?> stub) {
        return list(r, table, namespaced, row -> true, stub);
    }

    /**
     * {@link #list} of the rows {@code selected} also accepts (an endpoint's own parameters, such as the
     * evaluations' {@code job} and {@code status}); {@code reverse} walks the keys in descending order.
     */
    <T> CompletionStage<ApiResponse> list(ApiRequest r, TableSpec<T> table, Namespaced<T> namespaced,
                                          Predicate<? super T> selected, BiFunction<StateSnapshot, T, ?> stub) {
        QueryOptions o = r.options();
        Filter filter = o.filter().isEmpty() ? null : Filter.parse(o.filter());
        Predicate<T> visible = namespaced == null ? row -> true : namespaced.visibleTo(r);
        boolean keyedByNamespace = table == NomadTables.JOBS;
        String prefix = keyedByNamespace && !o.namespace().equals("*") ? NomadTables.key(o.namespace(), o.prefix())
                : o.prefix();
        return indexed(r, (s, ws) -> {
            ws.table(table.name());
            String token = keyedByNamespace ? o.nextToken().replaceFirst("\\.", "\0") : o.nextToken();
            Stream<T> rows;
            if (o.reverse()) {
                // Descending from the token, else from the last key with the prefix ('\uffff' sorts after them).
                rows = s.reversedFrom(table, token.isEmpty() ? prefix + '\uffff' : token)
                        .takeWhile(row -> table.idOf(row).startsWith(prefix));
            } else {
                rows = token.isEmpty() ? s.prefix(table, prefix)
                        : s.from(table, token).filter(row -> table.idOf(row).startsWith(prefix));
            }
            Iterator<T> ordered = rows.iterator();
            Page<T> page = Page.of(ordered, row -> selected.test(row) && visible.test(row)
                            && (filter == null || filter.matches(NomadJson.mapper().valueToTree(row))),
                    row -> table.idOf(row).replace('\0', '.'), o.perPage());
            return new Indexed<>(page.map(row -> stub.apply(s, row)), s.tableIndex(table.name()));
        }).thenApply(result -> {
            Page<?> page = result.value();
            return ApiResponse.ok(page.items(), meta(result.index(), page.nextToken()));
        });
    }

}
