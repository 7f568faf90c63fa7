package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Compression;
import dev.ferry.Engine;
import dev.ferry.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The store's own contract, on both engines, outside a topology. */
class FerryKeyValueStoreTest {
    @TempDir
    Path tmp;

    private FerryKeyValueStore open(Engine engine, TestContext ctx) {
        FerryKeyValueStore s = (FerryKeyValueStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentKeyValueStore("kv") : FerryStores.lmdbKeyValueStore("kv")).get();
        s.init(ctx, s);
        return s;
    }

    private FerryKeyValueStore open(Engine engine) {
        return open(engine, new TestContext(tmp.toFile()));
    }

    static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<String> keys(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                out.add(new String(kv.key.get(), StandardCharsets.UTF_8) + "=" + new String(kv.value, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void fill(KeyValueStore<Bytes, byte[]> s, String... ks) {
        for (String k : ks) {
            s.put(b(k), v(k.toUpperCase()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void pointOperationsFollowKeyValueStoreSemantics(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            assertTrue(s.isOpen());
            assertTrue(s.persistent());
            assertNull(s.get(b("a")));
            s.put(b("a"), v("1"));
            assertArrayEquals(v("1"), s.get(b("a")));
            assertArrayEquals(v("1"), s.putIfAbsent(b("a"), v("2")));
            assertArrayEquals(v("1"), s.get(b("a")));
            assertNull(s.putIfAbsent(b("b"), v("3")));
            assertArrayEquals(v("3"), s.get(b("b")));
            assertArrayEquals(v("3"), s.delete(b("b")));
            assertNull(s.delete(b("b")));
            assertNull(s.get(b("b")));
            s.put(b("a"), null); // a null value deletes, as in Kafka's stores
            assertNull(s.get(b("a")));
            s.putAll(List.of(KeyValue.pair(b("x"), v("X")), KeyValue.pair(b("y"), v("Y")), KeyValue.pair(b("x"), null)));
            assertNull(s.get(b("x")));
            assertArrayEquals(v("Y"), s.get(b("y")));
            s.flush();
            for (int i = 0; i < 1000; i++) {
                s.put(b("n" + i), v("v"));
            }
            s.flush();
            long n = s.approximateNumEntries(); // exact on LMDB, RocksDB's estimate otherwise
            assertTrue(engine == Engine.LMDB ? n == 1001 : n >= 500 && n <= 2000, "approximateNumEntries = " + n);
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void rangesAreInclusiveOrderedAndReversible(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            fill(s, "a", "b", "ba", "bb", "c", "d");
            assertEquals(List.of("b=B", "ba=BA", "bb=BB", "c=C"), keys(s.range(b("b"), b("c"))));
            assertEquals(List.of("c=C", "bb=BB", "ba=BA", "b=B"), keys(s.reverseRange(b("b"), b("c"))));
            assertEquals(List.of("c=C", "d=D"), keys(s.range(b("c"), null)));
            assertEquals(List.of("a=A", "b=B"), keys(s.range(null, b("b"))));
            assertEquals(List.of(), keys(s.range(b("d"), b("a"))), "an inverted range is empty");
            assertEquals(List.of("a=A", "b=B", "ba=BA", "bb=BB", "c=C", "d=D"), keys(s.all()));
            assertEquals(List.of("d=D", "c=C", "bb=BB", "ba=BA", "b=B", "a=A"), keys(s.reverseAll()));
            assertEquals(List.of("b=B", "ba=BA", "bb=BB"), keys(s.prefixScan("b", Serdes.String().serializer())));
            assertEquals(List.of(), keys(s.prefixScan("e", Serdes.String().serializer())));
            try (KeyValueIterator<Bytes, byte[]> it = s.all()) {
                assertEquals(b("a"), it.peekNextKey());
                assertEquals(b("a"), it.next().key);
            }
            try (KeyValueIterator<Bytes, byte[]> it = s.range(b("x"), b("z"))) {
                assertFalse(it.hasNext());
                assertThrows(NoSuchElementException.class, it::next);
                assertThrows(NoSuchElementException.class, it::peekNextKey);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void keysOrderAsUnsignedBytes(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            s.put(Bytes.wrap(new byte[] {(byte) 0x80}), v("high"));
            s.put(Bytes.wrap(new byte[] {0x01}), v("low"));
            List<String> ks = keys(s.all());
            assertEquals(List.of("\u0001=low", new String(new byte[] {(byte) 0x80}, StandardCharsets.UTF_8) + "=high"), ks);
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void iteratorsReadTheStateOfTheirOpeningAndWritesMayInterleave(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            fill(s, "a", "b", "c");
            List<String> seen = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> it = s.all(); KeyValueIterator<Bytes, byte[]> second = s.all()) {
                while (it.hasNext()) {
                    KeyValue<Bytes, byte[]> kv = it.next();
                    seen.add(new String(kv.key.get(), StandardCharsets.UTF_8));
                    s.delete(kv.key); // delete while iterating, a common processor pattern
                    s.put(b("z" + seen.size()), v("new"));
                }
                assertTrue(second.hasNext(), "two iterators open at once on one thread");
            }
            assertEquals(List.of("a", "b", "c"), seen);
            assertEquals(List.of("z1=new", "z2=new", "z3=new"), keys(s.all()));
            assertEquals(0, s.openIterators());
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void nullKeysThrowNullPointerException(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            assertThrows(NullPointerException.class, () -> s.get(null));
            assertThrows(NullPointerException.class, () -> s.put(null, v("x")));
            assertThrows(NullPointerException.class, () -> s.putIfAbsent(null, v("x")));
            assertThrows(NullPointerException.class, () -> s.delete(null));
            assertThrows(NullPointerException.class, () -> s.putAll(null));
            List<KeyValue<Bytes, byte[]>> withNull = new ArrayList<>();
            withNull.add(KeyValue.pair(b("ok"), v("1")));
            withNull.add(KeyValue.pair(null, v("2")));
            assertThrows(NullPointerException.class, () -> s.putAll(withNull));
            assertNull(s.get(b("ok")), "nothing of a batch with a null key is written");
            assertThrows(NullPointerException.class, () -> s.prefixScan(null, Serdes.String().serializer()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void everyCallOnAClosedStoreThrowsInvalidStateStoreException(Engine engine) {
        FerryKeyValueStore s = open(engine);
        s.put(b("a"), v("1"));
        KeyValueIterator<Bytes, byte[]> open = s.all();
        assertEquals(1, s.openIterators());
        s.close();
        s.close(); // idempotent
        assertFalse(s.isOpen());
        assertEquals(0, s.openIterators(), "closing the store closes its iterators");
        assertThrows(InvalidStateStoreException.class, open::hasNext);
        assertThrows(InvalidStateStoreException.class, open::next);
        open.close();
        List<Runnable> calls = List.of(
                () -> s.get(b("a")), () -> s.put(b("a"), v("2")), () -> s.putIfAbsent(b("a"), v("2")),
                () -> s.putAll(List.of(KeyValue.pair(b("a"), v("2")))), () -> s.delete(b("a")),
                () -> s.range(b("a"), b("b")), () -> s.reverseRange(b("a"), b("b")), s::all, s::reverseAll,
                () -> s.prefixScan("a", Serdes.String().serializer()), s::approximateNumEntries, s::flush,
                () -> s.commit(Map.of(new TopicPartition("t", 0), 1L)), () -> s.committedOffset(new TopicPartition("t", 0)));
        for (Runnable r : calls) {
            assertThrows(InvalidStateStoreException.class, r::run);
        }
        QueryResult<byte[]> q = s.query(KeyQuery.withKey(b("a")), PositionBound.unbounded(), new QueryConfig(false));
        assertFalse(q.isSuccess(), "a query on a closed store fails");
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void restoreWritesWholeBatchesAndDeletesOnNullValues(Engine engine) {
        TestContext ctx = new TestContext(tmp.toFile());
        try (FerryKeyValueStore s = open(engine, ctx)) {
            BatchingStateRestoreCallback cb = assertInstanceOf(BatchingStateRestoreCallback.class, ctx.restoreCallback);
            List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                batch.add(KeyValue.pair(v(String.format("k%04d", i)), v("v" + i)));
            }
            batch.add(KeyValue.pair(v("k0005"), null));
            cb.restoreAll(batch);
            cb.restoreAll(List.of(KeyValue.pair(v("k0006"), null)));
            assertEquals(998, keys(s.all()).size());
            assertNull(s.get(b("k0005")));
            assertArrayEquals(v("v999"), s.get(b("k0999")));
        }
    }

    /**
     * Restored records are buffered and written sorted by key (FerryStateStore.bufferRestored): whatever
     * the buffer's size (0: each batch at once; 1 byte: each batch alone; the default: all of them),
     * the store ends as writing the changelog in order leaves it (a key's last record wins, deletes
     * included), reads between batches see every record restored so far, a commit writes them
     * before its offset, and close keeps them.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void restoredRecordsEndAsTheChangelogInOrderWhateverTheBuffer(Engine engine) {
        // RocksDB: buffers written as ingested table files (the default) and into the memtable
        for (boolean tableFiles : engine == Engine.ROCKSDB ? new boolean[] {true, false} : new boolean[] {false}) {
            restoredRecordsEndAsTheChangelogInOrder(engine, tableFiles);
        }
    }

    private void restoredRecordsEndAsTheChangelogInOrder(Engine engine, boolean tableFiles) {
        TopicPartition tp = new TopicPartition("app-kv-changelog", 0);
        for (long limit : new long[] {0, 1, FerryStoreConfig.DEFAULT_RESTORE_BUFFER}) {
            java.util.Random r = new java.util.Random(limit + engine.ordinal());
            java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
            TestContext ctx = new TestContext(tmp.resolve("buffer-" + limit + "-" + tableFiles).toFile());
            ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, limit);
            ctx.configs.put(FerryStoreConfig.ROCKSDB_RESTORE_TABLE_FILES, Boolean.toString(tableFiles));
            long offset = 0;
            long committed = -1;
            try (FerryKeyValueStore s = open(engine, ctx)) {
                BatchingStateRestoreCallback cb = (BatchingStateRestoreCallback) ctx.restoreCallback;
                for (int b = 0; b < 30; b++) {
                    List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
                    for (int i = 1 + r.nextInt(300); i > 0; i--, offset++) {
                        String k = "k" + r.nextInt(500);
                        String val = r.nextInt(5) == 0 ? null : "v" + offset;
                        changelogRecord(batch, model, k, val);
                    }
                    cb.restoreAll(batch);
                    if (b % 7 == 3) { // a read between batches sees every record restored so far
                        String k = "k" + r.nextInt(500);
                        byte[] got = s.get(b(k));
                        assertEquals(model.get(k), got == null ? null : new String(got, StandardCharsets.UTF_8), "limit " + limit + ", " + k);
                    }
                    if (b == 20) { // a commit writes the restored records before its offset
                        s.commit(Map.of(tp, offset));
                        committed = offset;
                        dev.ferry.Store st = s.openStore();
                        dev.ferry.ColumnFamily data = st.columnFamily(FerryKeyValueStore.DATA_FAMILY).orElseThrow();
                        for (Map.Entry<String, String> e : model.entrySet()) {
                            assertArrayEquals(v(e.getValue()), st.get(data, v(e.getKey())), "limit " + limit + ": committed " + e.getKey());
                        }
                    }
                }
                List<String> want = entries(model);
                assertEquals(want, keys(s.all()), "limit " + limit);
                cb.restoreAll(List.of(KeyValue.pair(v("last"), v("L"))));
            }
            model.put("last", "L");
            try (FerryKeyValueStore s = open(engine, ctx)) {
                List<String> want = entries(model);
                assertEquals(want, keys(s.all()), "limit " + limit + ": close kept the buffered records");
                assertEquals(committed, s.committedOffset(tp), "limit " + limit);
            }
        }
    }

    /**
     * A buffer large enough to be written as two table files at once on RocksDB (split at its middle
     * key, each written on its own thread, ingested together), and the same records on LMDB: random
     * keys repeated across batches, deletes of keys written by earlier buffers, and a commit between
     * buffers; the store ends as the changelog applied in order, before and after a reopen, and the
     * restore leaves no table file beside the store.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void largeRestoreBuffersEndAsTheChangelogInOrder(Engine engine) throws Exception {
        TopicPartition tp = new TopicPartition("app-kv-changelog", 0);
        java.util.Random r = new java.util.Random(7 + engine.ordinal());
        java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 4L << 20); // about 40,000 of these records
        long offset = 0;
        try (FerryKeyValueStore s = open(engine, ctx)) {
            BatchingStateRestoreCallback cb = (BatchingStateRestoreCallback) ctx.restoreCallback;
            for (int b = 0; b < 120; b++) {
                List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++, offset++) {
                    String k = String.format("k%06d", r.nextInt(60_000));
                    String val = r.nextInt(10) == 0 ? null : "v" + offset;
                    changelogRecord(batch, model, k, val);
                }
                cb.restoreAll(batch);
                if (b == 70) {
                    s.commit(Map.of(tp, offset));
                }
            }
            List<String> want = entries(model);
            assertEquals(want, keys(s.all()));
            s.commit(Map.of(tp, offset));
        }
        try (java.util.stream.Stream<Path> l = java.nio.file.Files.list(tmp.resolve("ferry"))) {
            assertEquals(List.of("kv"), l.map(p -> p.getFileName().toString()).toList(), "only the store's directory");
        }
        try (FerryKeyValueStore s = open(engine, ctx)) {
            List<String> want = entries(model);
            assertEquals(want, keys(s.all()), "after a reopen");
            assertEquals(offset, s.committedOffset(tp));
        }
    }

    /**
     * Stores restoring side by side keep their buffers within {@link FerryStoreConfig#RESTORE_BUFFER_TOTAL_BYTES}
     * together: the batch that takes the JVM's total to it writes its own store's buffer at once, and
     * every record ends in its store.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void restoreBuffersOfAllStoresStayWithinTheTotal(Engine engine) {
        long before = FerryStateStore.restoreBufferedTotal();
        TestContext a = new TestContext(tmp.resolve("a").toFile());
        TestContext c = new TestContext(tmp.resolve("c").toFile());
        for (TestContext ctx : List.of(a, c)) {
            ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 64L << 20);        // never reached alone
            ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_TOTAL_BYTES, 1L << 20);  // the bound for both
        }
        try (FerryKeyValueStore sa = open(engine, a); FerryKeyValueStore sc = open(engine, c)) {
            BatchingStateRestoreCallback ca = (BatchingStateRestoreCallback) a.restoreCallback;
            BatchingStateRestoreCallback cc = (BatchingStateRestoreCallback) c.restoreCallback;
            ca.restoreAll(batch("a", 0, 1000, 600));                 // about 0.7 MiB: buffered
            long inA = sa.restoreBufferedBytes();
            assertTrue(inA > (600L << 10), "a buffers its batch: " + inA);
            assertEquals(before + inA, FerryStateStore.restoreBufferedTotal());
            cc.restoreAll(batch("c", 0, 1000, 600));                 // the total passes 1 MiB: c writes its buffer
            assertEquals(0, sc.restoreBufferedBytes(), "c's batch took the total past the bound");
            assertEquals(inA, sa.restoreBufferedBytes(), "a keeps its buffer");
            assertEquals(before + inA, FerryStateStore.restoreBufferedTotal());
            ca.restoreAll(batch("a", 1000, 1000, 600));              // a passes it now
            assertEquals(0, sa.restoreBufferedBytes());
            assertEquals(before, FerryStateStore.restoreBufferedTotal());
            assertEquals(2000, keys(sa.all()).size());
            assertEquals(1000, keys(sc.all()).size());
            assertArrayEquals(new byte[600], sa.get(b(String.format("a%06d", 1999))));
        }
        assertEquals(before, FerryStateStore.restoreBufferedTotal(), "closed stores hold no buffer");
    }

    /** Adds a changelog record (a null value deletes) to a restore batch and applies it to the model of the store. */
    private static void changelogRecord(List<KeyValue<byte[], byte[]>> batch, java.util.TreeMap<String, String> model, String k, String val) {
        batch.add(KeyValue.pair(v(k), val == null ? null : v(val)));
        if (val == null) {
            model.remove(k);
        } else {
            model.put(k, val);
        }
    }

    /** The model's entries as {@link #keys} lists a store's. */
    private static List<String> entries(java.util.TreeMap<String, String> model) {
        List<String> want = new ArrayList<>();
        model.forEach((k, val) -> want.add(k + "=" + val));
        return want;
    }

    private static List<KeyValue<byte[], byte[]>> batch(String prefix, int from, int n, int valueSize) {
        List<KeyValue<byte[], byte[]>> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add(KeyValue.pair(String.format("%s%06d", prefix, i).getBytes(StandardCharsets.UTF_8), new byte[valueSize]));
        }
        return out;
    }

    /**
     * LMDB: each full restore buffer becomes a sorted run in a file beside the store (RestoreRuns), and
     * the next use of the store merges the runs in key order. Into an empty store (appended, deletes
     * dropped) and into one that holds entries the restore overwrites and deletes (written in place),
     * the store ends as the changelog applied in order; a key's newest record wins across runs and
     * the buffer; the run files are gone after the merge and after a close; with the runs turned off
     * no file is written.
     */
    @org.junit.jupiter.api.Test
    void lmdbRestoreSpillsSortedRunsAndMergesThemAtTheNextUse() throws Exception {
        for (String start : List.of("empty", "filled", "runs-off")) {
            java.util.Random r = new java.util.Random(start.hashCode());
            java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
            TestContext ctx = new TestContext(tmp.resolve(start).toFile());
            ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 64L << 10);
            if (start.equals("runs-off")) {
                ctx.configs.put(FerryStoreConfig.LMDB_RESTORE_RUNS, "false");
            }
            Path dir = tmp.resolve(start).resolve("ferry");
            TopicPartition tp = new TopicPartition("app-kv-changelog", 0);
            try (FerryKeyValueStore s = open(Engine.LMDB, ctx)) {
                if (start.equals("filled")) {
                    for (int i = 0; i < 3000; i += 2) {
                        String k = String.format("k%05d", i);
                        s.put(b(k), v("old" + i));
                        model.put(k, "old" + i);
                    }
                    s.commit(Map.of(tp, 0L));
                }
                BatchingStateRestoreCallback cb = (BatchingStateRestoreCallback) ctx.restoreCallback;
                long offset = 0;
                int mostRuns = 0;
                for (int b = 0; b < 40; b++) {
                    List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
                    for (int i = 0; i < 200; i++, offset++) {
                        String k = String.format("k%05d", r.nextInt(3000));
                        String val = r.nextInt(6) == 0 ? null : "v" + offset + "-" + "x".repeat(r.nextInt(80));
                        changelogRecord(batch, model, k, val);
                    }
                    cb.restoreAll(batch);
                    mostRuns = Math.max(mostRuns, runFiles(dir).size());
                    if (b == 25) { // a read merges the runs and the buffer
                        String k = model.isEmpty() ? "k00000" : model.lastKey();
                        assertArrayEquals(model.get(k) == null ? null : v(model.get(k)), s.get(b(k)), start);
                        assertEquals(List.of(), runFiles(dir), start + ": merged");
                    }
                }
                if (start.equals("runs-off")) {
                    assertEquals(0, mostRuns, "no run files with " + FerryStoreConfig.LMDB_RESTORE_RUNS + "=false");
                } else {
                    assertTrue(mostRuns >= 3, start + ": several runs wait for the merge: " + mostRuns);
                }
                List<String> want = entries(model);
                assertEquals(want, keys(s.all()), start);
                assertEquals(List.of(), runFiles(dir), start);
                cb.restoreAll(batch("z", 0, 2000, 100)); // spilled, then merged by close
                assertEquals(!start.equals("runs-off"), !runFiles(dir).isEmpty(), start + ": a run waits, with runs on");
            }
            assertEquals(List.of(), runFiles(dir), start + ": closed");
            try (FerryKeyValueStore s = open(Engine.LMDB, ctx)) {
                assertEquals(model.size() + 2000, keys(s.all()).size(), start + ": close merged the last runs");
                assertArrayEquals(new byte[100], s.get(b("z001999")));
            }
        }
    }

    /**
     * LMDB: while other stores hold the JVM's restore buffer total, each restore batch spills a tiny
     * run. The merge reads at most {@link RestoreRuns#MAX_FAN_IN} runs at once (it merges the oldest
     * into bigger runs first), and the store ends as the changelog applied in order.
     */
    @org.junit.jupiter.api.Test
    void manyTinyRestoreRunsMergeWithABoundedFanIn() throws Exception {
        TestContext hold = new TestContext(tmp.resolve("hold").toFile());
        TestContext ctx = new TestContext(tmp.resolve("tiny").toFile());
        for (TestContext c : List.of(hold, ctx)) {
            c.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 64L << 20);       // never reached alone
            c.configs.put(FerryStoreConfig.RESTORE_BUFFER_TOTAL_BYTES, 1L << 20); // the bound for both
        }
        Path dir = tmp.resolve("tiny").resolve("ferry");
        java.util.Random r = new java.util.Random(7);
        java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
        try (FerryKeyValueStore h = open(Engine.LMDB, hold); FerryKeyValueStore s = open(Engine.LMDB, ctx)) {
            // h holds all of the total but 100 bytes: every batch of s then takes the total past it
            ((BatchingStateRestoreCallback) hold.restoreCallback).restoreAll(List.of(KeyValue.pair(v("h"), new byte[(1 << 20) - 1 - 64 - 100])));
            assertEquals((1 << 20) - 100, h.restoreBufferedBytes(), "held in h's buffer");
            BatchingStateRestoreCallback cb = (BatchingStateRestoreCallback) ctx.restoreCallback;
            int batches = RestoreRuns.MAX_FAN_IN * 2 + 20;
            long offset = 0;
            for (int b = 0; b < batches; b++) {
                List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
                for (int i = 0; i < 50; i++, offset++) {
                    String k = String.format("k%05d", r.nextInt(4000));
                    changelogRecord(batch, model, k, r.nextInt(5) == 0 ? null : "v" + offset);
                }
                cb.restoreAll(batch);
            }
            assertEquals(batches, runFiles(dir).size(), "each batch spilled a run");
            assertEquals(batches, s.restoreRuns().runs());
            assertEquals(entries(model), keys(s.all()), "the store as the changelog applied in order");
            int most = s.restoreRuns().mostOpenReaders();
            assertTrue(most > 0 && most <= RestoreRuns.MAX_FAN_IN, "run files open at once: " + most);
            assertEquals(List.of(), runFiles(dir), "merged");
        }
    }

    /**
     * A store deletes only its own restore files at open: store {@code a} leaves alone the files of
     * store {@code a.restore-x} (whose names start with {@code a.restore-} too), even while that store
     * restores beside it with runs waiting.
     */
    @org.junit.jupiter.api.Test
    void aStoreDeletesOnlyItsOwnRestoreFilesNotThoseOfAStoreNamedLikeThem() throws Exception {
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, 16L << 10);
        Path dir = java.nio.file.Files.createDirectories(tmp.resolve("ferry"));
        Path ownRun = java.nio.file.Files.write(dir.resolve("a.restore-3" + RestoreRuns.SUFFIX), new byte[] {1});
        Path ownTable = java.nio.file.Files.write(dir.resolve("a.restore-0.sst"), new byte[] {1});
        java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
        FerryKeyValueStore x = (FerryKeyValueStore) FerryStores.lmdbKeyValueStore("a.restore-x").get();
        x.init(ctx, x);
        try (x) {
            BatchingStateRestoreCallback cb = (BatchingStateRestoreCallback) ctx.restoreCallback;
            for (int b = 0; b < 5; b++) {
                List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
                for (int i = 0; i < 300; i++) {
                    changelogRecord(batch, model, String.format("k%05d", (b * 131 + i * 7) % 1000), "v" + b + "-" + i);
                }
                cb.restoreAll(batch);
            }
            List<String> waiting = runFiles(dir).stream().filter(f -> f.startsWith("a.restore-x.restore-")).toList();
            assertTrue(waiting.size() >= 3, "runs of a.restore-x wait for the merge: " + waiting);
            FerryKeyValueStore a = (FerryKeyValueStore) FerryStores.lmdbKeyValueStore("a").get();
            a.init(new TestContext(tmp.toFile()), a);
            try (a) {
                assertFalse(java.nio.file.Files.exists(ownRun), "a's own run, left by a crash");
                assertFalse(java.nio.file.Files.exists(ownTable), "a's own table file, left by a crash");
                assertEquals(waiting, runFiles(dir), "a.restore-x's runs are its own business");
                assertEquals(List.of(), keys(a.all()));
            }
            assertEquals(entries(model), keys(x.all()), "a.restore-x merged every run");
        }
        Path d = Path.of("a");
        assertTrue(RestoreBuffer.isRestoreFile(d, "a.restore-0.sst"));
        assertTrue(RestoreBuffer.isRestoreFile(d, "a.restore-12" + RestoreRuns.SUFFIX));
        assertFalse(RestoreBuffer.isRestoreFile(d, "a.restore-x.restore-0.sst"));
        assertFalse(RestoreBuffer.isRestoreFile(d, "a.restore-.sst"));
        assertFalse(RestoreBuffer.isRestoreFile(d, "a.restore-1.sst.tmp"));
        assertFalse(RestoreBuffer.isRestoreFile(d, "b.restore-1.sst"));
    }

    private static List<String> runFiles(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> l = java.nio.file.Files.list(dir)) {
            return l.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(RestoreRuns.SUFFIX)).sorted().toList();
        }
    }

    /** LMDB: restore runs a crash left beside the store (never merged) are deleted when it opens, and not read. */
    @org.junit.jupiter.api.Test
    void restoreRunsLeftByACrashAreDeletedAtOpen() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(tmp.resolve("ferry"));
        java.nio.file.Path left = java.nio.file.Files.write(dir.resolve("kv.restore-0" + RestoreRuns.SUFFIX), new byte[] {0, 0, 0, 1, 0, 0, 0, 1, 'g', 'x'});
        java.nio.file.Path other = java.nio.file.Files.write(dir.resolve("other.restore-0" + RestoreRuns.SUFFIX), new byte[] {1});
        try (FerryKeyValueStore s = open(Engine.LMDB)) {
            assertFalse(java.nio.file.Files.exists(left));
            assertTrue(java.nio.file.Files.exists(other), "another store's files are its own business");
            assertNull(s.get(b("g")));
            assertEquals(List.of(), keys(s.all()));
        }
    }

    /** Table files a crash left beside the store while restoring (never ingested) are deleted when it opens, and not read. */
    @org.junit.jupiter.api.Test
    void restoredTableFilesLeftByACrashAreDeletedAtOpen() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(tmp.resolve("ferry"));
        java.nio.file.Path left = dir.resolve("kv.restore-0.sst");
        try (dev.ferry.SstFileWriter w = dev.ferry.SstFileWriter.open(left)) {
            w.put(v("ghost"), v("x"));
            w.finish();
        }
        java.nio.file.Path half = java.nio.file.Files.write(dir.resolve("kv.restore-1.sst"), new byte[] {1, 2, 3});
        java.nio.file.Path other = java.nio.file.Files.write(dir.resolve("other.restore-0.sst"), new byte[] {1});
        try (FerryKeyValueStore s = open(Engine.ROCKSDB)) {
            assertFalse(java.nio.file.Files.exists(left));
            assertFalse(java.nio.file.Files.exists(half));
            assertTrue(java.nio.file.Files.exists(other), "another store's files are its own business");
            assertNull(s.get(b("ghost")));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void committedOffsetsSurviveReopenAndStayOutOfTheEntries(Engine engine) {
        TopicPartition tp = new TopicPartition("app-kv-changelog", 3);
        TopicPartition other = new TopicPartition("app-kv-changelog", 4);
        try (FerryKeyValueStore s = open(engine)) {
            assertTrue(s.managesOffsets());
            assertNull(s.committedOffset(tp));
            s.put(b("a"), v("A"));
            s.commit(Map.of(tp, 42L, other, 7L));
            assertEquals(42L, s.committedOffset(tp));
            s.commit(Map.of(tp, 43L));
            assertEquals(43L, s.committedOffset(tp));
            assertEquals(7L, s.committedOffset(other));
            assertEquals(List.of("a=A"), keys(s.all()), "offsets are not entries");
            if (engine == Engine.LMDB) {
                assertEquals(1, s.approximateNumEntries(), "exact on LMDB, offsets not counted");
            }
        }
        try (FerryKeyValueStore s = open(engine)) {
            assertEquals(43L, s.committedOffset(tp), "offsets survive a reopen");
            java.util.HashMap<TopicPartition, Long> clear = new java.util.HashMap<>();
            clear.put(other, null);
            s.commit(clear);
            assertNull(s.committedOffset(other));
            assertEquals(List.of("a=A"), keys(s.all()));
        }
    }

    /**
     * Under exactly-once a store that was not closed (the process died) may hold writes of a transaction the
     * broker aborted, which no committed offset covers: init throws TaskCorruptedException, so Kafka Streams
     * wipes the task's state and restores it, as for its own store. At-least-once keeps trusting it.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void underExactlyOnceAStoreThatWasNotClosedIsCorrupted(Engine engine) {
        TestContext eos = new TestContext(tmp.toFile());
        eos.configs.put(org.apache.kafka.streams.StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                org.apache.kafka.streams.StreamsConfig.EXACTLY_ONCE_V2);
        TopicPartition tp = new TopicPartition("app-kv-changelog", 0);
        try (FerryKeyValueStore s = open(engine, eos)) {
            s.put(b("a"), "A".getBytes(StandardCharsets.UTF_8));
            s.commit(Map.of(tp, 5L));
        }
        FerryKeyValueStore crashed = open(engine, eos); // closed before: opens
        crashed.put(b("b"), "B".getBytes(StandardCharsets.UTF_8)); // a write no commit covers
        crashed.checkOpen().close(); // the process dies: the engine's files are left as they are, the store never closes
        org.apache.kafka.streams.errors.TaskCorruptedException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.apache.kafka.streams.errors.TaskCorruptedException.class, () -> open(engine, eos));
        assertEquals(java.util.Set.of(eos.taskId()), e.corruptedTasks());
        org.junit.jupiter.api.Assertions.assertThrows(org.apache.kafka.streams.errors.TaskCorruptedException.class,
                () -> open(engine, eos), "still not trusted: the refused open wrote nothing");
        try (FerryKeyValueStore s = open(engine)) { // at-least-once
            assertEquals(5L, s.committedOffset(tp));
            assertEquals(List.of("a=A", "b=B"), keys(s.all()));
        }
        try (FerryKeyValueStore s = open(engine, eos)) { // closed again: trusted
            assertEquals(5L, s.committedOffset(tp));
        }
    }

    /** flush() once flushed only RocksDB's empty default family, leaving entries and offsets in memtables. */
    @org.junit.jupiter.api.Test
    void rocksDbFlushWritesEntriesAndOffsetsToTableFiles() {
        try (FerryKeyValueStore s = open(Engine.ROCKSDB)) {
            fill(s, "a", "b", "c");
            s.commit(Map.of(new TopicPartition("app-kv-changelog", 0), 7L));
            dev.ferry.Store st = s.checkOpen();
            for (String family : List.of(FerryKeyValueStore.DATA_FAMILY, FerryKeyValueStore.OFFSETS_FAMILY)) {
                dev.ferry.ColumnFamily cf = st.columnFamily(family).orElseThrow();
                assertTrue(st.propertyLong(cf, "rocksdb.num-entries-active-mem-table").orElseThrow() > 0, family);
            }
            s.flush();
            for (String family : List.of(FerryKeyValueStore.DATA_FAMILY, FerryKeyValueStore.OFFSETS_FAMILY)) {
                dev.ferry.ColumnFamily cf = st.columnFamily(family).orElseThrow();
                assertEquals(0, st.propertyLong(cf, "rocksdb.num-entries-active-mem-table").orElseThrow(), family);
                assertEquals(0, st.propertyLong(cf, "rocksdb.num-immutable-mem-table").orElseThrow(), family);
                assertTrue(Integer.parseInt(st.property(cf, "rocksdb.num-files-at-level0").orElseThrow().trim()) >= 1, family);
            }
            assertEquals(List.of("a=A", "b=B", "c=C"), keys(s.all()));
            assertEquals(7L, s.committedOffset(new TopicPartition("app-kv-changelog", 0)));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void dataSurvivesCloseAndReopen(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            fill(s, "a", "b");
            s.flush();
        }
        try (FerryKeyValueStore s = open(engine)) {
            assertEquals(List.of("a=A", "b=B"), keys(s.all()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void interactiveKeyAndRangeQueriesAnswer(Engine engine) {
        try (FerryKeyValueStore s = open(engine)) {
            fill(s, "a", "b", "c");
            QueryResult<byte[]> r = s.query(KeyQuery.withKey(b("b")), PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(r.isSuccess(), r.toString());
            assertArrayEquals(v("B"), r.getResult());
            QueryResult<KeyValueIterator<Bytes, byte[]>> rr = s.query(RangeQuery.withRange(b("b"), b("c")),
                    PositionBound.unbounded(), new QueryConfig(false));
            assertTrue(rr.isSuccess(), rr.toString());
            assertEquals(List.of("b=B", "c=C"), keys(rr.getResult()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void anIteratorUsedFromAnotherThreadThrowsAndTheStoreGoesOn(Engine engine) throws Exception {
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try (FerryKeyValueStore s = open(engine)) {
            fill(s, "a", "b");
            KeyValueIterator<Bytes, byte[]> it = s.all();
            Future<?> f = ex.submit(() -> it.hasNext());
            Exception e = assertThrows(java.util.concurrent.ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
            assertInstanceOf(RuntimeException.class, e.getCause());
            assertTrue(it.hasNext(), "the opening thread can still use it");
            it.close();
            // interactive reads from another thread are fine
            assertArrayEquals(v("A"), ex.submit(() -> s.get(b("a"))).get(30, TimeUnit.SECONDS));
            assertEquals(List.of("a=A", "b=B"), ex.submit(() -> keys(s.all())).get(30, TimeUnit.SECONDS));
        } finally {
            ex.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void closingWhileAnotherThreadReadsEndsInExceptionsNotACrash(Engine engine) throws Exception {
        FerryKeyValueStore s = open(engine);
        for (int i = 0; i < 2000; i++) {
            s.put(b("k" + i), v("v" + i));
        }
        CountDownLatch started = new CountDownLatch(1);
        ExecutorService ex = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                readers.add(ex.submit(() -> {
                    int n = 0;
                    started.countDown();
                    while (true) {
                        try {
                            s.get(b("k" + (n % 2000)));
                            try (KeyValueIterator<Bytes, byte[]> it = s.range(b("k1"), b("k2"))) {
                                while (it.hasNext()) {
                                    it.next();
                                }
                            }
                            n++;
                        } catch (InvalidStateStoreException e) {
                            return n;
                        }
                    }
                }));
            }
            started.await(30, TimeUnit.SECONDS);
            Thread.sleep(50);
            s.close();
            for (Future<Integer> f : readers) {
                f.get(60, TimeUnit.SECONDS); // each reader ended on InvalidStateStoreException
            }
        } finally {
            ex.shutdownNow();
        }
    }

    public static final class Lz4Setter implements FerryStoreOptionsSetter {
        static volatile String lastStore;

        @Override
        public void setOptions(String storeName, StoreOptions options, Map<String, Object> configs) {
            lastStore = storeName;
            if (options.engine() == Engine.ROCKSDB) {
                options.compression(Compression.LZ4);
            } else {
                options.mapSize(64L << 20);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void configKeysAndTheOptionsSetterApply(Engine engine) {
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(FerryStoreConfig.OPTIONS_SETTER, Lz4Setter.class.getName());
        ctx.configs.put(FerryStoreConfig.ROCKSDB_BLOOM_BITS_PER_KEY, "12");
        ctx.configs.put(FerryStoreConfig.LMDB_MAP_SIZE_BYTES, 32L << 20);
        Lz4Setter.lastStore = null;
        try (FerryKeyValueStore s = open(engine, ctx)) {
            s.put(b("a"), v("1"));
            assertEquals("kv", Lz4Setter.lastStore);
        }
        StoreOptions o = FerryStoreConfig.options(engine, "kv", ctx.configs);
        assertEquals(engine, o.engine());
        TestContext bad = new TestContext(tmp.resolve("bad").toFile());
        bad.configs.put(FerryStoreConfig.OPTIONS_SETTER, "no.such.Setter");
        assertThrows(ConfigException.class, () -> open(engine, bad));
        TestContext badNumber = new TestContext(tmp.resolve("bad2").toFile());
        badNumber.configs.put(engine == Engine.ROCKSDB ? FerryStoreConfig.ROCKSDB_BLOCK_CACHE_BYTES : FerryStoreConfig.LMDB_MAP_SIZE_BYTES, "lots");
        assertThrows(ConfigException.class, () -> open(engine, badNumber));
        TestContext badBuffer = new TestContext(tmp.resolve("bad4").toFile());
        badBuffer.configs.put(FerryStoreConfig.RESTORE_BUFFER_BYTES, "-1");
        assertThrows(ConfigException.class, () -> open(engine, badBuffer));
        TestContext badTotal = new TestContext(tmp.resolve("bad6").toFile());
        badTotal.configs.put(FerryStoreConfig.RESTORE_BUFFER_TOTAL_BYTES, "much");
        assertThrows(ConfigException.class, () -> open(engine, badTotal));
        TestContext badCompression = new TestContext(tmp.resolve("bad3").toFile());
        badCompression.configs.put(FerryStoreConfig.ROCKSDB_COMPRESSION, "brotli");
        if (engine == Engine.ROCKSDB) {
            assertThrows(ConfigException.class, () -> open(engine, badCompression));
        }
        TestContext badTableFiles = new TestContext(tmp.resolve("bad5").toFile());
        badTableFiles.configs.put(FerryStoreConfig.ROCKSDB_RESTORE_TABLE_FILES, "maybe");
        if (engine == Engine.ROCKSDB) {
            assertThrows(ConfigException.class, () -> open(engine, badTableFiles));
        }
        TestContext badRuns = new TestContext(tmp.resolve("bad6").toFile());
        badRuns.configs.put(FerryStoreConfig.LMDB_RESTORE_RUNS, "sometimes");
        assertThrows(ConfigException.class, () -> open(engine, badRuns), "checked on both engines");
    }
}
