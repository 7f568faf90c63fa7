package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * One topology with every DSL operator that makes a state store (aggregate, count, reduce; tumbling,
 * hopping, sliding and session aggregations, each also with {@code EmitStrategy.onWindowClose()};
 * both suppressions; stream-stream inner, left and outer joins; stream-table, table-table and
 * foreign-key joins), run under TopologyTestDriver with the same seeded input on Kafka's built-in
 * stores and with {@code dsl.store.suppliers.class} = {@link FerryDslStoreSuppliers} (RocksDB) or
 * {@link FerryLmdbDslStoreSuppliers} (LMDB), with Kafka's record cache on and off, with the StreamsBuilder
 * made from a {@code TopologyConfig} (Kafka never calls the suppliers' {@code configure}) and without one,
 * and in the headers format ({@code dsl.store.format=HEADERS}, Kafka 4.4: the same stores must be in that
 * format as in the built-in run).
 * Every output topic must agree record for record, every store the DSL made must be Ferry's on the
 * class's engine (found under Kafka's wrappers and adapters), no store may write under the state
 * directory's {@code rocksdb/} folder, and each key-value store's final content must equal the built-in
 * one's. The window stores of emit-on-window-close windowed aggregations are Ferry's time-ordered stores in
 * every case; with the cache on, Kafka puts its key-ordered cache over them and their outputs come out in that
 * cache's order (see {@link FerryTimeOrderedWindowStore}), so those outputs must agree record for record per
 * key (windows that close together come out by segment and key rather than by window start).
 *
 * <p>Stores Kafka keeps by design: the suppression buffers ({@code suppress(...)}) are Kafka's
 * in-memory {@code InMemoryTimeOrderedKeyValueChangeBuffer}: {@code Suppressed} has no way to give a
 * store supplier and {@code DslStoreSuppliers} no method for buffers, so no application can make
 * them anything else. Versioned tables are not covered: {@code DslStoreSuppliers} has no versioned
 * method (the DSL makes a versioned store only from a supplier in {@code Materialized.as(...)}).
 */
class EveryDslStoreTest {
    static final String APP = "ferry-every-dsl-store";
    static final Duration SIZE = Duration.ofMinutes(1);
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration GAP = Duration.ofSeconds(40);
    /** The in-memory stores Kafka keeps whatever the suppliers: the suppression buffers (see the class comment). */
    static final String KAFKA_BUFFER = "org.apache.kafka.streams.state.internals.InMemoryTimeOrderedKeyValueChangeBuffer";
    static final List<String> OUTPUTS = List.of("count", "reduce", "aggregate", "tumbling", "tumbling-final", "hopping",
            "hopping-final", "sliding", "sliding-final", "session", "session-final", "suppress-window", "suppress-time",
            "inner", "left", "outer", "stream-table", "table-table", "fk");

    /** On a RAM file system where there is one: TopologyTestDriver commits (a synced write per store) after every record. */
    @TempDir(factory = RamTempDir.class)
    Path tmp;

