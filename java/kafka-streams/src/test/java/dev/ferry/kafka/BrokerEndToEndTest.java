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
import java.util.concurrent.ConcurrentHashMap;
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
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end against a real Kafka broker (KRaft, one combined node, in this JVM, on localhost):
 * two Kafka Streams instances of one application count words into Ferry stores, one partition set
 * each; one instance closes, the survivor restores the other's partitions from the changelog into
 * its Ferry stores, and every count comes out right.
 */
class BrokerEndToEndTest {
    private static final String IN = "words";
    private static final String OUT = "word-counts";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    /**
     * A one-node KRaft cluster (broker and controller combined, listening on localhost), formatted,
     * started and ready; closed by the caller.
     */
    static KafkaClusterTestKit startCluster(Path dir) throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1)
                .setBaseDirectory(dir).build();
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(nodes)
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            String bootstrap = cluster.bootstrapServers();
            assertTrue(bootstrap.contains("localhost") || bootstrap.contains("127.0.0.1"), bootstrap);
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    @Test
    @Timeout(value = 170, unit = TimeUnit.SECONDS)
    void survivorRestoresThePartitionsOfAClosedInstanceAndEveryCountIsRight() throws Exception {
        try (KafkaClusterTestKit cluster = startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1), new NewTopic(OUT, PARTITIONS, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }

            Map<String, Long> expected = new TreeMap<>();
            Random r = new Random(42);
            produce(bootstrap, r, 2000, expected);

            AtomicLong restoredA = new AtomicLong(), restoredB = new AtomicLong();
            KafkaStreams a = streams(bootstrap, tmp.resolve("state-a"), restoredA);
            KafkaStreams b = streams(bootstrap, tmp.resolve("state-b"), restoredB);
            try {
                a.start();
                b.start();
                waitFor("both instances running", () -> a.state() == KafkaStreams.State.RUNNING && b.state() == KafkaStreams.State.RUNNING);
                waitFor("the first counts", () -> latestCounts(bootstrap).equals(expected));
                assertTrue(ferryTasks(tmp.resolve("state-a")) > 0 && ferryTasks(tmp.resolve("state-b")) > 0,
                        "both instances hold Ferry stores (state partitioned across them)");
                assertTrue(ferryTasks(tmp.resolve("state-a")) + ferryTasks(tmp.resolve("state-b")) >= PARTITIONS);
                int bTasksBefore = ferryTasks(tmp.resolve("state-b"));

                a.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30)));
                waitFor("the survivor running with every partition", () -> b.state() == KafkaStreams.State.RUNNING
                        && ferryTasks(tmp.resolve("state-b")) == PARTITIONS);
                assertTrue(bTasksBefore < PARTITIONS, "the survivor took partitions over");

                produce(bootstrap, r, 2000, expected);
                waitFor("every count after the takeover", () -> latestCounts(bootstrap).equals(expected));
                assertTrue(restoredB.get() > 0, "the survivor restored records from the changelog: " + restoredB.get());

                // interactive query over all of the survivor's Ferry stores
                Map<String, Long> queried = new TreeMap<>();
                waitFor("the survivor's stores queryable", () -> {
                    try {
                        queried.clear();
                        ReadOnlyKeyValueStore<String, Long> s = b.store(
                                StoreQueryParameters.fromNameAndType("counts", QueryableStoreTypes.keyValueStore()));
                        try (KeyValueIterator<String, Long> it = s.all()) {
                            it.forEachRemaining(kv -> queried.put(kv.key, kv.value));
                        }
                        return true;
                    } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
                        return false; // still rebalancing
                    }
                });
                assertEquals(expected, queried);
            } finally {
                a.close(Duration.ofSeconds(30));
                b.close(Duration.ofSeconds(30));
            }
        }
    }

    private static void produce(String bootstrap, Random r, int n, Map<String, Long> expected) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                String w = "w" + (r.nextInt(4) == 0 ? r.nextInt(5) : r.nextInt(150));
                expected.merge(w, 1L, Long::sum);
                producer.send(new ProducerRecord<>(IN, w, w));
            }
            producer.flush();
        }
    }

    private static KafkaStreams streams(String bootstrap, Path stateDir, AtomicLong restored) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.<String, Long>as(FerryStores.persistentTimestampedKeyValueStore("counts"))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream().to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-e2e");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
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

    /** Tasks (partitions) whose Ferry store directory exists under an instance's state dir. */
    private static int ferryTasks(Path stateDir) {
        Path app = stateDir.resolve("ferry-e2e");
        int n = 0;
        for (int t = 0; t < PARTITIONS; t++) {
            if (Files.isDirectory(app.resolve("0_" + t).resolve("ferry").resolve("counts"))) {
                n++;
            }
        }
        return n;
    }

    private final Map<TopicPartition, Long> readUpTo = new ConcurrentHashMap<>();
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
