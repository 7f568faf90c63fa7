package dev.ferry.bench.store;

import dev.ferry.bench.BenchData;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.ByteBufferGetStatus;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksJava (rocksdbjni) over the same engine binary as Ferry's RocksDB, opened three ways:
 * <ul>
 * <li>{@link #open(Path, Settings)}, the comparisons' {@code rocksjava}: RocksDB's default options
 * ({@code createIfMissing} set; with the setting {@code nocompression} also {@code NO_COMPRESSION}, as the
 * LmdbJava suite), {@code RocksDB.get(byte[])}, a {@link WriteBatch} per batch, an iterator for the scan.
 * <li>{@link #openForDbBench}, db_bench's {@code rocksjava}, {@code rocksjava-reuse} and {@code rocksjava-direct}:
 * options set through RocksJava's setters from the flags, and per-thread {@link #reader()}s written the way
 * RocksJava's users write loops, in three {@link Style}s.
 * <li>{@link #openDataset}, JMH's peers: a benchmark data set with the options every JMH reader and writer
 * uses (no compression, an LRU block cache of {@link BenchData#CACHE_BYTES}); JMH calls {@link #db()}.
 * </ul>
 * Puts are {@code db.put(WriteOptions, ...)} and batches a {@code WriteBatch} in every style.
 *
 * <p>Thread safety: RocksDB's handles are thread-safe; the writes and scans of {@link KvStore} one thread
 * at a time here, readers confined to their thread.
 */
public final class RocksJavaPeer implements KvStore {
    static {
        RocksDB.loadLibrary();
    }

    /** db_bench's loop style. */
    public enum Style {
        /** {@code isValid()/key()/value()/next()} (two new arrays per entry), {@code db.get(ReadOptions, byte[])}, {@code multiGetAsList} */
        BYTES,
        /** {@code key(byte[])/value(byte[])} into reused arrays, {@code db.get(ReadOptions, key, value[])}, {@code multiGetAsList} */
        REUSE,
        /** {@code key(ByteBuffer)/value(ByteBuffer)} into reused direct buffers, ByteBuffer gets, {@code multiGetByteBuffers} */
        DIRECT
    }

    private final String name;
    private final Path dir;
    private final Style style;
    private final WriteOptions wo;
    private final ReadOptions ro;
    private final Statistics statistics;
    private final List<AutoCloseable> owned;
    private RocksDB db;

    private RocksJavaPeer(String name, Path dir, Style style, RocksDB db, WriteOptions wo, ReadOptions ro, Statistics statistics,
            List<AutoCloseable> owned) {
        this.name = name;
        this.dir = dir;
        this.style = style;
        this.db = db;
        this.wo = wo;
        this.ro = ro;
        this.statistics = statistics;
        this.owned = owned;
    }

    /**
     * Opens the comparisons' {@code rocksjava}.
     *
     * @param dir the store's directory
     * @param set the settings ({@code nocompression})
     * @return the open store
     */
    static RocksJavaPeer open(Path dir, Settings set) {
        Options options = new Options().setCreateIfMissing(true);
        if (set.flag("nocompression")) {
            options.setCompressionType(CompressionType.NO_COMPRESSION);
        }
        RocksDB db;
        try {
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException e) {
            options.close();
            throw new IllegalStateException("RocksJava failed to open " + dir + ": " + e.getMessage(), e);
        }
        WriteOptions wo = new WriteOptions();
        ReadOptions ro = new ReadOptions();
        return new RocksJavaPeer("rocksjava", dir, Style.BYTES, db, wo, ro, null, List.of(wo, ro, options));
    }

    /**
     * Opens db_bench's RocksJava.
     *
     * @param style the loop style
     * @param dir the database's directory (its parent is created when missing)
     * @param options the options
     * @param statistics the statistics set in the options, or null
     * @param optionsOwner closes the options and what they hold, after the database
     * @param wo the write options (db_bench's {@code --sync}, {@code --disable_wal})
     * @param ro the read options
     * @return the open store, named {@code rocksjava}, {@code rocksjava-reuse} or {@code rocksjava-direct}
     */
    public static RocksJavaPeer openForDbBench(Style style, Path dir, Options options, Statistics statistics, AutoCloseable optionsOwner,
            WriteOptions wo, ReadOptions ro) {
        RocksDB db;
        try {
            Files.createDirectories(dir.toAbsolutePath().getParent());
            db = RocksDB.open(options, dir.toString());
        } catch (RocksDBException | java.io.IOException e) {
            closeAll(List.of(wo, ro, optionsOwner));
            throw new IllegalStateException("cannot open " + dir + ": " + e.getMessage(), e);
        }
        String name = switch (style) {
            case BYTES -> "rocksjava";
            case REUSE -> "rocksjava-reuse";
            case DIRECT -> "rocksjava-direct";
        };
        return new RocksJavaPeer(name, dir, style, db, wo, ro, statistics, List.of(wo, ro, optionsOwner));
    }

    /**
     * Opens a JMH data set (or a new store for a JMH write benchmark) with the options every JMH reader and
     * writer uses: no compression, an LRU block cache of {@link BenchData#CACHE_BYTES}; default write and read
     * options.
     *
     * @param dir the directory
     * @param readOnly true to open an existing data set read-only, false to open (or create) it for writes
     * @return the open store; JMH uses {@link #db()}
     * @throws RocksDBException on open failure
     */
    public static RocksJavaPeer openDataset(Path dir, boolean readOnly) throws RocksDBException {
        LRUCache cache = new LRUCache(BenchData.CACHE_BYTES);
        Options options = new Options().setCreateIfMissing(!readOnly).setCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        RocksDB db;
        try {
            db = readOnly ? RocksDB.openReadOnly(options, dir.toString()) : RocksDB.open(options, dir.toString());
        } catch (RocksDBException | RuntimeException e) {
            options.close();
            cache.close();
            throw e;
        }
        WriteOptions wo = new WriteOptions();
        ReadOptions ro = new ReadOptions();
        return new RocksJavaPeer("rocksjava", dir, Style.BYTES, db, wo, ro, null, List.of(wo, ro, options, cache));
    }

    /** @return the open database, for JMH's loops over RocksJava's own calls */
    public RocksDB db() {
        return db;
    }

    /** @return the write options puts and batches use */
    public WriteOptions writeOptions() {
        return wo;
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
    public void put(byte[] key, byte[] value, int off, int len) {
        try {
            db.put(wo, key, 0, key.length, value, off, len);
        } catch (RocksDBException e) {
            throw new IllegalStateException("put error: " + e.getMessage(), e);
        }
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values, int from, int to) {
        try (WriteBatch b = new WriteBatch()) {
            for (int i = from; i < to; i++) {
                b.put(keys.get(i), values.get(i));
            }
            db.write(wo, b);
        } catch (RocksDBException e) {
            throw new IllegalStateException("put error: " + e.getMessage(), e);
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
    public Reader reader() {
        return new RjReader();
    }

    @Override
    public Optional<String> property(String propertyName) {
        try {
            return Optional.ofNullable(db.getProperty(propertyName));
        } catch (RocksDBException e) {
            return Optional.empty();
        }
    }

    @Override
    public Optional<String> statistics() {
        return statistics == null ? Optional.empty() : Optional.of(statistics.toString());
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
            closeAll(owned);
        }
    }

    private static void closeAll(List<AutoCloseable> list) {
        for (AutoCloseable c : list) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final class RjReader implements Reader {
        private byte[] kArr = new byte[1024];
        private byte[] vArr = new byte[64 * 1024];
        private ByteBuffer kBuf = ByteBuffer.allocateDirect(1024);
        private ByteBuffer vBuf = ByteBuffer.allocateDirect(64 * 1024);
        private final List<ByteBuffer> mkeys = new ArrayList<>();
        private final List<ByteBuffer> mvals = new ArrayList<>();

        @Override
        public long scan(boolean reverse, long limit, EntryCounter counter) {
            long bytes = 0;
            long i = 0;
            try (RocksIterator it = db.newIterator(ro)) {
                if (reverse) {
                    it.seekToLast();
                } else {
                    it.seekToFirst();
                }
                switch (style) {
                    case BYTES -> {
                        for (; i < limit && it.isValid(); i++) {
                            byte[] k = it.key();
                            byte[] v = it.value();
                            bytes += k.length + v.length;
                            counter.entryRead();
                            step(it, reverse);
                        }
                    }
                    case REUSE -> {
                        for (; i < limit && it.isValid(); i++) {
                            int kn = it.key(kArr);
                            if (kn > kArr.length) {
                                kArr = new byte[kn];
                                it.key(kArr);
                            }
                            int vn = it.value(vArr);
                            if (vn > vArr.length) {
                                vArr = new byte[vn];
                                it.value(vArr);
                            }
                            bytes += kn + vn;
                            counter.entryRead();
                            step(it, reverse);
                        }
                    }
                    case DIRECT -> {
                        for (; i < limit && it.isValid(); i++) {
                            kBuf.clear();
                            int kn = it.key(kBuf);
                            if (kn > kBuf.capacity()) {
                                kBuf = ByteBuffer.allocateDirect(kn);
                                it.key(kBuf);
                            }
                            vBuf.clear();
                            int vn = it.value(vBuf);
                            if (vn > vBuf.capacity()) {
                                vBuf = ByteBuffer.allocateDirect(vn);
                                it.value(vBuf);
                            }
                            bytes += kn + vn;
                            counter.entryRead();
                            step(it, reverse);
                        }
                    }
                    default -> throw new AssertionError(style);
                }
            }
            return bytes;
        }

        private static void step(RocksIterator it, boolean reverse) {
            if (reverse) {
                it.prev();
            } else {
                it.next();
            }
        }

        @Override
        public int get(byte[] k) {
            try {
                switch (style) {
                    case BYTES -> {
                        byte[] v = db.get(ro, k);
                        return v == null ? -1 : v.length;
                    }
                    case REUSE -> {
                        int n = db.get(ro, k, vArr);
                        if (n > vArr.length) {
                            vArr = new byte[n];
                            n = db.get(ro, k, vArr);
                        }
                        return n == RocksDB.NOT_FOUND ? -1 : n;
                    }
                    default -> {
                        ByteBuffer kb = direct(k);
                        vBuf.clear();
                        int n = db.get(ro, kb, vBuf);
                        if (n > vBuf.capacity()) {
                            vBuf = ByteBuffer.allocateDirect(n);
                            kb.rewind();
                            n = db.get(ro, kb, vBuf);
                        }
                        return n == RocksDB.NOT_FOUND ? -1 : n;
                    }
                }
            } catch (RocksDBException e) {
                throw new IllegalStateException("Get returned an error: " + e.getMessage(), e);
            }
        }

        private ByteBuffer direct(byte[] k) {
            if (k.length > kBuf.capacity()) {
                kBuf = ByteBuffer.allocateDirect(k.length);
            }
            kBuf.clear();
            kBuf.put(k).flip();
            return kBuf;
        }

        @Override
        public int multiGet(byte[][] keys, int n, long[] bytes) {
            int found = 0;
            try {
                if (style != Style.DIRECT) {
                    List<byte[]> vals = db.multiGetAsList(ro, Arrays.asList(keys).subList(0, n));
                    for (int i = 0; i < n; i++) {
                        byte[] v = vals.get(i);
                        if (v != null) {
                            found++;
                            bytes[0] += keys[i].length + v.length;
                        }
                    }
                    return found;
                }
                while (mkeys.size() < n) {
                    mkeys.add(ByteBuffer.allocateDirect(keys[0].length));
                    mvals.add(ByteBuffer.allocateDirect(64 * 1024));
                }
                List<ByteBuffer> ks = mkeys.subList(0, n);
                List<ByteBuffer> vs = mvals.subList(0, n);
                for (int i = 0; i < n; i++) {
                    ByteBuffer kb = ks.get(i);
                    if (kb.capacity() < keys[i].length) {
                        kb = ByteBuffer.allocateDirect(keys[i].length);
                        mkeys.set(i, kb);
                    }
                    kb.clear();
                    kb.put(keys[i]).flip();
                    vs.get(i).clear();
                }
                List<ByteBufferGetStatus> st = db.multiGetByteBuffers(ro, mkeys.subList(0, n), mvals.subList(0, n));
                for (int i = 0; i < n; i++) {
                    ByteBufferGetStatus s = st.get(i);
                    if (s.status.getCode() == Status.Code.Ok) {
                        found++;
                        bytes[0] += keys[i].length + s.requiredSize;
                    }
                }
                return found;
            } catch (RocksDBException e) {
                throw new IllegalStateException("MultiGet returned an error: " + e.getMessage(), e);
            }
        }

        @Override
        public boolean seek(byte[] k, int nexts, long[] bytes) {
            try (RocksIterator it = db.newIterator(ro)) {
                it.seek(k);
                boolean found;
                switch (style) {
                    case BYTES -> found = it.isValid() && Arrays.equals(it.key(), k);
                    case REUSE -> found = it.isValid() && it.key(kArr) == k.length && Arrays.equals(kArr, 0, k.length, k, 0, k.length);
                    default -> found = it.isValid() && Arrays.equals(keyDirect(it), k);
                }
                for (int j = 0; j < nexts && it.isValid(); j++) {
                    switch (style) {
                        case BYTES -> bytes[0] += it.key().length + it.value().length;
                        case REUSE -> {
                            int kn = it.key(kArr);
                            int vn = it.value(vArr);
                            if (vn > vArr.length) {
                                vArr = new byte[vn];
                            }
                            bytes[0] += kn + vn;
                        }
                        default -> {
                            kBuf.clear();
                            vBuf.clear();
                            bytes[0] += it.key(kBuf) + it.value(vBuf);
                        }
                    }
                    it.next();
                }
                return found;
            }
        }

        private byte[] keyDirect(RocksIterator it) {
            kBuf.clear();
            int n = it.key(kBuf);
            if (n > kBuf.capacity()) {
                kBuf = ByteBuffer.allocateDirect(n);
                it.key(kBuf);
            }
            byte[] r = new byte[n];
            kBuf.get(0, r);
            return r;
        }

        @Override
        public void close() {
            // nothing native is held between calls
        }
    }
}
