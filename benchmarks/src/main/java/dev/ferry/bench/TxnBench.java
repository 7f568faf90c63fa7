package dev.ferry.bench;

import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.Transaction;
import dev.ferry.TransactionMode;
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

/**
 * One read-modify-write transaction per invocation: begin, {@code getForUpdate} of a key,
 * {@code put} of it, commit, close, over {@link #KEYS} preloaded keys in turn (RocksDB: a
 * pessimistic TransactionDB store; LMDB: its write transaction; options as {@link WriteBase}).
 * <b>Unit: ns per transaction.</b> Peers: {@link RocksJavaTxnBench}, {@link LmdbJavaTxnBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class TxnBench {
    /** Keys the transactions take in turn. */
    static final int KEYS = 10_000;

    @Param({"ROCKSDB", "LMDB"})
    public String engine;
    @Param({"jni", "ffm"})
    public String binding;
    @Param({"100"})
    public int valueSize;

    Store store;
    byte[][] keys;
    byte[] value;
    int next;
    private Path dir;

    /** Creates and fills the store. */
    @Setup
    public void setup() {
        Engine e = Engine.valueOf(engine);
        dir = BenchData.scratch(getClass().getSimpleName());
        Path db = dir.resolve("db");
        db.toFile().mkdirs();
        StoreOptions o = BenchData.options(e, binding, false);
        if (e == Engine.ROCKSDB) {
            o.transactions(TransactionMode.PESSIMISTIC);
        }
        store = Store.open(db, o);
        keys = keys();
        value = new byte[valueSize];
        for (byte[] k : keys) {
            store.put(k, value);
        }
    }

    static byte[][] keys() {
        byte[][] k = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            k[i] = BenchData.key(i);
        }
        return k;
    }

    /** Closes and deletes the store. */
    @TearDown
    public void tearDown() {
        store.close();
        BenchData.deleteTree(dir);
    }

    /**
     * One transaction: getForUpdate, put, commit.
     *
     * @return the value read
     */
    @Benchmark
    public byte[] ferry() {
        byte[] k = keys[next];
        next = next + 1 == KEYS ? 0 : next + 1;
        try (Transaction txn = store.beginTransaction()) {
            byte[] v = txn.getForUpdate(k);
            txn.put(k, value);
            txn.commit();
            return v;
        }
    }
}
