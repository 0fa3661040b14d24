package io.caravan.plugin.api.discover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DiscoverStringTest {

    @Test
    void splitsProviderAndArgumentsInOrder() {
        DiscoverString d = DiscoverString.parse("provider=dns name=servers.example.com port=4647").orElseThrow();

        assertEquals("dns", d.provider());
        assertEquals(Map.of("name", "servers.example.com", "port", "4647"), d.args());
        assertEquals(List.of("name", "port"), List.copyOf(d.args().keySet()));
        assertEquals("4647", d.arg("port", "1"));
        assertEquals("A", d.arg("type", "A"));
    }

    @Test
    void providerNeedNotComeFirstAndIsNotAnArgument() {
        DiscoverString d = DiscoverString.parse("tag_key=nomad provider=aws tag_value=server").orElseThrow();

        assertEquals("aws", d.provider());
        assertEquals(Map.of("tag_key", "nomad", "tag_value", "server"), d.args());
    }

    @Test
    void quotedValuesKeepSpacesAndEscapes() {
        DiscoverString d = DiscoverString.parse(
                "provider=aws  tag_value=\"my servers\"\tsecret=\"a\\\"b\\\\c\" empty=\"\" bare=").orElseThrow();

        assertEquals("my servers", d.args().get("tag_value"));
        assertEquals("a\"b\\c", d.args().get("secret"));
        assertEquals("", d.args().get("empty"));
        assertEquals("", d.args().get("bare"));
    }

    @Test
    void keysAreLowerCasedAndTheLastRepeatWins() {
        DiscoverString d = DiscoverString.parse("Provider=file PATH=/a path=/b").orElseThrow();

        assertEquals("file", d.provider());
        assertEquals(Map.of("path", "/b"), d.args());
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1:4647", "10.0.0.1", "[2001:db8::1]:4648", "nomad-01.example.com",
            "name=x port=1", "", "   "})
    void plainAddressesAreNotDiscoverStrings(String text) {
        assertEquals(Optional.empty(), DiscoverString.parse(text));
    }

    @Test
    void nullIsNotADiscoverString() {
        assertEquals(Optional.empty(), DiscoverString.parse(null));
    }

    @Test
    void providerOnlyInsideAQuotedValueIsNotADiscoverString() {
        assertEquals(Optional.empty(), DiscoverString.parse("name=x note=\"provider=y\""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"provider=dns name", "provider=dns =x", "provider=dns name=\"unterminated",
            "provider=dns name=\"a\"b", "provider= name=x", "provider=\"\" name=x", "10.0.0.1 provider=dns"})
    void malformedDiscoverStringsAreRejected(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DiscoverString.parse(text));
        assertTrue(e.getMessage().startsWith("discover string:"), e.getMessage());
    }

    @Test
    void argumentsAreUnmodifiable() {
        DiscoverString d = DiscoverString.parse("provider=dns name=x").orElseThrow();
        assertThrows(UnsupportedOperationException.class, () -> d.args().put("y", "z"));
    }
}
