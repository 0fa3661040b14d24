package io.caravan.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A client-only agent hosting the node simulator (bench/nodesim), in the cluster's temp dir: its simulated nodes talk
 * to the servers over real RPC, as clients do. SIGTERM (then SIGKILL) on close.
 *
 * @param process the agent ({@code bin/caravan} execs java: its PID is the JVM's)
 */
record SimClientAgent(Process process) implements AutoCloseable {

    /** @param simConfig the simulator's {@code .cfg} lines ({@code nodes = …} and the rest) */
    static SimClientAgent start(Path home, Cluster cluster, Path simJar, String simConfig, String javaOpts)
            throws IOException {
        Path dir = Files.createDirectories(cluster.dir.resolve("simclient"));
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Files.copy(simJar, plugins.resolve(simJar.getFileName()));
        Files.writeString(plugins.resolve("io.caravan.bench.nodesim.cfg"), simConfig);
        int[] p = StartupBench.freePorts(3);
        String servers = String.join(",", cluster.servers.stream().map(s -> "\"" + s.rpcAddress() + "\"")
                .toList());
        Path config = dir.resolve("client.json");
        Files.writeString(config, """
                {"name": "simclient", "data_dir": "%s", "bind_addr": "127.0.0.1", "plugin_dir": "%s",
                 "advertise": {"http": "127.0.0.1", "rpc": "127.0.0.1", "serf": "127.0.0.1"},
                 "ports": {"http": %d, "rpc": %d, "serf": %d},
                 "client": {"enabled": true, "servers": [%s]}}
                """.formatted(dir.resolve("data"), plugins, p[0], p[1], p[2], servers));
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/caravan").toString(), "agent", "-config",
                config.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("client.log").toFile()));
        pb.environment().put("CARAVAN_JAVA_OPTS", ("-Djava.io.tmpdir=" + dir + " " + javaOpts).trim());
        return new SimClientAgent(pb.start());
    }

    boolean alive() {
        return process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
