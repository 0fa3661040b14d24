package io.caravan.client.internal.hooks;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskEvent;
import io.caravan.client.internal.alloc.TaskEvents;

/**
 * What a task's hooks share during one start attempt: the inputs (allocation, task, node, directories) and what
 * earlier hooks produced for later ones and for the driver (environment, interpolated config, log paths).
 */
public final class TaskHookContext {
    private final Allocation alloc;
    private final Task task;
    private final Node node;
    private final AllocDir allocDir;
    private final TaskEvents events;
    private final Consumer<TaskEvent> emitter;
    private Map<String, String> env = Map.of();
    private Map<String, Object> config;
    private Path stdoutPath;
    private Path stderrPath;
    private TaskControl control = TaskControl.NONE;

    public TaskHookContext(Allocation alloc, Task task, Node node, AllocDir allocDir, TaskEvents events,
                           Consumer<TaskEvent> emitter) {
        this.alloc = alloc;
        this.task = task;
        this.node = node;
        this.allocDir = allocDir;
        this.events = events;
        this.emitter = emitter;
        this.config = task.config();
    }

    public Allocation alloc() {
        return alloc;
    }

    public Task task() {
        return task;
    }

    public Node node() {
        return node;
    }

    public AllocDir allocDir() {
        return allocDir;
    }

    public Path taskDir() {
        return allocDir.task(task.name());
    }

    public TaskEvents events() {
        return events;
    }

    /** Adds an event to the task's history. */
    public void emit(TaskEvent event) {
        emitter.accept(event);
    }

    public Map<String, String> env() {
        return env;
    }

    public void env(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /** The task's {@code config}, interpolated once the env hook ran. */
    public Map<String, Object> config() {
        return config;
    }

    public void config(Map<String, Object> config) {
        this.config = config;
    }

    public Path stdoutPath() {
        return stdoutPath;
    }

    public Path stderrPath() {
        return stderrPath;
    }

    public void logPaths(Path stdout, Path stderr) {
        this.stdoutPath = stdout;
        this.stderrPath = stderr;
    }

    /** What hooks may do to the task once it runs (its runner). */
    public TaskControl control() {
        return control;
    }

    public void control(TaskControl control) {
        this.control = control;
    }

    /** An interpolator over this task's environment and node. */
    public Interpolator interpolator() {
        return new Interpolator(env, node);
    }
}
