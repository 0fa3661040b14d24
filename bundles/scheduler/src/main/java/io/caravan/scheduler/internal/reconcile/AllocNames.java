package io.caravan.scheduler.internal.reconcile;

/** Allocation names: {@code <job>.<group>[<index>]}. */
public final class AllocNames {
    private AllocNames() {
    }

    public static String name(String jobId, String group, int index) {
        return jobId + "." + group + "[" + index + "]";
    }

    /** The index in an allocation name, or -1 when the name has none. */
    public static int index(String name) {
        if (name == null || !name.endsWith("]")) {
            return -1;
        }
        int open = name.lastIndexOf('[');
        if (open < 0) {
            return -1;
        }
        try {
            return Integer.parseInt(name, open + 1, name.length() - 1, 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
