package io.caravan.scheduler.internal.placement;

/** When a check runs and what its verdict may be cached against. */
public enum CheckScope {
    /** Decides whether a node is a candidate at all (ready, datacenter, pool); not counted in metrics, as in Nomad. */
    CANDIDATE,
    /** Depends on the job and the node's class: cached per computed class. */
    JOB,
    /** Depends on the task group and the node's class: cached per (group, computed class). */
    TASK_GROUP,
    /** Depends on the node itself or on other placements: run for every node, every time. */
    TRANSIENT
}
