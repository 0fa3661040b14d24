package io.caravan.client.internal;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.client.internal.alloc.AllocRunner;
import io.caravan.metrics.MetricSink;

/**
 * A client node's metrics under Nomad's names, published with {@code publish_node_metrics} (labels {@code node_id},
 * {@code datacenter}, {@code node_class}): {@code nomad.client.allocated.*} and {@code unallocated.*} (cpu MHz,
 * memory and disk MB, from the node's resources, its reserve and its live allocations),
 * {@code nomad.client.allocations.*} (this node's allocations by client status), and {@code nomad.client.host.*}
 * (memory from {@code /proc/meminfo}, the disk holding the allocation directories).
 */
final class ClientMetrics {
    private ClientMetrics() {
    }

    static void report(MetricSink sink, Node node, Collection<AllocRunner> runners, Path allocDir) {
        if (!sink.options().publishNodeMetrics()) {
            return;
        }
        Map<String, String> labels = Map.of("node_id", node.id(), "datacenter", String.valueOf(node.datacenter()),
                "node_class", node.nodeClass() == null ? "" : node.nodeClass());
        long cpu = 0;
        long memory = 0;
        long disk = 0;
        Map<String, Integer> byStatus = new HashMap<>();
        for (String s : List.of(Allocation.CLIENT_PENDING, Allocation.CLIENT_RUNNING)) {
            byStatus.put(s, 0);
        }
        int terminal = 0;
        for (AllocRunner r : runners) {
            Allocation a = r.alloc();
            if (r.terminal()) {
                terminal++;
                continue;
            }
            byStatus.merge(a.clientStatus(), 1, Integer::sum);
            AllocatedResources res = a.allocatedResources();
            if (res != null) {
                for (AllocatedResources.TaskResources t : res.tasks().values()) {
                    cpu += t.cpu() == null ? 0 : t.cpu().cpuShares();
                    memory += t.memory() == null ? 0 : t.memory().memoryMb();
                }
                disk += res.shared() == null ? 0 : res.shared().diskMb();
            }
        }
        sink.gauge("nomad.client.allocated.cpu", labels, cpu);
        sink.gauge("nomad.client.allocated.memory", labels, memory);
        sink.gauge("nomad.client.allocated.disk", labels, disk);
        if (node.nodeResources() != null) {
            var total = node.nodeResources();
            var reserved = node.reservedResources();
            long totalCpu = total.cpu() == null ? 0 : total.cpu().cpuShares();
            long totalMemory = total.memory() == null ? 0 : total.memory().memoryMb();
            long totalDisk = total.disk() == null ? 0 : total.disk().diskMb();
            if (reserved != null) {
                totalCpu -= reserved.cpu() == null ? 0 : reserved.cpu().cpuShares();
                totalMemory -= reserved.memory() == null ? 0 : reserved.memory().memoryMb();
                totalDisk -= reserved.disk() == null ? 0 : reserved.disk().diskMb();
            }
            sink.gauge("nomad.client.unallocated.cpu", labels, totalCpu - cpu);
            sink.gauge("nomad.client.unallocated.memory", labels, totalMemory - memory);
            sink.gauge("nomad.client.unallocated.disk", labels, totalDisk - disk);
        }
        byStatus.forEach((status, n) -> sink.gauge("nomad.client.allocations." + status, labels, n));
        sink.gauge("nomad.client.allocations.terminal", labels, terminal);
        hostMemory(sink, labels);
        hostDisk(sink, labels, allocDir);
    }

    private static void hostMemory(MetricSink sink, Map<String, String> labels) {
        Map<String, Long> kb = new HashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                String[] f = line.split("[:\\s]+");
                if (f.length >= 2) {
                    kb.put(f[0], Long.parseLong(f[1]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return;   // not Linux: no host memory gauges
        }
        Long total = kb.get("MemTotal");
        Long available = kb.get("MemAvailable");
        Long free = kb.get("MemFree");
        if (total == null || available == null || free == null) {
            return;
        }
        sink.gauge("nomad.client.host.memory.total", labels, total * 1024.0);
        sink.gauge("nomad.client.host.memory.available", labels, available * 1024.0);
        sink.gauge("nomad.client.host.memory.free", labels, free * 1024.0);
        sink.gauge("nomad.client.host.memory.used", labels, (total - available) * 1024.0);
    }

    private static void hostDisk(MetricSink sink, Map<String, String> labels, Path allocDir) {
        try {
            Path dir = allocDir;
            while (dir != null && !Files.exists(dir)) {
                dir = dir.getParent();
            }
            if (dir == null) {
                return;
            }
            FileStore store = Files.getFileStore(dir);
            Map<String, String> disk = new HashMap<>(labels);
            disk.put("disk", store.name());
            long size = store.getTotalSpace();
            long available = store.getUsableSpace();
            long used = size - store.getUnallocatedSpace();
            sink.gauge("nomad.client.host.disk.size", disk, size);
            sink.gauge("nomad.client.host.disk.available", disk, available);
            sink.gauge("nomad.client.host.disk.used", disk, used);
            sink.gauge("nomad.client.host.disk.used_percent", disk, size == 0 ? 0 : 100.0 * used / size);
        } catch (IOException e) {
            // the directory went away: no disk gauges this time
        }
    }
}
