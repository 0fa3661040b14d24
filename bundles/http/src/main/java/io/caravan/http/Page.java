package io.caravan.http;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One page of a list endpoint, as Nomad's paginator makes it: walk the items in order (the caller has already
 * positioned the iterator at {@code next_token}), keep those the filter accepts, take {@code per_page} of them, and
 * hand back the token of the next accepted item, which becomes {@code X-Nomad-NextToken}. {@code perPage} 0 means
 * no paging. Converting to list stubs happens after filtering, because Nomad filters the full objects.
 */
public record Page<T>(List<T> items, String nextToken) {
    public Page {
        items = List.copyOf(items);
    }

    public static <T> Page<T> of(Iterator<T> ordered, Predicate<? super T> filter, Function<? super T, String> token,
                                 int perPage) {
        List<T> items = new ArrayList<>();
        while (ordered.hasNext()) {
            T item = ordered.next();
            if (!filter.test(item)) {
                continue;
            }
            if (perPage > 0 && items.size() == perPage) {
                return new Page<>(items, token.apply(item));
            }
            items.add(item);
        }
        return new Page<>(items, null);
    }

    public <R> Page<R> map(Function<? super T, ? extends R> stub) {
        return new Page<>(items.stream().<R>map(stub).toList(), nextToken);
    }
}
