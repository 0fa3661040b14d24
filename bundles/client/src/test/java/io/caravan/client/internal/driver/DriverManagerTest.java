package io.caravan.client.internal.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.DriverInfo;
import io.caravan.client.internal.testing.ProcessTestDriver;
import io.caravan.plugin.api.driver.DriverHealth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DriverManagerTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<Map<String, DriverInfo>> published = new CopyOnWriteArrayList<>();
    private final DriverManager manager = new DriverManager(scheduler, Clock.systemUTC(), Duration.ofHours(1),
            new DriverManager.Listener() {
                @Override
                public void driversChanged(Map<String, DriverInfo> drivers) {
                    published.add(drivers);
                }

                @Override
                public void driverBound(String name) {
                    calls.add("bound " + name);
                }

                @Override
                public void driverUnbound(String name) {
                    calls.add("unbound " + name);
                }
            });

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    @Test
    void healthIsReportedAndOnlyChangesArePublished() {
        ProcessTestDriver driver = new ProcessTestDriver();
        manager.bind("test", driver);
        DriverInfo info = manager.infos().get("test");
        assertTrue(info.detected() && info.healthy());
        assertEquals("Healthy", info.healthDescription());
        assertEquals("1", info.attributes().get("driver.test.version"));

        manager.pollAll();
        assertEquals(1, published.size(), "same health: no update");

        driver.health(new DriverHealth(DriverHealth.State.UNHEALTHY, "binary missing", Map.of()));
        manager.pollAll();
        assertEquals(2, published.size());
        assertFalse(manager.infos().get("test").healthy());
        assertTrue(manager.infos().get("test").detected());
    }

    @Test
    void unbindParksAndAStaleUnbindIsIgnored() {
        ProcessTestDriver first = new ProcessTestDriver();
        ProcessTestDriver second = new ProcessTestDriver();
        manager.bind("test", first);
        manager.bind("test", second); // greedy rebind: the new one replaces the old one
        manager.unbind("test", first);
        assertTrue(manager.driver("test").isPresent());
        manager.unbind("test", second);
        assertTrue(manager.driver("test").isEmpty());
        assertEquals(List.of("bound test", "bound test", "unbound test"), calls);
        assertEquals(Map.of(), published.get(published.size() - 1));
    }
}
