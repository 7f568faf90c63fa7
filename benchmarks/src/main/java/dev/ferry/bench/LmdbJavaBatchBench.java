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
import java.nio.ByteBuffer;
import org.lmdbjava.Txn;

/**
 * Batches of 1,000 puts through lmdbjava (one write transaction per batch), the peer of
 * {@link BatchBench}. <b>Unit: ns per put.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class LmdbJavaBatchBench extends PeerWriteBase {
    @Override
    boolean rocks() {
        return false;
    }

    /** One transaction of 1,000 puts. */
    @Benchmark
    @OperationsPerInvocation(WriteKeys.OPS)
    public void lmdbjava() {
        int p = wk.take();
        try (Txn<ByteBuffer> txn = env.txnWrite()) {
            for (int i = p; i < p + WriteKeys.OPS; i++) {
                dbi.put(txn, key(i), vb);
            }
            txn.commit();
        }
    }
}
