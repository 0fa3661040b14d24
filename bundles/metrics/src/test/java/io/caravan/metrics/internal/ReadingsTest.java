package io.caravan.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.caravan.metrics.Telemetry;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;
import io.caravan.metrics.testing.Promtool;
import org.junit.jupiter.api.Test;

class ReadingsTest {

    private static Pass pass() {
        Pass p = new Pass(TelemetryOptions.DEFAULTS);
        p.gauge("nomad.nomad.broker.total_ready", Map.of(), 2);
        p.gauge("nomad.nomad.job_summary.running", Map.of("job", "web", "namespace", "default",
                "task_group", "fe"), 3);
        p.counter("nomad.nomad.rpc.request", Map.of("method", "Job.List", "identity", "anonymous"), 4);
        p.counter("nomad.nomad.rpc.request", Map.of("method", "Job.List", "identity", "anonymous"), 1);
        Timing t = new Timing();
        t.recordMillis(2);
        t.recordMillis(4);
        p.timer("nomad.raft.leader.lastContact", Map.of(), t.snapshot());
        return p;
    }

    @Test
    void jsonSummaryHasNomadsShape() {
        Readings book = new Readings(new PrefixFilter(List.of(), true), "h1");
        book.apply(pass());
        Telemetry.Summary s = Readings.summary(book.rows(), "2026-11-29 05:00:00 +0000 UTC");

        assertEquals(List.of(
                new Telemetry.Gauge("nomad.nomad.broker.total_ready", 2, Map.of("host", "h1")),
                new Telemetry.Gauge("nomad.nomad.job_summary.running", 3, Map.of("host", "h1", "job", "web",
                        "namespace", "default", "task_group", "fe"))), s.gauges());
        assertEquals(List.of(new Telemetry.Sampled("nomad.nomad.rpc.request", 5, 5, 1, 1, 1, 0,
                Map.of("host", "h1", "method", "Job.List", "identity", "anonymous"))), s.counters(),
                "the same series twice in a pass adds up");
        Telemetry.Sampled sample = s.samples().get(0);
        assertEquals("nomad.raft.leader.lastContact", sample.name());
        assertEquals(2, sample.count());
        assertEquals(6, sample.sum(), 1e-9);
        assertEquals(2, sample.min(), 1e-9);
        assertEquals(4, sample.max(), 1e-9);
        assertEquals(3, sample.mean(), 1e-9);
        assertEquals(Math.sqrt(2), sample.stddev(), 1e-9);
        assertEquals(List.of(), s.points());
    }

    @Test
    void seriesNoLongerReportedDisappear() {
        Readings book = new Readings(new PrefixFilter(List.of(), true), null);
        book.apply(pass());
        Pass next = new Pass(TelemetryOptions.DEFAULTS);
        next.gauge("nomad.nomad.broker.total_ready", Map.of(), 7);
        book.apply(next);
        assertEquals(List.of(new Readings.Row(Series.Kind.GAUGE, "nomad.nomad.broker.total_ready", Map.of(),
                Pass.Reading.of(7))), book.rows(), "and without disable_hostname's host label");
    }

    @Test
    void thePrefixFilterDropsMetrics() {
        Readings book = new Readings(new PrefixFilter(List.of("-nomad.nomad", "+nomad.nomad.rpc"), true), null);
        book.apply(pass());
        assertEquals(List.of("nomad.nomad.rpc.request", "nomad.raft.leader.lastContact"),
                book.rows().stream().map(Readings.Row::name).toList());
    }

    @Test
    void prometheusTextUsesNomadsNamesAndPassesPromtool() throws Exception {
        Readings book = new Readings(new PrefixFilter(List.of(), true), "h\"1");
        book.apply(pass());
        String text = PrometheusText.write(book.rows());
        assertEquals("""
                # HELP nomad_nomad_broker_total_ready nomad.nomad.broker.total_ready
                # TYPE nomad_nomad_broker_total_ready gauge
                nomad_nomad_broker_total_ready{host="h\\"1"} 2
                # HELP nomad_nomad_job_summary_running nomad.nomad.job_summary.running
                # TYPE nomad_nomad_job_summary_running gauge
                nomad_nomad_job_summary_running{host="h\\"1",job="web",namespace="default",task_group="fe"} 3
                # HELP nomad_nomad_rpc_request nomad.nomad.rpc.request
                # TYPE nomad_nomad_rpc_request counter
                nomad_nomad_rpc_request{host="h\\"1",identity="anonymous",method="Job.List"} 5
                # HELP nomad_raft_leader_lastContact nomad.raft.leader.lastContact
                # TYPE nomad_raft_leader_lastContact summary
                nomad_raft_leader_lastContact_sum{host="h\\"1"} 6
                nomad_raft_leader_lastContact_count{host="h\\"1"} 2
                """, text);
        Promtool.check(text);
    }

    @Test
    void oddNamesAndValuesStayValid() throws Exception {
        Pass p = new Pass(TelemetryOptions.DEFAULTS);
        p.gauge("nomad.client.host.disk.used-percent", Map.of("disk", "/dev/sda1", "9lives", "a\nb\\c"), 0.25);
        p.gauge("nomad.client.host.memory.total", Map.of(), Double.NaN);
        Readings book = new Readings(new PrefixFilter(List.of(), true), null);
        book.apply(p);
        String text = PrometheusText.write(book.rows());
        assertTrue(text.contains("nomad_client_host_disk_used_percent{_lives=\"a\\nb\\\\c\",disk=\"/dev/sda1\"} 0.25"),
                text);
        assertTrue(text.contains("nomad_client_host_memory_total NaN"), text);
        Promtool.check(text);
    }

    @Test
    void aPassIsSpentOnceApplied() {
        Readings book = new Readings(new PrefixFilter(List.of(), true), null);
        Pass p = pass();
        book.apply(p);
        assertThrows(IllegalStateException.class, () -> p.gauge("nomad.late", Map.of(), 1),
                "its map is what /v1/metrics reads now");
        assertEquals(4, book.rows().size());
    }

    @Test
    void aSeriesWithTheAgentsOwnHostLabelIsOneSeries() throws Exception {
        Readings book = new Readings(new PrefixFilter(List.of(), true), "h1");
        Pass p = new Pass(TelemetryOptions.DEFAULTS);
        p.gauge("nomad.client.allocated.cpu", Map.of(), 2);
        p.gauge("nomad.client.allocated.cpu", Map.of("host", "h1"), 3);
        p.gauge("nomad.client.allocated.cpu", Map.of("host", "h2"), 4);
        book.apply(p);
        String text = PrometheusText.write(book.rows());
        assertEquals("""
                # HELP nomad_client_allocated_cpu nomad.client.allocated.cpu
                # TYPE nomad_client_allocated_cpu gauge
                nomad_client_allocated_cpu{host="h1"} 5
                nomad_client_allocated_cpu{host="h2"} 4
                """, text, "the series' own host label wins over the agent's; the same labels add up");
        Promtool.check(text);
    }
}
