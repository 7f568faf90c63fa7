package dev.ferry.kafka;

import static dev.ferry.kafka.FerryStoreMetricsTest.LMDB;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_DEBUG;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_INFO;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_LMDB;
import static dev.ferry.kafka.FerryStoreMetricsTest.READ;
import static dev.ferry.kafka.FerryStoreMetricsTest.ROCKSDB_DEBUG;
import static dev.ferry.kafka.FerryStoreMetricsTest.ROCKSDB_INFO;
import static dev.ferry.kafka.FerryStoreMetricsTest.missing;
import static dev.ferry.kafka.FerryStoreMetricsTest.union;
import static dev.ferry.kafka.FerryStoreMetricsTest.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka's state store metrics of Ferry's versioned stores against the built-in versioned store's
 * ({@code RocksDBVersionedStore}), read through TopologyTestDriver's {@code metrics()}: one topology
 * with a built-in, a Ferry-RocksDB and a Ferry-LMDB versioned store, the same timestamped puts,
 * deletes and reads (latest and as of a time) into each, at recording level DEBUG and INFO, with
 * Kafka's RocksDB metrics recording trigger run by the test (TopologyTestDriver has no schedule).
 * The metric names, tags and recording levels must be the built-in store's (with LMDB's own in place
 * of RocksDB's on LMDB), and the metrics the key-value workload of {@link FerryStoreMetricsTest} moves
 * must move on both RocksDB stores here too.
 */
class VersionedStoreMetricsTest {
    static final List<String> STORES = List.of("builtin-versioned", "ferry-versioned", "lmdb-versioned");
    static final Duration HISTORY = Duration.ofHours(1);
    /** Short segments: the workload's time span crosses several, on both stores. */
    static final Duration SEGMENT = Duration.ofMillis(200);

    @TempDir
    Path tmp;

    /** Writes each record into the three stores with its timestamp (every tenth a delete) and reads it back. */
    static final class Writer implements Processor<String, String, Void, Void> {
        private final AtomicReference<StreamsMetricsImpl> streamsMetrics;
        private final AtomicLong processed;
        private final List<VersionedKeyValueStore<String, String>> stores = new ArrayList<>();
        private long n;

        Writer(AtomicReference<StreamsMetricsImpl> streamsMetrics, AtomicLong processed) {
            this.streamsMetrics = streamsMetrics;
            this.processed = processed;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            streamsMetrics.set((StreamsMetricsImpl) context.metrics());
            STORES.forEach(s -> stores.add(context.getStateStore(s)));
        }

        @Override
        public void process(Record<String, String> r) {
            long ts = r.timestamp();
            boolean readOnly = r.key().startsWith(READ);
            String key = readOnly ? r.key().substring(READ.length()) : r.key();
            boolean delete = !readOnly && ++n % 10 == 0;
            for (VersionedKeyValueStore<String, String> s : stores) {
                if (delete) {
                    s.delete(key, ts);
                } else if (!readOnly) {
                    s.put(key, r.value(), ts);
                }
                s.get(key);
                s.get(key, ts - 300); // an older version: the history segments
                s.get(key + "-absent");
            }
            processed.incrementAndGet();
        }
    }

    /**
     * The topology: source {@code in}, one processor writing into the three stores.
     *
     * @param streamsMetrics receives the processor's context's metrics
     * @param processed counts the records processed
     */
    static Topology topology(AtomicReference<StreamsMetricsImpl> streamsMetrics, AtomicLong processed) {
        Topology t = new Topology();
        t.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        t.addProcessor("writer", () -> new Writer(streamsMetrics, processed), "in");
        List<VersionedBytesStoreSupplier> suppliers = List.of(
                Stores.persistentVersionedKeyValueStore(STORES.get(0), HISTORY, SEGMENT),
                FerryStores.persistentVersionedKeyValueStore(STORES.get(1), HISTORY, SEGMENT),
                FerryStores.lmdbVersionedKeyValueStore(STORES.get(2), HISTORY, SEGMENT));
        suppliers.forEach(s -> t.addStateStore(Stores.versionedKeyValueStoreBuilder(s, Serdes.String(), Serdes.String()), "writer"));
        return t;
    }

    /** Every store's metrics before, during (every 100 records) and after the workload, and their tag keys. */
    record Run(List<Map<String, Map<String, Object>>> samples, Map<String, Map<String, Set<String>>> tags) {
        Map<String, Object> after(String store) {
            return samples.get(samples.size() - 1).get(store);
        }

