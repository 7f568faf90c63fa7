package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStore;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ferry's versioned key-value store against Kafka's built-in one ({@code RocksDBVersionedStore}), outside a
 * topology: the same random operations (puts with timestamps advancing, out of order within the grace
 * period and later than it, tombstones, deletes, empty values, gets of the latest version and as of a
 * timestamp inside and outside the history retention, over a stream time that passes the retention many
 * times), every answer compared in the same order: put's validTo or return code, delete's and get's
 * bytes (what Kafka's metered layer reads), and the {@code VersionedRecord} with its validTo through an
 * IQv2 {@code VersionedKeyQuery}, and every version in a time range through {@code MultiVersionedKeyQuery}
 * (KIP-968), ascending, descending and unordered. Then both stores' changelogs (the records Kafka's change-logging layer
 * writes: key, raw value or null, timestamp) are restored into fresh stores in random batches, and the
 * restored stores are compared the same way. Both engines; the binding is the JVM's (FFM on 22+, JNI on
 * 17, or -Dferry.binding).
 */
class VersionedStoreComparisonTest {
    @TempDir
    Path tmp;

    static VersionedBytesStoreSupplier ferry(Engine engine, String name, long retention, long interval) {
        return engine == Engine.ROCKSDB
                ? FerryStores.persistentVersionedKeyValueStore(name, Duration.ofMillis(retention), Duration.ofMillis(interval))
                : FerryStores.lmdbVersionedKeyValueStore(name, Duration.ofMillis(retention), Duration.ofMillis(interval));
    }

    /** A store initialized in its own mock context (its own metrics and state directory). */
    static final class Opened {
        final VersionedBytesStore store;
        final InternalMockProcessorContext<?, ?> context;

        Opened(VersionedBytesStoreSupplier supplier, File dir) {
            KeyValueStore<Bytes, byte[]> s = supplier.get();
            store = (VersionedBytesStore) s;
            java.util.Properties p = new java.util.Properties();
            p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-versioned");
            p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
            p.put(StreamsConfig.STATE_DIR_CONFIG, dir.getPath());
            context = new InternalMockProcessorContext<>(dir, new StreamsConfig(p));
            store.init(context, store);
        }

        /** The store's answer to an IQv2 VersionedKeyQuery, as a comparable string. */
        String query(byte[] key, Long asOf) {
            VersionedKeyQuery<Bytes, byte[]> q = VersionedKeyQuery.withKey(Bytes.wrap(key));
            if (asOf != null) {
                q = q.asOf(Instant.ofEpochMilli(asOf));
            }
            QueryResult<VersionedRecord<byte[]>> r = store.query(q, PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(r.isSuccess(), () -> r.getFailureReason() + ": " + r.getFailureMessage());
            return show(r.getResult());
        }

        /** The store's answer to an IQv2 MultiVersionedKeyQuery (KIP-968), every version in order. */
        String versions(byte[] key, Long from, Long to, ResultOrder order) {
            // open bounds as Kafka's metered layer hands them to the store
            MultiVersionedKeyQuery<Bytes, byte[]> q = MultiVersionedKeyQuery.<Bytes, byte[]>withKey(Bytes.wrap(key))
                    .fromTime(Instant.ofEpochMilli(from == null ? Long.MIN_VALUE : from))
                    .toTime(Instant.ofEpochMilli(to == null ? Long.MAX_VALUE : to));
            q = order == ResultOrder.ASCENDING ? q.withAscendingTimestamps() : order == ResultOrder.DESCENDING ? q.withDescendingTimestamps() : q;
            QueryResult<VersionedRecordIterator<byte[]>> r = store.query(q, PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(r.isSuccess(), () -> r.getFailureReason() + ": " + r.getFailureMessage());
            StringBuilder sb = new StringBuilder();
            VersionedRecordIterator<byte[]> it = r.getResult();
            while (it.hasNext()) {
                sb.append(show(it.next())).append(", ");
            }
            it.close();
            assertThrows(IllegalStateException.class, it::hasNext);
            return sb.toString();
        }
    }

    static String show(VersionedRecord<byte[]> r) {
        if (r == null) {
            return "null";
        }
        return new String(r.value(), StandardCharsets.UTF_8) + "@" + r.timestamp() + " to " + r.validTo();
    }

    static String hex(byte[] b) {
        return VersionedTopologyComparisonTest.hex(b);
    }

    static ConsumerRecord<byte[], byte[]> changelog(byte[] key, byte[] value, long ts, long offset) {
        return new ConsumerRecord<>("changelog", 0, offset, ts, TimestampType.CREATE_TIME, -1, -1, key, value, new RecordHeaders(),
                Optional.empty());
    }

    static List<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Engine e : Engine.values()) {
            out.add(Arguments.of(e, 1_000L, 300L, 1L));   // several segments per retention
            out.add(Arguments.of(e, 1_000L, 2_000L, 2L)); // one segment longer than the retention
            out.add(Arguments.of(e, 500L, 100L, 3L));
            out.add(Arguments.of(e, 0L, 50L, 4L));        // no history at all
        }
        return out;
    }

