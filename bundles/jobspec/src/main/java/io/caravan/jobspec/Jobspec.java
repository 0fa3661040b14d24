package io.caravan.jobspec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A parsed job in Nomad's API JSON shape (the {@code Job} object of {@code POST /v1/jobs}). The node is the
 * parser's own and mutable; copy it ({@link ObjectNode#deepCopy()}) before sharing it.
 */
public record Jobspec(ObjectNode job) {

    public Jobspec {
        Objects.requireNonNull(job, "job");
    }

    /** The job's {@code ID} (an HCL job always has one: its label). */
    public String id() {
        JsonNode id = job.get("ID");
        return id == null || id.isNull() ? job.path("Name").asText(null) : id.asText();
    }

    /** {@code {"Job": job}}: the body of {@code POST /v1/jobs} and of {@code POST /v1/validate/job}. */
    public ObjectNode toRegisterRequest() {
        ObjectNode wrapper = JsonNodeFactory.instance.objectNode();
        wrapper.set("Job", job);
        return wrapper;
    }
}
