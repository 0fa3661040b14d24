package io.caravan.scheduler.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerState;

/** A mutable state for tests; the scheduler only reads it through {@link SchedulerState}. */
public final class InMemoryState implements SchedulerState {
    private long index = 100;
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final Map<String, Node> nodes = new TreeMap<>();
    private final Map<String, Allocation> allocs = new LinkedHashMap<>();
    /** Allocations by node, as the server's state indexes them: tests with tens of thousands stay linear. */
    private final Map<String, Map<String, Allocation>> byNode = new HashMap<>();
    private SchedulerConfiguration configuration = SchedulerConfiguration.DEFAULT;

    public InMemoryState job(Job job) {
        jobs.put(job.namespace() + "/" + job.id(), job);
        index++;
        return this;
    }

    public InMemoryState deleteJob(String namespace, String id) {
        jobs.remove(namespace + "/" + id);
        index++;
        return this;
    }

    public InMemoryState node(Node node) {
        nodes.put(node.id(), node);
        index++;
        return this;
    }

    public InMemoryState deleteNode(String id) {
        nodes.remove(id);
        index++;
        return this;
    }

    public InMemoryState alloc(Allocation alloc) {
        Allocation previous = allocs.put(alloc.id(), alloc);
        if (previous != null && !previous.nodeId().equals(alloc.nodeId())) {
            byNode.get(previous.nodeId()).remove(previous.id());
        }
        byNode.computeIfAbsent(alloc.nodeId(), n -> new LinkedHashMap<>()).put(alloc.id(), alloc);
        index++;
        return this;
    }

    public InMemoryState configuration(SchedulerConfiguration c) {
        this.configuration = c;
        return this;
    }

    public long bump() {
        return ++index;
    }

    public List<Allocation> allAllocs() {
        return new ArrayList<>(allocs.values());
    }

    public Allocation allocById(String id) {
        return allocs.get(id);
    }

    @Override
    public long index() {
        return index;
    }

    @Override
    public Optional<Job> job(String namespace, String jobId) {
        return Optional.ofNullable(jobs.get(namespace + "/" + jobId));
    }

    @Override
    public List<Node> nodes() {
        return new ArrayList<>(nodes.values());
    }

    @Override
    public Optional<Node> node(String nodeId) {
        return Optional.ofNullable(nodes.get(nodeId));
    }

    @Override
    public List<Allocation> allocsByJob(String namespace, String jobId) {
        List<Allocation> out = new ArrayList<>();
        for (Allocation a : allocs.values()) {
            if (a.namespace().equals(namespace) && a.jobId().equals(jobId)) {
                out.add(a);
            }
        }
        out.sort(Comparator.comparing(Allocation::id));
        return out;
    }

    @Override
    public List<Allocation> allocsByNode(String nodeId) {
        return new ArrayList<>(byNode.getOrDefault(nodeId, Map.of()).values());
    }

    @Override
    public SchedulerConfiguration configuration() {
        return configuration;
    }
}