    @ParameterizedTest(name = "{0} retention {1} segment {2} seed {3}")
    @MethodSource("cases")
    void sameAnswersAsTheBuiltInStore(Engine engine, long retention, long interval, long seed) throws Exception {
        Random rnd = new Random(seed * 7919 + retention + interval);
        Opened builtIn = new Opened(Stores.persistentVersionedKeyValueStore("v", Duration.ofMillis(retention),
                Duration.ofMillis(interval)), Files.createDirectories(tmp.resolve("builtin")).toFile());
        Opened ferry = new Opened(ferry(engine, "v", retention, interval), Files.createDirectories(tmp.resolve("ferry")).toFile());
        String binding = System.getProperty("ferry.binding");
        if (binding != null) { // the binding asked for is the one that runs
            assertEquals(binding, inner(ferry.store).checkOpen().binding());
        }
        List<ConsumerRecord<byte[], byte[]>> log = new ArrayList<>();
        int keys = 6;
        long streamTime = 10_000;
        int ops = 3_000;
        long span = Math.max(retention, 50);
        int notPut = 0;
        int expiredGets = 0;
        int outOfOrder = 0;
        try {
            for (int i = 0; i < ops; i++) {
                byte[] key = ("k" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
                int op = rnd.nextInt(100);
                long ts = timestamp(rnd, streamTime, span);
                String where = "op " + i + " at stream time " + streamTime + " ts " + ts;
                if (op < 45) { // put: a value, sometimes empty, sometimes a tombstone
                    int kind = rnd.nextInt(10);
                    byte[] value = kind == 0 ? null : kind == 1 ? new byte[0] : ("v" + i).getBytes(StandardCharsets.UTF_8);
                    long a = builtIn.store.put(Bytes.wrap(key), value, ts);
                    long b = ferry.store.put(Bytes.wrap(key), value, ts);
                    assertEquals(a, b, "put " + where);
                    log.add(changelog(key, value, ts, log.size()));
                    if (a == VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT) {
                        notPut++;
                    } else if (ts < streamTime) {
                        outOfOrder++;
                    }
                    streamTime = a == VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT ? streamTime : Math.max(streamTime, ts);
                } else if (op < 60) { // delete
                    byte[] a = builtIn.store.delete(Bytes.wrap(key), ts);
                    byte[] b = ferry.store.delete(Bytes.wrap(key), ts);
                    assertEquals(hex(a), hex(b), "delete " + where);
                    log.add(changelog(key, null, ts, log.size()));
                    if (ts >= streamTime - retention) {
                        streamTime = Math.max(streamTime, ts);
                    }
                } else if (op < 70) { // latest
                    assertEquals(hex(builtIn.store.get(Bytes.wrap(key))), hex(ferry.store.get(Bytes.wrap(key))), "get " + where);
                    assertEquals(builtIn.query(key, null), ferry.query(key, null), "query " + where);
                } else if (op < 75) { // every version in a time range (KIP-968)
                    Long from = rnd.nextInt(4) == 0 ? null : streamTime - rnd.nextInt((int) (2 * span + 10));
                    Long to = rnd.nextInt(4) == 0 ? null : (from == null ? streamTime : from) + rnd.nextInt((int) span + 10);
                    ResultOrder order = ResultOrder.values()[rnd.nextInt(ResultOrder.values().length)];
                    assertEquals(builtIn.versions(key, from, to, order), ferry.versions(key, from, to, order),
                            "versions " + from + ".." + to + " " + order + " " + where);
                } else { // as of a time, inside or outside the history retention
                    long asOf = streamTime - rnd.nextInt((int) (2 * span + 10)) + 5;
                    if (asOf < streamTime - retention) {
                        expiredGets++;
                    }
                    assertEquals(hex(builtIn.store.get(Bytes.wrap(key), asOf)), hex(ferry.store.get(Bytes.wrap(key), asOf)),
                            "get asOf " + asOf + " " + where);
                    assertEquals(builtIn.query(key, asOf), ferry.query(key, asOf), "query asOf " + asOf + " " + where);
                }
                if (i % 500 == 499) {
                    sweep(builtIn, ferry, keys, streamTime, span, "after op " + i);
                }
            }
            assertTrue(notPut > 10, "late records exercised: " + notPut);
            assertTrue(retention == 0 || outOfOrder > 10, "out-of-order records exercised: " + outOfOrder);
            assertTrue(expiredGets > 10, "expired gets exercised: " + expiredGets);
            sweep(builtIn, ferry, keys, streamTime, span, "at the end");
            FerryVersionedKeyValueStore inner = inner(ferry.store);
            assertEquals(streamTime, inner.observedStreamTime());
            if (retention > 0 && interval < retention) {
                // expired segments are gone from the family: at most the live ones remain
                long minLive = (streamTime - retention) / interval;
                assertTrue(inner.segmentIds().stream().allMatch(id -> id >= minLive), inner.segmentIds() + " min live " + minLive);
            }
        } finally {
            builtIn.store.close();
            ferry.store.close();
        }

        // restoration from the changelog, in random batches, into fresh stores
        Opened builtInRestored = new Opened(Stores.persistentVersionedKeyValueStore("r", Duration.ofMillis(retention),
                Duration.ofMillis(interval)), Files.createDirectories(tmp.resolve("builtin-r")).toFile());
        Opened ferryRestored = new Opened(ferry(engine, "r", retention, interval), Files.createDirectories(tmp.resolve("ferry-r")).toFile());
        try {
            for (int from = 0; from < log.size(); ) {
                int n = 1 + rnd.nextInt(300);
                List<ConsumerRecord<byte[], byte[]>> batch = log.subList(from, Math.min(log.size(), from + n));
                builtInRestored.context.restoreWithHeaders("r", batch);
                ferryRestored.context.restoreWithHeaders("r", batch);
                from += n;
                sweep(builtInRestored, ferryRestored, keys, streamTime, span, "restored up to " + from);
            }
            assertEquals(streamTime, inner(ferryRestored.store).observedStreamTime());
        } finally {
            builtInRestored.store.close();
            ferryRestored.store.close();
        }
    }

    /** Mostly advancing, often out of order within the grace period, sometimes later than it. */
    static long timestamp(Random rnd, long streamTime, long span) {
        int r = rnd.nextInt(100);
        if (r < 40) {
            return streamTime + rnd.nextInt((int) Math.max(span / 4, 5));
        }
        if (r < 85) {
            return Math.max(0, streamTime - rnd.nextInt((int) span + 1));
        }
        return Math.max(0, streamTime - span - 1 - rnd.nextInt((int) span + 1));
    }

    static FerryVersionedKeyValueStore inner(VersionedBytesStore adapter) throws ReflectiveOperationException {
        java.lang.reflect.Field f = adapter.getClass().getDeclaredField("inner");
        f.setAccessible(true);
        return (FerryVersionedKeyValueStore) f.get(adapter);
    }

    /** Every key, as of every time from before the retention to after the stream time, and its latest version. */
    static void sweep(Opened a, Opened b, int keys, long streamTime, long span, String when) {
        long step = Math.max(1, span / 40);
        for (int k = 0; k < keys; k++) {
            byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
            assertEquals(a.query(key, null), b.query(key, null), "latest of k" + k + " " + when);
            for (ResultOrder order : ResultOrder.values()) {
                assertEquals(a.versions(key, null, null, order), b.versions(key, null, null, order), "all versions of k" + k + " " + when);
                long from = streamTime - span / 2;
                assertEquals(a.versions(key, from, streamTime, order), b.versions(key, from, streamTime, order),
                        "recent versions of k" + k + " " + when);
            }
            for (long t = streamTime - 2 * span - 3; t <= streamTime + 3; t += step) {
                assertEquals(a.query(key, t), b.query(key, t), "k" + k + " as of " + t + " " + when);
                assertEquals(hex(a.store.get(Bytes.wrap(key), t)), hex(b.store.get(Bytes.wrap(key), t)), "bytes k" + k + " as of " + t + " " + when);
            }
        }
    }

    /** The javadoc example of KIP-889, step by step, with the answers Kafka documents. */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void documentedExample(Engine engine) throws Exception {
        Opened f = new Opened(ferry(engine, "doc", 100, 30), tmp.toFile());
        try {
            Bytes k = Bytes.wrap(new byte[] {1});
            assertEquals(-1L, f.store.put(k, v("a"), 10));
            assertEquals(-1L, f.store.put(k, v("b"), 20));
            assertEquals(20L, f.store.put(k, v("c"), 15)); // out of order: valid until b
            FerryVersionedKeyValueStore s = inner(f.store);
            assertEquals("b@20 to Optional.empty", show(s.get(k)));
            assertEquals("c@15 to Optional[20]", show(s.get(k, 17)));
            assertEquals("a@10 to Optional[15]", show(s.get(k, 14)));
            assertNull(s.get(k, 9));
            assertEquals("b@20 to Optional.empty", show(s.delete(k, 30)));
            assertNull(s.get(k));
            assertEquals("b@20 to Optional[30]", show(s.get(k, 29)));
            assertEquals(30L, f.store.put(k, v("d"), 25)); // before the deletion
            assertEquals(VersionedKeyValueStore.PUT_RETURN_CODE_NOT_PUT, f.store.put(k, v("late"), 30 - 101));
            assertEquals(VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED, f.store.put(k, v("e"), 200));
            assertNull(s.get(k, 25)); // 25 < 200 - 100: history expired
            assertEquals("e@200 to Optional.empty", show(s.get(k, 100_000)));
            assertEquals("e@200 to Optional.empty", show(s.get(k, 200)));
        } finally {
            f.store.close();
        }
    }

    static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** History kept on disk is found again after a reopen; offsets and the store's data survive it. */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void reopenKeepsHistory(Engine engine) throws Exception {
        File dir = tmp.toFile();
        Bytes k = Bytes.wrap(v("k"));
        Opened f = new Opened(ferry(engine, "re", 1_000, 100), dir);
        f.store.put(k, v("a"), 100);
        f.store.put(k, v("b"), 350);
        f.store.put(k, v("c"), 720);
        f.store.commit(java.util.Map.of(new org.apache.kafka.common.TopicPartition("cl", 0), 42L));
        f.store.close();
        Opened g = new Opened(ferry(engine, "re", 1_000, 100), dir);
        try {
            FerryVersionedKeyValueStore s = inner(g.store);
            assertEquals(List.of(3L, 7L), s.segmentIds());
            assertEquals("a@100 to Optional[350]", show(s.get(k, 200)));
            assertEquals("b@350 to Optional[720]", show(s.get(k, 700)));
            assertEquals("c@720 to Optional.empty", show(s.get(k)));
            assertEquals(42L, g.store.committedOffset(new org.apache.kafka.common.TopicPartition("cl", 0)));
            // an out-of-order put after the restart sees that history (the built-in store, which does not reopen
            // its segments, answers 720 here and loses a@100: docs/kafka-streams.md, "Versioned stores")
            assertEquals(350L, g.store.put(k, v("x"), 300));
            assertEquals("a@100 to Optional[300]", show(s.get(k, 200)));
            assertEquals("x@300 to Optional[350]", show(s.get(k, 320)));
        } finally {
            g.store.close();
        }
    }

