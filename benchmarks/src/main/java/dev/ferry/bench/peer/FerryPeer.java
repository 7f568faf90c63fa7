package dev.ferry.bench.peer;

import dev.ferry.Compression;
import dev.ferry.Cursor;
import dev.ferry.LmdbFlag;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

/**
 * Ferry through its public API only: {@code ferry-<engine>-<binding>}, engine {@code rocksdb} or
 * {@code lmdb}, binding {@code jni} or {@code ffm} ({@code StoreOptions.binding}). Ferry's defaults
 * ({@code syncWrites(false)}; LMDB with a 4 GiB map), changed by the {@link Settings}: LMDB {@code
 * writemap} ({@link LmdbFlag#WRITEMAP}), {@code sync} ({@code syncWrites(true)}), {@code map=BYTES},
 * {@code append} ({@link WriteOptions#append}: batches in ascending key order past the last key);
 * RocksDB {@code nocompression} ({@link Compression#NONE}); either engine {@code batch=BYTES} (the split
 * below; default {@link #BATCH_BYTES}). A batch is one {@link WriteBatch} (consecutive ones of at most
 * {@code batch} bytes for a larger batch), a get {@code Store.get(byte[])}, a scan one {@link Cursor}
 * whose zero-copy views go to {@link Visitor#visit(dev.ferry.View, dev.ferry.View)}.
 *
 * <p>Thread safety: Store is thread-safe; one thread at a time here.
 */
final class FerryPeer implements PeerStore {
    /** The most entry bytes one {@link WriteBatch} of {@link #write} takes: all a batch holds (2 GiB - 16). */
    static final long BATCH_BYTES = WriteBatch.MAX_BYTES;
    private final String name;
    private final Path dir;
    private Store store;
    private Snapshot reads;
    private final WriteOptions writeOptions;
    private final long batchBytes;

    FerryPeer(String name, Path dir, Settings set) {
        this.name = name;
        this.dir = dir;
        String[] parts = name.split("-");
        String engine = parts[1];
        String binding = parts[2];
        StoreOptions o;
        if (engine.equals("lmdb")) {
            o = StoreOptions.lmdb().mapSize(set.number("map", 4L << 30)).syncWrites(set.flag("sync"));
            if (set.flag("writemap")) {
                o.lmdbFlags(EnumSet.of(LmdbFlag.WRITEMAP));
            }
        } else {
            o = StoreOptions.rocksdb();
            if (set.flag("nocompression")) {
                o.compression(Compression.NONE);
            }
        }
        batchBytes = set.number("batch", BATCH_BYTES);
        writeOptions = WriteOptions.DEFAULT.append(engine.equals("lmdb") && set.flag("append"));
        store = Store.open(dir, o.binding(binding));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean ordered() {
        return true;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        int i = from;
        while (i < to) {
            // a WriteBatch holds less than 2 GiB (its records with their 16-byte headers): the suite's one
            // batch of every entry is one WriteBatch up to that (2.05 GB in test 5 fits), else consecutive
            // batches of at most batchBytes each (at least one entry each)
            try (WriteBatch b = new WriteBatch()) {
                long bytes = 0;
                do {
                    byte[] k = keys.get(i);
                    byte[] v = values.get(i);
                    b.put(k, v);
                    bytes += k.length + v.length + 16L;
                    i++;
                } while (i < to && bytes + keys.get(i).length + values.get(i).length + 16L <= batchBytes);
                store.write(b, writeOptions);
            }
        }
    }

    @Override
    public byte[] get(byte[] key) {
        return reads != null ? reads.get(key) : store.get(key);
    }

    @Override
    public void readsBegin() {
        readsEnd();
        reads = store.snapshot();
    }

    @Override
    public void readsEnd() {
        if (reads != null) {
            reads.close();
            reads = null;
        }
    }

    @Override
    public long scan(Visitor visitor) {
        long n = 0;
        try (Cursor c = store.cursor()) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                n++;
                if (!visitor.visit(c.key(), c.value())) {
                    break;
                }
            }
        }
        return n;
    }

    @Override
    public long scanReverse(Visitor visitor) {
        long n = 0;
        try (Cursor c = store.cursor()) {
            for (boolean ok = c.last(); ok; ok = c.prev()) {
                n++;
                if (!visitor.visit(c.key(), c.value())) {
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
        if (store != null) {
            readsEnd();
            store.close();
            store = null;
        }
    }
}
