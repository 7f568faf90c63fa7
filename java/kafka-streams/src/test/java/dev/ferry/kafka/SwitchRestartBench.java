package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures the restart of an application switched from the built-in store to Ferry's: with the import
 * (the built-in state directory kept) against a full restore (an empty state directory), interleaved turn
 * by turn, on an in-process broker. Not a test: runs only with {@code -Dferry.switch.bench=true} and prints
 * a table (docs/kafka-streams.md, "Switching from the built-in store"). {@code -Dferry.switch.records=N}
 * (default 1,000,000), {@code -Dferry.switch.turns=T} (default 3), {@code -Dferry.switch.engine=rocksdb|lmdb},
 * {@code -Dferry.switch.store=kv|window} (default kv).
 *
 * <p>The application: {@code builder.table(in, Materialized.as("kv"))} on 4 partitions, 16-byte keys,
 * 100-byte values, every key once; with {@code window}, a windowed reduce keeping each key's latest value per
 * hour ({@code stream(in).groupByKey().windowedBy(1 hour).reduce(latest, Materialized.as("kv"))}, the built-in
 * store a segmented timestamped window store) over the same records. Restart time: from {@code start()} until a probe record written to each
 * input partition just before it has come out of the topology, so the restoration of every task, the import
 * included, is inside it.
 */
@EnabledIfSystemProperty(named = "ferry.switch.bench", matches = "true")
class SwitchRestartBench {
    private static final String APP = "ferry-switch-bench";
    private static final String IN = "in";
    private static final String OUT = "out";
    private static final int PARTITIONS = 4;

    @TempDir
    Path tmp;

    /** Whether the application is the windowed reduce (else the table). */
    private static boolean window;

    @Test
    void restartWithImportAgainstFullRestore() throws Exception {
        long n = Long.getLong("ferry.switch.records", 1_000_000L);
        int turns = Integer.getInteger("ferry.switch.turns", 3);
        String engine = System.getProperty("ferry.switch.engine", "rocksdb");
        window = "window".equals(System.getProperty("ferry.switch.store", "kv"));
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1), new NewTopic(OUT, PARTITIONS, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }
            long t0 = System.nanoTime();
            produce(bootstrap, n);
            System.out.printf("produced %,d records in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
            Path builtInState = tmp.resolve("state-builtin");
            t0 = System.nanoTime();
            try (KafkaStreams s = streams(bootstrap, builtInState, null, new AtomicLong())) {
                s.start();
                waitForChangelog(bootstrap, n);
                close(s);
            }
            System.out.printf("built-in run: %,d records into the built-in stores in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

            System.out.println("| turn | with import: restart s | records restored | full restore: restart s | records restored | speed-up |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            for (int t = 1; t <= turns; t++) {
                for (Path task : taskDirs(builtInState)) { // the previous turn's Ferry stores: import again
                    BuiltInImport.deleteTree(task.resolve("ferry"));
                }
                AtomicLong restoredImport = new AtomicLong();
                double withImport = restart(bootstrap, builtInState, engine, restoredImport, "import-" + t);
                Path empty = tmp.resolve("state-empty-" + t);
                AtomicLong restoredFull = new AtomicLong();
                double full = restart(bootstrap, empty, engine, restoredFull, "full-" + t);
                BuiltInImport.deleteTree(empty);
                System.out.printf("| %d | %.2f | %,d | %.2f | %,d | %.1fx |%n", t, withImport, restoredImport.get(), full,
                        restoredFull.get(), full / withImport);
                // the probes of earlier restarts are in the changelog too: a full restore restores them, the import's restart them only
                assertTrue(restoredFull.get() >= n, "a full restore restores every record");
            }
        }
    }

