package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.caravan.api.model.Evaluation;

/**
 * The leader's queue of evaluations to schedule, as Nomad's eval broker: ready evaluations by scheduler type, highest
 * priority first, then oldest; at most one evaluation per job out at a time (later ones wait, and on ack only the
 * newest of them goes on — the rest are handed to {@code cancel}); leases that must be acked or nacked within the nack
 * timeout; a nacked evaluation comes back after a delay, up to the delivery limit, then goes to {@code failed};
 * evaluations with a {@code WaitUntil} in the future wait for it. All state is in memory: a new leader rebuilds it
 * from the state store.
 */
final class EvalBroker {
    /** An evaluation handed to a worker; {@code token} proves the lease on ack and nack. */
    record Lease(Evaluation eval, String token) {}

    private static final Comparator<Evaluation> READY_ORDER = Comparator.comparingInt(Evaluation::priority)
            .reversed().thenComparingLong(Evaluation::createIndex).thenComparing(Evaluation::id);

    private final Clock clock;
    private final int deliveryLimit;
    private final Duration nackTimeout;
    private final Duration nackDelay;
    private final Consumer<Evaluation> failed;
    private final Consumer<List<Evaluation>> cancel;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition readyOrClosed = lock.newCondition();
    private final Map<String, PriorityQueue<Evaluation>> ready = new HashMap<>();       // by type
    private final Map<String, Outstanding> unacked = new HashMap<>();                    // by eval ID
    private final Map<String, String> jobOut = new HashMap<>();                          // job key → eval ID out
    private final Map<String, List<Evaluation>> waitingForJob = new HashMap<>();         // job key → later evals
    private final TreeMap<Instant, List<Evaluation>> delayed = new TreeMap<>();
    private final Map<String, Integer> deliveries = new HashMap<>();
    private final Set<String> known = new HashSet<>();                                  // every eval held
    private boolean closed;
    /** The operator's {@code PauseEvalBroker}: while it holds, evaluations wait here and none is handed out. */
    private volatile java.util.function.BooleanSupplier paused = () -> false;

    private record Outstanding(Evaluation eval, String token, Instant deadline) {}

    EvalBroker(Clock clock, int deliveryLimit, Duration nackTimeout, Duration nackDelay, Consumer<Evaluation> failed,
               Consumer<List<Evaluation>> cancel) {
        this.clock = clock;
        this.deliveryLimit = deliveryLimit;
        this.nackTimeout = nackTimeout;
        this.nackDelay = nackDelay;
        this.failed = failed;
        this.cancel = cancel;
    }

    /** Takes a pending evaluation; one already held (same ID) is ignored. */
    void enqueue(Evaluation eval) {
        lock.lock();
        try {
            if (closed || !known.add(eval.id())) {
                return;
            }
            if (eval.waitUntil() != null && eval.waitUntil().isAfter(clock.instant())) {
                delayed.computeIfAbsent(eval.waitUntil(), t -> new ArrayList<>()).add(eval);
                readyOrClosed.signalAll(); // a waiting worker recomputes its wake-up
                return;
            }
            admit(eval);
        } finally {
            lock.unlock();
        }
    }

    /** Ready unless another evaluation of its job is out. Lock held. */
    private void admit(Evaluation eval) {
        String job = jobKey(eval);
        String out = jobOut.get(job);
        if (out != null && !out.equals(eval.id())) {
            waitingForJob.computeIfAbsent(job, j -> new ArrayList<>()).add(eval);
            return;
        }
        jobOut.put(job, eval.id());
        ready.computeIfAbsent(eval.type(), t -> new PriorityQueue<>(READY_ORDER)).add(eval);
        readyOrClosed.signalAll();
    }

    /**
     * The highest-priority ready evaluation of one of {@code types}, waiting up to {@code timeout}; empty on timeout
     * or once closed.
     */
    /** Where the broker reads whether the operator paused it (the scheduler configuration in the state). */
    void pausedWhile(java.util.function.BooleanSupplier paused) {
        this.paused = paused;
    }

    Optional<Lease> dequeue(Set<String> types, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (!closed) {
                promoteDue();
                expireLeases();
                // Checked under the lock each time a waiting scheduler wakes, so an evaluation enqueued after the
                // operator paused the broker is never handed out, whoever was already waiting.
                Evaluation next = paused.getAsBoolean() ? null : pollBest(types);
                if (next != null) {
                    String token = UUID.randomUUID().toString();
                    unacked.put(next.id(), new Outstanding(next, token, clock.instant().plus(nackTimeout)));
                    deliveries.merge(next.id(), 1, Integer::sum);
                    return Optional.of(new Lease(next, token));
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                readyOrClosed.awaitNanos(Math.min(left, nextWakeNanos()));
            }
            return Optional.empty();
        } finally {
            lock.unlock();
        }
    }

    /** The scheduler is done with it: the job's newest waiting evaluation goes next, older ones are cancelled. */
    boolean ack(String evalId, String token) {
        List<Evaluation> superseded = List.of();
        lock.lock();
        try {
            Outstanding out = unacked.get(evalId);
            if (out == null || !out.token().equals(token)) {
                return false;
            }
            unacked.remove(evalId);
            deliveries.remove(evalId);
            known.remove(evalId);
            superseded = releaseJob(out.eval());
        } finally {
            lock.unlock();
        }
        if (!superseded.isEmpty()) {
            cancel.accept(superseded);
        }
        return true;
    }

