package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The import of {@link BuiltInImport} for versioned key-value stores: Kafka's built-in versioned store
 * ({@code RocksDBVersionedStore}) keeps its latest values and its history in one RocksDB store in
 * {@code <task>/rocksdb/<name>} ({@code LogicalKeyValueSegments}: every key prefixed with an 8-byte big-endian
 * segment id, {@code -1} for the latest values), in {@code default}, and its changelog offsets, position and
 * status in {@code offsets} (Kafka 4.3+, KIP-1035), as its key-value store does.
 *
 * <p>Kafka's rows convert entry by entry to {@link FerryVersionedKeyValueStore}'s: a latest value
 * ({@code [timestamp][value]}) is the same bytes under Ferry's latest-value prefix; a history row
 * ({@code RocksDBVersionedStoreSegmentValueFormatter}: {@code [next timestamp][min timestamp]}, then each version's
 * {@code [timestamp][value size, negative for a tombstone]} newest first, then the values oldest first) becomes a
 * {@link VersionRow} under Ferry's prefix of the same segment id. Both stores put a version in the segment of its
 * validTo, so the ids carry over when both use the same segment interval (Ferry's suppliers take the built-in
 * default). Segments that lie wholly before the history retention (counted back from the newest time the store
 * holds, which the stream time cannot be below) are left out, as the built-in store drops them at its next write.
 * Kafka sorts its latest values (id -1) after the segments, Ferry before them: they are read first.
 *
 * <p>Not imported (logged; the store restores from the changelog): another family with entries, keys or rows
 * of another layout, a version whose validTo falls outside its row's segment (a built-in store of another segment
 * interval), and under exactly-once a store that was not closed.
 *
 * <p>Thread safety: as {@link BuiltInImport}.
 */
final class VersionedImport {
    private static final Logger LOG = LoggerFactory.getLogger(VersionedImport.class);
    /** The built-in store's key prefix of its latest values: segment id -1, big-endian. */
    private static final byte[] KAFKA_LATEST = {-1, -1, -1, -1, -1, -1, -1, -1};
    private static final long LATEST = -1L;

