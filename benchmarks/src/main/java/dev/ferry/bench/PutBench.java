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
 * Single puts, sequential or random keys ({@code order}), into a fresh store.
 * <b>Unit: ns per put</b> (1,000 puts per invocation). Variants: {@code ferry}
 * ({@code Store.put(cf, key, off, len, value, off, len)}), {@code floor} (rocksdb_put /
 * one LMDB write transaction per put, in C, 1,000 per JNI call). Peers:
 * {@link RocksJavaPutBench}, {@link LmdbJavaPutBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class PutBench extends WriteBase {
    /** 1,000 Ferry puts. */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void ferry() {
        int p = wk.take();
        byte[][] keys = wk.keys;
        byte[] v = wk.value;
        var cf = store.defaultColumnFamily();
        for (int i = p; i < p + WriteKeys.OPS; i++) {
            byte[] k = keys[i];
            store.put(cf, k, 0, k.length, v, 0, v.length);
        }
    }

    /** 1,000 puts in C. */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void floor() {
        int p = wk.take();
        floorDb.puts(wk.packedAddr + (long) p * BenchData.KEY_SIZE, WriteKeys.OPS, BenchData.KEY_SIZE, wk.valueAddr, valueSize, 1);
    }
}
