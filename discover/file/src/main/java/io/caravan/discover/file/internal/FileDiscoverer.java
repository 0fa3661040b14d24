package io.caravan.discover.file.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.discover.DiscoverProvider;
import io.caravan.plugin.api.discover.Discoverer;

/**
 * {@code provider=file path=/etc/caravan/servers [port=4647]}: the file holds one address per line ({@code host},
 * {@code host:port}, {@code 10.0.0.1}, {@code [2001:db8::1]:4648}, or a bare IPv6 literal). Text from {@code #} to the
 * end of a line is a comment; blank lines are skipped; a line without a port gets {@code port} (default 4647). The
 * file is read again on every lookup, so editing it changes the next join attempt. A missing file is an error.
 *
 * <p>Membership and the RPC layer call it, through {@code DiscoverResolver}, on every {@code retry_join} attempt.
 */
@Component(service = Discoverer.class)
@DiscoverProvider("file")
public final class FileDiscoverer implements Discoverer {
    static final int DEFAULT_PORT = 4647;

    @Override
    public List<String> addresses(Map<String, String> args) throws IOException {
        String path = args.get("path");
        if (path == null || path.isBlank()) {
            throw new IllegalArgumentException("discover-file: path is required");
        }
        int port = port(args.get("port"));
        return parse(Files.readAllLines(Path.of(path), StandardCharsets.UTF_8), port);
    }

    static List<String> parse(List<String> lines, int defaultPort) {
        List<String> addresses = new ArrayList<>();
        for (String raw : lines) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("discover-file: one address per line, got \"" + line + "\"");
            }
            String address = withPort(line, defaultPort);
            if (!addresses.contains(address)) {
                addresses.add(address);
            }
        }
        return List.copyOf(addresses);
    }

    private static String withPort(String address, int defaultPort) {
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("discover-file: unclosed [ in \"" + address + "\"");
            }
            if (close == address.length() - 1) {
                return address + ":" + defaultPort;
            }
            if (address.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("discover-file: malformed address \"" + address + "\"");
            }
            explicitPort(address, address.substring(close + 2));
            return address;
        }
        int colon = address.indexOf(':');
        if (colon < 0) {
            return address + ":" + defaultPort;
        }
        if (address.indexOf(':', colon + 1) >= 0) {
            return "[" + address + "]:" + defaultPort; // bare IPv6 literal
        }
        explicitPort(address, address.substring(colon + 1));
        return address;
    }

    private static void explicitPort(String address, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("discover-file: empty port in \"" + address + "\"");
        }
        port(value);
    }

    static int port(String value) {
        if (value == null || value.isEmpty()) {
            return DEFAULT_PORT;
        }
        try {
            int port = Integer.parseInt(value);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("discover-file: port must be 1-65535, got \"" + value + "\"");
    }
}
