package dev.ferry.bench;

import dev.ferry.bench.store.RocksJavaPeer;
import dev.ferry.Engine;
import java.util.concurrent.TimeUnit;
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
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Random point reads through RocksJava ({@code RocksDB.get(byte[])}), the peer of
 * {@link GetBench}: same keys, same data, same options. <b>Unit: ns per get.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class RocksJavaGetBench {
    @Param({"100"})
    public int valueSize;
    @Param({"1000000"})
    public int entries;

    private GetBench.RandomKeys rk;
    private int pos;
    private RocksJavaPeer reader;
    private RocksDB db;

    /**
     * Opens the data set and checks one full pass.
     *
     * @throws RocksDBException on failure
     */
    @Setup
    public void setup() throws RocksDBException {
        BenchData.Dataset d = BenchData.dataset(Engine.ROCKSDB, entries, valueSize);
        rk = new GetBench.RandomKeys(GetBench.KEYS, entries, valueSize);
        reader = RocksJavaPeer.openDataset(d.dir, true);
        db = reader.db();
        long sum = 0;
        for (int i = 0; i < GetBench.KEYS / GetBench.BATCH; i++) {
            sum += rocksjava();
        }
        BenchData.check("RocksJavaGetBench.rocksjava", sum, rk.expected);
    }

    /** Closes the database. */
    @TearDown
    public void tearDown() {
        reader.close();
    }

    /**
     * @return checksum of 1,000 gets
     * @throws RocksDBException on failure
     */
    @Benchmark
    @OperationsPerInvocation(GetBench.BATCH)
    public long rocksjava() throws RocksDBException {
        long sum = 0;
        byte[][] keys = rk.keys;
        int p = pos;
        for (int i = 0; i < GetBench.BATCH; i++) {
            byte[] v = db.get(keys[p++]);
            sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
        }
        pos = p == GetBench.KEYS ? 0 : p;
        return sum;
    }
}
