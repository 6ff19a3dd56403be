package dev.offcache.registry.persistent;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * An immutable (persistent) hash map: a compressed hash-array mapped trie of 32-way bitmap nodes (CHAMP layout:
 * key/value pairs first, sub-tries last, kept canonical on removal). {@link #put} and {@link #remove} return a new
 * trie that shares every untouched node with this one, so a writer can publish each version through a volatile
 * reference and any number of readers use the version they read without locks, copies or allocation
 * ({@link #get} allocates nothing). Keys need stable {@code hashCode}/{@code equals}; keys with equal hashes are
 * kept in collision nodes. Null keys and values are refused.
 *
 * <p>Lives on the heap; a version is reclaimed by the GC once nobody holds it. {@link #keySet()} and
 * {@link #asMap()} are read-only views of this version.
 *
 * @param <K> the key type.
 * @param <V> the value type.
 */
public final class HashTrie<K, V>
{
    private static final int BITS = 5;
    private static final int MASK = (1 << BITS) - 1;
    private static final int MAX_SHIFT = 32;
    private static final HashTrie<?, ?> EMPTY = new HashTrie<>(BitmapNode.EMPTY, 0);

    private final Node root;
    private final int size;

    private HashTrie(final Node root, final int size)
    {
        this.root = root;
        this.size = size;
    }

    /**
     * The empty trie.
     *
     * @param <K> the key type.
     * @param <V> the value type.
     * @return the empty trie (one shared instance).
     */
    @SuppressWarnings("unchecked")
    public static <K, V> HashTrie<K, V> empty()
    {
        return (HashTrie<K, V>) EMPTY;
    }

    /**
     * The value of a key.
     *
     * @param key the key.
     * @return its value, or null when absent.
     */
    @SuppressWarnings("unchecked")
    public V get(final Object key)
    {
        final int hash = hash(key);
        Node node = root;
        int shift = 0;
        while (true)
        {
            if (node instanceof BitmapNode bitmap)
            {
                final int bit = bit(hash, shift);
                if ((bitmap.dataMap & bit) != 0)
                {
                    final int index = 2 * Integer.bitCount(bitmap.dataMap & (bit - 1));
                    return key.equals(bitmap.content[index]) ? (V) bitmap.content[index + 1] : null;
                }
                if ((bitmap.nodeMap & bit) == 0)
                {
                    return null;
                }
                node = bitmap.subNode(bit);
                shift += BITS;
            }
            else
            {
                return (V) ((CollisionNode) node).get(key);
            }
        }
    }

    /**
     * Whether a key is present.
     *
     * @param key the key.
     * @return true when it has a value.
     */
    public boolean containsKey(final Object key)
    {
        return get(key) != null;
    }

    /** {@link #containsKey}, false for null (what the {@code java.util} views answer). */
    private boolean containsNullable(final Object key)
    {
        return key != null && get(key) != null;
    }

    /**
     * This trie with a key set to a value.
     *
     * @param key   the key; not null.
     * @param value the value; not null.
     * @return the new trie (this one when the key already had this very value).
     */
    public HashTrie<K, V> put(final K key, final V value)
    {
        if (key == null || value == null)
        {
            throw new NullPointerException("HashTrie refuses null keys and values");
        }
        final Change change = new Change();
        final Node newRoot = root.put(key, value, hash(key), 0, change);
        return newRoot == root ? this : new HashTrie<>(newRoot, change.added ? size + 1 : size);
    }

    /**
     * This trie without a key.
     *
     * @param key the key.
     * @return the new trie (this one when the key was absent).
     */
    public HashTrie<K, V> remove(final Object key)
    {
        final Node newRoot = root.remove(key, hash(key), 0);
        return newRoot == root ? this : new HashTrie<>(newRoot, size - 1);
    }

    /**
     * Number of keys.
     *
     * @return the size.
     */
    public int size()
    {
        return size;
    }

    /**
     * Whether there are no keys.
     *
     * @return true when empty.
     */
    public boolean isEmpty()
    {
        return size == 0;
    }

    /**
     * Visits every key and value, in no particular order.
     *
     * @param action receives each pair.
     */
    @SuppressWarnings("unchecked")
    public void forEach(final BiConsumer<? super K, ? super V> action)
    {
        root.forEach((BiConsumer<Object, Object>) action);
    }

    /**
     * The keys, as a read-only set view of this version.
     *
     * @return the view.
     */
    public Set<K> keySet()
    {
        return new KeySet<>(this);
    }

    /**
     * The pairs, as a read-only map view of this version.
     *
     * @return the view.
     */
    public Map<K, V> asMap()
    {
        return new MapView<>(this);
    }

    private static int hash(final Object key)
    {
        // murmur3's finalizer: every bit of the key's hash reaches the low bits the root branches on
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return h;
    }

    private static int bit(final int hash, final int shift)
    {
        return 1 << ((hash >>> shift) & MASK);
    }

    private static final class Change
    {
        boolean added;
    }

    private abstract static class Node
    {
        abstract Node put(Object key, Object value, int hash, int shift, Change change);

        /**
         * The node without the key; this node when absent. A node left with one pair and no sub-trie is returned
         * as such, for the parent to inline.
         */
        abstract Node remove(Object key, int hash, int shift);

        abstract void forEach(BiConsumer<Object, Object> action);

        /**
         * Whether the node is one pair and nothing else (its parent then holds the pair inline).
         */
        abstract boolean isSinglePair();

        /** The key of a single-pair node: its slots hold key and value first. */
        final Object firstKey()
        {
            return slots()[0];
        }

        /** The value of a single-pair node. */
        final Object firstValue()
        {
            return slots()[1];
        }

        /**
         * Content of the node for iteration: pairs (key at even, value at odd indexes) up to {@link #pairSlots()},
         * sub-tries after them.
         */
        abstract Object[] slots();

        abstract int pairSlots();
    }

    private static final class BitmapNode extends Node
    {
        static final BitmapNode EMPTY = new BitmapNode(0, 0, new Object[0]);

        final int dataMap;
        final int nodeMap;
        /** Pairs (key, value) in bit order, then sub-tries in reverse bit order. */
        final Object[] content;

        BitmapNode(final int dataMap, final int nodeMap, final Object[] content)
        {
            this.dataMap = dataMap;
            this.nodeMap = nodeMap;
            this.content = content;
        }

        Node subNode(final int bit)
        {
            return (Node) content[content.length - 1 - Integer.bitCount(nodeMap & (bit - 1))];
        }

        @Override
        Node put(final Object key, final Object value, final int hash, final int shift, final Change change)
        {
            final int bit = bit(hash, shift);
            if ((dataMap & bit) != 0)
            {
                final int index = 2 * Integer.bitCount(dataMap & (bit - 1));
                final Object existing = content[index];
                if (existing.equals(key))
                {
                    if (content[index + 1] == value)
                    {
                        return this;
                    }
                    final Object[] copy = content.clone();
                    copy[index + 1] = value;
                    return new BitmapNode(dataMap, nodeMap, copy);
                }
                change.added = true;
                final Node sub = merge(existing, content[index + 1], hash(existing), key, value, hash, shift + BITS);
                return withPairReplacedBySubNode(bit, index, sub);
            }
            if ((nodeMap & bit) != 0)
            {
                final Node sub = subNode(bit);
                final Node changed = sub.put(key, value, hash, shift + BITS, change);
                return changed == sub ? this : withSubNode(bit, changed);
            }
            change.added = true;
            final int index = 2 * Integer.bitCount(dataMap & (bit - 1));
            final Object[] copy = new Object[content.length + 2];
            System.arraycopy(content, 0, copy, 0, index);
            copy[index] = key;
            copy[index + 1] = value;
            System.arraycopy(content, index, copy, index + 2, content.length - index);
            return new BitmapNode(dataMap | bit, nodeMap, copy);
        }

        @Override
        Node remove(final Object key, final int hash, final int shift)
        {
            final int bit = bit(hash, shift);
            if ((dataMap & bit) != 0)
            {
                final int index = 2 * Integer.bitCount(dataMap & (bit - 1));
                if (!content[index].equals(key))
                {
                    return this;
                }
                final Object[] copy = new Object[content.length - 2];
                System.arraycopy(content, 0, copy, 0, index);
                System.arraycopy(content, index + 2, copy, index, content.length - index - 2);
                return new BitmapNode(dataMap & ~bit, nodeMap, copy);
            }
            if ((nodeMap & bit) != 0)
            {
                final Node sub = subNode(bit);
                final Node changed = sub.remove(key, hash, shift + BITS);
                if (changed == sub)
                {
                    return this;
                }
                return changed.isSinglePair() ?
                    withSubNodeInlined(bit, changed.firstKey(), changed.firstValue()) : withSubNode(bit, changed);
            }
            return this;
        }

        @Override
        void forEach(final BiConsumer<Object, Object> action)
        {
            final int pairs = 2 * Integer.bitCount(dataMap);
            for (int i = 0; i < pairs; i += 2)
            {
                action.accept(content[i], content[i + 1]);
            }
            for (int i = pairs; i < content.length; i++)
            {
                ((Node) content[i]).forEach(action);
            }
        }

        @Override
        boolean isSinglePair()
        {
            return nodeMap == 0 && Integer.bitCount(dataMap) == 1;
        }

        @Override
        Object[] slots()
        {
            return content;
        }

        @Override
        int pairSlots()
        {
            return 2 * Integer.bitCount(dataMap);
        }

        private Node withSubNode(final int bit, final Node sub)
        {
            final Object[] copy = content.clone();
            copy[content.length - 1 - Integer.bitCount(nodeMap & (bit - 1))] = sub;
            return new BitmapNode(dataMap, nodeMap, copy);
        }

        private Node withPairReplacedBySubNode(final int bit, final int pairIndex, final Node sub)
        {
            final int newNodeMap = nodeMap | bit;
            final Object[] copy = new Object[content.length - 1];
            System.arraycopy(content, 0, copy, 0, pairIndex);
            final int nodeIndexOld = content.length - Integer.bitCount(nodeMap);
            System.arraycopy(content, pairIndex + 2, copy, pairIndex, nodeIndexOld - pairIndex - 2);
            // sub-tries in reverse bit order: those with a higher bit come first
            final int subPosition = copy.length - 1 - Integer.bitCount(newNodeMap & (bit - 1));
            final int firstNode = nodeIndexOld - 2;
            System.arraycopy(content, nodeIndexOld, copy, firstNode, subPosition - firstNode);
            copy[subPosition] = sub;
            System.arraycopy(content, nodeIndexOld + subPosition - firstNode, copy, subPosition + 1,
                copy.length - subPosition - 1);
            return new BitmapNode(dataMap & ~bit, newNodeMap, copy);
        }

        private Node withSubNodeInlined(final int bit, final Object key, final Object value)
        {
            final int newDataMap = dataMap | bit;
            final int pairIndex = 2 * Integer.bitCount(dataMap & (bit - 1));
            final int subPositionOld = content.length - 1 - Integer.bitCount(nodeMap & (bit - 1));
            final Object[] copy = new Object[content.length + 1];
            System.arraycopy(content, 0, copy, 0, pairIndex);
            copy[pairIndex] = key;
            copy[pairIndex + 1] = value;
            System.arraycopy(content, pairIndex, copy, pairIndex + 2, subPositionOld - pairIndex);
            System.arraycopy(content, subPositionOld + 1, copy, subPositionOld + 2,
                content.length - subPositionOld - 1);
            return new BitmapNode(newDataMap, nodeMap & ~bit, copy);
        }
    }

    private static Node merge(
        final Object key1, final Object value1, final int hash1,
        final Object key2, final Object value2, final int hash2, final int shift)
    {
        if (shift >= MAX_SHIFT)
        {
            return new CollisionNode(hash1, new Object[] {key1, value1, key2, value2});
        }
        final int bit1 = bit(hash1, shift);
        final int bit2 = bit(hash2, shift);
        if (bit1 == bit2)
        {
            return new BitmapNode(0, bit1,
                new Object[] {merge(key1, value1, hash1, key2, value2, hash2, shift + BITS)});
        }
        final Object[] pairs = Integer.compareUnsigned(bit1, bit2) < 0 ?
            new Object[] {key1, value1, key2, value2} : new Object[] {key2, value2, key1, value1};
        return new BitmapNode(bit1 | bit2, 0, pairs);
    }

    private static final class CollisionNode extends Node
    {
        final int hash;
        final Object[] pairs;

        CollisionNode(final int hash, final Object[] pairs)
        {
            this.hash = hash;
            this.pairs = pairs;
        }

        Object get(final Object key)
        {
            for (int i = 0; i < pairs.length; i += 2)
            {
                if (pairs[i].equals(key))
                {
                    return pairs[i + 1];
                }
            }
            return null;
        }

        @Override
        Node put(final Object key, final Object value, final int keyHash, final int shift, final Change change)
        {
            for (int i = 0; i < pairs.length; i += 2)
            {
                if (pairs[i].equals(key))
                {
                    if (pairs[i + 1] == value)
                    {
                        return this;
                    }
                    final Object[] copy = pairs.clone();
                    copy[i + 1] = value;
                    return new CollisionNode(hash, copy);
                }
            }
            change.added = true;
            final Object[] copy = new Object[pairs.length + 2];
            System.arraycopy(pairs, 0, copy, 0, pairs.length);
            copy[pairs.length] = key;
            copy[pairs.length + 1] = value;
            return new CollisionNode(hash, copy);
        }

        @Override
        Node remove(final Object key, final int keyHash, final int shift)
        {
            for (int i = 0; i < pairs.length; i += 2)
            {
                if (pairs[i].equals(key))
                {
                    final Object[] copy = new Object[pairs.length - 2];
                    System.arraycopy(pairs, 0, copy, 0, i);
                    System.arraycopy(pairs, i + 2, copy, i, pairs.length - i - 2);
                    return new CollisionNode(hash, copy);
                }
            }
            return this;
        }

        @Override
        void forEach(final BiConsumer<Object, Object> action)
        {
            for (int i = 0; i < pairs.length; i += 2)
            {
                action.accept(pairs[i], pairs[i + 1]);
            }
        }

        @Override
        boolean isSinglePair()
        {
            return pairs.length == 2;
        }

        @Override
        Object[] slots()
        {
            return pairs;
        }

        @Override
        int pairSlots()
        {
            return pairs.length;
        }
    }

    /**
     * Walks the trie depth first with an explicit stack (at most 8 levels), yielding the index of each pair.
     */
    private static final class Cursor
    {
        private final Node[] nodes = new Node[MAX_SHIFT / BITS + 2];
        private final int[] positions = new int[MAX_SHIFT / BITS + 2];
        private int depth;
        private Object[] slots;
        private int pair;

        Cursor(final Node root)
        {
            nodes[0] = root;
            positions[0] = 0;
            depth = 0;
            advance();
        }

        boolean hasNext()
        {
            return slots != null;
        }

        void next(final Object[] out)
        {
            if (slots == null)
            {
                throw new NoSuchElementException();
            }
            out[0] = slots[pair];
            out[1] = slots[pair + 1];
            advance();
        }

        /**
         * The walk as an iterator of what {@code element} makes of each (key, value) pair (the views' iterators).
         */
        <T> Iterator<T> iterator(final Function<Object[], T> element)
        {
            final Object[] out = new Object[2];
            return new Iterator<>()
            {
                @Override
                public boolean hasNext()
                {
                    return Cursor.this.hasNext();
                }

                @Override
                public T next()
                {
                    Cursor.this.next(out);
                    return element.apply(out);
                }
            };
        }

        private void advance()
        {
            while (depth >= 0)
            {
                final Node node = nodes[depth];
                final Object[] content = node.slots();
                final int pairSlots = node.pairSlots();
                final int position = positions[depth];
                if (position < pairSlots)
                {
                    positions[depth] = position + 2;
                    slots = content;
                    pair = position;
                    return;
                }
                if (position < content.length)
                {
                    positions[depth] = position + 1;
                    depth++;
                    nodes[depth] = (Node) content[position];
                    positions[depth] = 0;
                    continue;
                }
                nodes[depth] = null;
                depth--;
            }
            slots = null;
        }
    }

    private static final class KeySet<K> extends AbstractSet<K>
    {
        private final HashTrie<K, ?> trie;

        KeySet(final HashTrie<K, ?> trie)
        {
            this.trie = trie;
        }

        @Override
        public boolean contains(final Object key)
        {
            return trie.containsNullable(key);
        }

        @Override
        public int size()
        {
            return trie.size;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Iterator<K> iterator()
        {
            return new Cursor(trie.root).iterator(pair -> (K) pair[0]);
        }
    }

    private static final class MapView<K, V> extends AbstractMap<K, V>
    {
        private final HashTrie<K, V> trie;

        MapView(final HashTrie<K, V> trie)
        {
            this.trie = trie;
        }

        @Override
        public V get(final Object key)
        {
            return key == null ? null : trie.get(key);
        }

        @Override
        public boolean containsKey(final Object key)
        {
            return trie.containsNullable(key);
        }

        @Override
        public int size()
        {
            return trie.size;
        }

        @Override
        public Set<Map.Entry<K, V>> entrySet()
        {
            return new AbstractSet<>()
            {
                @Override
                public int size()
                {
                    return trie.size;
                }

                @Override
                @SuppressWarnings("unchecked")
                public Iterator<Map.Entry<K, V>> iterator()
                {
                    return new Cursor(trie.root).iterator(
                        pair -> new AbstractMap.SimpleImmutableEntry<>((K) pair[0], (V) pair[1]));
                }
            };
        }
    }
}
