package io.caravan.driver.rawexec.internal;

import java.lang.reflect.Array;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.caravan.plugin.api.driver.DriverException;

/**
 * A raw_exec task's {@code config} block: {@code command} (required), {@code args}, and {@code work_dir} (absolute,
 * or relative to the task directory, which is the default).
 */
record RawExecTaskConfig(String command, List<String> args, Path workDir) {

    static RawExecTaskConfig of(Map<String, Object> config, Path taskDir) throws DriverException {
        Object command = config.get("command");
        if (!(command instanceof String) || ((String) command).isBlank()) {
            throw new DriverException("raw_exec: missing required config field \"command\"");
        }
        Object workDir = config.get("work_dir");
        return new RawExecTaskConfig((String) command, strings(config.get("args")),
                workDir == null || workDir.toString().isEmpty() ? taskDir : taskDir.resolve(workDir.toString()));
    }

    List<String> argv() {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(command);
        argv.addAll(args);
        return argv;
    }

    private static List<String> strings(Object value) throws DriverException {
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
            throw new DriverException("raw_exec: config field \"args\" must be a list of strings");
        }
        return out;
    }
}
