package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.caravan.api.CaravanException;
import io.caravan.api.model.Job;
import io.caravan.http.QueryOptions;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;

/**
 * Nomad's namespaces: a table of them, and the rules that keep jobs inside existing ones. {@code default} always
 * exists, as Nomad creates it with the state store: it is served from the table once someone has written it (a new
 * description) and built in until then, so no snapshot or log — including ones written before namespaces were
 * stored — can lack it; it can never be deleted.
 */
final class Namespaces {
    /** Nomad's {@code validNamespaceName}. */
    static final Pattern VALID_NAME = Pattern.compile("^[a-zA-Z0-9-]{1,128}$");
    static final int MAX_DESCRIPTION = 256;

    /**
     * Nomad's namespace as served; Quota, Capabilities and NodePoolConfiguration are refused when set (Caravan has
     * no quotas, driver limits or pool defaults per namespace), so they are always empty here.
     */
    record Namespace(String name, String description, String quota, Object capabilities,
                     Object nodePoolConfiguration, Map<String, String> meta, long createIndex, long modifyIndex) {
        Namespace {
            description = description == null ? "" : description;
            quota = quota == null ? "" : quota;
            meta = meta == null ? Map.of() : Map.copyOf(meta);
        }

        Namespace withIndexes(long createIndex, long modifyIndex) {
            return new Namespace(name, description, quota, capabilities, nodePoolConfiguration, meta, createIndex,
                    modifyIndex);
        }
    }

    /** The built-in {@code default}, at index 1 as Nomad's bootstrap writes it. */
    static final Namespace DEFAULT = new Namespace(QueryOptions.DEFAULT_NAMESPACE, "Default shared namespace", "",
            null, null, Map.of(), 1, 1);

    private Namespaces() {
    }

    static Optional<Namespace> get(StateSnapshot s, String name) {
        Optional<Namespace> stored = s.get(NomadTables.NAMESPACES, name);
        return stored.isPresent() || !DEFAULT.name().equals(name) ? stored : Optional.of(DEFAULT);
    }

    /** Every namespace by name, {@code default} among them. */
    static Stream<Namespace> all(StateSnapshot s) {
        List<Namespace> all = new ArrayList<>(s.all(NomadTables.NAMESPACES).toList());
        if (all.stream().noneMatch(ns -> DEFAULT.name().equals(ns.name()))) {
            all.add(DEFAULT);
        }
        return all.stream().sorted(java.util.Comparator.comparing(Namespace::name));
    }

    /** Nomad's message for a write into a namespace that does not exist. */
    static String missing(String name) {
        return "namespace \"" + name + "\" does not exist";
    }

    /** A 400 unless {@code name} exists: what registering, planning or scaling a job there first checks. */
    static void require(StateSnapshot s, String name) {
        if (get(s, name).isEmpty()) {
            throw CaravanException.badRequest(missing(name));
        }
    }

    /** Nomad's {@code Namespace.Validate}, worded as Nomad's upsert endpoint wraps it; empty when valid. */
    static Optional<String> problem(Namespace ns) {
        String name = ns.name() == null ? "" : ns.name();
        if (!VALID_NAME.matcher(name).matches()) {
            return Optional.of("Invalid namespace \"" + name + "\": invalid name \"" + name + "\". Must match regex "
                    + VALID_NAME.pattern());
        }
        if (ns.description().length() > MAX_DESCRIPTION) {
            return Optional.of("Invalid namespace \"" + name + "\": description longer than " + MAX_DESCRIPTION);
        }
        return Optional.empty();
    }

    // ---- appliers (Fsm) -----------------------------------------------------------------------------------------

    static Command.Result upsert(Fsm.Txn txn, Command.NamespaceUpsert cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (Namespace ns : cmd.namespaces()) {
            long createIndex = state.get(NomadTables.NAMESPACES, ns.name()).map(Namespace::createIndex).orElse(index);
            state.put(NomadTables.NAMESPACES, ns.withIndexes(createIndex, index));
        }
        return Command.Result.ok(index);
    }

    /**
     * Decided again at apply time (the endpoint checked a snapshot): a job registered in between must not be left
     * in a namespace that no longer exists.
     */
    static Command.Result delete(Fsm.Txn txn, Command.NamespaceDelete cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (String name : cmd.names()) {
            Optional<String> refused = refusal(state.read(), name, cmd.region());
            if (refused.isPresent()) {
                return Command.Result.rejected(index, 400, refused.get());
            }
        }
        for (String name : cmd.names()) {
            if (state.get(NomadTables.NAMESPACES, name).isEmpty()) {
                return Command.Result.rejected(index, 404, "Namespace not found");
            }
            state.delete(NomadTables.NAMESPACES, name);
        }
        return Command.Result.ok(index);
    }

    /**
     * Why {@code name} cannot be deleted (Nomad's texts): it is {@code default}, or a job in it is not dead (in
     * {@code region}, the only one a Caravan cluster knows).
     */
    static Optional<String> refusal(StateSnapshot s, String name, String region) {
        if (DEFAULT.name().equals(name)) {
            return Optional.of("can not delete default namespace");
        }
        boolean live = s.prefix(NomadTables.JOBS, NomadTables.key(name, ""))
                .anyMatch(job -> !Job.STATUS_DEAD.equals(job.status()));
        return live ? Optional.of("namespace \"" + name + "\" has non-terminal jobs in regions: [" + region + "]")
                : Optional.empty();
    }
}