    /** The scheduler failed: back to the queue after a delay, or to {@code failed} past the delivery limit. */
    boolean nack(String evalId, String token) {
        Evaluation give;
        lock.lock();
        try {
            Outstanding out = unacked.get(evalId);
            if (out == null || !out.token().equals(token)) {
                return false;
            }
            give = requeueOrGiveUp(out);
        } finally {
            lock.unlock();
        }
        if (give != null) {
            failed.accept(give);
        }
        return true;
    }

    /** Lock held. Returns the evaluation to fail, if it ran out of deliveries. */
    private Evaluation requeueOrGiveUp(Outstanding out) {
        Evaluation eval = out.eval();
        unacked.remove(eval.id());
        if (deliveries.getOrDefault(eval.id(), 0) >= deliveryLimit) {
            deliveries.remove(eval.id());
            known.remove(eval.id());
            List<Evaluation> superseded = releaseJob(eval);
            // Those waiting behind a failed eval still deserve a run: put them back rather than cancel them.
            superseded.forEach(this::admit);
            return eval;
        }
        delayed.computeIfAbsent(clock.instant().plus(nackDelay), t -> new ArrayList<>()).add(eval);
        readyOrClosed.signalAll();
        return null;
    }

    /** Lock held: frees the job's slot; the newest waiting evaluation takes it, the rest are returned. */
    private List<Evaluation> releaseJob(Evaluation eval) {
        String job = jobKey(eval);
        if (eval.id().equals(jobOut.get(job))) {
            jobOut.remove(job);
        }
        List<Evaluation> waiting = waitingForJob.remove(job);
        if (waiting == null || waiting.isEmpty()) {
            return List.of();
        }
        waiting.sort(Comparator.comparingLong(Evaluation::createIndex).thenComparingLong(Evaluation::modifyIndex));
        Evaluation newest = waiting.remove(waiting.size() - 1);
        admit(newest);
        waiting.forEach(e -> known.remove(e.id()));
        return waiting;
    }

    /** Lock held. */
    private Evaluation pollBest(Set<String> types) {
        PriorityQueue<Evaluation> best = null;
        for (String type : types) {
            PriorityQueue<Evaluation> q = ready.get(type);
            if (q != null && !q.isEmpty() && (best == null || READY_ORDER.compare(q.peek(), best.peek()) < 0)) {
                best = q;
            }
        }
        return best == null ? null : best.poll();
    }

    /** Lock held: delayed evaluations whose time has come become ready. */
    private void promoteDue() {
        Instant now = clock.instant();
        while (!delayed.isEmpty() && !delayed.firstKey().isAfter(now)) {
            delayed.pollFirstEntry().getValue().forEach(this::admit);
        }
    }

    /** Lock held: leases past their deadline count as nacked (the worker died or hung). */
    private void expireLeases() {
        Instant now = clock.instant();
        List<Outstanding> expired = unacked.values().stream().filter(o -> o.deadline().isBefore(now)).toList();
        for (Outstanding o : expired) {
            Evaluation give = requeueOrGiveUp(o);
            if (give != null) {
                failed.accept(give);
            }
        }
    }

    /** Lock held: how long a worker may sleep before a delayed evaluation or a lease deadline is due. */
    private long nextWakeNanos() {
        Instant now = clock.instant();
        Instant next = delayed.isEmpty() ? null : delayed.firstKey();
        for (Outstanding o : unacked.values()) {
            if (next == null || o.deadline().isBefore(next)) {
                next = o.deadline();
            }
        }
        if (next == null) {
            return Long.MAX_VALUE;
        }
        return Math.max(TimeUnit.MILLISECONDS.toNanos(1), Duration.between(now, next).toNanos());
    }

    /**
     * What the broker holds, for Nomad's {@code nomad.nomad.broker.*} gauges: ready and unacked in total and by
     * scheduler type, those waiting for another evaluation of their job to be acked ({@code pending}), and those
     * waiting for their {@code WaitUntil} ({@code waiting}).
     */
    record Stats(int ready, int unacked, int pending, int waiting, Map<String, Integer> readyByType,
                 Map<String, Integer> unackedByType) {}

    Stats stats() {
        lock.lock();
        try {
            Map<String, Integer> readyByType = new HashMap<>();
            ready.forEach((type, q) -> readyByType.put(type, q.size()));
            Map<String, Integer> unackedByType = new HashMap<>();
            unacked.values().forEach(o -> unackedByType.merge(o.eval().type(), 1, Integer::sum));
            int pending = waitingForJob.values().stream().mapToInt(List::size).sum();
            int waiting = delayed.values().stream().mapToInt(List::size).sum();
            return new Stats(readyByType.values().stream().mapToInt(Integer::intValue).sum(), unacked.size(), pending,
                    waiting, readyByType, unackedByType);
        } finally {
            lock.unlock();
        }
    }

    /** Evaluations held: ready, out, waiting, delayed. */
    int size() {
        lock.lock();
        try {
            return known.size();
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            readyOrClosed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static String jobKey(Evaluation eval) {
        return NomadTables.key(eval.namespace(), eval.jobId());
    }
}