    /** Misuse ends in exceptions, as on the built-in store: closed store, null keys, unsupported calls. */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void misuseThrows(Engine engine) throws Exception {
        Opened f = new Opened(ferry(engine, "mis", 1_000, 100), tmp.toFile());
        Bytes k = Bytes.wrap(v("k"));
        assertThrows(NullPointerException.class, () -> f.store.put(null, v("a"), 1));
        assertThrows(NullPointerException.class, () -> f.store.get(null));
        assertThrows(NullPointerException.class, () -> f.store.get(null, 1));
        assertThrows(NullPointerException.class, () -> f.store.delete(null, 1));
        assertThrows(UnsupportedOperationException.class, () -> f.store.put(k, v("a")));
        assertThrows(UnsupportedOperationException.class, () -> f.store.all());
        assertThrows(UnsupportedOperationException.class, () -> f.store.delete(k));
        FerryVersionedKeyValueStore s = inner(f.store);
        assertThrows(UnsupportedOperationException.class, () -> s.restoreAll(List.of()));
        f.store.put(k, v("a"), 5);
        f.store.close();
        assertFalse(f.store.isOpen());
        f.store.close(); // idempotent
        assertThrows(InvalidStateStoreException.class, () -> f.store.put(k, v("a"), 10));
        assertThrows(InvalidStateStoreException.class, () -> f.store.get(k));
        assertThrows(InvalidStateStoreException.class, () -> f.store.get(k, 10));
        assertThrows(InvalidStateStoreException.class, () -> f.store.delete(k, 10));
        assertThrows(InvalidStateStoreException.class, () -> s.observedStreamTime());
        QueryResult<?> multi = f.store.query(MultiVersionedKeyQuery.withKey(k), PositionBound.unbounded(), new QueryConfig(false));
        assertFalse(multi.isSuccess()); // a failed query, as on the built-in store
        assertThrows(InvalidStateStoreException.class, () -> f.store.commit(java.util.Map.of()));
        assertThrows(InvalidStateStoreException.class,
                () -> f.context.restoreWithHeaders("mis", List.of(changelog(v("k"), v("x"), 20, 0))));
        // negative timestamps far enough back to fall in a reserved segment id are refused, as the built-in store refuses them
        Opened g = new Opened(ferry(engine, "neg", 1_000_000, 100), Files.createDirectories(tmp.resolve("neg")).toFile());
        try {
            assertThrows(IllegalArgumentException.class, () -> g.store.put(k, null, -500));
        } finally {
            g.store.close();
        }
    }

