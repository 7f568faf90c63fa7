package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Transactional stores (KIP-892, {@code enable.transactional.statestores=true}) on both engines:
 * uncommitted writes stay out of the family until a commit, the task reads them, the
 * {@code READ_COMMITTED} view does not, a close without a commit loses them, a commit writes them
 * with the offsets.
 */
class TransactionalStoreTest {
    private static final TopicPartition TP = new TopicPartition("app-kv-changelog", 0);
    @TempDir
    Path tmp;

    private TestContext context(boolean transactional) {
        TestContext ctx = new TestContext(tmp.toFile());
        if (transactional) {
            ctx.configs.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        }
        return ctx;
    }

    private FerryKeyValueStore kv(Engine engine, TestContext ctx) {
        FerryKeyValueStore s = (FerryKeyValueStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentKeyValueStore("kv") : FerryStores.lmdbKeyValueStore("kv")).get();
        s.init(ctx, s);
        return s;
    }

    private FerryKeyValueStore kv(Engine engine) {
        return kv(engine, context(true));
    }

    private static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] v) {
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    private static List<String> keys(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(str(kv.key.get()) + "=" + str(kv.value)));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void readsSeeOwnWritesAndTheCommittedViewSeesThemAfterTheCommit(Engine engine) {
        try (FerryKeyValueStore s = kv(engine)) {
            ReadOnlyKeyValueStore<Bytes, byte[]> committed = s.readOnly(IsolationLevel.READ_COMMITTED);
            assertSame(s, s.readOnly(IsolationLevel.READ_UNCOMMITTED));
            s.put(b("a"), v("A"));
            s.putAll(List.of(KeyValue.pair(b("b"), v("B")), KeyValue.pair(b("c"), v("C"))));
            assertEquals("A", str(s.get(b("a"))));
            assertEquals(List.of("a=A", "b=B", "c=C"), keys(s.all()));
            assertNull(committed.get(b("a")));
            assertEquals(List.of(), keys(committed.all()));
            assertNull(s.checkOpen().get(s.data(), v("a")), "the family holds no uncommitted write");
            s.commit(Map.of(TP, 3L));
            assertEquals("A", str(committed.get(b("a"))));
            assertEquals(List.of("c=C", "b=B", "a=A"), keys(committed.reverseAll()));
            s.delete(b("b"));
            assertNull(s.get(b("b")));
            assertEquals("B", str(committed.get(b("b"))));
            assertEquals(List.of("a=A", "b=B"), keys(committed.range(b("a"), b("b"))));
            assertEquals(List.of("a=A"), keys(s.range(b("a"), b("b"))));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void closeWithoutCommitLosesTheWritesAndCommitKeepsThemWithTheOffsets(Engine engine) {
        try (FerryKeyValueStore s = kv(engine)) {
            s.put(b("a"), v("A"));
            s.put(b("gone"), v("G"));
            s.delete(b("gone"));
            s.commit(Map.of(TP, 5L));
            s.put(b("b"), v("B"));
            s.delete(b("a"));
        }
        try (FerryKeyValueStore s = kv(engine)) {
            assertEquals(5L, s.committedOffset(TP));
            assertEquals(List.of("a=A"), keys(s.all()));
            s.put(b("c"), v("C"));
            s.commit(Map.of(TP, 9L));
        }
        try (FerryKeyValueStore s = kv(engine)) {
            assertEquals(9L, s.committedOffset(TP));
            assertEquals(List.of("a=A", "c=C"), keys(s.all()));
        }
    }

    /** The overlay's size: keys, values and the stated overhead per entry; 0 after a commit. */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void uncommittedBytesGrowAndReturnToZeroAtCommit(Engine engine) {
        try (FerryKeyValueStore s = kv(engine)) {
            assertEquals(0, s.approximateNumUncommittedBytes());
            s.put(b("key1"), new byte[100]);
            assertEquals(4 + 100 + Uncommitted.ENTRY_OVERHEAD, s.approximateNumUncommittedBytes());
            s.put(b("key1"), new byte[10]); // an overwrite replaces the value's bytes
            assertEquals(4 + 10 + Uncommitted.ENTRY_OVERHEAD, s.approximateNumUncommittedBytes());
            s.put(b("key2"), null); // a delete: its key and the overhead
            assertEquals(8 + 10 + 2 * Uncommitted.ENTRY_OVERHEAD, s.approximateNumUncommittedBytes());
            s.commit(Map.of(TP, 1L));
            assertEquals(0, s.approximateNumUncommittedBytes());
            assertEquals(10, s.get(b("key1")).length);
        }
        try (FerryKeyValueStore s = kv(engine, context(false))) {
            s.put(b("key1"), new byte[100]);
            assertEquals(0, s.approximateNumUncommittedBytes(), "not transactional: every write is in the family");
            assertSame(s, s.readOnly(IsolationLevel.READ_COMMITTED));
            assertEquals(100, s.checkOpen().get(s.data(), v("key1")).length);
        }
    }

    /**
     * Random puts, overwrites, deletes (of committed and of uncommitted keys) and commits against two
     * TreeMap models (what the task sees, what is committed): point reads and ranges, forward and
     * reverse, with null bounds, through the store and through its READ_COMMITTED view.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void rangesMergeUncommittedWritesLikeATreeMap(Engine engine) {
        Random r = new Random(42 + engine.ordinal());
        TreeMap<Bytes, String> seen = new TreeMap<>();
        TreeMap<Bytes, String> committed = new TreeMap<>();
        try (FerryKeyValueStore s = kv(engine)) {
            ReadOnlyKeyValueStore<Bytes, byte[]> view = s.readOnly(IsolationLevel.READ_COMMITTED);
            for (int step = 0; step < 3000; step++) {
                Bytes k = key(r);
                int op = r.nextInt(100);
                if (op < 50) {
                    String val = "v" + step;
                    s.put(k, v(val));
                    seen.put(k, val);
                } else if (op < 75) {
                    s.delete(k);
                    seen.remove(k);
                } else if (op < 78) {
                    s.commit(Map.of(TP, (long) step));
                    committed = new TreeMap<>(seen);
                } else if (op < 80) { // a range delete, as a segmented store drops segments: [k, k~)
                    Bytes end = b(str(k.get()) + "~");
                    s.writeData(s.checkOpen(), new DataBatch().deleteRange(k.get(), end.get()));
                    seen.subMap(k, true, end, false).clear();
                } else if (op < 90) {
                    assertEquals(seen.get(k), str(s.get(k)));
                    assertEquals(committed.get(k), str(view.get(k)));
                } else {
                    Bytes lo = r.nextInt(5) == 0 ? null : key(r);
                    Bytes hi = r.nextInt(5) == 0 ? null : key(r);
                    if (lo != null && hi != null && lo.compareTo(hi) > 0) {
                        Bytes t = lo;
                        lo = hi;
                        hi = t;
                    }
                    assertEquals(model(seen, lo, hi, true), keys(s.range(lo, hi)), "step " + step);
                    assertEquals(model(seen, lo, hi, false), keys(s.reverseRange(lo, hi)), "step " + step);
                    assertEquals(model(committed, lo, hi, true), keys(view.range(lo, hi)), "step " + step);
                    assertEquals(model(committed, lo, hi, false), keys(view.reverseRange(lo, hi)), "step " + step);
                }
            }
            assertEquals(model(seen, null, null, true), keys(s.all()));
            assertEquals(model(seen, null, null, false), keys(s.reverseAll()));
            assertEquals(model(committed, null, null, true), keys(view.all()));
            assertEquals(model(seen, b("k1"), b("k1~"), true), keys(s.prefixScan("k1", new org.apache.kafka.common.serialization.StringSerializer())));
            s.commit(Map.of(TP, 5000L));
        }
        try (FerryKeyValueStore s = kv(engine)) {
            assertEquals(model(seen, null, null, true), keys(s.all()), "the last commit is durable");
        }
    }

    private static Bytes key(Random r) {
        return b("k" + r.nextInt(300));
    }

    private static List<String> model(NavigableMap<Bytes, String> m, Bytes lo, Bytes hi, boolean forward) {
        NavigableMap<Bytes, String> sub = lo == null && hi == null ? m : lo == null ? m.headMap(hi, true)
                : hi == null ? m.tailMap(lo, true) : m.subMap(lo, true, hi, true);
        List<String> out = new ArrayList<>();
        (forward ? sub : sub.descendingMap()).forEach((k, val) -> out.add(str(k.get()) + "=" + val));
        return out;
    }

    /**
     * A window store's writes, and the segments its writes drop (a range delete), stay uncommitted: the
     * task sees them, the READ_COMMITTED view and a reopened store without a commit do not.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void windowStoreWritesAndDroppedSegmentsStayUncommitted(Engine engine) {
        Duration retention = Duration.ofMinutes(10);
        long minute = 60_000L;
        try (FerryWindowStore w = window(engine)) {
            w.put(b("a"), v("A0"), 0);
            w.put(b("b"), v("B0"), minute);
            ReadOnlyWindowStore<Bytes, byte[]> view = w.readOnly(IsolationLevel.READ_COMMITTED);
            assertEquals("A0", str(w.fetch(b("a"), 0)));
            assertNull(view.fetch(b("a"), 0));
            w.commit(Map.of(TP, 1L));
            assertEquals("A0", str(view.fetch(b("a"), 0)));
            w.put(b("a"), v("A1"), 2 * minute);
            assertEquals(List.of("A0", "A1"), values(w.fetch(b("a"), 0, 3 * minute)));
            assertEquals(List.of("A1", "A0"), values(w.backwardFetch(b("a"), 0, 3 * minute)));
            assertEquals(List.of("A0"), values(view.fetch(b("a"), Instant.ofEpochMilli(0), Instant.ofEpochMilli(3 * minute))));
            w.put(b("c"), v("C"), 100 * minute); // expires the early segments: a range delete, uncommitted
            assertEquals(List.of(), values(w.fetch(b("a"), 0, 3 * minute)));
            assertTrue(w.approximateNumUncommittedBytes() > 0);
        }
        try (FerryWindowStore w = window(engine)) { // closed without a commit: the range delete and the later writes are gone
            assertEquals(1L, w.committedOffset(TP));
            assertEquals(List.of("A0"), values(w.fetch(b("a"), 0, 3 * minute)));
            assertEquals("B0", str(w.fetch(b("b"), minute)));
            assertNull(w.fetch(b("c"), 100 * minute));
            w.put(b("c"), v("C"), 100 * minute);
            w.commit(Map.of(TP, 2L));
        }
        try (FerryWindowStore w = window(engine)) {
            assertEquals(List.of(), values(w.fetch(b("a"), 0, 3 * minute)));
            assertEquals("C", str(w.fetch(b("c"), 100 * minute)));
            assertEquals(retention.toMillis(), w.retentionPeriod());
        }
    }

    private FerryWindowStore window(Engine engine) {
        Duration retention = Duration.ofMinutes(10);
        FerryWindowStore w = (FerryWindowStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentWindowStore("w", retention, Duration.ofMinutes(1), false)
                : FerryStores.lmdbWindowStore("w", retention, Duration.ofMinutes(1), false)).get();
        w.init(context(true), w);
        return w;
    }

    private static List<String> values(WindowStoreIterator<byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(str(kv.value)));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void sessionAndVersionedStoresKeepWritesUncommitted(Engine engine) {
        FerrySessionStore s = (FerrySessionStore) (engine == Engine.ROCKSDB
                ? FerryStores.persistentSessionStore("s", Duration.ofMinutes(10)) : FerryStores.lmdbSessionStore("s", Duration.ofMinutes(10))).get();
        s.init(context(true), s);
        try (s) {
            ReadOnlySessionStore<Bytes, byte[]> view = s.readOnly(IsolationLevel.READ_COMMITTED);
            Windowed<Bytes> session = new Windowed<>(b("a"), new SessionWindow(0, 10));
            s.put(session, v("S"));
            assertEquals("S", str(s.fetchSession(b("a"), 0, 10)));
            assertNull(view.fetchSession(b("a"), 0, 10));
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = view.fetch(b("a"))) {
                assertFalse(it.hasNext());
            }
            s.commit(Map.of(TP, 1L));
            assertEquals("S", str(view.fetchSession(b("a"), 0, 10)));
        }
        FerryVersionedKeyValueStore ver = new FerryVersionedKeyValueStore("v", engine, 60_000L, 10_000L);
        ver.init(context(true), ver);
        try (ver) {
            VersionedKeyValueStore<Bytes, byte[]> view = ver.readOnly(IsolationLevel.READ_COMMITTED);
            ver.put(b("a"), v("V1"), 100);
            ver.put(b("a"), v("V2"), 200);
            assertEquals("V2", str(ver.get(b("a")).value()));
            assertEquals("V1", str(ver.get(b("a"), 150).value()));
            assertNull(view.get(b("a")));
            assertThrows(UnsupportedOperationException.class, () -> view.put(b("a"), v("X"), 300));
            ver.commit(Map.of(TP, 1L));
            assertEquals("V1", str(view.get(b("a"), 150).value()));
            ver.put(b("a"), v("V3"), 300);
            assertEquals("V2", str(view.get(b("a")).value()));
            assertArrayEquals(v("V3"), ver.get(b("a")).value());
        }
    }

    /**
     * Under exactly-once a transactional store that was not closed holds committed writes only: it
     * opens (no TaskCorruptedException, so no wipe) with its last commit's entries and offsets.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void underExactlyOnceATransactionalStoreThatWasNotClosedIsTrusted(Engine engine) {
        TestContext eos = context(true);
        eos.configs.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        FerryKeyValueStore crashed = kv(engine, eos);
        crashed.put(b("a"), v("A"));
        crashed.commit(Map.of(TP, 5L));
        crashed.put(b("b"), v("B")); // no commit covers it
        crashed.checkOpen().close(); // the process dies: the store never closes
        FerryKeyValueStore again = kv(engine, eos);
        assertEquals(5L, again.committedOffset(TP));
        assertEquals(List.of("a=A"), keys(again.all()));
        again.put(b("c"), v("C"));
        again.checkOpen().close(); // dies again
        TestContext eosPlain = context(false);
        eosPlain.configs.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        FerryKeyValueStore plain = kv(engine, eosPlain); // left open by a transactional run: still trusted
        assertEquals(List.of("a=A"), keys(plain.all()));
        plain.put(b("d"), v("D"));
        plain.checkOpen().close(); // a non-transactional store dies with a write no commit covers
        assertThrows(org.apache.kafka.streams.errors.TaskCorruptedException.class, () -> kv(engine, eos),
                "left open by a non-transactional run: not trusted, even when opened transactional");
    }

    /**
     * The same topology (a processor that reads its own writes, with ranges) on Ferry stores and on
     * Kafka's built-in store, both with {@code enable.transactional.statestores=true}: the same
     * outputs, and the Ferry store ran transactional with nothing left uncommitted.
     */
    @ParameterizedTest
    @EnumSource(Engine.class)
    void topologyWithTransactionalStoresMatchesTheBuiltInStore(Engine engine) {
        List<KeyValue<String, String>> ops = TopologyComparisonTest.randomOps(11, 1200);
        List<String> builtIn = runOps(Stores.persistentKeyValueStore("kv"), "builtin", ops, null, false);
        List<String> builtInTx = runOps(Stores.persistentKeyValueStore("kv"), "builtin-tx", ops, null, true);
        List<String> ferry = runOps(engine == Engine.ROCKSDB ? FerryStores.persistentKeyValueStore("kv") : FerryStores.lmdbKeyValueStore("kv"),
                "ferry", ops, engine, true);
        assertEquals(builtIn.size(), ferry.size());
        for (int i = 0; i < builtIn.size(); i++) {
            assertEquals(builtIn.get(i), ferry.get(i), "operation " + i);
            if (!builtInTx.get(i).startsWith("upto:")) {
                assertEquals(builtInTx.get(i), ferry.get(i), "operation " + i);
            }
        }
        assertTrue(builtIn.stream().anyMatch(r -> r.startsWith("range:") && r.contains("=")), "some ranges are not empty");
    }

    private List<String> runOps(KeyValueBytesStoreSupplier supplier, String dir, List<KeyValue<String, String>> ops, Engine ferry,
                                boolean transactional) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-txn");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, transactional);
        try (TopologyTestDriver d = new TopologyTestDriver(TopologyComparisonTest.ops(supplier, false), p)) {
            TestInputTopic<String, String> in = d.createInputTopic("ops", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = d.createOutputTopic("results", Serdes.String().deserializer(), Serdes.String().deserializer());
            List<String> results = new ArrayList<>();
            for (KeyValue<String, String> op : ops) {
                in.pipeInput(op.key, op.value);
                out.readValuesToList().forEach(results::add);
            }
            results.add("final: " + TopologyComparisonTest.OpsProcessor.join(d.<String, String>getKeyValueStore("kv").all()));
            if (ferry != null) {
                FerryKeyValueStore f = assertInstanceOf(FerryKeyValueStore.class, EveryDslStoreTest.innermost(d.getAllStateStores().get("kv")));
                assertEquals(ferry, f.engine());
                assertTrue(f.transactional());
                assertEquals(0, f.approximateNumUncommittedBytes(), "the driver commits after each record");
            }
            return results;
        }
    }
}
