package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;
import io.caravan.api.model.Template;
import org.junit.jupiter.api.Test;

/** Template blocks at registration: Nomad's defaults, and each problem (syntax with line:column) naming its field. */
class TemplateRulesTest {

    private static ObjectNode job(String templates) throws Exception {
        ObjectNode job = JobLimitsTest.job("web", 1);
        ((ObjectNode) job.path("TaskGroups").get(0).path("Tasks").get(0))
                .set("Templates", NomadJson.mapper().readTree(templates));
        return job;
    }

    private static List<String> problems(String templates) throws Exception {
        return Jobs.validate(job(templates)).stream().filter(p -> p.contains(".Templates")).toList();
    }

    @Test
    void aValidTemplateGetsNomadsDefaults() throws Exception {
        Job job = Jobs.canonical(job("[{\"EmbeddedTmpl\": \"{{ with nomadVar \\\"nomad/jobs/web\\\" }}"
                + "{{ .password }}{{ end }}{{ range nomadService \\\"db\\\" }}{{ .Address }}{{ end }}\", "
                + "\"DestPath\": \"local/app.conf\"}]"), "global");
        Template t = job.taskGroups().get(0).tasks().get(0).templates().get(0);
        assertEquals("restart", t.changeMode());
        assertEquals("0644", t.perms());
        assertEquals(Duration.ofSeconds(5), t.splay());
        assertEquals("{{", t.leftDelim());
        assertEquals("}}", t.rightDelim());
        assertEquals(false, t.errMissingKey());
    }

    @Test
    void syntaxErrorsAndUnknownFunctionsNameTheFieldLineAndColumn() throws Exception {
        List<String> problems = problems("[{\"EmbeddedTmpl\": \"a\\nb {{ .x \", \"DestPath\": \"local/a\"}, "
                + "{\"EmbeddedTmpl\": \"{{ key \\\"consul/path\\\" }}\", \"DestPath\": \"local/b\"}, "
                + "{\"EmbeddedTmpl\": \"[[ .x ]] {{ not parsed\", \"DestPath\": \"local/c\", "
                + "\"LeftDelim\": \"[[\", \"RightDelim\": \"]]\"}]");
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("TaskGroups[0].Tasks[0].Templates[0].EmbeddedTmpl: template: "
                + "local/a:2:"), problems.get(0));
        assertTrue(problems.get(1).startsWith("TaskGroups[0].Tasks[0].Templates[1].EmbeddedTmpl: template: "
                + "local/b:1:"), problems.get(1));
        assertTrue(problems.get(1).contains("\"key\" not defined"), problems.get(1));
    }

    @Test
    void escapingPathsAndBadChangeModesAreRefused() throws Exception {
        assertEquals(List.of(
                "TaskGroups[0].Tasks[0].Templates[0].DestPath: destination escapes allocation directory: "
                        + "\"../../etc/passwd\"",
                "TaskGroups[0].Tasks[0].Templates[1].SourcePath: source escapes allocation directory: "
                        + "\"/../../x\"",
                "TaskGroups[0].Tasks[0].Templates[1].ChangeSignal: must specify signal value when change mode is "
                        + "signal",
                "TaskGroups[0].Tasks[0].Templates[2].ChangeScript: must specify script path value when change mode "
                        + "is script",
                "TaskGroups[0].Tasks[0].Templates[3].ChangeMode: change mode must be one of \"noop\", \"restart\", "
                        + "\"signal\", \"script\", not \"reload\"",
                "TaskGroups[0].Tasks[0].Templates[4]: must specify a source path or have an embedded template",
                "TaskGroups[0].Tasks[0].Templates[4].DestPath: must specify a destination for the template"),
                problems("[{\"EmbeddedTmpl\": \"x\", \"DestPath\": \"../../etc/passwd\"},"
                        + "{\"SourcePath\": \"/../../x\", \"DestPath\": \"/local/y\", \"ChangeMode\": \"signal\"},"
                        + "{\"EmbeddedTmpl\": \"x\", \"DestPath\": \"../alloc/shared\", \"ChangeMode\": \"script\"},"
                        + "{\"EmbeddedTmpl\": \"x\", \"DestPath\": \"local/z\", \"ChangeMode\": \"reload\"},"
                        + "{}]"));
    }

    @Test
    void aBadTemplateIsA400() throws Exception {
        CaravanException e = assertThrows(CaravanException.class, () -> Jobs.canonical(
                job("[{\"EmbeddedTmpl\": \"{{ if }}\", \"DestPath\": \"local/a\"}]"), "global"));
        assertTrue(e.getMessage().contains("TaskGroups[0].Tasks[0].Templates[0].EmbeddedTmpl: template: local/a:1:"),
                e.getMessage());
    }
}