    @Test
    void supplierChecksItsArguments() {
        assertThrows(NullPointerException.class, () -> FerryStores.persistentVersionedKeyValueStore(null, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> FerryStores.persistentVersionedKeyValueStore("x", Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class,
                () -> FerryStores.lmdbVersionedKeyValueStore("x", Duration.ofMillis(10), Duration.ZERO));
        VersionedBytesStoreSupplier s = FerryStores.persistentVersionedKeyValueStore("x", Duration.ofMinutes(10));
        assertEquals(600_000L, s.historyRetentionMs());
        assertEquals("rocksdb", s.metricsScope());
        assertEquals("lmdb", FerryStores.lmdbVersionedKeyValueStore("x", Duration.ofMinutes(10)).metricsScope());
        assertTrue(s.get() instanceof VersionedBytesStore);
        // the built-in store's default segment intervals
        assertEquals(2_000L, FerryStores.versionedSegmentInterval(1_000));
        assertEquals(20_000L, FerryStores.versionedSegmentInterval(61_000));
        assertEquals(60_000L, FerryStores.versionedSegmentInterval(301_000));
        assertEquals(300_000L, FerryStores.versionedSegmentInterval(3_600_001));
        StateStore unused = s.get();
        assertFalse(unused.isOpen());
    }

    @Test
    void rowsKeepTheirVersions() {
        VersionRow r = VersionRow.of(v("a"), 10, 20);
        r.insertAsLatest(20, 30, v("b"));
        r.insertAsLatest(35, 40, null); // a gap: 30..35 becomes a tombstone
        VersionRow p = VersionRow.parse(r.encode());
        assertEquals(40, p.nextTimestamp());
        assertEquals(10, p.minTimestamp());
        assertNull(p.value(p.find(32)));
        assertArrayEquals(v("b"), p.value(p.find(29)));
        assertEquals(30, p.validTo(p.find(29)));
        assertThrows(IllegalArgumentException.class, () -> p.find(40));
        assertThrows(IllegalArgumentException.class, () -> p.find(9));
    }
}
