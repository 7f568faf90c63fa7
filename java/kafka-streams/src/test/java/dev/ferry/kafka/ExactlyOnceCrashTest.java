package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.Engine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly-once ({@code exactly_once_v2}) across crashes, end to end, against a real broker (KRaft, in
 * this JVM, as {@link BrokerEndToEndTest}): a child JVM ({@link ExactlyOnceApp}) aggregates a seeded
 * input per key into a Ferry key-value store and counts it per window into a Ferry window store, and is
 * killed (SIGKILL) at seeded moments, after a random number of records it processed or after a random
 * delay (during start-up, restoration or processing, in the middle of a transaction), then restarted on
 * the same state directory, until a last child processes all the input. Checks:
 *
 * <ul>
 *   <li>after each kill, each store the child left (opened from its directory, with the
 *       application's {@code exactly_once_v2}) either refuses to be trusted (init throws
 *       {@link TaskCorruptedException}: Kafka Streams wipes the task's state and restores it from the
 *       changelog), or holds, once the changelog's committed records after its committed offset are
 *       applied over it as Kafka Streams would restore them, exactly the committed changelog: no write
 *       of an aborted transaction; and, read against the model at the point the committed output reached
 *       (changelog and output records of an update go in one transaction), holds exactly the last committed
 *       update of each of its keys and windows;
 *   <li>with transactional stores ({@code enable.transactional.statestores=true}, KIP-892), run as a second
 *       set of cases, no store is ever refused: its entries hold committed writes only, so Kafka Streams
 *       keeps it and restores only the changelog after its offset;
 *   <li>both output topics, read with {@code read_committed}, hold exactly the records a crash-free
 *       run gives (computed by a model from the input), record for record in per-key order;
 *   <li>at the end, both stores read through interactive queries equal the model.
 * </ul>
 *
 * <p>Properties: {@code ferry.eos.rounds} (kills per case, default 3), {@code ferry.eos.bindings} (which
 * bindings each case runs on: {@code alternate}, the default, or {@code all}; see {@link #targets()}),
 * {@code ferry.eos.records} (input records, default 1500), {@code ferry.eos.seed} (default 42, or
 * {@code random}).
 */
class ExactlyOnceCrashTest {
    private static final int PARTITIONS = 2;
    private static final int KEYS = 30;
    private static final long WAIT_SECONDS = 90;

    @TempDir
    static Path shared;
    private static KafkaClusterTestKit cluster;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        cluster = BrokerEndToEndTest.startCluster(shared.resolve("kafka"));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Each engine, plain and transactional. The binding only carries the store's calls (the crash behaviour under
     * test is the engine's and the store's), so by default each case runs on one binding, alternating so that each
     * engine and each mode runs on both: RocksDB plain JNI, RocksDB transactional FFM, LMDB plain FFM, LMDB
     * transactional JNI (on JDK 17-21 all on JNI). {@code -Dferry.eos.bindings=all} runs every case on both (the
     * longer run of record in docs/kafka-streams.md).
     */
    static Stream<Arguments> targets() {
        boolean ffm = Runtime.version().feature() >= 22;
        boolean all = "all".equals(System.getProperty("ferry.eos.bindings", "alternate"));
        List<Arguments> l = new ArrayList<>();
        for (boolean transactional : List.of(false, true)) {
            for (Engine e : List.of(Engine.ROCKSDB, Engine.LMDB)) {
                boolean onFfm = ffm && ((e == Engine.ROCKSDB) == transactional);
                if (all || !onFfm) {
                    l.add(Arguments.of(e, "jni", transactional));
                }
                if (ffm && (all || onFfm)) {
                    l.add(Arguments.of(e, "ffm", transactional));
                }
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0}/{1} transactional={2}")
    @MethodSource("targets")
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void noAbortedWriteSurvivesACrashAndTheOutputIsExactlyOnce(Engine engine, String binding, boolean transactional) throws Exception {
        String seedText = System.getProperty("ferry.eos.seed", "42").trim();
        long seed = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        int rounds = Integer.getInteger("ferry.eos.rounds", 3);
        int records = Integer.getInteger("ferry.eos.records", 1500);
        String bootstrap = cluster.bootstrapServers();
        String prefix = "eos-" + engine.name().toLowerCase(Locale.ROOT) + "-" + binding + (transactional ? "-tx" : "");
        String appId = prefix + "-app";
        String replay = "-Dtest=" + getClass().getSimpleName() + " -Dferry.eos.seed=" + seed + " -Dferry.eos.rounds=" + rounds
                + " -Dferry.eos.records=" + records + " -Dferry.eos.bindings=all";
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(ExactlyOnceApp.input(prefix), PARTITIONS, (short) 1),
                    new NewTopic(ExactlyOnceApp.sumsOut(prefix), PARTITIONS, (short) 1),
                    new NewTopic(ExactlyOnceApp.countsOut(prefix), PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Random r = new Random(seed ^ engine.ordinal() ^ binding.hashCode() ^ (transactional ? 0x5bd1e995L : 0));
        Model model = produce(bootstrap, ExactlyOnceApp.input(prefix), records, r);
        Path state = tmp.resolve("state");
        int corrupted = 0; // init threw TaskCorruptedException: Kafka Streams wipes the task and restores it
        int unclaimed = 0; // no committed offset yet: restored from scratch
        int verified = 0;
        StringBuilder history = new StringBuilder();
        for (int round = 0; round < rounds; round++) {
            boolean byRecords = r.nextBoolean();
            int target = 1 + r.nextInt(Math.max(1, records / 3));
            long delayMs = r.nextInt(6000);
            String what = "seed " + seed + ", " + engine + "/" + binding + (transactional ? " transactional" : "") + ", kill " + (round + 1) + " of " + rounds + ", "
                    + (byRecords ? "after " + target + " records processed" : delayMs + " ms after start");
            Child c = Child.start(engine, binding, transactional, bootstrap, state, appId, prefix, tmp.resolve("child-" + round + ".err"));
            try {
                if (byRecords) {
                    c.awaitProcessed(target, what);
                } else {
                    c.awaitDelay(delayMs, what);
                }
            } finally {
                c.kill(what);
            }
            what += " (" + c.processed + " records processed, " + (c.running ? "running" : "not running yet") + ")";
            history.append("\n  ").append(what);
            // what the committed output says each store must hold once recovered (the changelog records and the
            // output records of an update are written in the same transaction)
            Map<String, List<Long>> sumsOut = readCommitted(bootstrap, ExactlyOnceApp.sumsOut(prefix));
            Map<String, List<Long>> countsOut = readCommitted(bootstrap, ExactlyOnceApp.countsOut(prefix));
            for (int p = 0; p < PARTITIONS; p++) {
                Path taskDir = state.resolve(appId).resolve("0_" + p);
                for (String store : List.of(ExactlyOnceApp.SUMS, ExactlyOnceApp.COUNTS)) {
                    if (!Files.isDirectory(taskDir.resolve("ferry").resolve(store))) {
                        continue; // not created yet, or wiped by Kafka Streams
                    }
                    Check check = checkStore(engine, transactional, bootstrap, appId, taskDir, store, p);
                    String bad = check.difference;
                    if (bad == null && check.restored != null) {
                        bad = model.differenceFromCommitted(store, p, check.restored,
                                store.equals(ExactlyOnceApp.SUMS) ? sumsOut : countsOut);
                    }
                    if (bad != null) {
                        fail(what + ": after the kill, store " + store + " of task 0_" + p + ": " + bad + "\n  history:" + history
                                + "\n  replay: " + replay + "\n" + c.stderr());
                    }
                    if (check.corrupted) {
                        corrupted++;
                        if (transactional) { // its entries hold committed writes only: it must never need a wipe
                            fail(what + ": after the kill, transactional store " + store + " of task 0_" + p
                                    + " was refused (TaskCorruptedException): a transactional store is trusted after a crash"
                                    + "\n  history:" + history + "\n  replay: " + replay + "\n" + c.stderr());
                        }
                    } else if (check.restored == null) {
                        unclaimed++;
                    } else {
                        verified++;
                    }
                }
            }
        }
        Child last = Child.start(engine, binding, transactional, bootstrap, state, appId, prefix, tmp.resolve("child-last.err"));
        try {
            Map<String, List<Long>> sums = new TreeMap<>();
            Map<String, List<Long>> counts = new TreeMap<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (true) {
                sums = readCommitted(bootstrap, ExactlyOnceApp.sumsOut(prefix));
                counts = readCommitted(bootstrap, ExactlyOnceApp.countsOut(prefix));
                if (size(sums) >= records && size(counts) >= records) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    fail("seed " + seed + ": the output holds " + size(sums) + " and " + size(counts) + " of " + records
                            + " records after " + WAIT_SECONDS + " s\n  history:" + history + "\n  replay: " + replay + "\n"
                            + last.stderr());
                }
                Thread.sleep(300);
            }
            String context = "\n  history:" + history + "\n  replay: " + replay;
            assertEquals(model.sums, sums, "seed " + seed + ": the committed aggregates, per key in order" + context);
            assertEquals(model.counts, counts, "seed " + seed + ": the committed window counts, per window in order" + context);
            Map<String, Long> kv = new TreeMap<>();
            Map<String, Long> windows = new TreeMap<>();
            last.dump(kv, windows, "seed " + seed + ": the final dump" + context);
            assertEquals(model.finalSums(), kv, "seed " + seed + ": the key-value store after the last restart" + context);
            assertEquals(model.finalCounts(), windows, "seed " + seed + ": the window store after the last restart" + context);
        } finally {
            last.kill("the last child");
        }
        assertTrue(corrupted + unclaimed + verified > 0 || rounds == 0, "no store was left to check after the kills" + history);
        System.out.printf(Locale.ROOT, "exactly-once crash %s/%s%s: seed %d, %d kills, %d records; after the kills %d stores"
                + " refused to be trusted (wiped and restored), %d had no committed offset yet, %d checked against the committed"
                + " changelog and the model%s%n", engine, binding, transactional ? " transactional" : "", seed, rounds, records,
                corrupted, unclaimed, verified, history);
    }

    /** The input as produced, and what a crash-free run writes. */
    private static final class Model {
        /** Per key, each aggregate in order. */
        final Map<String, List<Long>> sums = new TreeMap<>();
        /** Per window ({@code key@start}), each count in order. */
        final Map<String, List<Long>> counts = new TreeMap<>();
        /** Per key, the input partition (the task) that holds it. */
        final Map<String, Integer> partitions = new TreeMap<>();

        /**
         * Compares a recovered store with the model at the point the committed output reached: for every key
         * (window) of the store's task with a committed output, the store holds the last committed update, at the
         * position the model gives it, and nothing else.
         *
         * @param store the store's name
         * @param partition the store's task's partition
         * @param recovered the store's entries after the committed changelog tail was applied (as {@link #checkStore}
         *     reads them: hex key, or hex key {@code @} window start, to hex timestamp and value)
         * @param out the committed output topic, per key (window) in order
         * @return null when equal, else the first difference
         */
        String differenceFromCommitted(String store, int partition, Map<String, String> recovered, Map<String, List<Long>> out) {
            HexFormat hex = HexFormat.of();
            boolean sumsStore = store.equals(ExactlyOnceApp.SUMS);
            Map<String, Long> expected = new TreeMap<>();
            out.forEach((k, l) -> {
                String key = sumsStore ? k : k.substring(0, k.lastIndexOf('@'));
                if (partitions.get(key) == partition) {
                    List<Long> all = (sumsStore ? sums : counts).get(k);
                    if (all == null || l.size() > all.size() || !l.equals(all.subList(0, l.size()))) {
                        throw new AssertionError("the committed output for " + k + " is " + l + ", not a prefix of the model's " + all);
                    }
                    expected.put(k, l.get(l.size() - 1));
                }
            });
            Map<String, Long> actual = new TreeMap<>();
            recovered.forEach((k, v) -> {
                int at = k.indexOf('@');
                String key = new String(hex.parseHex(at < 0 ? k : k.substring(0, at)), StandardCharsets.UTF_8);
                actual.put(at < 0 ? key : key + k.substring(at), v == null ? null : Long.parseUnsignedLong(v.substring(v.length() - 16), 16));
            });
            if (expected.equals(actual)) {
                return null;
            }
            for (String k : union(expected.keySet(), actual.keySet())) {
                if (!java.util.Objects.equals(expected.get(k), actual.get(k))) {
                    List<Long> all = (sumsStore ? sums : counts).get(k);
                    return "recovered, " + k + " holds " + actual.get(k) + ", where the committed output and the model say "
                            + expected.get(k) + " (update " + (out.containsKey(k) ? out.get(k).size() : 0) + " of "
                            + (all == null ? 0 : all.size()) + " in the model): a write of an aborted transaction survived, or a"
                            + " committed one was lost";
                }
            }
            return null;
        }

        Map<String, Long> finalSums() {
            Map<String, Long> m = new TreeMap<>();
            sums.forEach((k, l) -> m.put(k, l.get(l.size() - 1)));
            return m;
        }

        Map<String, Long> finalCounts() {
            Map<String, Long> m = new TreeMap<>();
            counts.forEach((k, l) -> m.put(k, l.get(l.size() - 1)));
            return m;
        }
    }

    /**
     * Produces n seeded records and builds the model from what the input topic then holds, partition by
     * partition in offset order (a key's records are in one partition, in that order).
     */
    private static Model produce(String bootstrap, String topic, int n, Random r) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // not idempotent: an idempotent producer's first flush hung now and then on this in-process broker; the
        // model is read back from the topic, so a retried (duplicated) record would be in it too
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        long base = System.currentTimeMillis() - 10 * 60_000L; // recent: within the changelogs' retention
        java.util.concurrent.atomic.AtomicReference<Exception> failed = new java.util.concurrent.atomic.AtomicReference<>();
        try (KafkaProducer<String, Long> producer = new KafkaProducer<>(p, new StringSerializer(), new LongSerializer())) {
            for (int i = 0; i < n; i++) {
                long ts = base + i * 40L + r.nextInt(2000); // out of order within the grace period
                producer.send(new ProducerRecord<>(topic, null, ts, "k" + r.nextInt(KEYS), (long) r.nextInt(1000)), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw failed.get();
        }
        Model m = new Model();
        long window = ExactlyOnceApp.WINDOW.toMillis();
        for (ConsumerRecord<byte[], byte[]> rec : readCommitted(bootstrap, topic, PARTITIONS)) {
            String k = new String(rec.key(), StandardCharsets.UTF_8);
            long v = ByteBuffer.wrap(rec.value()).getLong();
            long ts = rec.timestamp();
            m.partitions.put(k, rec.partition());
            List<Long> aggs = m.sums.computeIfAbsent(k, x -> new ArrayList<>());
            aggs.add(ExactlyOnceApp.aggregate(aggs.isEmpty() ? 0 : aggs.get(aggs.size() - 1), v));
            List<Long> c = m.counts.computeIfAbsent(k + "@" + (ts - ts % window), x -> new ArrayList<>());
            c.add(c.size() + 1L);
        }
        assertEquals(n, size(m.sums), "the input topic holds the records produced");
        return m;
    }

    private static int size(Map<String, List<Long>> m) {
        return m.values().stream().mapToInt(List::size).sum();
    }

    /** A topic's committed records, per key in order. */
    private static Map<String, List<Long>> readCommitted(String bootstrap, String topic) {
        Map<String, List<Long>> m = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> rec : readCommitted(bootstrap, topic, PARTITIONS)) {
            m.computeIfAbsent(new String(rec.key(), StandardCharsets.UTF_8), x -> new ArrayList<>())
                    .add(ByteBuffer.wrap(rec.value()).getLong());
        }
        return m;
    }

    /** Every committed record of the topic's partitions 0 to n - 1 (read_committed), partition after partition. */
    private static List<ConsumerRecord<byte[], byte[]>> readCommitted(String bootstrap, String topic, int partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            tps.add(new TopicPartition(topic, i));
        }
        return readCommitted(bootstrap, tps);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readCommitted(String bootstrap, List<TopicPartition> tps) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = c.endOffsets(tps, Duration.ofSeconds(30)); // the last stable offsets
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("reading " + tps + " up to " + ends + " took more than " + WAIT_SECONDS + " s");
                }
                for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(200))) {
                    if (rec.offset() < ends.get(new TopicPartition(rec.topic(), rec.partition()))) {
                        out.add(rec);
                    }
                }
            }
        }
        out.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition()) : Long.compare(a.offset(), b.offset()));
        return out;
    }

    /**
     * What {@link #checkStore} found.
     *
     * @param corrupted init threw {@link TaskCorruptedException} (Kafka Streams wipes the task's state)
     * @param restored the store's entries once the committed changelog records after its committed offset are
     *     applied over it (hex key, or hex key {@code @} window start, to hex timestamp and value); null when it
     *     was refused or claims no committed offset
     * @param difference null, or the first difference between {@code restored} and the committed changelog
     */
    private record Check(boolean corrupted, Map<String, String> restored, String difference) {
    }

    /**
     * Opens a store the killed child left, as the next child's Kafka Streams would, and checks it against
     * the committed changelog.
     */
    private static Check checkStore(Engine engine, boolean transactional, String bootstrap, String appId, Path taskDir, String name,
            int partition) {
        boolean lmdb = engine == Engine.LMDB;
        StateStore store = name.equals(ExactlyOnceApp.SUMS)
                ? (lmdb ? FerryStores.lmdbTimestampedKeyValueStore(name) : FerryStores.persistentTimestampedKeyValueStore(name)).get()
                : (lmdb ? FerryStores.lmdbTimestampedWindowStore(name, ExactlyOnceApp.RETENTION, ExactlyOnceApp.WINDOW, false)
                        : FerryStores.persistentTimestampedWindowStore(name, ExactlyOnceApp.RETENTION, ExactlyOnceApp.WINDOW, false)).get();
        TestContext context = new TestContext(taskDir.toFile());
        context.configs.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        context.configs.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        context.configs.put(Uncommitted.CONFIG, transactional);
        try {
            store.init(context, store);
        } catch (TaskCorruptedException e) {
            return new Check(true, null, null);
        }
        try {
            TopicPartition changelog = new TopicPartition(appId + "-" + name + "-changelog", partition);
            Long committed = store.committedOffset(changelog);
            if (committed == null || committed < 0) { // none, or Kafka's "unknown" (-4): restored from scratch
                return new Check(false, null, null);
            }
            Map<String, String> restored = new TreeMap<>();
            HexFormat hex = HexFormat.of();
            if (store instanceof KeyValueStore<?, ?>) {
                @SuppressWarnings("unchecked")
                KeyValueStore<Bytes, byte[]> kv = (KeyValueStore<Bytes, byte[]>) store;
                try (KeyValueIterator<Bytes, byte[]> it = kv.all()) {
                    it.forEachRemaining(e -> restored.put(hex.formatHex(e.key.get()), hex.formatHex(e.value)));
                }
            } else {
                @SuppressWarnings("unchecked")
                WindowStore<Bytes, byte[]> w = (WindowStore<Bytes, byte[]>) store;
                try (KeyValueIterator<Windowed<Bytes>, byte[]> it = w.all()) {
                    while (it.hasNext()) {
                        KeyValue<Windowed<Bytes>, byte[]> e = it.next();
                        restored.put(hex.formatHex(e.key.key().get()) + "@" + e.key.window().start(), hex.formatHex(e.value));
                    }
                }
            }
            Map<String, String> before = new TreeMap<>(restored);
            Map<String, String> expected = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> rec : readCommitted(bootstrap, List.of(changelog))) {
                byte[] k = rec.key();
                String key = store instanceof KeyValueStore<?, ?> ? hex.formatHex(k)
                        : hex.formatHex(k, 0, k.length - 12) + "@" + ByteBuffer.wrap(k, k.length - 12, 8).getLong();
                String value = rec.value() == null ? null
                        : hex.formatHex(ByteBuffer.allocate(8 + rec.value().length).putLong(rec.timestamp()).put(rec.value()).array());
                for (Map<String, String> m : rec.offset() > committed ? List.of(expected, restored) : List.of(expected)) {
                    if (value == null) {
                        m.remove(key);
                    } else {
                        m.put(key, value);
                    }
                }
            }
            if (!expected.equals(restored)) {
                for (String k : new java.util.TreeSet<>(union(expected.keySet(), restored.keySet()))) {
                    if (!java.util.Objects.equals(expected.get(k), restored.get(k))) {
                        return new Check(false, restored, "committed offset " + committed + ", restored from there: key " + k
                                + " holds " + restored.get(k) + " (in the store before the restore: " + before.get(k)
                                + "), the committed changelog " + expected.get(k) + ": a write of an aborted transaction survived");
                    }
                }
            }
            return new Check(false, restored, null);
        } finally {
            store.close();
        }
    }

    private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.Set<String> u = new java.util.TreeSet<>(a);
        u.addAll(b);
        return u;
    }

    /** The child JVM and what it printed (also driven by {@link ExactlyOnceResumeBench}). */
    static final class Child {
        final Process process;
        final Path errFile;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        /** When the child was started ({@link System#nanoTime()}). */
        final long startedNanos = System.nanoTime();
        long processed;
        boolean running;
        boolean eof;
        /** The records the child's stores restored, summed over its {@code RESTORED} lines so far. */
        long restored;
        /** When the first {@code P} line came ({@link System#nanoTime()}), or 0. */
        long firstProcessedNanos;

        private Child(Process process, Path errFile) {
            this.process = process;
            this.errFile = errFile;
            Thread t = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = in.readLine()) != null;) {
                        lines.add(l);
                    }
                } catch (IOException ignored) {
                    // the child died
                }
                lines.add("EOF");
            }, "eos-child-reader");
            t.setDaemon(true);
            t.start();
        }

        static Child start(Engine engine, String binding, boolean transactional, String bootstrap, Path stateDir, String appId,
                String prefix, Path errFile) throws IOException {
            return start(engine, binding, transactional, bootstrap, stateDir, appId, prefix, errFile, engine.name().toLowerCase(Locale.ROOT));
        }

        /** As above, with the child's engine argument given ({@code builtin} for Kafka's own stores). */
        static Child start(Engine engine, String binding, boolean transactional, String bootstrap, Path stateDir, String appId,
                String prefix, Path errFile, String engineArgument) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            if (Runtime.version().feature() >= 22) {
                cmd.add("--enable-native-access=ALL-UNNAMED");
            }
            if (System.getProperty("ferry.eos.sleep") != null) {
                cmd.add("-Dferry.eos.sleep=" + System.getProperty("ferry.eos.sleep"));
            }
            cmd.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dferry.binding=" + binding,
                    "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), "-cp", System.getProperty("java.class.path"),
                    ExactlyOnceApp.class.getName(), bootstrap, stateDir.toString(), appId, engineArgument,
                    prefix, transactional ? "transactional" : "plain"));
            return new Child(new ProcessBuilder(cmd).redirectError(errFile.toFile()).start(), errFile);
        }

        /** @return the next line, or null after {@code timeoutMs} without one */
        String take(long timeoutMs, String what) throws InterruptedException {
            String l = lines.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (l == null) {
                return null;
            }
            if (l.equals("EOF")) {
                eof = true;
            } else if (l.startsWith("P ")) {
                processed = Long.parseLong(l.substring(2));
                if (firstProcessedNanos == 0) {
                    firstProcessedNanos = System.nanoTime();
                }
            } else if (l.startsWith("RESTORED ")) {
                restored += Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
            } else if (l.equals("RUNNING")) {
                running = true;
            } else if (!l.startsWith("KV ") && !l.startsWith("W ") && !l.equals("END") && !l.startsWith("RETRY")) {
                throw new AssertionError(what + ": unexpected line from the child: " + l + "\n" + stderr());
            }
            return l;
        }

        /** Waits until the child processed n records, or stopped processing (all the input done) for 5 s. */
        void awaitProcessed(long n, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            long idleSince = System.nanoTime();
            while (processed < n) {
                String l = take(200, what);
                if ("EOF".equals(l)) {
                    throw new AssertionError(what + ": the child ended\n" + stderr());
                }
                if (l != null && (l.startsWith("P ") || l.equals("RUNNING"))) {
                    idleSince = System.nanoTime();
                } else if (running && System.nanoTime() - idleSince > TimeUnit.SECONDS.toNanos(5)) {
                    return; // all the input is processed
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + ": the child processed " + processed + " records in " + WAIT_SECONDS + " s\n"
                            + stderr());
                }
            }
        }

        void awaitDelay(long ms, String what) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            for (long left; (left = end - System.nanoTime()) > 0;) {
                if ("EOF".equals(take(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), what))) {
                    throw new AssertionError(what + ": the child ended\n" + stderr());
                }
            }
        }

        /** Asks for the stores' contents through interactive queries, until the child can answer. */
        void dump(Map<String, Long> kv, Map<String, Long> windows, String what) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            OutputStream in = process.getOutputStream();
            while (true) {
                kv.clear();
                windows.clear();
                in.write("DUMP\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
                while (true) {
                    String l = take(TimeUnit.SECONDS.toMillis(WAIT_SECONDS), what);
                    if (l == null || l.equals("EOF")) {
                        throw new AssertionError(what + ": the child did not answer\n" + stderr());
                    }
                    if (l.startsWith("KV ")) {
                        String[] f = l.split(" ");
                        kv.put(f[1], Long.parseLong(f[2]));
                    } else if (l.startsWith("W ")) {
                        String[] f = l.split(" ");
                        windows.put(f[1] + "@" + f[2], Long.parseLong(f[3]));
                    } else if (l.equals("END")) {
                        return;
                    } else if (l.startsWith("RETRY")) {
                        break;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(what + ": the stores were not queryable within " + WAIT_SECONDS + " s\n" + stderr());
                }
                Thread.sleep(300);
            }
        }

        void kill(String what) throws InterruptedException {
            process.toHandle().destroyForcibly(); // SIGKILL
            if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError(what + ": the child did not die within " + WAIT_SECONDS + " s of SIGKILL");
            }
            while (!eof) {
                take(TimeUnit.SECONDS.toMillis(WAIT_SECONDS), what);
            }
        }

        String stderr() {
            try {
                String s = "  child stderr:\n" + (Files.exists(errFile) ? Files.readString(errFile) : "");
                return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
            } catch (IOException e) {
                return "(stderr unreadable: " + e + ")";
            }
        }
    }
}
