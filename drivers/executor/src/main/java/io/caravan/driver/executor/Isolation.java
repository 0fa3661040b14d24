package io.caravan.driver.executor;

import java.util.List;

/**
 * A command put in front of the task's own that isolates it and then runs the rest of its arguments (for example
 * {@code unshare … /bin/sh init-script …}); it runs as the agent's user, before the switch to the task's user.
 * {@code forks} says it runs the rest in a child ({@code unshare --fork}): that child is then the task's process
 * for signals, so it must pass them on (the init of a pid namespace drops signals it has no handler for); the
 * launch waits until that child catches SIGTERM.
 */
public record Isolation(List<String> command, boolean forks) {
    public static final Isolation NONE = new Isolation(List.of(), false);

    public Isolation {
        command = List.copyOf(command);
    }
}
