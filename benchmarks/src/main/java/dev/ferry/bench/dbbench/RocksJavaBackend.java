package dev.ferry.bench.dbbench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.rocksdb.ByteBufferGetStatus;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksJava over the same engine binary, written the way its users write loops, in three styles:
 * <ul>
 * <li>{@code rocksjava}: scans with {@code isValid()/key()/value()/next()} (two new arrays per
 * entry), gets with {@code db.get(ReadOptions, byte[])}, multi-gets with {@code multiGetAsList}.
 * <li>{@code rocksjava-reuse}: scans with {@code key(byte[])/value(byte[])} into reused arrays (the
 * fastest RocksJava scan in docs/benchmarks.md), gets with {@code db.get(ReadOptions, key, value[])}
 * into a reused array, multi-gets with {@code multiGetAsList}.
 * <li>{@code rocksjava-direct}: {@code key(ByteBuffer)/value(ByteBuffer)} into reused direct
 * buffers, {@code db.get(ReadOptions, ByteBuffer, ByteBuffer)}, {@code multiGetByteBuffers}.
 * </ul>
 * Writes are {@code db.put(WriteOptions, ...)} and {@code WriteBatch} in every style. Options are
 * set through RocksJava's setters ({@link EngineOptions#rocksJava}).
 *
 * <p>Thread safety: thread-safe; readers are confined to their thread.
 */
final class RocksJavaBackend implements Backend {
    /** Loop style. */
    enum Style {
        /** byte[] per call */
        BYTES,
        /** reused arrays */
        REUSE,
        /** direct buffers */
        DIRECT
    }

    private final Style style;
    private final EngineOptions.RocksJava opts;
    private final RocksDB db;
    private final WriteOptions wo;
    private final ReadOptions ro;

    RocksJavaBackend(Style style, Path dir, Flags f, EngineOptions eo) {
        this.style = style;
        this.opts = eo.rocksJava(!f.bool("use_existing_db"));
        try {
            java.nio.file.Files.createDirectories(dir.toAbsolutePath().getParent());
            this.db = RocksDB.open(opts.options, dir.toString());
        } catch (RocksDBException | java.io.IOException e) {
            opts.close();
            throw new IllegalStateException("cannot open " + dir + ": " + e.getMessage(), e);
        }
        this.wo = new WriteOptions().setSync(f.bool("sync")).setDisableWAL(f.bool("disable_wal"));
        this.ro = new ReadOptions().setVerifyChecksums(f.bool("verify_checksum")).setFillCache(true);
    }

    @Override
    public String api() {
        return switch (style) {
            case BYTES -> "rocksjava";
            case REUSE -> "rocksjava-reuse";
            case DIRECT -> "rocksjava-direct";
        };
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
    public void writeBatch(byte[][] keys, byte[] value, int[] offs, int len, int n) {
        try (WriteBatch b = new WriteBatch()) {
            for (int i = 0; i < n; i++) {
                b.put(keys[i], Arrays.copyOfRange(value, offs[i], offs[i] + len));
            }
            db.write(wo, b);
        } catch (RocksDBException e) {
            throw new IllegalStateException("put error: " + e.getMessage(), e);
        }
    }

    @Override
    public Reader reader() {
        return new RjReader();
    }

    @Override
    public Optional<String> property(String name) {
        try {
            return Optional.ofNullable(db.getProperty(name));
        } catch (RocksDBException e) {
            return Optional.empty();
        }
    }

    @Override
    public Optional<String> statistics() {
        return opts.statistics == null ? Optional.empty() : Optional.of(opts.statistics.toString());
    }

    @Override
    public void close() {
        db.close();
        wo.close();
        ro.close();
        opts.close();
    }

    private final class RjReader implements Reader {
        private byte[] kArr = new byte[1024];
        private byte[] vArr = new byte[64 * 1024];
        private ByteBuffer kBuf = ByteBuffer.allocateDirect(1024);
        private ByteBuffer vBuf = ByteBuffer.allocateDirect(64 * 1024);
        private final List<ByteBuffer> mkeys = new ArrayList<>();
        private final List<ByteBuffer> mvals = new ArrayList<>();

        @Override
        public long scan(boolean reverse, long limit, Stats stats) {
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
                            stats.finishedOps(1, Stats.Op.READ);
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
                            stats.finishedOps(1, Stats.Op.READ);
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
                            stats.finishedOps(1, Stats.Op.READ);
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
