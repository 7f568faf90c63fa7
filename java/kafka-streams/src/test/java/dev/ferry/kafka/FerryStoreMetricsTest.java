package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.Engine;
import dev.ferry.Statistics;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka's state store metrics of Ferry's stores against the built-in RocksDB store's, read through
 * TopologyTestDriver's {@code metrics()}: one topology with a built-in, a Ferry-RocksDB and a
 * Ferry-LMDB store of each kind (key-value, window, session), the same writes and reads into each,
 * at recording level DEBUG and INFO. Kafka Streams records the statistics-based metrics from its
 * RocksDB metrics recording trigger (a minute apart, at DEBUG); TopologyTestDriver has no such
 * schedule, so the test runs the trigger itself, for the built-in and the Ferry stores alike.
 */
class FerryStoreMetricsTest {
    static final String GROUP = "stream-state-metrics";
    static final Duration RETENTION = Duration.ofHours(1);
    static final Duration WINDOW = Duration.ofMinutes(1);

    /** The statistics-based metrics (KIP-471, DEBUG) of the built-in RocksDB store in Kafka 4.3. */
    static final Set<String> ROCKSDB_DEBUG = new TreeSet<>(List.of(
            "bytes-written-rate", "bytes-written-total", "bytes-read-rate", "bytes-read-total",
            "memtable-bytes-flushed-rate", "memtable-bytes-flushed-total", "memtable-hit-ratio",
            "memtable-flush-time-avg", "memtable-flush-time-min", "memtable-flush-time-max",
            "write-stall-duration-avg", "write-stall-duration-total",
            "block-cache-data-hit-ratio", "block-cache-index-hit-ratio", "block-cache-filter-hit-ratio",
            "bytes-read-compaction-rate", "bytes-written-compaction-rate",
            "compaction-time-avg", "compaction-time-min", "compaction-time-max",
            "number-open-files", "number-file-errors-total"));
    /** The property-based metrics (KIP-607, INFO) of the built-in RocksDB store in Kafka 4.3. */
    static final Set<String> ROCKSDB_INFO = new TreeSet<>(List.of(
            "num-immutable-mem-table", "cur-size-active-mem-table", "cur-size-all-mem-tables", "size-all-mem-tables",
            "num-entries-active-mem-table", "num-entries-imm-mem-tables", "num-deletes-active-mem-table",
            "num-deletes-imm-mem-tables", "mem-table-flush-pending", "num-running-flushes", "compaction-pending",
            "num-running-compactions", "estimate-pending-compaction-bytes", "total-sst-files-size",
            "live-sst-files-size", "num-live-versions", "block-cache-capacity", "block-cache-usage",
            "block-cache-pinned-usage", "estimate-num-keys", "estimate-table-readers-mem", "background-errors"));
    /** Ferry-LMDB's metrics (INFO). */
    static final Set<String> LMDB = new TreeSet<>(List.of(
            "estimate-num-keys", "data-file-size", "map-size", "map-size-used", "num-readers", "max-readers"));

    /** On a RAM file system where there is one: TopologyTestDriver commits (a synced write per store) after every record. */
    @TempDir(factory = RamTempDir.class)
    Path tmp;

    /** The built-in, the Ferry-RocksDB and the Ferry-LMDB store of each kind. */
    static final List<String> KV = List.of("builtin-kv", "ferry-kv", "lmdb-kv");
    static final List<String> WIN = List.of("builtin-window", "ferry-window", "lmdb-window");
    static final List<String> SES = List.of("builtin-session", "ferry-session", "lmdb-session");
    static final List<List<String>> KINDS = List.of(KV, WIN, SES);
    /** The scope in each kind's tag ({@code <scope>-state-id}), RocksDB's and LMDB's. */
    static final List<String> SCOPES = List.of("rocksdb", "rocksdb-window", "rocksdb-session");

    /**
     * Memtables of 64 KiB in both RocksDB stores (the built-in one through its config setter,
     * Ferry's through {@code ferry.rocksdb.options}), so that a few MB of writes flush and compact.
     * Kafka 4.3's stores no longer flush on commit: without this only a 16 MiB memtable would.
     */
    static final int WRITE_BUFFER = 64 << 10;
    static final int RECORDS = 1500;
    static final int KEYS = 1200;
    static final int VALUE_BYTES = 1000;
    /** The prefix of a record that only reads. */
    static final String READ = "read:";

