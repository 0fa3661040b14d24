/**
 * Nomad's domain model as immutable records with Nomad's JSON shape (see {@code io.caravan.api.json.NomadJson}):
 * jobs and everything under them, evaluations, allocations, nodes, deployments, summaries and list stubs.
 * Durations are {@link java.time.Duration} on the wire as integer nanoseconds ({@link NanoDuration}); Go
 * {@code time.Time} fields are {@link java.time.Instant} as RFC 3339 with nanoseconds ({@link GoTime});
 * Unix-nanosecond fields stay {@code long}. Collections are never null: a null input becomes empty and is written
 * as {@code []}/{@code {}}. Where Go's API type holds a pointer (unset ≠ zero: {@code Job.Priority},
 * {@code Task.KillTimeout}, optional blocks) the component is boxed or nullable and written as {@code null}; durations
 * Go holds by value default to zero. Enum-like values are {@code String} constants, so unknown values round-trip.
 */
@Version("1.2.0")
package io.caravan.api.model;

import org.osgi.annotation.versioning.Version;
