package io.caravan.consensus.internal;

import java.util.concurrent.Callable;

/**
 * Runs code with this bundle's class loader as the thread context class loader. Ratis finds its server
 * implementation, transport and metrics by class name through the TCCL (STACK.md §5); in OSGi the caller's TCCL does
 * not see the jars embedded in this bundle.
 */
final class Tccl {
    private Tccl() {
    }

    static <T> T withBundleLoader(Callable<T> work) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(Tccl.class.getClassLoader());
        try {
            return work.call();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