    /** Small memtables for the built-in store. */
    public static final class SmallMemtables implements RocksDBConfigSetter {
        @Override
        public void setConfig(String storeName, Options options, Map<String, Object> configs) {
            options.setWriteBufferSize(WRITE_BUFFER);
        }

        @Override
        public void close(String storeName, Options options) {
        }
    }

    /**
     * The topology: source {@code in}, one processor writing into the nine stores.
     *
     * @param streamsMetrics receives the processor's context's metrics: Kafka's, with the RocksDB
     *        metrics recording trigger
     * @param processed counts the records processed
     */
    static Topology topology(AtomicReference<StreamsMetricsImpl> streamsMetrics, AtomicLong processed) {
        Topology t = new Topology();
        t.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        t.addProcessor("writer", () -> new Writer(streamsMetrics, processed), "in");
        List<KeyValueBytesStoreSupplier> kv = List.of(Stores.persistentKeyValueStore(KV.get(0)),
                FerryStores.persistentKeyValueStore(KV.get(1)), FerryStores.lmdbKeyValueStore(KV.get(2)));
        List<WindowBytesStoreSupplier> win = List.of(Stores.persistentWindowStore(WIN.get(0), RETENTION, WINDOW, false),
                FerryStores.persistentWindowStore(WIN.get(1), RETENTION, WINDOW, false),
                FerryStores.lmdbWindowStore(WIN.get(2), RETENTION, WINDOW, false));
        List<SessionBytesStoreSupplier> ses = List.of(Stores.persistentSessionStore(SES.get(0), RETENTION),
                FerryStores.persistentSessionStore(SES.get(1), RETENTION), FerryStores.lmdbSessionStore(SES.get(2), RETENTION));
        kv.forEach(s -> t.addStateStore(Stores.keyValueStoreBuilder(s, Serdes.String(), Serdes.String()).withCachingDisabled(), "writer"));
        win.forEach(s -> t.addStateStore(Stores.windowStoreBuilder(s, Serdes.String(), Serdes.String()).withCachingDisabled(), "writer"));
        ses.forEach(s -> t.addStateStore(Stores.sessionStoreBuilder(s, Serdes.String(), Serdes.String()).withCachingDisabled(), "writer"));
        return t;
    }

    /**
     * Writes every record into every store (every tenth deletes its key from the key-value stores)
     * and reads it back, and reads a key that is not there; a record keyed {@code read:<key>} only
     * reads, twice: the key, and every window and session of the key whenever written.
     */
    static final class Writer implements Processor<String, String, Void, Void> {
        private final AtomicReference<StreamsMetricsImpl> streamsMetrics;
        private final AtomicLong processed;
        private final List<KeyValueStore<String, String>> kv = new ArrayList<>();
        private final List<WindowStore<String, String>> win = new ArrayList<>();
        private final List<SessionStore<String, String>> ses = new ArrayList<>();
        private long n;

        Writer(AtomicReference<StreamsMetricsImpl> streamsMetrics, AtomicLong processed) {
            this.streamsMetrics = streamsMetrics;
            this.processed = processed;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            streamsMetrics.set((StreamsMetricsImpl) context.metrics());
            KV.forEach(s -> kv.add(context.getStateStore(s)));
            WIN.forEach(s -> win.add(context.getStateStore(s)));
            SES.forEach(s -> ses.add(context.getStateStore(s)));
        }

        @Override
        public void process(Record<String, String> r) {
            long ts = r.timestamp();
            boolean readOnly = r.key().startsWith(READ);
            String key = readOnly ? r.key().substring(READ.length()) : r.key();
            long start = ts - ts % WINDOW.toMillis();
            boolean delete = !readOnly && ++n % 10 == 0;
            for (int i = 0; i < (readOnly ? 2 : 1); i++) {
                for (KeyValueStore<String, String> s : kv) {
                    if (!readOnly) {
                        s.put(key, delete ? null : r.value());
                    }
                    s.get(key);
                    s.get(key + "-absent");
                }
                for (WindowStore<String, String> s : win) {
                    if (readOnly) { // every window of the key, whenever it was written (table files by now)
                        try (WindowStoreIterator<String> it = s.fetch(key, 0L, ts)) {
                            it.forEachRemaining(x -> { });
                        }
                    } else {
                        s.put(key, r.value(), start);
                        s.fetch(key, start);
                    }
                }
                for (SessionStore<String, String> s : ses) {
                    if (readOnly) {
                        try (KeyValueIterator<Windowed<String>, String> it = s.fetch(key)) {
                            it.forEachRemaining(x -> { });
                        }
                    } else {
                        s.put(new Windowed<>(key, new SessionWindow(ts, ts)), r.value());
                        s.fetchSession(key, ts, ts);
                    }
                }
            }
            processed.incrementAndGet();
        }
    }

