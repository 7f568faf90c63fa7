package dev.ferry.bench;

import dev.ferry.bench.store.RocksJavaPeer;
import dev.ferry.Engine;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
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
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Full scans through RocksJava (engine fixed: RocksDB), the peer of {@link ScanBench} on the
 * same data set and the same options (no compression, the same block cache size).
 *
 * <p><b>Unit: one operation is one whole scan</b>; the report divides by {@code entries}.
 * Variants: {@code rocksjavaBytes} ({@code isValid/key()/value()/next()}, two byte[] per entry),
 * {@code rocksjavaReuse} ({@code key(byte[])/value(byte[])} into reused arrays),
 * {@code rocksjavaDirect} ({@code key(ByteBuffer)/value(ByteBuffer)} into reused direct buffers).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class RocksJavaScanBench {
    @Param({"100", "800"})
    public int valueSize;
    @Param({"forward", "reverse"})
    public String direction;
    @Param({"1000000"})
    public int entries;

    private boolean reverse;
    private RocksJavaPeer reader;
    private RocksDB db;
    private byte[] kbuf;
    private byte[] vbuf;
    private ByteBuffer kdirect;
    private ByteBuffer vdirect;

    /**
     * Opens the data set read-only, runs one warm scan, checks its checksum.
     *
     * @param params the trial
     * @throws RocksDBException on open failure
     */
    @Setup
    public void setup(BenchmarkParams params) throws RocksDBException {
        open(BenchData.method(params.getBenchmark()));
    }

    void open(String m) throws RocksDBException {
        BenchData.Dataset d = BenchData.dataset(Engine.ROCKSDB, entries, valueSize);
        reverse = direction.equals("reverse");
        reader = RocksJavaPeer.openDataset(d.dir, true);
        db = reader.db();
        kbuf = new byte[BenchData.KEY_SIZE];
        vbuf = new byte[valueSize];
        kdirect = ByteBuffer.allocateDirect(BenchData.KEY_SIZE);
        vdirect = ByteBuffer.allocateDirect(valueSize);
        long sum = run(m);
        BenchData.check(getClass().getSimpleName() + "." + m + " " + direction, sum, d.checksum);
    }

    /**
     * Runs one variant by name.
     *
     * @param m the method name
     * @return its checksum
     */
    long run(String m) {
        return m.equals("rocksjavaBytes") ? rocksjavaBytes() : m.equals("rocksjavaReuse") ? rocksjavaReuse() : rocksjavaDirect();
    }

    /** Closes the database. */
    @TearDown
    public void tearDown() {
        reader.close();
    }

    /** @return checksum of the byte[] loop */
    @Benchmark
    public long rocksjavaBytes() {
        return bytesLoop(db, reverse);
    }

    /**
     * RocksJava's plain loop: isValid/key()/value()/next() with a new byte[] per key and value.
     *
     * @param db the database
     * @param reverse scan from the last entry backwards
     * @return the scan's checksum
     */
    static long bytesLoop(RocksDB db, boolean reverse) {
        return reverse ? bytesReverse(db) : bytesForward(db);
    }

    // One method per direction, here and below: a loop that serves both directions makes the JIT's
    // profile of the second direction worse than either alone (Interleaved runs both in one JVM).
    private static long bytesForward(RocksDB db) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                byte[] v = it.value();
                sum += BenchData.touch(k, k.length, v, v.length);
            }
        }
        return sum;
    }

    private static long bytesReverse(RocksDB db) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToLast(); it.isValid(); it.prev()) {
                byte[] k = it.key();
                byte[] v = it.value();
                sum += BenchData.touch(k, k.length, v, v.length);
            }
        }
        return sum;
    }

    /** @return checksum of the reused-array loop */
    @Benchmark
    public long rocksjavaReuse() {
        return reverse ? reuseReverse(db, kbuf, vbuf) : reuseForward(db, kbuf, vbuf);
    }

    private static long reuseForward(RocksDB db, byte[] k, byte[] v) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                int kl = it.key(k);
                int vl = it.value(v);
                sum += BenchData.touch(k, kl, v, vl);
            }
        }
        return sum;
    }

    private static long reuseReverse(RocksDB db, byte[] k, byte[] v) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToLast(); it.isValid(); it.prev()) {
                int kl = it.key(k);
                int vl = it.value(v);
                sum += BenchData.touch(k, kl, v, vl);
            }
        }
        return sum;
    }

    /** @return checksum of the direct-buffer loop */
    @Benchmark
    public long rocksjavaDirect() {
        return reverse ? directReverse(db, kdirect, vdirect) : directForward(db, kdirect, vdirect);
    }

    private static long directForward(RocksDB db, ByteBuffer k, ByteBuffer v) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                k.clear();
                v.clear();
                it.key(k);
                it.value(v);
                sum += BenchData.touch(k, v);
            }
        }
        return sum;
    }

    private static long directReverse(RocksDB db, ByteBuffer k, ByteBuffer v) {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToLast(); it.isValid(); it.prev()) {
                k.clear();
                v.clear();
                it.key(k);
                it.value(v);
                sum += BenchData.touch(k, v);
            }
        }
        return sum;
    }
}
