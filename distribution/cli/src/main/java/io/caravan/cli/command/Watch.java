package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Nomad;

/**
 * The pacing shared by the monitors ({@link EvalMonitor}, {@link DrainMonitor}): blocking reads on the last
 * {@code X-Nomad-Index}, Nomad's one-second polling when the agent answers at once without news, and one overall
 * bound, {@code CARAVAN_MONITOR_TIMEOUT} (a Go duration, default 10m), so a watch never hangs a script.
 */
final class Watch {
    static final String TIMEOUT_ENV = "CARAVAN_MONITOR_TIMEOUT";
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    /** How long the agent may hold one blocking read. */
    private static final Duration BLOCKING_WAIT = Duration.ofSeconds(5);
    /** Polling interval when the agent does not block (Nomad's {@code updateWait}). */
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

    private final Context ctx;
    private final Duration timeout;
    private final Instant deadline;

    Watch(Context ctx) {
        this.ctx = ctx;
        this.timeout = timeout(ctx);
        this.deadline = Instant.now().plus(timeout);
    }

    Duration timeout() {
        return timeout;
    }

    boolean expired() {
        return !Instant.now().isBefore(deadline);
    }

    /** {@code ?index=&wait=} for a read that should wait for news after {@code index}; none for the first read. */
    Map<String, String> blocking(long index) {
        Map<String, String> query = new LinkedHashMap<>();
        if (index > 0) {
            Duration left = Duration.between(Instant.now(), deadline);
            Duration wait = left.compareTo(BLOCKING_WAIT) < 0 ? left : BLOCKING_WAIT;
            query.put("index", Long.toString(index));
            query.put("wait", GoDuration.format(Duration.ofMillis(Math.max(1, wait.toMillis()))));
        }
        return query;
    }

    /** Bound of one blocking read: the wait plus the jitter the agent may add, plus slack. */
    Duration requestTimeout() {
        return BLOCKING_WAIT.plusSeconds(10);
    }

    /** After a read sent at {@code asked}: when it brought no news and came back at once, wait out the interval. */
    void pace(Instant asked, boolean news) {
        if (!news) {
            sleepUntil(asked.plus(POLL_INTERVAL));
        }
    }

    /** Sleeps for {@code duration}, but never past the deadline. */
    void sleep(Duration duration) {
        sleepUntil(Instant.now().plus(duration));
    }

    private void sleepUntil(Instant until) {
        Instant end = until.isBefore(deadline) ? until : deadline;
        long millis = Duration.between(Instant.now(), end).toMillis();
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code <now>: message}, the time in the user's zone as Nomad's formatTime. */
    String stamp(String message) {
        return Nomad.time(Instant.now(), ctx.zone()) + ": " + message;
    }

    private static Duration timeout(Context ctx) {
        String configured = ctx.env(TIMEOUT_ENV);
        if (configured == null) {
            return DEFAULT_TIMEOUT;
        }
        try {
            Duration d = GoDuration.parse(configured.trim());
            return d.isNegative() || d.isZero() ? DEFAULT_TIMEOUT : d;
        } catch (IllegalArgumentException e) {
            return DEFAULT_TIMEOUT;
        }
    }
}
