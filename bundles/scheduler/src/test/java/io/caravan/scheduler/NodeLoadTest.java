package io.caravan.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Port;

class NodeLoadTest {
    private static AllocatedResources resources(long cpu, long memory, long disk, List<Integer> cores, int... ports) {
        List<Port> dynamic = java.util.Arrays.stream(ports).mapToObj(p -> new Port("p" + p, p, 0, null, false))
                .toList();
        NetworkResource network = new NetworkResource(null, null, null, null, null, 0, null, List.of(), dynamic, null);
        return new AllocatedResources(Map.of("t", new AllocatedResources.TaskResources(
                new AllocatedResources.Cpu(cpu, cores), new AllocatedResources.Memory(memory, 0), List.of(), null)),
                null, new AllocatedResources.Shared(List.of(network), disk, List.of()));
    }

    @Test
    void addsAndSubtractsEachDimension() {
        AllocatedResources a = resources(500, 256, 300, List.of(1), 20001);
        AllocatedResources b = resources(100, 64, 10, List.of(2, 3), 20002, 20003);
        NodeLoad both = NodeLoad.EMPTY.plus(a).plus(b);
        assertEquals(600, both.cpu());
        assertEquals(320, both.memoryMb());
        assertEquals(310, both.diskMb());
        assertEquals(bits(1, 2, 3), both.cores());
        assertEquals(bits(20001, 20002, 20003), both.ports());
        assertFalse(both.portCollision());
        assertEquals(NodeLoad.EMPTY.plus(b), both.minus(a));
        assertEquals(NodeLoad.EMPTY, both.minus(a).minus(b), "back to nothing, equal to the empty load");
        assertEquals(NodeLoad.EMPTY.plus(b).plus(a), both, "order does not matter");
    }

    @Test
    void aPortTwoAllocationsUseIsACollisionUntilOneGoes() {
        AllocatedResources a = resources(1, 1, 1, List.of(), 8080);
        AllocatedResources b = resources(1, 1, 1, List.of(), 8080, 9090);
        NodeLoad both = NodeLoad.EMPTY.plus(a).plus(b);
        assertTrue(both.portCollision());
        NodeLoad left = both.minus(a);
        assertFalse(left.portCollision());
        assertEquals(bits(8080, 9090), left.ports(), "the other allocation's use of 8080 stays counted");
        assertEquals(NodeLoad.EMPTY.plus(a), NodeLoad.EMPTY.plus(a).plus(null), "no resources add nothing");
    }

    private static BitSet bits(int... values) {
        BitSet out = new BitSet();
        for (int v : values) {
            out.set(v);
        }
        return out;
    }
}
