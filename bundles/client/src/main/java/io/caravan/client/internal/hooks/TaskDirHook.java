package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.file.Files;


/** {@code task_dir}: the task's {@code local}, {@code secrets} and {@code tmp} directories. */
public final class TaskDirHook implements TaskHook.Prestart {
    /** Nomad's message for the {@code Task Setup} event (structs.TaskBuildingTaskDir). */
    public static final String BUILDING_TASK_DIR = "Building Task Directory";

    private boolean built;

    @Override
    public String name() {
        return "task_dir";
    }

    @Override
    public void prestart(TaskHookContext ctx) throws IOException {
        String task = ctx.task().name();
        if (!built) {
            ctx.emit(ctx.events().setup(BUILDING_TASK_DIR));
        }
        Files.createDirectories(ctx.allocDir().logs());
        Files.createDirectories(ctx.allocDir().taskLocal(task));
        Files.createDirectories(ctx.allocDir().taskSecrets(task));
        Files.createDirectories(ctx.allocDir().taskTmp(task));
        built = true;
    }
}
