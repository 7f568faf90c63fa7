package dev.ferry.bench;

import dev.ferry.bench.store.LmdbJavaPeer;
import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.lmdbjava.Cursor;
import org.lmdbjava.Dbi;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Full scans through lmdbjava (engine fixed: LMDB), the peer of {@link ScanBench} on the same
 * data set. lmdbjava loads its own extracted copy of the same liblmdb (org.lmdbjava:native).
 *
 * <p><b>Unit: one operation is one whole scan</b>; the report divides by {@code entries}.
 * Variant {@code lmdbjava}: a read transaction, a {@link Cursor} {@code first()/next()} loop
 * ({@code last()/prev()} in reverse) with lmdbjava's default (Unsafe-based) ByteBuffer proxy,
 * its fastest standard loop without extra libraries.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class LmdbJavaScanBench {
    @Param({"100", "800"})
    public int valueSize;
    @Param({"forward", "reverse"})
    public String direction;
    @Param({"1000000"})
    public int entries;

    private boolean reverse;
    private LmdbJavaPeer lmdb;
    private Env<ByteBuffer> env;
    private Dbi<ByteBuffer> dbi;

    /**
     * Opens the data set read-only, runs one warm scan, checks its checksum.
     *
     * @param params the trial
     */
    @Setup
    public void setup(BenchmarkParams params) {
        BenchData.Dataset d = BenchData.dataset(Engine.LMDB, entries, valueSize);
        reverse = direction.equals("reverse");
        lmdb = LmdbJavaPeer.openDataset(d.dir, EnvFlags.MDB_RDONLY_ENV, EnvFlags.MDB_NOTLS);
        env = lmdb.env(); // the loops call lmdbjava's own handles, not KvStore
        dbi = lmdb.dbi();
        BenchData.check(getClass().getSimpleName() + ".lmdbjava " + direction, lmdbjava(), d.checksum);
    }

    /** Closes the environment. */
    @TearDown
    public void tearDown() {
        lmdb.close();
    }

    /** @return checksum of the cursor loop */
    @Benchmark
    public long lmdbjava() {
        return reverse ? lmdbjavaReverse(env, dbi) : lmdbjavaForward(env, dbi);
    }

    // One method per direction (as ScanBench.ferry): see RocksJavaScanBench.bytesLoop.
    private static long lmdbjavaForward(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi) {
        long sum = 0;
        try (Txn<ByteBuffer> txn = env.txnRead(); Cursor<ByteBuffer> c = dbi.openCursor(txn)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                sum += BenchData.touch(c.key(), c.val());
            }
        }
        return sum;
    }

    private static long lmdbjavaReverse(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi) {
        long sum = 0;
        try (Txn<ByteBuffer> txn = env.txnRead(); Cursor<ByteBuffer> c = dbi.openCursor(txn)) {
            for (boolean ok = c.last(); ok; ok = c.prev()) {
                sum += BenchData.touch(c.key(), c.val());
            }
        }
        return sum;
    }
}
