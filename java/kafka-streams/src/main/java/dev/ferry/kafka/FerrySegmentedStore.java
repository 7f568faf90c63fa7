package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.Predicate;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The time-segmented layer under {@link FerryWindowStore} and {@link FerrySessionStore}: Kafka
 * Streams' segmented-store semantics (retention, segment interval, observed stream time, expired
 * records dropped, the order in which ranges come back) on one Ferry family.
 *
 * <p>Layout: every entry of the {@code data} family is {@code [segment id, 8 bytes][store key]}, the
 * segment id ({@code timestamp / segmentInterval}, with its sign bit flipped so ids order as unsigned
 * bytes) before the key Kafka hands the store (its window or session key schema). So the family is
 * ordered segment by segment, and within a segment by the store key: the same order as Kafka's
 * built-in store, which keeps one RocksDB instance per segment. A segment that falls out of the
 * retention period goes with one {@code deleteRange} over its prefix, in the same atomic write as the
 * record that made it expire. The ids of the segments present are kept in memory (read from the
 * family when the store opens).
 *
 * <p>A record put into an expired segment is dropped and counted in the task's {@code dropped-records}
 * metric, as the built-in store counts it.
 *
 * <p>Like the built-in store, the observed stream time (the largest timestamp written or restored)
 * lives in memory only: after a restart it starts unknown, and records of a live segment that are
 * older than the retention period stay readable until a write advances it again.
 */
abstract class FerrySegmentedStore extends FerryStateStore {
    private static final int PREFIX = Long.BYTES;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final NavigableSet<Long> segments = new ConcurrentSkipListSet<>();
    private volatile long observedStreamTime = -1; // ConsumerRecord.NO_TIMESTAMP, as the built-in store
    /** The task's dropped-records sensor, which counts records of expired segments (as the built-in store); null outside Kafka Streams. */
    private Sensor droppedRecords;
    private StateStoreContext context;

    FerrySegmentedStore(String name, Engine engine, long retentionPeriod, long segmentInterval) {
        super(name, engine);
        if (retentionPeriod < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval cannot be zero or negative");
        }
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
    }

    /** @return the retention period in milliseconds */
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** @return the segment interval in milliseconds */
    public long segmentInterval() {
        return segmentInterval;
    }

    /**
     * The timestamp that places a store key in its segment (window start, session end).
     *
     * @param storeKey the key in Kafka's schema
     * @return its timestamp
     */
    abstract long segmentTimestamp(byte[] storeKey);

    final long segmentId(long timestamp) {
        return timestamp / segmentInterval;
    }

    /** The earliest time a read may return: the built-in store's {@code getActualFrom}. */
    final long actualFrom(long from) {
        return Math.max(from, observedStreamTime - retentionPeriod + 1);
    }

    static byte[] prefix(long segmentId) {
        return ByteBuffer.allocate(PREFIX).putLong(segmentId ^ Long.MIN_VALUE).array();
    }

