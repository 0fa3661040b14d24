package io.caravan.discover.dns.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.discover.DiscoverProvider;
import io.caravan.plugin.api.discover.Discoverer;

/**
 * {@code provider=dns name=<host> [port=4647] [type=A|SRV] [server=<host[:port]>]}.
 *
 * <ul>
 * <li>{@code type=A} (default): every A and AAAA address of {@code name}, each with {@code port}. Without
 * {@code server} the JVM's resolver answers ({@link InetAddress#getAllByName}, so {@code /etc/hosts} counts);
 * with {@code server} that DNS server is asked through JNDI.</li>
 * <li>{@code type=SRV}: the SRV records of {@code name} (e.g. {@code _nomad-rpc._tcp.example.com}), as
 * {@code target:port} from each record, lower priority first; {@code port} is ignored.</li>
 * </ul>
 * A name that does not exist yields an empty list, not an error, so a join retry simply finds nothing yet.
 *
 * <p>Membership and the RPC layer call it, through {@code DiscoverResolver}, on every {@code retry_join} attempt.
 */
@Component(service = Discoverer.class)
@DiscoverProvider("dns")
public final class DnsDiscoverer implements Discoverer {

    @Override
    public List<String> addresses(Map<String, String> args) throws NamingException, UnknownHostException {
        String name = args.get("name");
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("discover-dns: name is required");
        }
        String type = args.getOrDefault("type", "A").toUpperCase(Locale.ROOT);
        String server = args.get("server");
        switch (type) {
            case "A":
            case "AAAA":
                int port = HostPort.port(args.get("port"));
                List<String> ips = server == null || server.isBlank() ? resolve(name)
                        : canonical(lookup(server, name, "A", "AAAA"));
                return ips.stream().map(ip -> HostPort.format(ip, port)).toList();
            case "SRV":
                return srvAddresses(lookup(server, name, "SRV"));
            default:
                throw new IllegalArgumentException("discover-dns: type must be A or SRV, got \"" + type + "\"");
        }
    }

    /** The usable SRV records in order, as {@code target:port}. */
    static List<String> srvAddresses(List<String> recordTexts) {
        return recordTexts.stream().map(SrvRecord::parse).filter(r -> !r.unavailable())
                .sorted(SrvRecord.ORDER).map(SrvRecord::address).distinct().toList();
    }

    private static List<String> resolve(String name) throws UnknownHostException {
        try {
            Set<String> ips = new LinkedHashSet<>();
            for (InetAddress a : InetAddress.getAllByName(name)) {
                ips.add(a.getHostAddress());
            }
            return List.copyOf(ips);
        } catch (UnknownHostException e) {
            return List.of();
        }
    }

    /** IP literals as {@link InetAddress#getHostAddress()} writes them, so both paths agree (IPv6 uncompressed). */
    private static List<String> canonical(List<String> literals) throws UnknownHostException {
        Set<String> ips = new LinkedHashSet<>();
        for (String literal : literals) {
            ips.add(InetAddress.getByName(literal).getHostAddress()); // a literal: no lookup
        }
        return List.copyOf(ips);
    }

    /** The text of the records of the given types, via the JDK's JNDI DNS provider. */
    static List<String> lookup(String server, String name, String... types) throws NamingException {
        Hashtable<String, Object> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
        env.put(Context.PROVIDER_URL, server == null || server.isBlank() ? "dns:" : "dns://" + server);
        // Bounded, so one join attempt cannot hang on a dead server: 1 s, then 2 s (JNDI doubles per retry).
        env.put("com.sun.jndi.dns.timeout.initial", "1000");
        env.put("com.sun.jndi.dns.timeout.retries", "2");
        // JNDI loads the factory through the context class loader; a bundle's loader cannot see jdk.naming.dns.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ClassLoader.getSystemClassLoader());
        DirContext ctx = null;
        try {
            ctx = new InitialDirContext(env);
            List<String> texts = new ArrayList<>();
            // One query per type: asking for several at once makes JNDI send an ANY query, which servers may
            // refuse (RFC 8482).
            for (String type : types) {
                Attributes attributes;
                try {
                    attributes = ctx.getAttributes(name, new String[] {type});
                } catch (NameNotFoundException e) {
                    return List.of();
                }
                Attribute attribute = attributes.get(type);
                if (attribute == null) {
                    continue;
                }
                NamingEnumeration<?> values = attribute.getAll();
                while (values.hasMore()) {
                    texts.add(String.valueOf(values.next()));
                }
            }
            return texts;
        } finally {
            thread.setContextClassLoader(previous);
            if (ctx != null) {
                ctx.close();
            }
        }
    }
}
