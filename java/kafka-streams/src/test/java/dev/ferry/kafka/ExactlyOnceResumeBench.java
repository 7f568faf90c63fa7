package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures how long an exactly-once application takes to resume after a crash: Kafka's built-in RocksDB
 * stores against Ferry's (RocksDB and LMDB), each with and without transactional state stores
 * ({@code enable.transactional.statestores}), interleaved turn by turn on an in-process broker. Not a test:
 * runs only with {@code -Dferry.eos.resume.bench=true} and prints a table (docs/kafka-streams.md,
 * "Exactly-once"). {@code -Dferry.eos.resume.records=N} (default 100,000), {@code -Dferry.eos.resume.turns=T}
 * (default 3).
 *
 * <p>Each turn and variant: a fresh application ({@link ExactlyOnceApp}: a key-value aggregate and a window
 * count, 2 partitions, 1,000 keys, {@code exactly_once_v2}, commit interval 100 ms, no pause per record) on
 * N new input records; the child JVM is killed (SIGKILL) once it has processed 90% of them, then restarted on
 * the same state directory. Resume time: from the restarted JVM's start until it processes its first record
 * (JVM and Kafka Streams start-up included, the same for every variant); restored: the records its stores
 * restored from their changelogs before that (and up to 5 s after).
 */
@EnabledIfSystemProperty(named = "ferry.eos.resume.bench", matches = "true")
class ExactlyOnceResumeBench {
    private static final int PARTITIONS = 2;
    private static final long WAIT_MS = TimeUnit.MINUTES.toMillis(5);

    @TempDir
    Path tmp;

    @Test
    void resumeAfterACrashBuiltInAgainstFerryWithAndWithoutTransactionalStores() throws Exception {
        int n = Integer.getInteger("ferry.eos.resume.records", 100_000);
        int turns = Integer.getInteger("ferry.eos.resume.turns", 3);
        System.setProperty("ferry.eos.sleep", "0"); // read by ExactlyOnceCrashTest.Child for the children
        List<String> engines = List.of("builtin", "rocksdb", "lmdb");
        Map<String, List<long[]>> results = new LinkedHashMap<>();
        for (String e : engines) {
            for (boolean tx : List.of(false, true)) {
                results.put(e + (tx ? " transactional" : " plain"), new ArrayList<>());
            }
        }
        try (KafkaClusterTestKit cluster = BrokerEndToEndTest.startCluster(tmp.resolve("kafka"))) {
            String bootstrap = cluster.bootstrapServers();
            for (int turn = 0; turn < turns; turn++) {
                for (String variant : results.keySet()) {
                    String engine = variant.substring(0, variant.indexOf(' '));
                    boolean tx = variant.endsWith("transactional");
                    long[] r = cycle(cluster, bootstrap, engine, tx, n, turn);
                    results.get(variant).add(r);
                    System.out.printf(Locale.ROOT, "turn %d %-22s resumed in %,6d ms, %,d records restored%n", turn + 1, variant, r[0], r[1]);
                }
            }
        }
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%n%,d records, %d turns, binding %s, JDK %s%n", n, turns,
                System.getProperty("ferry.binding", "default"), Runtime.version()));
        table.append("| stores | resume (ms), per turn | median | records restored |\n|---|---|---|---|\n");
        for (Map.Entry<String, List<long[]>> e : results.entrySet()) {
            List<Long> ms = new ArrayList<>();
            List<Long> restored = new ArrayList<>();
            for (long[] r : e.getValue()) {
                ms.add(r[0]);
                restored.add(r[1]);
            }
            List<Long> sorted = new ArrayList<>(ms);
            sorted.sort(null);
            table.append("| ").append(e.getKey()).append(" | ").append(ms).append(" | ").append(sorted.get(sorted.size() / 2))
                    .append(" | ").append(restored).append(" |\n");
        }
        System.out.println(table);
        assertTrue(results.values().stream().allMatch(l -> l.size() == turns), "every turn ran");
    }

    /** @return {resume ms, records restored} */
    private long[] cycle(KafkaClusterTestKit cluster, String bootstrap, String engine, boolean tx, int n, int turn) throws Exception {
        String prefix = "resume-" + engine + (tx ? "-tx" : "") + "-" + turn;
        String appId = prefix + "-app";
        try (Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(ExactlyOnceApp.input(prefix), PARTITIONS, (short) 1),
                    new NewTopic(ExactlyOnceApp.sumsOut(prefix), PARTITIONS, (short) 1),
                    new NewTopic(ExactlyOnceApp.countsOut(prefix), PARTITIONS, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        produce(bootstrap, ExactlyOnceApp.input(prefix), n, new Random(turn));
        Path state = tmp.resolve("state-" + prefix);
        Engine binding = engine.equals("lmdb") ? Engine.LMDB : Engine.ROCKSDB; // the child ignores it for builtin
        String b = System.getProperty("ferry.binding", Runtime.version().feature() >= 22 ? "ffm" : "jni");
        ExactlyOnceCrashTest.Child first = ExactlyOnceCrashTest.Child.start(binding, b, tx, bootstrap, state, appId, prefix,
                tmp.resolve(prefix + "-1.err"), engine);
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (first.processed < n * 9L / 10) {
                String l = first.take(1000, prefix);
                if ("EOF".equals(l) || System.nanoTime() > deadline) {
                    throw new AssertionError(prefix + ": the first child processed " + first.processed + " records\n" + first.stderr());
                }
            }
        } finally {
            first.kill(prefix);
        }
        ExactlyOnceCrashTest.Child second = ExactlyOnceCrashTest.Child.start(binding, b, tx, bootstrap, state, appId, prefix,
                tmp.resolve(prefix + "-2.err"), engine);
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (second.firstProcessedNanos == 0) {
                String l = second.take(1000, prefix);
                if ("EOF".equals(l) || System.nanoTime() > deadline) {
                    throw new AssertionError(prefix + ": the restarted child did not resume\n" + second.stderr());
                }
            }
            long resumed = TimeUnit.NANOSECONDS.toMillis(second.firstProcessedNanos - second.startedNanos);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // restorations that end just after
            for (long left; (left = until - System.nanoTime()) > 0;) {
                if ("EOF".equals(second.take(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), prefix))) {
                    break;
                }
            }
            return new long[] {resumed, second.restored};
        } finally {
            second.kill(prefix);
        }
    }

    private static void produce(String bootstrap, String topic, int n, Random r) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false); // as ExactlyOnceCrashTest: an idempotent first flush hung now and then here
        AtomicReference<Exception> failed = new AtomicReference<>();
        long base = System.currentTimeMillis() - 10 * 60_000L;
        try (KafkaProducer<String, Long> producer = new KafkaProducer<>(p, new StringSerializer(), new LongSerializer())) {
            for (int i = 0; i < n; i++) {
                long ts = base + i * 4L;
                producer.send(new ProducerRecord<>(topic, null, ts, "k" + r.nextInt(1000), (long) r.nextInt(1000)), (md, e) -> {
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
    }
}
