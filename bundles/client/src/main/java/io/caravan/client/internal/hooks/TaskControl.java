package io.caravan.client.internal.hooks;

import java.time.Duration;
import java.util.List;

import io.caravan.api.model.TaskEvent;
import io.caravan.plugin.api.driver.ExecResult;

/**
 * What a hook may do to its running task later on (a template's {@code change_mode}): restart it, signal it, run a
 * command in it, or kill it. Each is refused quietly (false, or an exception for exec and signal) when the task is
 * not running.
 */
public interface TaskControl {
    /** A control for a context that has no task runner behind it (tests): nothing runs, every call is refused. */
    TaskControl NONE = new TaskControl() {
        @Override
        public boolean restart(TaskEvent event) {
            return false;
        }

        @Override
        public void signal(String signal, TaskEvent event) {
            throw new IllegalStateException("task is not running");
        }

        @Override
        public ExecResult exec(List<String> argv, Duration timeout) {
            throw new IllegalStateException("task is not running");
        }

        @Override
        public void kill(TaskEvent event) {
        }

        @Override
        public boolean stopping() {
            return false;
        }
    };

    /** Restarts the running task (not counted by the restart policy), {@code event} recorded first. */
    boolean restart(TaskEvent event);

    /** Sends {@code signal} to the running task, {@code event} recorded first. */
    void signal(String signal, TaskEvent event) throws Exception;

    /** Runs a command in the task through its driver, bounded by {@code timeout}. */
    ExecResult exec(List<String> argv, Duration timeout) throws Exception;

    /** Kills the task, {@code event} (one that fails the task) recorded first. */
    void kill(TaskEvent event);

    /** Whether the task is being killed or is dead: a hook that waits should give up. */
    boolean stopping();
}
