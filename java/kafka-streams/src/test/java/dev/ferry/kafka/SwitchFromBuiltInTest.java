package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
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
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.VersionedKeyQuery;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Switching a running application from Kafka's built-in store to Ferry's without a full restore, against a
 * real broker (the in-process KRaft node of {@link BrokerEndToEndTest}): a word count, a windowed word count
 * and a session word count run on the built-in stores (the DSL's defaults: a key-value store, a segmented
 * timestamped window store, a segmented session store) and stop; another instance of the application, on an
 * empty state directory, counts more words meanwhile (the changelogs' tails beyond the stopped instance's
 * offsets); then the first instance restarts with {@link FerryDslStoreSuppliers}. Its Ferry stores import the
 * built-in stores and restore only those tails, and every count stays right and goes on right (windows and
 * sessions open at the switch go on from the imported state). A versioned table (its own input topic, which gets
 * nothing after the stop) imports the built-in versioned store: it restores no record, and answers every
 * {@code get(key)} and {@code get(key, asOf)} inside its history retention as the built-in store answered before the
 * stop. Going back to the built-in stores afterwards restores what the changelogs got since their own stop.
 */
class SwitchFromBuiltInTest {
    private static final String APP = "ferry-switch";
    private static final String IN = "words";
    private static final String OUT = "word-counts";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** The versioned table's input, its store, and the store's history retention. */
    private static final String PRICES = "prices";
    private static final String VERSIONED = "versioned-prices";
    private static final long HISTORY = 600_000;
    private static final int PRICE_KEYS = 40;
    private static final String[] STORES = {"counts", "window-counts", "session-counts", VERSIONED};
    private static final long WINDOW = 600_000;
    private static final long GAP = 120_000;
    private static final long GRACE = 600_000;
    /**
     * Event time: from an hour ago (recent, or the broker's retention would delete the records), every record 250 ms
     * after the one before, so windows and sessions span the switch.
     */
    private long clock = System.currentTimeMillis() - 3_600_000L;
    /** The model's open session per word: {start, end, count}. */
    private final Map<String, long[]> sessions = new HashMap<>();

    /** On a RAM file system where there is one (RamTempDir): what is under test is what is restored, not the disk. */
    @TempDir(factory = RamTempDir.class)
    Path tmp;

