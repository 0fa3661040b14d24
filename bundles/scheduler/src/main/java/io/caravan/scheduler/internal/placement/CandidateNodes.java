package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import io.caravan.api.model.Node;

/**
 * The nodes a job may use (ready, in its datacenters and pool), in a seeded random order, and a cursor that
 * carries over between placements so that successive placements start where the last one stopped (Nomad's
 * {@code StaticIterator} offset).
 */
public final class CandidateNodes {
    private final List<Node> nodes;
    /** Each candidate's index in the proposed state's node list. */
    private final int[] indexes;
    /** Each candidate's computed class ID ({@link EvalContext#classId}), resolved once for all placements. */
    private final int[] classIds;
    private final Map<String, Integer> byDatacenter;
    private final String pool;
    private int offset;

    CandidateNodes(List<Node> nodes, int[] indexes, int[] classIds, Map<String, Integer> byDatacenter, String pool) {
        this.nodes = nodes;
        this.indexes = indexes;
        this.classIds = classIds;
        this.byDatacenter = byDatacenter;
        this.pool = pool;
    }

    /** No candidates (a stopped job). */
    public static CandidateNodes none(String pool) {
        return new CandidateNodes(List.of(), new int[0], new int[0], new TreeMap<>(), pool);
    }

    public List<Node> nodes() {
        return nodes;
    }

    public int size() {
        return nodes.size();
    }

    public Map<String, Integer> byDatacenter() {
        return byDatacenter;
    }

    public String pool() {
        return pool;
    }

    /** Node {@code i} of a pass that starts at the cursor. */
    Node at(int i) {
        return nodes.get(position(i));
    }

    /** The proposed-state index of node {@code i} of a pass. */
    int indexAt(int i) {
        return indexes[position(i)];
    }

    /** The class ID of node {@code i} of a pass. */
    int classIdAt(int i) {
        return classIds[position(i)];
    }

    /** {@code (offset + i) mod size} for {@code 0 <= i < size}, without a division. */
    private int position(int i) {
        int p = offset + i;
        return p >= indexes.length ? p - indexes.length : p;
    }

    /** Moves the cursor past the {@code visited} nodes of the last pass. */
    void advance(int visited) {
        if (!nodes.isEmpty()) {
            offset = (offset + visited) % nodes.size();
        }
    }

    static List<Node> shuffled(List<Node> nodes, long seed) {
        List<Node> copy = new ArrayList<>(nodes);
        Collections.shuffle(copy, new Random(seed));
        return copy;
    }
}
