package io.caravan.tls;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.caravan.tls.CertificateSpec.Purpose;

/**
 * The three kinds of certificate {@code tls cert create} makes, with Nomad's names: common name
 * {@code <role>.<region>.<domain>}, files {@code <region>-<role>-<domain>.pem}, the given DNS names then the
 * common name and {@code localhost}, the given addresses then {@code 127.0.0.1} (not for the CLI).
 */
public enum AgentRole {
    SERVER("server", List.of(Purpose.SERVER_AUTH, Purpose.CLIENT_AUTH), true),
    CLIENT("client", List.of(Purpose.SERVER_AUTH, Purpose.CLIENT_AUTH), true),
    CLI("cli", List.of(Purpose.CLIENT_AUTH, Purpose.SERVER_AUTH), false);

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();   // 127.0.0.1

    private final String label;
    private final List<Purpose> purposes;
    private final boolean loopbackAddress;

    AgentRole(String label, List<Purpose> purposes, boolean loopbackAddress) {
        this.label = label;
        this.purposes = purposes;
        this.loopbackAddress = loopbackAddress;
    }

    /** {@code server}, {@code client} or {@code cli}. */
    public String label() {
        return label;
    }

    /** {@code server.global.nomad}. */
    public String commonName(String region, String domain) {
        return label + "." + region + "." + domain;
    }

    /** {@code global-server-nomad}: the certificate goes to {@code <prefix>.pem}, its key to {@code <prefix>-key.pem}. */
    public String filePrefix(String region, String domain) {
        return region + "-" + label + "-" + domain;
    }

    public CertificateSpec spec(String region, String domain, List<String> dnsNames, List<InetAddress> addresses,
                                int days) {
        String commonName = commonName(region, domain);
        List<String> names = new ArrayList<>(dnsNames);
        names.add(commonName);
        names.add("localhost");
        List<InetAddress> ips = new ArrayList<>(addresses);
        if (loopbackAddress) {
            ips.add(LOOPBACK);
        }
        return new CertificateSpec(commonName, names, ips, purposes, days);
    }
}
