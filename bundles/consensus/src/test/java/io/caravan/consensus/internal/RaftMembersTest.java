package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.membership.Member;
import io.caravan.membership.Member.Status;
import org.junit.jupiter.api.Test;

class RaftMembersTest {
    private static final Duration DEAD_AFTER = Duration.ofSeconds(60);

    private static Member server(String id, Status status, String... extraTags) {
        Map<String, String> tags = new HashMap<>(Map.of("role", "nomad", "region", "global", "id", id,
                "raft_addr", "10.0.0." + id.charAt(1) + ":4649"));
        for (int i = 0; i < extraTags.length; i += 2) {
            tags.put(extraTags[i], extraTags[i + 1]);
        }
        return new Member(id + ".global", "10.0.0." + id.charAt(1) + ":4648", status, tags, 1);
    }

    private static Peer peer(String id) {
        return new Peer(id, "10.0.0." + id.charAt(1) + ":4649");
    }

    @Test
    void bootstrapWaitsForExpectServersThenTakesAllAlive() {
        Peer self = peer("s1");
        assertEquals(Optional.empty(), RaftMembers.initialGroup(self,
                List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE), server("s3", Status.FAILED)), "global", 3));
        assertEquals(Optional.of(List.of(peer("s1"), peer("s2"), peer("s3"))), RaftMembers.initialGroup(self,
                List.of(server("s3", Status.ALIVE), server("s1", Status.ALIVE), server("s2", Status.ALIVE)), "global", 3));
        assertEquals(Optional.empty(), RaftMembers.initialGroup(self, List.of(server("s1", Status.ALIVE),
                server("s2", Status.ALIVE), server("s3", Status.ALIVE)), "global", 0), "0 never bootstraps");
    }

    @Test
    void otherRegionsAndClientsDoNotCount() {
        Member other = new Member("s9.eu", "x:1", Status.ALIVE, Map.of("role", "nomad", "region", "eu", "id", "s9",
                "raft_addr", "10.0.0.9:4649"), 1);
        assertEquals(Optional.empty(), RaftMembers.initialGroup(peer("s1"),
                List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE), other), "global", 3));
    }

    @Test
    void aNewServerJoinsServersWhoseRaftRuns() {
        assertEquals(Optional.of(List.of(peer("s1"), peer("s2"), peer("s4"))), RaftMembers.initialGroup(peer("s4"),
                List.of(server("s1", Status.ALIVE, "raft", "1"), server("s2", Status.ALIVE, "raft", "1"),
                        server("s4", Status.ALIVE)), "global", 3));
    }

    @Test
    void theLeaderAddsJoinedServersRemovesLeftOnesAndDeadOnesOnlyWithAMajorityLeft() {
        Peer self = peer("s1");
        List<Peer> two = List.of(peer("s1"), peer("s2"));
        assertEquals(Optional.of(List.of(peer("s1"), peer("s2"), peer("s3"))), RaftMembers.nextConfiguration(self, two,
                List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE), server("s3", Status.ALIVE, "raft", "1")),
                "global", Map.of(), DEAD_AFTER));
        assertEquals(Optional.empty(), RaftMembers.nextConfiguration(self, two,
                List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE), server("s3", Status.ALIVE)),
                "global", Map.of(), DEAD_AFTER), "not before its Raft runs");

        List<Peer> three = List.of(peer("s1"), peer("s2"), peer("s3"));
        assertEquals(Optional.of(two), RaftMembers.nextConfiguration(self, three,
                List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE), server("s3", Status.LEFT)),
                "global", Map.of(), DEAD_AFTER));

        List<Member> s3Failed = List.of(server("s1", Status.ALIVE), server("s2", Status.ALIVE),
                server("s3", Status.FAILED));
        assertEquals(Optional.empty(), RaftMembers.nextConfiguration(self, three, s3Failed, "global",
                Map.of("s3", Duration.ofSeconds(10)), DEAD_AFTER), "not dead long enough");
        assertEquals(Optional.of(two), RaftMembers.nextConfiguration(self, three, s3Failed, "global",
                Map.of("s3", Duration.ofSeconds(61)), DEAD_AFTER));

        List<Member> twoFailed = List.of(server("s1", Status.ALIVE), server("s2", Status.FAILED),
                server("s3", Status.FAILED));
        assertEquals(Optional.empty(), RaftMembers.nextConfiguration(self, three, twoFailed, "global",
                Map.of("s2", Duration.ofMinutes(5), "s3", Duration.ofMinutes(5)), DEAD_AFTER),
                "removing one of two dead servers would leave 1 alive of 2: no majority");
    }

    @Test
    void autopilotKeepsFailedServersWhenCleanupIsOffOrBelowMinQuorum() {
        List<Peer> three = List.of(new Peer("s1", "a:1"), new Peer("s2", "a:2"), new Peer("s3", "a:3"));
        List<Peer> withoutS3 = three.subList(0, 2);
        List<String> s3Failed = List.of("s3");
        org.junit.jupiter.api.Assertions.assertTrue(
                RaftMembers.autopilotAllows(three, withoutS3, s3Failed, true, 0));
        org.junit.jupiter.api.Assertions.assertFalse(
                RaftMembers.autopilotAllows(three, withoutS3, s3Failed, false, 0), "CleanupDeadServers off");
        org.junit.jupiter.api.Assertions.assertFalse(
                RaftMembers.autopilotAllows(three, withoutS3, s3Failed, true, 3), "MinQuorum 3");
        org.junit.jupiter.api.Assertions.assertTrue(
                RaftMembers.autopilotAllows(three, withoutS3, List.of(), false, 3), "a server that left goes");
        org.junit.jupiter.api.Assertions.assertTrue(
                RaftMembers.autopilotAllows(withoutS3, three, s3Failed, false, 3), "adding is not autopilot's");
    }
}
