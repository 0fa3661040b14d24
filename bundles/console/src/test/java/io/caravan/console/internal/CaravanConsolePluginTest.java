package io.caravan.console.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The Caravan page's HTML: every value escaped (names and reasons come from the cluster and from bundles). */
class CaravanConsolePluginTest {

    private static String render(CaravanView view) {
        StringWriter out = new StringWriter();
        CaravanConsolePlugin.render(view, new PrintWriter(out));
        return out.toString();
    }

    @Test
    void everyValueIsEscaped() {
        String evil = "<script>alert(1)</script>";
        CaravanView view = new CaravanView(new CaravanView.Agent(evil, "server", "global", "dc1", "1", "n", false),
                "10.0.0.1:4647", List.of(new CaravanView.Peer("p", evil, "10.0.0.1:4647", true, true)),
                new CaravanView.NodeState("n", evil, "ready", "eligible", false),
                List.of(new CaravanView.Plugin("raw_exec", "io.caravan.driver.rawexec", "0.1.0", "active", true,
                        true, evil)), List.of(),
                new CaravanView.Reload("2026-01-01T00:00:00Z", List.of(evil), List.of(), List.of("ports.http"),
                        List.of(), null), Map.of("node", evil));
        String html = render(view);
        assertFalse(html.contains("<script>"), html);
        assertTrue(html.contains("&lt;script&gt;"), html);
        assertTrue(html.contains("raw_exec") && html.contains("Raft peers") && html.contains("ports.http"), html);
    }

    @Test
    void aFailedReloadAndMissingPartsAreShown() {
        CaravanView view = new CaravanView(null, "", List.of(), null, List.of(), List.of(),
                new CaravanView.Reload("2026-01-01T00:00:00Z", List.of(), List.of(), List.of(), List.of(),
                        "agent.hcl:3:1: unknown key"), Map.of("peers", "403 Permission denied"));
        String html = render(view);
        assertTrue(html.contains("agent.hcl:3:1: unknown key") && html.contains("403 Permission denied"), html);
        assertTrue(html.contains("none"), html);
    }
}
