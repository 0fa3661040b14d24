package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The web UI's main loop in a real (headless) Chromium against a dev agent: a job written in the editor is planned
 * and run, its allocation is watched until it runs, its log shows what the task prints, and the job is stopped;
 * a canary deployment is promoted; and the jobs list and a job's page fit a phone's width. Screenshots go to
 * {@code target/screenshots/}.
 */
class UiBrowserE2EIT {
    private static final String JOB = """
            job "ui-loop" {
              type = "service"
              group "g" {
                task "printer" {
                  driver = "raw_exec"
                  config {
                    command = "/bin/sh"
                    args    = ["-c", "i=0; while true; do echo ui-says-hello-$i; i=$((i+1)); sleep 1; done"]
                  }
                  resources {
                    cpu    = 50
                    memory = 32
                  }
                }
              }
            }
            """;
    private static DevAgent dev;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-ui-browser-");
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static String base() {
        return dev.agent().address() + "/ui";
    }

    @Test
    void runWatchReadLogsAndStopAJobFromTheUi() throws Exception {
        try (Browser browser = Browser.start(base(), 1280, 800)) {
            browser.open("/jobs/run");
            WebElement editor = browser.find("textarea#jobspec");
            editor.sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
            editor.sendKeys(JOB);
            browser.find(By.xpath("//button[normalize-space()='Plan']")).click();
            WebElement plan = browser.find("section[aria-label='Plan']");
            browser.await("the plan places one allocation", d -> plan.getText().contains("1 place"));
            browser.screenshot("run-plan");

            browser.find(By.xpath("//section[@aria-label='Plan']//button[normalize-space()='Run']"))
                    .click();
            browser.await("the job's page", d -> d.getCurrentUrl().endsWith("/ui/jobs/ui-loop"));
            WebElement running = browser.await("an allocation that runs", Duration.ofSeconds(60), d ->
                    d.findElements(By.cssSelector("tr[data-alloc]")).stream()
                            .filter(row -> row.getText().contains("running")).findFirst().orElse(null));
            browser.screenshot("job-running");

            running.findElement(By.cssSelector("a")).click();
            browser.await("the allocation's page", d -> d.getCurrentUrl().contains("/ui/allocations/"));
            browser.find("article.task[data-task='printer']");
            browser.find(By.xpath("//button[@role='tab' and normalize-space()='Logs']")).click();
            WebElement logs = browser.find("pre.logs[data-stream='stdout']");
            browser.await("the task's printed line in its log", d -> logs.getText().contains("ui-says-hello-"));
            String before = logs.getText();
            browser.await("the log follows new lines", d -> !logs.getText().equals(before));
            browser.screenshot("alloc-logs");

            browser.find(By.xpath("//nav[@aria-label='Breadcrumb']/a[normalize-space()='ui-loop']"))
                    .click();
            browser.find("h1 .status");
            browser.find(By.xpath("//button[normalize-space()='Stop Job']")).click();
            browser.await("the confirmation", d -> d.switchTo().alert()).accept();
            browser.await("the job's status dead", Duration.ofSeconds(60), d ->
                    d.findElement(By.cssSelector("h1 .status")).getText().equals("dead"));
            browser.screenshot("job-stopped");
        }
        JsonNode job = dev.agent().json("/v1/job/ui-loop");
        assertEquals("dead", job.path("Status").asText(), job.toString());
        assertTrue(job.path("Stop").asBoolean(), job.toString());
    }