    /**
     * The application's configuration: a recording level, no record cache, 64 KiB memtables in both
     * RocksDB stores.
     */
    static Properties props(String level, Path stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-metrics");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, level);
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, SmallMemtables.class);
        p.put(FerryStoreConfig.ROCKSDB_OPTIONS, "write_buffer_size=" + WRITE_BUFFER);
        return p;
    }

    /**
     * The metrics of every store read before the workload, every 100 records during it and after it
     * (a gauge such as a memtable's size may come back to its first value at the end: it moved if it
     * changed at any of these moments), their tags, and the number of live keys written.
     */
    record Run(List<Map<String, Map<String, Object>>> samples, Map<String, Map<String, Set<String>>> tags, long liveKeys) {
        Map<String, Map<String, Object>> before() {
            return samples.get(0);
        }

        Map<String, Map<String, Object>> after() {
            return samples.get(samples.size() - 1);
        }

        Set<String> names(String store) {
            return after().get(store).keySet();
        }

        boolean moved(String store, String metric) {
            return moved(samples, store, metric);
        }

        static boolean moved(List<Map<String, Map<String, Object>>> samples, String store, String metric) {
            Object first = samples.get(0).get(store).get(metric);
            return samples.stream().anyMatch(s -> !Objects.equals(first, s.get(store).get(metric)));
        }

        Set<String> movedOf(String store, Set<String> metrics) {
            return metrics.stream().filter(m -> moved(store, m)).collect(Collectors.toCollection(TreeSet::new));
        }

        double value(String store, String metric) {
            Object v = after().get(store).get(metric);
            assertNotNull(v, store + " " + metric);
            return ((Number) v).doubleValue();
        }
    }

    /**
     * Opens the topology at a recording level, runs Kafka's RocksDB metrics recording trigger once,
     * reads every store's metrics, writes {@link #RECORDS} records of {@link #VALUE_BYTES} bytes
     * (flushes and compactions follow), reads 300 of the first keys twice (from table files by then),
     * waits for RocksDB's background work to end, runs the trigger again and reads the metrics again.
     */
    Run run(String level) throws InterruptedException {
        AtomicReference<StreamsMetricsImpl> streamsMetrics = new AtomicReference<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(streamsMetrics, new AtomicLong()),
                props(level, tmp.resolve("state")))) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            StreamsMetricsImpl m = streamsMetrics.get();
            assertNotNull(m, "the processor's context has Kafka's metrics");
            m.rocksDBMetricsRecordingTrigger().run();
            List<Map<String, Map<String, Object>>> samples = new ArrayList<>();
            samples.add(snapshot(driver));

            pipeInputs(in, () -> samples.add(snapshot(driver)));
            waitForBackgroundWork(driver);
            m.rocksDBMetricsRecordingTrigger().run();
            Map<String, Map<String, Set<String>>> tags = new TreeMap<>();
            for (List<String> kind : KINDS) {
                for (String s : kind) {
                    tags.put(s, tagKeys(driver.metrics(), s));
                }
            }
            samples.add(snapshot(driver));
            return new Run(samples, tags, liveKeys());
        }
    }

    /** Pipes {@link #inputs()} into the topic, from now on, sampling after every 100 records. */
    static void pipeInputs(TestInputTopic<String, String> in, Runnable sample) {
        Instant t0 = Instant.now();
        List<Input> inputs = inputs();
        for (int i = 0; i < inputs.size(); i++) {
            in.pipeInput(inputs.get(i).key(), inputs.get(i).value(), t0.plusMillis(inputs.get(i).offsetMillis()));
            if (i % 100 == 99) {
                sample.run();
            }
        }
    }

    /** One input record: key, value and its time after the first record's. */
    record Input(String key, String value, long offsetMillis) {
    }

    /**
     * The input: {@link #RECORDS} writes of {@link #VALUE_BYTES} bytes over {@link #KEYS} keys (the
     * processor deletes on every tenth), then reads of the first 300 keys.
     */
    static List<Input> inputs() {
        Random r = new Random(7);
        List<Input> out = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            String key = "k" + String.format("%04d", r.nextInt(KEYS));
            byte[] v = new byte[VALUE_BYTES];
            for (int j = 0; j < v.length; j++) {
                v[j] = (byte) ('a' + r.nextInt(26));
            }
            out.add(new Input(key, new String(v, StandardCharsets.US_ASCII), i));
        }
        for (int i = 0; i < 300; i++) {
            out.add(new Input(READ + "k" + String.format("%04d", i), "", RECORDS + i));
        }
        return out;
    }

    /** The number of keys live in the key-value stores after {@link #inputs()}. */
    static long liveKeys() {
        Map<String, Boolean> live = new HashMap<>();
        long n = 0;
        for (Input i : inputs()) {
            if (!i.key().startsWith(READ)) {
                live.put(i.key(), ++n % 10 != 0);
            }
        }
        return live.values().stream().filter(b -> b).count();
    }

    /**
     * Until no RocksDB store has a flush pending or a flush or compaction running, twice in a row
     * 200 ms apart (at most 60 s). Not {@code compaction-pending}: the built-in store's universal
     * compaction may keep reporting one pending that it does not start.
     */
    static void waitForBackgroundWork(TopologyTestDriver driver) throws InterruptedException {
        waitForBackgroundWork(driver, KINDS.stream().flatMap(k -> k.subList(0, 2).stream()).collect(Collectors.toList()));
    }

    /** As {@link #waitForBackgroundWork(TopologyTestDriver)}, for the given RocksDB stores. */
    static void waitForBackgroundWork(TopologyTestDriver driver, List<String> stores) throws InterruptedException {
        List<String> busy = List.of("num-running-flushes", "num-running-compactions", "mem-table-flush-pending");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int quiet = 0;
        while (quiet < 2) {
            List<String> working = new ArrayList<>();
            for (String s : stores) {
                Map<String, Object> v = values(driver.metrics(), s);
                for (String b : busy) {
                    if (((Number) v.get(b)).longValue() != 0) {
                        working.add(s + " " + b);
                    }
                }
            }
            quiet = working.isEmpty() ? quiet + 1 : 0;
            if (System.nanoTime() > deadline) {
                fail("RocksDB still busy after 60 s: " + working);
            }
            Thread.sleep(200);
        }
    }

    static Map<String, Map<String, Object>> snapshot(TopologyTestDriver driver) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (List<String> kind : KINDS) {
            for (String s : kind) {
                out.put(s, values(driver.metrics(), s));
            }
        }
        return out;
    }

    /** The metrics of one store in {@code stream-state-metrics} (any {@code *-state-id} tag naming it), by name. */
    static Map<String, Object> values(Map<MetricName, ? extends Metric> all, String store) {
        Map<String, Object> out = new TreeMap<>();
        all.forEach((n, m) -> {
            if (ofStore(n, store)) {
                out.put(n.name(), m.metricValue());
            }
        });
        return out;
    }

    /** The tag keys of one store's metrics, by metric name. */
    static Map<String, Set<String>> tagKeys(Map<MetricName, ? extends Metric> all, String store) {
        Map<String, Set<String>> out = new TreeMap<>();
        all.keySet().stream().filter(n -> ofStore(n, store)).forEach(n -> out.put(n.name(), new TreeSet<>(n.tags().keySet())));
        return out;
    }

    static boolean ofStore(MetricName n, String store) {
        return n.group().equals(GROUP)
                && n.tags().entrySet().stream().anyMatch(t -> t.getKey().endsWith("-state-id") && t.getValue().equals(store));
    }

    static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new TreeSet<>(a);
        u.addAll(b);
        return u;
    }

    /** Statistics-based metrics this workload moves on every RocksDB store (at DEBUG). */
    static final Set<String> MOVING_DEBUG = new TreeSet<>(List.of(
            "bytes-written-rate", "bytes-written-total", "bytes-read-rate", "bytes-read-total",
            "memtable-bytes-flushed-rate", "memtable-bytes-flushed-total", "memtable-hit-ratio",
            "memtable-flush-time-avg", "memtable-flush-time-min", "memtable-flush-time-max",
            "block-cache-data-hit-ratio", "bytes-read-compaction-rate", "bytes-written-compaction-rate",
            "compaction-time-avg", "compaction-time-min", "compaction-time-max", "number-open-files"));
    /** Property-based metrics this workload moves on every RocksDB store (at every level). */
    static final Set<String> MOVING_INFO = new TreeSet<>(List.of(
            "cur-size-active-mem-table", "cur-size-all-mem-tables", "size-all-mem-tables", "num-entries-active-mem-table",
            "estimate-num-keys", "total-sst-files-size", "live-sst-files-size", "block-cache-usage"));
    /** LMDB metrics this workload moves. */
    static final Set<String> MOVING_LMDB = new TreeSet<>(List.of("estimate-num-keys", "data-file-size", "map-size-used"));

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"DEBUG", "INFO"})
    void ferryRocksDbStoresReportTheBuiltInStoresMetricsPresentAndMoving(String level) throws Exception {
        Run run = run(level);
        for (int k = 0; k < KINDS.size(); k++) {
            String builtIn = KINDS.get(k).get(0), ferry = KINDS.get(k).get(1);
            String idTag = SCOPES.get(k) + "-state-id";
            System.out.println(level + " " + builtIn + " / " + ferry + ": " + run.names(ferry).size() + " metrics, RocksDB's moved: "
                    + run.movedOf(builtIn, union(ROCKSDB_DEBUG, ROCKSDB_INFO)) + " / " + run.movedOf(ferry, union(ROCKSDB_DEBUG, ROCKSDB_INFO)));

            assertEquals(run.names(builtIn), run.names(ferry), "the same metric names as the built-in store: " + ferry);
            assertTrue(run.names(ferry).containsAll(union(ROCKSDB_DEBUG, ROCKSDB_INFO)),
                    "every RocksDB metric present: missing " + missing(run.names(ferry), union(ROCKSDB_DEBUG, ROCKSDB_INFO)));
            assertEquals(run.tags().get(builtIn), run.tags().get(ferry), "the same tags as the built-in store: " + ferry);
            for (Set<String> tags : run.tags().get(ferry).values()) {
                assertEquals(new TreeSet<>(List.of("thread-id", "task-id", idTag)), tags, ferry);
            }
            assertEquals(run.value(builtIn, "block-cache-capacity"), run.value(ferry, "block-cache-capacity"));
            assertTrue(run.value(ferry, "block-cache-capacity") > 0);

            if (level.equals("DEBUG")) {
                assertEquals(MOVING_DEBUG, run.movedOf(builtIn, MOVING_DEBUG), "the workload moves these on the built-in store");
                assertEquals(MOVING_DEBUG, run.movedOf(ferry, MOVING_DEBUG), "statistics-based metrics moving: " + ferry);
                if (k == 0) { // before the first flush: RocksDB's empty histogram, both stores
                    assertEquals(run.before().get(builtIn).get("memtable-flush-time-min"), run.before().get(ferry).get("memtable-flush-time-min"));
                    assertEquals(FerryStoreMetrics.EMPTY_HISTOGRAM_MIN, ((Number) run.before().get(ferry).get("memtable-flush-time-min")).doubleValue());
                }
                double min = run.value(ferry, "memtable-flush-time-min"), max = run.value(ferry, "memtable-flush-time-max");
                double avg = run.value(ferry, "memtable-flush-time-avg");
                assertTrue(0 < min && min <= avg && avg <= max, "flush time min " + min + " <= avg " + avg + " <= max " + max);
                assertTrue(run.value(ferry, "memtable-hit-ratio") > 0 && run.value(ferry, "memtable-hit-ratio") <= 1);
                assertTrue(run.value(ferry, "bytes-written-total") > RECORDS * 9L / 10 * VALUE_BYTES, // a tenth are deletes
                        "bytes written " + run.value(ferry, "bytes-written-total"));
            } else {
                assertEquals(Set.of(), run.movedOf(builtIn, ROCKSDB_DEBUG), "statistics-based metrics record nothing at INFO (built-in)");
                assertEquals(Set.of(), run.movedOf(ferry, ROCKSDB_DEBUG), "statistics-based metrics record nothing at INFO: " + ferry);
            }
            assertEquals(MOVING_INFO, run.movedOf(builtIn, MOVING_INFO), "the workload moves these on the built-in store");
            assertEquals(MOVING_INFO, run.movedOf(ferry, MOVING_INFO), "property-based metrics moving: " + ferry);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"DEBUG", "INFO"})
    void ferryLmdbStoresReportTheirMetricsPresentAndMoving(String level) throws Exception {
        Run run = run(level);
        for (int k = 0; k < KINDS.size(); k++) {
            String builtIn = KINDS.get(k).get(0), lmdb = KINDS.get(k).get(2);
            String idTag = SCOPES.get(k).replace("rocksdb", "lmdb") + "-state-id";
            System.out.println(level + " " + lmdb + ": " + run.names(lmdb).size() + " metrics, LMDB's " + run.after().get(lmdb).entrySet()
                    .stream().filter(e -> LMDB.contains(e.getKey())).collect(Collectors.toList()));

            Set<String> expected = new TreeSet<>(run.names(builtIn));
            expected.removeAll(union(ROCKSDB_DEBUG, ROCKSDB_INFO));
            expected.addAll(LMDB);
            assertEquals(expected, run.names(lmdb), "the built-in store's names with LMDB's in place of RocksDB's: " + lmdb);
            for (Set<String> tags : run.tags().get(lmdb).values()) {
                assertEquals(new TreeSet<>(List.of("thread-id", "task-id", idTag)), tags, lmdb);
            }
            assertEquals(MOVING_LMDB, run.movedOf(lmdb, MOVING_LMDB), "LMDB metrics moving: " + lmdb);
            assertTrue(run.value(lmdb, "map-size") >= run.value(lmdb, "map-size-used"));
            assertTrue(run.value(lmdb, "map-size-used") > (long) KEYS / 2 * VALUE_BYTES);
            assertTrue(run.value(lmdb, "data-file-size") >= run.value(lmdb, "map-size-used"));
            assertTrue(run.value(lmdb, "max-readers") > 0);
            assertTrue(run.value(lmdb, "num-readers") >= 0 && run.value(lmdb, "num-readers") <= run.value(lmdb, "max-readers"));
        }
        // exact on LMDB: the live keys plus the offsets family's three entries, the committed changelog
        // offset (one partition), the query position and the open/closed status (exactly-once)
        assertEquals(run.liveKeys() + 3, (long) run.value(KV.get(2), "estimate-num-keys"));
    }

    @Test
    void theStatisticsTheRecorderReadsExistInTheRunningRocksDb() {
        try (Store s = Store.open(tmp.resolve("stats"), StoreOptions.of(Engine.ROCKSDB).statistics(true))) {
            Statistics st = s.statistics();
            assertEquals(Set.of(), missing(st.tickers().keySet(), new TreeSet<>(FerryStoreMetrics.TICKERS)), "tickers");
            assertEquals(Set.of(), missing(st.histograms().keySet(), new TreeSet<>(FerryStoreMetrics.HISTOGRAMS)), "histograms");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ROCKSDB", "LMDB"})
    void metricsReadWhileTheStoreClosesNeverFailAndReadZeroAfter(String engine) throws Exception {
        TestContext ctx = new TestContext(tmp.toFile());
        ctx.configs.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
        StreamsMetricsImpl m = (StreamsMetricsImpl) ctx.metrics();
        FerryKeyValueStore store = new FerryKeyValueStore("race", Engine.valueOf(engine));
        store.init(ctx, store);
        for (int i = 0; i < 2000; i++) {
            store.put(Bytes.wrap(("k" + i).getBytes(StandardCharsets.UTF_8)), new byte[100]);
        }
        Set<String> gauges = engine.equals("LMDB") ? LMDB : ROCKSDB_INFO;
        assertTrue(gauges.stream().anyMatch(g -> !BigInteger.ZERO.equals(values(m.metrics(), "race").get(g))), "gauges read the open store");

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong reads = new AtomicLong();
        Thread reader = new Thread(() -> {
            try {
                while (!stop.get()) { // every metric's value and a recording, as a reporter and Kafka's trigger do
                    m.metrics().values().forEach(Metric::metricValue);
                    m.rocksDBMetricsRecordingTrigger().run();
                    reads.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "metrics-reader");
        reader.start();
        while (reads.get() < 20 && failure.get() == null) {
            Thread.sleep(5);
        }
        store.close();
        long atClose = reads.get();
        while (reads.get() < atClose + 20 && failure.get() == null) {
            Thread.sleep(5);
        }
        stop.set(true);
        reader.join(30_000);
        assertFalse(reader.isAlive());
        assertEquals(null, failure.get(), "reading metrics while the store closed");
        Map<String, Object> after = values(m.metrics(), "race");
        for (String g : gauges) {
            assertEquals(BigInteger.ZERO, after.get(g), g + " after close");
        }
    }

    static Set<String> missing(Set<String> have, Set<String> want) {
        Set<String> m = new TreeSet<>(want);
        m.removeAll(have);
        return m;
    }
}
