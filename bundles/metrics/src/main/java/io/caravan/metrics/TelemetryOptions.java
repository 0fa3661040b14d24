package io.caravan.metrics;

/**
 * The parts of {@code telemetry {}} that decide what sources report.
 *
 * @param publishAllocationMetrics Nomad's {@code publish_allocation_metrics}: per-allocation series on clients
 * @param publishNodeMetrics Nomad's {@code publish_node_metrics}: the client node's host and allocation gauges
 * @param rpcIdentityLabels whether RPC and API call counters carry the caller's {@code identity} label (off with
 *     {@code disable_rpc_rate_metrics_labels}, for fewer series)
 */
public record TelemetryOptions(boolean publishAllocationMetrics, boolean publishNodeMetrics,
                               boolean rpcIdentityLabels) {
    /** Nomad's defaults. */
    public static final TelemetryOptions DEFAULTS = new TelemetryOptions(false, false, true);
}
