package io.caravan.rpc.internal;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;

/** CBOR in the servers' internal shape (secrets included, nulls left out), for envelopes and the records they carry. */
final class RpcCodec {
    private static final ObjectMapper CBOR = NomadJson.internalMapper(CBORMapper.builder());

    private RpcCodec() {
    }

    static byte[] encode(Object value) {
        try {
            return CBOR.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + value.getClass().getSimpleName(), e);
        }
    }

    /** @throws CaravanException BAD_REQUEST when the bytes are not a {@code type} */
    static <T> T decode(byte[] bytes, Class<T> type) {
        try {
            return CBOR.readValue(bytes, type);
        } catch (IOException e) {
            throw CaravanException.badRequest("malformed " + type.getSimpleName() + ": " + (e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()));
        }
    }
}