    /**
     * Each engine, with Kafka's record cache on and off, with the StreamsBuilder made from a TopologyConfig
     * (Kafka never calls the suppliers' {@code configure}) and without one (Kafka configures them).
     */
    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (String engine : List.of("rocksdb", "lmdb")) {
            for (boolean caching : List.of(false, true)) {
                for (boolean topologyConfig : List.of(true, false)) {
                    cases.add(Arguments.of(engine, caching, topologyConfig, false));
                }
                cases.add(Arguments.of(engine, caching, true, true)); // dsl.store.format=HEADERS (Kafka 4.4)
            }
        }
        return cases.stream();
    }

    /** The window stores of the emit-on-window-close windowed aggregations. */
    static final List<String> EMIT_FINAL_WINDOWS = List.of("tumbling-final", "hopping-final", "sliding-final");

    private Properties props(String dir, boolean caching) {
        return props(dir, caching, false);
    }

    private Properties props(String dir, boolean caching, boolean headers) {
        Properties p = new Properties();
        if (headers) {
            p.put(StreamsConfig.DSL_STORE_FORMAT_CONFIG, StreamsConfig.DSL_STORE_FORMAT_HEADERS);
        }
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        // 1 MiB: nothing is evicted between commits, so what a cached aggregation forwards does not hang on the byte
        // footprint of every other store in the shared cache (Kafka's time-ordered cache over its own emit-final
        // stores holds other entries than its key-ordered cache over Ferry's); TimeOrderedStoresTest runs 8 KiB
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 1 << 20 : 0);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.LongSerde.class);
        return p;
    }

    static String w(Windowed<String> k) {
        return k.key() + "@" + k.window().start() + "-" + k.window().end();
    }

    static <V> void out(KTable<Windowed<String>, V> t, String topic) {
        t.toStream((k, v) -> w(k)).mapValues(v -> String.valueOf(v)).to(topic, Produced.with(Serdes.String(), Serdes.String()));
    }

    static StreamsBuilder topology(Properties props, boolean topologyConfig) {
        StreamsBuilder b = topologyConfig ? new StreamsBuilder(new TopologyConfig(new StreamsConfig(props))) : new StreamsBuilder();
        KStream<String, Long> clicks = b.stream("clicks", Consumed.with(Serdes.String(), Serdes.Long()));
        KStream<String, Long> views = b.stream("views", Consumed.with(Serdes.String(), Serdes.Long()));
        KGroupedStream<String, Long> g = clicks.groupByKey();
        Produced<String, String> str = Produced.with(Serdes.String(), Serdes.String());

        KTable<String, Long> count = g.count(Materialized.as("count"));
        count.toStream().mapValues(String::valueOf).to("count", str);
        g.reduce(Long::sum, Materialized.as("reduce")).toStream().mapValues(String::valueOf).to("reduce", str);
        g.aggregate(() -> 0L, (k, v, a) -> a * 3 + v, Materialized.as("aggregate")).toStream().mapValues(String::valueOf).to("aggregate", str);

        TimeWindows tumbling = TimeWindows.ofSizeAndGrace(SIZE, GRACE);
        TimeWindows hopping = TimeWindows.ofSizeAndGrace(SIZE, GRACE).advanceBy(Duration.ofSeconds(20));
        SlidingWindows sliding = SlidingWindows.ofTimeDifferenceAndGrace(SIZE, GRACE);
        SessionWindows session = SessionWindows.ofInactivityGapAndGrace(GAP, GRACE);
        out(g.windowedBy(tumbling).count(win("tumbling")), "tumbling");
        out(g.windowedBy(tumbling).emitStrategy(EmitStrategy.onWindowClose()).count(win("tumbling-final")), "tumbling-final");
        out(g.windowedBy(hopping).aggregate(() -> 0L, (k, v, a) -> a + v, win("hopping")), "hopping");
        out(g.windowedBy(hopping).emitStrategy(EmitStrategy.onWindowClose())
                .aggregate(() -> 0L, (k, v, a) -> a + v, win("hopping-final")), "hopping-final");
        out(g.windowedBy(sliding).reduce(Long::max, win("sliding")), "sliding");
        out(g.windowedBy(sliding).emitStrategy(EmitStrategy.onWindowClose()).reduce(Long::max, win("sliding-final")), "sliding-final");
        out(g.windowedBy(session).count(ses("session")), "session");
        out(g.windowedBy(session).emitStrategy(EmitStrategy.onWindowClose()).count(ses("session-final")), "session-final");

        out(g.windowedBy(tumbling).count(win("suppressed-window"))
                .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())), "suppress-window");
        count.suppress(Suppressed.untilTimeLimit(Duration.ofSeconds(30), Suppressed.BufferConfig.maxRecords(20)))
                .toStream().mapValues(String::valueOf).to("suppress-time", str);

        JoinWindows jw = JoinWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(10), Duration.ofSeconds(20));
        StreamJoined<String, Long, Long> sj = StreamJoined.with(Serdes.String(), Serdes.Long(), Serdes.Long());
        clicks.join(views, (a, v) -> a + ":" + v, jw, sj.withStoreName("inner-join")).to("inner", str);
        clicks.leftJoin(views, (a, v) -> a + ":" + v, jw, sj.withStoreName("left-join")).to("left", str);
        clicks.outerJoin(views, (a, v) -> a + ":" + v, jw, sj.withStoreName("outer-join")).to("outer", str);

        KTable<String, Long> profiles = b.table("profiles", Consumed.with(Serdes.String(), Serdes.Long()), Materialized.as("profiles"));
        KTable<String, Long> regions = b.table("regions", Consumed.with(Serdes.String(), Serdes.Long()), Materialized.as("regions"));
        clicks.join(profiles, (c, p) -> c + "/" + p, Joined.with(Serdes.String(), Serdes.Long(), Serdes.Long())).to("stream-table", str);
        profiles.join(regions, (p, r) -> p + "|" + r, strings("table-table")).toStream().to("table-table", str);
        // orders: order id -> user number; the foreign key is the profile "user<n>"
        KTable<String, Long> orders = b.table("orders", Consumed.with(Serdes.String(), Serdes.Long()), Materialized.as("orders"));
        orders.join(profiles, o -> "user" + o, (o, p) -> o + "~" + p, strings("fk")).toStream().to("fk", str);
        return b;
    }

    /** Ten minutes of retention: segments of five, so the built-in run opens few RocksDB instances. */
    static final Duration RETENTION = Duration.ofMinutes(10);

    static Materialized<String, Long, WindowStore<Bytes, byte[]>> win(String name) {
        return Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(name).withRetention(RETENTION);
    }

    static Materialized<String, Long, SessionStore<Bytes, byte[]>> ses(String name) {
        return Materialized.<String, Long, SessionStore<Bytes, byte[]>>as(name).withRetention(RETENTION);
    }

    static Materialized<String, String, KeyValueStore<Bytes, byte[]>> strings(String name) {
        return Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(name).withValueSerde(Serdes.String());
    }

    /**
     * What a run gave: its outputs, each store's innermost class, engine (Ferry's) and content, the stores whose
     * innermost store is in the headers format ({@code HeadersBytesStore}), and what was written under {@code rocksdb/}.
     */
    record Run(Map<String, List<String>> outputs, Map<String, String> innermost, Map<String, dev.ferry.Engine> engines,
            java.util.Set<String> headers,
            Map<String, List<String>> content, List<Path> rocksdb) {
    }

    /** The built-in run per caching setting: the same for every case. */
    static final Map<List<Boolean>, Run> BUILT_IN = new java.util.concurrent.ConcurrentHashMap<>();

    private Run run(String dir, Properties props, boolean topologyConfig) throws IOException {
        Random r = new Random(42);
        Map<String, List<String>> outputs = new TreeMap<>();
        try (TopologyTestDriver d = new TopologyTestDriver(topology(props, topologyConfig).build(), props, Instant.ofEpochMilli(0))) {
            Map<String, TestInputTopic<String, Long>> in = new TreeMap<>();
            for (String t : List.of("clicks", "views", "profiles", "regions", "orders")) {
                in.put(t, d.createInputTopic(t, Serdes.String().serializer(), Serdes.Long().serializer()));
            }
            for (String t : OUTPUTS) {
                outputs.put(t, new ArrayList<>());
            }
            for (int i = 0; i < 600; i++) {
                long t = 1_000_000L + i * 3_000L + (r.nextInt(5) == 0 ? -r.nextInt(80_000) : r.nextInt(2_000));
                int u = r.nextInt(3) == 0 ? r.nextInt(3) : r.nextInt(30);
                int kind = r.nextInt(10);
                String topic = kind < 5 ? "clicks" : kind < 7 ? "views" : kind == 7 ? "profiles" : kind == 8 ? "regions" : "orders";
                String key = topic.equals("orders") ? "order" + r.nextInt(40) : "user" + u;
                Long value = topic.equals("clicks") || topic.equals("views") || r.nextInt(8) != 0 ? (long) r.nextInt(1_000) : null;
                if (topic.equals("orders") && value != null) {
                    value = (long) r.nextInt(30);
                }
                in.get(topic).pipeInput(key, value, Instant.ofEpochMilli(t));
                d.advanceWallClockTime(Duration.ofSeconds(1)); // emit-on-window-close emits at most once a (wall-clock) second
                for (String o : OUTPUTS) {
                    d.createOutputTopic(o, Serdes.String().deserializer(), Serdes.String().deserializer()).readRecordsToList()
                            .forEach(rec -> outputs.get(o).add(rec.key() + "=" + rec.value() + " at " + rec.timestamp()));
                }
            }
            Map<String, String> innermost = new TreeMap<>();
            Map<String, dev.ferry.Engine> engines = new TreeMap<>();
            Map<String, List<String>> content = new TreeMap<>();
            for (Map.Entry<String, StateStore> e : d.getAllStateStores().entrySet()) {
                StateStore s = innermost(e.getValue());
                innermost.put(e.getKey(), s.getClass().getName());
                if (s instanceof FerryStateStore) {
                    engines.put(e.getKey(), ((FerryStateStore) s).engine());
                }
                content.put(e.getKey(), content(s));
            }
            // before close: TopologyTestDriver deletes the state directory when it closes
            java.util.Set<String> headers = new java.util.TreeSet<>();
            for (Map.Entry<String, StateStore> e : d.getAllStateStores().entrySet()) {
                if (inHeadersFormat(e.getValue())) {
                    headers.add(e.getKey());
                }
            }
            return new Run(outputs, innermost, engines, headers, content, rocksdbFiles(tmp.resolve(dir)));
        }
    }

    /**
     * The store under Kafka's wrappers: {@code WrappedStateStore.wrapped()}, and for the adapters that
     * are no {@code WrappedStateStore} (headers and timestamp adapters) the store in their field.
     */
    static StateStore innermost(StateStore s) {
        while (true) {
            if (s instanceof WrappedStateStore) {
                s = ((WrappedStateStore<?, ?, ?>) s).wrapped();
                continue;
            }
            StateStore inner = adapted(s);
            if (inner == null) {
                return s;
            }
            s = inner;
        }
    }

    /**
     * Whether a store on the way from {@code s} down to the innermost one is in the headers format (Kafka's own
     * headers window store wraps a segmented store that is not marked).
     */
    static boolean inHeadersFormat(StateStore s) {
        while (s != null) {
            if (s instanceof org.apache.kafka.streams.state.HeadersBytesStore) {
                return true;
            }
            s = s instanceof WrappedStateStore ? ((WrappedStateStore<?, ?, ?>) s).wrapped() : adapted(s);
        }
        return false;
    }

    private static StateStore adapted(StateStore s) {
        if (!s.getClass().getName().startsWith("org.apache.kafka.streams.")) {
            return null;
        }
        for (Class<?> c = s.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (StateStore.class.isAssignableFrom(f.getType()) && !java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    try {
                        f.setAccessible(true);
                        Object v = f.get(s);
                        if (v instanceof StateStore && v != s) {
                            return (StateStore) v;
                        }
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        throw new AssertionError("cannot read " + f + " of " + s.getClass(), e);
                    }
                }
            }
        }
        return null;
    }

    static String hex(byte[] b) {
        return b == null ? "null" : HexFormat.of().formatHex(b);
    }

    /** The bytes a store holds, in its iteration order. */
    @SuppressWarnings("unchecked")
    static List<String> content(StateStore s) {
        List<String> out = new ArrayList<>();
        if (s instanceof KeyValueStore) {
            try (KeyValueIterator<Bytes, byte[]> it = ((KeyValueStore<Bytes, byte[]>) s).all()) {
                it.forEachRemaining(kv -> out.add(hex(kv.key.get()) + "=" + hex(kv.value)));
            }
        } else if (s instanceof WindowStore) {
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ((WindowStore<Bytes, byte[]>) s).all()) {
                it.forEachRemaining(kv -> out.add(hex(kv.key.key().get()) + "@" + kv.key.window().start() + "=" + hex(kv.value)));
            }
        } else if (s instanceof SessionStore) {
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ((SessionStore<Bytes, byte[]>) s).findSessions(0, Long.MAX_VALUE)) {
                it.forEachRemaining(kv -> out.add(hex(kv.key.key().get()) + "@" + kv.key.window().start() + "-"
                        + kv.key.window().end() + "=" + hex(kv.value)));
            } catch (UnsupportedOperationException e) { // a key-ordered session store: every key
                try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ((SessionStore<Bytes, byte[]>) s).fetch(null, null)) {
                    it.forEachRemaining(kv -> out.add(hex(kv.key.key().get()) + "@" + kv.key.window().start() + "-"
                            + kv.key.window().end() + "=" + hex(kv.value)));
                }
            }
        }
        return out;
    }

    /** Whether the class of that name is {@code type} or a subclass. */
    static boolean isA(Class<?> type, String className) {
        try {
            return type.isAssignableFrom(Class.forName(className));
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

        /** Output records ({@code key@window=value at time}) per key, each key's in their order. */
    static Map<String, List<String>> perKey(List<String> records) {
        Map<String, List<String>> m = new TreeMap<>();
        for (String rec : records) {
            m.computeIfAbsent(rec.substring(0, rec.indexOf('@')), k -> new ArrayList<>()).add(rec);
        }
        return m;
    }

    static List<Path> rocksdbFiles(Path stateDir) throws IOException {
        if (!Files.exists(stateDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(stateDir)) {
            return files.filter(p -> stateDir.relativize(p).toString().contains("rocksdb")).toList();
        }
    }

    @ParameterizedTest(name = "{0}, caching {1}, TopologyConfig {2}, headers format {3}")
    @MethodSource("cases")
    void everyDslStoreIsFerrysAndTheResultsAreTheBuiltInStores(String engine, boolean caching, boolean topologyConfig, boolean headers)
            throws IOException {
        Run builtIn = BUILT_IN.get(List.of(caching, headers));
        if (builtIn == null) {
            builtIn = run("builtin", props("builtin", caching, headers), true);
            BUILT_IN.put(List.of(caching, headers), builtIn);
        }
        Properties ferryProps = props("ferry", caching, headers);
        dev.ferry.Engine asked = engine.equals("lmdb") ? dev.ferry.Engine.LMDB : dev.ferry.Engine.ROCKSDB;
        ferryProps.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG,
                asked == dev.ferry.Engine.LMDB ? FerryLmdbDslStoreSuppliers.class : FerryDslStoreSuppliers.class);
        ferryProps.put(FerryStoreConfig.DSL_ENGINE, engine);
        Run ferry = run("ferry", ferryProps, topologyConfig);
        for (String o : OUTPUTS) {
            assertFalse(builtIn.outputs.get(o).isEmpty(), "output " + o + " has records");
        }
        assertEquals(builtIn.outputs.keySet(), ferry.outputs.keySet());
        List<String> failures = new ArrayList<>();
        for (String o : OUTPUTS) {
            if (caching && EMIT_FINAL_WINDOWS.contains(o)) { // under Kafka's key-ordered cache: per key (see the class comment)
                if (!perKey(builtIn.outputs.get(o)).equals(perKey(ferry.outputs.get(o)))) {
                    failures.add("output " + o + " differs (per key)");
                }
            } else if (!builtIn.outputs.get(o).equals(ferry.outputs.get(o))) {
                failures.add("output " + o + " differs");
            }
        }
        assertEquals(builtIn.innermost.keySet(), ferry.innermost.keySet(), "the same stores");
        java.util.Set<String> expectedHeaders = new java.util.TreeSet<>(builtIn.headers);
        if (headers) {
            // Kafka 4.4.0's RocksDbTimeOrderedSessionHeadersBytesStoreSupplier.get() returns a plain
            // RocksDBTimeOrderedSessionStore (no HeadersBytesStore), which its builder then puts under a
            // SessionToHeadersStoreAdapter; Ferry's emit-final session store is in the headers format itself
            expectedHeaders.add("session-final");
        }
        assertEquals(expectedHeaders, ferry.headers, "the same stores in the headers format");
        if (headers) {
            assertFalse(ferry.headers.isEmpty(), "the DSL's stores are in the headers format");
        }
        assertTrue(ferry.innermost.size() >= 20, "stores: " + ferry.innermost);
        for (Map.Entry<String, String> e : ferry.innermost.entrySet()) {
            String store = e.getKey();
            boolean ferrys = e.getValue().startsWith("dev.ferry.");
            if (e.getValue().equals(KAFKA_BUFFER)) {
                continue;
            }
            if (!ferrys) {
                failures.add("store " + store + " is " + e.getValue());
            } else if (ferry.engines.get(store) != asked) {
                failures.add("store " + store + " is on " + ferry.engines.get(store));
            }
            if (EMIT_FINAL_WINDOWS.contains(store) && !isA(FerryTimeOrderedWindowStore.class, e.getValue())) { // or its headers subclass
                failures.add("store " + store + " is " + e.getValue());
            }
            // key-value stores only: the window and session stores' innermost dumps differ (open, not yet understood;
            // WindowedTopologyComparisonTest compares their content through Kafka's typed stores and agrees)
            if (ferry.content.get(store) != null && e.getValue().contains("KeyValueStore")
                    && !builtIn.content.get(store).equals(ferry.content.get(store))) {
                failures.add("content of " + store + " differs");
            }
        }
        assertTrue(isA(FerrySessionStore.class, ferry.innermost.get("session-final")), // or its headers-format subclass
                "Kafka never caches an emit-final session store: Ferry's in every case, not " + ferry.innermost.get("session-final"));
        assertTrue(ferry.innermost.containsValue(KAFKA_BUFFER), "the suppression buffers are Kafka's in-memory ones");
        List<Path> rocksdb = ferry.rocksdb;
        if (!rocksdb.isEmpty()) {
            failures.add("written under rocksdb/: " + rocksdb);
        }
        assertEquals(List.of(), failures, "stores: " + ferry.innermost);
    }

    @org.junit.jupiter.api.Test
    void anEngineSettingThatDisagreesWithTheSuppliersClassIsRefused() {
        Properties p = props("mismatch", false);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, FerryDslStoreSuppliers.class);
        p.put(FerryStoreConfig.DSL_ENGINE, "lmdb");
        Throwable t = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> new TopologyTestDriver(topology(p, false).build(), p, Instant.ofEpochMilli(0)).close());
        while (!(t instanceof org.apache.kafka.common.config.ConfigException) && t.getCause() != null) {
            t = t.getCause();
        }
        org.junit.jupiter.api.Assertions.assertInstanceOf(org.apache.kafka.common.config.ConfigException.class, t);
        assertTrue(t.getMessage().contains(FerryLmdbDslStoreSuppliers.class.getName()), t.getMessage());
    }
}
