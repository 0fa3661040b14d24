package io.caravan.membership.internal;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;

import io.caravan.membership.Member;

/** The exchange body: CBOR of {@link Exchange}, sealed with the {@link GossipKey} when there is one. */
final class Wire {
    static final String PATH = "/v1/serf/exchange";
    static final String PLAIN_TYPE = "application/cbor";
    static final String SEALED_TYPE = "application/x-caravan-gossip-sealed";
    static final int MAX_BODY = 8 << 20;

    private static final CBORMapper MAPPER = CBORMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private Wire() {
    }

    /** One member on the wire; the status is lower-case ({@code alive}, {@code failed}, {@code left}). */
    public record WireMember(String name, String address, String status, Map<String, String> tags, long incarnation) {
        static WireMember of(Member m) {
            return new WireMember(m.name(), m.address(), m.status().wireName(), m.tags(), m.incarnation());
        }

        Member toMember() {
            return new Member(name, address, Member.Status.valueOf(status.toUpperCase(java.util.Locale.ROOT)), tags,
                    incarnation);
        }
    }

    /** The sender's whole member map. */
    public record Exchange(String from, List<WireMember> members) {
    }

    static byte[] encode(String from, List<Member> members) {
        try {
            return MAPPER.writeValueAsBytes(new Exchange(from, members.stream().map(WireMember::of).toList()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode gossip", e);
        }
    }

    static Exchange decode(byte[] body) throws IOException {
        Exchange e = MAPPER.readValue(body, Exchange.class);
        if (e == null || e.members() == null) {
            throw new IOException("empty gossip message");
        }
        for (WireMember m : e.members()) {
            if (m == null || m.name() == null || m.address() == null || m.status() == null) {
                throw new IOException("incomplete member in gossip message");
            }
            if (!m.status().equals("alive") && !m.status().equals("failed") && !m.status().equals("left")) {
                throw new IOException("unknown member status in gossip message: " + m.status());
            }
        }
        return e;
    }
}