    @ParameterizedTest(name = "ferry.dsl.engine={0}")
    @ValueSource(strings = {"rocksdb", "lmdb"})
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void switchingToFerryRestoresOnlyTheChangelogsTailAndCountsStayRight(String engine) throws Exception {
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            try (Admin admin = cluster.admin()) {
                admin.createTopics(List.of(new NewTopic(IN, PARTITIONS, (short) 1), new NewTopic(OUT, PARTITIONS, (short) 1),
                                new NewTopic(PRICES, PARTITIONS, (short) 1)))
                        .all().get(60, TimeUnit.SECONDS);
            }
            Map<String, Long> expected = new TreeMap<>();
            Random r = new Random(11);
            Path stateA = tmp.resolve("state-a");

            // 1. the built-in store
            produce(bootstrap, r, 3000, expected);
            long newestPrice = producePrices(bootstrap, new Random(5));
            Map<String, AtomicLong> restored = restoredPerStore();
            List<String> builtInAnswers;
            try (KafkaStreams a = streams(bootstrap, stateA, null, restored)) {
                a.start();
                waitForCounts("the built-in run's counts", bootstrap, expected);
                builtInAnswers = versionedAnswers(a, newestPrice);
                a.close(Duration.ofSeconds(30));
            }
            assertTrue(builtInAnswers.stream().anyMatch(x -> x.contains(" as of ") && x.contains(" to ") && !x.endsWith(" to null")),
                    "some answers are old versions");
            assertEquals(0, total(restored), "the first run starts from an empty changelog");
            assertEquals(PARTITIONS, storeDirs(stateA, "rocksdb", "counts"), "the built-in key-value stores hold the state");
            assertEquals(PARTITIONS, segmentedStoreDirs(stateA, "window-counts"), "the built-in window stores hold the state in segments");
            assertEquals(PARTITIONS, segmentedStoreDirs(stateA, "session-counts"), "the built-in session stores hold the state in segments");
            assertEquals(PARTITIONS, storeDirs(stateA, "rocksdb", VERSIONED), "the built-in versioned stores hold the state");
            Map<String, Long> atStop = changelogEnds(bootstrap);

            // 2. the changelog grows beyond the stopped instance's offsets: another instance counts more words
            int tail = 700;
            produce(bootstrap, r, tail, expected);
            Map<String, AtomicLong> restoredB = restoredPerStore();
            try (KafkaStreams b = streams(bootstrap, tmp.resolve("state-b"), engine, restoredB)) {
                b.start();
                waitForCounts("the other instance's counts", bootstrap, expected);
                b.close(Duration.ofSeconds(30));
            }
            assertEquals(3000, restoredB.get("counts").get(), "the other instance restored the whole changelog (no built-in store to import)");
            Map<String, Long> afterTail = changelogEnds(bootstrap);
            for (String store : STORES) {
                assertEquals(atStop.get(store), restoredB.get(store).get(), "the other instance restored the whole changelog of " + store);
            }

            // 3. the first instance again, on Ferry's stores
            restored = restoredPerStore();
            try (KafkaStreams a = streams(bootstrap, stateA, engine, restored)) {
                a.start();
                waitFor("the Ferry run running (state " + a.state() + ")", () -> a.state() == KafkaStreams.State.RUNNING
                        && Arrays.stream(STORES).allMatch(s -> storeDirs(stateA, "ferry", s) == PARTITIONS));
                produce(bootstrap, r, 1000, expected);
                waitForCounts("every count after the switch", bootstrap, expected);
                // every task restored before it processed the new words
                assertEquals(tail, restored.get("counts").get(), "restored from the changelog: only the tail written after the stop");
                assertEquals(0, restored.get(VERSIONED).get(), "the versioned store restored nothing: its changelog got nothing after the stop");
                assertEquals(builtInAnswers, versionedAnswers(a, newestPrice), "every get(key) and get(key, asOf) as the built-in store answered");
                for (String store : STORES) {
                    assertEquals(afterTail.get(store) - atStop.get(store), restored.get(store).get(),
                            store + ": restored from the changelog only the tail written after the stop");
                }
                a.close(Duration.ofSeconds(30));
            }
            assertEquals(PARTITIONS, storeDirs(stateA, "rocksdb", "counts"), "the built-in stores are left in place");
            assertEquals(PARTITIONS, segmentedStoreDirs(stateA, "window-counts"), "the built-in window stores are left in place");

            // 4. back to the built-in store: it resumes from its own offsets (those of step 1) and restores what was written since
            Map<String, Long> atSwitchBack = changelogEnds(bootstrap);
            restored = restoredPerStore();
            try (KafkaStreams a = streams(bootstrap, stateA, null, restored)) {
                a.start();
                produce(bootstrap, r, 300, expected);
                waitForCounts("every count after going back", bootstrap, expected);
                assertEquals(tail + 1000, restored.get("counts").get(), "the built-in store restored what the changelog got after its stop, no more");
                for (String store : STORES) {
                    assertEquals(atSwitchBack.get(store) - atStop.get(store), restored.get(store).get(),
                            store + ": the built-in store restored what the changelog got after its stop, no more");
                }
                a.close(Duration.ofSeconds(30));
            }
        }
    }

    /**
     * Produces n words, in event-time order, and adds to the model: the count per word ({@code c:<word>}), per
     * word and 10-minute window ({@code w:<word>@<start>}) and per word and session of 2 minutes' inactivity
     * ({@code s:<word>@<start>-<end>}; a session merged into a longer one is gone, as its tombstone says).
     */
    private void produce(String bootstrap, Random r, int n, Map<String, Long> expected) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < n; i++) {
                String w = "w" + r.nextInt(300);
                long t = clock += 250;
                expected.merge("c:" + w, 1L, Long::sum);
                expected.merge("w:" + w + "@" + (t - t % WINDOW), 1L, Long::sum);
                long[] s = sessions.get(w);
                if (s != null && t - s[1] <= GAP) {
                    expected.remove("s:" + w + "@" + s[0] + "-" + s[1]);
                    s[1] = t;
                    s[2]++;
                } else {
                    s = new long[] {t, t, 1};
                    sessions.put(w, s);
                }
                expected.put("s:" + w + "@" + s[0] + "-" + s[1], s[2]);
                producer.send(new ProducerRecord<>(IN, null, t, w, w));
            }
            producer.flush();
        }
    }

    /**
     * Produces prices for the versioned table: {@link #PRICE_KEYS} keys, a version a second for 40 minutes of event time
     * (the history retention four times over), one in five out of order by up to 5 minutes, one in ten a tombstone.
     *
     * @return the newest timestamp
     */
    private long producePrices(String bootstrap, Random r) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        long t = System.currentTimeMillis() - 7_200_000L;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 2_400; i++) {
                t += 1_000;
                long ts = r.nextInt(5) == 0 ? t - r.nextInt(300_000) : t;
                producer.send(new ProducerRecord<>(PRICES, null, ts, "p" + r.nextInt(PRICE_KEYS), r.nextInt(10) == 0 ? null : "v" + i));
            }
            producer.flush();
        }
        return t;
    }

    /**
     * The versioned store's answers through interactive queries (IQv2 {@code VersionedKeyQuery}): every key's latest
     * version, and its version as of every 20 s inside the history retention (from a minute past its start, so that
     * every partition's stream time is past it) to the newest time.
     */
    private static List<String> versionedAnswers(KafkaStreams streams, long newest) throws InterruptedException {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < PRICE_KEYS; k++) {
            String key = "p" + k;
            int partition = Utils.toPositive(Utils.murmur2(key.getBytes(java.nio.charset.StandardCharsets.UTF_8))) % PARTITIONS;
            out.add(key + " latest: " + versioned(streams, key, partition, null));
            for (long t = newest - HISTORY + 60_000; t <= newest; t += 20_000) {
                out.add(key + " as of " + (t - newest) + ": " + versioned(streams, key, partition, t));
            }
        }
        return out;
    }

    private static String versioned(KafkaStreams streams, String key, int partition, Long asOf) throws InterruptedException {
        VersionedKeyQuery<String, String> q = VersionedKeyQuery.withKey(key);
        if (asOf != null) {
            q = q.asOf(java.time.Instant.ofEpochMilli(asOf));
        }
        StateQueryRequest<VersionedRecord<String>> request = StateQueryRequest.inStore(VERSIONED).withQuery(q)
                .withPartitions(java.util.Set.of(partition));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            QueryResult<VersionedRecord<String>> r = streams.query(request).getPartitionResults().get(partition);
            if (r != null && r.isSuccess()) {
                VersionedRecord<String> v = r.getResult();
                return v == null ? "none" : v.value() + "@" + v.timestamp() + " to " + v.validTo().orElse(null);
            }
            if (System.nanoTime() > deadline) {
                fail("the versioned store did not answer: " + r);
            }
            Thread.sleep(100);
        }
    }

    /** The word count; on the built-in store when {@code engine} is null, else under FerryDslStoreSuppliers on that engine. */
    private static KafkaStreams streams(String bootstrap, Path stateDir, String engine, Map<String, AtomicLong> restored) {
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
        KStream<String, String> words = builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String()));
        words.groupByKey()
                .count(Materialized.<String, Long, org.apache.kafka.streams.state.KeyValueStore<Bytes, byte[]>>as("counts")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((k, v) -> "c:" + k).to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        KGroupedStream<String, String> counted = words.groupByKey();
        counted.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(WINDOW), Duration.ofMillis(GRACE)))
                .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("window-counts")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((k, v) -> "w:" + k.key() + "@" + k.window().start()).to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        counted.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(GAP), Duration.ofMillis(GRACE)))
                .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("session-counts")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((k, v) -> "s:" + k.key() + "@" + k.window().start() + "-" + k.window().end())
                .to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        VersionedBytesStoreSupplier versioned = engine == null ? Stores.persistentVersionedKeyValueStore(VERSIONED, Duration.ofMillis(HISTORY))
                : engine.equals("lmdb") ? FerryStores.lmdbVersionedKeyValueStore(VERSIONED, Duration.ofMillis(HISTORY))
                : FerryStores.persistentVersionedKeyValueStore(VERSIONED, Duration.ofMillis(HISTORY));
        builder.table(PRICES, Consumed.with(Serdes.String(), Serdes.String()), Materialized.<String, String>as(versioned)
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        KafkaStreams s = new KafkaStreams(builder.build(), p);
        s.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {
                restored.get(store).addAndGet(n);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
            }
        });
        return s;
    }

    /** Tasks whose store directory {@code <task>/<kind>/<store>} exists. */
    private static int storeDirs(Path stateDir, String kind, String store) {
        int n = 0;
        for (int t = 0; t < PARTITIONS; t++) {
            if (Files.isDirectory(taskDir(stateDir, store, t).resolve(kind).resolve(store))) {
                n++;
            }
        }
        return n;
    }

    /** Tasks that hold segments of Kafka's built-in segmented store {@code <task>/<store>/<store>.<start>}. */
    private static int segmentedStoreDirs(Path stateDir, String store) throws java.io.IOException {
        int n = 0;
        for (int t = 0; t < PARTITIONS; t++) {
            Path dir = taskDir(stateDir, store, t).resolve(store);
            if (Files.isDirectory(dir)) {
                try (var l = Files.list(dir)) {
                    if (l.anyMatch(p -> p.getFileName().toString().startsWith(store + "."))) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** The task directory of a store's partition (the versioned table is the topology's second sub-topology). */
    private static Path taskDir(Path stateDir, String store, int partition) {
        return stateDir.resolve(APP).resolve((store.equals(VERSIONED) ? "1_" : "0_") + partition);
    }

    private static Map<String, AtomicLong> restoredPerStore() {
        Map<String, AtomicLong> m = new HashMap<>();
        for (String s : STORES) {
            m.put(s, new AtomicLong());
        }
        return m;
    }

    private static long total(Map<String, AtomicLong> restored) {
        return restored.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Each store's changelog: the sum of its partitions' end offsets. */
    private static Map<String, Long> changelogEnds(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
            Map<String, Long> ends = new HashMap<>();
            for (String store : STORES) {
                List<TopicPartition> tps = new ArrayList<>();
                for (int i = 0; i < PARTITIONS; i++) {
                    tps.add(new TopicPartition(APP + "-" + store + "-changelog", i));
                }
                ends.put(store, c.endOffsets(tps, Duration.ofSeconds(10)).values().stream().mapToLong(Long::longValue).sum());
            }
            return ends;
        }
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
                    if (rec.value() == null) { // a session merged into a longer one
                        latest.remove(rec.key());
                    } else {
                        latest.put(rec.key(), rec.value());
                    }
                }
            }
            for (TopicPartition tp : tps) {
                readUpTo.put(tp, c.position(tp));
            }
        }
        return new TreeMap<>(latest);
    }

    /** Waits until the output's latest counts equal the model's; on a timeout says which differ. */
    @SuppressWarnings("unchecked")
    private void waitForCounts(String what, String bootstrap, Map<String, Long> expected) throws InterruptedException {
        Map<String, Long>[] last = new Map[1];
        try {
            waitFor(what, () -> (last[0] = latestCounts(bootstrap)).equals(expected));
        } catch (AssertionError e) {
            List<String> diff = new ArrayList<>();
            for (String k : new java.util.TreeSet<>(union(expected.keySet(), last[0].keySet()))) {
                if (!java.util.Objects.equals(expected.get(k), last[0].get(k)) && diff.size() < 10) {
                    diff.add(k + ": expected " + expected.get(k) + ", output " + last[0].get(k));
                }
            }
            throw new AssertionError(e.getMessage() + "; " + expected.size() + " expected, " + last[0].size() + " on the output; " + diff, e);
        }
    }

    private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.Set<String> u = new java.util.HashSet<>(a);
        u.addAll(b);
        return u;
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
