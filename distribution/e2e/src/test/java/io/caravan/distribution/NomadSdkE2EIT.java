package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.hashicorp.nomad.apimodel.AgentHealthResponse;
import com.hashicorp.nomad.apimodel.AgentSelf;
import com.hashicorp.nomad.apimodel.ServerMembers;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The official Nomad Java SDK, unchanged, against a Caravan dev agent. */
class NomadSdkE2EIT {
    private static Path dir;
    private static AgentProcess agent;
    private static NomadApiClient nomad;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-sdk-");
        agent = AgentProcess.startDev(dir, "");
        nomad = new NomadApiClient(new NomadApiConfiguration.Builder().setAddress(agent.address()).build());
    }

    @AfterAll
    static void stop() throws Exception {
        if (nomad != null) {
            nomad.close();
        }
        if (agent != null) {
            agent.close();
        }
        if (dir != null) {
            AgentProcess.deleteTree(dir);
        }
    }

    @Test
    void agentSelfParsesWithTheSdk() throws Exception {
        AgentSelf self = nomad.getAgentApi().self().getValue();
        assertEquals("global", self.getConfig().get("Region"));
        assertEquals(true, self.getConfig().get("DevMode"));
        assertTrue(self.getMember().getName().endsWith(".global"), self.getMember().getName());
        assertEquals("alive", self.getMember().getStatus());
        assertEquals(Integer.toString(agent.rpc), self.getMember().getTags().get("port"));
        assertEquals("true", self.getStats().get("nomad").get("server"));
    }

    @Test
    void healthMembersAndStatusParseWithTheSdk() throws Exception {
        AgentHealthResponse health = nomad.getAgentApi().health().getValue();
        assertTrue(health.getServer().getOk());
        assertTrue(health.getClient().getOk());

        ServerMembers members = nomad.getAgentApi().members().getValue();
        assertEquals(1, members.getMembers().size());
        assertEquals("alive", members.getMembers().get(0).getStatus());

        assertEquals("127.0.0.1:" + agent.rpc, nomad.getStatusApi().leader().getValue());
        assertEquals(List.of("127.0.0.1:" + agent.rpc), nomad.getStatusApi().peers().getValue());
    }
}
