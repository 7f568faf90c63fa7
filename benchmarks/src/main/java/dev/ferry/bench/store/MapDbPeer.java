package dev.ferry.bench.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * MapDB 3 as the LmdbJava suite used it: a file DB with memory-mapped files, concurrency off, no
 * transactions, the file's start size preallocated ({@code size=BYTES} setting; default 64 MiB), a
 * {@code treeMap} with {@code BYTE_ARRAY} key and value serializers. A batch is one {@code put} per entry.
 *
 * <p>Thread safety: one thread at a time.
 */
final class MapDbPeer implements KvStore {
    private final Path dir;
    private DB db;
    private BTreeMap<byte[], byte[]> map;

    MapDbPeer(Path dir, Settings set) {
        this.dir = dir;
        db = DBMaker.fileDB(dir.resolve("map.db").toFile()).fileMmapEnable().concurrencyDisable()
                .allocateStartSize(set.number("size", 64L << 20)).make();
        map = db.treeMap("kv", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY).createOrOpen();
    }

    @Override
    public String name() {
        return "mapdb";
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
    }

    @Override
    public byte[] get(byte[] key) {
        return map.get(key);
    }

    @Override
    public long scan(Visitor visitor) {
        return walk(map.entryIterator(), visitor);
    }

    @Override
    public long scanReverse(Visitor visitor) {
        return walk(map.descendingMap().entrySet().iterator(), visitor);
    }

    private static long walk(Iterator<Map.Entry<byte[], byte[]>> it, Visitor visitor) {
        long n = 0;
        while (it.hasNext()) {
            Map.Entry<byte[], byte[]> e = it.next();
            n++;
            if (!visitor.visit(ByteBuffer.wrap(e.getKey()).asReadOnlyBuffer(), ByteBuffer.wrap(e.getValue()).asReadOnlyBuffer())) {
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
        if (db != null) {
            db.close();
            db = null;
        }
    }
}