    static byte[] prefixed(long segmentId, byte[] storeKey) {
        return ByteBuffer.allocate(PREFIX + storeKey.length).putLong(segmentId ^ Long.MIN_VALUE).put(storeKey).array();
    }

    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        super.init(context, root);
        this.context = context;
        droppedRecords = null;
        if (context.metrics() instanceof StreamsMetricsImpl) {
            droppedRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(), context.taskId().toString(),
                    (StreamsMetricsImpl) context.metrics());
        }
    }

    private void recordDropped() {
        Sensor sensor = droppedRecords;
        if (sensor != null) {
            long now = context instanceof InternalProcessorContext
                    ? ((InternalProcessorContext<?, ?>) context).currentSystemTimeMs() : System.currentTimeMillis();
            sensor.record(1.0d, now);
        }
    }

    @Override
    void opened(Store s, ColumnFamily data) {
        segments.clear();
        observedStreamTime = -1;
        // one seek per segment: the first key at or after the next segment's prefix
        try (Cursor c = s.cursor(data, KeyRange.all(), null)) {
            for (boolean ok = c.first(); ok; ) {
                byte[] k = c.keyBytes();
                if (k.length < PREFIX) { // not written by this store: skip it
                    ok = c.next();
                    continue;
                }
                long id = ByteBuffer.wrap(k).getLong() ^ Long.MIN_VALUE;
                segments.add(id);
                if (id == Long.MAX_VALUE) {
                    break;
                }
                ok = c.seek(prefix(id + 1));
            }
        }
    }

    /** @return the ids of the segments the store holds, ascending (for tests) */
    List<Long> segmentIds() {
        checkOpen();
        return new ArrayList<>(segments);
    }

    /**
     * Writes one store key (a null value deletes it) if its segment is live, and drops the segments
     * that have expired: the built-in segmented store's {@code put}.
     *
     * @param storeKey the key in Kafka's schema
     * @param value the value, or null
     */
    synchronized void putStoreKey(byte[] storeKey, byte[] value) {
        Store s = checkOpen();
        long ts = segmentTimestamp(storeKey);
        long observed = Math.max(observedStreamTime, ts);
        observedStreamTime = observed;
        long id = segmentId(ts);
        long minLive = segmentId(observed - retentionPeriod);
        boolean live = id >= minLive;
        if (live) { // before the write: a concurrent reader may then search a segment still empty, never miss one
            segments.add(id);
        }
        try {
            DataBatch batch = new DataBatch();
            if (live) {
                if (value == null) {
                    batch.delete(prefixed(id, storeKey));
                } else {
                    batch.put(prefixed(id, storeKey), value);
                }
            }
            List<Long> expired = dropExpired(batch, minLive);
            writeData(s, batch);
            segments.removeAll(expired);
        } catch (RuntimeException e) {
            throw translate(e, "put");
        }
        if (live) {
            updatePosition();
        } else {
            recordDropped();
        }
    }

    /** Adds to a batch the deletion of every segment before {@code minLive}; returns their ids. */
    private List<Long> dropExpired(DataBatch batch, long minLive) {
        NavigableSet<Long> head = segments.headSet(minLive, false);
        if (head.isEmpty()) {
            return Collections.emptyList();
        }
        List<Long> ids = new ArrayList<>(head);
        batch.deleteRange(prefix(ids.get(0)), prefix(minLive));
        return ids;
    }

    /**
     * Reads one store key, or null if it has expired or its segment is gone: the built-in segmented
     * store's {@code get}.
     *
     * @param storeKey the key in Kafka's schema
     * @return the value, or null
     */
    byte[] getStoreKey(byte[] storeKey) {
        Store s = checkOpen();
        long ts = segmentTimestamp(storeKey);
        if (ts < observedStreamTime - retentionPeriod + 1) {
            return null;
        }
        long id = segmentId(ts);
        if (!segments.contains(id)) {
            return null;
        }
        try {
            return getData(s, prefixed(id, storeKey));
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
    }

    /**
     * Deletes one store key if its segment is present; advances the observed stream time as the
     * built-in store's {@code remove} does.
     *
     * @param storeKey the key in Kafka's schema
     */
    synchronized void removeStoreKey(byte[] storeKey) {
        Store s = checkOpen();
        long ts = segmentTimestamp(storeKey);
        observedStreamTime = Math.max(observedStreamTime, ts);
        long id = segmentId(ts);
        if (!segments.contains(id)) {
            return;
        }
        try {
            putData(s, prefixed(id, storeKey), null);
        } catch (RuntimeException e) {
            throw translate(e, "remove");
        }
    }

    /**
     * Restores a batch of changelog records in one write: the stream time advances to the batch's
     * latest timestamp first, records of expired segments are skipped, and expired segments are
     * dropped, as the built-in store restores.
     */
    @Override
    synchronized void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        Store s = checkOpen();
        long observed = observedStreamTime;
        for (KeyValue<byte[], byte[]> r : records) {
            observed = Math.max(observed, segmentTimestamp(r.key));
        }
        observedStreamTime = observed;
        long minLive = segmentId(observed - retentionPeriod);
        List<Long> added = new ArrayList<>();
        try (WriteBatch batch = new WriteBatch()) {
            DataBatch ops = new DataBatch();
            for (KeyValue<byte[], byte[]> r : records) {
                long id = segmentId(segmentTimestamp(r.key));
                if (id < minLive) {
                    continue;
                }
                if (segments.add(id)) {
                    added.add(id);
                }
                if (r.value == null) {
                    ops.delete(prefixed(id, r.key));
                } else {
                    ops.put(prefixed(id, r.key), r.value);
                }
            }
            List<Long> expired = dropExpired(ops, minLive);
            ops.addTo(batch, data());
            if (batch.count() > 0) {
                writeRestored(s, batch); // restoration writes the family directly, transactional or not
            }
            segments.removeAll(expired);
        } catch (RuntimeException e) {
            segments.removeAll(added); // nothing of the batch was written
            throw translate(e, "restoring");
        }
    }

    /**
     * The ids of the segments holding times {@code [timeFrom, timeTo]}, in the order to search them.
     *
     * @param timeFrom earliest time
     * @param timeTo latest time
     * @param forward ascending or descending
     * @return the ids
     */
    final List<Long> segmentsFor(long timeFrom, long timeTo, boolean forward) {
        long from = segmentId(timeFrom);
        long to = segmentId(timeTo);
        if (from > to) {
            return Collections.emptyList();
        }
        NavigableSet<Long> sub = segments.subSet(from, true, to, true);
        return new ArrayList<>(forward ? sub : sub.descendingSet());
    }

    /**
     * An iterator over the store keys in {@code [lower, upper]} (a null bound is open) of each
     * segment in turn, handing out those {@code keep} accepts, with the segment prefix removed: the
     * built-in store's segment iterator.
     *
     * @param segmentIds the segments, in the order to walk them
     * @param lower inclusive lower store key, or null
     * @param upper inclusive upper store key, or null
     * @param forward ascending or descending within each segment
     * @param keep the filter on store keys
     * @return the iterator
     */
    final KeyValueIterator<Bytes, byte[]> segmentIterator(List<Long> segmentIds, byte[] lower, byte[] upper, boolean forward,
                                                          Predicate<byte[]> keep) {
        List<KeyRange> ranges = new ArrayList<>(segmentIds.size());
        boolean inverted = lower != null && upper != null && Arrays.compareUnsigned(lower, upper) > 0;
        if (!inverted) { // an inverted range holds nothing in any segment (the built-in store logs a warning)
            for (long id : segmentIds) {
                byte[] p = prefix(id);
                byte[] lo = lower == null ? p : prefixed(id, lower);
                if (upper == null) {
                    byte[] end = KeyRange.prefix(p).upper();
                    ranges.add(end == null ? KeyRange.atLeast(lo) : KeyRange.closedOpen(lo, end));
                } else {
                    ranges.add(KeyRange.closed(lo, prefixed(id, upper)));
                }
            }
        }
        return iterator(ranges.iterator(), forward, PREFIX, keep, true);
    }

    /**
     * The upper store-key bound of a key range in Kafka's key schemas: the key's bytes, cut before
     * the first byte (past the first) that is smaller than the first byte of {@code maxSuffix}, then
     * {@code maxSuffix}. Kafka's built-in stores search with this bound (and filter what they find),
     * so using it keeps results identical to theirs.
     *
     * @param key the upper key
     * @param maxSuffix the largest timestamp suffix to include
     * @return the bound
     */
    static byte[] upperRange(byte[] key, byte[] maxSuffix) {
        int first = maxSuffix[0] & 0xFF;
        int keep = key.length;
        if (first != 0) {
            keep = Math.min(1, key.length);
            while (keep < key.length && (key[keep] & 0xFF) >= first) {
                keep++;
            }
        }
        byte[] out = Arrays.copyOf(key, keep + maxSuffix.length);
        System.arraycopy(maxSuffix, 0, out, keep, maxSuffix.length);
        return out;
    }

    /** @return {@code key} followed by {@code zeros} zero bytes: the lower bound of a key range */
    static byte[] lowerRange(byte[] key, int zeros) {
        return Arrays.copyOf(key, key.length + zeros);
    }

    /** Whether the first {@code length} bytes of {@code storeKey} lie in {@code [from, to]} (null = open). */
    static boolean keyWithin(byte[] storeKey, int length, byte[] from, byte[] to) {
        return (from == null || Arrays.compareUnsigned(storeKey, 0, length, from, 0, from.length) >= 0)
                && (to == null || Arrays.compareUnsigned(storeKey, 0, length, to, 0, to.length) <= 0);
    }
}
