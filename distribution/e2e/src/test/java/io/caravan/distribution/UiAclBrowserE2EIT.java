package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * Signing in to the web UI of an agent with {@code acl { enabled = true }}: a refused call leads to the sign-in page,
 * a token the cluster does not know is refused there, and the management token signs in and is kept; a one-time
 * token ({@code ?ott=}) that does not exchange is taken out of the address and the sign-in page says why.
 */
class UiAclBrowserE2EIT {
    private static final String MANAGEMENT = UUID.randomUUID().toString();
    private static DevAgent dev;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.startWithAcls("caravan-ui-acl-", MANAGEMENT);
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    @Test
    void signInRefusesABadTokenAndAcceptsTheManagementToken() throws Exception {
        try (Browser browser = Browser.start(dev.agent().address() + "/ui", 1280, 800)) {
            browser.open("/jobs");
            browser.await("the sign-in page", d -> d.getCurrentUrl().endsWith("/ui/settings/tokens"));
            WebElement secret = browser.find("input#secret");
            browser.screenshot("acl-sign-in");

            secret.sendKeys(UUID.randomUUID().toString());
            browser.find(By.xpath("//button[normalize-space()='Sign in']")).click();
            WebElement refused = browser.find("[role='alert']");
            assertTrue(refused.getText().contains("Token not accepted"), refused.getText());
            assertTrue(browser.driver.getCurrentUrl().endsWith("/ui/settings/tokens"));
            assertEquals(null, browser.driver.executeScript("return localStorage.getItem('nomad.token')"),
                    "a refused token is not kept");
            browser.screenshot("acl-refused");

            secret.sendKeys(Keys.chord(Keys.CONTROL, "a"), MANAGEMENT);
            browser.find(By.xpath("//button[normalize-space()='Sign in']")).click();
            browser.await("back on the jobs page", d -> d.getCurrentUrl().endsWith("/ui/jobs"));
            browser.find(".empty, table[aria-label='Jobs']");
            assertTrue(browser.driver.findElements(By.cssSelector("[role='alert']")).isEmpty(),
                    "no error once signed in");
            assertEquals("ACL Token", browser.find(By.cssSelector(".signin-link")).getText());
            browser.screenshot("acl-signed-in");
        }
    }

    @Test
    void aOneTimeTokenThatDoesNotExchangeLeavesTheAddressAndShowsWhy() throws Exception {
        try (Browser browser = Browser.start(dev.agent().address() + "/ui", 1280, 800)) {
            browser.open("/jobs?ott=" + UUID.randomUUID());
            browser.await("the sign-in page", d -> d.getCurrentUrl().endsWith("/ui/settings/tokens"));
            WebElement why = browser.find("[role='alert']");
            assertTrue(why.getText().contains("one-time token could not be exchanged"), why.getText());
            assertTrue(!browser.driver.getCurrentUrl().contains("ott="), "the secret left the address bar");
            assertEquals(null, browser.driver.executeScript("return localStorage.getItem('nomad.token')"));
        }
    }

    /**
     * The Exec tab sends its token in the first frame (ws_handshake): a token that may only read is refused with the
     * reason and the command never runs; the management token runs it.
     */
    @Test
    void theExecTabAuthenticatesInTheFirstFrame() throws Exception {
        AgentProcess agent = dev.agent();
        var run = agent.call("POST", "/v1/jobs", MANAGEMENT, """
                {"Job": {"ID": "exec-ui", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec",
                    "Config": {"command": "/bin/sh", "args": ["-c", "while true; do sleep 1; done"]}}]}]}}
                """);
        assertEquals(200, run.statusCode(), run.body());
        AgentProcess.await("the task runs", java.time.Duration.ofSeconds(60), () -> {
            try {
                var allocs = AgentProcess.JSON.readTree(agent.call("GET", "/v1/job/exec-ui/allocations", MANAGEMENT,
                        null).body());
                return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
            } catch (Exception e) {
                return false;
            }
        });
        String allocId = AgentProcess.JSON.readTree(agent.call("GET", "/v1/job/exec-ui/allocations", MANAGEMENT,
                null).body()).get(0).get("ID").asText();
        String reader = agent.tokenWith(MANAGEMENT, "ui-reader", "namespace \"default\" { policy = \"read\" }");
        java.nio.file.Path refusedMarker = dev.dir().resolve("refused-from-the-ui");
        java.nio.file.Path ranMarker = dev.dir().resolve("ran-from-the-ui");
        try (Browser browser = Browser.start(agent.address() + "/ui", 1280, 800)) {
            browser.open("/jobs");
            browser.driver.executeScript("localStorage.setItem('nomad.token', arguments[0])", reader);
            exec(browser, allocId, "touch " + refusedMarker);
            browser.await("the refusal is shown", d -> d.findElement(By.cssSelector("pre[aria-label='Exec output']"))
                    .getText().contains("[refused: Permission denied]"));
            assertTrue(!java.nio.file.Files.exists(refusedMarker), "the refused command did not run");
            browser.screenshot("acl-exec-refused");

            browser.driver.executeScript("localStorage.setItem('nomad.token', arguments[0])", MANAGEMENT);
            exec(browser, allocId, "touch " + ranMarker);
            browser.await("the command exits", d -> d.findElement(By.cssSelector("pre[aria-label='Exec output']"))
                    .getText().contains("[exited with code 0]"));
            assertTrue(java.nio.file.Files.exists(ranMarker), "the command ran");
            browser.screenshot("acl-exec-ran");
        } finally {
            agent.call("DELETE", "/v1/job/exec-ui?purge=true", MANAGEMENT, null);
        }
    }

    /** Opens the allocation's Exec tab and connects with {@code command}. */
    private static void exec(Browser browser, String allocId, String command) {
        browser.open("/allocations/" + allocId + "?tab=Exec");
        WebElement input = browser.find("form.log-controls input");
        input.sendKeys(Keys.chord(Keys.CONTROL, "a"), command);
        browser.find(By.xpath("//button[normalize-space()='Connect']")).click();
    }
}
