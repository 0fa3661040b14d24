/**
 * TLS for every Caravan listener and dialler, with Nomad's {@code tls {}} semantics, and Nomad's certificate tooling.
 *
 * <ul>
 *   <li>{@link io.caravan.tls.TlsSettings}: the agent's {@code tls} block as the components receive it in their
 *       Config Admin properties ({@code tls.*} keys).</li>
 *   <li>{@link io.caravan.tls.TlsMaterial}: the CA, certificate chain and key read from PEM files and checked (key
 *       matches certificate, certificate current); a bad file is a {@link io.caravan.tls.TlsException} naming it.</li>
 *   <li>{@link io.caravan.tls.ReloadableTls}: one {@code SSLContext} whose key and trust managers read the material
 *       in force at each handshake, so a reload swaps certificates for new connections without touching open
 *       ones.</li>
 *   <li>{@link io.caravan.tls.Pem}: reading and writing PEM certificates and keys (SEC1, PKCS#1 and PKCS#8).</li>
 *   <li>{@link io.caravan.tls.CertificateAuthority}, {@link io.caravan.tls.AgentRole}, {@link io.caravan.tls.Credential},
 *       {@link io.caravan.tls.CertificateInfo}: Nomad's {@code tls ca create}, {@code tls cert create} and
 *       {@code tls cert info}, for the CLI.</li>
 * </ul>
 */
@Version("1.0.0")
package io.caravan.tls;

import org.osgi.annotation.versioning.Version;
