package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.Test;

class CommandCodecTest {

    @Test
    void everyCommandRoundTrips() throws Exception {
        Job job = FsmTest.job("web", 50);
        Evaluation eval = Evaluation.forJob("e", job, Evaluation.TRIGGER_JOB_REGISTER, 7);
        for (Command command : new Command[] {new Command.JobRegister(job, eval, true, 3),
                new Command.JobDeregister("default", "web", true, eval)}) {
            UUID requestId = UUID.randomUUID();
            byte[] entry = CommandCodec.encode(requestId, command);
            assertEquals(new CommandCodec.Entry(requestId, command), CommandCodec.decodeEntry(entry)); // kept
            assertEquals(new CommandCodec.Entry(requestId, command), CommandCodec.decodeEntry(entry)); // read
            String text = new String(entry, StandardCharsets.UTF_8);
            assertEquals(true, text.startsWith("{\"Type\":\"" + command.getClass().getSimpleName() + "\",\"Command\":{"));
            assertEquals(true, text.endsWith("},\"RequestID\":\"" + requestId + "\"}"), text);
            assertEquals(false, text.contains("\"Evals\""), "a derived accessor is not written: " + text);
        }
    }

    /** Each new write is a request of its own; the entries logged before request IDs existed still decode. */
    @Test
    void everyWriteGetsARequestIdOfItsOwnAndOldEntriesHaveNone() throws Exception {
        Command command = new Command.JobDeregister("default", "web", false,
                Evaluation.forJob("e", FsmTest.job("web", 50), Evaluation.TRIGGER_JOB_DEREGISTER, 7));
        UUID first = CommandCodec.decodeEntry(CommandCodec.encode(command)).requestId();
        UUID second = CommandCodec.decodeEntry(CommandCodec.encode(command)).requestId();
        assertNotNull(first);
        assertNotEquals(first, second);

        byte[] old = CommandCodec.encode(null, command);
        assertEquals(false, new String(old, StandardCharsets.UTF_8).contains("RequestID"));
        assertEquals(new CommandCodec.Entry(null, command), CommandCodec.decodeEntry(old));
    }

    /**
     * The leader hands back the commands it encoded instead of decoding its own entries, so decoding an encoding must
     * give an equal command, or the leader's state would differ from its followers': a job as a register
     * canonicalises it (every default filled in), and a node with its secret.
     */
    @Test
    void theCommandKeptForAnEntryEqualsTheOneItsBytesDecodeTo() throws Exception {
        Job job = Jobs.canonical(io.caravan.api.json.NomadJson.mapper().readTree("""
                {"Job": {"ID": "web", "TaskGroups": [{"Name": "g", "Count": 2, "Tasks": [{"Name": "t",
                  "Driver": "raw_exec", "Config": {"command": "/bin/sleep", "args": ["1"]}}]}]}}"""), "global")
                .withSubmitTime(123_456_789L);
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 7);
        for (Command command : new Command[] {new Command.JobRegister(job, eval, false, 0),
                new Command.NodeRegister(NodeLifecycleTest.node("n1", "ready"), java.util.List.of(eval))}) {
            byte[] entry = CommandCodec.encode(command);
            Command gate = CommandCodec.decode(entry);
            CommandCodec.Entry kept = CommandCodec.decodeEntry(entry);
            CommandCodec.Entry read = CommandCodec.decodeEntry(entry.clone());

            assertSame(command, gate);
            assertSame(command, kept.command());
            assertNotSame(command, read.command());
            assertEquals(kept, read);
        }
    }

    /** What the leader's gate decoded (a write another server encoded) is applied without decoding it again. */
    @Test
    void anEntryTheGateDecodedIsTakenByItsApply() {
        Command command = new Command.JobDeregister("default", "gate", false, null);
        byte[] foreign = CommandCodec.encode(command);
        CommandCodec.decodeEntry(foreign); // as the apply of the encoding server: its kept command is taken
        byte[] copy = foreign.clone();

        Command gate = CommandCodec.decode(copy);
        assertNotSame(command, gate);
        assertSame(gate, CommandCodec.decodeEntry(copy).command());
        assertNotSame(gate, CommandCodec.decodeEntry(copy).command()); // taken once
    }

    /** Bytes that differ from what this server wrote are decoded, even when they name a kept request ID. */
    @Test
    void anEntryOnlyMatchingAKeptRequestIdIsDecoded() {
        Command command = new Command.JobDeregister("default", "web", false, null);
        byte[] entry = CommandCodec.encode(command);
        String other = new String(entry, StandardCharsets.UTF_8).replace("\"web\"", "\"api\"");

        Command.JobDeregister read = (Command.JobDeregister) CommandCodec.decode(other.getBytes(StandardCharsets.UTF_8));
        assertEquals("api", read.jobId());
        assertSame(command, CommandCodec.decode(entry));
    }

    @Test
    void entriesNoServerWroteAreRefused() {
        for (String bad : new String[] {"[]", "{\"Command\":{}}", "{\"Type\":\"Nope\",\"Command\":{}}", "{\"Type\":1}",
                "not json", "{\"Type\":\"EvalUpsert\",\"Command\":{\"Evals\":[]},\"RequestID\":\"1-2-3-4-5\"}",
                "{\"Type\":\"EvalUpsert\",\"Command\":{\"Evals\":[]},\"RequestID\":7}",
                "{\"Type\":\"EvalUpsert\",\"Command\":{\"Evals\":[]},\"RequestID\":\"0F9A3C1E-2B4D-4E6F-8A1B-3C5D7E9F1A2B\"}",
                "{\"Type\":\"EvalUpsert\",\"RequestID\":\"0f9a3c1e-2b4d-4e6f-8a1b-3c5d7e9f1a2b\",\"Command\":{\"Evals\":[]}}"}) {
            assertThrows(IllegalArgumentException.class,
                    () -> CommandCodec.decode(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
    }

    @Test
    void aForgottenEntryIsDecodedAgainAndBigEntriesDoNotPileUp() throws Exception {
        Command command = new Command.JobDeregister("default", "web", false,
                Evaluation.forJob("e", FsmTest.job("web", 50), Evaluation.TRIGGER_JOB_DEREGISTER, 7));
        byte[] entry = CommandCodec.encode(command);
        org.junit.jupiter.api.Assertions.assertSame(command, CommandCodec.decode(entry), "kept: not decoded again");
        CommandCodec.forget(entry);
        Command decoded = CommandCodec.decode(entry);
        assertEquals(command, decoded);
        org.junit.jupiter.api.Assertions.assertNotSame(command, decoded, "forgotten: read from its bytes");

        // 80 never-applied entries of ~1 MB each: the oldest are dropped once 64 MB are kept.
        Command oldest = new Command.JobDeregister("default", "x".repeat(1 << 20), false, null);
        byte[] oldestEntry = CommandCodec.encode(oldest);
        for (int i = 0; i < 80; i++) {
            CommandCodec.encode(new Command.JobDeregister("default", i + "x".repeat(1 << 20), false, null));
        }
        Command again = CommandCodec.decode(oldestEntry);
        assertEquals(oldest, again);
        org.junit.jupiter.api.Assertions.assertNotSame(oldest, again, "the oldest was dropped: read from its bytes");
    }
}
