package io.caravan.plugin.api.discover;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class DiscoverResolverTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void plainAddressesNeedNoProvider() throws Exception {
        DiscoverResolver r = new DiscoverResolver();
        assertEquals(Set.of(), r.awaitProviders(List.of("10.0.0.1", "host:4648"), LONG));
        assertEquals(List.of("10.0.0.1", "host:4648"), r.resolve(List.of("10.0.0.1", "host:4648"), 4648, p -> { }));
    }

    @Test
    void theWaitEndsWhenTheLastNamedProviderRegisters() throws Exception {
        DiscoverResolver r = new DiscoverResolver();
        List<String> entries = List.of("provider=file path=/x", "provider=dns name=s.example", "10.0.0.1");
        CompletableFuture<Set<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return r.awaitProviders(entries, LONG);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        r.add(args -> List.of("10.0.0.2:" + args.get("port")), Map.of(DiscoverProvider.PROPERTY, "file"));
        Thread.sleep(100);
        r.add(args -> List.of("10.0.0.3:" + args.get("port")), Map.of(DiscoverProvider.PROPERTY, "dns"));
        // Bounded well below LONG: the wait ends with the registration, not with its timeout.
        assertEquals(Set.of(), waiting.get(LONG.toSeconds() / 2, TimeUnit.SECONDS));
        assertEquals(List.of("10.0.0.2:4647", "10.0.0.3:4647", "10.0.0.1"), r.resolve(entries, 4647, p -> { }));
    }

    @Test
    void aProviderThatNeverComesIsReportedMissingAfterTheTimeout() throws Exception {
        DiscoverResolver r = new DiscoverResolver();
        r.add(args -> List.of(), Map.of(DiscoverProvider.PROPERTY, "file"));
        assertEquals(Set.of("aws"), r.awaitProviders(List.of("provider=file path=/x", "provider=aws tag_key=k"),
                Duration.ofMillis(50)));
    }
}
