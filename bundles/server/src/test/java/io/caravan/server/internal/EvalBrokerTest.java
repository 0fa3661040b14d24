package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.caravan.api.model.Evaluation;
import org.junit.jupiter.api.Test;

class EvalBrokerTest {
    private static final Set<String> ALL = Set.of("service", "batch");
    private static final Duration NOW = Duration.ZERO;

    private final MutableClock clock = new MutableClock();
    private final List<Evaluation> failed = new ArrayList<>();
    private final List<Evaluation> canceled = new ArrayList<>();
    private final EvalBroker broker = new EvalBroker(clock, 2, Duration.ofSeconds(60), Duration.ofSeconds(1),
            failed::add, canceled::addAll);

    static Evaluation eval(String id, String job, int priority, long createIndex) throws Exception {
        return Evaluation.forJob(id, FsmTest.job(job, priority), Evaluation.TRIGGER_JOB_REGISTER, 0).toBuilder()
                .createIndex(createIndex).modifyIndex(createIndex).build();
    }

    private String next() throws InterruptedException {
        return broker.dequeue(ALL, NOW).map(l -> l.eval().id()).orElse(null);
    }

    @Test
    void higherPriorityFirstThenOldest() throws Exception {
        broker.enqueue(eval("low", "a", 30, 1));
        broker.enqueue(eval("high-new", "b", 70, 3));
        broker.enqueue(eval("high-old", "c", 70, 2));
        assertEquals("high-old", next());
        assertEquals("high-new", next());
        assertEquals("low", next());
        assertEquals(null, next());
    }

    @Test
    void oneEvaluationPerJobAtATimeAndOnlyTheNewestWaitingRuns() throws Exception {
        broker.enqueue(eval("first", "web", 50, 1));
        broker.enqueue(eval("second", "web", 50, 2));
        broker.enqueue(eval("third", "web", 50, 3));
        EvalBroker.Lease lease = broker.dequeue(ALL, NOW).orElseThrow();
        assertEquals("first", lease.eval().id());
        assertEquals(null, next(), "the job's other evaluations wait while one is out");
        assertTrue(broker.ack("first", lease.token()));
        assertEquals("third", next());
        assertEquals(List.of("second"), canceled.stream().map(Evaluation::id).toList());
    }

    @Test
    void statsCountReadyUnackedPendingAndWaitingEvaluations() throws Exception {
        broker.enqueue(eval("out", "web", 50, 1));
        broker.enqueue(eval("behind", "web", 50, 2));
        broker.enqueue(eval("ready", "api", 50, 3));
        broker.enqueue(eval("later", "db", 50, 4).toBuilder().waitUntil(clock.instant().plusSeconds(60)).build());
        assertEquals("out", broker.dequeue(Set.of("service"), NOW).orElseThrow().eval().id());
        EvalBroker.Stats stats = broker.stats();
        assertEquals(1, stats.ready());
        assertEquals(1, stats.unacked());
        assertEquals(1, stats.pending(), "waits for its job's evaluation out");
        assertEquals(1, stats.waiting(), "waits for its WaitUntil");
        assertEquals(java.util.Map.of("service", 1), stats.readyByType());
        assertEquals(java.util.Map.of("service", 1), stats.unackedByType());
    }

    @Test
    void nackRequeuesAfterTheDelayAndFailsPastTheDeliveryLimit() throws Exception {
        broker.enqueue(eval("e", "web", 50, 1));
        EvalBroker.Lease first = broker.dequeue(ALL, NOW).orElseThrow();
        assertFalse(broker.nack("e", "wrong token"));
        assertTrue(broker.nack("e", first.token()));
        assertEquals(null, next(), "not before the nack delay");
        clock.advance(Duration.ofSeconds(2));
        EvalBroker.Lease second = broker.dequeue(ALL, NOW).orElseThrow();
        assertTrue(broker.nack("e", second.token()));
        assertEquals(List.of("e"), failed.stream().map(Evaluation::id).toList());
        assertEquals(0, broker.size());
    }

    @Test
    void leaseExpiresAfterTheNackTimeout() throws Exception {
        broker.enqueue(eval("e", "web", 50, 1));
        EvalBroker.Lease lease = broker.dequeue(ALL, NOW).orElseThrow();
        clock.advance(Duration.ofSeconds(61));
        assertEquals(null, next(), "expired lease is nacked, then waits out the delay");
        clock.advance(Duration.ofSeconds(2));
        assertEquals("e", next());
        assertFalse(broker.ack("e", lease.token()), "the old lease is gone");
    }

    @Test
    void delayedEvaluationWaitsForItsTime() throws Exception {
        broker.enqueue(eval("later", "web", 50, 1).toBuilder().waitUntil(clock.instant().plusSeconds(30)).build());
        assertEquals(null, next());
        clock.advance(Duration.ofSeconds(31));
        assertEquals("later", next());
    }

    @Test
    void typesSelectTheQueue() throws Exception {
        broker.enqueue(eval("svc", "a", 50, 1));
        Optional<EvalBroker.Lease> batch = broker.dequeue(Set.of("batch"), NOW);
        assertTrue(batch.isEmpty());
        assertEquals("svc", broker.dequeue(Set.of("service"), NOW).orElseThrow().eval().id());
    }

    @Test
    void dequeueWakesWhenAnEvaluationArrives() throws Exception {
        Thread producer = new Thread(() -> {
            try {
                Thread.sleep(50);
                broker.enqueue(eval("e", "web", 50, 1));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        producer.start();
        assertEquals("e", broker.dequeue(ALL, Duration.ofSeconds(5)).orElseThrow().eval().id());
        producer.join();
    }

    static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
