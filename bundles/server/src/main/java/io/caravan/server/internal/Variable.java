package io.caravan.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Nomad's variable ({@code VariableDecrypted}) as the API reads and writes it: items are plain text here and in the
 * state store and its snapshots until the keyring (issue 17) encrypts them at rest. Times are Unix nanoseconds.
 */
record Variable(String namespace, String path, Map<String, String> items,
                @JsonInclude(JsonInclude.Include.NON_NULL) Lock lock, long createIndex, long createTime,
                long modifyIndex, long modifyTime) {

    /** Nomad's limit on a variable's keys and values together, in bytes. */
    static final int MAX_SIZE = 65536;

    Variable {
        items = items == null ? Map.of() : new TreeMap<>(items);
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

    Variable withItems(Map<String, String> changed) {
        return new Variable(namespace, path, changed, lock, createIndex, createTime, modifyIndex, modifyTime);
    }

    Variable withLock(Lock changed) {
        return new Variable(namespace, path, items, changed, createIndex, createTime, modifyIndex, modifyTime);
    }

    Variable withIndexes(long createIdx, long createNanos, long modifyIdx, long modifyNanos) {
        return new Variable(namespace, path, items, lock, createIdx, createNanos, modifyIdx, modifyNanos);
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
