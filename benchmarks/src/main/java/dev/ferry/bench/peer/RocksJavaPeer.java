package dev.ferry.bench.peer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.rocksdb.CompressionType;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksJava (rocksdbjni) with RocksDB's default options ({@code createIfMissing} set; with the setting
 * {@code nocompression} also {@code NO_COMPRESSION}, as the LmdbJava suite): {@code
 * RocksDB.get(byte[])}, a {@link WriteBatch} per batch, an iterator for the scan.
 *
 * <p>Thread safety: RocksDB's handles are thread-safe; one thread at a time here.
 */
final class RocksJavaPeer implements PeerStore {
    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private Options options;
    private WriteOptions writeOptions;
    private RocksDB db;

    RocksJavaPeer(Path dir, Settings set) {
        this.dir = dir;
        options = new Options().setCreateIfMissing(true);
        if (set.flag("nocompression")) {
            options.setCompressionType(CompressionType.NO_COMPRESSION);
        }
        writeOptions = new WriteOptions();
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            throw new IllegalStateException("RocksJava failed to open " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "rocksjava";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        try (WriteBatch b = new WriteBatch()) {
            for (int i = from; i < to; i++) {
                b.put(keys.get(i), values.get(i));
            }
            db.write(writeOptions, b);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(it.key()).asReadOnlyBuffer(), ByteBuffer.wrap(it.value()).asReadOnlyBuffer())) {
                    break;
                }
            }
        }
        return n;
    }

    @Override
    public long scanReverse(Visitor visitor) {
        long n = 0;
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToLast(); it.isValid(); it.prev()) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(it.key()).asReadOnlyBuffer(), ByteBuffer.wrap(it.value()).asReadOnlyBuffer())) {
                    break;
                }
            }
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return PeerStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (db != null) {
            db.close();
            writeOptions.close();
            options.close();
            db = null;
        }
    }
}
