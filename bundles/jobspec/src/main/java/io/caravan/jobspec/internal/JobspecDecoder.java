package io.caravan.jobspec.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.Budget;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.HclFile;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Position;
import io.caravan.hcl.Range;
import io.caravan.jobspec.JobspecException;
import io.caravan.jobspec.Problem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One parse of an HCL2 jobspec: syntax, inputs, then the job block through the schema table. */
public final class JobspecDecoder {

    private static final int MAX_PROBLEMS = 100;

    private JobspecDecoder() {
    }

    public static ObjectNode decode(String source, String filename, Map<String, String> env,
                                    Map<String, String> vars, List<Path> varFiles, boolean allowFileFunctions) {
        List<Diagnostic> problems = new ArrayList<>();
        if (source.stripLeading().startsWith("{")) { // Nomad also reads HCL's JSON syntax; we do not (yet)
            throw failure(List.of(Diagnostic.error("Unsupported jobspec syntax", "HCL JSON syntax is not supported; "
                    + "write the jobspec in HCL native syntax, or send an API job ({\"Job\": {...}}) as JSON",
                    new Range(filename, Position.START, Position.START))));
        }
        HclParser.Result parsed = HclParser.tryParse(source, filename);
        if (parsed.hasErrors()) {
            throw failure(parsed.diagnostics());
        }
        HclFile file = parsed.file();
        Path dir = Path.of(filename).toAbsolutePath().getParent();
        EvalContext base = EvalContext.empty()
                .withBudget(new Budget()) // one for the whole file: its limits hold for the jobspec as a whole
                .withFunctions(Functions.all(allowFileFunctions ? dir : null))
                // Like Nomad (its EvalContext.UnknownVariable), any root other than var and local is kept as
                // "${...}" for the client or scheduler: attr, node, meta, env, NOMAD_*, ...
                .deferringUnknownVariables();

        List<Block> jobs = new ArrayList<>();
        for (BodyItem item : file.body().items()) {
            if (item instanceof Attribute a) {
                problems.add(Diagnostic.error("Unsupported argument", "An argument named \"" + a.name()
                        + "\" is not expected here; a jobspec holds job, variable and locals blocks.", a.nameRange()));
            } else if (item instanceof Block b) {
                switch (b.type()) {
                    case "job" -> jobs.add(b);
                    case "variable", "variables", "locals" -> { }
                    default -> problems.add(Diagnostic.error("Unsupported block type", "Blocks of type \""
                            + b.type() + "\" are not expected here.", b.typeRange()));
                }
            }
        }
        EvalContext ctx = new Inputs(problems).resolve(file, base, env, vars, varFiles);
        if (jobs.isEmpty()) {
            problems.add(Diagnostic.error("Missing job block", "A job block is required",
                    new Range(filename, Position.START, Position.START)));
        }
        for (Block extra : jobs.subList(Math.min(1, jobs.size()), jobs.size())) {
            problems.add(Diagnostic.error("Duplicate job block", "Only one block of type \"job\" is allowed. "
                    + "Previous definition was at " + jobs.get(0).typeRange() + ".", extra.typeRange()));
        }
        ObjectNode job = jobs.isEmpty() ? null : new Decoder(file, problems).decodeJob(jobs.get(0), ctx);
        if (!problems.isEmpty()) {
            throw failure(problems);
        }
        return job;
    }

    static JobspecException failure(List<Diagnostic> diagnostics) {
        List<Problem> out = new ArrayList<>();
        for (Diagnostic d : diagnostics) {
            if (d.severity() != Diagnostic.Severity.ERROR) {
                continue;
            }
            String message = d.detail() == null || d.detail().isEmpty() ? d.summary() : d.summary() + "; " + d.detail();
            Range r = d.subject();
            out.add(r == null ? new Problem("<unknown>", 0, 0, message)
                    : new Problem(r.filename(), r.start().line(), r.start().column(), message));
        }
        List<Problem> distinct = out.stream().distinct().toList();
        if (distinct.size() <= MAX_PROBLEMS) {
            return new JobspecException(distinct);
        }
        // One broken line repeated a million times must not make a message of a million lines.
        List<Problem> first = new ArrayList<>(distinct.subList(0, MAX_PROBLEMS));
        Problem last = distinct.get(MAX_PROBLEMS);
        first.add(new Problem(last.file(), last.line(), last.column(), "Too many errors; only the first "
                + MAX_PROBLEMS + " are reported"));
        return new JobspecException(first);
    }
}
