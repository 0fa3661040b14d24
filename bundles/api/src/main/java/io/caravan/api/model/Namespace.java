package io.caravan.api.model;

import java.util.Map;

/** A namespace. {@code Capabilities} and the node-pool, Vault and Consul configurations are kept raw. */
public record Namespace(
        String name,
        String description,
        String quota,
        Map<String, Object> capabilities,
        Map<String, Object> nodePoolConfiguration,
        Map<String, Object> vaultConfiguration,
        Map<String, Object> consulConfiguration,
        Map<String, String> meta,
        long createIndex,
        long modifyIndex) {

    public static final String DEFAULT = "default";

    public Namespace {
        capabilities = Copy.rawOrNull(capabilities);
        nodePoolConfiguration = Copy.rawOrNull(nodePoolConfiguration);
        vaultConfiguration = Copy.rawOrNull(vaultConfiguration);
        consulConfiguration = Copy.rawOrNull(consulConfiguration);
        meta = Copy.map(meta);
    }
}
