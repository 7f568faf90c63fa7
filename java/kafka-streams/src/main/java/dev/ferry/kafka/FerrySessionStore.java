package dev.ferry.kafka;

import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.SessionStore;

/**
 * A persistent Kafka Streams session store on a Ferry store (RocksDB or LMDB): the
 * {@code SessionStore<Bytes, byte[]>} that {@link FerryStores#persistentSessionStore} hands to
 * {@code Stores.sessionStoreBuilder} and the DSL's session-windowed aggregations.
 *
 * <p>Keys are Kafka's session key schema, {@code [key][session end, 8 bytes][session start, 8
 * bytes]} (the changelog's form), placed in time segments by their end time as
 * {@link FerrySegmentedStore} describes. Reads follow the built-in RocksDB session store exactly:
 * the sessions whose end is at or after the earliest end and whose start is at or before the latest
 * start asked for, in the same order (segment by segment, within one by key bytes, end and start);
 * sessions that ended before the retention period (measured from the latest session end seen) are
 * never returned.
 *
 * <p>Thread safety, closed-store and error behaviour as {@link FerryStateStore}; a null key throws
 * {@link NullPointerException} (a null bound of a key range is open).
 */
public class FerrySessionStore extends FerrySegmentedStore implements SessionStore<Bytes, byte[]> {
    private static final int SUFFIX = 2 * Long.BYTES;

    /**
     * Makes a store; it opens in {@code init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long sessions are kept after they end, in milliseconds of stream time
     * @param segmentInterval the width of a time segment in milliseconds
     */
    public FerrySessionStore(String name, Engine engine, long retentionPeriod, long segmentInterval) {
        super(name, engine, retentionPeriod, segmentInterval);
    }

    /** Whether it imports Kafka's built-in session store when switching (SegmentedImport). */
    private volatile boolean importsBuiltIn = true;

    /** @return this store, which will not import a built-in store (an emit-on-window-close aggregation's) */
    FerrySessionStore withoutImport() {
        importsBuiltIn = false;
        return this;
    }

    /** @return whether it imports Kafka's built-in session store when switching */
    boolean importsBuiltIn() {
        return importsBuiltIn;
    }

    static byte[] storeKey(byte[] key, long start, long end) {
        return ByteBuffer.allocate(key.length + SUFFIX).put(key).putLong(end).putLong(start).array();
    }

