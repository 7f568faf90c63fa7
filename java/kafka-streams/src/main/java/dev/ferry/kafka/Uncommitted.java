package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.WriteBatch;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The uncommitted writes of a transactional Ferry store (KIP-892, {@code enable.transactional.statestores}):
 * an overlay over the store's {@code data} family, in the family's order (unsigned bytes), holding
 * puts, point deletes and range deletes made since the last commit. Reads of the task see the
 * overlay over the family; {@link FerryStateStore#commit} writes the overlay with the changelog
 * offsets in one atomic write and clears it; a close without a commit drops it.
 *
 * <p>Range deletes (expired segments) drop the point writes inside them when made, so the overlay
 * means: the family, without the deleted ranges, then the point writes over it; {@link #writeTo}
 * writes it in that order.
 *
 * <p>Size: {@link #bytes()} counts each point write as its key, its value and {@value #ENTRY_OVERHEAD}
 * bytes (the map node, its index share and the two array headers); each range delete as its two
 * bounds and the same overhead.
 *
 * <p>Thread safety: the writes come from the stream thread, reads from any thread (interactive
 * queries). Changes are made under this object's monitor; {@link FerryStateStore} also holds it
 * while it writes a commit and clears the overlay, and while it opens a cursor and copies the
 * overlay's part of a range ({@link #merge}), so an iterator never sees a commit half done.
 * Point lookups take no lock: the family is written before the overlay is cleared, so a key missing
 * from the overlay because of a commit is already in the family.
 */
final class Uncommitted {
    /** Kafka Streams' switch for transactional state stores (StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG). */
    static final String CONFIG = "enable.transactional.statestores";
    /** The bytes counted per entry beyond its key and value (see the class comment). */
    static final long ENTRY_OVERHEAD = 64;
    /** The value of a point delete in the overlay (compared by identity). */
    static final byte[] DELETED = new byte[0];
    private final ConcurrentSkipListMap<byte[], byte[]> writes = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    /** Deleted ranges, begin (inclusive) to end (exclusive); disjoint and not touching. */
    private final ConcurrentSkipListMap<byte[], byte[]> ranges = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    private volatile long bytes;

    /**
     * @param configs the application's configs
     * @return whether Kafka Streams asks for transactional state stores
     */
    static boolean enabled(Map<String, ?> configs) {
        Object v = configs.get(CONFIG);
        return v instanceof Boolean b ? b : v != null && Boolean.parseBoolean(v.toString().trim());
    }

    /**
     * Records a put, or a delete when {@code value} is null.
     *
     * @param key the key in the family's layout (kept, not copied)
     * @param value the value (kept, not copied), or null
     */
    synchronized void put(byte[] key, byte[] value) {
        byte[] v = value == null ? DELETED : value;
        byte[] old = writes.put(key, v);
        bytes += old == null ? key.length + v.length + ENTRY_OVERHEAD : v.length - old.length;
    }

    /**
     * Records the deletion of every key in {@code [begin, end)}, uncommitted writes there included.
     *
     * @param begin the first key
     * @param end the end, exclusive
     */
    synchronized void deleteRange(byte[] begin, byte[] end) {
        if (Arrays.compareUnsigned(begin, end) >= 0) {
            return;
        }
        long b = bytes;
        NavigableMap<byte[], byte[]> inside = writes.subMap(begin, true, end, false);
        for (Map.Entry<byte[], byte[]> e : inside.entrySet()) {
            b -= e.getKey().length + e.getValue().length + ENTRY_OVERHEAD;
        }
        inside.clear();
        // merge with the ranges it overlaps or touches
        byte[] lo = begin;
        byte[] hi = end;
        Map.Entry<byte[], byte[]> before = ranges.floorEntry(begin);
        if (before != null && Arrays.compareUnsigned(before.getValue(), begin) >= 0) {
            lo = before.getKey();
        }
        NavigableMap<byte[], byte[]> merged = ranges.subMap(lo, true, end, true);
        for (Map.Entry<byte[], byte[]> e : merged.entrySet()) {
            if (Arrays.compareUnsigned(e.getValue(), hi) > 0) {
                hi = e.getValue();
            }
            b -= e.getKey().length + e.getValue().length + ENTRY_OVERHEAD;
        }
        merged.clear();
        ranges.put(lo, hi);
        bytes = b + lo.length + hi.length + ENTRY_OVERHEAD;
    }

    /**
     * Records a batch's operations, in order, at once for readers that hold this object's monitor.
     *
     * @param batch the operations
     */
    synchronized void apply(DataBatch batch) {
        batch.forEach(new DataBatch.Target() {
            @Override
            public void put(byte[] key, byte[] value) {
                Uncommitted.this.put(key, value);
            }

            @Override
            public void deleteRange(byte[] begin, byte[] end) {
                Uncommitted.this.deleteRange(begin, end);
            }
        });
    }

    /**
     * @param key a key of the family
     * @return null if the overlay does not hold the key; {@link #DELETED} if it deletes it; else its value
     */
    byte[] lookup(byte[] key) {
        byte[] v = writes.get(key);
        if (v != null) {
            return v;
        }
        return covered(ranges, key) ? DELETED : null;
    }

    private static boolean covered(NavigableMap<byte[], byte[]> ranges, byte[] key) {
        if (ranges.isEmpty()) {
            return false;
        }
        Map.Entry<byte[], byte[]> r = ranges.floorEntry(key);
        return r != null && Arrays.compareUnsigned(key, r.getValue()) < 0;
    }

    /** @return true when nothing is uncommitted */
    boolean isEmpty() {
        return writes.isEmpty() && ranges.isEmpty();
    }

    /** @return the size of the overlay in bytes (see the class comment) */
    long bytes() {
        return bytes;
    }

    /**
     * Adds the overlay to a batch: the range deletes, then the point writes.
     *
     * @param batch the batch
     * @param data the data family
     */
    void writeTo(WriteBatch batch, ColumnFamily data) {
        for (Map.Entry<byte[], byte[]> r : ranges.entrySet()) {
            batch.deleteRange(data, r.getKey(), r.getValue());
        }
        for (Map.Entry<byte[], byte[]> w : writes.entrySet()) {
            if (w.getValue() == DELETED) {
                batch.delete(data, w.getKey());
            } else {
                batch.put(data, w.getKey(), w.getValue());
            }
        }
    }

    /** Forgets every uncommitted write (after a commit wrote them, or at close). */
    synchronized void clear() {
        writes.clear();
        ranges.clear();
        bytes = 0;
    }

    /**
     * The overlay's part of a range merged over a cursor of the family. Call with this object's
     * monitor held, right after opening the cursor: the copy and the cursor then show the same moment.
     *
     * @param cursor a fresh cursor over {@code range}
     * @param range the range
     * @param forward ascending or descending
     * @return the merge, or null when the overlay holds nothing that touches the range
     */
    Merge merge(Cursor cursor, KeyRange range, boolean forward) {
        byte[] lo = range.lower();
        byte[] hi = range.upper();
        NavigableMap<byte[], byte[]> part = lo == null && hi == null ? writes
                : lo == null ? writes.headMap(hi, false)
                : hi == null ? writes.tailMap(lo, true)
                : Arrays.compareUnsigned(lo, hi) >= 0 ? new TreeMap<>(Arrays::compareUnsigned) : writes.subMap(lo, true, hi, false);
        if (part.isEmpty() && ranges.isEmpty()) {
            return null;
        }
        TreeMap<byte[], byte[]> copy = new TreeMap<>(Arrays::compareUnsigned);
        copy.putAll(part);
        TreeMap<byte[], byte[]> deleted = new TreeMap<>(Arrays::compareUnsigned);
        deleted.putAll(ranges);
        return new Merge(cursor, forward, (forward ? copy : copy.descendingMap()).entrySet().iterator(), deleted);
    }

    /**
     * A cursor of the family with the overlay's writes over it: keys the overlay deletes are
     * skipped, keys it writes come with its value, in the cursor's direction.
     */
    static final class Merge {
        private final Cursor cursor;
        private final boolean forward;
        private final Iterator<Map.Entry<byte[], byte[]>> overlay;
        private final NavigableMap<byte[], byte[]> deleted;
        private byte[] storeKey;
        private byte[] storeValue;
        private boolean storeDone;
        private Map.Entry<byte[], byte[]> pending;
        private byte[] key;
        private byte[] value;

        Merge(Cursor cursor, boolean forward, Iterator<Map.Entry<byte[], byte[]>> overlay, NavigableMap<byte[], byte[]> deleted) {
            this.cursor = cursor;
            this.forward = forward;
            this.overlay = overlay;
            this.deleted = deleted;
        }

        /** @return whether there is a next entry; it is then {@link #key()}, {@link #value()} */
        boolean move() {
            while (true) {
                while (storeKey == null && !storeDone) {
                    if (!(forward ? cursor.next() : cursor.prev())) {
                        storeDone = true;
                    } else {
                        byte[] k = cursor.keyBytes();
                        if (!covered(deleted, k)) {
                            storeKey = k;
                            storeValue = cursor.valueBytes();
                        }
                    }
                }
                if (pending == null && overlay.hasNext()) {
                    pending = overlay.next();
                }
                if (storeKey == null && pending == null) {
                    return false;
                }
                int c;
                if (storeKey == null) {
                    c = 1;
                } else if (pending == null) {
                    c = -1;
                } else {
                    c = Arrays.compareUnsigned(storeKey, pending.getKey());
                    c = forward ? c : -c;
                }
                if (c < 0) {
                    key = storeKey;
                    value = storeValue;
                    storeKey = null;
                    return true;
                }
                if (c == 0) {
                    storeKey = null; // the overlay's write replaces the family's entry
                }
                Map.Entry<byte[], byte[]> w = pending;
                pending = null;
                if (w.getValue() != DELETED) {
                    key = w.getKey();
                    value = w.getValue();
                    return true;
                }
            }
        }

        byte[] key() {
            return key;
        }

        byte[] value() {
            return value;
        }
    }
}
