package io.caravan.server.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.Node;
import io.caravan.state.Codec;
import io.caravan.state.IndexSpec;
import io.caravan.state.TableCodec;
import io.caravan.state.TableSpec;

/**
 * Nomad's tables on the generic state store. Namespaced objects are keyed {@code namespace\0id}, so one namespace
 * is a key prefix and Nomad's {@code prefix} queries are prefix scans; versions sort by a zero-padded number.
 */
final class NomadTables {
    static final TableSpec<Job> JOBS = TableSpec.of("jobs", Job.class, j -> key(j.namespace(), j.id()));
    static final TableSpec<Job> JOB_VERSIONS = TableSpec.of("job_version", Job.class,
            j -> key(j.namespace(), j.id()) + "\0" + String.format("%020d", j.version()));
    static final TableSpec<JobSummary> JOB_SUMMARIES = TableSpec.of("job_summary", JobSummary.class,
            s -> key(s.namespace(), s.jobId()));
    static final TableSpec<Evaluation> EVALS = TableSpec.of("evals", Evaluation.class, Evaluation::id)
            .withIndex(IndexSpec.single("job", e -> key(e.namespace(), e.jobId())));
    static final TableSpec<Allocation> ALLOCS = TableSpec.of("allocs", Allocation.class, Allocation::id)
            .withIndex(IndexSpec.single("job", a -> key(a.namespace(), a.jobId())))
            .withIndex(IndexSpec.single("node", Allocation::nodeId))
            .withIndex(IndexSpec.single("eval", Allocation::evalId));
    static final TableSpec<Node> NODES = TableSpec.of("nodes", Node.class, Node::id);
    static final TableSpec<SchedulerConfig> SCHEDULER_CONFIG = TableSpec.of("scheduler_config",
            SchedulerConfig.class, c -> SchedulerConfig.KEY);

    static final List<TableSpec<?>> ALL = List.of(JOBS, JOB_VERSIONS, JOB_SUMMARIES, EVALS, ALLOCS, NODES,
            SCHEDULER_CONFIG);

    /** Snapshots hold each row as Nomad's JSON: readable, and the same shape the API serves. */
    static final Codec CODEC = Codec.of(json(JOBS), json(JOB_VERSIONS), json(JOB_SUMMARIES), json(EVALS),
            json(ALLOCS), json(NODES), json(SCHEDULER_CONFIG));

    private NomadTables() {
    }

    static String key(String namespace, String id) {
        return namespace + "\0" + id;
    }

    private static <T> TableCodec<T> json(TableSpec<T> table) {
        return new TableCodec<>(table, row -> {
            try {
                return NomadJson.mapper().writeValueAsBytes(row);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, bytes -> {
            try {
                return NomadJson.mapper().readValue(bytes, table.type());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
