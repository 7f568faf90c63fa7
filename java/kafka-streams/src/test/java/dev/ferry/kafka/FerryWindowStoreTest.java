package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.WindowKeyQuery;
import org.apache.kafka.streams.query.WindowRangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The window and session stores outside a topology, on both engines: retention drops whole segments
 * from the Ferry family, restoration, reopening, committed offsets, interactive queries, the
 * closed-store and null-key contracts. (What the stores answer is compared with Kafka's built-in
 * stores in WindowStoreComparisonTest.)
 */
class FerryWindowStoreTest {
    static final long MINUTE = 60_000L;
    /** Retention 4 minutes: segments of 2 minutes, as the built-in store makes them. */
    static final Duration RETENTION = Duration.ofMinutes(4);

    @TempDir
    Path tmp;

    private FerryWindowStore window(Engine engine, TestContext ctx, boolean dups) {
        FerryWindowStore s = (FerryWindowStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentWindowStore("w", RETENTION, Duration.ofMinutes(1), dups)
                : FerryStores.lmdbWindowStore("w", RETENTION, Duration.ofMinutes(1), dups)).get();
        s.init(ctx, s);
        return s;
    }

    private FerryWindowStore window(Engine engine) {
        return window(engine, new TestContext(tmp.toFile()), false);
    }

    private FerrySessionStore session(Engine engine, TestContext ctx) {
        FerrySessionStore s = (FerrySessionStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentSessionStore("s", RETENTION) : FerryStores.lmdbSessionStore("s", RETENTION)).get();
        s.init(ctx, s);
        return s;
    }

