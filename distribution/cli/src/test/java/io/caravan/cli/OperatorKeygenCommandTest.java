package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class OperatorKeygenCommandTest {

    @Test
    void printsOneStandardBase64LineOf32BytesWithoutCallingTheAgent() throws Exception {
        try (FakeAgent agent = new FakeAgent()) {
            Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "operator", "keygen");

            assertEquals(0, r.code(), r.err());
            assertEquals("", r.err());
            assertEquals(1, r.outLines().size(), r.out());
            String key = r.outLines().get(0);
            assertTrue(key.matches("[A-Za-z0-9+/]{43}="), key); // standard alphabet, padded
            assertEquals(32, Base64.getDecoder().decode(key).length);
            assertEquals(List.of(), agent.requests());
        }
    }

    @Test
    void everyRunMakesANewKey() {
        String first = Cli.run(Map.of(), "operator", "keygen").out();
        String second = Cli.run(Map.of(), "operator", "keygen").out();

        assertNotEquals(first, second);
    }

    @Test
    void extraArgumentsAreAUsageError() {
        Cli.Result r = Cli.run(Map.of(), "operator", "keygen", "extra");

        assertEquals(1, r.code());
        assertTrue(r.err().contains("Usage: caravan operator keygen"), r.err());
    }

    @Test
    void operatorHelpListsKeygen() {
        Cli.Result r = Cli.run(Map.of(), "operator", "-h");

        assertEquals(0, r.code());
        assertTrue(r.out().contains("keygen"), r.out());
    }
}
