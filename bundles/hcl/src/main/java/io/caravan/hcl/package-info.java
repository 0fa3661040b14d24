/**
 * HCL2 native syntax: a lossless parser into immutable AST records with exact source ranges, and an evaluator
 * for expressions and templates.
 *
 * <pre>{@code
 * HclFile file = HclParser.parse(source, "job.nomad");            // HclException lists every syntax error
 * EvalContext ctx = EvalContext.empty()
 *         .withVariable("var", Value.object(Map.of("dc", Value.of("dc1"))))
 *         .withFunction("upper", args -> Value.of(args.get(0).toString().toUpperCase()))
 *         .deferring(name -> name.equals("attr") || name.startsWith("NOMAD_")); // kept for the client
 * for (Block job : file.body().blocks("job")) {
 *     Value dcs = job.body().attribute("datacenters").orElseThrow().evaluate(ctx);
 *     // "${attr.kernel.name}" evaluates to the string "${attr.kernel.name}"
 * }
 * }</pre>
 *
 * Lexer, parser and evaluator internals live in {@code io.caravan.hcl.internal}.
 */
@Version("1.2.0")
package io.caravan.hcl;

import org.osgi.annotation.versioning.Version;
