package io.caravan.client.internal.hooks;

import java.nio.file.Path;

import io.caravan.api.model.LogConfig;

/**
 * {@code logs} (Nomad's {@code logmon}): tells the driver where the task's output goes
 * ({@code alloc/logs/<task>.stdout.0} and {@code .stderr.0}) and has the shared {@link LogRotator} keep both within
 * the task's {@code logs { max_files, max_file_size }}.
 */
public final class LogsHook implements TaskHook.Prestart, TaskHook.Recover, TaskHook.Stop {
    private final LogRotator rotator;

    public LogsHook(LogRotator rotator) {
        this.rotator = rotator;
    }

    @Override
    public String name() {
        return "logs";
    }

    @Override
    public void prestart(TaskHookContext ctx) {
        String task = ctx.task().name();
        Path stdout = LogRotator.liveFile(ctx.allocDir().logs(), task, "stdout");
        Path stderr = LogRotator.liveFile(ctx.allocDir().logs(), task, "stderr");
        ctx.logPaths(stdout, stderr);
        LogConfig config = ctx.task().logConfig();
        if (config == null || !Boolean.TRUE.equals(config.disabled())) {
            rotator.watch(stdout, LogRotator.Limits.of(config));
            rotator.watch(stderr, LogRotator.Limits.of(config));
        }
    }

    /** A re-attached task keeps writing where it did; watch its files again. */
    @Override
    public void recovered(TaskHookContext ctx) {
        prestart(ctx);
    }

    @Override
    public void stop(TaskHookContext ctx) {
        String task = ctx.task().name();
        rotator.unwatch(LogRotator.liveFile(ctx.allocDir().logs(), task, "stdout"));
        rotator.unwatch(LogRotator.liveFile(ctx.allocDir().logs(), task, "stderr"));
    }
}
