package io.caravan.driver.executor.internal;

/**
 * A process as pid plus start time, so that a pid the kernel has since given to another process is not mistaken for
 * ours. {@link #UNKNOWN} stands for a process that was gone before it could be looked at.
 */
record ProcessIdentity(long pid, long startTicks) {
    static final ProcessIdentity UNKNOWN = new ProcessIdentity(-1, -1);

    /** The process running as {@code pid} now, or {@link #UNKNOWN} if there is none. */
    static ProcessIdentity current(long pid) {
        return ProcStat.of(pid).map(s -> new ProcessIdentity(pid, s.startTicks())).orElse(UNKNOWN);
    }

    /** True while this very process exists and has not exited (a zombie has). */
    boolean alive() {
        return ProcStat.of(pid).filter(s -> s.startTicks() == startTicks && !s.exited()).isPresent();
    }

    /** True unless the pid now belongs to a different process. */
    boolean pidNotReused() {
        return ProcStat.of(pid).map(s -> s.startTicks() == startTicks).orElse(true);
    }
}
