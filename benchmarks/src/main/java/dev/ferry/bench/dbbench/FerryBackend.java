package dev.ferry.bench.dbbench;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Ferry over RocksDB through one binding ({@code jni} or {@code ffm}). One {@link Store} for all
 * threads; each reader thread opens its own cursors. Options come as one RocksDB options string
 * ({@link EngineOptions#rocksdbOptionsString()}); write options from {@code --sync} and
 * {@code --disable_wal}. Gets read into a reused direct buffer (no allocation per get); scans walk
 * Ferry's zero-copy key and value views; multireadrandom uses {@link Store#multiGet(List)}.
 *
 * <p>Thread safety: thread-safe; readers are confined to their thread.
 */
final class FerryBackend implements Backend {
    private final String binding;
    private final Store store;
    private final ColumnFamily cf;
    private final boolean statistics;

    FerryBackend(String binding, Path dir, Flags f, EngineOptions eo) {
        if (!f.bool("verify_checksum")) {
            throw new Flags.FlagError("--verify_checksum=false: Ferry's API has no read option for it (RocksJava has: --api=rocksjava)");
        }
        this.binding = binding;
        StoreOptions o = StoreOptions.rocksdb().binding(binding).createIfMissing(!f.bool("use_existing_db"))
                .wal(!f.bool("disable_wal")).syncWrites(f.bool("sync")).rocksdbOptions(eo.rocksdbOptionsString());
        this.store = Store.open(dir, o);
        this.cf = store.defaultColumnFamily();
        this.statistics = f.bool("statistics");
    }

    @Override
    public String api() {
        return "ferry-" + binding;
    }

    /** @return the open store */
    Store store() {
        return store;
    }

    @Override
    public void put(byte[] key, byte[] value, int off, int len) {
        store.put(cf, key, 0, key.length, value, off, len);
    }

    @Override
    public void writeBatch(byte[][] keys, byte[] value, int[] offs, int len, int n) {
        try (WriteBatch b = new WriteBatch()) {
            for (int i = 0; i < n; i++) {
                b.put(keys[i], Arrays.copyOfRange(value, offs[i], offs[i] + len));
            }
            store.write(b);
        }
    }

    @Override
    public Reader reader() {
        return new FerryReader();
    }

    @Override
    public Optional<String> property(String name) {
        return store.property(name);
    }

    @Override
    public Optional<String> statistics() {
        return statistics ? store.property("rocksdb.options-statistics") : Optional.empty();
    }

    @Override
    public void close() {
        store.close();
    }

    private final class FerryReader implements Reader {
        private final ByteBuffer key = ByteBuffer.allocateDirect(1024);
        private ByteBuffer value = ByteBuffer.allocateDirect(64 * 1024);

        @Override
        public long scan(boolean reverse, long limit, Stats stats) {
            long bytes = 0;
            long i = 0;
            try (Cursor c = store.cursor(KeyRange.all())) {
                for (boolean ok = reverse ? c.last() : c.first(); i < limit && ok; ok = reverse ? c.prev() : c.next()) {
                    bytes += c.key().length() + c.value().length();
                    stats.finishedOps(1, Stats.Op.READ);
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
