package io.caravan.scheduler;

/** Scheduling failed for a reason other than lack of capacity (which is an outcome, not an error). */
public class SchedulerException extends Exception {
    private static final long serialVersionUID = 1L;

    public SchedulerException(String message) {
        super(message);
    }

    public SchedulerException(String message, Throwable cause) {
        super(message, cause);
    }
}
