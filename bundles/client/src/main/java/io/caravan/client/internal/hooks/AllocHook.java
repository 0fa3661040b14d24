package io.caravan.client.internal.hooks;

import io.caravan.api.model.Allocation;

/** An alloc runner hook; see {@link TaskHook}. */
public interface AllocHook {
    String name();

    /** Before any task starts; an exception fails every task of the allocation. */
    interface Prerun extends AllocHook {
        void prerun(Allocation alloc, AllocDir dir) throws Exception;
    }

    /** After every task is dead. */
    interface Postrun extends AllocHook {
        void postrun(Allocation alloc, AllocDir dir);
    }

    /** When the allocation leaves the client (garbage collected by the servers): remove what it left behind. */
    interface Destroy extends AllocHook {
        void destroy(Allocation alloc, AllocDir dir);
    }
}
