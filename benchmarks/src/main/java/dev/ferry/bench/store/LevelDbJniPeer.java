package dev.ferry.bench.store;

import static org.fusesource.leveldbjni.JniDBFactory.factory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.DBIterator;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;

/**
 * LevelDBJNI (org.fusesource.leveldbjni:leveldbjni-all, LevelDB 1.x built in) as the LmdbJava suite used it:
 * {@code createIfMissing}, compression off, one {@link WriteBatch} per batch, {@code DB.get(byte[])}, a
 * {@link DBIterator} with {@code peekNext}/{@code peekPrev} for the scans.
 *
 * <p>Thread safety: one thread at a time.
 */
final class LevelDbJniPeer implements KvStore {
    private final Path dir;
    private DB db;

    LevelDbJniPeer(Path dir) {
        this.dir = dir;
        Options o = new Options().createIfMissing(true).compressionType(CompressionType.NONE);
        try {
            db = factory.open(dir.toFile(), o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "leveldbjni";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        try (WriteBatch b = db.createWriteBatch()) {
            for (int i = from; i < to; i++) {
                b.put(keys.get(i), values.get(i));
            }
            db.write(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return db.get(key);
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        try (DBIterator it = db.iterator()) {
            for (it.seekToFirst(); it.hasNext(); it.next()) {
                Map.Entry<byte[], byte[]> e = it.peekNext();
                n++;
                if (!visitor.visit(ByteBuffer.wrap(e.getKey()).asReadOnlyBuffer(), ByteBuffer.wrap(e.getValue()).asReadOnlyBuffer())) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    @Override
    public long scanReverse(Visitor visitor) {
        long n = 0;
        try (DBIterator it = db.iterator()) {
            // leveldbjni: after seekToLast the last entry is peekNext(); prev() steps back and returns the entry it leaves
            it.seekToLast();
            if (!it.hasNext()) {
                return 0;
            }
            Map.Entry<byte[], byte[]> e = it.peekNext();
            while (true) {
                n++;
                if (!visitor.visit(ByteBuffer.wrap(e.getKey()).asReadOnlyBuffer(), ByteBuffer.wrap(e.getValue()).asReadOnlyBuffer())) {
                    break;
                }
                if (!it.hasPrev()) {
                    break;
                }
                e = it.prev();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (db != null) {
            try {
                db.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            db = null;
        }
    }
}
