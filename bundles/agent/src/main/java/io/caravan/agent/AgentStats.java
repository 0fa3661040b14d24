package io.caravan.agent;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Part of the {@code Stats} of {@code /v1/agent/self}: a bundle that knows something of this agent at run time (the
 * server side: whether it leads, and who does) adds its keys to a section ({@code nomad}, {@code raft}, …); they
 * replace the agent's own answers from configuration.
 */
@ConsumerType
public interface AgentStats {

    /** The section of {@code Stats}, e.g. {@code nomad}. */
    String section();

    /** The keys and values to report now; read on every request, so keep it cheap. */
    Map<String, String> stats();
}
