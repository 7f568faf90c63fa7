package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent versioned key-value store (KIP-889) on a Ferry {@link Store} (RocksDB or LMDB), the
 * counterpart of Kafka's {@code RocksDBVersionedStore}: {@link FerryStores#persistentVersionedKeyValueStore}
 * and {@link FerryStores#lmdbVersionedKeyValueStore} hand it to Kafka Streams (wrapped, as Kafka wraps its
 * own, in Kafka's {@code VersionedKeyValueToBytesStoreAdapter}).
 *
 * <p>Semantics are the built-in store's, answer for answer: {@code put} returns the new version's
 * validTo ({@link #PUT_RETURN_CODE_VALID_TO_UNDEFINED} when it is the latest,
 * {@link #PUT_RETURN_CODE_NOT_PUT} when it is older than the observed stream time minus the history
 * retention, which doubles as the grace period); {@code get(key, asOf)} within history retention;
 * {@code delete(key, timestamp)} returns the version it ends; tombstones, out-of-order and late records,
 * the observed stream time (in memory, as in the built-in store), and expiry of whole segments.
 *
 * <p>Layout, in the store's {@code data} family: {@code [segment id, 8 bytes][key]}. Segment id -1 holds
 * the latest version of each key ({@code [timestamp 8][value]}; never a tombstone, never expiring);
 * segment {@code validTo / segmentInterval} holds, per key, the older versions whose validTo falls in
 * it ({@link VersionRow}), so a segment whose time lies wholly before the history retention goes with
 * one {@code deleteRange}. Each put is one atomic Ferry write (the built-in store's put writes up to
 * three keys one after the other and repairs a half-done put when it meets one).
 *
 * <p>The changelog holds what Kafka's versioned changelog holds (the key, the raw value or null, the
 * record's timestamp): restoration replays it through the same put procedure, one Ferry write per
 * restore batch, with the stream time advanced to the batch's largest timestamp first, as the built-in
 * store restores.
 *
 * <p>Thread safety: writes are serialized on the store; reads (interactive queries) may come from any
 * thread. After {@link #close()} (or before {@link #init}) every method but {@code name()},
 * {@code persistent()}, {@code isOpen()} and {@code close()} throws {@link InvalidStateStoreException};
 * engine errors become {@link ProcessorStateException}; a null key throws {@link NullPointerException}.
 */
public class FerryVersionedKeyValueStore extends FerryStateStore implements VersionedKeyValueStore<Bytes, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(FerryVersionedKeyValueStore.class);
    /** A marker: no version found yet (any value that is not a record timestamp). */
    private static final long NONE = Long.MIN_VALUE;
    /** The reserved segment of latest values. */
    private static final long LATEST = -1L;
    private static final byte[] LATEST_PREFIX = FerrySegmentedStore.prefix(LATEST);

    private final long historyRetention;
    private final long gracePeriod;
    private final long segmentInterval;
    /** The ids of the history segments the store holds (not the latest-value segment). */
    private final NavigableSet<Long> segments = new ConcurrentSkipListSet<>();
    private volatile long observedStreamTime = -1; // ConsumerRecord.NO_TIMESTAMP, as the built-in store
    private Sensor expiredRecords;
    private StateStoreContext context;
    private boolean consistencyEnabled;

    /**
     * Makes a store; it opens in {@link #init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param historyRetention how long old versions stay queryable (and the grace period for writes), ms
     * @param segmentInterval the time span of one history segment, ms
     * @throws IllegalArgumentException on a negative history retention or a segment interval below 1
     */
    public FerryVersionedKeyValueStore(String name, Engine engine, long historyRetention, long segmentInterval) {
        super(name, engine);
        if (historyRetention < 0) {
            throw new IllegalArgumentException("historyRetention cannot be negative");
        }
        if (segmentInterval < 1) {
            throw new IllegalArgumentException("segmentInterval cannot be zero or negative");
        }
        this.historyRetention = historyRetention;
        this.gracePeriod = historyRetention;
        this.segmentInterval = segmentInterval;
    }

    /** @return the history retention (and grace period) in milliseconds */
    public long historyRetention() {
        return historyRetention;
    }

    /** @return the segment interval in milliseconds */
    public long segmentInterval() {
        return segmentInterval;
    }

    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        super.init(context, root);
        this.context = context;
        expiredRecords = null;
        if (context.metrics() instanceof StreamsMetricsImpl && context.taskId() != null) {
            expiredRecords = TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(), context.taskId().toString(),
                    (StreamsMetricsImpl) context.metrics());
        }
        consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(context.appConfigs(),
                StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
    }

    @Override
    StateRestoreCallback restoreCallback() {
        return (RecordBatchingStateRestoreCallback) this::restoreBatch;
    }

    @Override
    void opened(Store s, ColumnFamily data) {
        segments.clear();
        observedStreamTime = -1;
        try (Cursor c = s.cursor(data, KeyRange.all(), null)) {
            for (boolean ok = c.first(); ok; ) {
                byte[] k = c.keyBytes();
                if (k.length < Long.BYTES) {
                    ok = c.next();
                    continue;
                }
                long id = ByteBuffer.wrap(k).getLong() ^ Long.MIN_VALUE;
                if (id >= 0) {
                    segments.add(id);
                }
                if (id == Long.MAX_VALUE) {
                    break;
                }
                ok = c.seek(FerrySegmentedStore.prefix(id + 1));
            }
        }
    }

    /** @return the ids of the history segments the store holds, ascending (for tests) */
    List<Long> segmentIds() {
        checkOpen();
        return new ArrayList<>(segments);
    }

    /** @return the observed stream time: the largest timestamp written or restored since the store opened */
    public long observedStreamTime() {
        checkOpen();
        return observedStreamTime;
    }

    private long segmentId(long timestamp) {
        return timestamp / segmentInterval;
    }

    private void recordExpired() {
        Sensor sensor = expiredRecords;
        if (sensor != null) {
            long now = context instanceof InternalProcessorContext
                    ? ((InternalProcessorContext<?, ?>) context).currentSystemTimeMs() : System.currentTimeMillis();
            sensor.record(1.0d, now);
        }
    }

    // ---- reads -------------------------------------------------------------------------------

    @Override
    public VersionedRecord<byte[]> get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            byte[] latest = getData(s, FerrySegmentedStore.prefixed(LATEST, key.get()));
            return latest == null ? null : new VersionedRecord<>(latestValue(latest), latestTimestamp(latest));
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
    }

    @Override
    public VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        try {
            return getAsOf(s, key.get(), asOfTimestamp);
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
    }

    private VersionedRecord<byte[]> getAsOf(Store s, byte[] key, long asOf) {
        byte[] latest = getData(s, FerrySegmentedStore.prefixed(LATEST, key));
        if (latest != null && latestTimestamp(latest) <= asOf) {
            return new VersionedRecord<>(latestValue(latest), latestTimestamp(latest)); // the latest version never expires
        }
        if (asOf < observedStreamTime - historyRetention) {
            LOG.warn("Returning null for expired get.");
            return null;
        }
        // newest segment first, from the one asOf falls in
        for (long id : segments.tailSet(segmentId(asOf), true).descendingSet()) {
            byte[] raw = getData(s, FerrySegmentedStore.prefixed(id, key));
            if (raw == null) {
                continue;
            }
            if (VersionRow.nextTimestamp(raw) <= asOf) {
                return null; // no version of this or an older segment is valid at asOf
            }
            VersionRow row = VersionRow.parse(raw);
            if (row.minTimestamp() > asOf) {
                continue;
            }
            int i = row.find(asOf);
            byte[] v = row.value(i);
            return v == null ? null : new VersionedRecord<>(v, row.validFrom(i), row.validTo(i));
        }
        return null;
    }

    private static long latestTimestamp(byte[] latest) {
        return ByteBuffer.wrap(latest).getLong(0);
    }

    private static byte[] latestValue(byte[] latest) {
        byte[] v = new byte[latest.length - Long.BYTES];
        System.arraycopy(latest, Long.BYTES, v, 0, v.length);
        return v;
    }

    private static byte[] latestEntry(byte[] value, long timestamp) {
        return ByteBuffer.allocate(Long.BYTES + value.length).putLong(timestamp).put(value).array();
    }

    // ---- writes ------------------------------------------------------------------------------

    @Override
    public synchronized long put(Bytes key, byte[] value, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        if (timestamp < observedStreamTime - gracePeriod) {
            recordExpired();
            LOG.warn("Skipping record for expired put.");
            updatePosition();
            return PUT_RETURN_CODE_NOT_PUT;
        }
        long streamTime = Math.max(observedStreamTime, timestamp);
        Pending p = new Pending(s);
        long validTo;
        try {
            validTo = doPut(p, streamTime, key.get(), value, timestamp);
            p.write(false);
        } catch (RuntimeException e) {
            p.undo();
            throw translate(e, "put");
        }
        observedStreamTime = streamTime;
        updatePosition();
        return validTo;
    }

    @Override
    public synchronized VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        if (timestamp < observedStreamTime - gracePeriod) {
            recordExpired();
            LOG.warn("Skipping record for expired delete.");
            return null;
        }
        VersionedRecord<byte[]> existing = get(key, timestamp);
        long streamTime = Math.max(observedStreamTime, timestamp);
        Pending p = new Pending(s);
        try {
            doPut(p, streamTime, key.get(), null, timestamp);
            p.write(false);
        } catch (RuntimeException e) {
            p.undo();
            throw translate(e, "delete");
        }
        observedStreamTime = streamTime;
        updatePosition();
        return existing;
    }

    /** Kafka Streams restores this store through {@link #restoreBatch}, which needs the records' timestamps. */
    @Override
    void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        throw new UnsupportedOperationException("a versioned store restores from changelog records with their timestamps");
    }

    /**
     * Restores a batch of changelog records (key, raw value or null, the record's timestamp) in one
     * Ferry write, as the built-in store restores: records older than the grace period (relative to
     * the stream time as it advances through the batch) were never written and are skipped; the others
     * go through the put procedure with the stream time of the batch's end, so that versions that will
     * have expired by then are not written at all.
     *
     * @param records the changelog records
     */
    synchronized void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        Store s = checkOpen();
        long endOfBatch = observedStreamTime;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            endOfBatch = Math.max(endOfBatch, r.timestamp());
        }
        long streamTime = observedStreamTime;
        Pending p = new Pending(s);
        try {
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (r.timestamp() < streamTime - gracePeriod) {
                    continue;
                }
                streamTime = Math.max(streamTime, r.timestamp());
                ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(r, consistencyEnabled, getPosition());
                doPut(p, endOfBatch, r.key(), r.value(), r.timestamp());
            }
            p.write(true);
        } catch (RuntimeException e) {
            p.undo();
            throw translate(e, "restoring");
        }
        observedStreamTime = streamTime;
    }

    /**
     * The put procedure (shared by put, delete and restore): the new version goes into the latest
     * values if it is the newest, else into the segment of its validTo; the version it cuts short moves
     * to the segment of its new validTo.
     *
     * @return the new version's validTo, {@link #PUT_RETURN_CODE_VALID_TO_UNDEFINED} or {@link #PUT_RETURN_CODE_NOT_PUT}
     */
    private long doPut(Pending p, long streamTime, byte[] key, byte[] value, long timestamp) {
        p.dropExpired(segmentId(streamTime - historyRetention));

        // 1. the latest value
        long found = NONE;
        byte[] latestKey = FerrySegmentedStore.prefixed(LATEST, key);
        byte[] latest = p.get(latestKey);
        if (latest != null) {
            long latestTs = latestTimestamp(latest);
            if (timestamp >= latestTs) {
                if (timestamp > latestTs) { // the old latest value becomes history, valid until timestamp
                    long id = segmentId(timestamp);
                    if (p.liveSegment(id, streamTime)) {
                        byte[] rowKey = FerrySegmentedStore.prefixed(id, key);
                        byte[] raw = p.get(rowKey);
                        VersionRow row;
                        if (raw == null) {
                            row = VersionRow.of(latestValue(latest), latestTs, timestamp);
                        } else {
                            row = VersionRow.parse(raw);
                            row.insertAsLatest(latestTs, timestamp, latestValue(latest));
                        }
                        p.put(rowKey, row.encode());
                    }
                }
                if (value != null) {
                    p.put(latestKey, latestEntry(value, timestamp));
                } else {
                    p.delete(latestKey);
                }
                return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
            }
            found = latestTs;
        }

        // 2. the segments, newest first, from the one the timestamp falls in
        for (long id : p.segmentsFrom(segmentId(timestamp))) {
            byte[] rowKey = FerrySegmentedStore.prefixed(id, key);
            byte[] raw = p.get(rowKey);
            if (raw == null) {
                continue;
            }
            if (VersionRow.nextTimestamp(raw) <= timestamp) {
                break; // nothing here or older is affected: place it by what was found so far
            }
            VersionRow row = VersionRow.parse(raw);
            if (row.minTimestamp() <= timestamp) {
                return putIntoRow(p, streamTime, id, rowKey, row, key, value, timestamp);
            }
            if (row.minTimestamp() < streamTime - historyRetention) {
                return PUT_RETURN_CODE_NOT_PUT; // (restore only) it would not change the history kept
            }
            found = row.minTimestamp();
        }

        // 3. the new version is the newest (found == NONE) or just before the version found
        if (found == NONE) {
            if (value != null) {
                p.put(latestKey, latestEntry(value, timestamp));
                return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
            }
            // a tombstone is never a latest value: it goes into the segment of its own timestamp
            long id = segmentId(timestamp);
            if (!p.liveSegment(id, streamTime)) {
                return PUT_RETURN_CODE_NOT_PUT;
            }
            byte[] rowKey = FerrySegmentedStore.prefixed(id, key);
            byte[] raw = p.get(rowKey);
            if (raw == null) {
                p.put(rowKey, VersionRow.of(null, timestamp, timestamp).encode());
            } else {
                long next = VersionRow.nextTimestamp(raw);
                if (next == timestamp) {
                    return PUT_RETURN_CODE_VALID_TO_UNDEFINED; // the row already ends with a deletion at timestamp
                }
                VersionRow row = VersionRow.parse(raw);
                row.insertAsLatest(next, timestamp, null);
                p.put(rowKey, row.encode());
            }
            return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
        }
        long id = segmentId(found);
        if (!p.liveSegment(id, streamTime)) {
            return PUT_RETURN_CODE_NOT_PUT;
        }
        byte[] rowKey = FerrySegmentedStore.prefixed(id, key);
        byte[] raw = p.get(rowKey);
        if (raw == null) {
            p.put(rowKey, VersionRow.of(value, timestamp, found).encode());
        } else {
            VersionRow row = VersionRow.parse(raw);
            if (row.nextTimestamp() <= timestamp) {
                row.insertAsLatest(timestamp, found, value); // after a gap a deletion left
            } else {
                row.insertAsEarliest(timestamp, value);
            }
            p.put(rowKey, row.encode());
        }
        return found;
    }

    /** Puts a version into the row whose time span holds its timestamp; returns its validTo. */
    private long putIntoRow(Pending p, long streamTime, long id, byte[] rowKey, VersionRow row, byte[] key, byte[] value,
                            long timestamp) {
        int i = row.find(timestamp);
        long validFrom = row.validFrom(i);
        long validTo = row.validTo(i);
        if (validFrom == timestamp) { // replaces the version of the same timestamp
            row.update(i, timestamp, value);
            p.put(rowKey, row.encode());
            return validTo;
        }
        long ownId = segmentId(timestamp);
        if (ownId != id) {
            // the version it cuts short now ends at timestamp: it moves to that timestamp's segment,
            // and the new version takes its place here
            if (p.liveSegment(ownId, streamTime)) {
                byte[] olderKey = FerrySegmentedStore.prefixed(ownId, key);
                byte[] olderRaw = p.get(olderKey);
                VersionRow older;
                if (olderRaw == null) {
                    older = VersionRow.of(row.value(i), validFrom, timestamp);
                } else {
                    older = VersionRow.parse(olderRaw);
                    older.insertAsLatest(validFrom, timestamp, row.value(i));
                }
                p.put(olderKey, older.encode());
            }
            row.update(i, timestamp, value);
        } else {
            row.insert(i, timestamp, value);
        }
        p.put(rowKey, row.encode());
        return validTo;
    }

    // ---- the write of one put or one restore batch ---------------------------------------------

    /**
     * The writes of one put (or restore batch), read back by the procedure before they reach the
     * store, then written in one atomic Ferry write: expired segments' deletions first, then the rows.
     * The segment set changes at once (the procedure must see them) and is put back if the write fails.
     */
    private final class Pending {
        private final Store s;
        private final Map<Bytes, byte[]> writes = new HashMap<>();
        private final List<Long> added = new ArrayList<>();
        private final List<Long> dropped = new ArrayList<>();
        private long dropFrom = NONE;
        private long dropTo = NONE;
        private final byte[] deleted = new byte[0];

        Pending(Store s) {
            this.s = s;
        }

        byte[] get(byte[] rawKey) {
            byte[] v = writes.get(Bytes.wrap(rawKey));
            if (v != null) {
                return v == deleted ? null : v;
            }
            return getData(s, rawKey);
        }

        void put(byte[] rawKey, byte[] value) {
            writes.put(Bytes.wrap(rawKey), value);
        }

        void delete(byte[] rawKey) {
            writes.put(Bytes.wrap(rawKey), deleted);
        }

        /** Whether a segment is live at this stream time; if so it now exists (the built-in getOrCreateSegmentIfLive). */
        boolean liveSegment(long id, long streamTime) {
            if (id < segmentId(streamTime - historyRetention)) {
                return false;
            }
            if (id < 0) {
                throw new IllegalArgumentException("Negative segment IDs are reserved for reserved segments, "
                        + "and should be created through createReservedSegment() instead");
            }
            if (segments.add(id)) {
                added.add(id);
            }
            dropExpired(segmentId(streamTime - historyRetention));
            return true;
        }

        /** The segments from {@code fromId} on, newest first. */
        List<Long> segmentsFrom(long fromId) {
            return new ArrayList<>(segments.tailSet(fromId, true).descendingSet());
        }

        /** Drops every segment before {@code minLive}. */
        void dropExpired(long minLive) {
            NavigableSet<Long> head = segments.headSet(minLive, false);
            if (head.isEmpty()) {
                return;
            }
            List<Long> ids = new ArrayList<>(head);
            if (dropFrom == NONE || ids.get(0) < dropFrom) {
                dropFrom = ids.get(0);
            }
            dropTo = Math.max(dropTo, minLive);
            segments.removeAll(ids);
            dropped.addAll(ids);
        }

        void write(boolean restored) {
            if (writes.isEmpty() && dropFrom == NONE) {
                return;
            }
            DataBatch ops = new DataBatch();
            if (dropFrom != NONE) {
                ops.deleteRange(FerrySegmentedStore.prefix(dropFrom), FerrySegmentedStore.prefix(dropTo));
            }
            for (Map.Entry<Bytes, byte[]> w : writes.entrySet()) {
                ops.put(w.getKey().get(), w.getValue() == deleted ? null : w.getValue());
            }
            if (!restored) {
                writeData(s, ops); // to the uncommitted writes in a transactional store
                return;
            }
            try (WriteBatch batch = new WriteBatch()) { // restoration writes the family directly
                ops.addTo(batch, data());
                markDirty();
                writeRestored(s, batch);
            }
        }

        /** Puts the segment set back as it was before this write. */
        void undo() {
            segments.removeAll(added);
            segments.addAll(dropped);
        }
    }

    /**
     * The versions of a key valid at some time in {@code [fromTime, toTime]} (KIP-968's
     * {@code MultiVersionedKeyQuery}), as the built-in store's {@code get(key, fromTime, toTime, order)}: a
     * version counts if it is not a tombstone, starts at or before {@code toTime} and ends after
     * {@code fromTime}; the latest version if it starts at or before {@code toTime}. If {@code toTime} is
     * older than the observed stream time minus the history retention, only the latest version is
     * considered. Ascending or descending by timestamp ({@code ANY} is descending, as in the built-in
     * store). Read from one snapshot when the query is made.
     *
     * @param key the key
     * @param fromTime the earliest time
     * @param toTime the latest time
     * @param order the order of the versions
     * @return the versions
     */
    VersionedRecordIterator<byte[]> versions(Bytes key, long fromTime, long toTime, ResultOrder order) {
        Objects.requireNonNull(key, "key cannot be null");
        Store s = checkOpen();
        boolean ascending = order == ResultOrder.ASCENDING;
        List<Long> ids = new ArrayList<>();
        if (toTime >= observedStreamTime - historyRetention) {
            ids.addAll(segments.headSet(segmentId(toTime), true));
        }
        if (ascending) {
            ids.add(LATEST); // after the segments
        } else {
            java.util.Collections.reverse(ids);
            ids.add(0, LATEST);
        }
        List<VersionedRecord<byte[]>> out = new ArrayList<>();
        // a transactional store's uncommitted writes are read with the family under this store's lock
        // (no put or commit half done), else the family from one snapshot
        List<byte[]> raws = new ArrayList<>(ids.size());
        try {
            if (transactional() && !readingCommitted()) {
                synchronized (this) {
                    for (long id : ids) {
                        raws.add(getData(s, FerrySegmentedStore.prefixed(id, key.get())));
                    }
                }
            } else {
                try (dev.ferry.Snapshot snap = s.snapshot()) {
                    for (long id : ids) {
                        raws.add(snap.get(data(), FerrySegmentedStore.prefixed(id, key.get())));
                    }
                }
            }
        } catch (RuntimeException e) {
            throw translate(e, "get");
        }
        for (int j = 0; j < ids.size(); j++) {
            long id = ids.get(j);
            byte[] raw = raws.get(j);
            if (raw == null) {
                continue;
            }
            List<VersionedRecord<byte[]>> found = new ArrayList<>(); // newest first
            if (id == LATEST) {
                if (latestTimestamp(raw) <= toTime) {
                    found.add(new VersionedRecord<>(latestValue(raw), latestTimestamp(raw)));
                }
            } else {
                VersionRow row = VersionRow.parse(raw);
                for (int i = 0; i < row.size(); i++) {
                    if (row.value(i) != null && row.validFrom(i) <= toTime && row.validTo(i) > fromTime) {
                        found.add(new VersionedRecord<>(row.value(i), row.validFrom(i), row.validTo(i)));
                    }
                }
            }
            if (ascending) {
                java.util.Collections.reverse(found);
            }
            out.addAll(found);
        }
        return new Versions(out.iterator());
    }

    /** The result of {@link #versions}: {@code hasNext()} after {@code close()} throws, as the built-in iterator. */
    private static final class Versions implements VersionedRecordIterator<byte[]> {
        private final java.util.Iterator<VersionedRecord<byte[]>> it;
        private volatile boolean open = true;

        Versions(java.util.Iterator<VersionedRecord<byte[]>> it) {
            this.it = it;
        }

        @Override
        public boolean hasNext() {
            if (!open) {
                throw new IllegalStateException("The iterator is out of scope.");
            }
            return it.hasNext();
        }

        @Override
        public VersionedRecord<byte[]> next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return it.next();
        }

        @Override
        public void close() {
            open = false;
        }
    }

    /**
     * Answers interactive queries as the built-in store does: {@code VersionedKeyQuery} through Kafka's
     * {@code StoreQueryUtils}, {@code MultiVersionedKeyQuery} through {@link #versions} (Kafka's handler
     * casts to its own store class).
     */
    @Override
    @SuppressWarnings("unchecked")
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        if (query instanceof MultiVersionedKeyQuery) {
            MultiVersionedKeyQuery<Bytes, byte[]> q = (MultiVersionedKeyQuery<Bytes, byte[]>) query;
            long from = q.fromTime().map(java.time.Instant::toEpochMilli).orElse(Long.MIN_VALUE);
            long to = q.toTime().map(java.time.Instant::toEpochMilli).orElse(Long.MAX_VALUE);
            try {
                return (QueryResult<R>) QueryResult.forResult(versions(q.key(), from, to, q.resultOrder()));
            } catch (RuntimeException e) {
                return QueryResult.forFailure(FailureReason.STORE_EXCEPTION, "Failed to get versions of a key from store " + name()
                        + ": " + e);
            }
        }
        return super.query(query, positionBound, config);
    }

    @Override
    public String toString() {
        return "FerryVersionedKeyValueStore[" + name() + ", " + engine() + ", history " + historyRetention + " ms"
                + (isOpen() ? "" : ", closed") + "]";
    }

    /**
     * The {@code READ_COMMITTED} view of a transactional store hides its uncommitted writes; any other
     * level, or a store that is not transactional, gives the store itself (KIP-892).
     */
    @Override
    @SuppressWarnings("unchecked")
    public VersionedKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        return readOnlyView(isolationLevel, VersionedKeyValueStore.class, this);
    }
}
