package io.caravan.scheduler.internal.placement;

/** A feasibility check's answer for one node. */
public sealed interface Verdict permits Verdict.Pass, Verdict.Reject {
    Verdict PASS = new Pass();

    record Pass() implements Verdict {
    }

    /**
     * @param reason    counted in {@code AllocMetric.ConstraintFiltered} (Nomad's text)
     * @param classWide whether every node of the same computed class would be rejected too (the verdict is cached)
     */
    record Reject(String reason, boolean classWide) implements Verdict {
    }

    static Verdict reject(String reason, boolean classWide) {
        return new Reject(reason, classWide);
    }
}
