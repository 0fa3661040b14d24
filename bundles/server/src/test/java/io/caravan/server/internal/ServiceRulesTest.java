package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

/** The registration-time rules of service and check blocks: each problem names its field. */
class ServiceRulesTest {
    private static final long SECOND = 1_000_000_000L;

    private static List<String> problems(String groupServices, String taskServices) throws Exception {
        ObjectNode job = JobLimitsTest.job("web", 1);
        ObjectNode group = (ObjectNode) job.path("TaskGroups").get(0);
        group.set("Networks", NomadJson.mapper().readTree("[{\"DynamicPorts\": [{\"Label\": \"http\"}]}]"));
        group.set("Services", NomadJson.mapper().readTree(groupServices));
        ((ObjectNode) group.path("Tasks").get(0)).set("Services", NomadJson.mapper().readTree(taskServices));
        return Jobs.validate(job).stream().filter(p -> p.contains(".Services")).toList();
    }

    private static String check(String fields) {
        return "{\"Name\": \"c\", \"Interval\": " + 10 * SECOND + ", \"Timeout\": " + 2 * SECOND + ", " + fields + "}";
    }

    @Test
    void nativeServicesWithDeclaredPortsPass() throws Exception {
        assertEquals(List.of(), problems("[{\"Name\": \"web\", \"PortLabel\": \"http\", \"Provider\": \"nomad\", "
                + "\"Checks\": [" + check("\"Type\": \"http\", \"Path\": \"/\"") + ", "
                + check("\"Type\": \"tcp\", \"PortLabel\": \"8080\"") + "]}]",
                "[{\"Name\": \"t\", \"Checks\": [" + check("\"Type\": \"script\", \"Command\": \"true\"") + "]}]"));
    }

    @Test
    void consulIsRefusedNamingTheField() throws Exception {
        assertEquals(List.of("TaskGroups[0].Services[0].Provider: provider \"consul\" is not supported: there is "
                + "no Consul integration; use provider \"nomad\" (Nomad's native service discovery)"),
                problems("[{\"Name\": \"web\", \"Provider\": \"consul\"}]", "[]"));
    }

    @Test
    void aCheckOnAnUndeclaredPortAndOtherMistakesAreErrors() throws Exception {
        assertEquals(List.of(
                "TaskGroups[0].Services[0].Checks[0].PortLabel: port label \"admin\" is not declared in a network "
                        + "block of the group or task",
                "TaskGroups[0].Services[0].Checks[1].Interval: missing required value interval; it cannot be less "
                        + "than 1s",
                "TaskGroups[0].Services[0].Checks[2].Type: check type \"grpc\" is not run; must be one of \"http\", "
                        + "\"tcp\", \"script\"",
                "TaskGroups[0].Services[0].Checks[3].TaskName: a script check of a group service must name the task "
                        + "it runs in",
                "TaskGroups[0].Tasks[0].Services[0].PortLabel: port label \"nope\" is not declared in a network "
                        + "block of the group or task"),
                problems("[{\"Name\": \"web\", \"PortLabel\": \"http\", \"Checks\": ["
                        + check("\"Type\": \"http\", \"PortLabel\": \"admin\"") + ", "
                        + "{\"Name\": \"fast\", \"Type\": \"tcp\", \"Timeout\": " + SECOND + "}, "
                        + check("\"Type\": \"grpc\"") + ", "
                        + check("\"Type\": \"script\", \"Command\": \"true\"") + "]}]",
                        "[{\"Name\": \"t\", \"PortLabel\": \"nope\"}]"));
    }
}
