package io.caravan.http;

import java.util.List;
import java.util.Optional;

import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import org.osgi.annotation.versioning.ProviderType;

/** One API call as a route sees it: already authenticated-to-be (the token), routed, and its query parsed. */
@ProviderType
public interface ApiRequest {
    String method();

    String path();

    /** A {@code {name}} segment of the matched pattern. */
    String pathParam(String name);

    Optional<String> query(String name);

    List<String> queryAll(String name);

    Optional<String> header(String name);

    /** {@code X-Nomad-Token}, else the {@code Authorization: Bearer} token; empty means anonymous. */
    Optional<String> token();

    /**
     * Who is calling, resolved by the dispatcher before the route's handler runs; a list over several namespaces
     * filters its rows with {@code identity().acl()}. Outside the dispatcher: nobody, allowed nothing.
     */
    default Identity identity() {
        return Identity.anonymous(Acl.NONE);
    }

    /**
     * True when the dispatcher did not authenticate this call: ACLs are on, its endpoint takes the token in its
     * WebSocket's first message ({@link ApiEndpoint#withTokenInHandshake()}), and it came with {@code ws_handshake=true}
     * and no token. {@link #identity()} is then anonymous and nothing was checked: the handler must
     * {@link #authenticate} the message's token and check the endpoint's rule before doing anything.
     */
    default boolean authenticationDeferred() {
        return false;
    }

    /**
     * The caller {@code token} names, resolved as the dispatcher resolves a header's (null or empty: anonymous; with
     * ACLs off: allowed everything).
     *
     * @throws io.caravan.api.CaravanException 403 for an unknown or expired token
     */
    default Identity authenticate(String token) {
        return Identity.anonymous(Acl.NONE);
    }

    /** Nomad's common query parameters, validated (a bad {@code index} or {@code wait} is already a 400). */
    QueryOptions options();

    /** The JSON body; a missing body or bad JSON is a 400. */
    <T> T body(Class<T> type);

    String remoteAddress();

    /** The query string as sent (without {@code ?}), empty when there is none. */
    default String rawQuery() {
        return "";
    }

    /** The body's bytes as sent (read once), empty when there is none. */
    default byte[] rawBody() {
        return new byte[0];
    }
}
