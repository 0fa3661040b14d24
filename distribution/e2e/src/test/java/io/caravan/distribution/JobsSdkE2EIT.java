package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.hashicorp.nomad.apimodel.Evaluation;
import com.hashicorp.nomad.apimodel.Job;
import com.hashicorp.nomad.apimodel.JobListStub;
import com.hashicorp.nomad.apimodel.Task;
import com.hashicorp.nomad.apimodel.TaskGroup;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import com.hashicorp.nomad.javasdk.NomadException;
import com.hashicorp.nomad.javasdk.QueryOptions;
import com.hashicorp.nomad.javasdk.ServerQueryResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Jobs through the official Nomad Java SDK: register, read, list, block, deregister — all through Raft. */
class JobsSdkE2EIT {
    private static AgentProcess agent;
    private static NomadApiClient nomad;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("caravan-jobs-");
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
    }

    private static Job job(String id) {
        Task task = new Task().setName("server").setDriver("raw_exec")
                .setConfig(Map.of("command", "/bin/sleep", "args", List.of("30")));
        TaskGroup group = new TaskGroup().setName("web").setCount(1).setTasks(List.of(task));
        return new Job().setId(id).setName(id).setType("service").setDatacenters(List.of("dc1"))
                .setTaskGroups(List.of(group));
    }

    private static String register(Job job) throws Exception {
        return register(nomad, job);
    }

    /** The first write may wait for the one-server Raft group to elect itself. */
    private static String register(NomadApiClient client, Job job) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return client.getJobsApi().register(job).getValue();
            } catch (NomadException e) {
                if (System.nanoTime() > deadline || !e.getMessage().contains("No cluster leader")) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void aDevAgentRestartedOnTheSameDataDirKeepsItsJobs() throws Exception {
        Path dir = Files.createTempDirectory("caravan-restart-");
        Path dataDir = dir.resolve("data");
        String keys = ", \"data_dir\": \"" + dataDir + "\"";
        String evalId;
        try (AgentProcess first = AgentProcess.startDev(dir, keys, "first.log");
             NomadApiClient client = new NomadApiClient(new NomadApiConfiguration.Builder()
                     .setAddress(first.address()).build())) {
            evalId = register(client, job("survivor"));
            first.process.destroy();
            assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, first.process.exitValue(), first.log());
        }
        try (AgentProcess second = AgentProcess.startDev(dir, keys, "second.log");
             NomadApiClient client = new NomadApiClient(new NomadApiConfiguration.Builder()
                     .setAddress(second.address()).build())) {
            Job job = awaitJob(client, "survivor");
            assertEquals("survivor", job.getId());
            // The restarted client re-registers its node, which adds a node-update evaluation for the job.
            assertTrue(client.getJobsApi().evaluations("survivor").getValue().stream()
                    .anyMatch(e -> e.getId().equals(evalId)), "the register's evaluation survived the restart");
        }
    }

    /** The restarted server replays its log once it has elected itself; reads before that see an empty store. */
    private static Job awaitJob(NomadApiClient client, String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return client.getJobsApi().info(id).getValue();
            } catch (NomadException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void curlStyleRegistersAndListPagingAndFiltering() throws Exception {
        for (int i = 1; i <= 3; i++) {
            String body = "{\"Job\":{\"ID\":\"curl-" + i + "\",\"Priority\":" + (i * 10 + 40) + ",\"TaskGroups\":"
                    + "[{\"Name\":\"g\",\"Tasks\":[{\"Name\":\"t\",\"Driver\":\"raw_exec\"}]}]}}";
            java.net.http.HttpResponse<String> r = agent.putForm("/v1/jobs", body);
            assertEquals(200, r.statusCode(), r.body());
        }
        java.net.http.HttpResponse<String> first = agent.get("/v1/jobs?prefix=curl-&per_page=2");
        assertEquals(200, first.statusCode());
        assertTrue(first.body().contains("\"ID\":\"curl-1\"") && first.body().contains("\"ID\":\"curl-2\""),
                first.body());
        String token = first.headers().firstValue("X-Nomad-Nexttoken").orElse(null);
        assertEquals("default.curl-3", token);
        java.net.http.HttpResponse<String> second = agent.get("/v1/jobs?prefix=curl-&per_page=2&next_token="
                + java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(second.body().contains("\"ID\":\"curl-3\"") && !second.body().contains("curl-1"), second.body());
        assertTrue(second.headers().firstValue("X-Nomad-Nexttoken").isEmpty());

        java.net.http.HttpResponse<String> filtered = agent.get("/v1/jobs?filter="
                + java.net.URLEncoder.encode("Priority == 60 and ID matches \"^curl\"",
                        java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(200, filtered.statusCode(), filtered.body());
        assertTrue(filtered.body().contains("\"ID\":\"curl-2\"") && !filtered.body().contains("curl-1"),
                filtered.body());
        java.net.http.HttpResponse<String> bad = agent.get("/v1/jobs?filter=Priority%20%3D%3D");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().startsWith("failed to read filter expression"), bad.body());
    }

    @Test
    void jobsRoundTripThroughTheSdk() throws Exception {
        String evalId = register(job("sdk-web"));
        assertFalse(evalId.isEmpty());

        Job stored = nomad.getJobsApi().info("sdk-web").getValue();
        assertEquals("sdk-web", stored.getId());
        assertEquals(50, stored.getPriority());
        assertEquals("default", stored.getNamespace());
        assertEquals(BigInteger.ZERO, stored.getVersion());
        assertTrue(List.of("pending", "running").contains(stored.getStatus()), stored.getStatus());
        assertEquals("server", stored.getTaskGroups().get(0).getTasks().get(0).getName());

        ServerQueryResponse<List<JobListStub>> list = nomad.getJobsApi().list();
        assertTrue(list.getValue().stream().anyMatch(s -> s.getId().equals("sdk-web")), list.getRawEntity());
        assertTrue(list.getIndex().signum() > 0, "X-Nomad-Index is the jobs table's Raft index");

        assertEquals(1, nomad.getJobsApi().versions("sdk-web").getValue().getVersions().size());
        AgentProcess.await("the dev agent's client runs the job", Duration.ofSeconds(30), () -> {
            try {
                return nomad.getJobsApi().summary("sdk-web").getValue().getSummary().get("web").getRunning() == 1;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertEquals("running", nomad.getJobsApi().info("sdk-web").getValue().getStatus());

        // The register's evaluation; the deployment the default update strategy gave the job adds one of its own
        // (triggered by the deployment watcher) once the allocation is healthy.
        List<Evaluation> evals = nomad.getJobsApi().evaluations("sdk-web").getValue().stream()
                .filter(e -> !"deployment-watcher".equals(e.getTriggeredBy())).toList();
        assertEquals(1, evals.size());
        assertEquals(evalId, evals.get(0).getId());
        assertEquals("complete", evals.get(0).getStatus());
        assertEquals("job-register", evals.get(0).getTriggeredBy());

        // A blocking query returns as soon as a write passes its index (taken now: the job's status moved since).
        BigInteger index = nomad.getJobsApi().list().getIndex();
        CompletableFuture<ServerQueryResponse<List<JobListStub>>> blocked = CompletableFuture.supplyAsync(() -> {
            try {
                return nomad.getJobsApi().list(new QueryOptions<List<JobListStub>>().setIndex(index)
                        .setWaitStrategy(new com.hashicorp.nomad.javasdk.WaitStrategy() {
                            @Override
                            public String getWait() {
                                return "30s";
                            }
                        }));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertFalse(blocked.isDone(), "nothing changed yet: the query waits");
        register(job("sdk-other"));
        ServerQueryResponse<List<JobListStub>> woken = blocked.get(20, TimeUnit.SECONDS);
        assertTrue(woken.getIndex().compareTo(index) > 0);
        assertTrue(woken.getValue().stream().anyMatch(s -> s.getId().equals("sdk-other")), woken.getRawEntity());

        nomad.getJobsApi().deregister("sdk-web", true);
        NomadException gone = assertThrows(NomadException.class, () -> nomad.getJobsApi().info("sdk-web"));
        assertTrue(gone.getMessage().contains("404"), gone.getMessage());
    }
}
