package io.caravan.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SeriesTest {

    @Test
    void labelsInAnyOrderMakeOneSeries() {
        Map<String, String> abc = new LinkedHashMap<>();
        abc.put("task_group", "fe");
        abc.put("job", "web");
        abc.put("namespace", "default");
        Series a = Series.of(Series.Kind.GAUGE, "nomad.nomad.job_summary.running", abc);
        Series b = Series.of(Series.Kind.GAUGE, "nomad.nomad.job_summary.running",
                Map.of("namespace", "default", "job", "web", "task_group", "fe"));

        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(List.of("job", "namespace", "task_group"), List.copyOf(a.labels().keySet()));
    }

    @Test
    void kindNameAndEveryLabelTellSeriesApart() {
        Series s = Series.of(Series.Kind.GAUGE, "m", Map.of("job", "web"));

        assertNotEquals(s, Series.of(Series.Kind.COUNTER, "m", Map.of("job", "web")));
        assertNotEquals(s, Series.of(Series.Kind.GAUGE, "n", Map.of("job", "web")));
        assertNotEquals(s, Series.of(Series.Kind.GAUGE, "m", Map.of("job", "api")));
        assertNotEquals(s, Series.of(Series.Kind.GAUGE, "m", Map.of("job", "web", "namespace", "default")));
        assertNotEquals(s, Series.of(Series.Kind.GAUGE, "m", Map.of()));
    }

    @Test
    void aSeriesNoLongerReportedIsRemoved() {
        Readings book = new Readings(new PrefixFilter(List.of(), true), null);
        Pass first = new Pass(io.caravan.metrics.TelemetryOptions.DEFAULTS);
        first.gauge("g", Map.of("job", "a"), 1);
        first.gauge("g", Map.of("job", "b"), 2);
        book.apply(first);
        Pass second = new Pass(io.caravan.metrics.TelemetryOptions.DEFAULTS);
        second.gauge("g", Map.of("job", "b"), 3);
        book.apply(second);

        assertEquals(List.of(new Readings.Row(Series.Kind.GAUGE, "g", Map.of("job", "b"), Pass.Reading.of(3))),
                book.rows());
    }
}
