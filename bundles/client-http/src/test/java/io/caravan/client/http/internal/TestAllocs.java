package io.caravan.client.http.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.caravan.api.model.Allocation;
import io.caravan.client.ClientAllocs;
import io.caravan.plugin.api.driver.ExecSession;

/** A client with allocation directories in a temp dir, recording lifecycle calls. */
final class TestAllocs implements ClientAllocs {
    final Map<String, Path> dirs = new ConcurrentHashMap<>();
    /** Each allocation's namespace; {@code default} unless set. */
    final Map<String, String> namespaces = new ConcurrentHashMap<>();
    static final String RUNNING = "still-running";
    final List<String> calls = new ArrayList<>();
    /** What {@link #taskPids} answers for every allocation: the running tasks' processes. */
    final Map<String, List<Long>> pids = new ConcurrentHashMap<>();
    /** What {@link #exec} starts, or null: the driver cannot exec. */
    volatile ExecSession session;
    /** Whether the tasks' driver isolates their filesystem. */
    volatile boolean isolated;
    /** What {@link #alloc} answers, by allocation ID. */
    final Map<String, Allocation> allocations = new ConcurrentHashMap<>();
    /** What {@link #checks} answers for every allocation. */
    final Map<String, Object> checkResults = new ConcurrentHashMap<>();

    @Override
    public String nodeId() {
        return "node-1";
    }

    @Override
    public Set<String> allocIds() {
        return dirs.keySet();
    }

    @Override
    public Optional<Path> allocDir(String allocId) {
        return Optional.ofNullable(dirs.get(allocId));
    }

    @Override
    public Optional<String> namespace(String allocId) {
        return allocDir(allocId).map(dir -> namespaces.getOrDefault(allocId, "default"));
    }

    @Override
    public synchronized void restart(String allocId, String taskName) {
        if (taskName != null && !taskName.equals("web")) {
            throw new IllegalArgumentException("Unknown task \"" + taskName + "\"");
        }
        calls.add("restart " + allocId + " " + taskName);
    }

    @Override
    public Optional<Allocation> alloc(String allocId) {
        return Optional.ofNullable(allocations.get(allocId));
    }

    @Override
    public Map<String, ?> checks(String allocId) {
        return checkResults;
    }

    @Override
    public synchronized boolean gc(String allocId) {
        calls.add("gc " + allocId);
        return !allocId.equals(RUNNING);
    }

    @Override
    public synchronized void signal(String allocId, String taskName, String signal) {
        if ("SIGNOPE".equals(signal)) {
            throw new IllegalStateException("driver cannot send signals");
        }
        calls.add("signal " + allocId + " " + taskName + " " + signal);
    }

    @Override
    public Map<String, List<Long>> taskPids(String allocId) {
        if (!dirs.containsKey(allocId)) {
            throw new IllegalArgumentException("Unknown allocation \"" + allocId + "\"");
        }
        return new java.util.TreeMap<>(pids);
    }

    /** Whether {@link #exec} really runs the command (to completion) before it answers the session. */
    volatile boolean runCommands;

    @Override
    public ExecSession exec(String allocId, String taskName, List<String> argv, boolean tty) {
        if (!dirs.containsKey(allocId)) {
            throw new IllegalArgumentException("Unknown allocation \"" + allocId + "\"");
        }
        if (!taskName.equals("web")) {
            throw new IllegalArgumentException("task \"" + taskName + "\" not found");
        }
        if (session == null) {
            throw new UnsupportedOperationException("exec not supported");
        }
        synchronized (this) {
            calls.add("exec " + allocId + " " + taskName + " " + argv + " tty=" + tty);
        }
        if (runCommands) {
            try {
                new ProcessBuilder(argv).inheritIO().start().waitFor();
            } catch (java.io.IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        return session;
    }

    @Override
    public boolean fsIsolated(String allocId, String taskName) {
        return isolated;
    }
}
