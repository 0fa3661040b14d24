package io.caravan.server.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.slf4j.Logger;

/**
 * A leader's periodic collection pass that must not overlap itself: while one pass's deletes are in flight the next
 * timer tick does nothing, rather than deleting the same objects twice. Never throws, since a periodic task that
 * throws is never run again: a failure is logged and the next interval tries again.
 */
final class GcPass {
    private final AtomicBoolean running = new AtomicBoolean();
    private final Logger log;
    private final String what;

    /** @param what the objects collected, for the log ("expired ACL tokens", "objects") */
    GcPass(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /** Runs {@code pass} unless one is running (then 0); completes with how many objects it deleted. */
    CompletionStage<Integer> run(Supplier<CompletionStage<Integer>> pass) {
        if (!running.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(0);
        }
        CompletionStage<Integer> started;
        try {
            started = pass.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return started.whenComplete((deleted, e) -> {
            running.set(false);
            if (e != null) {
                log.atWarn().setCause(e).log("could not delete " + what + "; trying again next interval");
            } else if (deleted > 0) {
                log.atInfo().addKeyValue("count", deleted).log(what + " deleted");
            }
        });
    }
}
