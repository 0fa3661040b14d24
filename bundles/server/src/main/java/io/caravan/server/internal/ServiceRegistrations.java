package io.caravan.server.internal;

import java.util.List;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.state.StateTxn;

/**
 * Applies the service registration commands, and removes the registrations the cluster no longer backs: those of an
 * allocation the servers record as terminal, and those of a node that went down or was deregistered (its client
 * cannot deregister them any more), as Nomad's state store does.
 */
final class ServiceRegistrations {
    private ServiceRegistrations() {
    }

    static Command.Result upsert(Fsm.Txn txn, Command.ServiceRegistrationUpsert cmd) {
        StateTxn state = txn.state();
        for (ServiceRegistration r : cmd.services()) {
            // An allocation stopped between the client's call and this entry: registering it would leave it behind.
            boolean live = state.get(NomadTables.ALLOCS, r.allocId()).map(a -> !a.terminal()).orElse(false);
            if (!live) {
                continue;
            }
            ServiceRegistration was = state.get(NomadTables.SERVICE_REGISTRATIONS, r.id()).orElse(null);
            if (was != null && was.withIndexes(0, 0).equals(r.withIndexes(0, 0))) {
                continue;   // unchanged: the indexes stay, as Nomad's
            }
            state.put(NomadTables.SERVICE_REGISTRATIONS,
                    r.withIndexes(was == null ? txn.index() : was.createIndex(), txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result delete(Fsm.Txn txn, Command.ServiceRegistrationDelete cmd) {
        for (String id : cmd.ids()) {
            txn.state().delete(NomadTables.SERVICE_REGISTRATIONS, id);
        }
        return Command.Result.ok(txn.index());
    }

    /** An allocation was written: once it is terminal its services are gone. */
    static void allocWritten(StateTxn state, Allocation alloc) {
        if (alloc.terminal()) {
            deleteAll(state, state.read().byIndex(NomadTables.SERVICE_REGISTRATIONS, "alloc", alloc.id()).toList());
        }
    }

    /** A node went down or was deregistered. */
    static void nodeGone(StateTxn state, String nodeId) {
        deleteAll(state, state.read().byIndex(NomadTables.SERVICE_REGISTRATIONS, "node", nodeId).toList());
    }

    private static void deleteAll(StateTxn state, List<ServiceRegistration> rows) {
        rows.forEach(r -> state.delete(NomadTables.SERVICE_REGISTRATIONS, r.id()));
    }
}
