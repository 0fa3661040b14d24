package io.caravan.state.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PersistentTreeTest {

    /** Keys from a small alphabet and length so that puts overwrite, removes hit, and prefixes share a lot. */
    private static String randomKey(Random rnd) {
        int len = 1 + rnd.nextInt(4);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            sb.append((char) ('a' + rnd.nextInt(5)));
        }
        return sb.toString();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234567})
    void behavesLikeTreeMap(long seed) {
        Random rnd = new Random(seed);
        PersistentTree<String, Integer> tree = PersistentTree.empty();
        TreeMap<String, Integer> model = new TreeMap<>();
        List<PersistentTree<String, Integer>> versions = new ArrayList<>();
        List<TreeMap<String, Integer>> models = new ArrayList<>();
        for (int op = 0; op < 4000; op++) {
            String key = randomKey(rnd);
            int dice = rnd.nextInt(10);
            if (dice < 6) {
                int v = rnd.nextInt(100);
                tree = tree.put(key, v);
                model.put(key, v);
            } else if (dice < 9) {
                tree = tree.remove(key);
                model.remove(key);
            } else {
                assertEquals(model.get(key), tree.get(key));
            }
            assertEquals(model.size(), tree.size());
            if (op % 97 == 0) {
                versions.add(tree);
                models.add(new TreeMap<>(model));
            }
            if (op % 50 == 0) {
                tree.checkInvariants();
                assertIterationsMatch(tree, model, rnd);
            }
        }
        // Persistence: every old version still holds exactly what it held when taken.
        for (int i = 0; i < versions.size(); i++) {
            versions.get(i).checkInvariants();
            assertEquals(new ArrayList<>(models.get(i).entrySet()), list(versions.get(i).iterator()));
        }
    }

    /**
     * Updates under an edit token change in place only the nodes made under that token: the result matches the model,
     * and every version taken before a token was retired (as a transaction freezes) still holds what it held.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234567})
    void inPlaceEditsBehaveLikeTreeMapAndLeaveRetiredVersionsAlone(long seed) {
        Random rnd = new Random(seed);
        PersistentTree<String, Integer> tree = PersistentTree.empty();
        TreeMap<String, Integer> model = new TreeMap<>();
        List<PersistentTree<String, Integer>> versions = new ArrayList<>();
        List<TreeMap<String, Integer>> models = new ArrayList<>();
        Object edit = new Object();
        for (int op = 0; op < 6000; op++) {
            String key = randomKey(rnd) + randomKey(rnd);
            if (rnd.nextInt(10) < 6) {
                int v = rnd.nextInt(100);
                tree = tree.put(key, v, edit);
                model.put(key, v);
            } else {
                tree = tree.remove(key, edit);
                model.remove(key);
            }
            assertEquals(model.size(), tree.size());
            if (op % 89 == 0) {
                edit = new Object(); // a freeze: this version may now be read, and is never changed again
                versions.add(tree);
                models.add(new TreeMap<>(model));
                tree.checkInvariants();
                assertIterationsMatch(tree, model, rnd);
            }
        }
        tree.checkInvariants();
        assertIterationsMatch(tree, model, rnd);
        for (int i = 0; i < versions.size(); i++) {
            versions.get(i).checkInvariants();
            assertEquals(new ArrayList<>(models.get(i).entrySet()), list(versions.get(i).iterator()));
        }
    }

    private static void assertIterationsMatch(PersistentTree<String, Integer> tree, TreeMap<String, Integer> model,
                                              Random rnd) {
        assertEquals(new ArrayList<>(model.entrySet()), list(tree.iterator()));
        assertEquals(new ArrayList<>(model.descendingMap().entrySet()), list(tree.descendingIterator()));
        String from = randomKey(rnd);
        assertEquals(new ArrayList<>(model.tailMap(from, true).entrySet()), list(tree.iteratorFrom(from)));
        assertEquals(new ArrayList<>(model.headMap(from, true).descendingMap().entrySet()),
                list(tree.descendingIteratorFrom(from)));
        String k = randomKey(rnd);
        String prefix = k.substring(0, Math.min(k.length(), 1 + rnd.nextInt(2)));
        NavigableMap<String, Integer> expected = model.subMap(prefix, true, prefix + Character.MAX_VALUE, false);
        List<Map.Entry<String, Integer>> actual = new ArrayList<>();
        for (Iterator<Map.Entry<String, Integer>> it = tree.iteratorFrom(prefix); it.hasNext(); ) {
            Map.Entry<String, Integer> e = it.next();
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            actual.add(e);
        }
        assertEquals(new ArrayList<>(expected.entrySet()), actual);
    }

    @Test
    void sequentialInsertsStayBalanced() {
        PersistentTree<String, Integer> tree = PersistentTree.empty();
        for (int i = 0; i < 100_000; i++) {
            tree = tree.put(String.format("%08d", i), i);
        }
        int height = tree.checkInvariants();
        assertTrue(height <= 1.45 * (Math.log(100_000) / Math.log(2)) + 2, "height " + height);
        for (int i = 0; i < 100_000; i += 2) {
            tree = tree.remove(String.format("%08d", i));
        }
        tree.checkInvariants();
        assertEquals(50_000, tree.size());
    }

    @Test
    void buildsFromSortedKeysInOneGo() {
        List<String> keys = new ArrayList<>();
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            keys.add(String.format("%04d", i));
            values.add(i);
        }
        PersistentTree<String, Integer> tree = PersistentTree.fromSorted(keys, values);
        tree.checkInvariants();
        assertEquals(1000, tree.size());
        assertEquals(Integer.valueOf(500), tree.get("0500"));
        tree.put("0500x", 1).checkInvariants(); // and it keeps working as an ordinary tree
        assertSame(PersistentTree.empty(), PersistentTree.<String, Integer>fromSorted(List.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> PersistentTree.fromSorted(List.of("b", "a"), List.of(1, 2)));
        assertThrows(IllegalArgumentException.class, () -> PersistentTree.fromSorted(List.of("a", "a"), List.of(1, 2)));
    }

    @Test
    void noOpUpdatesReturnTheSameTree() {
        Integer one = 1;
        PersistentTree<String, Integer> tree = PersistentTree.<String, Integer>empty().put("a", one);
        assertSame(tree, tree.put("a", one));
        assertSame(tree, tree.remove("b"));
        assertNull(tree.remove("a").get("a"));
        assertEquals(1, tree.size());
    }

    private static <K, V> List<Map.Entry<K, V>> list(Iterator<Map.Entry<K, V>> it) {
        List<Map.Entry<K, V>> out = new ArrayList<>();
        // Compare as plain entries: tree nodes implement Map.Entry but not its equals contract.
        it.forEachRemaining(e -> out.add(Map.entry(e.getKey(), e.getValue())));
        return out;
    }
}
