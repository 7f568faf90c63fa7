package dev.ferry.bench;

import java.nio.file.Path;
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
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Transaction;
import org.rocksdb.TransactionDB;
import org.rocksdb.TransactionDBOptions;
import org.rocksdb.WriteOptions;

/**
 * The peer of {@link TxnBench} on RocksJava's {@code TransactionDB}: begin, {@code getForUpdate},
 * {@code put}, commit, close. <b>Unit: ns per transaction.</b>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class RocksJavaTxnBench {
    @Param({"100"})
    public int valueSize;

    private Path dir;
    LRUCache cache;
    Options options;
    TransactionDBOptions tdbOptions;
    TransactionDB db;
    WriteOptions wo;
    ReadOptions ro;
    byte[][] keys;
    byte[] value;
    int next;

    /**
     * Creates and fills the database.
     *
     * @throws RocksDBException on failure
     */
    @Setup
    public void setup() throws RocksDBException {
        RocksDB.loadLibrary();
        dir = BenchData.scratch(getClass().getSimpleName());
        cache = new LRUCache(BenchData.CACHE_BYTES);
        options = new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        tdbOptions = new TransactionDBOptions();
        db = TransactionDB.open(options, tdbOptions, dir.resolve("db").toString());
        wo = new WriteOptions();
        ro = new ReadOptions();
        keys = TxnBench.keys();
        value = new byte[valueSize];
        for (byte[] k : keys) {
            db.put(wo, k, value);
        }
    }

    /** Closes and deletes the database. */
    @TearDown
    public void tearDown() {
        db.close();
        ro.close();
        wo.close();
        tdbOptions.close();
        options.close();
        cache.close();
        BenchData.deleteTree(dir);
    }

    /**
     * One transaction.
     *
     * @return the value read
     * @throws RocksDBException on failure
     */
    @Benchmark
    public byte[] rocksjava() throws RocksDBException {
        byte[] k = keys[next];
        next = next + 1 == TxnBench.KEYS ? 0 : next + 1;
        try (Transaction t = db.beginTransaction(wo)) {
            byte[] v = t.getForUpdate(ro, k, true);
            t.put(k, value);
            t.commit();
            return v;
        }
    }
}
