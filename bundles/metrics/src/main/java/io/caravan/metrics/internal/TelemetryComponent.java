package io.caravan.metrics.internal;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.GoDuration;
import io.caravan.api.timer.SharedTimer;
import io.caravan.metrics.MetricSource;
import io.caravan.metrics.Telemetry;
import io.caravan.metrics.TelemetryOptions;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's telemetry ({@code telemetry {}}, PID {@code io.caravan.telemetry}): one scheduled task samples every
 * {@link MetricSource} service and the JVM's runtime gauges each {@code collection_interval}, and {@code /v1/metrics}
 * writes what the last pass reported ({@link Readings}). A configuration change restarts it (Nomad needs an agent
 * restart for this block).
 */
@Component(service = Telemetry.class, immediate = true, configurationPid = TelemetryComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TelemetryComponent.Config.class)
public final class TelemetryComponent implements Telemetry {
    static final String PID = "io.caravan.telemetry";
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryComponent.class);

    @ObjectClassDefinition(name = "Caravan telemetry", description = "Nomad's telemetry block")
    public @interface Config {
        @AttributeDefinition(description = "How often sources are sampled (Go duration)")
        String collection_interval() default "1s";

        @AttributeDefinition(description = "No host label")
        boolean disable_hostname() default false;

        @AttributeDefinition(description = "+prefix publishes, -prefix drops; the longest matching rule decides")
        String[] prefix_filter() default {};

        @AttributeDefinition(description = "Whether a metric no prefix rule covers is published")
        boolean filter_default() default true;

        @AttributeDefinition(description = "Serve /v1/metrics?format=prometheus")
        boolean prometheus_metrics() default false;

        boolean publish_allocation_metrics() default false;

        boolean publish_node_metrics() default false;

        @AttributeDefinition(description = "Omit the identity label of RPC and API call counters")
        boolean disable_rpc_rate_metrics_labels() default false;
    }

    private final List<MetricSource> sources = new CopyOnWriteArrayList<>();
    private final MetricSource runtime = new RuntimeMetrics();
    private final Readings readings;
    private final TelemetryOptions options;
    private final boolean prometheus;
    private final ScheduledExecutorService sampler;

    /** Samples on the agent's shared timer: a pass reads counters and gauges, it never waits. */
    @Activate
    public TelemetryComponent(Config config, @Reference SharedTimer shared) {
        this(config, shared.timer("caravan-telemetry"));
    }

    /** With a sampler thread of its own (tests). */
    TelemetryComponent(Config config) {
        this(config, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "caravan-telemetry");
            t.setDaemon(true);
            return t;
        }));
    }

    TelemetryComponent(Config config, ScheduledExecutorService sampler) {
        Duration interval = GoDuration.parse(config.collection_interval());
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("telemetry.collection_interval must be positive: "
                    + config.collection_interval());
        }
        this.readings = new Readings(new PrefixFilter(List.of(config.prefix_filter()), config.filter_default()),
                config.disable_hostname() ? null : hostname());
        this.options = new TelemetryOptions(config.publish_allocation_metrics(), config.publish_node_metrics(),
                !config.disable_rpc_rate_metrics_labels());
        this.prometheus = config.prometheus_metrics();
        this.sampler = sampler;
        sampler.scheduleAtFixedRate(this::sample, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addSource(MetricSource source) {
        sources.add(source);
    }

    void removeSource(MetricSource source) {
        sources.remove(source);
    }

    @Deactivate
    void deactivate() {
        sampler.shutdownNow();
    }

    /** One pass over every source; one that fails loses its series for this pass only. */
    void sample() {
        Pass pass = new Pass(options, readings.size());
        List<MetricSource> all = new ArrayList<>(sources);
        all.add(runtime);
        for (MetricSource s : all) {
            try {
                s.sample(pass);
            } catch (RuntimeException e) {
                LOG.debug("Metric source {} failed", s.getClass().getName(), e);
            }
        }
        readings.apply(pass);
    }

    @Override
    public Summary summary() {
        // go-metrics' timestamp: "2026-11-29 05:00:00 +0000 UTC"
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString().replace("T", " ")
                .replace("Z", " +0000 UTC");
        return Readings.summary(readings.rows(), now);
    }

    @Override
    public Optional<String> prometheus() {
        return prometheus ? Optional.of(PrometheusText.write(readings.rows())) : Optional.empty();
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "localhost" : env;
        }
    }
}
