package io.caravan.api.acl;

import java.util.Objects;

/**
 * Who made a call, resolved once where it entered the cluster: an ACL token (by its accessor ID, never its secret),
 * a client node, a server, or nobody. {@code acl} is what it may do; with ACLs off every identity holds
 * {@link Acl#MANAGEMENT}.
 *
 * @param id the token's accessor ID, the node's ID or the server's name; empty when anonymous
 */
public record Identity(Kind kind, String id, String name, Acl acl) {

    public enum Kind { ANONYMOUS, TOKEN, NODE, SERVER }

    public Identity {
        Objects.requireNonNull(kind, "kind");
        id = id == null ? "" : id;
        name = name == null ? "" : name;
        Objects.requireNonNull(acl, "acl");
    }

    /** A call without a token, holding the {@code anonymous} policy's ACL (everything when ACLs are off). */
    public static Identity anonymous(Acl acl) {
        return new Identity(Kind.ANONYMOUS, "", "anonymous", acl);
    }

    /** What a call has when ACLs are off and no token came with it. */
    public static final Identity UNRESTRICTED = anonymous(Acl.MANAGEMENT);

    /**
     * The metrics label (seed 001: {@code nomad.rpc.request} by identity): a token's accessor, a node's ID, a server's
     * name, or {@code anonymous}. Never a secret.
     */
    public String label() {
        return switch (kind) {
            case ANONYMOUS -> "anonymous";
            case TOKEN -> "token:" + id;
            case NODE -> "node:" + id;
            case SERVER -> "server:" + (name.isEmpty() ? id : name);
        };
    }
}