    /** A canary deployment waiting for promotion is promoted from the job's Deployments tab. */
    @Test
    void promoteACanaryDeployment() throws Exception {
        for (int version : List.of(0, 1)) {
            var register = dev.agent().call("POST", "/v1/jobs", null, """
                    {"Job": {"ID": "ui-canary", "Type": "service", "Datacenters": ["dc1"],
                      "Update": {"Canary": 1, "MaxParallel": 1, "MinHealthyTime": 1000000000,
                        "HealthyDeadline": 60000000000, "HealthCheck": "task_states"},
                      "TaskGroups": [{"Name": "web", "Count": 1, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                        "Env": {"V": "%d"}, "Config": {"command": "/bin/sh", "args": ["-c", "sleep 600"]}}]}]}}"""
                    .formatted(version));
            assertEquals(200, register.statusCode(), register.body());
            AgentProcess.await("the deployment of version " + version, Duration.ofSeconds(60), () -> {
                JsonNode latest = dev.agent().json("/v1/job/ui-canary/deployment");
                return latest.path("JobVersion").asInt(-1) == version
                        && (latest.path("Status").asText().equals("successful")
                        || latest.path("StatusDescription").asText().contains("manual promotion"));
            });
        }
        try (Browser browser = Browser.start(base(), 1280, 800)) {
            browser.open("/jobs/ui-canary");
            browser.find(By.xpath("//button[@role='tab' and normalize-space()='Deployments']")).click();
            WebElement first = browser.find("ul.cards > li.card");
            assertTrue(first.getText().contains("requires manual promotion"), first.getText());
            first.findElement(By.xpath(".//button[normalize-space()='Promote']")).click();
            // Promoted through the page's button: the servers see it (a click that landed on a card being rendered
            // again is clicked again; the button is there until the promotion is).
            browser.await("the deployment promoted", Duration.ofSeconds(60), d -> {
                if (dev.agent().json("/v1/job/ui-canary/deployment").path("TaskGroups").path("web").path("Promoted")
                        .asBoolean()) {
                    return true;
                }
                for (WebElement promote : d.findElements(
                        By.xpath("//ul[@class='cards']/li[1]//button[normalize-space()='Promote']"))) {
                    try {
                        promote.click();
                    } catch (org.openqa.selenium.WebDriverException renderedAgain) {
                        // the next poll finds the button again
                    }
                }
                return null;
            });
            browser.await("the deployment succeeds", Duration.ofSeconds(60), d -> d.findElement(
                    By.cssSelector("ul.cards > li.card .status")).getText().equals("successful"));
            browser.screenshot("deployment-promoted");
        }
        JsonNode deployment = dev.agent().json("/v1/job/ui-canary/deployment");
        assertTrue(deployment.path("TaskGroups").path("web").path("Promoted").asBoolean(), deployment.toString());
    }

    @Test
    void jobsListRendersAtAPhonesWidth() throws Exception {
        var register = dev.agent().call("POST", "/v1/jobs", null, """
                {"Job": {"ID": "phone-batch", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""");
        assertEquals(200, register.statusCode(), register.body());
        try (Browser browser = Browser.start(base(), 390, 844)) {
            browser.open("/jobs");
            browser.find("tr[data-job='phone-batch']");
            assertEquals(390L, browser.driver.executeScript("return window.innerWidth"), "a phone's viewport");
            WebElement menu = browser.find(By.cssSelector("button.menu-toggle"));
            assertTrue(menu.isDisplayed(), "the menu button replaces the navigation at a phone's width");
            assertFalse(browser.find(By.cssSelector("nav#nav")).isDisplayed());
            Number overflow = (Number) browser.driver.executeScript(
                    "return document.documentElement.scrollWidth - window.innerWidth");
            assertTrue(overflow.intValue() <= 0, "no sideways scrolling at 390 px: " + overflow + " px too wide");
            browser.screenshot("phone-jobs");
            menu.click();
            List<WebElement> links = browser.driver.findElements(By.cssSelector("nav#nav a"));
            assertTrue(links.stream().anyMatch(l -> l.isDisplayed() && l.getText().equals("Clients")),
                    "the menu opens the navigation");
            browser.screenshot("phone-menu");
            links.stream().filter(l -> l.getText().equals("Jobs")).findFirst().orElseThrow().click();
            browser.find("tr[data-job='phone-batch'] a").click();
            browser.await("the job's page", d -> d.getCurrentUrl().endsWith("/ui/jobs/phone-batch"));
            browser.find("table[aria-label='Task groups']");
            Number jobOverflow = (Number) browser.driver.executeScript(
                    "return document.documentElement.scrollWidth - window.innerWidth");
            assertTrue(jobOverflow.intValue() <= 0, "the job's page fits 390 px: " + jobOverflow + " px too wide");
            browser.screenshot("phone-job");
        }
    }
}
