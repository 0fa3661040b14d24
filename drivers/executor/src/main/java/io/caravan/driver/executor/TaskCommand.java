package io.caravan.driver.executor;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.caravan.plugin.api.driver.DriverException;

/**
 * The {@code command}, {@code args} and {@code work_dir} of an exec-style task's {@code config} block, as Nomad's
 * raw_exec and exec drivers read them. {@code workDir} is empty when not set; what it is relative to is the
 * driver's business.
 */
public record TaskCommand(String command, List<String> args, String workDir) {
    public TaskCommand {
        args = List.copyOf(args);
    }

    public static TaskCommand of(String driver, Map<String, Object> config) throws DriverException {
        Object command = config.get("command");
        if (!(command instanceof String) || ((String) command).isBlank()) {
            throw new DriverException(driver + ": missing required config field \"command\"");
        }
        Object workDir = config.get("work_dir");
        return new TaskCommand((String) command, strings(driver, config.get("args")),
                workDir == null ? "" : workDir.toString());
    }

    /** {@code command} followed by {@code args}. */
    public List<String> argv() {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add(command);
        argv.addAll(args);
        return argv;
    }

    private static List<String> strings(String driver, Object value) throws DriverException {
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
            throw new DriverException(driver + ": config field \"args\" must be a list of strings");
        }
        return out;
    }
}
