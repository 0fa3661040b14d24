package io.caravan.tls;

import java.math.BigInteger;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;

import io.caravan.tls.CertificateSpec.Purpose;

/**
 * What {@code tls cert info} and {@code tls ca info} show of a certificate.
 *
 * @param subject             the subject's distinguished name, most specific part first ({@code CN=...})
 * @param issuerCommonName    the issuer's common name
 * @param keyUsages           in RFC 5280 order, e.g. {@code digital signature}, {@code key encipherment}
 * @param extendedKeyUsages   e.g. {@code server auth}, {@code client auth}; unknown ones by OID
 * @param ca                  whether the basic constraints say CA:TRUE
 * @param permittedDnsDomains the DNS zones of the name constraints (empty: none)
 */
public record CertificateInfo(String subject, String issuerCommonName, BigInteger serialNumber, Instant notBefore,
                              Instant notAfter, List<String> dnsNames, List<String> ipAddresses,
                              List<String> keyUsages, List<String> extendedKeyUsages, boolean ca,
                              List<String> permittedDnsDomains) {
    private static final List<String> KEY_USAGES = List.of("digital signature", "content commitment",
            "key encipherment", "data encipherment", "key agreement", "certificate sign", "crl sign",
            "encipher only", "decipher only");
    private static final String NAME_CONSTRAINTS = "2.5.29.30";

    public static CertificateInfo of(X509Certificate c) {
        List<String> dns = new ArrayList<>();
        List<String> ips = new ArrayList<>();
        try {
            if (c.getSubjectAlternativeNames() != null) {
                for (List<?> entry : c.getSubjectAlternativeNames()) {
                    int type = (Integer) entry.get(0);
                    if (type == GeneralName.dNSName) {
                        dns.add(String.valueOf(entry.get(1)));
                    } else if (type == GeneralName.iPAddress) {
                        ips.add(String.valueOf(entry.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // An undecodable SAN extension shows as no names; the JDK would not have parsed the certificate otherwise.
        }
        List<String> usages = new ArrayList<>();
        boolean[] bits = c.getKeyUsage();
        for (int i = 0; bits != null && i < bits.length && i < KEY_USAGES.size(); i++) {
            if (bits[i]) {
                usages.add(KEY_USAGES.get(i));
            }
        }
        List<String> extended = new ArrayList<>();
        try {
            if (c.getExtendedKeyUsage() != null) {
                for (String oid : c.getExtendedKeyUsage()) {
                    extended.add(label(oid));
                }
            }
        } catch (CertificateParsingException e) {
            // As above.
        }
        X500Name issuer = X500Name.getInstance(c.getIssuerX500Principal().getEncoded());
        RDN[] cn = issuer.getRDNs(BCStyle.CN);
        return new CertificateInfo(
                mostSpecificFirst(X500Name.getInstance(c.getSubjectX500Principal().getEncoded())),
                cn.length == 0 ? "" : IETFUtils.valueToString(cn[0].getFirst().getValue()),
                c.getSerialNumber(), c.getNotBefore().toInstant(), c.getNotAfter().toInstant(),
                List.copyOf(dns), List.copyOf(ips), List.copyOf(usages), List.copyOf(extended),
                c.getBasicConstraints() >= 0, permitted(c));
    }

    /** As RFC 2253 and Go print a name: {@code CN=...,OU=...,C=US}. */
    private static String mostSpecificFirst(X500Name name) {
        List<RDN> rdns = new ArrayList<>(List.of(name.getRDNs()));
        Collections.reverse(rdns);
        return BCStyle.INSTANCE.toString(new X500Name(rdns.toArray(RDN[]::new)));
    }

    private static String label(String oid) {
        for (Purpose p : Purpose.values()) {
            if (p.oid().equals(oid)) {
                return p.label();
            }
        }
        return oid;
    }

    private static List<String> permitted(X509Certificate c) {
        byte[] value = c.getExtensionValue(NAME_CONSTRAINTS);
        if (value == null) {
            return List.of();
        }
        List<String> zones = new ArrayList<>();
        try {
            NameConstraints constraints = NameConstraints.getInstance(ASN1OctetString.getInstance(value).getOctets());
            GeneralSubtree[] subtrees = constraints.getPermittedSubtrees();
            for (int i = 0; subtrees != null && i < subtrees.length; i++) {
                GeneralName base = subtrees[i].getBase();
                if (base.getTagNo() == GeneralName.dNSName) {
                    zones.add(base.getName().toString());
                }
            }
        } catch (IllegalArgumentException e) {
            // A malformed extension: no zones to show (the JDK rejects such a CA when it verifies anyway).
        }
        return List.copyOf(zones);
    }
}
