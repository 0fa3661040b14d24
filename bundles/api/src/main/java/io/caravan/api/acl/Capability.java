package io.caravan.api.acl;

import java.util.List;

/** Nomad's namespace capabilities, as policies name them. */
public final class Capability {
    public static final String DENY = "deny";
    public static final String LIST_JOBS = "list-jobs";
    public static final String PARSE_JOB = "parse-job";
    public static final String READ_JOB = "read-job";
    public static final String SUBMIT_JOB = "submit-job";
    public static final String DISPATCH_JOB = "dispatch-job";
    public static final String READ_LOGS = "read-logs";
    public static final String READ_FS = "read-fs";
    public static final String ALLOC_EXEC = "alloc-exec";
    public static final String ALLOC_NODE_EXEC = "alloc-node-exec";
    public static final String ALLOC_LIFECYCLE = "alloc-lifecycle";
    public static final String CSI_REGISTER_PLUGIN = "csi-register-plugin";
    public static final String CSI_WRITE_VOLUME = "csi-write-volume";
    public static final String CSI_READ_VOLUME = "csi-read-volume";
    public static final String CSI_LIST_VOLUME = "csi-list-volume";
    public static final String CSI_MOUNT_VOLUME = "csi-mount-volume";
    public static final String HOST_VOLUME_CREATE = "host-volume-create";
    public static final String HOST_VOLUME_REGISTER = "host-volume-register";
    public static final String HOST_VOLUME_READ = "host-volume-read";
    public static final String HOST_VOLUME_WRITE = "host-volume-write";
    public static final String HOST_VOLUME_DELETE = "host-volume-delete";
    public static final String LIST_SCALING_POLICIES = "list-scaling-policies";
    public static final String READ_SCALING_POLICY = "read-scaling-policy";
    public static final String READ_JOB_SCALING = "read-job-scaling";
    public static final String SCALE_JOB = "scale-job";
    public static final String SUBMIT_RECOMMENDATION = "submit-recommendation";
    public static final String SENTINEL_OVERRIDE = "sentinel-override";

    /** Every capability a {@code namespace} block's {@code capabilities} list may name. */
    public static final List<String> ALL = List.of(DENY, LIST_JOBS, PARSE_JOB, READ_JOB, SUBMIT_JOB, DISPATCH_JOB,
            READ_LOGS, READ_FS, ALLOC_EXEC, ALLOC_NODE_EXEC, ALLOC_LIFECYCLE, CSI_REGISTER_PLUGIN, CSI_WRITE_VOLUME,
            CSI_READ_VOLUME, CSI_LIST_VOLUME, CSI_MOUNT_VOLUME, HOST_VOLUME_CREATE, HOST_VOLUME_REGISTER,
            HOST_VOLUME_READ, HOST_VOLUME_WRITE, HOST_VOLUME_DELETE, LIST_SCALING_POLICIES, READ_SCALING_POLICY,
            READ_JOB_SCALING, SCALE_JOB, SUBMIT_RECOMMENDATION, SENTINEL_OVERRIDE);

    private Capability() {
    }
}
