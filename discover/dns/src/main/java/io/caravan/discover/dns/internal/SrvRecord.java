package io.caravan.discover.dns.internal;

import java.util.Comparator;

/**
 * One SRV record as JNDI DNS returns its text: {@code "priority weight port target."}.
 *
 * @param target host name without the trailing dot
 */
record SrvRecord(int priority, int weight, int port, String target) {

    /** Lower priority first; within a priority, heavier weight first (deterministic, not RFC 2782's draw). */
    static final Comparator<SrvRecord> ORDER = Comparator.comparingInt(SrvRecord::priority)
            .thenComparing(Comparator.comparingInt(SrvRecord::weight).reversed());

    static SrvRecord parse(String text) {
        String[] f = text.trim().split("\\s+");
        if (f.length != 4) {
            throw new IllegalArgumentException("discover-dns: malformed SRV record \"" + text + "\"");
        }
        try {
            int priority = Integer.parseInt(f[0]);
            int weight = Integer.parseInt(f[1]);
            int port = Integer.parseInt(f[2]);
            if (priority < 0 || priority > 65535 || weight < 0 || weight > 65535 || port < 0 || port > 65535) {
                throw new IllegalArgumentException("discover-dns: SRV field out of range in \"" + text + "\"");
            }
            String target = f[3].endsWith(".") ? f[3].substring(0, f[3].length() - 1) : f[3];
            return new SrvRecord(priority, weight, port, target);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("discover-dns: malformed SRV record \"" + text + "\"", e);
        }
    }

    /**
     * RFC 2782: a target of "." with port 0 means the service is decidedly not available here.
     */
    boolean unavailable() {
        return target.isEmpty();
    }

    String address() {
        return HostPort.format(target, port);
    }
}