    private static long endOf(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - SUFFIX);
    }

    private static long startOf(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - Long.BYTES);
    }

    private static byte[] storeKey(Windowed<Bytes> sessionKey) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        Objects.requireNonNull(sessionKey.key(), "key cannot be null");
        return storeKey(sessionKey.key().get(), sessionKey.window().start(), sessionKey.window().end());
    }

    @Override
    long segmentTimestamp(byte[] storeKey) {
        return endOf(storeKey);
    }

    @Override
    public void put(Windowed<Bytes> sessionKey, byte[] aggregate) {
        putStoreKey(storeKey(sessionKey), aggregate);
    }

    @Override
    public void remove(Windowed<Bytes> sessionKey) {
        removeStoreKey(storeKey(sessionKey));
    }

    /** The aggregate of the session of {@code key} that starts and ends exactly there, or null. */
    @Override
    public byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return getStoreKey(storeKey(key.get(), sessionStartTime, sessionEndTime));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes key, long earliestSessionEndTime, long latestSessionStartTime) {
        return findKey(key, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes key, long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        return findKey(key, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime,
                                                                  long latestSessionStartTime) {
        return findRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime,
                                                                          long latestSessionStartTime) {
        return findRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        return findKey(key, 0, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        return findKey(key, 0, Long.MAX_VALUE, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return findRange(keyFrom, keyTo, 0, Long.MAX_VALUE, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return findRange(keyFrom, keyTo, 0, Long.MAX_VALUE, false);
    }

    /**
     * The sessions that end in {@code [earliestSessionEndTime, latestSessionEndTime]}, in time order (by
     * end, then start, then key bytes), as Kafka's time-ordered session store returns them to the DSL's
     * emit-on-window-close session aggregations. The store is ordered by key within a segment, so this
     * reads each segment the range touches whole and sorts its sessions in memory before handing them
     * out (Kafka's time-ordered store keeps a second, time-first copy of every key instead).
     *
     * @param earliestSessionEndTime earliest session end, inclusive
     * @param latestSessionEndTime latest session end, inclusive
     * @return the sessions, in time order
     */
    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(long earliestSessionEndTime, long latestSessionEndTime) {
        checkOpen();
        List<KeyValue<Windowed<Bytes>, byte[]>> found = new ArrayList<>();
        List<KeyValue<byte[], byte[]>> segment = new ArrayList<>();
        Predicate<byte[]> ending = k -> k.length >= SUFFIX && endOf(k) >= earliestSessionEndTime && endOf(k) <= latestSessionEndTime;
        for (long id : segmentsFor(earliestSessionEndTime, latestSessionEndTime, true)) {
            segment.clear();
            try (KeyValueIterator<Bytes, byte[]> it = segmentIterator(List.of(id), null, null, true, ending)) {
                it.forEachRemaining(kv -> segment.add(KeyValue.pair(kv.key.get(), kv.value)));
            }
            segment.sort(TIME_ORDER);
            for (KeyValue<byte[], byte[]> kv : segment) {
                found.add(KeyValue.pair(windowed(kv.key), kv.value));
            }
        }
        return new Listed(found);
    }

    /** Kafka's time-first session key order: end, start, then key bytes. */
    private static final Comparator<KeyValue<byte[], byte[]>> TIME_ORDER = (a, b) -> {
        int c = Long.compare(endOf(a.key), endOf(b.key));
        if (c == 0) {
            c = Long.compare(startOf(a.key), startOf(b.key));
        }
        return c != 0 ? c : Arrays.compareUnsigned(a.key, 0, a.key.length - SUFFIX, b.key, 0, b.key.length - SUFFIX);
    };

    private KeyValueIterator<Windowed<Bytes>, byte[]> findKey(Bytes key, long earliestEnd, long latestStart, boolean forward) {
        Objects.requireNonNull(key, "key cannot be null");
        checkOpen();
        if (latestStart < 0) { // as the built-in store, whose search bound is a session window starting there
            throw new IllegalArgumentException("Window startMs time cannot be negative.");
        }
        long from = actualFrom(earliestEnd);
        byte[] k = key.get();
        byte[] lower = storeKey(k, 0, Math.max(0, from));
        byte[] upper = storeKey(k, latestStart, Long.MAX_VALUE);
        return new WindowedIterator(segmentIterator(segmentsFor(from, Long.MAX_VALUE, forward), lower, upper, forward,
                within(k, k, from, latestStart)), FerrySessionStore::windowed);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> findRange(Bytes keyFrom, Bytes keyTo, long earliestEnd, long latestStart,
                                                                boolean forward) {
        checkOpen();
        byte[] kf = keyFrom == null ? null : keyFrom.get();
        byte[] kt = keyTo == null ? null : keyTo.get();
        if (kf != null && kt != null && keyFrom.compareTo(keyTo) > 0) {
            InvalidRange.warn(FerrySessionStore.class); // empty, with the built-in store's warning
            return new WindowedIterator(null, FerrySessionStore::windowed);
        }
        long from = actualFrom(earliestEnd);
        byte[] lower = kf == null ? null : lowerRange(kf, SUFFIX);
        byte[] upper = kt == null ? null : upperRange(kt, ByteBuffer.allocate(SUFFIX).putLong(Long.MAX_VALUE).putLong(latestStart).array());
        return new WindowedIterator(segmentIterator(segmentsFor(from, Long.MAX_VALUE, forward), lower, upper, forward,
                within(kf, kt, from, latestStart)), FerrySessionStore::windowed);
    }

    /** The filter on store keys: key in {@code [keyFrom, keyTo]} (null = open), end at or after {@code earliestEnd}, start at or before {@code latestStart}. */
    private static Predicate<byte[]> within(byte[] keyFrom, byte[] keyTo, long earliestEnd, long latestStart) {
        return k -> k.length >= SUFFIX && endOf(k) >= earliestEnd && startOf(k) <= latestStart
                && keyWithin(k, k.length - SUFFIX, keyFrom, keyTo);
    }

    private static Windowed<Bytes> windowed(byte[] storeKey) {
        byte[] key = Arrays.copyOf(storeKey, storeKey.length - SUFFIX);
        return new Windowed<>(Bytes.wrap(key), new SessionWindow(startOf(storeKey), endOf(storeKey)));
    }

    /** Sessions read ahead into a list. */
    private static final class Listed implements KeyValueIterator<Windowed<Bytes>, byte[]> {
        private final List<KeyValue<Windowed<Bytes>, byte[]>> sessions;
        private int next;

        Listed(List<KeyValue<Windowed<Bytes>, byte[]>> sessions) {
            this.sessions = sessions;
        }

        @Override
        public boolean hasNext() {
            return next < sessions.size();
        }

        @Override
        public KeyValue<Windowed<Bytes>, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return sessions.get(next++);
        }

        @Override
        public Windowed<Bytes> peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return sessions.get(next).key;
        }

        @Override
        public void close() {
            next = sessions.size();
        }
    }

    /**
     * The {@code READ_COMMITTED} view of a transactional store hides its uncommitted writes; any other
     * level, or a store that is not transactional, gives the store itself (KIP-892).
     */
    @Override
    @SuppressWarnings("unchecked")
    public ReadOnlySessionStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return readOnlyView(isolationLevel, ReadOnlySessionStore.class, this);
    }
}
