package io.caravan.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class PrefixFilterTest {

    @Test
    void noRulesFollowsTheDefault() {
        assertTrue(new PrefixFilter(List.of(), true).allows("nomad.raft.apply"));
        assertFalse(new PrefixFilter(List.of(), false).allows("nomad.raft.apply"));
    }

    @Test
    void theLongestMatchingRuleDecides() {
        PrefixFilter f = new PrefixFilter(List.of("-nomad.raft", "+nomad.raft.apply", "+nomad.client.allocs",
                "-nomad.client"), true);
        assertFalse(f.allows("nomad.raft.commitTime"));
        assertTrue(f.allows("nomad.raft.apply"));
        assertFalse(f.allows("nomad.client.host.memory.total"));
        assertTrue(f.allows("nomad.client.allocs.running"));
        assertTrue(f.allows("nomad.runtime.alloc_bytes"), "no rule: filter_default");
        assertTrue(f.allows("a.b"));
    }

    @Test
    void filterDefaultFalsePublishesOnlyWhatIsAllowed() {
        PrefixFilter f = new PrefixFilter(List.of("+nomad.nomad.broker", " +nomad.runtime "), false);
        assertTrue(f.allows("nomad.nomad.broker.total_ready"));
        assertTrue(f.allows("nomad.runtime.num_goroutines"));
        assertFalse(f.allows("nomad.nomad.plan.queue_depth"));
        assertFalse(f.allows("zzz"));
    }

    @Test
    void aRuleWithoutSignIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PrefixFilter(List.of("nomad.raft"), true));
        assertEquals("telemetry.prefix_filter: \"nomad.raft\" must start with + (publish) or - (drop)",
                e.getMessage());
    }
}
