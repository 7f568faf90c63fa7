package dev.ferry.bench;

import dev.ferry.bench.store.RocksJavaPeer;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.rocksjava.RocksInterop;
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
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Issue "speed up existing RocksJava code": the same RocksJava {@code RocksIterator} driven by
 * RocksJava's isValid/key/value/next loop ({@code rocksjavaBytes}) and wrapped in a Ferry cursor
 * ({@code rocksjavaInterop}, {@link RocksInterop#wrap}), in the same JVM, over the RocksDB scan
 * data set opened by RocksJava. The score is ns per whole forward scan of {@code entries}; the
 * report divides by {@code entries}. Both variants touch entries like every scan and are checked
 * against the floor's checksum in setup. The {@code binding} parameter sets {@code ferry.binding}
 * for the fork before Ferry is first used.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.UNSAFE, BenchData.HEAP})
public class InteropScanBench {
    /** Ferry binding of the wrapped cursor. */
    @Param({"jni", "ffm"})
    public String binding;
    /** Value size of the data set. */
    @Param({"100"})
    public int valueSize;
    /** Entries in the data set. */
    @Param({"1000000"})
    public int entries;

    private RocksJavaPeer reader;
    private RocksDB db;

    /**
     * Opens the RocksDB scan data set with RocksJava and checks both variants' checksums.
     *
     * @throws RocksDBException on open failure
     */
    @Setup
    public void setup() throws RocksDBException {
        System.setProperty("ferry.binding", binding);
        BenchData.Dataset d = BenchData.dataset(Engine.ROCKSDB, entries, valueSize);
        reader = RocksJavaPeer.openDataset(d.dir, true);
        db = reader.db();
        if (!RocksInterop.binding().equals(binding)) {
            throw new IllegalStateException("Ferry uses binding " + RocksInterop.binding() + ", expected " + binding);
        }
        BenchData.check("InteropScanBench.rocksjavaBytes", rocksjavaBytes(), d.checksum);
        BenchData.check("InteropScanBench.rocksjavaInterop-" + binding, rocksjavaInterop(), d.checksum);
    }

    /** Closes the database. */
    @TearDown
    public void tearDown() {
        reader.close();
    }

    /** @return checksum of RocksJava's own loop over a new iterator */
    @Benchmark
    public long rocksjavaBytes() {
        return RocksJavaScanBench.bytesLoop(db, false);
    }

    /** @return checksum of a Ferry cursor wrapping the same kind of RocksJava iterator */
    @Benchmark
    public long rocksjavaInterop() {
        long sum = 0;
        try (RocksIterator it = db.newIterator()) {
            it.seekToFirst();
            try (Cursor c = RocksInterop.wrap(it)) {
                while (c.next()) {
                    sum += BenchData.touch(c.key(), c.value());
                }
            }
        }
        return sum;
    }
}
