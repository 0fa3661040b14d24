package io.caravan.jobspec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every block a job sets that Caravan does not act on is named, from HCL and from JSON alike; an {@code update} block
 * is acted on (deployments), so it is not.
 */
class JobWarningsTest {

    static final String HCL = """
            job "web" {
              update {
                max_parallel = 2
              }
              group "web" {
                network {
                  mode = "bridge"
                  port "http" {}
                }
                service {
                  name = "web"
                }
                service {
                  name = "web-admin"
                  meta {
                    team = "ops"
                  }
                }
                volume "certs" {
                  type   = "host"
                  source = "certs"
                }
                volume "data" {
                  type   = "csi"
                  source = "data"
                }
                task "app" {
                  driver = "raw_exec"
                  config {
                    command = "/bin/sleep"
                  }
                  template {
                    data        = "x"
                    destination = "local/x"
                  }
                  identity {
                    env = true
                    extra_claims = {
                      team = "web"
                    }
                  }
                  resources {
                    cpu = 100
                  }
                }
              }
            }
            """;

    static final List<String> EXPECTED = List.of(
            "group \"web\" -> service: meta is not supported yet and was ignored (Nomad's native "
                    + "service discovery does not register it (Consul only))",
            "group \"web\": volume block is not supported yet and was ignored (only host volumes are implemented)",
            "group \"web\" -> task \"app\" -> identity: extra_claims is not supported yet and was ignored (extra "
                    + "claims are not added to the signed identity)",
            "group \"web\" -> network: mode is not supported yet and was ignored (tasks share the host's network: "
                    + "bridge and CNI networking are not implemented)");

    @Test
    void anHclJobNamesEachIgnoredBlockByItsPath() {
        JsonNode job = JobspecParser.parse(HCL, "web.nomad").job();
        assertEquals(EXPECTED.stream().sorted().toList(), JobWarnings.unsupported(job).stream().sorted().toList());
    }

    @Test
    void aJsonJobWarnsTheSame() throws Exception {
        JsonNode job = NomadJson.mapper().readTree("""
                {"ID": "web", "Update": {"MaxParallel": 2},
                 "TaskGroups": [{"Name": "web",
                   "Networks": [{"Mode": "bridge", "DynamicPorts": [{"Label": "http"}]}],
                   "Services": [{"Name": "web"}, {"Name": "web-admin", "Meta": {"team": "ops"}}],
                   "Volumes": {"certs": {"Type": "host", "Source": "certs"}, "data": {"Type": "csi", "Source": "data"}},
                   "Tasks": [{"Name": "app", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"},
                     "Templates": [{"EmbeddedTmpl": "x", "DestPath": "local/x"}],
                     "Identity": {"Env": true, "ExtraClaims": {"team": "web"}},
                     "Resources": {"CPU": 100}}]}]}
                """);
        assertEquals(EXPECTED.stream().sorted().toList(), JobWarnings.unsupported(job).stream().sorted().toList());
    }

    @Test
    void zeroValuesAndHostNetworkingAreNotWarnedAbout() throws Exception {
        // Clients that send every field (Go's zero values, empty lists, nulls) set nothing.
        JsonNode job = NomadJson.mapper().readTree("""
                {"ID": "web", "Update": null, "Periodic": null, "VaultToken": "", "Multiregion": {},
                 "TaskGroups": [{"Name": "web", "Services": [], "Networks": [{"Mode": "host"}],
                   "MaxClientDisconnect": null, "EphemeralDisk": {"SizeMB": 300, "Migrate": false},
                   "Tasks": [{"Name": "app", "Templates": null, "Vault": null, "Identity": {"Env": false}}]}]}
                """);
        assertEquals(List.of(), JobWarnings.unsupported(job));
    }

    @Test
    void warningsAreOneStringInNomadsFormat() {
        assertEquals("", JobWarnings.format(List.of()));
        assertEquals("1 warning:\n\n* a", JobWarnings.format(List.of("a")));
        assertEquals("2 warnings:\n\n* a\n* b", JobWarnings.format(List.of("a", "b")));
    }
}
