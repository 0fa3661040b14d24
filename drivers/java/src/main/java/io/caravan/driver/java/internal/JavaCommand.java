package io.caravan.driver.java.internal;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.caravan.plugin.api.driver.DriverException;

/**
 * A java task's {@code config} block as Nomad's java driver reads it: {@code jar_path} or {@code class} (at least
 * one), {@code class_path}, {@code jvm_options}, {@code args} and {@code work_dir}. Blank strings count as unset.
 * Paths are passed to java as written, so a relative {@code jar_path} or {@code class_path} is relative to the
 * working directory: the task directory ({@code /} in the chroot) unless {@code work_dir} says otherwise. As in
 * Nomad, no heap size is added: the cgroup enforces {@code memory}/{@code memory_max}, and a task that wants a
 * matching {@code -Xmx} says so in {@code jvm_options}.
 */
record JavaCommand(String jarPath, String className, String classPath, List<String> jvmOptions, List<String> args,
                   String workDir) {
    static final String NAME = "java";

    JavaCommand {
        jvmOptions = List.copyOf(jvmOptions);
        args = List.copyOf(args);
    }

    static JavaCommand of(Map<String, Object> config) throws DriverException {
        JavaCommand command = new JavaCommand(string(config, "jar_path"), string(config, "class"),
                string(config, "class_path"), strings(config, "jvm_options"), strings(config, "args"),
                string(config, "work_dir"));
        if (command.jarPath.isEmpty() && command.className.isEmpty()) {
            throw new DriverException(NAME + ": jar_path or class must be specified");
        }
        return command;
    }

    /** {@code java <jvm_options> [-cp class_path] [-jar jar_path] [class] <args>}, in Nomad's order. */
    List<String> argv(String java) {
        List<String> argv = new ArrayList<>();
        argv.add(java);
        argv.addAll(jvmOptions);
        if (!classPath.isEmpty()) {
            argv.add("-cp");
            argv.add(classPath);
        }
        if (!jarPath.isEmpty()) {
            argv.add("-jar");
            argv.add(jarPath);
        }
        if (!className.isEmpty()) {
            argv.add(className);
        }
        argv.addAll(args);
        return argv;
    }

    private static String string(Map<String, Object> config, String field) throws DriverException {
        Object value = config.get(field);
        if (value == null) {
            return "";
        }
        if (!(value instanceof String s)) {
            throw new DriverException(NAME + ": config field \"" + field + "\" must be a string");
        }
        return s.trim();
    }

    private static List<String> strings(Map<String, Object> config, String field) throws DriverException {
        Object value = config.get(field);
        List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        if (value instanceof Collection<?> list) {
            list.forEach(v -> out.add(String.valueOf(v)));
        } else if (value.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                out.add(String.valueOf(Array.get(value, i)));
            }
        } else {
            throw new DriverException(NAME + ": config field \"" + field + "\" must be a list of strings");
        }
        return out;
    }
}
