package io.caravan.tls;

import java.net.InetAddress;
import java.util.List;

/**
 * What a certificate issued by a {@link CertificateAuthority} says: its common name, subject alternative names
 * (DNS names, then IP addresses, in this order), extended key usages and lifetime in days.
 */
public record CertificateSpec(String commonName, List<String> dnsNames, List<InetAddress> ipAddresses,
                              List<Purpose> purposes, int days) {

    /** Extended key usages. */
    public enum Purpose {
        SERVER_AUTH("1.3.6.1.5.5.7.3.1", "server auth"),
        CLIENT_AUTH("1.3.6.1.5.5.7.3.2", "client auth");

        private final String oid;
        private final String label;

        Purpose(String oid, String label) {
            this.oid = oid;
            this.label = label;
        }

        public String oid() {
            return oid;
        }

        public String label() {
            return label;
        }
    }

    public CertificateSpec {
        dnsNames = List.copyOf(dnsNames);
        ipAddresses = List.copyOf(ipAddresses);
        purposes = List.copyOf(purposes);
        if (days < 1) {
            throw new IllegalArgumentException("a certificate must be valid for at least one day, not " + days);
        }
    }
}
