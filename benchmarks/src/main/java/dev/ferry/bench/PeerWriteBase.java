package dev.ferry.bench;

import dev.ferry.bench.store.KvStore;
import dev.ferry.bench.store.LmdbJavaPeer;
import dev.ferry.bench.store.RocksJavaPeer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.lmdbjava.Dbi;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Shared state of the peers' write benchmarks: a fresh RocksJava database or lmdbjava
 * environment per trial, opened by {@link RocksJavaPeer#openDataset} or {@link LmdbJavaPeer#openDataset}
 * with the options of {@link WriteBase} (RocksDB: WAL on, no sync, no compression, same cache; LMDB:
 * NOSYNC, NOTLS). The benchmarks' loops call RocksJava's and lmdbjava's own handles, not {@link KvStore}.
 * Subclasses pick the engine.
 */
@State(Scope.Thread)
public abstract class PeerWriteBase {
    @Param({"seq", "random"})
    public String order;
    @Param({"100"})
    public int valueSize;

    WriteKeys wk;
    private Path dir;
    private KvStore store;
    WriteOptions wo;
    RocksDB db;
    Env<ByteBuffer> env;
    Dbi<ByteBuffer> dbi;
    ByteBuffer kb;
    ByteBuffer vb;

    /** @return true for RocksJava, false for lmdbjava */
    abstract boolean rocks();

    /**
     * Creates the store.
     *
     * @throws RocksDBException on failure
     */
    @Setup
    public void setup() throws RocksDBException {
        wk = new WriteKeys(order, valueSize);
        dir = BenchData.scratch(getClass().getSimpleName());
        Path p = dir.resolve("db");
        // opened and closed through the shared adapters; the benchmarks' loops call the library's own handles
        if (rocks()) {
            RocksJavaPeer r = RocksJavaPeer.openDataset(p, false);
            store = r;
            db = r.db();
            wo = r.writeOptions();
        } else {
            p.toFile().mkdirs();
            LmdbJavaPeer l = LmdbJavaPeer.openDataset(p, EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
            store = l;
            env = l.env();
            dbi = l.dbi();
            kb = ByteBuffer.allocateDirect(BenchData.KEY_SIZE);
            vb = ByteBuffer.allocateDirect(valueSize).put(0, wk.value);
        }
    }

    /** Closes and deletes the store. */
    @TearDown
    public void tearDown() {
        if (store != null) {
            store.close();
        }
        BenchData.deleteTree(dir);
    }

    ByteBuffer key(int i) {
        kb.clear();
        kb.put(0, wk.keys[i]);
        return kb;
    }
}
