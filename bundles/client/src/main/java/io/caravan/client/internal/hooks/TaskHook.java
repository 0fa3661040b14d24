package io.caravan.client.internal.hooks;

/**
 * A task runner hook (Nomad's {@code client/allocrunner/interfaces}): a small named step, with what it does at each
 * point of the task's life in the optional interfaces below. The runner keeps one ordered list and calls, at each
 * point, the hooks that implement that point's interface.
 */
public interface TaskHook {
    /** snake_case, as Nomad names its hooks ({@code task_dir}, {@code logmon}, {@code artifacts}). */
    String name();

    /** Before every start attempt; an exception fails the attempt (the restart policy decides what follows). */
    interface Prestart extends TaskHook {
        void prestart(TaskHookContext ctx) throws Exception;
    }

    /** After the driver started the task. */
    interface Poststart extends TaskHook {
        void poststart(TaskHookContext ctx);
    }

    /** After a running task was re-attached (agent restart, driver update): take up what prestart set up. */
    interface Recover extends TaskHook {
        void recovered(TaskHookContext ctx);
    }

    /** After the task exited for good (dead): release what the hook holds for it. */
    interface Stop extends TaskHook {
        void stop(TaskHookContext ctx);
    }
}
