package io.caravan.http;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.Identity;

/**
 * Who may use the OSGi web console while ACLs are enabled: a caller presenting a management token, as the password
 * of HTTP Basic authentication (any user name: browsers ask for both) or as {@code X-Nomad-Token} /
 * {@code Authorization: Bearer}. The HTTP bundle's guard checks it before the console is reached, whatever spelling of
 * its path; the console's own security provider checks it again.
 */
public final class ConsoleAccess {
    /** The realm browsers show when they ask for the token. */
    public static final String REALM = "Caravan web console: any user, a management token's secret as password";

    /** The outcome of a check, with the HTTP status and plain-text message a refusal answers. */
    public enum Verdict {
        ALLOWED(200, ""),
        NO_TOKEN(401, "ACL token required: a management token's secret as the password, or X-Nomad-Token"),
        DENIED(403, "Permission denied"),
        UNAVAILABLE(503, "ACL resolution is not available yet");

        private final int status;
        private final String message;

        Verdict(int status, String message) {
            this.status = status;
            this.message = message;
        }

        public int status() {
            return status;
        }

        public String message() {
            return message;
        }
    }

    private ConsoleAccess() {
    }

    /**
     * The token a request presents: {@code X-Nomad-Token}, else {@code Authorization: Bearer}, else the password of
     * {@code Authorization: Basic}. Empty when none (or a malformed Basic header).
     */
    public static Optional<String> token(String nomadToken, String authorization) {
        if (nomadToken != null && !nomadToken.isBlank()) {
            return Optional.of(nomadToken.trim());
        }
        if (authorization == null) {
            return Optional.empty();
        }
        String lower = authorization.toLowerCase(Locale.ROOT);
        if (lower.startsWith("bearer ")) {
            return Optional.of(authorization.substring(7).trim()).filter(t -> !t.isEmpty());
        }
        if (lower.startsWith("basic ")) {
            try {
                String pair = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                        StandardCharsets.UTF_8);
                int colon = pair.indexOf(':');
                return colon < 0 ? Optional.empty() : Optional.of(pair.substring(colon + 1)).filter(t -> !t.isEmpty());
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Whether {@code token} is a management token, as {@code resolver} (null: none registered yet) says. */
    public static Verdict check(AclResolver resolver, Optional<String> token) {
        if (token.isEmpty()) {
            return Verdict.NO_TOKEN;
        }
        if (resolver == null) {
            return Verdict.UNAVAILABLE;
        }
        try {
            Identity caller = resolver.resolve(token.get());
            return caller.kind() == Identity.Kind.TOKEN && caller.acl().isManagement() ? Verdict.ALLOWED
                    : Verdict.DENIED;
        } catch (CaravanException e) {
            return Verdict.DENIED; // not found, expired or malformed: the same answer, nothing learnt
        }
    }
}