    /** A built-in store whose entries do not have the layout expected: not imported. */
    static final class OtherLayout extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OtherLayout(String message) {
            super(message, null, false, false);
        }
    }

    private VersionedImport() {
    }

    /**
     * Copies the built-in versioned store in {@code builtIn} into a new Ferry store in {@code temp}, complete and
     * closed.
     *
     * @param builtIn the built-in store's directory, {@code <task>/rocksdb/<name>}
     * @param temp the new store's directory
     * @param options the options it is written with
     * @param store the Ferry store being opened (its segment interval and history retention)
     * @param eos whether the application runs exactly-once
     * @return what was copied, or null when the built-in store is not one to import (logged; {@code temp} may
     *         hold a partial store then)
     */
    static BuiltInImport.Result copy(Path builtIn, Path temp, StoreOptions options, FerryVersionedKeyValueStore store, boolean eos)
            throws IOException {
        long start = System.nanoTime();
        String name = store.name();
        try (Store src = BuiltInImport.openBuiltIn(builtIn)) {
            BuiltInImport.Families f = BuiltInImport.families(src, BuiltInImport.PLAIN_FAMILY);
            ColumnFamily from = f.from();
            ColumnFamily offsets = f.offsets();
            if (f.other() != null) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} holds entries in its column family {}, not a versioned "
                        + "store's layout: not imported, the store restores from the changelog", name, builtIn, f.other());
                return null;
            }
            TreeMap<String, byte[]> kept = BuiltInImport.readOffsets(src, offsets);
            byte[] status = kept.remove(new String(FerryStateStore.STATUS_KEY, StandardCharsets.UTF_8));
            if (eos && BuiltInImport.notClosed(status)) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} was not closed: under exactly-once it may hold uncommitted "
                        + "writes, not imported, the store restores from the changelog", name, builtIn);
                return null;
            }
            long[] counts = new long[2];
            try (Store dst = Store.open(temp, options)) {
                ColumnFamily data = dst.createColumnFamily(FerryStateStore.DATA_FAMILY);
                ColumnFamily offs = dst.createColumnFamily(FerryStateStore.OFFSETS_FAMILY);
                if (from != null) {
                    try (BuiltInImport.EntryWriter w = new BuiltInImport.EntryWriter(dst, data, temp, options)) {
                        convert(src, from, store.segmentInterval(), store.historyRetention(), w);
                        w.finish();
                        counts[0] = w.records;
                        counts[1] = w.bytes;
                    }
                }
                BuiltInImport.writeOffsets(dst, offs, kept);
            } catch (OtherLayout e) {
                LOG.info("Ferry store {}: Kafka's built-in store at {} is not a versioned store of this layout and segment interval "
                        + "({}): not imported, the store restores from the changelog", name, builtIn, e.getMessage());
                return null;
            }
            return new BuiltInImport.Result(counts[0], counts[1], BuiltInImport.offsetsOf(kept), (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * Writes every entry of a built-in versioned store's family, converted, into {@code w} in Ferry's key order:
     * the latest values first, then the segments from the oldest live one on.
     *
     * @throws OtherLayout on an entry of another layout
     */
    static void convert(Store src, ColumnFamily from, long segmentInterval, long historyRetention, BuiltInImport.EntryWriter w)
            throws IOException {
        long newest = Long.MIN_VALUE; // the newest time the store holds: the stream time was at least this
        try (Cursor c = src.cursor(from, KeyRange.prefix(KAFKA_LATEST), null)) {
            while (c.next()) {
                byte[] k = c.keyBytes();
                byte[] v = c.valueBytes();
                if (v.length < Long.BYTES) {
                    throw new OtherLayout("a latest value of " + v.length + " bytes");
                }
                newest = Math.max(newest, ByteBuffer.wrap(v).getLong(0));
                w.put(FerrySegmentedStore.prefixed(LATEST, Arrays.copyOfRange(k, Long.BYTES, k.length)), v);
            }
        }
        try (Cursor c = src.cursor(from, KeyRange.lessThan(KAFKA_LATEST), null)) {
            if (!c.last()) {
                return;
            }
            long lastId = segmentId(c.keyBytes());
            if (lastId < 0) {
                throw new OtherLayout("a key in segment " + lastId);
            }
            // a segment holds versions whose validTo falls in it: its start is a time the store held
            newest = Math.max(newest, lastId * segmentInterval);
        }
        long minLive = newest == Long.MIN_VALUE ? 0 : (newest - historyRetention) / segmentInterval; // as the store's segmentId
        byte[] seekTo = ByteBuffer.allocate(Long.BYTES).putLong(Math.max(minLive, 0)).array();
        try (Cursor c = src.cursor(from, KeyRange.closedOpen(seekTo, KAFKA_LATEST), null)) {
            while (c.next()) {
                byte[] k = c.keyBytes();
                long id = segmentId(k);
                if (id < 0) {
                    throw new OtherLayout("a key in segment " + id);
                }
                VersionRow row = parseRow(c.valueBytes(), id, segmentInterval);
                w.put(FerrySegmentedStore.prefixed(id, Arrays.copyOfRange(k, Long.BYTES, k.length)), row.encode());
            }
        }
    }

    /** @return the segment id a built-in store's key starts with */
    private static long segmentId(byte[] key) {
        if (key.length < Long.BYTES) {
            throw new OtherLayout("a key of " + key.length + " bytes");
        }
        return ByteBuffer.wrap(key).getLong(0);
    }

    /**
     * Reads one history row of the built-in store (the layout of {@code RocksDBVersionedStoreSegmentValueFormatter}).
     *
     * @param raw the row's bytes
     * @param id the segment it is in
     * @param segmentInterval the Ferry store's segment interval
     * @return the same versions as a Ferry row
     * @throws OtherLayout if the bytes are not such a row, or a version's validTo falls outside segment {@code id}
     */
    static VersionRow parseRow(byte[] raw, long id, long segmentInterval) {
        if (raw.length < 2 * Long.BYTES + Long.BYTES + Integer.BYTES) {
            throw new OtherLayout("a history row of " + raw.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        long next = b.getLong(0);
        long min = b.getLong(Long.BYTES);
        List<Long> from = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        long valueBytes = 0;
        int at = 2 * Long.BYTES;
        long validTo = next;
        while (true) {
            if (at + Long.BYTES + Integer.BYTES > raw.length) {
                throw new OtherLayout("a history row without its oldest version");
            }
            long ts = b.getLong(at);
            int size = b.getInt(at + Long.BYTES);
            at += Long.BYTES + Integer.BYTES;
            if (ts > validTo || validTo / segmentInterval != id) {
                throw new OtherLayout("a version valid from " + ts + " to " + validTo + " in segment " + id);
            }
            from.add(ts);
            sizes.add(size);
            valueBytes += Math.max(size, 0);
            validTo = ts;
            if (ts == min) {
                break;
            }
        }
        if (at + valueBytes != raw.length) {
            throw new OtherLayout("a history row of " + raw.length + " bytes for " + at + " bytes of versions and " + valueBytes
                    + " of values");
        }
        // the values follow oldest first: the newest version's value ends the row
        List<byte[]> values = new ArrayList<>(sizes.size());
        int end = raw.length;
        for (int size : sizes) {
            if (size < 0) {
                values.add(null);
            } else {
                values.add(Arrays.copyOfRange(raw, end - size, end));
                end -= size;
            }
        }
        return VersionRow.of(next, from, values);
    }
}
