package io.caravan.driver.executor.chroot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.caravan.driver.executor.internal.WrapperProcessExecutor;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What needs no root: which host directories go into a chroot, and the refusals before anything is launched. */
class ChrootDriverTest {
    @TempDir
    Path tmp;
    private final WrapperProcessExecutor executor = new WrapperProcessExecutor();

    @AfterEach
    void close() {
        executor.close();
    }

    private ChrootDriver driver(List<String> chrootEnv) {
        return new ChrootDriver("test", executor, new ChrootDriver.Settings(chrootEnv, "caravan-test", "nobody")) {
            @Override
            public TaskHandle start(TaskConfig task) throws DriverException {
                return launch(task, List.of("/bin/true"), "relative", List.of());
            }
        };
    }

    @Test
    void chrootEnvKeepsExistingDirectoriesAndAddsExtraOnesNotAlreadyInside() throws Exception {
        Path usr = Files.createDirectories(tmp.resolve("usr/lib/jvm/jdk"));
        Path opt = Files.createDirectories(tmp.resolve("opt/jdk"));
        Path link = Files.createSymbolicLink(tmp.resolve("lib"), tmp.resolve("usr/lib"));
        ChrootDriver d = driver(List.of(tmp.resolve("usr").toString(), tmp.resolve("missing").toString(),
                link.toString()));
        assertEquals(List.of(tmp.resolve("usr").toString(), link.toString(), opt.toString()),
                d.chrootEnv(List.of(usr.toString(), opt.toString(), "/", "relative/dir")));
        assertEquals(List.of(tmp.resolve("usr").toString(), link.toString()), d.chrootEnv(List.of()));
    }

    @Test
    void startRefusedWhereTheHostCannotIsolateOrTheWorkDirIsRelative() {
        ChrootDriver d = driver(List.of());
        TaskConfig task = new TaskConfig(new TaskId("a", "t"), "job", Map.of(), Map.of(), "", tmp, tmp.resolve("o"),
                tmp.resolve("e"), 0, 0, 0);
        DriverException e = assertThrows(DriverException.class, () -> d.start(task));
        assertEquals(d.health().state() == io.caravan.plugin.api.driver.DriverHealth.State.HEALTHY
                ? "test: work_dir must be an absolute path inside the task's chroot"
                : "test driver is not usable: " + d.health().description(), e.getMessage());
    }
}
