package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three servers. A write through the leader, then at once writes through the followers that depend on it: their
 * checks (the job exists) must see the write the leader acknowledged, though a follower's own state may lag it (a
 * server waits for its state to be current before any write route runs), never answer a false 404.
 */
class FollowerWritesE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int ROUNDS = 50;

    @TempDir
    Path tmp;

    private final List<AgentProcess> servers = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AgentProcess a : servers) {
            a.close();
        }
    }

    @Test
    void writesThroughFollowersSeeWhatTheLeaderJustAcknowledged() throws Exception {
        List<Ports> ports = ServerFiles.ports(3);
        for (int i = 0; i < 3; i++) {
            Path config = tmp.resolve("server" + (i + 1) + ".hcl");
            Files.writeString(config, ServerFiles.serverConfig(tmp, i + 1, ports.get(i), ports, null));
            servers.add(AgentProcess.start(config, tmp.resolve("server" + (i + 1) + ".log"), ports.get(i).http(),
                    ports.get(i).rpc()));
        }
        AgentProcess.await("the three servers agree on a leader", WAIT, () -> {
            Set<String> leaders = servers.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("");
        });
        int leaderIndex = ServerFiles.indexOf(ports, ServerFiles.leaderOf(servers.get(0)));
        AgentProcess leader = servers.get(leaderIndex);
        AgentProcess follower = servers.get((leaderIndex + 1) % 3);
        AgentProcess other = servers.get((leaderIndex + 2) % 3);

        List<String> failures = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            String id = "follow-" + i;
            HttpResponse<String> registered = leader.putForm("/v1/jobs", """
                    {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                      "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}
                    """.formatted(id));
            assertEquals(200, registered.statusCode(), registered.body());
            HttpResponse<String> stable = follower.putForm("/v1/job/" + id + "/stable",
                    "{\"JobID\": \"%s\", \"JobVersion\": 0, \"Stable\": true}".formatted(id));
            if (stable.statusCode() != 200) {
                failures.add(id + " stable through a follower: " + stable.statusCode() + " " + stable.body());
            }
            HttpResponse<String> stopped = other.delete("/v1/job/" + id + "?purge=true");
            if (stopped.statusCode() != 200) {
                failures.add(id + " stop through a follower: " + stopped.statusCode() + " " + stopped.body());
            }
        }
        assertEquals(List.of(), failures, failures.size() + " of " + 2 * ROUNDS + " writes through followers failed");
    }
}
