package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Windowed and session-windowed counts (DSL) on Ferry window and session stores and on Kafka Streams'
 * built-in RocksDB stores, driven by TopologyTestDriver with the same input (out-of-order records,
 * some later than the grace period): the output records and the final store contents must agree
 * record for record.
 */
class WindowedTopologyComparisonTest {
    static final Duration SIZE = Duration.ofMinutes(1);
    static final Duration ADVANCE = Duration.ofSeconds(20);
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration RETENTION = Duration.ofMinutes(4);
    static final Duration GAP = Duration.ofSeconds(40);

    /** On a RAM file system where there is one: TopologyTestDriver commits (a synced write per store) after every record. */
    @TempDir(factory = RamTempDir.class)
    Path tmp;

    private Properties props(String dir, boolean caching) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-windowed-compare");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 4096 : 0);
        return p;
    }

    static WindowBytesStoreSupplier windows(String kind, Duration size) {
        switch (kind) {
            case "builtin": return Stores.persistentWindowStore("counts", RETENTION, size, false);
            case "builtin-timestamped": return Stores.persistentTimestampedWindowStore("counts", RETENTION, size, false);
            case "rocksdb": return FerryStores.persistentWindowStore("counts", RETENTION, size, false);
            case "rocksdb-timestamped": return FerryStores.persistentTimestampedWindowStore("counts", RETENTION, size, false);
            case "lmdb": return FerryStores.lmdbWindowStore("counts", RETENTION, size, false);
            case "lmdb-timestamped": return FerryStores.lmdbTimestampedWindowStore("counts", RETENTION, size, false);
            default: throw new IllegalArgumentException(kind);
        }
    }

    static SessionBytesStoreSupplier sessions(String kind) {
        switch (kind) {
            case "builtin": return Stores.persistentSessionStore("counts", RETENTION);
            case "rocksdb": case "rocksdb-timestamped": return FerryStores.persistentSessionStore("counts", RETENTION);
            case "lmdb": case "lmdb-timestamped": return FerryStores.lmdbSessionStore("counts", RETENTION);
            default: throw new IllegalArgumentException(kind);
        }
    }

    /** Clicks per user: time moves about 4 s per record, every fifth record comes up to 100 s late. */
    static List<KeyValue<String, Long>> clicks(long seed, int n) {
        Random r = new Random(seed);
        List<KeyValue<String, Long>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t = 1_000_000L + i * 4_000L + (r.nextInt(5) == 0 ? -r.nextInt(100_000) : r.nextInt(3_000));
            int u = r.nextInt(3) == 0 ? r.nextInt(3) : r.nextInt(40);
            out.add(KeyValue.pair("user" + u, t));
        }
        return out;
    }

    static String window(Windowed<String> w) {
        return w.key() + "@" + w.window().start() + "-" + w.window().end();
    }

    record Run(List<String> output, List<String> store, List<String> fetched, boolean ferryDirectory) {
    }

    private Run run(Topology topology, String dir, boolean caching, List<KeyValue<String, Long>> input,
                    Function<TopologyTestDriver, List<String>> storeContent, Function<TopologyTestDriver, List<String>> fetched) {
        try (TopologyTestDriver d = new TopologyTestDriver(topology, props(dir, caching))) {
            TestInputTopic<String, String> in = d.createInputTopic("clicks", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, Long> out = d.createOutputTopic("counts", Serdes.String().deserializer(), Serdes.Long().deserializer());
            List<String> output = new ArrayList<>();
            for (KeyValue<String, Long> click : input) {
                in.pipeInput(click.key, "click", Instant.ofEpochMilli(click.value));
                out.readRecordsToList().forEach(rec -> output.add(rec.key() + "=" + rec.value() + " at " + rec.timestamp()));
            }
            boolean ferryDirectory = Files.isDirectory(tmp.resolve(dir + "/ferry-windowed-compare/0_0/ferry/counts"));
            return new Run(output, storeContent.apply(d), fetched.apply(d), ferryDirectory);
        }
    }

    static Topology windowedCount(WindowBytesStoreSupplier supplier, TimeWindows windows) {
        StreamsBuilder b = new StreamsBuilder();
        b.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(windows)
                .count(Materialized.<String, Long>as(supplier).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((w, c) -> window(w))
                .to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    static List<String> windowStoreContent(TopologyTestDriver d) {
        WindowStore<String, ValueAndTimestamp<Long>> s = d.getTimestampedWindowStore("counts");
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<Windowed<String>, ValueAndTimestamp<Long>> it = s.all()) {
            it.forEachRemaining(kv -> out.add(window(kv.key) + "=" + kv.value.value() + " at " + kv.value.timestamp()));
        }
        try (KeyValueIterator<Windowed<String>, ValueAndTimestamp<Long>> it = s.backwardAll()) {
            it.forEachRemaining(kv -> out.add("backward " + window(kv.key) + "=" + kv.value.value()));
        }
        return out;
    }

    static List<String> windowFetches(TopologyTestDriver d) {
        WindowStore<String, ValueAndTimestamp<Long>> s = d.getTimestampedWindowStore("counts");
        List<String> out = new ArrayList<>();
        Instant from = Instant.ofEpochMilli(0), to = Instant.ofEpochMilli(Long.MAX_VALUE / 2);
        for (String user : List.of("user0", "user1", "user7", "user39")) {
            try (var it = s.fetch(user, from, to)) {
                it.forEachRemaining(kv -> out.add(user + "@" + kv.key + "=" + kv.value.value()));
            }
        }
        try (KeyValueIterator<Windowed<String>, ValueAndTimestamp<Long>> it = s.fetch("user1", "user2", from, to)) {
            it.forEachRemaining(kv -> out.add("range " + window(kv.key) + "=" + kv.value.value()));
        }
        return out;
    }

    private void compareWindowed(String kind, TimeWindows windows, Duration size, long seed) {
        List<KeyValue<String, Long>> input = clicks(seed, 1_500);
        for (boolean caching : new boolean[] {false, true}) {
            // a plain store's values pass Kafka's adapter, which has no record timestamps: compare like with like
            String builtInKind = kind.endsWith("-timestamped") ? "builtin-timestamped" : "builtin";
            Run builtIn = run(windowedCount(windows(builtInKind, size), windows), "b" + caching, caching, input,
                    WindowedTopologyComparisonTest::windowStoreContent, WindowedTopologyComparisonTest::windowFetches);
            Run ferry = run(windowedCount(windows(kind, size), windows), "f" + caching, caching, input,
                    WindowedTopologyComparisonTest::windowStoreContent, WindowedTopologyComparisonTest::windowFetches);
            assertTrue(builtIn.output.size() > 500, "the input makes many updates: " + builtIn.output.size());
            assertEquals(builtIn.output, ferry.output, "output, caching " + caching);
            assertEquals(builtIn.store, ferry.store, "store content, caching " + caching);
            assertEquals(builtIn.fetched, ferry.fetched, "fetches, caching " + caching);
            assertFalse(ferry.store.isEmpty());
            assertTrue(ferry.ferryDirectory, "the store is Ferry's");
            assertFalse(builtIn.ferryDirectory);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "rocksdb-timestamped", "lmdb", "lmdb-timestamped"})
    void tumblingWindowCountMatchesTheBuiltInStore(String kind) {
        compareWindowed(kind, TimeWindows.ofSizeAndGrace(SIZE, GRACE), SIZE, 21);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "rocksdb-timestamped", "lmdb", "lmdb-timestamped"})
    void hoppingWindowCountMatchesTheBuiltInStore(String kind) {
        compareWindowed(kind, TimeWindows.ofSizeAndGrace(SIZE, GRACE).advanceBy(ADVANCE), SIZE, 22);
    }

    static Topology sessionCount(SessionBytesStoreSupplier supplier) {
        StreamsBuilder b = new StreamsBuilder();
        b.stream("clicks", Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GRACE))
                .count(Materialized.<String, Long>as(supplier).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((w, c) -> window(w))
                .to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    static List<String> sessionStoreContent(TopologyTestDriver d) {
        SessionStore<String, Long> s = d.getSessionStore("counts");
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<Windowed<String>, Long> it = s.fetch("user0", "user9")) {
            it.forEachRemaining(kv -> out.add(window(kv.key) + "=" + kv.value));
        }
        try (KeyValueIterator<Windowed<String>, Long> it = s.backwardFetch(null, null)) {
            it.forEachRemaining(kv -> out.add("backward " + window(kv.key) + "=" + kv.value));
        }
        return out;
    }

    static List<String> sessionFetches(TopologyTestDriver d) {
        SessionStore<String, Long> s = d.getSessionStore("counts");
        List<String> out = new ArrayList<>();
        for (String user : List.of("user0", "user1", "user7", "user39")) {
            try (KeyValueIterator<Windowed<String>, Long> it = s.fetch(user)) {
                it.forEachRemaining(kv -> out.add(window(kv.key) + "=" + kv.value));
            }
            try (KeyValueIterator<Windowed<String>, Long> it = s.findSessions(user, 1_000_000L + 4_000L * 1_200, Long.MAX_VALUE)) {
                it.forEachRemaining(kv -> out.add("late " + window(kv.key) + "=" + kv.value));
            }
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void sessionWindowCountMatchesTheBuiltInStore(String kind) {
        List<KeyValue<String, Long>> input = clicks(23, 1_500);
        for (boolean caching : new boolean[] {false, true}) {
            Run builtIn = run(sessionCount(sessions("builtin")), "b" + caching, caching, input,
                    WindowedTopologyComparisonTest::sessionStoreContent, WindowedTopologyComparisonTest::sessionFetches);
            Run ferry = run(sessionCount(sessions(kind)), "f" + caching, caching, input,
                    WindowedTopologyComparisonTest::sessionStoreContent, WindowedTopologyComparisonTest::sessionFetches);
            assertTrue(builtIn.output.size() > 500, "the input makes many updates: " + builtIn.output.size());
            assertTrue(builtIn.output.stream().anyMatch(s -> s.contains("=null")), "sessions merge (tombstones for the merged ones)");
            assertEquals(builtIn.output, ferry.output, "output, caching " + caching);
            assertEquals(builtIn.store, ferry.store, "store content, caching " + caching);
            assertEquals(builtIn.fetched, ferry.fetched, "fetches, caching " + caching);
            assertFalse(ferry.store.isEmpty());
            assertTrue(ferry.ferryDirectory, "the store is Ferry's");
        }
    }

    /** The Ferry store under the metered, logging and caching layers. */
    static FerryStateStore inner(org.apache.kafka.streams.processor.StateStore s) {
        while (s instanceof org.apache.kafka.streams.state.internals.WrappedStateStore) {
            s = ((org.apache.kafka.streams.state.internals.WrappedStateStore<?, ?, ?>) s).wrapped();
        }
        return (FerryStateStore) s;
    }

    static List<String> bytes(KeyValueIterator<Windowed<org.apache.kafka.common.utils.Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(kv.key.key() + "@" + kv.key.window().start() + "-" + kv.key.window().end()
                    + "=" + java.util.Arrays.toString(kv.value)));
        }
        return out;
    }

    /**
     * A Ferry store restored from the changelog records Kafka Streams wrote for another one (keys in
     * Kafka's window or session schema, as ChangeLoggingWindowBytesStore and ChangeLoggingSessionBytesStore
     * write them, timestamped values joined as Kafka Streams' restore does) holds the same windows.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rocksdb-timestamped", "lmdb-timestamped", "session-rocksdb", "session-lmdb"})
    void aStoreRestoredFromTheChangelogHoldsTheSameWindows(String kind) {
        boolean session = kind.startsWith("session-");
        String engine = session ? kind.substring("session-".length()) : kind;
        Topology t = session ? sessionCount(sessions(engine))
                : windowedCount(windows(engine, SIZE), TimeWindows.ofSizeAndGrace(SIZE, GRACE).advanceBy(ADVANCE));
        List<String> live;
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        try (TopologyTestDriver d = new TopologyTestDriver(t, props("live", false))) {
            TestInputTopic<String, String> in = d.createInputTopic("clicks", Serdes.String().serializer(), Serdes.String().serializer());
            for (KeyValue<String, Long> click : clicks(24, 1_200)) {
                in.pipeInput(click.key, "click", Instant.ofEpochMilli(click.value));
            }
            // a timestamped store's changelog carries the plain value and the timestamp in the record:
            // Kafka Streams joins the two before it hands records to a timestamped store's restore callback
            d.createOutputTopic("ferry-windowed-compare-counts-changelog", Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer())
                    .readRecordsToList().forEach(r -> changelog.add(KeyValue.pair(r.key(), session || r.value() == null ? r.value()
                            : java.nio.ByteBuffer.allocate(8 + r.value().length).putLong(r.timestamp()).put(r.value()).array())));
            FerryStateStore store = inner(d.getAllStateStores().get("counts"));
            live = session ? bytes(((FerrySessionStore) store).fetch(null, null)) : bytes(((FerryWindowStore) store).all());
        }
        assertTrue(changelog.size() > 1_000, "changelog records: " + changelog.size());
        assertFalse(live.isEmpty());
        TestContext ctx = new TestContext(tmp.resolve("restored").toFile());
        FerryStateStore restored = session ? (FerryStateStore) sessions(engine).get() : (FerryStateStore) windows(engine, SIZE).get();
        try (restored) {
            restored.init(ctx, restored);
            org.apache.kafka.streams.processor.BatchingStateRestoreCallback cb =
                    (org.apache.kafka.streams.processor.BatchingStateRestoreCallback) ctx.restoreCallback;
            for (int i = 0; i < changelog.size(); i += 100) { // in batches, as the restore consumer hands them over
                cb.restoreAll(changelog.subList(i, Math.min(changelog.size(), i + 100)));
            }
            List<String> got = session ? bytes(((FerrySessionStore) restored).fetch(null, null)) : bytes(((FerryWindowStore) restored).all());
            assertEquals(live, got);
        }
    }

    /** A word-count, a windowed count and a session count, Materialized by name only: the DSL picks the stores. */
    static Topology namedStores(Properties props) {
        StreamsBuilder b = new StreamsBuilder(new org.apache.kafka.streams.TopologyConfig(new StreamsConfig(props)));
        var grouped = b.stream("clicks", Consumed.with(Serdes.String(), Serdes.String())).groupByKey();
        grouped.count(Materialized.<String, Long, org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>>as("totals")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream().to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
                .count(Materialized.<String, Long, WindowStore<org.apache.kafka.common.utils.Bytes, byte[]>>as("per-minute")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()).withRetention(RETENTION))
                .toStream((w, c) -> window(w)).to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GRACE))
                .count(Materialized.<String, Long, SessionStore<org.apache.kafka.common.utils.Bytes, byte[]>>as("sessions")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()).withRetention(RETENTION))
                .toStream((w, c) -> window(w)).to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void dslStoreSuppliersPutEveryDslStoreOnFerry(String engine) {
        List<KeyValue<String, Long>> input = clicks(25, 800);
        Properties builtInProps = props("b", false);
        Properties ferryProps = props("f", false);
        ferryProps.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                engine.equals("lmdb") ? FerryLmdbDslStoreSuppliers.class : FerryDslStoreSuppliers.class);
        ferryProps.put(FerryStoreConfig.DSL_ENGINE, engine);
        dev.ferry.Engine asked = engine.equals("lmdb") ? dev.ferry.Engine.LMDB : dev.ferry.Engine.ROCKSDB;
        Run builtIn = run(namedStores(builtInProps), "b", false, input, d -> List.of(), d -> List.of());
        List<String> ferryDirs = new ArrayList<>();
        Run ferry = run(namedStores(ferryProps), "f", false, input, d -> {
            for (String store : List.of("totals", "per-minute", "sessions")) {
                if (Files.isDirectory(tmp.resolve("f/ferry-windowed-compare/0_0/ferry/" + store))) {
                    ferryDirs.add(store);
                }
                assertInstanceOf(FerryStateStore.class, inner(d.getAllStateStores().get(store)), store);
                assertEquals(asked, ((FerryStateStore) inner(d.getAllStateStores().get(store))).engine(), store);
            }
            return List.of();
        }, d -> List.of());
        assertEquals(List.of("totals", "per-minute", "sessions"), ferryDirs);
        assertTrue(builtIn.output.size() > 1_000);
        assertEquals(builtIn.output, ferry.output);
    }

    @org.junit.jupiter.api.Test
    void dslStoreSuppliersGiveTimeOrderedAndHeadersStoresAndRejectUnknownEngines() {
        FerryDslStoreSuppliers cached = new FerryLmdbDslStoreSuppliers();
        cached.configure(java.util.Map.of(FerryStoreConfig.DSL_ENGINE, "LMDB"));
        assertEquals(dev.ferry.Engine.LMDB, cached.engine());
        // with Kafka's record cache on (the default), emit-on-window-close windowed aggregations get Ferry's time-ordered
        // store too (it answers in the cache's order when it finds Kafka's CachingWindowStore above it)
        assertInstanceOf(FerryTimeOrderedWindowStore.class, cached.windowStore(new org.apache.kafka.streams.state.DslWindowParams("w",
                RETENTION, SIZE, false, org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose(), false, true)).get());
        // Kafka never caches an emit-on-window-close session store: Ferry's
        assertInstanceOf(FerrySessionStore.class, cached.sessionStore(new org.apache.kafka.streams.state.DslSessionParams("s", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose())).get());
        assertInstanceOf(FerrySessionStore.class, cached.sessionStore(new org.apache.kafka.streams.state.DslSessionParams("s", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowUpdate())).get());
        // never configured (Kafka's TopologyConfig path): the class's engine, emit-final windows Ferry's
        FerryDslStoreSuppliers unconfigured = new FerryLmdbDslStoreSuppliers();
        assertEquals(dev.ferry.Engine.LMDB, ((FerryStateStore) unconfigured.keyValueStore(
                new org.apache.kafka.streams.state.DslKeyValueParams("k", true)).get()).engine());
        assertInstanceOf(FerryTimeOrderedWindowStore.class, unconfigured.windowStore(new org.apache.kafka.streams.state.DslWindowParams("w",
                RETENTION, SIZE, false, org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose(), false, true)).get());
        assertEquals(dev.ferry.Engine.ROCKSDB, ((FerryStateStore) new FerryDslStoreSuppliers().keyValueStore(
                new org.apache.kafka.streams.state.DslKeyValueParams("k", true)).get()).engine());
        FerryDslStoreSuppliers s = new FerryLmdbDslStoreSuppliers();
        s.configure(java.util.Map.of("statestore.cache.max.bytes", 0L));
        var plain = s.windowStore(new org.apache.kafka.streams.state.DslWindowParams("w", RETENTION, SIZE, false,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowUpdate(), false, true));
        assertInstanceOf(FerryTimestampedWindowStore.class, plain.get());
        assertEquals(dev.ferry.Engine.LMDB, ((FerryWindowStore) plain.get()).engine());
        var onClose = s.windowStore(new org.apache.kafka.streams.state.DslWindowParams("w", RETENTION, SIZE, false,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose(), false, true));
        assertInstanceOf(FerryTimeOrderedWindowStore.class, onClose.get(), "emit-on-window-close: Ferry's time-ordered store");
        assertEquals(dev.ferry.Engine.LMDB, ((FerryTimeOrderedWindowStore) onClose.get()).engine());
        var sessionOnClose = s.sessionStore(new org.apache.kafka.streams.state.DslSessionParams("s", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose()));
        assertInstanceOf(FerrySessionStore.class, sessionOnClose.get());
        var headers = s.windowStore(new org.apache.kafka.streams.state.DslWindowParams("w", RETENTION, SIZE, false,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowUpdate(), false, org.apache.kafka.streams.DslStoreFormat.HEADERS));
        assertInstanceOf(FerryWindowStore.class, headers.get(), "the headers format: Ferry's headers window store");
        assertInstanceOf(org.apache.kafka.streams.state.HeadersBytesStore.class, headers.get());
        assertInstanceOf(FerrySessionStore.class, s.sessionStore(new org.apache.kafka.streams.state.DslSessionParams("s", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowUpdate())).get());
        assertThrows(org.apache.kafka.common.config.ConfigException.class,
                () -> new FerryDslStoreSuppliers().configure(java.util.Map.of(FerryStoreConfig.DSL_ENGINE, "leveldb")));
        // the engine comes from the class; a setting naming the other one is refused, both ways
        assertThrows(org.apache.kafka.common.config.ConfigException.class,
                () -> new FerryDslStoreSuppliers().configure(java.util.Map.of(FerryStoreConfig.DSL_ENGINE, "lmdb")));
        assertThrows(org.apache.kafka.common.config.ConfigException.class,
                () -> new FerryLmdbDslStoreSuppliers().configure(java.util.Map.of(FerryStoreConfig.DSL_ENGINE, "rocksdb")));
        new FerryDslStoreSuppliers().configure(java.util.Map.of(FerryStoreConfig.DSL_ENGINE, " RocksDB "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void theSuppliersStoresAreFerrys(String kind) {
        assertInstanceOf(FerryWindowStore.class, windows(kind, SIZE).get());
        assertInstanceOf(FerryTimestampedWindowStore.class, windows(kind + "-timestamped", SIZE).get());
        assertInstanceOf(FerrySessionStore.class, sessions(kind).get());
        assertEquals(Stores.persistentWindowStore("x", RETENTION, SIZE, false).segmentIntervalMs(),
                windows(kind, SIZE).segmentIntervalMs(), "the built-in store's segment interval");
        assertEquals(Stores.persistentSessionStore("x", RETENTION).segmentIntervalMs(), sessions(kind).segmentIntervalMs());
    }
}
