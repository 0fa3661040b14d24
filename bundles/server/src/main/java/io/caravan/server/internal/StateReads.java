package io.caravan.server.internal;

import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
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
 * Nomad's list shape (namespace and prefix select, {@code filter} runs on full objects, then pages, then stubs).
 */
final class StateReads {
    private final StateStore store;

    StateReads(StateStore store) {
        this.store = store;
    }

    <R> CompletionStage<ApiResponse> query(ApiRequest r, BiFunction<StateSnapshot, WatchSet, Indexed<R>> q) {
        QueryOptions o = r.options();
        return store.query(o.minIndex(), o.maxWait(), q::apply)
                .thenApply(result -> ApiResponse.ok(result.value(), QueryMeta.index(result.index())));
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

    /** Nomad's list endpoint: namespace and prefix select, filter runs on full objects, then pages, then stubs. */
    /** @param stub the list form of a row, read from the same snapshot as the row */
    <T> CompletionStage<ApiResponse> list(ApiRequest r, TableSpec<T> table,
                                                  BiFunction<StateSnapshot, T, ?> stub) {
        QueryOptions o = r.options();
        Filter filter = o.filter().isEmpty() ? null : Filter.parse(o.filter());
        boolean namespaced = table == NomadTables.JOBS;
        String prefix = namespaced && !o.namespace().equals("*") ? NomadTables.key(o.namespace(), o.prefix())
                : o.prefix();
        return store.query(o.minIndex(), o.maxWait(), (s, ws) -> {
            ws.table(table.name());
            Stream<T> rows = o.nextToken().isEmpty() ? s.prefix(table, prefix)
                    : s.from(table, namespaced ? o.nextToken().replaceFirst("\\.", "\0") : o.nextToken())
                            .filter(row -> table.idOf(row).startsWith(prefix));
            Iterator<T> ordered = rows.iterator();
            Page<T> page = Page.of(ordered, row -> filter == null || filter.matches(NomadJson.mapper().valueToTree(row)),
                    row -> table.idOf(row).replace('\0', '.'), o.perPage());
            return new Indexed<>(page.map(row -> stub.apply(s, row)), s.tableIndex(table.name()));
        }).thenApply(result -> {
            Page<?> page = result.value();
            return ApiResponse.ok(page.items(), new QueryMeta(result.index(), true, 0, page.nextToken()));
        });
    }

}
