package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import io.caravan.api.model.Allocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code alloc_dir}: builds the allocation's shared directory before its tasks run; removes it all on destroy. */
public final class AllocDirHook implements AllocHook.Prerun, AllocHook.Destroy {
    private static final Logger LOG = LoggerFactory.getLogger(AllocDirHook.class);

    @Override
    public String name() {
        return "alloc_dir";
    }

    @Override
    public void prerun(Allocation alloc, AllocDir dir) throws IOException {
        Files.createDirectories(dir.data());
        Files.createDirectories(dir.logs());
        Files.createDirectories(dir.sharedTmp());
    }

    @Override
    public void destroy(Allocation alloc, AllocDir dir) {
        deleteTree(dir.root());
        LOG.atDebug().addKeyValue("alloc_id", alloc.id()).log("allocation directory removed");
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.atWarn().addKeyValue("path", p).addKeyValue("error", e.toString()).log("cannot delete");
                }
            });
        } catch (IOException e) {
            LOG.atWarn().addKeyValue("path", root).addKeyValue("error", e.toString()).log("cannot delete");
        }
    }
}
