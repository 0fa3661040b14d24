package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskEvent;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskHooksTest {
    @TempDir
    Path dir;

    private final Node node = Fixtures.node("node-uuid-1", Map.of("kernel.name", "linux",
            "unique.network.ip-address", "10.0.0.7"), Map.of("rack", "r1"));

    @Test
    void allocAndTaskDirectoriesFollowNomadsLayout() throws Exception {
        Allocation alloc = Fixtures.alloc("n1", "web", "service", Map.of(), Fixtures.shTask("server", "true"));
        AllocDir allocDir = AllocDir.of(dir, alloc.id());
        new AllocDirHook().prerun(alloc, allocDir);
        List<TaskEvent> events = new ArrayList<>();
        TaskHookContext ctx = context(alloc, allocDir, events);
        new TaskDirHook().prestart(ctx);

        Path root = dir.resolve(alloc.id());
        for (String sub : List.of("alloc/data", "alloc/logs", "alloc/tmp", "server/local", "server/secrets",
                "server/tmp")) {
            assertTrue(Files.isDirectory(root.resolve(sub)), sub);
        }
        assertEquals(TaskEvent.TASK_SETUP, events.get(0).type());
        assertEquals("Building Task Directory", events.get(0).displayMessage());

        new AllocDirHook().destroy(alloc, allocDir);
        assertFalse(Files.exists(root));
    }

    @Test
    void environmentHasNomadVariablesMetaPortsAndCaravanAliases() {
        Map<String, Object> task = Fixtures.shTask("server", "true");
        task.put("Env", Map.of("GREETING", "hello ${NOMAD_TASK_NAME} on ${attr.kernel.name}",
                "WHERE", "${node.datacenter}/${meta.rack}"));
        task.put("Meta", Map.of("tier", "front"));
        task.put("Resources", Map.of("CPU", 250, "MemoryMB", 128));
        Allocation alloc = withPorts(Fixtures.alloc("n1", "web", "service", Map.of("Meta", Map.of("team", "a")),
                task));
        AllocDir allocDir = AllocDir.of(dir, alloc.id());

        Map<String, String> env = TaskEnvBuilder.build(alloc, alloc.job().taskGroups().get(0).tasks().get(0), node,
                allocDir);

        assertEquals(alloc.id(), env.get("NOMAD_ALLOC_ID"));
        assertEquals("web.g[0]", env.get("NOMAD_ALLOC_NAME"));
        assertEquals("0", env.get("NOMAD_ALLOC_INDEX"));
        assertEquals("web", env.get("NOMAD_JOB_ID"));
        assertEquals("web", env.get("NOMAD_JOB_NAME"));
        assertEquals("g", env.get("NOMAD_GROUP_NAME"));
        assertEquals("server", env.get("NOMAD_TASK_NAME"));
        assertEquals("default", env.get("NOMAD_NAMESPACE"));
        assertEquals("global", env.get("NOMAD_REGION"));
        assertEquals("dc1", env.get("NOMAD_DC"));
        assertEquals(allocDir.shared().toString(), env.get("NOMAD_ALLOC_DIR"));
        assertEquals(allocDir.taskLocal("server").toString(), env.get("NOMAD_TASK_DIR"));
        assertEquals(allocDir.taskSecrets("server").toString(), env.get("NOMAD_SECRETS_DIR"));
        assertEquals("250", env.get("NOMAD_CPU_LIMIT"));
        assertEquals("128", env.get("NOMAD_MEMORY_LIMIT"));
        assertEquals("front", env.get("NOMAD_META_tier"));
        assertEquals("front", env.get("NOMAD_META_TIER"));
        assertEquals("a", env.get("NOMAD_META_team"));
        assertEquals("ops", env.get("NOMAD_META_OWNER"));
        assertEquals("23456", env.get("NOMAD_PORT_http"));
        assertEquals("23456", env.get("NOMAD_HOST_PORT_http"));
        assertEquals("10.0.0.7", env.get("NOMAD_IP_http"));
        assertEquals("10.0.0.7:23456", env.get("NOMAD_ADDR_http"));
        assertEquals("8080", env.get("NOMAD_PORT_admin_ui"), "label cleaned to a valid name; 'to' is the mapped port");
        assertEquals("hello server on linux", env.get("GREETING"));
        assertEquals("dc1/r1", env.get("WHERE"));
        assertEquals(alloc.id(), env.get("CARAVAN_ALLOC_ID"));
        assertEquals("23456", env.get("CARAVAN_PORT_http"));
    }

    @Test
    void configStringsAreInterpolatedRecursively() {
        Map<String, Object> task = Fixtures.shTask("server", "echo ${NOMAD_ALLOC_ID} ${node.unique.id}");
        task.put("Config", Map.of("command", "sh", "args", List.of("-c", "echo ${NOMAD_ALLOC_ID} ${node.unique.id}"),
                "nested", Map.of("k", "${node.unique.name}/${node.class}/${env[\"NOMAD_JOB_ID\"]}/${unknown.thing}"),
                "n", 3));
        Allocation alloc = Fixtures.alloc("n1", "web", "service", Map.of(), task);
        TaskHookContext ctx = context(alloc, AllocDir.of(dir, alloc.id()), new ArrayList<>());
        new TaskEnvHook().prestart(ctx);

        assertEquals(List.of("-c", "echo " + alloc.id() + " node-uuid-1"), ctx.config().get("args"));
        assertEquals(Map.of("k", "node-1/linux-small/web/${unknown.thing}"), ctx.config().get("nested"));
        assertEquals(3, ctx.config().get("n"));
    }

    private TaskHookContext context(Allocation alloc, AllocDir allocDir, List<TaskEvent> events) {
        return new TaskHookContext(alloc, alloc.job().taskGroups().get(0).tasks().get(0), node, allocDir,
                new TaskEvents(Clock.systemUTC()), events::add);
    }

    /** Group ports as the scheduler fills them: a dynamic "http" and a mapped "admin-ui". */
    private static Allocation withPorts(Allocation alloc) {
        @SuppressWarnings("unchecked")
        Map<String, Object> json = NomadJson.mapper().convertValue(alloc, LinkedHashMap.class);
        json.put("AllocatedResources", Map.of("Shared", Map.of(
                "Networks", List.of(Map.of("Mode", "host", "IP", "10.0.0.7")),
                "Ports", List.of(Map.of("Label", "http", "Value", 23456, "To", 0, "HostIP", "10.0.0.7"),
                        Map.of("Label", "admin-ui", "Value", 24000, "To", 8080, "HostIP", "10.0.0.7")))));
        return NomadJson.mapper().convertValue(json, Allocation.class);
    }
}