    /** Starts the application on Ferry's stores, waits until a probe per partition came out; returns the seconds. */
    private static double restart(String bootstrap, Path stateDir, String engine, AtomicLong restored, String probe) throws Exception {
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(OUT, p));
            }
            c.assign(tps);
            c.seekToEnd(tps);
            tps.forEach(c::position);
            Set<String> want = new HashSet<>();
            try (KafkaProducer<byte[], byte[]> pr = producer(bootstrap)) {
                for (int p = 0; p < PARTITIONS; p++) {
                    String k = probe + "-" + p;
                    want.add(k);
                    pr.send(new ProducerRecord<>(IN, p, k.getBytes(), new byte[100]));
                }
                pr.flush();
            }
            long start = System.nanoTime();
            try (KafkaStreams s = streams(bootstrap, stateDir, engine, restored)) {
                s.start();
                while (!want.isEmpty()) {
                    for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(50))) {
                        want.remove(new String(r.key()));
                    }
                    assertTrue(System.nanoTime() - start < TimeUnit.MINUTES.toNanos(20), "restart took over 20 minutes");
                }
                double secs = (System.nanoTime() - start) / 1e9;
                close(s);
                return secs;
            }
        }
    }

    /** Closes leaving the group, so that the next start does not wait out this member's session. */
    private static void close(KafkaStreams s) {
        s.close(org.apache.kafka.streams.CloseOptions.groupMembershipOperation(
                org.apache.kafka.streams.CloseOptions.GroupMembershipOperation.LEAVE_GROUP).withTimeout(Duration.ofSeconds(60)));
    }

    private static List<Path> taskDirs(Path stateDir) throws java.io.IOException {
        try (var l = Files.list(stateDir.resolve(APP))) {
            return l.filter(Files::isDirectory).toList();
        }
    }

    private static void produce(String bootstrap, long n) {
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
            java.util.Random r = new java.util.Random(1);
            for (long i = 0; i < n; i++) {
                byte[] k = java.nio.ByteBuffer.allocate(16).putLong(r.nextLong()).putLong(i).array();
                byte[] v = new byte[100];
                r.nextBytes(v);
                p.send(new ProducerRecord<>(IN, k, v));
            }
            p.flush();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false); // the changelog is the application's to create
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Waits until the application's changelog holds n records (every input record went through the store). */
    private static void waitForChangelog(String bootstrap, long n) throws InterruptedException {
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                tps.add(new TopicPartition(APP + "-kv-changelog", p));
            }
            while (true) {
                try {
                    long sum = c.endOffsets(tps, Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum();
                    if (sum >= n) {
                        return;
                    }
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    // the changelog topic is not created yet
                }
                Thread.sleep(500);
            }
        }
    }

    /** The application; on the built-in store when {@code engine} is null, else under FerryDslStoreSuppliers. */
    private static KafkaStreams streams(String bootstrap, Path stateDir, String engine, AtomicLong restored) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        if (engine != null) {
            p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, FerryDslStoreSuppliers.class);
            p.put(FerryStoreConfig.DSL_ENGINE, engine);
        }
        StreamsBuilder b = new StreamsBuilder(new TopologyConfig(new StreamsConfig(p)));
        if (window) {
            b.stream(IN, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())).groupByKey()
                    .windowedBy(org.apache.kafka.streams.kstream.TimeWindows.ofSizeWithNoGrace(Duration.ofHours(1)))
                    .reduce((a, v) -> v, Materialized.<byte[], byte[], org.apache.kafka.streams.state.WindowStore<
                            org.apache.kafka.common.utils.Bytes, byte[]>>as("kv"))
                    .toStream((k, v) -> k.key()).to(OUT, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        } else {
            b.table(IN, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()),
                            Materialized.<byte[], byte[], org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>>as("kv"))
                    .toStream().to(OUT, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        }
        KafkaStreams s = new KafkaStreams(b.build(), p);
        s.setUncaughtExceptionHandler(e -> {
            e.printStackTrace(); // a benchmark without a logger: say why the application stopped
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        s.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long count) {
                restored.addAndGet(count);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
            }
        });
        return s;
    }
}
