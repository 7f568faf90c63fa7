package dev.ferry.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteOptions;

/**
 * Shared state of the peers' write benchmarks: a fresh RocksJava database or lmdbjava
 * environment per trial, with the options of {@link WriteBase} (RocksDB: WAL on, no sync, no
 * compression, same cache; LMDB: NOSYNC, NOTLS). Subclasses pick the engine.
 */
@State(Scope.Thread)
public abstract class PeerWriteBase {
    @Param({"seq", "random"})
    public String order;
    @Param({"100"})
    public int valueSize;

    WriteKeys wk;
    private Path dir;
    Options options;
    LRUCache cache;
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
        if (rocks()) {
            RocksDB.loadLibrary();
            cache = new LRUCache(BenchData.CACHE_BYTES);
            options = new Options().setCreateIfMissing(true).setCompressionType(CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
            db = RocksDB.open(options, p.toString());
            wo = new WriteOptions();
        } else {
            p.toFile().mkdirs();
            env = Env.create().setMapSize(4L << 30).setMaxDbs(1).open(p.toFile(), EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOTLS);
            dbi = env.openDbi((byte[]) null, DbiFlags.MDB_CREATE);
            kb = ByteBuffer.allocateDirect(BenchData.KEY_SIZE);
            vb = ByteBuffer.allocateDirect(valueSize).put(0, wk.value);
        }
    }

    /** Closes and deletes the store. */
    @TearDown
    public void tearDown() {
        if (db != null) {
            db.close();
            wo.close();
            options.close();
            cache.close();
        }
        if (env != null) {
            env.close();
        }
        BenchData.deleteTree(dir);
    }

    ByteBuffer key(int i) {
        kb.clear();
        kb.put(0, wk.keys[i]);
        return kb;
    }
}
