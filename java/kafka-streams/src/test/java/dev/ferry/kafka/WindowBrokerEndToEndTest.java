package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Window and session stores end to end against a real Kafka broker (KRaft, one combined node, in
 * this JVM, on localhost): an instance counts clicks per minute (Ferry-RocksDB window store) and per
 * session (Ferry-LMDB session store); a restart on the same state directory restores nothing (the
 * stores' own committed offsets are current); an instance on an empty state directory restores both
 * stores from their changelogs; every window and session count, read by interactive queries, equals
 * the one computed here.
 */
class WindowBrokerEndToEndTest {
    private static final String IN = "clicks";
    private static final int PARTITIONS = 2;
    private static final Duration SIZE = Duration.ofMinutes(1);
    private static final Duration GAP = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(90);
    /**
     * Event time starts three hours ago, on a minute: the changelogs' time retention (the stores'
     * retention plus a day) must not delete the records before the restore reads them.
     */
    private static final long BASE = (System.currentTimeMillis() - 3 * 3_600_000L) / 60_000L * 60_000L;

    @TempDir
    Path tmp;

    private final Map<String, AtomicLong> restored = new ConcurrentHashMap<>();
    private static volatile String lastError = "";

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void windowAndSessionStoresRestoreFromTheirChangelogsAndEveryCountIsRight() throws Exception {
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
            }

            // clicks at one per second of event time over 20 keys; expected counts per window and per session
            Map<String, Long> windows = new TreeMap<>();
            Map<String, Long> sessions = new TreeMap<>();
            Map<String, long[]> open = new TreeMap<>(); // key -> {start, end, count} of its current session
            Random r = new Random(7);
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            pp.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 1_500; i++) {
                    String k = "k" + r.nextInt(20);
                    long t = BASE + i * 1_000L;
                    producer.send(new ProducerRecord<>(IN, null, t, k, "click"));
                    windows.merge(k + "@" + (t - t % SIZE.toMillis()), 1L, Long::sum);
                    long[] s = open.get(k);
                    if (s != null && t - s[1] <= GAP.toMillis()) {
                        s[1] = t;
                        s[2]++;
                    } else {
                        if (s != null) {
                            sessions.put(k + "@" + s[0] + "-" + s[1], s[2]);
                        }
                        open.put(k, new long[] {t, t, 1});
                    }
                }
                producer.flush();
            }
            open.forEach((k, s) -> sessions.put(k + "@" + s[0] + "-" + s[1], s[2]));

            Path dir = tmp.resolve("state");
            for (String run : List.of("first", "same state", "empty state")) {
                if (run.equals("empty state")) {
                    deleteTree(dir);
                }
                restored.clear();
                KafkaStreams s = streams(bootstrap, dir);
                try {
                    s.start();
                    waitFor(run + ": running", () -> s.state() == KafkaStreams.State.RUNNING);
                    Map<String, Long> last = new TreeMap<>();
                    waitFor(run + ": every window counted", () -> {
                        last.clear();
                        last.putAll(queryWindows(s));
                        return windows.equals(last);
                    }, () -> diff(windows, last) + "; last query error: " + lastError + "; restored " + restored + "; state " + s.state()
                            + "; changelog ends " + changelogEnds(bootstrap));
                    waitFor(run + ": every session counted", () -> sessions.equals(querySessions(s, sessions)));
                    assertTrue(Files.isDirectory(dir.resolve("ferry-window-e2e/0_0/ferry/per-minute")), "the window store is Ferry's");
                    assertTrue(Files.isDirectory(dir.resolve("ferry-window-e2e/0_0/ferry/sessions")), "the session store is Ferry's");
                } finally {
                    s.close(Duration.ofSeconds(30));
                }
                long windowRecords = restored.getOrDefault("per-minute", new AtomicLong()).get();
                long sessionRecords = restored.getOrDefault("sessions", new AtomicLong()).get();
                if (run.equals("same state")) {
                    assertEquals(0, windowRecords + sessionRecords, "offsets the stores committed themselves: nothing to restore");
                } else if (run.equals("empty state")) {
                    assertTrue(windowRecords > 0 && sessionRecords > 0, "restored " + windowRecords + " window and " + sessionRecords + " session records");
                }
            }
        }
    }

    private KafkaStreams streams(String bootstrap, Path stateDir) {
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> clicks = builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String())).groupByKey();
        clicks.windowedBy(TimeWindows.ofSizeAndGrace(SIZE, Duration.ofMinutes(1)))
                .count(Materialized.<String, Long>as(FerryStores.persistentTimestampedWindowStore("per-minute", Duration.ofDays(1), SIZE, false))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()));
        clicks.windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, Duration.ofMinutes(1)))
                .count(Materialized.<String, Long>as(FerryStores.lmdbSessionStore("sessions", Duration.ofDays(1)))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-window-e2e");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
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
                restored.computeIfAbsent(store, x -> new AtomicLong()).addAndGet(n);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
            }
        });
        return s;
    }

    private static Map<String, Long> queryWindows(KafkaStreams s) {
        Map<String, Long> out = new TreeMap<>();
        try {
            ReadOnlyWindowStore<String, ValueAndTimestamp<Long>> w = s.store(
                    StoreQueryParameters.fromNameAndType("per-minute", QueryableStoreTypes.timestampedWindowStore()));
            try (KeyValueIterator<Windowed<String>, ValueAndTimestamp<Long>> it = w.fetchAll(Instant.ofEpochMilli(BASE - 60_000),
                    Instant.ofEpochMilli(BASE + 3_600_000))) {
                it.forEachRemaining(kv -> out.put(kv.key.key() + "@" + kv.key.window().start(), kv.value.value()));
            }
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
            out.clear(); // still rebalancing or restoring
            lastError = e.toString();
        }
        return out;
    }

    private static Map<String, Long> querySessions(KafkaStreams s, Map<String, Long> expected) {
        Map<String, Long> out = new TreeMap<>();
        try {
            ReadOnlySessionStore<String, Long> ss = s.store(StoreQueryParameters.fromNameAndType("sessions", QueryableStoreTypes.sessionStore()));
            for (String key : expected.keySet().stream().map(k -> k.substring(0, k.indexOf('@'))).distinct().toList()) {
                try (KeyValueIterator<Windowed<String>, Long> it = ss.fetch(key)) {
                    it.forEachRemaining(kv -> out.put(kv.key.key() + "@" + kv.key.window().start() + "-" + kv.key.window().end(), kv.value));
                }
            }
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
            out.clear();
        }
        return out;
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String changelogEnds(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c = new org.apache.kafka.clients.consumer.KafkaConsumer<>(p,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            List<TopicPartition> tps = List.of(new TopicPartition("ferry-window-e2e-per-minute-changelog", 0),
                    new TopicPartition("ferry-window-e2e-per-minute-changelog", 1));
            return c.endOffsets(tps, Duration.ofSeconds(10)).toString();
        }
    }

    private static String diff(Map<String, Long> expected, Map<String, Long> got) {
        StringBuilder sb = new StringBuilder(expected.size() + " expected, " + got.size() + " found; differing:");
        int n = 0;
        for (String k : new java.util.TreeSet<>(java.util.stream.Stream.concat(expected.keySet().stream(), got.keySet().stream()).toList())) {
            if (!java.util.Objects.equals(expected.get(k), got.get(k)) && n++ < 10) {
                sb.append(' ').append(k).append(": ").append(expected.get(k)).append(" vs ").append(got.get(k));
            }
        }
        return sb.toString();
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        waitFor(what, condition, () -> "");
    }

    private static void waitFor(String what, BooleanSupplier condition, java.util.function.Supplier<String> state) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT + " waiting for " + what + " " + state.get());
            }
            Thread.sleep(200);
        }
    }
}
