/**
 * Nomad jobspecs to the API Job JSON: what Nomad's {@code POST /v1/jobs/parse} returns (PascalCase Go names,
 * durations in integer nanoseconds, only what the file says; defaults are applied later by canonicalisation).
 *
 * <pre>{@code
 * Jobspec spec = JobspecParser.parse(Files.readString(path), path.toString(),
 *         ParseOptions.defaults().withVar("dc", "dc2").withVarFile(Path.of("prod.vars.hcl")));
 * ObjectNode job = spec.job();                 // {"ID": "web", "Name": "web", "TaskGroups": [...]}
 * ObjectNode body = spec.toRegisterRequest();  // {"Job": {...}} for POST /v1/jobs
 * }</pre>
 *
 * Every problem of a file is reported at once in a {@link JobspecException}, one {@code file:line:column: message}
 * each. The decoder (a declarative block and attribute table), input variables and functions are private in
 * {@code io.caravan.jobspec.internal}.
 */
@Version("1.1.0")
package io.caravan.jobspec;

import org.osgi.annotation.versioning.Version;