    static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(s(kv.key.key().get()) + "@" + kv.key.window().start() + "-" + kv.key.window().end() + "=" + s(kv.value)));
        }
        return out;
    }

    static List<String> values(WindowStoreIterator<byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key + "=" + s(kv.value)));
        }
        return out;
    }

    /** Every key of the store's data family (segment prefix included), straight from Ferry. */
    static int rawEntries(FerryStateStore s) {
        Store st = s.checkOpen();
        ColumnFamily data = st.columnFamily(FerryStateStore.DATA_FAMILY).orElseThrow();
        int n = 0;
        try (Cursor c = st.cursor(data, KeyRange.all(), null)) {
            while (c.next()) {
                n++;
            }
        }
        return n;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void putFetchAndRangesFollowTheWindowStoreContract(Engine engine) {
        try (FerryWindowStore s = window(engine)) {
            assertTrue(s.isOpen());
            assertTrue(s.persistent());
            s.put(b("a"), v("a0"), 0);
            s.put(b("a"), v("a1"), MINUTE);
            s.put(b("b"), v("b1"), MINUTE);
            s.put(b("a"), v("a2"), 2 * MINUTE); // next segment
            assertEquals("a1", s(s.fetch(b("a"), MINUTE)));
            assertNull(s.fetch(b("c"), MINUTE));
            assertEquals(List.of("0=a0", "60000=a1", "120000=a2"), values(s.fetch(b("a"), 0, 3 * MINUTE)));
            assertEquals(List.of("120000=a2", "60000=a1", "0=a0"), values(s.backwardFetch(b("a"), 0, 3 * MINUTE)));
            assertEquals(List.of("a@0-60000=a0", "a@60000-120000=a1", "b@60000-120000=b1", "a@120000-180000=a2"), windows(s.all()),
                    "segment by segment, within a segment by key");
            assertEquals(List.of("a@120000-180000=a2", "b@60000-120000=b1", "a@60000-120000=a1", "a@0-60000=a0"), windows(s.backwardAll()));
            assertEquals(List.of("a@60000-120000=a1", "b@60000-120000=b1"), windows(s.fetchAll(MINUTE, MINUTE)));
            assertEquals(List.of("b@60000-120000=b1"), windows(s.fetch(b("b"), null, 0, 3 * MINUTE)));
            assertEquals(List.of(), windows(s.fetch(b("b"), b("a"), 0, 3 * MINUTE)), "an inverted key range is empty");
            s.put(b("a"), null, MINUTE); // a null value deletes
            assertNull(s.fetch(b("a"), MINUTE));
            assertEquals(List.of("0=a0", "120000=a2"), values(s.fetch(b("a"), 0, 3 * MINUTE)));
            try (WindowStoreIterator<byte[]> it = s.fetch(b("a"), 0, 3 * MINUTE)) {
                assertEquals(0L, it.peekNextKey());
            }
            assertEquals(0, s.openIterators());
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void retentionDropsWholeSegmentsFromTheFamily(Engine engine) {
        try (FerryWindowStore s = window(engine)) {
            assertEquals(2 * MINUTE, s.segmentInterval());
            for (int m = 0; m < 8; m++) { // minutes 0..7: segments 0..3
                s.put(b("k"), v("m" + m), m * MINUTE);
                s.put(b("j"), v("m" + m), m * MINUTE);
            }
            // stream time 7 min, retention 4 min: the oldest live segment holds 3 min (segment 1)
            assertEquals(List.of(1L, 2L, 3L), s.segmentIds());
            assertEquals(12, rawEntries(s), "segment 0 (minutes 0 and 1) is gone from the family");
            // minutes 2 and 3 sit in a live segment but are older than retention: not returned, as in the built-in store
            assertEquals(List.of("240000=m4", "300000=m5", "360000=m6", "420000=m7"), values(s.fetch(b("k"), 0, 10 * MINUTE)));
            assertNull(s.fetch(b("k"), 2 * MINUTE));
            s.put(b("k"), v("late"), MINUTE); // too late: dropped
            assertEquals(12, rawEntries(s));
            s.put(b("k"), v("m12"), 12 * MINUTE); // segments 1..3 expire at once
            assertEquals(List.of(6L), s.segmentIds());
            assertEquals(List.of("k@720000-780000=m12"), windows(s.all()));
            assertEquals(1, rawEntries(s));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void retainDuplicatesKeepsEveryPutAndSkipsNullValues(Engine engine) {
        try (FerryWindowStore s = window(engine, new TestContext(tmp.toFile()), true)) {
            s.put(b("k"), v("1"), MINUTE);
            s.put(b("k"), v("2"), MINUTE);
            s.put(b("k"), null, MINUTE); // a no-op with duplicates
            s.put(b("k"), v("3"), MINUTE);
            assertEquals(List.of("60000=1", "60000=2", "60000=3"), values(s.fetch(b("k"), 0, MINUTE)));
            assertEquals("3", s(s.fetch(b("k"), MINUTE)), "the point fetch reads the latest sequence number");
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void restoreWritesBatchesDropsExpiredRecordsAndSurvivesReopen(Engine engine) {
        TestContext ctx = new TestContext(tmp.toFile());
        try (FerryWindowStore s = window(engine, ctx, false)) {
            BatchingStateRestoreCallback cb = assertInstanceOf(BatchingStateRestoreCallback.class, ctx.restoreCallback);
            List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
            for (int m = 0; m < 10; m++) { // changelog keys: [key][window start][seqnum]
                batch.add(KeyValue.pair(FerryWindowStore.storeKey(v("k"), m * MINUTE, 0), v("m" + m)));
            }
            batch.add(KeyValue.pair(FerryWindowStore.storeKey(v("k"), 9 * MINUTE, 0), null)); // a tombstone
            cb.restoreAll(batch);
            // stream time 9 min: segments from 5 min on are live (2..4)
            assertEquals(List.of(2L, 3L, 4L), s.segmentIds());
            assertEquals(List.of("360000=m6", "420000=m7", "480000=m8"), values(s.fetch(b("k"), 0, 10 * MINUTE)));
            s.commit(Map.of(new TopicPartition("app-w-changelog", 0), 11L));
        }
        try (FerryWindowStore s = window(engine, ctx, false)) {
            assertEquals(List.of(2L, 3L, 4L), s.segmentIds(), "segments are found again on reopen");
            assertEquals(11L, s.committedOffset(new TopicPartition("app-w-changelog", 0)));
            assertTrue(s.managesOffsets());
            assertEquals(List.of("k@240000-300000=m4", "k@300000-360000=m5", "k@360000-420000=m6", "k@420000-480000=m7", "k@480000-540000=m8"),
                    windows(s.all()), "the stream time starts unknown after a restart, as in the built-in store");
            s.put(b("k"), v("m10"), 10 * MINUTE);
            assertEquals(List.of("420000=m7", "480000=m8", "600000=m10"), values(s.fetch(b("k"), 0, 10 * MINUTE)));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void interactiveWindowQueriesAnswer(Engine engine) {
        try (FerryWindowStore s = window(engine)) {
            s.put(b("k"), v("1"), MINUTE);
            s.put(b("k"), v("2"), 2 * MINUTE);
            // one instant for both ends: kafka-streams 4.3.0's WindowKeyQuery swaps timeFrom and timeTo
            // (its constructor assigns them crosswise), for the built-in stores as well
            java.time.Instant at = java.time.Instant.ofEpochMilli(MINUTE);
            QueryResult<WindowStoreIterator<byte[]>> r = s.query(WindowKeyQuery.withKeyAndWindowStartRange(b("k"), at, at),
                    PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(r.isSuccess(), r.toString());
            assertEquals(List.of("60000=1"), values(r.getResult()));
            QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> all = s.query(WindowRangeQuery.withWindowStartRange(at, at),
                    PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(all.isSuccess(), all.toString());
            assertEquals(List.of("k@60000-120000=1"), windows(all.getResult()));
        }
        try (FerrySessionStore s = session(engine, new TestContext(tmp.resolve("s").toFile()))) {
            s.put(new Windowed<>(b("k"), new SessionWindow(0, MINUTE)), v("s1"));
            QueryResult<KeyValueIterator<Windowed<Bytes>, byte[]>> r = s.query(WindowRangeQuery.withKey(b("k")),
                    PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(r.isSuccess(), r.toString());
            assertEquals(List.of("k@0-60000=s1"), windows(r.getResult()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void everyCallOnAClosedStoreThrowsInvalidStateStoreException(Engine engine) {
        FerryWindowStore w = window(engine);
        w.put(b("a"), v("1"), MINUTE);
        KeyValueIterator<Windowed<Bytes>, byte[]> open = w.all();
        WindowStoreIterator<byte[]> openValues = w.fetch(b("a"), 0, MINUTE);
        assertEquals(2, w.openIterators());
        w.close();
        w.close(); // idempotent
        assertFalse(w.isOpen());
        assertEquals(0, w.openIterators(), "closing the store closes its iterators");
        // Kafka's contract for window and session iterators (its store suites check it): false, not a throw
        assertFalse(open.hasNext());
        assertThrows(java.util.NoSuchElementException.class, openValues::next);
        open.close();
        List<Runnable> calls = List.of(
                () -> w.put(b("a"), v("2"), MINUTE), () -> w.fetch(b("a"), MINUTE), () -> w.fetch(b("a"), 0, MINUTE),
                () -> w.backwardFetch(b("a"), 0, MINUTE), () -> w.fetch(b("a"), b("b"), 0, MINUTE), () -> w.backwardFetch(b("a"), b("b"), 0, MINUTE),
                w::all, w::backwardAll, () -> w.fetchAll(0, MINUTE), () -> w.backwardFetchAll(0, MINUTE), w::flush,
                () -> w.commit(Map.of(new TopicPartition("t", 0), 1L)), () -> w.committedOffset(new TopicPartition("t", 0)));
        for (Runnable r : calls) {
            assertThrows(InvalidStateStoreException.class, r::run);
        }

        FerrySessionStore s = session(engine, new TestContext(tmp.resolve("s").toFile()));
        Windowed<Bytes> session = new Windowed<>(b("a"), new SessionWindow(0, MINUTE));
        s.put(session, v("1"));
        KeyValueIterator<Windowed<Bytes>, byte[]> sessions = s.fetch(b("a"));
        s.close();
        assertFalse(sessions.hasNext());
        List<Runnable> sessionCalls = List.of(
                () -> s.put(session, v("2")), () -> s.remove(session), () -> s.fetchSession(b("a"), 0, MINUTE), () -> s.fetch(b("a")),
                () -> s.backwardFetch(b("a")), () -> s.fetch(b("a"), b("b")), () -> s.backwardFetch(b("a"), b("b")),
                () -> s.findSessions(b("a"), 0, MINUTE), () -> s.backwardFindSessions(b("a"), 0, MINUTE),
                () -> s.findSessions(b("a"), b("b"), 0, MINUTE), () -> s.backwardFindSessions(b("a"), b("b"), 0, MINUTE), s::flush);
        for (Runnable r : sessionCalls) {
            assertThrows(InvalidStateStoreException.class, r::run);
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void nullKeysThrowNullPointerException(Engine engine) {
        try (FerryWindowStore w = window(engine); FerrySessionStore s = session(engine, new TestContext(tmp.resolve("s").toFile()))) {
            assertThrows(NullPointerException.class, () -> w.put(null, v("x"), MINUTE));
            assertThrows(NullPointerException.class, () -> w.fetch(null, MINUTE));
            assertThrows(NullPointerException.class, () -> w.fetch(null, 0, MINUTE));
            assertThrows(NullPointerException.class, () -> w.backwardFetch(null, 0, MINUTE));
            assertEquals(List.of(), windows(w.fetch(null, null, 0, MINUTE)), "null bounds of a key range are open");
            assertThrows(NullPointerException.class, () -> s.put(null, v("x")));
            assertThrows(NullPointerException.class, () -> s.put(new Windowed<>(null, new SessionWindow(0, 1)), v("x")));
            assertThrows(NullPointerException.class, () -> s.remove(null));
            assertThrows(NullPointerException.class, () -> s.fetchSession(null, 0, 1));
            assertThrows(NullPointerException.class, () -> s.fetch(null));
            assertThrows(NullPointerException.class, () -> s.findSessions(null, 0, 1));
            assertThrows(NullPointerException.class, () -> s.backwardFindSessions(null, 0, 1));
            assertEquals(0, windows(s.fetch(null, null)).size());
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void sessionsAreFoundByOverlapAndExpireByEndTime(Engine engine) {
        TestContext ctx = new TestContext(tmp.toFile());
        try (FerrySessionStore s = session(engine, ctx)) {
            s.put(new Windowed<>(b("u"), new SessionWindow(0, MINUTE)), v("s1"));
            s.put(new Windowed<>(b("u"), new SessionWindow(2 * MINUTE, 3 * MINUTE)), v("s2"));
            s.put(new Windowed<>(b("v"), new SessionWindow(MINUTE, MINUTE)), v("s3"));
            assertEquals("s2", s(s.fetchSession(b("u"), 2 * MINUTE, 3 * MINUTE)));
            assertNull(s.fetchSession(b("u"), 2 * MINUTE, 4 * MINUTE));
            // sessions ending at or after 1 min and starting at or before 2 min
            assertEquals(List.of("u@0-60000=s1", "u@120000-180000=s2"), windows(s.findSessions(b("u"), MINUTE, 2 * MINUTE)));
            assertEquals(List.of("u@120000-180000=s2", "u@0-60000=s1"), windows(s.backwardFindSessions(b("u"), MINUTE, 2 * MINUTE)));
            assertEquals(List.of("u@0-60000=s1", "v@60000-60000=s3", "u@120000-180000=s2"), windows(s.fetch(b("u"), b("v"))),
                    "segment by segment (end time), within a segment by key");
            s.remove(new Windowed<>(b("u"), new SessionWindow(0, MINUTE)));
            assertEquals(List.of("u@120000-180000=s2"), windows(s.fetch(b("u"))));
            s.put(new Windowed<>(b("u"), new SessionWindow(9 * MINUTE, 10 * MINUTE)), v("s4")); // stream time 10 min
            assertEquals(List.of("u@540000-600000=s4"), windows(s.fetch(b("u"))));
            assertEquals(List.of(5L), s.segmentIds(), "expired segments are dropped");
            assertEquals(1, rawEntries(s));
        }
    }
}
