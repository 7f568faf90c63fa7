package dev.ferry.bench.store;

import dev.ferry.ColumnFamily;
import dev.ferry.Compression;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.LmdbFlag;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

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
 * <p>db_bench opens it with {@link #openForDbBench} (its options as one RocksDB options string): a put is
 * {@code Store.put} of the array's slice, and each thread's {@link #reader()} gets into a reused direct
 * buffer (no allocation per get), scans Ferry's zero-copy views and multi-gets with {@code Store.multiGet}.
 *
 * <p>Thread safety: Store is thread-safe; the writes and the scans of {@link KvStore} one thread at a time
 * here, readers confined to their thread (db_bench's threads each have their own).
 */
public final class FerryPeer implements KvStore {
    /** The most entry bytes one {@link WriteBatch} of {@link #write} takes: all a batch holds (2 GiB - 16). */
    static final long BATCH_BYTES = WriteBatch.MAX_BYTES;
    private final String name;
    private final Path dir;
    private Store store;
    private final ColumnFamily cf;
    private Snapshot reads;
    private final WriteOptions writeOptions;
    private final long batchBytes;
    private final boolean statistics;

    private FerryPeer(String name, Path dir, Store store, WriteOptions writeOptions, long batchBytes, boolean statistics) {
        this.name = name;
        this.dir = dir;
        this.store = store;
        this.cf = store.defaultColumnFamily();
        this.writeOptions = writeOptions;
        this.batchBytes = batchBytes;
        this.statistics = statistics;
    }

    /**
     * Opens {@code ferry-<engine>-<binding>} with its settings (the class comment's).
     *
     * @param name the name
     * @param dir the store's directory
     * @param set the settings
     * @return the open store
     */
    static FerryPeer open(String name, Path dir, Settings set) {
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
        WriteOptions wo = WriteOptions.DEFAULT.append(engine.equals("lmdb") && set.flag("append"));
        return new FerryPeer(name, dir, Store.open(dir, o.binding(binding)), wo, set.number("batch", BATCH_BYTES), false);
    }

    /**
     * Opens a RocksDB store for db_bench: {@code ferry-rocksdb-<binding>}, writes with the store's own write
     * options ({@link WriteOptions#DEFAULT}: the {@code syncWrites} and {@code wal} of {@code options}).
     *
     * @param binding {@code jni} or {@code ffm}
     * @param dir the store's directory
     * @param options the store's options (their binding is set here)
     * @param statistics whether {@link #statistics()} reports {@code rocksdb.options-statistics}
     * @return the open store
     */
    public static FerryPeer openForDbBench(String binding, Path dir, StoreOptions options, boolean statistics) {
        return new FerryPeer("ferry-rocksdb-" + binding, dir, Store.open(dir, options.binding(binding)), WriteOptions.DEFAULT, BATCH_BYTES,
                statistics);
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
    public void put(byte[] key, byte[] value, int off, int len) {
        store.put(cf, key, 0, key.length, value, off, len);
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
    public Reader reader() {
        return new FerryReader();
    }

    @Override
    public Optional<String> property(String propertyName) {
        return store.property(propertyName);
    }

    @Override
    public Optional<String> statistics() {
        return statistics ? store.property("rocksdb.options-statistics") : Optional.empty();
    }

    @Override
    public long storageBytes() {
        return KvStore.allocatedBytes(dir);
    }

    @Override
    public void close() {
        if (store != null) {
            readsEnd();
            store.close();
            store = null;
        }
    }

    private final class FerryReader implements Reader {
        private final ByteBuffer key = ByteBuffer.allocateDirect(1024);
        private ByteBuffer value = ByteBuffer.allocateDirect(64 * 1024);

        @Override
        public long scan(boolean reverse, long limit, EntryCounter counter) {
            long bytes = 0;
            long i = 0;
            try (Cursor c = store.cursor(KeyRange.all())) {
                for (boolean ok = reverse ? c.last() : c.first(); i < limit && ok; ok = reverse ? c.prev() : c.next()) {
                    bytes += c.key().length() + c.value().length();
                    counter.entryRead();
                    i++;
                }
            }
            return bytes;
        }

        @Override
        public int get(byte[] k) {
            ByteBuffer kb = keyBuffer(k);
            value.clear();
            int n = store.get(cf, kb, value);
            if (n > value.capacity()) {
                value = ByteBuffer.allocateDirect(n);
                n = store.get(cf, kb, value);
            }
            return n == Store.NOT_FOUND ? -1 : n;
        }

        private ByteBuffer keyBuffer(byte[] k) {
            ByteBuffer kb = k.length <= key.capacity() ? key : ByteBuffer.allocateDirect(k.length);
            kb.clear();
            kb.put(k).flip();
            return kb;
        }

        @Override
        public int multiGet(byte[][] keys, int n, long[] bytes) {
            List<byte[]> vals = store.multiGet(cf, Arrays.asList(keys).subList(0, n));
            int found = 0;
            for (int i = 0; i < n; i++) {
                byte[] v = vals.get(i);
                if (v != null) {
                    found++;
                    bytes[0] += keys[i].length + v.length;
                }
            }
            return found;
        }

        @Override
        public boolean seek(byte[] k, int nexts, long[] bytes) {
            try (Cursor c = store.cursor(KeyRange.all())) {
                boolean ok = c.seek(k);
                boolean found = ok && c.key().contentEquals(k);
                for (int j = 0; j < nexts && ok; j++) {
                    bytes[0] += c.key().length() + c.value().length();
                    ok = c.next();
                }
                return found;
            }
        }

        @Override
        public void close() {
            // direct buffers are freed with their objects
        }
    }
}
