package io.caravan.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.http.HttpForward;

/**
 * The {@link HttpForward#FORWARDED} mark on the way from this agent's RPC side to its own HTTP listener. A call that
 * another server relayed here over RPC is run against the listener with the mark set to a value only this process
 * knows, and the listener believes the mark only with that value: a caller who sets the header is not believed, so it
 * cannot skip the forward to the leader or the relay to the node's server.
 */
final class ForwardedMark {
    private static final String VALUE = random();

    private ForwardedMark() {
    }

    private static String random() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** {@code headers} for the call to our own listener: the mark, if the relayed call carries it, as ours. */
    static Map<String, String> forListener(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>();
        boolean marked = false;
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase(HttpForward.FORWARDED)) {
                marked = true;
            } else {
                out.put(h.getKey(), h.getValue());
            }
        }
        if (marked) {
            out.put(HttpForward.FORWARDED, VALUE);
        }
        return out;
    }

    /** Whether {@code value}, the header as a request to the listener carries it, is this agent's own mark. */
    static boolean trusted(String value) {
        return value != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
                VALUE.getBytes(StandardCharsets.UTF_8));
    }
}
