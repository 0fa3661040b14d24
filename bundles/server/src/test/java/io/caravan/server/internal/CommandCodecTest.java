package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;

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
            byte[] entry = CommandCodec.encode(command);
            assertEquals(command, CommandCodec.decode(entry));
            String text = new String(entry, StandardCharsets.UTF_8);
            assertEquals(true, text.startsWith("{\"Type\":\"" + command.getClass().getSimpleName() + "\",\"Command\":{"));
            assertEquals(false, text.contains("\"Evals\""), "a derived accessor is not written: " + text);
        }
    }

    @Test
    void entriesNoServerWroteAreRefused() {
        for (String bad : new String[] {"[]", "{\"Command\":{}}", "{\"Type\":\"Nope\",\"Command\":{}}", "{\"Type\":1}",
                "not json"}) {
            assertThrows(IllegalArgumentException.class,
                    () -> CommandCodec.decode(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
    }
}
