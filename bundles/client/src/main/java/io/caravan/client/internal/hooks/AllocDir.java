package io.caravan.client.internal.hooks;

import java.nio.file.Path;

/**
 * Nomad's allocation directory layout (client/allocdir):
 * <pre>
 * &lt;alloc_dir&gt;/&lt;alloc_id&gt;/alloc/{data,logs,tmp}      shared by the allocation's tasks (NOMAD_ALLOC_DIR)
 * &lt;alloc_dir&gt;/&lt;alloc_id&gt;/&lt;task&gt;/{local,secrets,tmp}  one per task (NOMAD_TASK_DIR = local, NOMAD_SECRETS_DIR)
 * </pre>
 */
public record AllocDir(Path root) {
    public static AllocDir of(Path allocDirRoot, String allocId) {
        return new AllocDir(allocDirRoot.resolve(allocId));
    }

    /** {@code alloc/}: the shared directory. */
    public Path shared() {
        return root.resolve("alloc");
    }

    public Path logs() {
        return shared().resolve("logs");
    }

    public Path data() {
        return shared().resolve("data");
    }

    public Path sharedTmp() {
        return shared().resolve("tmp");
    }

    public Path task(String task) {
        return root.resolve(task);
    }

    public Path taskLocal(String task) {
        return task(task).resolve("local");
    }

    public Path taskSecrets(String task) {
        return task(task).resolve("secrets");
    }

    public Path taskTmp(String task) {
        return task(task).resolve("tmp");
    }
}
