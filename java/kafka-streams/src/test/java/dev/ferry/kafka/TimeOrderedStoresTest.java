package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The reads Kafka's emit-on-window-close processors depend on: a {@link FerryTimeOrderedWindowStore}
 * hands out windows by start time, then key (also after restoring Kafka's key-first changelog keys),
 * and a {@link FerrySessionStore} hands out the sessions ending in a range by end, start and key.
 */
class TimeOrderedStoresTest {
    static final long RETENTION = 600_000;
    static final long SEGMENT = 60_000;

    @TempDir
    Path tmp;

    static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(new String(kv.key.key().get(), java.nio.charset.StandardCharsets.UTF_8) + "@"
                    + kv.key.window().start() + "-" + kv.key.window().end() + "=" + new String(kv.value, java.nio.charset.StandardCharsets.UTF_8)));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void timeOrderedWindowsComeBackByStartThenKeyAlsoAfterRestoring(Engine engine) {
        List<String> expected = List.of("a@0-1000=a0", "bb@0-1000=b0", "a@61000-62000=a61", "b@61000-62000=b61", "a@130000-131000=a130");
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        try (FerryTimeOrderedWindowStore s = new FerryTimeOrderedWindowStore("w", engine, RETENTION, SEGMENT, 1_000, false)) {
            s.init(new TestContext(tmp.resolve("live").toFile()), s);
            Object[][] puts = {{"a", 130_000L}, {"bb", 0L}, {"b", 61_000L}, {"a", 0L}, {"a", 61_000L}, {"zz", 5_000L}};
            for (Object[] p : puts) {
                String key = (String) p[0];
                long t = (Long) p[1];
                String v = key.charAt(0) + String.valueOf(t / 1000);
                s.put(b(key), v.getBytes(java.nio.charset.StandardCharsets.UTF_8), t);
                changelog.add(KeyValue.pair(FerryWindowStore.storeKey(b(key).get(), t, 0), v.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            s.put(b("zz"), null, 5_000L); // a delete
            changelog.add(KeyValue.pair(FerryWindowStore.storeKey(b("zz").get(), 5_000L, 0), null));
            assertEquals(expected, windows(s.fetchAll(0, 200_000)));
            assertEquals(expected, windows(s.all()));
            assertEquals(List.of("a@61000-62000=a61", "b@61000-62000=b61"), windows(s.fetchAll(1, 61_000)));
            assertEquals(List.of("a@0-1000=a0", "a@61000-62000=a61", "a@130000-131000=a130"), windows(s.fetch(b("a"), b("a"), 0, 200_000)));
            assertEquals(List.of("b@61000-62000=b61", "bb@0-1000=b0"), windows(s.backwardFetch(b("b"), b("bb"), 0, 100_000)));
            assertEquals("a61", new String(s.fetch(b("a"), 61_000L), java.nio.charset.StandardCharsets.UTF_8));
        }
        try (FerryTimeOrderedWindowStore r = new FerryTimeOrderedWindowStore("w", engine, RETENTION, SEGMENT, 1_000, false)) {
            TestContext ctx = new TestContext(tmp.resolve("restored").toFile());
            r.init(ctx, r);
            ((BatchingStateRestoreCallback) ctx.restoreCallback).restoreAll(changelog);
            assertEquals(expected, windows(r.all()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void sessionsEndingInARangeComeBackByEndStartAndKey(Engine engine) {
        try (FerrySessionStore s = new FerrySessionStore("s", engine, RETENTION, SEGMENT)) {
            s.init(new TestContext(tmp.toFile()), s);
            Object[][] puts = {{"b", 0L, 10_000L}, {"a", 5_000L, 10_000L}, {"a", 0L, 10_000L}, {"c", 0L, 3_000L},
                    {"a", 70_000L, 70_000L}, {"bb", 20_000L, 65_000L}};
            for (Object[] p : puts) {
                s.put(new Windowed<>(b((String) p[0]), new SessionWindow((Long) p[1], (Long) p[2])), ((String) p[0]).getBytes());
            }
            assertEquals(List.of("c@0-3000=c", "a@0-10000=a", "b@0-10000=b", "a@5000-10000=a", "bb@20000-65000=bb", "a@70000-70000=a"),
                    windows(s.findSessions(0, 100_000)));
            assertEquals(List.of("a@0-10000=a", "b@0-10000=b", "a@5000-10000=a", "bb@20000-65000=bb"), windows(s.findSessions(4_000, 69_999)));
            assertEquals(List.of(), windows(s.findSessions(70_001, 100_000)));
        }
    }

    /** A hopping emit-final count into "out"; on Kafka's built-in store when {@code engine} is null. */
    static org.apache.kafka.streams.Topology hoppingFinal(Engine engine, boolean caching) {
        org.apache.kafka.streams.StreamsBuilder b = new org.apache.kafka.streams.StreamsBuilder();
        java.time.Duration size = java.time.Duration.ofMinutes(1);
        java.time.Duration retention = java.time.Duration.ofMinutes(10);
        var m = (engine == null ? org.apache.kafka.streams.kstream.Materialized.<String, Long, org.apache.kafka.streams.state.WindowStore<Bytes, byte[]>>as("final")
                        .withRetention(retention)
                : org.apache.kafka.streams.kstream.Materialized.<String, Long>as(engine == Engine.LMDB
                        ? FerryStores.lmdbTimeOrderedWindowStore("final", retention, size, false)
                        : FerryStores.persistentTimeOrderedWindowStore("final", retention, size, false)))
                .withKeySerde(org.apache.kafka.common.serialization.Serdes.String())
                .withValueSerde(org.apache.kafka.common.serialization.Serdes.Long());
        b.stream("in", org.apache.kafka.streams.kstream.Consumed.with(org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.Long())).groupByKey()
                .windowedBy(org.apache.kafka.streams.kstream.TimeWindows.ofSizeAndGrace(size, java.time.Duration.ofSeconds(30))
                        .advanceBy(java.time.Duration.ofSeconds(20)))
                .emitStrategy(org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose())
                .count(caching ? m : m.withCachingDisabled())
                .toStream((k, v) -> k.key() + "@" + k.window().start())
                .to("out", org.apache.kafka.streams.kstream.Produced.with(org.apache.kafka.common.serialization.Serdes.String(),
                        org.apache.kafka.common.serialization.Serdes.Long()));
        return b.build();
    }

    static java.util.Properties props(Path dir, long cacheBytes) {
        java.util.Properties p = new java.util.Properties();
        p.put(org.apache.kafka.streams.StreamsConfig.APPLICATION_ID_CONFIG, "time-ordered-cache");
        p.put(org.apache.kafka.streams.StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(org.apache.kafka.streams.StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        p.put(org.apache.kafka.streams.StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, cacheBytes);
        return p;
    }

    /** A seeded run: the output records ({@code key@start=count at time}), then the store's windows, sorted. */
    static List<List<String>> run(org.apache.kafka.streams.Topology topology, java.util.Properties props, boolean ferrys) {
        java.util.Random r = new java.util.Random(7);
        List<String> out = new ArrayList<>();
        List<String> windows = new ArrayList<>();
        try (org.apache.kafka.streams.TopologyTestDriver d = new org.apache.kafka.streams.TopologyTestDriver(topology, props,
                java.time.Instant.ofEpochMilli(0))) {
            org.apache.kafka.streams.state.internals.WrappedStateStore<?, ?, ?> top =
                    (org.apache.kafka.streams.state.internals.WrappedStateStore<?, ?, ?>) d.getAllStateStores().get("final");
            if (ferrys) {
                FerryTimeOrderedWindowStore inner = org.junit.jupiter.api.Assertions.assertInstanceOf(FerryTimeOrderedWindowStore.class,
                        EveryDslStoreTest.innermost(top));
                long cache = ((Number) props.get(org.apache.kafka.streams.StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG)).longValue();
                assertEquals(cache > 0, inner.keyOrdered(), "reads in the key-ordered cache's order exactly when the cache is on");
            }
            var in = d.createInputTopic("in", org.apache.kafka.common.serialization.Serdes.String().serializer(),
                    org.apache.kafka.common.serialization.Serdes.Long().serializer());
            var o = d.createOutputTopic("out", org.apache.kafka.common.serialization.Serdes.String().deserializer(),
                    org.apache.kafka.common.serialization.Serdes.Long().deserializer());
            for (int i = 0; i < 500; i++) {
                long t = 1_000_000L + i * 2_000L + (r.nextInt(4) == 0 ? -r.nextInt(40_000) : r.nextInt(1_500));
                in.pipeInput("k" + r.nextInt(25), 1L, java.time.Instant.ofEpochMilli(t));
                d.advanceWallClockTime(java.time.Duration.ofSeconds(1)); // emit-on-window-close emits at most once a second
                o.readRecordsToList().forEach(rec -> out.add(rec.key() + "=" + rec.value() + " at " + rec.timestamp()));
            }
            try (var it = d.<String, Long>getWindowStore("final").all()) {
                // the windows well within retention at the end (stream time about 2,000,000, retention 600,000): Kafka's
                // all() also hands out expired windows left in a live segment, Ferry's only those retention keeps
                it.forEachRemaining(kv -> {
                    if (kv.key.window().start() >= 1_500_000L) {
                        windows.add(kv.key.key() + "@" + kv.key.window().start() + "=" + kv.value);
                    }
                });
            }
        }
        java.util.Collections.sort(windows);
        return List.of(out, windows);
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void underKafkasKeyOrderedCacheEmitFinalWindowsPerKeyAreTheBuiltInStores(Engine engine) {
        for (long cache : List.of(8192L, 1L << 20, 0L)) {
            List<List<String>> builtIn = run(hoppingFinal(null, true), props(tmp.resolve("builtin-" + cache), cache), false);
            List<List<String>> ferry = run(hoppingFinal(engine, true), props(tmp.resolve("ferry-" + cache), cache), true);
            org.junit.jupiter.api.Assertions.assertTrue(builtIn.get(0).size() > 100, "windows were emitted: " + builtIn.get(0).size());
            // per key, record for record (windows closing together come out by segment and key under Kafka's key-ordered cache)
            assertEquals(EveryDslStoreTest.perKey(builtIn.get(0)), EveryDslStoreTest.perKey(ferry.get(0)), "output, cache " + cache);
            assertEquals(builtIn.get(1), ferry.get(1), "the windows in the store, cache " + cache);
            if (cache == 0) { // nothing is cached: Kafka's merge hands out the store's time order, as the built-in store's
                assertEquals(builtIn.get(0), ferry.get(0), "output in order, cache off");
            }
        }
        // without the cache over it the store reads in time order
        List<List<String>> builtIn = run(hoppingFinal(null, false), props(tmp.resolve("builtin-nocache"), 8192), false);
        List<List<String>> ferry = run(hoppingFinal(engine, false), props(tmp.resolve("ferry-nocache"), 0), true);
        assertEquals(builtIn, ferry, "without the cache");
    }
}
