package dev.ferry.kafka;

import static dev.ferry.kafka.FerryStoreMetricsTest.LMDB;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_DEBUG;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_INFO;
import static dev.ferry.kafka.FerryStoreMetricsTest.MOVING_LMDB;
import static dev.ferry.kafka.FerryStoreMetricsTest.ROCKSDB_DEBUG;
import static dev.ferry.kafka.FerryStoreMetricsTest.ROCKSDB_INFO;
import static dev.ferry.kafka.FerryStoreMetricsTest.missing;
import static dev.ferry.kafka.FerryStoreMetricsTest.union;
import static dev.ferry.kafka.FerryStoreMetricsTest.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's state store metrics of Ferry's stores read through {@link KafkaStreams#metrics()}, against
 * a real broker (KRaft, in this JVM): the topology of {@link FerryStoreMetricsTest} (a built-in,
 * a Ferry-RocksDB and a Ferry-LMDB store of each kind), and that of {@link VersionedStoreMetricsTest}
 * (the same for versioned stores), at recording level DEBUG. Nothing drives the
 * recording but Kafka Streams itself: its RocksDB metrics recording trigger runs once a minute, so
 * the test waits for that run (about a minute). Both topologies run at once, as two applications on one
 * broker, so that they wait for the trigger together.
 */
class BrokerMetricsEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    /**
     * One application of the test: its topology, its processed-record count, per kind of store the built-in, the
     * Ferry-RocksDB and the Ferry-LMDB store's names, per kind the built-in store's metrics scope, and whether it
     * is the key-value topology (whose LMDB key count is exact).
     */
    private record App(String id, org.apache.kafka.streams.Topology topology, AtomicLong processed, List<List<String>> kinds,
                       List<String> scopes, boolean keyValue) {
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void kafkaStreamsReportsTheBuiltInStoresMetricsForFerryStoresAndFerryVersionedStoresPresentAndMoving() throws Exception {
        AtomicLong processed = new AtomicLong();
        AtomicLong processedVersioned = new AtomicLong();
        run(List.of(new App("ferry-metrics", FerryStoreMetricsTest.topology(new AtomicReference<StreamsMetricsImpl>(), processed),
                        processed, FerryStoreMetricsTest.KINDS, FerryStoreMetricsTest.SCOPES, true),
                // the same for versioned stores: the topology of VersionedStoreMetricsTest
                new App("ferry-metrics-versioned", VersionedStoreMetricsTest.topology(new AtomicReference<StreamsMetricsImpl>(),
                        processedVersioned), processedVersioned, List.of(VersionedStoreMetricsTest.STORES), List.of("rocksdb"), false)));
    }

    /**
     * Runs the applications at once, each writing {@link FerryStoreMetricsTest#inputs()} into its stores, and compares
     * their stores' metrics.
     */
    private void run(List<App> apps) throws Exception {
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic("in", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }
            List<KafkaStreams> streams = new ArrayList<>();
            try {
                for (App app : apps) {
                    Properties p = FerryStoreMetricsTest.props("DEBUG", tmp.resolve("state-" + app.id()));
                    p.put(StreamsConfig.APPLICATION_ID_CONFIG, app.id());
                    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
                    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
                    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
                    streams.add(new KafkaStreams(app.topology(), p));
                }
                long started = System.nanoTime();
                streams.forEach(KafkaStreams::start);
                // per application, every store's metrics, read before the input, every half second while it is processed and at the end
                List<List<Map<String, Map<String, Object>>>> samples = new ArrayList<>();
                for (int a = 0; a < apps.size(); a++) {
                    KafkaStreams s = streams.get(a);
                    App app = apps.get(a);
                    waitFor(app.id() + ": every store's metrics registered", WAIT, () -> app.kinds().stream().flatMap(List::stream)
                            .allMatch(n -> values(s.metrics(), n).containsKey("put-rate")));
                    samples.add(new ArrayList<>(List.of(snapshot(s, app.kinds()))));
                }

                List<FerryStoreMetricsTest.Input> inputs = FerryStoreMetricsTest.inputs();
                long t0 = System.currentTimeMillis();
                Properties pp = new Properties();
                pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
                pp.put(ProducerConfig.ACKS_CONFIG, "all");
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                    for (FerryStoreMetricsTest.Input i : inputs) {
                        producer.send(new ProducerRecord<>("in", 0, t0 + i.offsetMillis(), i.key(), i.value()));
                    }
                    producer.flush();
                }
                waitFor("every record processed", WAIT, () -> {
                    boolean done = true;
                    for (int a = 0; a < apps.size(); a++) {
                        samples.get(a).add(snapshot(streams.get(a), apps.get(a).kinds()));
                        done &= apps.get(a).processed().get() == inputs.size();
                    }
                    return done;
                });

                // the trigger runs when Kafka Streams starts, then a minute apart: wait until a run
                // after the processing has recorded on every RocksDB store
                Duration toRecording = Duration.ofMinutes(2).plus(WAIT).minusNanos(System.nanoTime() - started);
                Map<String, Set<String>> notYet = new TreeMap<>();
                waitFor(() -> "Kafka Streams' RocksDB metrics recording trigger to record every store; not moved: " + notYet,
                        toRecording, () -> {
                            notYet.clear();
                            for (int a = 0; a < apps.size(); a++) {
                                List<Map<String, Map<String, Object>>> sa = samples.get(a);
                                sa.add(snapshot(streams.get(a), apps.get(a).kinds()));
                                apps.get(a).kinds().stream().flatMap(k -> k.subList(0, 2).stream()).forEach(s -> {
                                    Set<String> m = missing(moved(sa, s, MOVING_DEBUG), MOVING_DEBUG);
                                    if (!m.isEmpty()) {
                                        notYet.put(s, m);
                                    }
                                });
                            }
                            return notYet.isEmpty();
                        });
                for (int a = 0; a < apps.size(); a++) {
                    check(apps.get(a), streams.get(a), samples.get(a));
                }
            } finally {
                streams.forEach(KafkaStreams::close);
            }
        }
    }

    /** Compares one application's stores' metrics, from its samples. */
    private static void check(App app, KafkaStreams streams, List<Map<String, Map<String, Object>>> samples) {
        List<List<String>> kinds = app.kinds();
        List<String> scopes = app.scopes();
        Map<String, Map<String, Object>> after = samples.get(samples.size() - 1);
        for (int k = 0; k < kinds.size(); k++) {
            String builtIn = kinds.get(k).get(0), ferry = kinds.get(k).get(1), lmdb = kinds.get(k).get(2);
            Set<String> rocksdb = union(ROCKSDB_DEBUG, ROCKSDB_INFO);
            System.out.println("KafkaStreams#metrics() " + builtIn + " / " + ferry + ": " + after.get(ferry).size()
                    + " metrics, RocksDB's moved: " + moved(samples, builtIn, rocksdb) + " / " + moved(samples, ferry, rocksdb));
            assertEquals(after.get(builtIn).keySet(), after.get(ferry).keySet(), "the built-in store's metric names: " + ferry);
            assertEquals(Set.of(), missing(after.get(ferry).keySet(), rocksdb), ferry);
            assertEquals(tags(streams, builtIn), tags(streams, ferry), "the built-in store's tags: " + ferry);
            assertEquals(Set.of(sorted("task-id", "thread-id", scopes.get(k) + "-state-id")), tags(streams, ferry), ferry);
            assertEquals(MOVING_DEBUG, moved(samples, builtIn, MOVING_DEBUG), builtIn);
            assertEquals(MOVING_DEBUG, moved(samples, ferry, MOVING_DEBUG), ferry);
            assertEquals(MOVING_INFO, moved(samples, builtIn, MOVING_INFO), builtIn);
            assertEquals(MOVING_INFO, moved(samples, ferry, MOVING_INFO), ferry);

            Set<String> lmdbNames = new TreeSet<>(after.get(builtIn).keySet());
            lmdbNames.removeAll(rocksdb);
            lmdbNames.addAll(LMDB);
            assertEquals(lmdbNames, after.get(lmdb).keySet(), "the built-in store's names with LMDB's in place of RocksDB's");
            assertEquals(Set.of(sorted("task-id", "thread-id", scopes.get(k).replace("rocksdb", "lmdb") + "-state-id")),
                    tags(streams, lmdb), lmdb);
            assertEquals(MOVING_LMDB, moved(samples, lmdb, MOVING_LMDB), lmdb);
        }
        if (!app.keyValue()) { // the key-value store's exact LMDB key count
            return;
        }
        assertEquals(FerryStoreMetricsTest.liveKeys() + 3,
                ((Number) after.get(kinds.get(0).get(2)).get("estimate-num-keys")).longValue(),
                "LMDB's key count is exact: the live keys, the committed changelog offset, the query position and the open/closed status");
        assertTrue(((Number) after.get(kinds.get(0).get(1)).get("estimate-num-keys")).longValue() > 0);
    }

    private static Map<String, Map<String, Object>> snapshot(KafkaStreams streams, List<List<String>> kinds) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        kinds.stream().flatMap(List::stream).forEach(s -> out.put(s, values(streams.metrics(), s)));
        return out;
    }

    /** The metrics that changed between any two samples. */
    private static Set<String> moved(List<Map<String, Map<String, Object>>> samples, String store, Set<String> metrics) {
        return metrics.stream().filter(m -> FerryStoreMetricsTest.Run.moved(samples, store, m))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The distinct sorted tag key lists of a store's metrics. */
    private static Set<List<String>> tags(KafkaStreams streams, String store) {
        return FerryStoreMetricsTest.tagKeys(streams.metrics(), store).values().stream()
                .map(t -> List.copyOf(new TreeSet<>(t))).collect(Collectors.toSet());
    }

    private static List<String> sorted(String... s) {
        return List.copyOf(new TreeSet<>(List.of(s)));
    }

    private static void waitFor(String what, Duration wait, BooleanSupplier condition) throws InterruptedException {
        waitFor(() -> what, wait, condition);
    }

    private static void waitFor(Supplier<String> what, Duration wait, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + wait.toSeconds() + " s waiting for " + what.get());
            }
            Thread.sleep(500);
        }
    }
}
