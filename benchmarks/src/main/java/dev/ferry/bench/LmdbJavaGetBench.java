package dev.ferry.bench;

import dev.ferry.bench.store.LmdbJavaPeer;
import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Random point reads through lmdbjava ({@code Dbi.get(txn, key)} with direct key buffers, one
 * read transaction per 1,000 gets), the peer of {@link GetBench}. <b>Unit: ns per get.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class LmdbJavaGetBench {
    @Param({"100"})
    public int valueSize;
    @Param({"1000000"})
    public int entries;

    private GetBench.RandomKeys rk;
    private ByteBuffer[] keyBufs;
    private int pos;
    private LmdbJavaPeer lmdb;
    private Env<ByteBuffer> env;
    private Dbi<ByteBuffer> dbi;

    /** Opens the data set and checks one full pass. */
    @Setup
    public void setup() {
        BenchData.Dataset d = BenchData.dataset(Engine.LMDB, entries, valueSize);
        rk = new GetBench.RandomKeys(GetBench.KEYS, entries, valueSize);
        keyBufs = new ByteBuffer[GetBench.KEYS];
        for (int i = 0; i < GetBench.KEYS; i++) {
            keyBufs[i] = ByteBuffer.allocateDirect(BenchData.KEY_SIZE).put(0, rk.keys[i]);
        }
        lmdb = LmdbJavaPeer.openDataset(d.dir, EnvFlags.MDB_RDONLY_ENV, EnvFlags.MDB_NOTLS);
        env = lmdb.env(); // the loops call lmdbjava's own handles, not KvStore
        dbi = lmdb.dbi();
        long sum = 0;
        for (int i = 0; i < GetBench.KEYS / GetBench.BATCH; i++) {
            sum += lmdbjava();
        }
        BenchData.check("LmdbJavaGetBench.lmdbjava", sum, rk.expected);
    }

    /** Closes the environment. */
    @TearDown
    public void tearDown() {
        lmdb.close();
    }

    /** @return checksum of 1,000 gets in one read transaction */
    @Benchmark
    @OperationsPerInvocation(GetBench.BATCH)
    public long lmdbjava() {
        long sum = 0;
        int p = pos;
        try (Txn<ByteBuffer> txn = env.txnRead()) {
            for (int i = 0; i < GetBench.BATCH; i++) {
                ByteBuffer v = dbi.get(txn, keyBufs[p++]);
                int vl = v.remaining();
                sum += vl + (v.get(0) & 0xFF) + (v.get(vl - 1) & 0xFF);
            }
        }
        pos = p == GetBench.KEYS ? 0 : p;
        return sum;
    }
}
