package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Templates on a real dev agent: a raw_exec shell loop whose templates render a variable and the service list
 * ({@code nomadVar}, {@code nomadService}); a {@code var put} re-renders them, restarting the task
 * ({@code change_mode = "restart"}) or signalling it ({@code change_mode = "signal"}: its {@code trap} writes a
 * marker); a template with a syntax error is refused at registration with its line and column.
 */
class TemplateE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-template-");
        agent = dev.agent();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            try {
                for (String job : List.of("tmpl", "tmpl-db")) {
                    agent.delete("/v1/job/" + job + "?purge=true");
                }
                AgentProcess.await("no allocation runs", WAIT, () -> agent.json("/v1/allocations")
                        .findValues("ClientStatus").stream().noneMatch(s -> s.asText().equals("running")));
            } finally {
                dev.close();
            }
        }
    }

    private static void putVar(String path, String items) throws Exception {
        var response = agent.call("PUT", "/v1/var/" + path, null, "{\"Items\": " + items + "}");
        assertEquals(200, response.statusCode(), response.body());
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static final String JOB = """
            {"Job": {"ID": "tmpl", "Datacenters": ["dc1"],
              "TaskGroups": [{"Name": "web", "Count": 1,
                "RestartPolicy": {"Attempts": 10, "Interval": 600000000000, "Delay": 1000000000, "Mode": "fail"},
                "Tasks": [{"Name": "app", "Driver": "raw_exec",
                  "Config": {"command": "/bin/sh", "args": ["-c", %s]},
                  "Templates": [
                    {"DestPath": "local/config.txt", "ChangeMode": "restart", "Splay": 0,
                     "Wait": {"Min": 0, "Max": 1000000000},
                     "EmbeddedTmpl": %s},
                    {"DestPath": "local/reload.txt", "ChangeMode": "signal", "ChangeSignal": "SIGHUP", "Splay": 0,
                     "Wait": {"Min": 0, "Max": 1000000000},
                     "EmbeddedTmpl": "{{ with nomadVar \\"nomad/jobs/tmpl/web/app\\" }}{{ .reload }}{{ end }}"}]}]}]}}
            """;

    private static final String SCRIPT = "echo start >> \"$NOMAD_ALLOC_DIR/starts\"; "
            + "trap 'cat \"$NOMAD_TASK_DIR/reload.txt\" >> \"$NOMAD_ALLOC_DIR/hups\"' HUP; "
            + "while true; do sleep 1; done";

    private static final String CONFIG = "{{ with nomadVar \"nomad/jobs/tmpl\" }}password={{ .password }}{{ end }}\n"
            + "{{ range nomadService \"tmpl-db\" }}db={{ .Name }} {{ .Address }}:{{ .Port }}\n{{ end }}";

    @Test
    void variablesAndServicesRenderAndChangesRestartOrSignalTheTask() throws Exception {
        putVar("nomad/jobs/tmpl", "{\"password\": \"one\"}");
        putVar("nomad/jobs/tmpl/web/app", "{\"reload\": \"a\"}");
        var db = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "tmpl-db", "Datacenters": ["dc1"],
                  "TaskGroups": [{"Name": "db", "Count": 1,
                    "Networks": [{"DynamicPorts": [{"Label": "db"}]}],
                    "Services": [{"Name": "tmpl-db", "PortLabel": "db", "Provider": "nomad"}],
                    "Tasks": [{"Name": "db", "Driver": "raw_exec",
                      "Config": {"command": "/bin/sh", "args": ["-c", "while true; do sleep 1; done"]}}]}]}}
                """);
        assertEquals(200, db.statusCode(), db.body());
        AgentProcess.await("the db service is registered", WAIT, () -> agent.json("/v1/service/tmpl-db").size() == 1);
        JsonNode service = agent.json("/v1/service/tmpl-db").get(0);
        String address = service.get("Address").asText() + ":" + service.get("Port").asInt();

        var job = agent.putForm("/v1/jobs", JOB.formatted(AgentProcess.JSON.writeValueAsString(SCRIPT),
                AgentProcess.JSON.writeValueAsString(CONFIG)));
        assertEquals(200, job.statusCode(), job.body());
        assertTrue(!job.body().contains("template"), "no warning about templates: " + job.body());
        AgentProcess.await("the templated task runs", WAIT, () -> agent.json("/v1/job/tmpl/allocations")
                .findValues("ClientStatus").stream().anyMatch(s -> s.asText().equals("running")));
        String allocId = agent.json("/v1/job/tmpl/allocations").get(0).get("ID").asText();
        Path allocDir;
        try (var paths = Files.walk(dev.dir(), 4)) {
            allocDir = paths.filter(p -> p.getFileName().toString().equals(allocId) && Files.isDirectory(p.resolve("app")))
                    .findFirst().orElseThrow(() -> new AssertionError("no directory of allocation " + allocId));
        }
        Path config = allocDir.resolve("app/local/config.txt");
        Path starts = allocDir.resolve("alloc/starts");
        Path hups = allocDir.resolve("alloc/hups");
        assertEquals("password=one\ndb=tmpl-db " + address + "\n", read(config));
        AgentProcess.await("the task started once", WAIT, () -> read(starts).equals("start\n"));

        putVar("nomad/jobs/tmpl", "{\"password\": \"two\"}");
        AgentProcess.await("the new password is rendered and the task restarted", WAIT,
                () -> read(config).startsWith("password=two\n") && read(starts).equals("start\nstart\n"));
        AgentProcess.await("the restart is in the task's events", WAIT, () -> agent.json("/v1/allocation/" + allocId)
                .path("TaskStates").path("app").path("Events").findValues("DisplayMessage").stream()
                .anyMatch(m -> m.asText().equals("Template with change_mode restart re-rendered")));

        putVar("nomad/jobs/tmpl/web/app", "{\"reload\": \"b\"}");
        AgentProcess.await("the task is signalled and reads the new file", WAIT, () -> read(hups).equals("b"));
        assertEquals("start\nstart\n", read(starts), "a signal, not a restart");
        JsonNode events = agent.json("/v1/allocation/" + allocId).path("TaskStates").path("app").path("Events");
        assertTrue(events.findValues("DisplayMessage").stream().anyMatch(m -> m.asText()
                .equals("Template re-rendered")), events.toString());
    }

    @Test
    void aTemplateSyntaxErrorIsA400WithItsLineAndColumn() throws Exception {
        ObjectNode body = (ObjectNode) AgentProcess.JSON.readTree(JOB.formatted("\"true\"", "\"ok\\n{{ if }}\""));
        ((ObjectNode) body.path("Job")).put("ID", "tmpl-bad");
        ArrayNode templates = (ArrayNode) body.path("Job").path("TaskGroups").get(0).path("Tasks").get(0)
                .path("Templates");
        templates.remove(1);
        var response = agent.putForm("/v1/jobs", body.toString());
        assertEquals(400, response.statusCode(), response.body());
        assertTrue(response.body().contains("TaskGroups[0].Tasks[0].Templates[0].EmbeddedTmpl: template: "
                + "local/config.txt:2:"), response.body());
    }
}
