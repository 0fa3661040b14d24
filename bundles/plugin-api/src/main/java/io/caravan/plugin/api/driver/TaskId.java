package io.caravan.plugin.api.driver;

/** A task within an allocation; unique on a node. */
public record TaskId(String allocId, String taskName) {
    @Override
    public String toString() {
        return allocId + "/" + taskName;
    }
}
