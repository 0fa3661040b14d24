package io.caravan.bench;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A cluster of real {@code bin/caravan agent} server processes on loopback (bootstrap_expect = size, retry_join on
 * the serf ports, free ports, one temp dir for configs, data, logs and {@code java.io.tmpdir}), for the harnesses
 * that need servers rather than a dev agent (ClusterFailoverBench, RegisterBench --follower, TlsHandshakeBench).
 *
 * <p>With TLS, a CA and one server certificate per server are made with {@code bin/caravan tls ca create} and
 * {@code tls cert create -server} (as seed 002 does), and every server runs {@code tls { rpc = true,
 * verify_server_hostname = true }}: mutual TLS on the RPC and Raft ports, the HTTP API stays plain.
 * {@link #close()} sends SIGTERM to the processes it started (SIGKILL after 20 s) and deletes the dir.
 */
final class Cluster implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    /** One server: its ports (Raft's set, so a harness can reach it), files, and its certificate's directory. */
    record Server(int index, int http, int rpc, int serf, int raft, Path config, Path log, Path certDir) {
        String base() {
            return "http://127.0.0.1:" + http;
        }

        String rpcAddress() {
            return "127.0.0.1:" + rpc;
        }

        Path cert() {
            return certDir.resolve("global-server-nomad.pem");
        }

        Path key() {
            return certDir.resolve("global-server-nomad-key.pem");
        }
    }

    final Path home;
    final Path dir;
    final List<Server> servers;
    /** The CA certificate with TLS on, else null. */
    final Path ca;
    private final IntFunction<String> javaOpts;
    private final Process[] processes;

    private Cluster(Path home, Path dir, List<Server> servers, Path ca, IntFunction<String> javaOpts) {
        this.home = home;
        this.dir = dir;
        this.servers = servers;
        this.ca = ca;
        this.javaOpts = javaOpts;
        this.processes = new Process[servers.size()];
    }

    /**
     * Writes the configs (and with {@code tls} the certificates), starts every server and returns once all of them
     * name the same leader.
     *
     * @param javaOpts extra JVM options of server i (e.g. a JFR recording), or "" for none
     */
    static Cluster start(Path home, int size, boolean tls, IntFunction<String> javaOpts)
            throws IOException, InterruptedException {
        return start(home, size, tls, javaOpts, "");
    }

    /** @param serverKeys more keys of every server's {@code server} block (JSON members, e.g. heartbeat limits) */
    static Cluster start(Path home, int size, boolean tls, IntFunction<String> javaOpts, String serverKeys)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("caravan-bench-cluster-");
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int[] p = StartupBench.freePorts(4);
            servers.add(new Server(i, p[0], p[1], p[2], p[3], dir.resolve("server" + i + ".json"),
                    dir.resolve("server" + i + ".log"), dir.resolve("pki/server" + i)));
        }
        Cluster cluster = new Cluster(home, dir, servers, tls ? dir.resolve("pki/nomad-agent-ca.pem") : null,
                javaOpts);
        try {
            if (tls) {
                cluster.certificates();
            }
            String join = servers.stream().map(s -> "\"127.0.0.1:" + s.serf() + "\"").collect(Collectors.joining(","));
            for (Server s : servers) {
                String tlsBlock = !tls ? "" : """
                        ,
                         "tls": {"rpc": true, "verify_server_hostname": true,
                                 "ca_file": "%s", "cert_file": "%s", "key_file": "%s"}"""
                        .formatted(cluster.ca, s.cert(), s.key());
                Files.writeString(s.config(), """
                        {"name": "server%d", "data_dir": "%s", "bind_addr": "127.0.0.1",
                         "advertise": {"http": "127.0.0.1", "rpc": "127.0.0.1", "serf": "127.0.0.1"},
                         "ports": {"http": %d, "rpc": %d, "serf": %d, "raft": %d},
                         "server": {"enabled": true, "bootstrap_expect": %d,
                                    "server_join": {"retry_join": [%s], "retry_interval": "1s"}%s}%s}
                        """.formatted(s.index(), dir.resolve("data" + s.index()), s.http(), s.rpc(), s.serf(),
                        s.raft(), size, join, serverKeys.isEmpty() ? "" : ", " + serverKeys, tlsBlock));
            }
            for (Server s : servers) {
                cluster.start(s);
            }
            cluster.awaitLeader(servers, null);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** A CA and one server certificate per server, by Caravan's own tool, each in a directory of its own. */
    private void certificates() throws IOException, InterruptedException {
        Path pki = Files.createDirectories(ca.getParent());
        caravan(pki, "tls", "ca", "create");
        for (Server s : servers) {
            caravan(Files.createDirectories(s.certDir()), "tls", "cert", "create", "-server",
                    "-ca", ca.toString(), "-key", pki.resolve("nomad-agent-ca-key.pem").toString());
        }
    }

    private void caravan(Path workdir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/caravan").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(workdir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("caravan " + String.join(" ", args) + " failed: "
                    + new String(out, StandardCharsets.UTF_8));
        }
    }

    /** Starts (or starts again, on its data) one server. */
    void start(Server s) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/caravan").toString(), "agent", "-config",
                s.config().toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(s.log().toFile()));
        pb.environment().put("CARAVAN_JAVA_OPTS", ("-Djava.io.tmpdir=" + dir + " " + javaOpts.apply(s.index())).trim());
        processes[s.index()] = pb.start();
    }

    /** kill -9, and waits (bounded) until the process is gone. */
    void kill(Server s) throws InterruptedException {
        processes[s.index()].destroyForcibly();
        processes[s.index()].waitFor(30, TimeUnit.SECONDS);
    }

    /** bin/caravan execs java, so this is the server JVM's PID. */
    long pid(Server s) {
        return processes[s.index()].pid();
    }

    boolean alive() {
        return Stream.of(processes).allMatch(p -> p != null && p.isAlive());
    }

    /** User + system CPU time of all servers so far. */
    long cpuMs() {
        return servers.stream().mapToLong(s -> StartupBench.cpuMs(pid(s))).sum();
    }

    /**
     * CPU time so far of the servers' live threads, summed by thread name with digits and ids folded (Linux keeps 15
     * characters of a name; threads that ended are not in it), from /proc/PID/task/TID/stat: where the CPU went,
     * including what a JFR sample cannot see (JIT compilers, GC, native code).
     */
    Map<String, Long> threadCpuMs() {
        Map<String, Long> out = new TreeMap<>();
        for (Server s : servers) {
            File[] tasks = new File("/proc/" + pid(s) + "/task").listFiles();
            for (File task : tasks == null ? new File[0] : tasks) {
                try {
                    String name = Files.readString(task.toPath().resolve("comm")).trim()
                            .replaceAll("[0-9a-f]{8}-[0-9a-f-]*|[0-9a-f]{8,}|\\d+", "#");
                    String stat = Files.readString(task.toPath().resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10, Long::sum);
                } catch (IOException | RuntimeException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }

    Server byRpc(String rpc) {
        return servers.stream().filter(s -> rpc.equals(s.rpcAddress())).findFirst()
                .orElseThrow(() -> new IllegalStateException("leader " + rpc + " is not one of the servers"));
    }

    Server leader() throws InterruptedException {
        return byRpc(awaitLeader(servers, null));
    }

    /** A server that is not the leader (all servers agree on the leader first). */
    Server follower() throws InterruptedException {
        Server leader = leader();
        return servers.stream().filter(s -> s != leader).findFirst()
                .orElseThrow(() -> new IllegalStateException("a cluster of one has no follower"));
    }

    /** Polls until every given server names the same leader, other than {@code not}; returns its RPC address. */
    String awaitLeader(List<Server> among, String not) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> leaders = among.stream().map(Cluster::leaderOf).distinct().toList();
            if (leaders.size() == 1 && !leaders.get(0).isEmpty() && !leaders.get(0).equals(not)) {
                return leaders.get(0);
            }
            for (Server s : among) {
                if (processes[s.index()] != null && !processes[s.index()].isAlive()) {
                    throw new IllegalStateException("server" + s.index() + " exited with "
                            + processes[s.index()].exitValue() + tail(s, 30));
                }
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no leader within " + WAIT + tail(among.get(0), 30));
    }

    private static String leaderOf(Server s) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/v1/status/leader"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body().replace("\"", "").trim() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** WARN/ERROR/exception lines of every server's log (at most {@code max} each), prefixed with the server. */
    List<String> problems(int max) {
        List<String> out = new ArrayList<>();
        for (Server s : servers) {
            DevAgent.problems(s.log(), max).forEach(l -> out.add("server" + s.index() + ": " + l));
        }
        return out;
    }

    String tail(Server s, int n) {
        return DevAgent.tail(s.log(), n);
    }

    /** SIGTERM to every server it started, up to 20 s for their shutdown, then SIGKILL; then the temp dir goes. */
    @Override
    public void close() throws InterruptedException {
        try {
            for (Process p : processes) {
                if (p != null) {
                    p.destroy();
                }
            }
            for (Process p : processes) {
                if (p != null && !p.waitFor(20, TimeUnit.SECONDS)) {
                    System.err.println("warning: server " + p.pid() + " did not stop within 20 s of SIGTERM; killing it");
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            }
        } finally {
            DevAgent.deleteTree(dir);
        }
    }
}
