package dev.ferry.bench.kafka;

import dev.ferry.bench.BenchData;
import dev.ferry.kafka.TestContext;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Where a restore's time goes: the restore benchmark's work ({@link KafkaStoreBase#restore}) split into
 * its phases (open, restore callbacks, flush, close), per store, for profiling (not a benchmark of
 * record: no forks, no statistics).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.ferry.bench.kafka.RestorePhases [rounds] [builtin|rocksdb-jni|rocksdb-ffm|lmdb-jni|lmdb-ffm ...]</pre>
 *
 * <p>Each round first runs {@link KafkaStoreBase#setup()} (the data, and one restore into its own
 * store), then the timed restore. Ferry's stores only: {@code -Dgroup=N} hands N restore batches over
 * at once, {@code -Dsorted=true} sorts each handed-over list by key first (how the measurements in
 * docs/kafka-streams.md "Restoration" separated transaction size from key order); {@code -Drocksdb.options=...}
 * sets {@code ferry.rocksdb.options} for Ferry's RocksDB stores; {@code -Dentries=N} restores N records (default 200,000); {@code -DrestoreBuffer=N} sets {@code ferry.restore.buffer.bytes}.
 */
public final class RestorePhases {
    private RestorePhases() {
    }

    /**
     * @param args rounds, then the stores to run (all five by default)
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<String> which = args.length > 1 ? List.of(args).subList(1, args.length)
                : List.of("builtin", "rocksdb-jni", "rocksdb-ffm", "lmdb-jni", "lmdb-ffm");
        for (int round = 0; round < rounds; round++) {
            for (String w : which) {
                KafkaStoreBase b;
                if (w.equals("builtin")) {
                    b = new RocksJavaKafkaBench();
                } else {
                    KafkaBench k = new KafkaBench();
                    k.engine = w.substring(0, w.indexOf('-')).toUpperCase(java.util.Locale.ROOT);
                    k.binding = w.substring(w.indexOf('-') + 1);
                    k.restoreBuffer = System.getProperty("restoreBuffer", "default"); // ferry.restore.buffer.bytes
                    b = k;
                }
                b.entries = Integer.getInteger("entries", 200_000);
                b.valueSize = 100;
                b.setup();
                Path dir = BenchData.scratch("phases-" + w);
                try {
                    com.sun.management.OperatingSystemMXBean os =
                            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
                    long c0 = os.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    TestContext ctx = new TestContext(dir.resolve("state").toFile());
                    ctx.configs.putAll(b.configs());
                    if (System.getProperty("rocksdb.options") != null && !w.equals("builtin")) { // e.g. write_buffer_size=16777216
                        ctx.configs.put(dev.ferry.kafka.FerryStoreConfig.ROCKSDB_OPTIONS, System.getProperty("rocksdb.options"));
                    }
                    KeyValueStore<Bytes, byte[]> s = b.supplier().get();
                    s.init(ctx, s);
                    long t1 = System.nanoTime();
                    if (ctx.restoreCallback instanceof RecordBatchingStateRestoreCallback rb) {
                        for (List<ConsumerRecord<byte[], byte[]>> batch : b.records) {
                            rb.restoreBatch(batch);
                        }
                    } else {
                        BatchingStateRestoreCallback bb = (BatchingStateRestoreCallback) ctx.restoreCallback;
                        int group = Integer.getInteger("group", 1); // restore batches handed over at once
                        List<KeyValue<byte[], byte[]>> batch = new java.util.ArrayList<>();
                        for (int i = 0; i < b.pairs.size(); i++) {
                            batch.addAll(b.pairs.get(i));
                            if ((i + 1) % group == 0 || i == b.pairs.size() - 1) {
                                if (Boolean.getBoolean("sorted")) { // what a sorting restore path would hand the engine
                                    batch.sort((x, y) -> java.util.Arrays.compareUnsigned(x.key, y.key));
                                }
                                bb.restoreAll(batch);
                                batch = new java.util.ArrayList<>();
                            }
                        }
                    }
                    long t2 = System.nanoTime();
                    s.flush();
                    long t3 = System.nanoTime();
                    s.close();
                    long t4 = System.nanoTime();
                    long c4 = os.getProcessCpuTime();
                    System.out.printf("%-12s round %d: open %6.1f ms, restore %6.1f ms, flush %6.1f ms, close %6.1f ms, total %6.1f ms (%,d ns/record), process CPU %6.1f ms%n",
                            w, round, ms(t1 - t0), ms(t2 - t1), ms(t3 - t2), ms(t4 - t3), ms(t4 - t0), (t4 - t0) / b.entries, ms(c4 - c0));
                } finally {
                    b.tearDown();
                    BenchData.deleteTree(dir);
                }
            }
        }
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }
}
