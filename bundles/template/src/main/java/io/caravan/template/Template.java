package io.caravan.template;

import io.caravan.template.internal.Executor;
import io.caravan.template.internal.Parser;
import io.caravan.template.internal.Tree;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A parsed template and the templates it defines ({@code define}, {@code block}), immutable and safe to execute from
 * several threads at once.
 */
public final class Template {
    private final String name;
    private final TemplateOptions options;
    private final Map<String, Tree> trees;

    private Template(String name, TemplateOptions options, Map<String, Tree> trees) {
        this.name = name;
        this.options = options;
        this.trees = Collections.unmodifiableMap(trees);
    }

    /** Parses {@code text} as the template {@code name}; syntax errors name the line and column. */
    public static Template parse(String name, String text, TemplateOptions options) throws TemplateException {
        Map<String, Tree> trees = Parser.parse(name, text, options.leftDelim(), options.rightDelim(),
                options.functions().names(), options.maxNesting());
        return new Template(name, options, new LinkedHashMap<>(trees));
    }

    /** Parses with Go's defaults and builtins. */
    public static Template parse(String name, String text) throws TemplateException {
        return parse(name, text, TemplateOptions.defaults());
    }

    /**
     * A copy with more definitions parsed from {@code text} (as Go's {@code Clone().Parse(...)}): a non-empty
     * definition replaces one of the same name, so {@code define} can override a {@code block}'s default.
     */
    public Template with(String textName, String text) throws TemplateException {
        Map<String, Tree> more = Parser.parse(textName, text, options.leftDelim(), options.rightDelim(),
                options.functions().names(), options.maxNesting());
        Map<String, Tree> all = new LinkedHashMap<>(trees);
        for (Map.Entry<String, Tree> e : more.entrySet()) {
            Tree old = all.get(e.getKey());
            if (old == null || !e.getValue().isEmpty() || old.isEmpty()) all.put(e.getKey(), e.getValue());
        }
        return new Template(name, options, all);
    }

    public String name() { return name; }

    public TemplateOptions options() { return options; }

    /** Names of this template and of every template it defines. */
    public Set<String> templateNames() { return trees.keySet(); }

    /** Executes this template against {@code data}. */
    public String execute(Object data) throws TemplateException {
        return execute(name, data);
    }

    /** Executes the named template (this one or one it defines) against {@code data}. */
    public String execute(String templateName, Object data) throws TemplateException {
        Tree t = trees.get(templateName);
        if (t == null) {
            throw new TemplateException("template: no template \"" + templateName + "\" associated with template \""
                    + name + "\"", templateName, 0, 0);
        }
        return new Executor(trees, options).execute(t, data);
    }
}
