package io.caravan.client.internal.hooks;

/**
 * {@code task_env}: builds the task's environment ({@link TaskEnvBuilder}) and interpolates the task's
 * {@code config} against it, so the driver receives final values.
 */
public final class TaskEnvHook implements TaskHook.Prestart {
    @Override
    public String name() {
        return "task_env";
    }

    @Override
    public void prestart(TaskHookContext ctx) {
        ctx.env(TaskEnvBuilder.build(ctx.alloc(), ctx.task(), ctx.node(), ctx.allocDir()));
        ctx.config(ctx.interpolator().interpolateMap(ctx.task().config()));
    }
}
