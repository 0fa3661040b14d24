package io.caravan.jobspec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Inputs of a parse besides the file itself.
 *
 * @param vars               {@code -var name=value} values; they override var-files, which override defaults.
 *                           A value for a variable whose type is not {@code string} is parsed as an HCL expression
 *                           ({@code -var 'dcs=["a","b"]'}), as Nomad does.
 * @param varFiles           {@code -var-file} HCL files of {@code name = value}, applied in order
 * @param allowFileFunctions whether {@code file()} may read files (relative to the jobspec's directory). Nomad's
 *                           HTTP parse endpoint turns it off; the CLI leaves it on.
 * @param env                the process environment; {@code NOMAD_VAR_<name>} entries set variables with the lowest
 *                           precedence (below var-files), others are ignored, as are undeclared names
 */
public record ParseOptions(Map<String, String> vars, List<Path> varFiles, boolean allowFileFunctions,
                           Map<String, String> env) {

    public ParseOptions {
        vars = Map.copyOf(vars);
        varFiles = List.copyOf(varFiles);
        env = Map.copyOf(env);
    }

    public ParseOptions(Map<String, String> vars, List<Path> varFiles, boolean allowFileFunctions) {
        this(vars, varFiles, allowFileFunctions, Map.of());
    }

    /** No variables, no var-files, no environment, {@code file()} allowed. */
    public static ParseOptions defaults() {
        return new ParseOptions(Map.of(), List.of(), true, Map.of());
    }

    public ParseOptions withVar(String name, String value) {
        Map<String, String> m = new LinkedHashMap<>(vars);
        m.put(name, value);
        return new ParseOptions(m, varFiles, allowFileFunctions, env);
    }

    public ParseOptions withVarFile(Path file) {
        List<Path> l = new ArrayList<>(varFiles);
        l.add(file);
        return new ParseOptions(vars, l, allowFileFunctions, env);
    }

    public ParseOptions withFileFunctions(boolean allowed) {
        return new ParseOptions(vars, varFiles, allowed, env);
    }

    /** Uses {@code NOMAD_VAR_*} entries of this environment (e.g. {@code System.getenv()}). */
    public ParseOptions withEnv(Map<String, String> environment) {
        return new ParseOptions(vars, varFiles, allowFileFunctions, environment);
    }
}
