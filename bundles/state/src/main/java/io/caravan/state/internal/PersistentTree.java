package io.caravan.state.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * An immutable sorted map: a persistent AVL tree with path copying.
 *
 * <p>Every update returns a new tree that shares all untouched nodes with the old one, so old versions stay
 * valid and cost nothing to keep: that is what makes a snapshot of the store O(1). Updates are O(log n) and
 * allocate O(log n) nodes; an update that changes nothing returns {@code this}. Nodes carry subtree sizes so
 * {@link #size()} is O(1). Iterators hold an explicit stack of at most the tree height, so seeking to a key
 * (pagination) costs O(log n). Null keys and null values are not allowed.
 *
 * <p>A writer that makes many updates before anyone can see the result (a state-store transaction) passes an
 * {@code edit} token ({@link #put(Comparable, Object, Object)}): nodes created under that token are changed in place
 * by later updates with the same token instead of being copied again, so a thousand puts on the same paths copy each
 * shared node once, not a thousand times. Nodes created under a token must not be reachable by readers until the
 * writer stops using the token (it then takes a new one): a tree handed out is never changed.
 */
public final class PersistentTree<K extends Comparable<? super K>, V> implements Iterable<Map.Entry<K, V>> {

    private static final PersistentTree<?, ?> EMPTY = new PersistentTree<>(null);

    private final Node<K, V> root;

    private PersistentTree(Node<K, V> root) {
        this.root = root;
    }

    @SuppressWarnings("unchecked") // the empty tree holds no K or V
    public static <K extends Comparable<? super K>, V> PersistentTree<K, V> empty() {
        return (PersistentTree<K, V>) EMPTY;
    }

    /**
     * A tree holding {@code keys[i] → values[i]}, built in O(n) without rebalancing (restores and bulk loads).
     *
     * @throws IllegalArgumentException unless the keys are strictly ascending
     */
    public static <K extends Comparable<? super K>, V> PersistentTree<K, V> fromSorted(List<K> keys, List<V> values) {
        if (keys.size() != values.size()) {
            throw new IllegalArgumentException("keys and values differ in length");
        }
        for (int i = 1; i < keys.size(); i++) {
            if (keys.get(i - 1).compareTo(keys.get(i)) >= 0) {
                throw new IllegalArgumentException("keys not strictly ascending at " + keys.get(i));
            }
        }
        return keys.isEmpty() ? empty() : new PersistentTree<>(build(keys, values, 0, keys.size()));
    }

    /** Middle element as root, halves as subtrees: heights differ by at most one, so the result is AVL. */
    private static <K, V> Node<K, V> build(List<K> keys, List<V> values, int from, int to) {
        if (from >= to) {
            return null;
        }
        int mid = (from + to) >>> 1;
        return new Node<>(Objects.requireNonNull(keys.get(mid)), Objects.requireNonNull(values.get(mid)),
                build(keys, values, from, mid), build(keys, values, mid + 1, to));
    }

    public int size() {
        return root == null ? 0 : root.size;
    }

    public boolean isEmpty() {
        return root == null;
    }

    public V get(K key) {
        Objects.requireNonNull(key, "key");
        Node<K, V> n = root;
        while (n != null) {
            int c = key.compareTo(n.key);
            if (c == 0) {
                return n.value;
            }
            n = c < 0 ? n.left : n.right;
        }
        return null;
    }

    public boolean containsKey(K key) {
        return get(key) != null;
    }

    /** The tree with {@code key} mapped to {@code value}; {@code this} if it already was (same instance). */
    public PersistentTree<K, V> put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Node<K, V> n = put(root, key, value);
        return n == root ? this : new PersistentTree<>(n);
    }

    /** The tree without {@code key}; {@code this} if it was absent. */
    public PersistentTree<K, V> remove(K key) {
        Objects.requireNonNull(key, "key");
        Node<K, V> n = remove(root, key);
        return n == root ? this : new PersistentTree<>(n);
    }

    /**
     * {@link #put(Comparable, Object)} that may change in place the nodes created under {@code edit} (see the class
     * comment); the nodes it creates belong to {@code edit}.
     */
    public PersistentTree<K, V> put(K key, V value, Object edit) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(edit, "edit");
        Node<K, V> n = put(root, key, value, edit);
        return n == root ? this : new PersistentTree<>(n);
    }

    /** {@link #remove(Comparable)} under an {@code edit} token, as {@link #put(Comparable, Object, Object)}. */
    public PersistentTree<K, V> remove(K key, Object edit) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(edit, "edit");
        Node<K, V> n = remove(root, key, edit);
        return n == root ? this : new PersistentTree<>(n);
    }

    /** Ascending iteration over all entries. */
    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return new InOrder<>(root, null, false);
    }

    /** Ascending iteration over entries with key ≥ {@code from}. */
    public Iterator<Map.Entry<K, V>> iteratorFrom(K from) {
        return new InOrder<>(root, Objects.requireNonNull(from, "from"), false);
    }

    /** Descending iteration over all entries. */
    public Iterator<Map.Entry<K, V>> descendingIterator() {
        return new InOrder<>(root, null, true);
    }

    /** Descending iteration over entries with key ≤ {@code from}. */
    public Iterator<Map.Entry<K, V>> descendingIteratorFrom(K from) {
        return new InOrder<>(root, Objects.requireNonNull(from, "from"), true);
    }

    /** Checks the AVL and size invariants; for tests. Returns the height. */
    int checkInvariants() {
        return check(root, null, null);
    }

    private static <K extends Comparable<? super K>, V> int check(Node<K, V> n, K lo, K hi) {
        if (n == null) {
            return 0;
        }
        if ((lo != null && n.key.compareTo(lo) <= 0) || (hi != null && n.key.compareTo(hi) >= 0)) {
            throw new IllegalStateException("order violated at " + n.key);
        }
        int hl = check(n.left, lo, n.key);
        int hr = check(n.right, n.key, hi);
        if (Math.abs(hl - hr) > 1 || n.height != 1 + Math.max(hl, hr)) {
            throw new IllegalStateException("unbalanced at " + n.key);
        }
        if (n.size != 1 + size(n.left) + size(n.right)) {
            throw new IllegalStateException("bad size at " + n.key);
        }
        return n.height;
    }

    // ---------------------------------------------------------------------------------------------------------

    private static <K extends Comparable<? super K>, V> Node<K, V> put(Node<K, V> n, K key, V value) {
        return put(n, key, value, null);
    }

    private static <K extends Comparable<? super K>, V> Node<K, V> remove(Node<K, V> n, K key) {
        return remove(n, key, null);
    }

    /** With {@code edit} null, every changed node is a copy; otherwise nodes owned by {@code edit} change in place. */
    private static <K extends Comparable<? super K>, V> Node<K, V> put(Node<K, V> n, K key, V value, Object edit) {
        if (n == null) {
            return new Node<>(key, value, null, null, edit);
        }
        int c = key.compareTo(n.key);
        if (c < 0) {
            Node<K, V> l = put(n.left, key, value, edit);
            return unchanged(l, n.left, edit) ? n : balance(n, n.key, n.value, l, n.right, edit);
        }
        if (c > 0) {
            Node<K, V> r = put(n.right, key, value, edit);
            return unchanged(r, n.right, edit) ? n : balance(n, n.key, n.value, n.left, r, edit);
        }
        return value == n.value ? n : node(n, n.key, value, n.left, n.right, edit);
    }

    private static <K extends Comparable<? super K>, V> Node<K, V> remove(Node<K, V> n, K key, Object edit) {
        if (n == null) {
            return null;
        }
        int c = key.compareTo(n.key);
        if (c < 0) {
            Node<K, V> l = remove(n.left, key, edit);
            return unchanged(l, n.left, edit) ? n : balance(n, n.key, n.value, l, n.right, edit);
        }
        if (c > 0) {
            Node<K, V> r = remove(n.right, key, edit);
            return unchanged(r, n.right, edit) ? n : balance(n, n.key, n.value, n.left, r, edit);
        }
        if (n.left == null) {
            return n.right;
        }
        if (n.right == null) {
            return n.left;
        }
        Node<K, V> min = n.right;
        while (min.left != null) {
            min = min.left;
        }
        return balance(n, min.key, min.value, n.left, removeMin(n.right, edit), edit);
    }

    private static <K extends Comparable<? super K>, V> Node<K, V> removeMin(Node<K, V> n, Object edit) {
        if (n.left == null) {
            return n.right;
        }
        return balance(n, n.key, n.value, removeMin(n.left, edit), n.right, edit);
    }

    /**
     * Whether a child after an update is the one before, unchanged: the same node that {@code edit} does not own (one
     * it owns may have changed in place, and its parent, owned too, must take its new height and size).
     */
    private static boolean unchanged(Node<?, ?> after, Node<?, ?> before, Object edit) {
        return after == before && (after == null || edit == null || after.edit != edit);
    }

    /**
     * Builds a node from two subtrees whose heights differ by at most 2, rotating back to AVL shape; {@code old} (the
     * node being replaced) is reused when {@code edit} owns it.
     */
    private static <K, V> Node<K, V> balance(Node<K, V> old, K key, V value, Node<K, V> l, Node<K, V> r,
                                             Object edit) {
        int hl = height(l);
        int hr = height(r);
        if (hl > hr + 1) {
            if (height(l.left) >= height(l.right)) {
                return node(l, l.key, l.value, l.left, node(old, key, value, l.right, r, edit), edit);
            }
            Node<K, V> lr = l.right;
            return node(lr, lr.key, lr.value, node(l, l.key, l.value, l.left, lr.left, edit),
                    node(old, key, value, lr.right, r, edit), edit);
        }
        if (hr > hl + 1) {
            if (height(r.right) >= height(r.left)) {
                return node(r, r.key, r.value, node(old, key, value, l, r.left, edit), r.right, edit);
            }
            Node<K, V> rl = r.left;
            return node(rl, rl.key, rl.value, node(old, key, value, l, rl.left, edit),
                    node(r, r.key, r.value, rl.right, r.right, edit), edit);
        }
        return node(old, key, value, l, r, edit);
    }

    /**
     * A node with these contents: {@code reuse} changed in place when {@code edit} owns it, else a new node. Each node
     * passed as {@code reuse} in one rebalancing is a different one, and no longer referenced where it was.
     */
    private static <K, V> Node<K, V> node(Node<K, V> reuse, K key, V value, Node<K, V> l, Node<K, V> r,
                                          Object edit) {
        if (edit != null && reuse != null && reuse.edit == edit) {
            reuse.set(key, value, l, r);
            return reuse;
        }
        return new Node<>(key, value, l, r, edit);
    }

    private static int height(Node<?, ?> n) {
        return n == null ? 0 : n.height;
    }

    private static int size(Node<?, ?> n) {
        return n == null ? 0 : n.size;
    }

    /**
     * A tree node; doubles as the iteration entry so that iterating allocates nothing per element. Changed only while
     * its {@code edit} token's writer holds it unpublished; readers see it through the store's volatile root.
     */
    private static final class Node<K, V> implements Map.Entry<K, V> {
        K key;
        V value;
        Node<K, V> left;
        Node<K, V> right;
        int height;
        int size;
        /** The writer that may change this node in place; null for nodes built without one. */
        final Object edit;

        Node(K key, V value, Node<K, V> left, Node<K, V> right) {
            this(key, value, left, right, null);
        }

        Node(K key, V value, Node<K, V> left, Node<K, V> right, Object edit) {
            this.edit = edit;
            set(key, value, left, right);
        }

        void set(K key, V value, Node<K, V> left, Node<K, V> right) {
            this.key = key;
            this.value = value;
            this.left = left;
            this.right = right;
            this.height = 1 + Math.max(height(left), height(right));
            this.size = 1 + size(left) + size(right);
        }

        @Override
        public K getKey() {
            return key;
        }

        @Override
        public V getValue() {
            return value;
        }

        @Override
        public V setValue(V v) {
            throw new UnsupportedOperationException("immutable");
        }

        @Override
        public String toString() {
            return key + "=" + value;
        }
    }

    /** In-order iteration from a key, either way: the two directions are mirror images, so one class. */
    private static final class InOrder<K extends Comparable<? super K>, V> implements Iterator<Map.Entry<K, V>> {
        private final ArrayDeque<Node<K, V>> stack = new ArrayDeque<>();
        private final boolean reverse;

        InOrder(Node<K, V> n, K from, boolean reverse) {
            this.reverse = reverse;
            // Keep the search path's nodes on the 'from' side: exactly the ancestors still to be visited, in order.
            while (n != null) {
                int c = from == null ? 0 : n.key.compareTo(from);
                if (reverse ? c <= 0 : c >= 0) {
                    stack.push(n);
                    n = near(n);
                } else {
                    n = far(n);
                }
            }
        }

        /** The child visited first: left going up, right going down. */
        private Node<K, V> near(Node<K, V> n) {
            return reverse ? n.right : n.left;
        }

        private Node<K, V> far(Node<K, V> n) {
            return reverse ? n.left : n.right;
        }

        @Override
        public boolean hasNext() {
            return !stack.isEmpty();
        }

        @Override
        public Map.Entry<K, V> next() {
            Node<K, V> n = stack.poll();
            if (n == null) {
                throw new NoSuchElementException();
            }
            for (Node<K, V> c = far(n); c != null; c = near(c)) {
                stack.push(c);
            }
            return n;
        }
    }
}