        Set<String> movedOf(String store, Set<String> metrics) {
            return metrics.stream().filter(m -> FerryStoreMetricsTest.Run.moved(samples, store, m))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    Run run(String level) throws InterruptedException {
        AtomicReference<StreamsMetricsImpl> streamsMetrics = new AtomicReference<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(streamsMetrics, new AtomicLong()),
                FerryStoreMetricsTest.props(level, tmp.resolve("state")))) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            StreamsMetricsImpl m = streamsMetrics.get();
            assertNotNull(m, "the processor's context has Kafka's metrics");
            m.rocksDBMetricsRecordingTrigger().run();
            List<Map<String, Map<String, Object>>> samples = new ArrayList<>();
            samples.add(snapshot(driver));
            FerryStoreMetricsTest.pipeInputs(in, () -> samples.add(snapshot(driver)));
            FerryStoreMetricsTest.waitForBackgroundWork(driver, STORES.subList(0, 2));
            m.rocksDBMetricsRecordingTrigger().run();
            samples.add(snapshot(driver));
            Map<String, Map<String, Set<String>>> tags = new TreeMap<>();
            STORES.forEach(s -> tags.put(s, FerryStoreMetricsTest.tagKeys(driver.metrics(), s)));
            return new Run(samples, tags);
        }
    }

    static Map<String, Map<String, Object>> snapshot(TopologyTestDriver driver) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        STORES.forEach(s -> out.put(s, values(driver.metrics(), s)));
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"DEBUG", "INFO"})
    void ferryVersionedStoresReportTheBuiltInVersionedStoresMetricsPresentAndMoving(String level) throws Exception {
        Run run = run(level);
        String builtIn = STORES.get(0), ferry = STORES.get(1), lmdb = STORES.get(2);
        Set<String> rocksdb = union(ROCKSDB_DEBUG, ROCKSDB_INFO);
        System.out.println(level + " " + builtIn + " / " + ferry + ": " + run.after(ferry).size() + " metrics, RocksDB's moved: "
                + run.movedOf(builtIn, rocksdb) + " / " + run.movedOf(ferry, rocksdb));

        assertEquals(run.after(builtIn).keySet(), run.after(ferry).keySet(), "the built-in versioned store's metric names");
        assertEquals(Set.of(), missing(run.after(ferry).keySet(), rocksdb), "every RocksDB metric present");
        assertEquals(run.tags().get(builtIn), run.tags().get(ferry), "the built-in versioned store's tags");
        for (Set<String> tags : run.tags().get(ferry).values()) {
            assertEquals(Set.of("thread-id", "task-id", "rocksdb-state-id"), tags, ferry);
        }
        assertEquals(run.after(builtIn).get("block-cache-capacity"), run.after(ferry).get("block-cache-capacity"));
        if (level.equals("DEBUG")) {
            assertEquals(MOVING_DEBUG, run.movedOf(builtIn, MOVING_DEBUG), "the workload moves these on the built-in store");
            assertEquals(MOVING_DEBUG, run.movedOf(ferry, MOVING_DEBUG), "statistics-based metrics moving: " + ferry);
        } else {
            assertEquals(Set.of(), run.movedOf(builtIn, ROCKSDB_DEBUG), "statistics-based metrics record nothing at INFO (built-in)");
            assertEquals(Set.of(), run.movedOf(ferry, ROCKSDB_DEBUG), "statistics-based metrics record nothing at INFO: " + ferry);
        }
        assertEquals(MOVING_INFO, run.movedOf(builtIn, MOVING_INFO), "the workload moves these on the built-in store");
        assertEquals(MOVING_INFO, run.movedOf(ferry, MOVING_INFO), "property-based metrics moving: " + ferry);

        Set<String> lmdbNames = new TreeSet<>(run.after(builtIn).keySet());
        lmdbNames.removeAll(rocksdb);
        lmdbNames.addAll(LMDB);
        assertEquals(lmdbNames, run.after(lmdb).keySet(), "the built-in store's names with LMDB's in place of RocksDB's");
        for (Set<String> tags : run.tags().get(lmdb).values()) {
            assertEquals(Set.of("thread-id", "task-id", "lmdb-state-id"), tags, lmdb);
        }
        assertEquals(MOVING_LMDB, run.movedOf(lmdb, MOVING_LMDB), "LMDB metrics moving: " + lmdb);
        // the metered layer's metrics (put-rate, get-latency-avg, ...) move alike on all three
        Set<String> metered = run.after(builtIn).keySet().stream().filter(n -> !rocksdb.contains(n))
                .filter(n -> n.startsWith("put-") || n.startsWith("get-") || n.startsWith("delete-"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(metered.containsAll(Set.of("put-rate", "get-rate", "delete-rate")), "metered layer's metrics: " + metered);
        Set<String> meteredMoving = run.movedOf(builtIn, metered);
        if (level.equals("DEBUG")) { // the metered layer records at DEBUG
            assertTrue(meteredMoving.containsAll(Set.of("put-rate", "get-rate", "delete-rate")), meteredMoving.toString());
        } else {
            assertEquals(Set.of(), meteredMoving, "the metered layer records nothing at INFO");
        }
        assertEquals(meteredMoving, run.movedOf(ferry, metered), ferry);
        assertEquals(meteredMoving, run.movedOf(lmdb, metered), lmdb);
        assertTrue(Objects.requireNonNull((Number) run.after(ferry).get("estimate-num-keys")).longValue() > 0);
    }
}
