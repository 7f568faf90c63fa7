package dev.ferry.bench;

import java.nio.file.Path;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * A data set opened read-only by RocksJava with the options every reader uses (no compression,
 * an LRU block cache of {@link BenchData#CACHE_BYTES}), and the objects to close with it.
 */
final class RocksJavaReader implements AutoCloseable {
    /** The open database. */
    final RocksDB db;
    private final LRUCache cache;
    private final Options options;

    private RocksJavaReader(LRUCache cache, Options options, RocksDB db) {
        this.cache = cache;
        this.options = options;
        this.db = db;
    }

    /**
     * Opens a data set read-only.
     *
     * @param dir the data set's directory
     * @return the reader
     * @throws RocksDBException on open failure
     */
    static RocksJavaReader open(Path dir) throws RocksDBException {
        RocksDB.loadLibrary();
        LRUCache cache = new LRUCache(BenchData.CACHE_BYTES);
        Options options = new Options().setCreateIfMissing(false).setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        try {
            return new RocksJavaReader(cache, options, RocksDB.openReadOnly(options, dir.toString()));
        } catch (RocksDBException | RuntimeException e) {
            options.close();
            cache.close();
            throw e;
        }
    }

    /** Closes the database, its options and its cache. */
    @Override
    public void close() {
        db.close();
        options.close();
        cache.close();
    }
}
