/**
 * Go's {@code text/template} language, as consul-template (and so Nomad's {@code template} block) uses it.
 *
 * <pre>{@code
 * Functions fns = ConsulFunctions.create(taskEnv, Clock.systemUTC())   // Go's builtins + consul-template's common ones
 *         .with("nomadVar", args -> variables.read(args.string(0)));  // the client plugs its data sources in
 * Template t = Template.parse("config.tpl", text, TemplateOptions.defaults().withFunctions(fns)
 *         .withMissingKey(MissingKey.ERROR));                         // error_on_missing_key
 * String out = t.execute(Map.of("Port", 8080));
 * }</pre>
 *
 * Data is plain Java: {@link java.util.Map}s (fields by string key), {@link java.util.List}s and arrays, records
 * (components by name), {@link io.caravan.template.Accessible} objects, strings, booleans and numbers (integral
 * types behave as Go's {@code int}, floating ones as {@code float64}), and {@link TemplateFunction}s (for
 * {@code call}). Errors are {@link TemplateException}s positioned as {@code template: NAME:LINE:COL: ...}.
 *
 * <h2>Differences from Go</h2>
 * <ul>
 *   <li>Execution is bounded: a step budget, an output budget and a limit on nested {@code template} calls
 *       ({@link TemplateOptions}). Go has no step or output limit (its only bound is a template depth of 100000).</li>
 *   <li>Parse errors carry a column as well as a line (Go gives only the line); columns count from 0, as in
 *       Go's execution errors.</li>
 *   <li>Complex numbers parse but cannot be evaluated; there are no typed nil pointers, channels or Go methods:
 *       data objects expose fields and methods through {@link io.caravan.template.Accessible}.</li>
 *   <li>{@code missingkey=zero} gives the zero value of the type of the map's other values (Java maps carry no
 *       element type), or no value for an empty map.</li>
 * </ul>
 */
@Version("1.0.0")
package io.caravan.template;

import org.osgi.annotation.versioning.Version;
