package dev.ferry.kafka;

import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.errors.ProcessorStateException;
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
 * <p>Not under Kafka's record cache: Kafka puts its key-ordered {@code CachingWindowStore} over any window
 * store but its own time-ordered one, and that cache's merged reads are wrong over a time-ordered store. So
 * {@link #init} refuses a store under a {@code CachingWindowStore} unless {@code statestore.cache.max.bytes}
 * is 0; use {@code Materialized.withCachingDisabled()} (or {@code withCachingDisabled()} on the store builder).
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
     * Opens the store, after checking that no key-ordered record cache sits over it (see the class comment).
     *
     * @param context the store's context
     * @param root the outermost store of the stack this store is in
     * @throws ProcessorStateException when Kafka's key-ordered {@code CachingWindowStore} wraps this store and
     *         the record cache is on
     */
    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        Object cache = context.appConfigs().get("statestore.cache.max.bytes");
        boolean cacheOff = cache != null && cache.toString().trim().equals("0");
        for (StateStore s = root; !cacheOff && s instanceof WrappedStateStore && s != this; s = ((WrappedStateStore<?, ?, ?>) s).wrapped()) {
            if (s.getClass().getName().equals("org.apache.kafka.streams.state.internals.CachingWindowStore")) {
                throw new ProcessorStateException("store " + name() + ": a FerryTimeOrderedWindowStore cannot be under Kafka's record cache"
                        + " (Kafka puts its key-ordered CachingWindowStore over it, whose reads are wrong over a time-ordered store):"
                        + " disable caching for this store (Materialized.withCachingDisabled()) or set statestore.cache.max.bytes=0");
            }
        }
        super.init(context, root);
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
        return new WindowedIterator(read(keyFrom == null ? null : keyFrom.get(), keyTo == null ? null : keyTo.get(), timeFrom, timeTo, forward), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return new WindowedIterator(read(null, null, 0, Long.MAX_VALUE, true), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return new WindowedIterator(read(null, null, 0, Long.MAX_VALUE, false), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return new WindowedIterator(read(null, null, timeFrom, timeTo, true), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return new WindowedIterator(read(null, null, timeFrom, timeTo, false), this::windowed);
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
