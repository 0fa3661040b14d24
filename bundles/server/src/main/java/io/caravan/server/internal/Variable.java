package io.caravan.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Nomad's variable in both of its shapes. As the API reads and writes it ({@code VariableDecrypted}): {@code items}
 * in clear and no {@code data}. As the Raft log, the state store and its snapshots hold it ({@code VariableEncrypted}):
 * no items, and {@code data} the items encrypted with a root key's data key ({@link Variables} seals and opens).
 * Times are Unix nanoseconds.
 */
record Variable(String namespace, String path, Map<String, String> items,
                @JsonInclude(JsonInclude.Include.NON_NULL) Lock lock, long createIndex, long createTime,
                long modifyIndex, long modifyTime, @JsonInclude(JsonInclude.Include.NON_NULL) Sealed data) {

    /** Nomad's limit on a variable's keys and values together, in bytes. */
    static final int MAX_SIZE = 65536;

    Variable {
        items = items == null ? Map.of() : new TreeMap<>(items);
    }

    /** A variable in clear (or metadata only). */
    Variable(String namespace, String path, Map<String, String> items, Lock lock, long createIndex, long createTime,
             long modifyIndex, long modifyTime) {
        this(namespace, path, items, lock, createIndex, createTime, modifyIndex, modifyTime, null);
    }

    /** Nomad's {@code VariableData}: the items as AES-256-GCM ciphertext (Base64) under root key {@code keyId}. */
    record Sealed(String keyId, String nonce, String ciphertext) {}

    /** Whether the write carries items, in clear or sealed. */
    boolean hasContent() {
        return data != null || !items.isEmpty();
    }

    /** This variable with {@code other}'s content (items or sealed data) and everything else its own. */
    Variable withContentOf(Variable other) {
        return new Variable(namespace, path, other.items, lock, createIndex, createTime, modifyIndex, modifyTime,
                other.data);
    }

    /** The sealed form: no items. */
    Variable withData(Sealed sealed) {
        return new Variable(namespace, path, Map.of(), lock, createIndex, createTime, modifyIndex, modifyTime, sealed);
    }

    /** Nomad's {@code VariableLock}: the holder's ID (absent where it is not shown) and Go durations ({@code "15s"}). */
    record Lock(@JsonInclude(JsonInclude.Include.NON_NULL) String id, String ttl, String lockDelay) {}

    /** Nomad's {@code VariableMetadata}: what {@code /v1/vars} lists, never the items. */
    record Metadata(String namespace, String path, @JsonInclude(JsonInclude.Include.NON_NULL) Lock lock,
                    long createIndex, long createTime, long modifyIndex, long modifyTime) {}

    Metadata metadata() {
        return new Metadata(namespace, path, lock, createIndex, createTime, modifyIndex, modifyTime);
    }

    /** Bytes of every key and value, as Nomad counts a variable's size. */
    long size() {
        long size = 0;
        for (Map.Entry<String, String> e : items.entrySet()) {
            size += e.getKey().getBytes(StandardCharsets.UTF_8).length
                    + (e.getValue() == null ? 0 : e.getValue().getBytes(StandardCharsets.UTF_8).length);
        }
        return size;
    }

    /** The clear form: these items, no sealed data. */
    Variable withItems(Map<String, String> changed) {
        return new Variable(namespace, path, changed, lock, createIndex, createTime, modifyIndex, modifyTime, null);
    }

    Variable withLock(Lock changed) {
        return new Variable(namespace, path, items, changed, createIndex, createTime, modifyIndex, modifyTime, data);
    }

    Variable withIndexes(long createIdx, long createNanos, long modifyIdx, long modifyNanos) {
        return new Variable(namespace, path, items, lock, createIdx, createNanos, modifyIdx, modifyNanos, data);
    }

    /**
     * A variable as stored: the variable and, while it carries a lock, when that lock's TTL runs out (leader time,
     * Unix nanoseconds). An expired lock is released lazily: every apply and read treats it as gone, and a new
     * holder may take it once its lock delay has passed too.
     */
    record Entry(Variable variable, long lockExpires) {
        String key() {
            return NomadTables.key(variable.namespace(), variable.path());
        }

        /** Whether a lock is held at {@code now} (Unix nanoseconds). */
        boolean locked(long now) {
            return variable.lock() != null && now < lockExpires;
        }

        /** The variable as the lock's holder sees it at {@code now}: without a lock whose TTL ran out. */
        Variable at(long now) {
            return variable.lock() != null && !locked(now) ? variable.withLock(null) : variable;
        }

        /**
         * The variable as anyone else sees it: a held lock without its ID, which is the holder's proof (whoever
         * knew it could write, renew or release in the holder's place).
         */
        Variable shown(long now) {
            Variable v = at(now);
            return v.lock() == null ? v : v.withLock(new Lock(null, v.lock().ttl(), v.lock().lockDelay()));
        }
    }
}
