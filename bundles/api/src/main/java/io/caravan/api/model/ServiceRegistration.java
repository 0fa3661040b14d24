package io.caravan.api.model;

import java.util.List;

/**
 * Nomad's {@code ServiceRegistration}: one service instance of one allocation, registered by the client running it
 * ({@code provider = "nomad"}) and served by {@code /v1/service/:name}. The servers set the indexes.
 */
public record ServiceRegistration(
        String id,
        String serviceName,
        String namespace,
        String nodeId,
        String datacenter,
        String jobId,
        String allocId,
        List<String> tags,
        String address,
        int port,
        long createIndex,
        long modifyIndex) {

    /** Nomad's prefix of the IDs its clients give alloc services. */
    public static final String ID_PREFIX = "_nomad-task-";

    public ServiceRegistration {
        tags = Copy.list(tags);
    }

    public ServiceRegistration withIndexes(long create, long modify) {
        return new ServiceRegistration(id, serviceName, namespace, nodeId, datacenter, jobId, allocId, tags, address,
                port, create, modify);
    }

    /** Nomad's alloc service ID: {@code _nomad-task-<alloc>-<task|group>-<service>-<port label>}. */
    public static String allocServiceId(String allocId, String taskOrGroup, String serviceName, String portLabel) {
        return ID_PREFIX + allocId + "-" + taskOrGroup + "-" + serviceName + "-" + (portLabel == null ? "" : portLabel);
    }
}
