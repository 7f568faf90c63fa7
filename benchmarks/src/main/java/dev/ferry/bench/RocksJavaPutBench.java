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
import org.rocksdb.RocksDBException;

/**
 * Single puts through RocksJava ({@code RocksDB.put(WriteOptions, key, off, len, value, off, len)}),
 * the peer of {@link PutBench}. <b>Unit: ns per put.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class RocksJavaPutBench extends PeerWriteBase {
    @Override
    boolean rocks() {
        return true;
    }

    /**
     * 1,000 puts.
     *
     * @throws RocksDBException on failure
     */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void rocksjava() throws RocksDBException {
        int p = wk.take();
        byte[] v = wk.value;
        for (int i = p; i < p + WriteKeys.OPS; i++) {
            byte[] k = wk.keys[i];
            db.put(wo, k, 0, k.length, v, 0, v.length);
        }
    }
}
