package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class BannerTest {
    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    @Test
    void printsNomadsLinesRightAligned() throws Exception {
        AgentSettings s = Configs.dev(tmp, "{}");
        String banner = Banner.render(s, "node-1", "0.1.0", "user \"admin\"");
        for (String line : List.of(
                "==> Loaded configuration from " + tmp.resolve("layer0.json"),
                "       Advertise Addrs: HTTP: 127.0.0.1:4646; RPC: 127.0.0.1:4647; Serf: 127.0.0.1:4648",
                "            Bind Addrs: HTTP: [127.0.0.1:4646]; RPC: 127.0.0.1:4647; Serf: 127.0.0.1:4648",
                "                Client: true",
                "             Log Level: DEBUG",
                "               Node Id: node-1",
                "                Region: global (DC: dc1)",
                "                Server: true",
                "               Version: 0.1.0",
                "==> Caravan agent started! Log data will stream in below:")) {
            assertTrue(banner.contains(line + "\n"), () -> "missing line: " + line + "\n" + banner);
        }
    }
}
