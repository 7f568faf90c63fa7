package dev.ferry.bench;

import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Shared state of {@link PutBench} and {@link BatchBench}: a fresh store per trial in a scratch
 * directory (RocksDB: WAL on, no sync, no compression; LMDB: NOSYNC), opened by Ferry or by the
 * floor depending on the trial's method, deleted afterwards.
 */
@State(Scope.Thread)
public abstract class WriteBase {
    @Param({"ROCKSDB", "LMDB"})
    public String engine;
    @Param({"jni", "ffm"})
    public String binding;
    @Param({"seq", "random"})
    public String order;
    @Param({"100"})
    public int valueSize;

    WriteKeys wk;
    Store store;
    WriteBatch batch;
    NativeFloor.Db floorDb;
    private Path dir;

    /**
     * Creates the store for the trial's method.
     *
     * @param params the trial
     */
    @Setup
    public void setup(BenchmarkParams params) {
        Engine e = Engine.valueOf(engine);
        wk = new WriteKeys(order, valueSize);
        dir = BenchData.scratch(getClass().getSimpleName());
        Path db = dir.resolve("db");
        db.toFile().mkdirs();
        if (BenchData.method(params.getBenchmark()).equals("floor")) {
            NativeFloor.attach(e, binding);
            floorDb = NativeFloor.open(e, db, false, 4L << 30);
        } else {
            store = Store.open(db, BenchData.options(e, binding, false));
            batch = new WriteBatch();
        }
    }

    /** Closes and deletes the store. */
    @TearDown
    public void tearDown() {
        if (store != null) {
            batch.close();
            store.close();
        }
        if (floorDb != null) {
            floorDb.close();
        }
        BenchData.deleteTree(dir);
    }
}
