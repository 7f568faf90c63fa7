package dev.ferry.bench;

import dev.ferry.bench.store.LmdbJavaPeer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The peer of {@link TxnBench} on lmdbjava: {@code txnWrite}, {@code Dbi.get}, {@code Dbi.put},
 * commit, close (NOSYNC, NOTLS as {@link PeerWriteBase}). <b>Unit: ns per transaction.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class LmdbJavaTxnBench {
    @Param({"100"})
    public int valueSize;

    private Path dir;
    private LmdbJavaPeer lmdb;
    Env<ByteBuffer> env;
    Dbi<ByteBuffer> dbi;
    ByteBuffer[] keys;
    ByteBuffer value;
    int next;

    /** Creates and fills the environment. */
    @Setup
    public void setup() {
        dir = BenchData.scratch(getClass().getSimpleName());
        Path p = dir.resolve("db");
        p.toFile().mkdirs();
        lmdb = LmdbJavaPeer.openDataset(p, EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
        env = lmdb.env(); // the loops call lmdbjava's own handles, not KvStore
        dbi = lmdb.dbi();
        byte[][] k = TxnBench.keys();
        keys = new ByteBuffer[k.length];
        value = ByteBuffer.allocateDirect(valueSize);
        for (int i = 0; i < k.length; i++) {
            keys[i] = ByteBuffer.allocateDirect(k[i].length).put(0, k[i]);
            dbi.put(keys[i], value);
        }
    }

    /** Closes and deletes the environment. */
    @TearDown
    public void tearDown() {
        lmdb.close();
        BenchData.deleteTree(dir);
    }

    /**
     * One transaction.
     *
     * @return the value read
     */
    @Benchmark
    public ByteBuffer lmdbjava() {
        ByteBuffer k = keys[next];
        next = next + 1 == TxnBench.KEYS ? 0 : next + 1;
        try (Txn<ByteBuffer> t = env.txnWrite()) {
            ByteBuffer v = dbi.get(t, k);
            dbi.put(t, k, value);
            t.commit();
            return v;
        }
    }
}
