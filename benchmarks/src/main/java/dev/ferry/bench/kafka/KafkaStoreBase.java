package dev.ferry.bench.kafka;

import dev.ferry.bench.BenchData;
import dev.ferry.kafka.TestContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A Kafka Streams persistent key-value store driven through {@code KeyValueStore<Bytes, byte[]>},
 * the interface Kafka's caching, logging and metered layers call: the same data (16-byte keys,
 * random values, restored from changelog-like batches of 1,000 records in shuffled order, then
 * flushed) in Kafka's built-in RocksDB store ({@link RocksJavaKafkaBench}) and in Ferry's stores
 * ({@link KafkaBench}). <b>Units:</b> {@code range100}: ns per entry of a {@code range(from, to)}
 * over 100 consecutive keys from a random start, iterator opened and closed each time;
 * {@code all}: ns per entry of a full {@code all()} scan; {@code get}: ns per random {@code get};
 * {@code restore}: ns per record restoring the whole data set into a fresh store through the
 * callback the store registered (flush included).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public abstract class KafkaStoreBase {
    /** Records per restore batch (what the restore consumer hands over at once by default is up to 1,000). */
    static final int RESTORE_BATCH = 1000;
    /** Entries per range. */
    static final int RANGE = 100;

    @Param({"200000"})
    public int entries;
    @Param({"100"})
    public int valueSize;

    byte[][] keys;
    List<List<ConsumerRecord<byte[], byte[]>>> records;
    List<List<KeyValue<byte[], byte[]>>> pairs;
    KeyValueStore<Bytes, byte[]> store;
    private Path dir;
    private int fresh;
    private final SplittableRandom random = new SplittableRandom(42);

    /** @return the supplier of the store under test */
    abstract KeyValueBytesStoreSupplier supplier();

    /** @return the Kafka Streams configuration the store opens with */
    Map<String, Object> configs() {
        return Map.of();
    }

    /** Builds the changelog records, restores them into the store and flushes it. */
    @Setup(Level.Trial)
    public void setup() {
        keys = new byte[entries][];
        for (int i = 0; i < entries; i++) {
            keys[i] = String.format("k%015d", i).getBytes(StandardCharsets.US_ASCII);
        }
        List<Integer> order = new ArrayList<>(entries);
        for (int i = 0; i < entries; i++) {
            order.add(i);
        }
        java.util.Random r = new java.util.Random(1);
        Collections.shuffle(order, r); // changelog order: as the keys were last updated
        records = new ArrayList<>();
        pairs = new ArrayList<>();
        for (int i = 0; i < entries; i += RESTORE_BATCH) {
            List<ConsumerRecord<byte[], byte[]>> rb = new ArrayList<>();
            List<KeyValue<byte[], byte[]>> pb = new ArrayList<>();
            for (int j = i; j < Math.min(entries, i + RESTORE_BATCH); j++) {
                byte[] v = new byte[valueSize];
                r.nextBytes(v);
                rb.add(new ConsumerRecord<>("bench-changelog", 0, j, keys[order.get(j)], v));
                pb.add(KeyValue.pair(keys[order.get(j)], v));
            }
            records.add(rb);
            pairs.add(pb);
        }
        dir = BenchData.scratch(getClass().getSimpleName());
        store = openAndRestore();
        long n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        if (n != entries) {
            throw new IllegalStateException(getClass().getSimpleName() + ": the store holds " + n + " entries, not " + entries);
        }
    }

    /** Opens a fresh store in its own state directory and restores every record into it. */
    KeyValueStore<Bytes, byte[]> openAndRestore() {
        TestContext ctx = new TestContext(dir.resolve("state-" + fresh++).toFile());
        ctx.configs.putAll(configs());
        KeyValueStore<Bytes, byte[]> s = supplier().get();
        s.init(ctx, s);
        if (ctx.restoreCallback instanceof RecordBatchingStateRestoreCallback rb) { // Kafka's built-in store
            for (List<ConsumerRecord<byte[], byte[]>> b : records) {
                rb.restoreBatch(b);
            }
        } else if (ctx.restoreCallback instanceof BatchingStateRestoreCallback bb) {
            for (List<KeyValue<byte[], byte[]>> b : pairs) {
                bb.restoreAll(b);
            }
        } else {
            throw new IllegalStateException("the store registered no batching restore callback: " + ctx.restoreCallback);
        }
        s.flush();
        return s;
    }

    /** Closes the store and deletes its files. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (store != null) {
            store.close();
        }
        BenchData.deleteTree(dir);
    }

    /**
     * One {@code range()} of 100 consecutive keys from a random start; time per entry.
     *
     * @return a sum of value bytes
     */
    @Benchmark
    @OperationsPerInvocation(RANGE)
    public long range100() {
        int from = random.nextInt(entries - RANGE + 1);
        long sum = 0;
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(keys[from]), Bytes.wrap(keys[from + RANGE - 1]))) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                sum += kv.key.get()[15] + kv.value[0];
                n++;
            }
        }
        if (n != RANGE) {
            throw new IllegalStateException("range returned " + n + " entries");
        }
        return sum;
    }

    /**
     * A full scan; the report divides by the entries.
     *
     * @return a sum of value bytes
     */
    @Benchmark
    public long all() {
        long sum = 0;
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                sum += kv.key.get()[15] + kv.value[0];
            }
        }
        return sum;
    }

    /**
     * One random point read.
     *
     * @return the value
     */
    @Benchmark
    public byte[] get() {
        return store.get(Bytes.wrap(keys[random.nextInt(entries)]));
    }

    /**
     * Restores the whole data set into a fresh store (flush included) and closes it; the report
     * divides by the entries.
     *
     * @param bh receives the store
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public void restore(Blackhole bh) {
        KeyValueStore<Bytes, byte[]> s = openAndRestore();
        bh.consume(s);
        s.close();
    }
}
