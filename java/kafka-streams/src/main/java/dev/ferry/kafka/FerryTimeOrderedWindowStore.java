package dev.ferry.kafka;

import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A persistent window store ordered by time, on a Ferry store (RocksDB or LMDB): what the DSL's
 * emit-on-window-close aggregations read their closed windows from ({@code fetchAll(from, to)} in
 * window-start order), the counterpart of Kafka's {@code RocksDBTimeOrderedWindowStore}. Values are in
 * the timestamped format ({@link TimestampedBytesStore}), as in Kafka's store.
 *
 * <p>Keys are {@code [window start, 8 bytes][key][sequence number, 4 bytes]} (Kafka's time-first window
 * key schema) in time segments as {@link FerrySegmentedStore} describes, so every read comes back in
 * time order: by window start, then key bytes, then sequence number, as from Kafka's store. The
 * changelog carries Kafka's usual key-first window keys (Kafka's change-logging layer writes them);
 * restoration turns them around. There is no key-first index: a read of one key or a key range walks
 * the time range asked for and keeps that key's windows (Kafka builds its index only for sliding
 * windows, whose aggregation reads one key's windows per record).
 *
 * <p>Under Kafka's record cache: Kafka puts its key-ordered {@code CachingWindowStore} over any window store
 * but its own time-ordered one ({@code TimeOrderedCachingWindowStore} accepts only an instance of Kafka's
 * {@code RocksDBTimeOrderedWindowStore}). That cache merges its entries with the store's reads in its own
 * order: by time segment ({@code window start / segmentInterval}), then Kafka's key-first window key
 * {@code [key][window start][sequence number]}. So when {@link #init} finds a {@code CachingWindowStore}
 * over this store and the cache is on, reads of more than one key answer in that order: segment by segment
 * in time order, each segment's windows in the range read at once and sorted by key-first key (reversed for
 * backward reads). The merged reads are then right; their order is the cache's, not time order: an
 * emit-on-window-close aggregation emits the windows that close together by segment, then key, then
 * window start (per key still in window-start order), where Kafka's own store emits them by window start.
 * A read of one key needs no sorting (both orders agree). Memory: such a read holds one segment's part of
 * its time range at a time; {@code all()} under the cache holds a whole segment.
 *
 * <p>Thread safety, closed-store and error behaviour as {@link FerryStateStore}; a null key throws
 * {@link NullPointerException} (a null bound of a key range is open).
 */
public class FerryTimeOrderedWindowStore extends FerrySegmentedStore implements WindowStore<Bytes, byte[]>, TimestampedBytesStore {
    private static final int TIMESTAMP = Long.BYTES;
    private static final int SEQNUM = Integer.BYTES;
    private static final int FIXED = TIMESTAMP + SEQNUM;
    private final long windowSize;
    private final boolean retainDuplicates;
    private int seqnum;
    /** Reads of several keys answer in the order of Kafka's key-ordered cache over this store (see the class comment). */
    private volatile boolean keyOrdered;

    /**
     * Makes a store; it opens in {@code init}. Use {@link FerryStores#persistentTimeOrderedWindowStore}
     * or {@link FerryStores#lmdbTimeOrderedWindowStore} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long records are kept, in milliseconds of stream time
     * @param segmentInterval the width of a time segment in milliseconds
     * @param windowSize the size of the windows, in milliseconds
     * @param retainDuplicates whether every put is kept instead of overwriting
     */
    public FerryTimeOrderedWindowStore(String name, Engine engine, long retentionPeriod, long segmentInterval, long windowSize,
                                       boolean retainDuplicates) {
        super(name, engine, retentionPeriod, segmentInterval);
        if (windowSize < 0) {
            throw new IllegalArgumentException("windowSize cannot be negative");
        }
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
    }

    /** @return the window size in milliseconds */
    public long windowSize() {
        return windowSize;
    }

