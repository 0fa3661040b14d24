package io.caravan.http.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.caravan.api.acl.Identity;
import org.osgi.service.component.annotations.Component;

/**
 * How many calls each endpoint served, per caller identity ({@code anonymous}, {@code token:<accessor>},
 * {@code node:<id>}, {@code server:<name>}): the {@code nomad.rpc.request} counter with Nomad's {@code method} and
 * {@code identity} labels (seed 001), so an operator sees who is calling what. Counted after authentication and
 * before authorization, so refused calls count too.
 */
@Component(service = EndpointCalls.class)
public final class EndpointCalls {
    record Key(String method, String identity) {}

    record Count(String method, String identity, long calls) {}

    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();

    void count(String method, Identity caller) {
        counts.computeIfAbsent(new Key(method, caller.label()), k -> new LongAdder()).increment();
    }

    List<Count> snapshot() {
        List<Count> out = new ArrayList<>(counts.size());
        counts.forEach((k, v) -> out.add(new Count(k.method(), k.identity(), v.sum())));
        return out;
    }
}
