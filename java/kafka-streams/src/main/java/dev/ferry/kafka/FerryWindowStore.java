package dev.ferry.kafka;

import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * A persistent Kafka Streams window store on a Ferry store (RocksDB or LMDB): the
 * {@code WindowStore<Bytes, byte[]>} that {@link FerryStores#persistentWindowStore} hands to
 * {@code Stores.windowStoreBuilder} and the DSL's windowed aggregations.
 *
 * <p>Keys are Kafka's window key schema, {@code [key][window start, 8 bytes][sequence number, 4
 * bytes]} (the form the changelog carries, so restoration writes changelog records as they are),
 * placed in time segments as {@link FerrySegmentedStore} describes. Reads follow the built-in
 * RocksDB window store exactly: the same results in the same order (segment by segment, within one by
 * key bytes, window start and sequence number), records older than the retention period (measured
 * from the latest window start seen) never returned, {@code retainDuplicates} numbering every put so
 * none overwrites another and skipping null values.
 *
 * <p>Thread safety, closed-store and error behaviour as {@link FerryStateStore}; a null key throws
 * {@link NullPointerException} (a null bound of a key range is open).
 */
public class FerryWindowStore extends FerrySegmentedStore implements WindowStore<Bytes, byte[]> {
    private static final int TIMESTAMP = Long.BYTES;
    private static final int SEQNUM = Integer.BYTES;
    private static final int SUFFIX = TIMESTAMP + SEQNUM;
    private final long windowSize;
    private final boolean retainDuplicates;
    private int seqnum;

    /**
     * Makes a store; it opens in {@code init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long records are kept, in milliseconds of stream time
     * @param segmentInterval the width of a time segment in milliseconds
     * @param windowSize the size of the windows, in milliseconds
     * @param retainDuplicates whether every put is kept (joins) instead of overwriting
     */
    public FerryWindowStore(String name, Engine engine, long retentionPeriod, long segmentInterval, long windowSize,
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

    static byte[] storeKey(byte[] key, long timestamp, int seqnum) {
        return ByteBuffer.allocate(key.length + SUFFIX).put(key).putLong(timestamp).putInt(seqnum).array();
    }

    static long timestampOf(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - SUFFIX);
    }

    @Override
    long segmentTimestamp(byte[] storeKey) {
        return timestampOf(storeKey);
    }

    @Override
    public void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        if (value == null && retainDuplicates) {
            return; // deleting a duplicate-keeping store's entry is a no-op, as in the built-in store
        }
        synchronized (this) {
            if (retainDuplicates) {
                seqnum = (seqnum + 1) & 0x7FFFFFFF;
            }
            putStoreKey(storeKey(key.get(), windowStartTimestamp, seqnum), value);
        }
    }

    /**
     * The value of one window, or null. With {@code retainDuplicates} this reads the entry of the
     * latest sequence number only, as the built-in store does.
     */
    @Override
    public byte[] fetch(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        return getStoreKey(storeKey(key.get(), timestamp, seqnum));
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        return fetchKey(key, timeFrom, timeTo, true);
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        return fetchKey(key, timeFrom, timeTo, false);
    }

    private WindowStoreIterator<byte[]> fetchKey(Bytes key, long timeFrom, long timeTo, boolean forward) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        long from = actualFrom(timeFrom);
        if (timeTo < from) {
            return new Values(null);
        }
        byte[] k = key.get();
        byte[] lower = storeKey(k, Math.max(0, from), 0);
        byte[] upper = storeKey(k, timeTo, Integer.MAX_VALUE);
        return new Values(segmentIterator(segmentsFor(from, timeTo, forward), lower, upper, forward, within(k, k, from, timeTo)));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return fetchRange(keyFrom, keyTo, timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return fetchRange(keyFrom, keyTo, timeFrom, timeTo, false);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> fetchRange(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo, boolean forward) {
        checkOpen();
        byte[] kf = keyFrom == null ? null : keyFrom.get();
        byte[] kt = keyTo == null ? null : keyTo.get();
        long from = actualFrom(timeFrom);
        if (kf != null && kt != null && keyFrom.compareTo(keyTo) > 0) {
            InvalidRange.warn(FerryWindowStore.class); // empty, with the built-in store's warning
            return new WindowedIterator(null, this::windowed);
        }
        if (timeTo < from) {
            return new WindowedIterator(null, this::windowed);
        }
        byte[] lower = kf == null ? null : lowerRange(kf, SUFFIX);
        byte[] upper = kt == null ? null : upperRange(kt, ByteBuffer.allocate(SUFFIX).putLong(timeTo).putInt(Integer.MAX_VALUE).array());
        return new WindowedIterator(segmentIterator(segmentsFor(from, timeTo, forward), lower, upper, forward, within(kf, kt, from, timeTo)), this::windowed);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return scan(0, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return scan(0, Long.MAX_VALUE, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return scan(timeFrom, timeTo, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return scan(timeFrom, timeTo, false);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> scan(long timeFrom, long timeTo, boolean forward) {
        checkOpen();
        long from = actualFrom(timeFrom);
        if (timeTo < from) {
            return new WindowedIterator(null, this::windowed);
        }
        return new WindowedIterator(segmentIterator(segmentsFor(from, timeTo, forward), null, null, forward, within(null, null, from, timeTo)), this::windowed);
    }

    /** The filter on store keys: key bytes in {@code [keyFrom, keyTo]} (null = open), window start in {@code [from, to]}. */
    private static Predicate<byte[]> within(byte[] keyFrom, byte[] keyTo, long from, long to) {
        return k -> {
            if (k.length < SUFFIX) {
                return false;
            }
            long t = timestampOf(k);
            return t >= from && t <= to && keyWithin(k, k.length - SUFFIX, keyFrom, keyTo);
        };
    }

    private Windowed<Bytes> windowed(byte[] storeKey) {
        long start = timestampOf(storeKey);
        long end = start + windowSize;
        if (end < 0) { // overflow: the window ends at the end of time, as in the built-in store
            end = Long.MAX_VALUE;
        }
        byte[] key = java.util.Arrays.copyOf(storeKey, storeKey.length - SUFFIX);
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
                throw new java.util.NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> kv = inner.next();
            return KeyValue.pair(timestampOf(kv.key.get()), kv.value);
        }

        @Override
        public Long peekNextKey() {
            if (inner == null) {
                throw new java.util.NoSuchElementException();
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
