package dev.ferry.kafka;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;

/**
 * The child JVM of {@link ExactlyOnceCrashTest}: a Kafka Streams application under
 * {@code exactly_once_v2} whose stores are Ferry stores ({@code Materialized.as(FerryStores...)}) on the engine named.
 * Per key of the input topic it keeps an order-sensitive aggregate ({@link #aggregate}, key-value store
 * {@value #SUMS}) and a count per 10 s window (window store {@value #COUNTS}), and writes each update to
 * an output topic. No cache: every input record gives one record on each output topic.
 *
 * <p>Prints {@code RUNNING} when the instance runs, {@code P <n>} after every 10th record this
 * process handed to the aggregation (records of aborted transactions included), and
 * {@code RESTORED <store> <partition> <records>} when a store's restoration ends. On the line
 * {@code DUMP} on stdin it prints both stores through interactive queries ({@code KV <key> <value>},
 * {@code W <key> <window start> <count>}), then {@code END}. Runs until it is killed.
 *
 * <p>Arguments: bootstrap servers, state directory, application id, engine ({@code rocksdb},
 * {@code lmdb}, or {@code builtin} for Kafka's own RocksDB stores), topic prefix, and {@code transactional} or {@code plain}: whether the application
 * asks for transactional state stores ({@code enable.transactional.statestores}, KIP-892). The system
 * property {@code ferry.eos.sleep} sets the pause after each record in milliseconds (default 1; 0 for none).
 */
public final class ExactlyOnceApp {
    /** The key-value store's name. */
    static final String SUMS = "sums";
    /** The window store's name. */
    static final String COUNTS = "counts";
    /** The window size. */
    static final Duration WINDOW = Duration.ofSeconds(10);
    /** The grace period: every record of the test's input falls within it. */
    static final Duration GRACE = Duration.ofHours(1);
    /** The window store's retention. */
    static final Duration RETENTION = Duration.ofHours(2);

    private ExactlyOnceApp() {
    }

    /** The key-value store's aggregate: depends on every value and their order. */
    static long aggregate(long agg, long value) {
        return agg * 1_000_003L + value;
    }

    static String input(String prefix) {
        return prefix + "-in";
    }

    static String sumsOut(String prefix) {
        return prefix + "-sums";
    }

    static String countsOut(String prefix) {
        return prefix + "-counts";
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String stateDir = args[1];
        String appId = args[2];
        String engine = args[3];
        String prefix = args[4];
        boolean transactional = args.length > 5 && args[5].equals("transactional");
        PrintStream out = System.out;
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100); // many transactions: kills land inside them
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(Uncommitted.CONFIG, transactional);
        boolean lmdb = engine.equals("lmdb");
        boolean builtIn = engine.equals("builtin");
        long sleepMs = Long.getLong("ferry.eos.sleep", 1);
        // static membership: a restarted child takes its predecessor's place without waiting for its session to expire
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), appId + "-child");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
        AtomicLong processed = new AtomicLong();
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, Long> in = builder.stream(input(prefix), Consumed.with(Serdes.String(), Serdes.Long()))
                .peek((k, v) -> {
                    long n = processed.incrementAndGet();
                    if (n % 10 == 0) {
                        out.println("P " + n);
                        out.flush();
                    }
                    try {
                        if (sleepMs > 0) {
                            Thread.sleep(sleepMs); // slow enough that the kills find the application processing
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
        in.groupByKey()
                .aggregate(() -> 0L, (k, v, agg) -> aggregate(agg, v), (builtIn
                        ? Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(SUMS)
                        : Materialized.<String, Long>as(lmdb ? FerryStores.lmdbTimestampedKeyValueStore(SUMS)
                                : FerryStores.persistentTimestampedKeyValueStore(SUMS)))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream().to(sumsOut(prefix), Produced.with(Serdes.String(), Serdes.Long()));
        in.groupByKey()
                .windowedBy(TimeWindows.ofSizeAndGrace(WINDOW, GRACE))
                .count((builtIn ? Materialized.<String, Long, WindowStore<Bytes, byte[]>>as(COUNTS).withRetention(RETENTION)
                        : Materialized.<String, Long>as(lmdb
                                ? FerryStores.lmdbTimestampedWindowStore(COUNTS, RETENTION, WINDOW, false)
                                : FerryStores.persistentTimestampedWindowStore(COUNTS, RETENTION, WINDOW, false)))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream((Windowed<String> w, Long c) -> w.key() + "@" + w.window().start())
                .to(countsOut(prefix), Produced.with(Serdes.String(), Serdes.Long()));
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                out.println("RUNNING");
                out.flush();
            }
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                out.println("RESTORED " + store + " " + partition.partition() + " " + totalRestored);
                out.flush();
            }
        });
        streams.start();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String l; (l = stdin.readLine()) != null;) {
            if (l.equals("DUMP")) {
                try {
                    dump(streams, out);
                } catch (RuntimeException e) { // not queryable yet (rebalancing, restoring): the parent asks again
                    out.println("RETRY " + e);
                    out.flush();
                }
            }
        }
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void dump(KafkaStreams streams, PrintStream out) {
        StringBuilder b = new StringBuilder();
        try (KeyValueIterator<String, Long> it = streams.store(StoreQueryParameters.fromNameAndType(SUMS,
                QueryableStoreTypes.<String, Long>keyValueStore())).all()) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                b.append("KV ").append(kv.key).append(' ').append(kv.value).append('\n');
            }
        }
        try (KeyValueIterator<Windowed<String>, Long> it = streams.store(StoreQueryParameters.fromNameAndType(COUNTS,
                QueryableStoreTypes.<String, Long>windowStore())).all()) {
            while (it.hasNext()) {
                KeyValue<Windowed<String>, Long> kv = it.next();
                b.append("W ").append(kv.key.key()).append(' ').append(kv.key.window().start()).append(' ').append(kv.value).append('\n');
            }
        }
        out.print(b);
        out.println("END");
        out.flush();
    }
}
