package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

/**
 * H2's MVStore as the LmdbJava suite used it: one file, auto-commit off, a map of {@code byte[]} to
 * {@code byte[]} (MVStore's default data type, which orders byte arrays as unsigned bytes); a batch is one
 * {@code put} per entry and one {@code commit()}, the scans a {@link Cursor} (forward or reverse).
 *
 * <p>Thread safety: one thread at a time.
 */
final class MvStorePeer implements KvStore {
    private final Path dir;
    private MVStore store;
    private MVMap<byte[], byte[]> map;

    MvStorePeer(Path dir) {
        this.dir = dir;
        store = new MVStore.Builder().fileName(dir.resolve("mvstore.db").toString()).autoCommitDisabled().open();
        map = store.openMap("kv");
    }

    @Override
    public String name() {
        return "mvstore";
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        for (int i = from; i < to; i++) {
            map.put(keys.get(i), values.get(i));
        }
        store.commit();
    }

    @Override
    public byte[] get(byte[] key) {
        return map.get(key);
    }

    @Override
    public long scan(Visitor visitor) {
        return walk(map.cursor(null, null, false), visitor);
    }

    @Override
    public long scanReverse(Visitor visitor) {
        return walk(map.cursor(null, null, true), visitor);
    }

    private static long walk(Cursor<byte[], byte[]> c, Visitor visitor) {
        long n = 0;
        while (c.hasNext()) {
            byte[] k = c.next();
            n++;
            if (!visitor.visit(ByteBuffer.wrap(k).asReadOnlyBuffer(), ByteBuffer.wrap(c.getValue()).asReadOnlyBuffer())) {
                break;
            }
        }
        return n;
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
