package io.caravan.agent;

/**
 * A configuration key the loaded files or flags set that Caravan reads but does not act on yet: it is accepted so
 * Nomad configurations load, and reported (a WARN at load, the reload report, {@code /v1/agent/self}) rather than
 * ignored silently.
 *
 * @param key the dotted path as written, e.g. {@code tls.http} or {@code plugin.docker.config}
 * @param position where it was set: {@code file:line:column}, or {@code command line}
 * @param reason what is not done
 */
public record UnsupportedKey(String key, String position, String reason) {
    @Override
    public String toString() {
        return key + " (" + position + "): " + reason;
    }
}
