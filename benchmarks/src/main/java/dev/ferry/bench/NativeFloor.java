package dev.ferry.bench;

import dev.ferry.Engine;
import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.NativeBinding;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The in-process native floor: whole workloads (a full scan, a list of gets, a list of puts) run
 * in C by {@code libferryfloor} directly over the engine's C API, one JNI call per workload. The
 * engine functions are resolved from the very object Ferry attached ({@link Engines#path}), so
 * the floor and Ferry run the same engine binary. Handles and addresses cross as {@code long}s.
 *
 * <p>Thread safety: a {@link Db} is used by one thread at a time.
 */
public final class NativeFloor {
    private static final NativeBinding ADDR = Bindings.jni();
    private static boolean rocksdb;
    private static boolean lmdb;

    static {
        String override = System.getProperty("ferry.bench.floor.lib");
        Path p;
        if (override != null && !override.isEmpty()) {
            p = Path.of(override);
        } else {
            p = extract("/dev/ferry/bench/native/" + NativeLibrary.platform() + "/libferryfloor.so");
        }
        System.load(p.toAbsolutePath().toString());
    }

    private NativeFloor() {
    }

    private static native int attach0(int engine, long libPath);

    private static native long open0(int engine, long path, long cacheBytes, long mapSize, int readOnly);

    private static native int close0(long db);

    private static native long scan0(long db, int reverse, long countOut);

    private static native long gets0(long db, long keys, int n, int klen, long missingOut);
    private static native long seeks0(long db, long keys, int n, int klen, int nexts, long countOut);
    private static native long getsFresh0(long db, long keys, int n, int klen, long missingOut);
    private static native long getsCopy0(long db, long keys, int n, int klen, int fresh, long dst, int cap, long missingOut);

    private static native int puts0(long db, long keys, int n, int klen, long val, int vlen, int batch);

    private static native long scanSplits0(long db, long bounds, int nsplits, int threads, long countsOut);

    private static native int noop0();

    /** @return 0, after an empty JNI call into libferryfloor */
    public static int noop() {
        return noop0();
    }

    /**
     * Resolves the engine's C functions from the object Ferry attached (attaching it first).
     *
     * @param engine the engine
     * @param binding the Ferry binding used to attach and to ask for the path
     * @return the engine object's path
     */
    public static synchronized String attach(Engine engine, String binding) {
        NativeBinding b = Bindings.byName(binding);
        Engines.attach(b, engine);
        String path = Engines.path(b, engine);
        if (path == null) {
            throw new IllegalStateException(engine + " is not attached");
        }
        if (engine == Engine.ROCKSDB ? rocksdb : lmdb) {
            return path;
        }
        ByteBuffer s = cString(path);
        int rc = attach0(id(engine), ADDR.address(s));
        Reference.reachabilityFence(s);
        if (rc != 0) {
            throw new IllegalStateException("floor cannot resolve " + engine + " functions from " + path + " (see stderr)");
        }
        if (engine == Engine.ROCKSDB) {
            rocksdb = true;
        } else {
            lmdb = true;
        }
        return path;
    }

    /**
     * Opens a store through the engine's C API (RocksDB: no compression, an LRU cache of
     * {@link BenchData#CACHE_BYTES}; LMDB: NOTLS, NOSYNC when writable).
     *
     * @param engine the engine (attached with {@link #attach})
     * @param dir the store directory
     * @param readOnly open read-only
     * @param mapSize LMDB map size, 0 to keep the file's
     * @return the open store
     */
    public static Db open(Engine engine, Path dir, boolean readOnly, long mapSize) {
        ByteBuffer s = cString(dir.toAbsolutePath().toString());
        long h = open0(id(engine), ADDR.address(s), BenchData.CACHE_BYTES, mapSize, readOnly ? 1 : 0);
        Reference.reachabilityFence(s);
        if (h == 0) {
            throw new IllegalStateException("floor cannot open " + dir + " (see stderr)");
        }
        return new Db(h);
    }

    /** A store opened by the floor. */
    public static final class Db implements AutoCloseable {
        private long handle;
        private final ByteBuffer out = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder());
        private final long outAddr = ADDR.address(out);

        Db(long handle) {
            this.handle = handle;
        }

        /**
         * Scans the whole store in C.
         *
         * @param reverse last to first
         * @return the checksum (see floor.h)
         */
        public long scan(boolean reverse) {
            return scan0(handle, reverse ? 1 : 0, outAddr);
        }

        /**
         * Scans the whole store in C cut into sub-ranges at the given boundary keys, on several
         * threads that each take the next sub-range (floor.h, floor_scan_splits).
         *
         * @param bounds the boundaries, increasing: sub-range i is [bounds[i-1], bounds[i])
         * @param threads threads, the caller's included
         * @param counts receives each sub-range's entry count (bounds.size() + 1 entries) or null
         * @return the checksum (see floor.h)
         */
        public long scanSplits(java.util.List<byte[]> bounds, int threads, long[] counts) {
            int len = 0;
            for (byte[] b : bounds) {
                len += 4 + b.length;
            }
            int n = bounds.size() + 1;
            ByteBuffer buf = ByteBuffer.allocateDirect(Math.max(8, len) + 8 + 8 * n).order(ByteOrder.nativeOrder());
            for (byte[] b : bounds) {
                buf.putInt(b.length).put(b);
            }
            int countsAt = (Math.max(8, len) + 7) & ~7;
            long base = ADDR.address(buf);
            long sum = scanSplits0(handle, base, n, threads, base + countsAt);
            if (counts != null) {
                for (int i = 0; i < n && i < counts.length; i++) {
                    counts[i] = buf.getLong(countsAt + 8 * i);
                }
            }
            Reference.reachabilityFence(buf);
            return sum;
        }

        /** @return the entry count of the last {@link #scan} */
        public long lastCount() {
            return out.getLong(0);
        }

        /**
         * Reads n keys packed in a direct buffer.
         *
         * @param keys address of the packed keys
         * @param n count
         * @param klen key length
         * @return the checksum of the found values
         */
        public long gets(long keys, int n, int klen) {
            return gets0(handle, keys, n, klen, outAddr + 8);
        }

        /**
         * Seeks as db_bench's seekrandom does: each on a fresh iterator (RocksDB) or cursor in a
         * renewed read transaction (LMDB), reading {@code nexts} entries from the key on.
         *
         * @param keys address of the packed keys
         * @param n how many seeks
         * @param klen bytes per key
         * @param nexts entries read per seek
         * @return the scan checksum of the entries read
         */
        public long seeks(long keys, int n, int klen, int nexts) {
            return seeks0(handle, keys, n, klen, nexts, outAddr + 8);
        }

        /**
         * Point reads of packed keys, each in a fresh read view (LMDB: a read transaction
         * renewed before and reset after every get; RocksDB: as {@link #gets}).
         *
         * @param keys address of the packed keys
         * @param n how many
         * @param klen bytes per key
         * @return checksum of the found values
         */
        public long getsFresh(long keys, int n, int klen) {
            return getsFresh0(handle, keys, n, klen, outAddr + 8);
        }

        /**
         * {@link #gets} ({@code fresh} false) or {@link #getsFresh} that also copies every found value
         * into {@code dst} (its first {@code dst.capacity()} bytes) and sums length, first and last
         * byte of the copy: the least a get delivering the whole value costs.
         *
         * @param keys address of the packed keys
         * @param n how many
         * @param klen bytes per key
         * @param fresh LMDB: a read transaction renewed and reset around every get
         * @param dst a direct buffer of at least one byte, reused for every value
         * @return checksum of the found values
         * @throws IllegalStateException when closed or the read fails
         * @throws IllegalArgumentException when {@code dst} is not direct or empty
         */
        public long getsCopy(long keys, int n, int klen, boolean fresh, ByteBuffer dst) {
            if (handle == 0) {
                throw new IllegalStateException("floor store closed");
            }
            if (!dst.isDirect() || dst.capacity() < 1) {
                throw new IllegalArgumentException("dst must be a direct buffer of at least one byte");
            }
            long sum = getsCopy0(handle, keys, n, klen, fresh ? 1 : 0, ADDR.address(dst), dst.capacity(), outAddr + 8);
            Reference.reachabilityFence(dst);
            if (sum < 0) {
                throw new IllegalStateException("floor gets failed");
            }
            return sum;
        }

        /** @return the number of keys missing in the last {@link #gets} */
        public long lastMissing() {
            return out.getLong(8);
        }

        /**
         * Writes n keys, each with the same value.
         *
         * @param keys address of the packed keys
         * @param n count
         * @param klen key length
         * @param val address of the value
         * @param vlen value length
         * @param batch 1 for single puts, else the batch size
         */
        public void puts(long keys, int n, int klen, long val, int vlen, int batch) {
            if (puts0(handle, keys, n, klen, val, vlen, batch) != 0) {
                throw new IllegalStateException("floor put failed (see stderr)");
            }
        }

        @Override
        public void close() {
            if (handle != 0) {
                close0(handle);
                handle = 0;
            }
        }
    }

    /**
     * Returns the address of a direct buffer.
     *
     * @param direct the buffer
     * @return its address
     */
    public static long address(ByteBuffer direct) {
        return ADDR.address(direct);
    }

    private static int id(Engine e) {
        return e == Engine.ROCKSDB ? 1 : 2;
    }

    private static ByteBuffer cString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocateDirect(b.length + 1);
        buf.put(b).put((byte) 0);
        return buf;
    }

    private static Path extract(String resource) {
        try (InputStream in = NativeFloor.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("no " + resource + " on the class path (set -Dferry.bench.floor.lib=<path>)");
            }
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "ferry-" + System.getProperty("user.name", "user"));
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "libferryfloor", ".so");
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            tmp.toFile().deleteOnExit();
            return tmp;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
