package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Switching a running application from Kafka's built-in store to Ferry's without a full restore, against a
 * real broker (the in-process KRaft node of {@link BrokerEndToEndTest}): a word count runs on the built-in
 * store (the DSL's default) and stops; another instance of the application, on an empty state directory,
 * counts more words meanwhile (the changelog's tail beyond the stopped instance's offsets); then the first
 * instance restarts with {@link FerryDslStoreSuppliers}. Its Ferry stores import the built-in stores and
 * restore only that tail, and every count stays right and goes on right. Going back to the built-in store
 * afterwards restores what the changelog got since its own stop.
 */
class SwitchFromBuiltInTest {
    private static final String APP = "ferry-switch";
    private static final String IN = "words";
    private static final String OUT = "word-counts";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "ferry.dsl.engine={0}")
    @ValueSource(strings = {"rocksdb", "lmdb"})
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void switchingToFerryRestoresOnlyTheChangelogsTailAndCountsStayRight(String engine) throws Exception {
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1), new NewTopic(OUT, PARTITIONS, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }
            Map<String, Long> expected = new TreeMap<>();
            Random r = new Random(11);
            Path stateA = tmp.resolve("state-a");

            // 1. the built-in store
            produce(bootstrap, r, 3000, expected);
            AtomicLong restored = new AtomicLong();
            try (KafkaStreams a = streams(bootstrap, stateA, null, restored)) {
                a.start();
                waitFor("the built-in run's counts", () -> latestCounts(bootstrap).equals(expected));
                a.close(Duration.ofSeconds(30));
            }
            assertEquals(0, restored.get(), "the first run starts from an empty changelog");
            assertEquals(PARTITIONS, storeDirs(stateA, "rocksdb"), "the built-in stores hold the state");

            // 2. the changelog grows beyond the stopped instance's offsets: another instance counts more words
            int tail = 700;
            produce(bootstrap, r, tail, expected);
            AtomicLong restoredB = new AtomicLong();
            try (KafkaStreams b = streams(bootstrap, tmp.resolve("state-b"), engine, restoredB)) {
                b.start();
                waitFor("the other instance's counts", () -> latestCounts(bootstrap).equals(expected));
                b.close(Duration.ofSeconds(30));
            }
            assertEquals(3000, restoredB.get(), "the other instance restored the whole changelog (no built-in store to import)");

            // 3. the first instance again, on Ferry's stores
            restored.set(0);
            try (KafkaStreams a = streams(bootstrap, stateA, engine, restored)) {
                a.start();
                waitFor("the Ferry run running", () -> a.state() == KafkaStreams.State.RUNNING && storeDirs(stateA, "ferry") == PARTITIONS);
                produce(bootstrap, r, 1000, expected);
                waitFor("every count after the switch", () -> latestCounts(bootstrap).equals(expected));
                // every task restored before it processed the new words
                assertEquals(tail, restored.get(), "restored from the changelog: only the tail written after the stop");
                a.close(Duration.ofSeconds(30));
            }
            assertEquals(PARTITIONS, storeDirs(stateA, "rocksdb"), "the built-in stores are left in place");

            // 4. back to the built-in store: it resumes from its own offsets (those of step 1) and restores what was written since
            restored.set(0);
            try (KafkaStreams a = streams(bootstrap, stateA, null, restored)) {
                a.start();
                produce(bootstrap, r, 300, expected);
                waitFor("every count after going back", () -> latestCounts(bootstrap).equals(expected));
                assertEquals(tail + 1000, restored.get(), "the built-in store restored what the changelog got after its stop, no more");
                a.close(Duration.ofSeconds(30));
            }
        }
    }

    private static void produce(String bootstrap, Random r, int n, Map<String, Long> expected) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                String w = "w" + r.nextInt(300);
                expected.merge(w, 1L, Long::sum);
                producer.send(new ProducerRecord<>(IN, w, w));
            }
            producer.flush();
        }
    }

    /** The word count; on the built-in store when {@code engine} is null, else under FerryDslStoreSuppliers on that engine. */
    private static KafkaStreams streams(String bootstrap, Path stateDir, String engine, AtomicLong restored) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        if (engine != null) {
            p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, FerryDslStoreSuppliers.class);
            p.put(FerryStoreConfig.DSL_ENGINE, engine);
        }
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(p)));
        builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.<String, Long, org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>>as("counts")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream().to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        KafkaStreams s = new KafkaStreams(builder.build(), p);
        s.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {
                restored.addAndGet(n);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
            }
        });
        return s;
    }

    /** Tasks whose store directory {@code <task>/<kind>/counts} exists. */
    private static int storeDirs(Path stateDir, String kind) {
        int n = 0;
        for (int t = 0; t < PARTITIONS; t++) {
            if (Files.isDirectory(stateDir.resolve(APP).resolve("0_" + t).resolve(kind).resolve("counts"))) {
                n++;
            }
        }
        return n;
    }

    private final Map<TopicPartition, Long> readUpTo = new HashMap<>();
    private final Map<String, Long> latest = new HashMap<>();

    /** The latest count per word on the output topic (read incrementally). */
    private Map<String, Long> latestCounts(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < PARTITIONS; i++) {
                tps.add(new TopicPartition(OUT, i));
            }
            c.assign(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(10));
            for (TopicPartition tp : tps) {
                c.seek(tp, readUpTo.getOrDefault(tp, 0L));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline && tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                for (ConsumerRecord<String, Long> rec : c.poll(Duration.ofMillis(200))) {
                    latest.put(rec.key(), rec.value());
                }
            }
            for (TopicPartition tp : tps) {
                readUpTo.put(tp, c.position(tp));
            }
        }
        return new TreeMap<>(latest);
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT + " waiting for " + what);
            }
            Thread.sleep(200);
        }
    }
}