    /** @return whether duplicates are retained */
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    /**
     * Opens the store; when Kafka's key-ordered {@code CachingWindowStore} sits over it and the record cache
     * is on, reads of several keys answer in the cache's order from then on (see the class comment).
     *
     * @param context the store's context
     * @param root the outermost store of the stack this store is in
     */
    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        keyOrdered = underKeyOrderedCache(context, root, this);
        super.init(context, root);
    }

    /**
     * Whether Kafka's key-ordered {@code CachingWindowStore} wraps {@code store} in the stack under
     * {@code root} and the record cache is on ({@code statestore.cache.max.bytes} is not 0).
     */
    static boolean underKeyOrderedCache(StateStoreContext context, StateStore root, StateStore store) {
        Object cache = context.appConfigs().get("statestore.cache.max.bytes");
        if (cache != null && cache.toString().trim().equals("0")) {
            return false; // nothing is ever held in the cache: its merge hands out the store's reads as they come
        }
        for (StateStore s = root; s instanceof WrappedStateStore && s != store; s = ((WrappedStateStore<?, ?, ?>) s).wrapped()) {
            if (s.getClass().getName().equals("org.apache.kafka.streams.state.internals.CachingWindowStore")) {
                return true;
            }
        }
        return false;
    }

    /** @return whether reads of several keys answer in the order of Kafka's key-ordered cache (see the class comment) */
    boolean keyOrdered() {
        return keyOrdered;
    }

    static byte[] storeKey(byte[] key, long timestamp, int seqnum) {
        return ByteBuffer.allocate(key.length + FIXED).putLong(timestamp).put(key).putInt(seqnum).array();
    }

    private static long timestampOf(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(0);
    }

    /** The key-first changelog key {@code [key][start][seqnum]} as this store's time-first key. */
    static byte[] fromChangelogKey(byte[] changelogKey) {
        int keyLength = changelogKey.length - FIXED;
        if (keyLength < 0) {
            throw new IllegalArgumentException("not a window store key: " + changelogKey.length + " bytes");
        }
        return ByteBuffer.allocate(changelogKey.length).put(changelogKey, keyLength, TIMESTAMP).put(changelogKey, 0, keyLength)
                .put(changelogKey, keyLength + TIMESTAMP, SEQNUM).array();
    }

    @Override
    long segmentTimestamp(byte[] storeKey) {
        return timestampOf(storeKey);
    }

    @Override
    synchronized void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        List<KeyValue<byte[], byte[]>> turned = new ArrayList<>(records.size());
        for (KeyValue<byte[], byte[]> r : records) {
            turned.add(KeyValue.pair(fromChangelogKey(r.key), r.value));
        }
        super.restoreAll(turned);
    }

    @Override
    public void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        if (value == null && retainDuplicates) {
            return; // as in Kafka's store: deleting a duplicate-keeping store's entry is a no-op
        }
        synchronized (this) {
            if (retainDuplicates) {
                seqnum = (seqnum + 1) & 0x7FFFFFFF;
            }
            putStoreKey(storeKey(key.get(), windowStartTimestamp, seqnum), value);
        }
    }

    /** The value of one window, or null (with {@code retainDuplicates}, of the latest sequence number only, as Kafka's store). */
    @Override
    public byte[] fetch(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        return getStoreKey(storeKey(key.get(), timestamp, seqnum));
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        Objects.requireNonNull(key, "key cannot be null");
        return new Values(read(key.get(), key.get(), timeFrom, timeTo, true));
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        Objects.requireNonNull(key, "key cannot be null");
        return new Values(read(key.get(), key.get(), timeFrom, timeTo, false));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return range(keyFrom, keyTo, timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return range(keyFrom, keyTo, timeFrom, timeTo, false);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> range(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo, boolean forward) {
        checkOpen();
        if (keyFrom != null && keyTo != null && keyFrom.compareTo(keyTo) > 0) {
            InvalidRange.warn(FerryTimeOrderedWindowStore.class); // empty, with Kafka's warning
            return new WindowedIterator(null, this::windowed);
        }
        byte[] from = keyFrom == null ? null : keyFrom.get();
        byte[] to = keyTo == null ? null : keyTo.get();
        return new WindowedIterator(from != null && Arrays.equals(from, to) ? read(from, to, timeFrom, timeTo, forward)
                : readKeys(from, to, timeFrom, timeTo, forward), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return new WindowedIterator(readKeys(null, null, 0, Long.MAX_VALUE, true), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return new WindowedIterator(readKeys(null, null, 0, Long.MAX_VALUE, false), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return new WindowedIterator(readKeys(null, null, timeFrom, timeTo, true), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return new WindowedIterator(readKeys(null, null, timeFrom, timeTo, false), this::windowed);
    }

    /** A read of several keys: in time order, or under Kafka's key-ordered cache in its order (see the class comment). */
    private KeyValueIterator<Bytes, byte[]> readKeys(byte[] keyFrom, byte[] keyTo, long timeFrom, long timeTo, boolean forward) {
        if (!keyOrdered) {
            return read(keyFrom, keyTo, timeFrom, timeTo, forward);
        }
        checkOpen();
        long from = actualFrom(timeFrom);
        if (timeTo < from) {
            return null;
        }
        byte[] lower = from <= 0 ? null : ByteBuffer.allocate(TIMESTAMP).putLong(from).array();
        byte[] upper = timeTo == Long.MAX_VALUE ? null : ByteBuffer.allocate(TIMESTAMP).putLong(timeTo + 1).array();
        Predicate<byte[]> keep = within(keyFrom, keyTo, from, timeTo);
        return new SegmentSorted(segmentsFor(from, timeTo, forward), forward,
                id -> segmentIterator(List.of(id), lower, upper, forward, keep));
    }

    /** Kafka's key-first window key {@code [key][window start][sequence number]} of a time-first store key. */
    static byte[] keyFirst(byte[] storeKey) {
        int n = storeKey.length - FIXED;
        return ByteBuffer.allocate(storeKey.length).put(storeKey, TIMESTAMP, n).put(storeKey, 0, TIMESTAMP)
                .put(storeKey, TIMESTAMP + n, SEQNUM).array();
    }

    /** The windows starting in {@code [timeFrom, timeTo]} (and within retention) of the keys in {@code [keyFrom, keyTo]}; null when none. */
    private KeyValueIterator<Bytes, byte[]> read(byte[] keyFrom, byte[] keyTo, long timeFrom, long timeTo, boolean forward) {
        checkOpen();
        long from = actualFrom(timeFrom);
        if (timeTo < from) {
            return null;
        }
        byte[] lower = from <= 0 ? null : ByteBuffer.allocate(TIMESTAMP).putLong(from).array();
        byte[] upper = timeTo == Long.MAX_VALUE ? null : ByteBuffer.allocate(TIMESTAMP).putLong(timeTo + 1).array();
        return segmentIterator(segmentsFor(from, timeTo, forward), lower, upper, forward, within(keyFrom, keyTo, from, timeTo));
    }

    private static Predicate<byte[]> within(byte[] keyFrom, byte[] keyTo, long from, long to) {
        return k -> {
            if (k.length < FIXED) {
                return false;
            }
            long t = timestampOf(k);
            if (t < from || t > to) {
                return false;
            }
            int n = k.length - FIXED;
            return (keyFrom == null || Arrays.compareUnsigned(k, TIMESTAMP, TIMESTAMP + n, keyFrom, 0, keyFrom.length) >= 0)
                    && (keyTo == null || Arrays.compareUnsigned(k, TIMESTAMP, TIMESTAMP + n, keyTo, 0, keyTo.length) <= 0);
        };
    }

    private Windowed<Bytes> windowed(byte[] storeKey) {
        long start = timestampOf(storeKey);
        long end = start + windowSize;
        if (end < 0) { // overflow: the window ends at the end of time, as in Kafka's store
            end = Long.MAX_VALUE;
        }
        byte[] key = Arrays.copyOfRange(storeKey, TIMESTAMP, storeKey.length - SEQNUM);
        return new Windowed<>(Bytes.wrap(key), new TimeWindow(start, end));
    }

    /**
     * Segment after segment, each segment's entries read at once and handed out sorted by their key-first
     * keys (unsigned bytes; descending when backward): the order of Kafka's key-ordered cache. Confined to
     * one thread; holds no cursor between segments.
     */
    private static final class SegmentSorted implements KeyValueIterator<Bytes, byte[]> {
        private final Iterator<Long> segments;
        private final boolean forward;
        private final Function<Long, KeyValueIterator<Bytes, byte[]>> open;
        private List<KeyValue<Bytes, byte[]>> buffer = List.of();
        private int next;
        private boolean closed;

        SegmentSorted(List<Long> segments, boolean forward, Function<Long, KeyValueIterator<Bytes, byte[]>> open) {
            this.segments = segments.iterator();
            this.forward = forward;
            this.open = open;
        }

        private boolean fill() {
            while (next >= buffer.size()) {
                if (closed || !segments.hasNext()) {
                    return false;
                }
                List<byte[]> keys = new ArrayList<>();
                List<KeyValue<Bytes, byte[]>> entries = new ArrayList<>();
                try (KeyValueIterator<Bytes, byte[]> it = open.apply(segments.next())) {
                    while (it.hasNext()) {
                        KeyValue<Bytes, byte[]> kv = it.next();
                        keys.add(keyFirst(kv.key.get()));
                        entries.add(kv);
                    }
                }
                Integer[] order = new Integer[entries.size()];
                for (int i = 0; i < order.length; i++) {
                    order[i] = i;
                }
                Comparator<Integer> byKey = (a, b) -> Arrays.compareUnsigned(keys.get(a), keys.get(b));
                Arrays.sort(order, forward ? byKey : byKey.reversed());
                List<KeyValue<Bytes, byte[]>> sorted = new ArrayList<>(order.length);
                for (int i : order) {
                    sorted.add(entries.get(i));
                }
                buffer = sorted;
                next = 0;
            }
            return true;
        }

        @Override
        public boolean hasNext() {
            return fill();
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!fill()) {
                throw new NoSuchElementException();
            }
            return buffer.get(next++);
        }

        @Override
        public Bytes peekNextKey() {
            if (!fill()) {
                throw new NoSuchElementException();
            }
            return buffer.get(next).key;
        }

        @Override
        public void close() {
            closed = true;
            buffer = List.of();
            next = 0;
        }
    }

    /** Window start and value of one key's windows. */
    private static final class Values implements WindowStoreIterator<byte[]> {
        private final KeyValueIterator<Bytes, byte[]> inner; // null: empty

        Values(KeyValueIterator<Bytes, byte[]> inner) {
            this.inner = inner;
        }

        @Override
        public boolean hasNext() {
            return inner != null && inner.hasNext();
        }

        @Override
        public KeyValue<Long, byte[]> next() {
            if (inner == null) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> kv = inner.next();
            return KeyValue.pair(timestampOf(kv.key.get()), kv.value);
        }

        @Override
        public Long peekNextKey() {
            if (inner == null) {
                throw new NoSuchElementException();
            }
            return timestampOf(inner.peekNextKey().get());
        }

        @Override
        public void close() {
            if (inner != null) {
                inner.close();
            }
        }
    }

    /**
     * The {@code READ_COMMITTED} view of a transactional store hides its uncommitted writes; any other
     * level, or a store that is not transactional, gives the store itself (KIP-892).
     */
    @Override
    @SuppressWarnings("unchecked")
    public ReadOnlyWindowStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return readOnlyView(isolationLevel, ReadOnlyWindowStore.class, this);
    }
}
