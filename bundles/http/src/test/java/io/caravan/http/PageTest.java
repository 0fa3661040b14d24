package io.caravan.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

class PageTest {
    private static final List<Integer> ITEMS = List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    private static final Function<Integer, String> TOKEN = i -> "t" + i;

    @Test
    void pagesCarryTheTokenOfTheNextMatchingItem() {
        Page<Integer> first = Page.of(ITEMS.iterator(), i -> i % 2 == 0, TOKEN, 2);
        assertEquals(List.of(2, 4), first.items());
        assertEquals("t6", first.nextToken());

        Page<Integer> last = Page.of(ITEMS.subList(5, 10).iterator(), i -> i % 2 == 0, TOKEN, 2);
        assertEquals(List.of(6, 8), last.items());
        assertEquals("t10", last.nextToken());
        assertEquals(null, Page.of(ITEMS.subList(9, 10).iterator(), i -> i % 2 == 0, TOKEN, 2).nextToken());
    }

    @Test
    void noPagingReturnsEverythingThatMatches() {
        Page<Integer> all = Page.of(ITEMS.iterator(), i -> i > 7, TOKEN, 0);
        assertEquals(List.of(8, 9, 10), all.items());
        assertEquals(null, all.nextToken());
        assertEquals(List.of("8", "9", "10"), all.map(String::valueOf).items());
    }

    @Test
    void aPageExactlyFullHasNoNextToken() {
        assertEquals(null, Page.of(List.of(1, 2).iterator(), i -> true, TOKEN, 2).nextToken());
    }
}
