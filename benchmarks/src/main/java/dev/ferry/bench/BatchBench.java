package dev.ferry.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Batches of 1,000 puts written atomically, sequential or random keys, into a fresh store.
 * <b>Unit: ns per put</b> (one batch per invocation). Variants: {@code ferry} (a reused
 * {@code WriteBatch}, {@code Store.write}), {@code floor} (rocksdb_writebatch / one LMDB write
 * transaction per batch, in C). Peers: {@link RocksJavaBatchBench}, {@link LmdbJavaBatchBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class BatchBench extends WriteBase {
    /** One Ferry batch of 1,000 puts. */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void ferry() {
        int p = wk.take();
        byte[][] keys = wk.keys;
        byte[] v = wk.value;
        batch.clear();
        for (int i = p; i < p + WriteKeys.OPS; i++) {
            batch.put(keys[i], v);
        }
        store.write(batch);
    }

    /** One batch of 1,000 puts in C. */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void floor() {
        int p = wk.take();
        floorDb.puts(wk.packedAddr + (long) p * BenchData.KEY_SIZE, WriteKeys.OPS, BenchData.KEY_SIZE, wk.valueAddr, valueSize, WriteKeys.OPS);
    }
}
