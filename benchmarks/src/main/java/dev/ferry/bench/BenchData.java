package dev.ferry.bench;

import dev.ferry.Compression;
import dev.ferry.Engine;
import dev.ferry.LmdbFlag;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.View;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.stream.Stream;

/**
 * Shared data and settings of the benchmarks.
 *
 * <p>Data sets: {@code entries} entries, 16-byte keys (the index as zero-padded decimal, so key
 * order is index order), values of {@code valueSize} deterministic pseudo-random bytes (a
 * function of the index). Created once per engine, size and count under
 * {@code -Dferry.bench.dir} (default {@code <tmp>/ferry-bench-<user>}), flushed and compacted
 * for RocksDB, and reused by later runs. The native floor's checksum of a full scan is stored
 * beside the data and every variant must reproduce it.
 *
 * <p>The checksum of an entry is {@code klen + vlen + key[0] + key[klen-1] + val[0] + val[vlen-1]}
 * (unsigned bytes), summed as a {@code long}: the same in C (floor.c) and in every Java variant.
 */
public final class BenchData {
    /** Key size of every data set. */
    public static final int KEY_SIZE = 16;
    /** RocksDB block cache of Ferry, the floor and RocksJava: large enough to hold the data. */
    public static final long CACHE_BYTES = 2L << 30;
    /** Data format version: bump when keys, values or options change. */
    private static final String VERSION = "v1";

    /** JVM flags every fork gets (lmdbjava needs the add-opens). */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** lmdbjava's reflective access to java.nio. */
    public static final String OPENS_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    /** lmdbjava's reflective access to sun.nio.ch. */
    public static final String OPENS_NIO_CH = "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";
    /** lmdbjava uses sun.misc.Unsafe: silence JDK 25's warning. */
    public static final String UNSAFE = "--sun-misc-unsafe-memory-access=allow";
    /** Same heap for every fork. */
    public static final String HEAP = "-Xmx4g";

    private BenchData() {
    }

    /** A created data set. */
    public static final class Dataset {
        /** Its directory. */
        public final Path dir;
        /** Number of entries. */
        public final int entries;
        /** Floor checksum of a full scan. */
        public final long checksum;

        Dataset(Path dir, int entries, long checksum) {
            this.dir = dir;
            this.entries = entries;
            this.checksum = checksum;
        }
    }

    /** @return the root of the benchmark data */
    public static Path root() {
        String d = System.getProperty("ferry.bench.dir");
        if (d != null && !d.isEmpty()) {
            return Path.of(d);
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "ferry-bench-" + System.getProperty("user.name", "user"));
    }

    /**
     * Writes the decimal key of an index.
     *
     * @param i the index
     * @param dst destination
     * @param off offset of the 16 key bytes
     */
    public static void key(long i, byte[] dst, int off) {
        long v = i;
        for (int p = off + KEY_SIZE - 1; p >= off; p--) {
            dst[p] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
    }

    /**
     * @param i the index
     * @return a new key array
     */
    public static byte[] key(long i) {
        byte[] k = new byte[KEY_SIZE];
        key(i, k, 0);
        return k;
    }

    /**
     * Fills the value of an index.
     *
     * @param i the index
     * @param v destination, all of it
     */
    public static void value(long i, byte[] v) {
        long s = mix(i + 0x5DEECE66DL);
        for (int p = 0; p < v.length; p += 8) {
            s = mix(s);
            for (int j = 0; j < 8 && p + j < v.length; j++) {
                v[p + j] = (byte) (s >>> (8 * j));
            }
        }
    }

    /**
     * SplitMix64 finaliser.
     *
     * @param z input
     * @return a well-mixed long
     */
    public static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Checksum of one entry given as arrays.
     *
     * @param k key
     * @param kl key length
     * @param v value
     * @param vl value length
     * @return the entry's checksum
     */
    public static long touch(byte[] k, int kl, byte[] v, int vl) {
        return kl + vl + (k[0] & 0xFF) + (k[kl - 1] & 0xFF) + (v[0] & 0xFF) + (v[vl - 1] & 0xFF);
    }

    /**
     * Checksum of one entry given as Ferry views.
     *
     * @param k key
     * @param v value
     * @return the entry's checksum
     */
    public static long touch(View k, View v) {
        int kl = k.length();
        int vl = v.length();
        return kl + vl + (k.getByte(0) & 0xFF) + (k.getByte(kl - 1) & 0xFF) + (v.getByte(0) & 0xFF) + (v.getByte(vl - 1) & 0xFF);
    }

    /**
     * Checksum of one entry given as buffers (absolute reads; position 0, limit = length).
     *
     * @param k key
     * @param v value
     * @return the entry's checksum
     */
    public static long touch(ByteBuffer k, ByteBuffer v) {
        int kl = k.remaining();
        int vl = v.remaining();
        int kp = k.position();
        int vp = v.position();
        return kl + vl + (k.get(kp) & 0xFF) + (k.get(kp + kl - 1) & 0xFF) + (v.get(vp) & 0xFF) + (v.get(vp + vl - 1) & 0xFF);
    }

    /**
     * Checksum of a value read by a get (vlen + first + last byte), computed from the generator.
     *
     * @param i the index
     * @param valueSize value size
     * @return the expected get checksum
     */
    public static long expectedGet(long i, int valueSize) {
        byte[] v = new byte[valueSize];
        value(i, v);
        return valueSize + (v[0] & 0xFF) + (v[valueSize - 1] & 0xFF);
    }

    /**
     * Ferry options for reading a data set: RocksDB without compression and with a block cache
     * of {@link #CACHE_BYTES}; read-only.
     *
     * @param engine the engine
     * @param binding jni or ffm
     * @param readOnly open read-only
     * @return the options
     */
    public static StoreOptions options(Engine engine, String binding, boolean readOnly) {
        StoreOptions o = StoreOptions.of(engine).binding(binding).readOnly(readOnly);
        if (engine == Engine.ROCKSDB) {
            o.compression(Compression.NONE).blockCacheSize(CACHE_BYTES);
        } else {
            o.mapSize(4L << 30).lmdbFlags(EnumSet.of(LmdbFlag.NOSYNC));
        }
        return o;
    }

    /**
     * LMDB map size for a data set.
     *
     * @param entries entries
     * @param valueSize value size
     * @return bytes
     */
    public static long mapSize(int entries, int valueSize) {
        return Math.max(256L << 20, (long) entries * (valueSize + KEY_SIZE + 64) * 2);
    }

    /**
     * Returns a data set, creating it the first time (with Ferry's JNI binding, in batches of
     * 1000) and recording the floor's scan checksum.
     *
     * @param engine the engine
     * @param entries entries
     * @param valueSize value size
     * @return the data set
     */
    public static synchronized Dataset dataset(Engine engine, int entries, int valueSize) {
        Path dir = root().resolve(engine.name().toLowerCase() + "-" + entries + "x" + valueSize + "-" + VERSION);
        Path ready = dir.resolve("ferry-bench-ready");
        Path data = dir.resolve("db");
        try {
            if (Files.exists(ready)) {
                String[] f = Files.readString(ready).trim().split(" ");
                return new Dataset(data, Integer.parseInt(f[0]), Long.parseLong(f[1]));
            }
            deleteTree(dir);
            Files.createDirectories(dir);
            StoreOptions o = options(engine, "jni", false);
            if (engine == Engine.ROCKSDB) {
                o.wal(false);
            } else {
                o.mapSize(mapSize(entries, valueSize));
            }
            long expected = 0;
            try (Store s = Store.open(data, o); WriteBatch b = new WriteBatch()) {
                byte[] v = new byte[valueSize];
                for (int i = 0; i < entries; i++) {
                    byte[] k = key(i);
                    value(i, v);
                    expected += touch(k, KEY_SIZE, v, valueSize);
                    b.put(k, v);
                    if (b.count() == 1000 || i == entries - 1) {
                        s.write(b);
                        b.clear();
                    }
                }
                s.flush();
                s.compactRange();
            }
            NativeFloor.attach(engine, "jni");
            long sum;
            long count;
            try (NativeFloor.Db db = NativeFloor.open(engine, data, true, 0)) {
                sum = db.scan(false);
                count = db.lastCount();
            }
            if (count != entries || sum != expected) {
                throw new IllegalStateException("data set " + dir + ": floor scan saw " + count + " entries, checksum " + sum
                        + "; expected " + entries + " and " + expected);
            }
            Files.writeString(ready, entries + " " + sum + "\n", StandardCharsets.US_ASCII);
            return new Dataset(data, entries, sum);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Fails when a variant's checksum differs from the floor's.
     *
     * @param what the variant
     * @param got its checksum
     * @param expected the floor's
     */
    public static void check(String what, long got, long expected) {
        if (got != expected) {
            throw new IllegalStateException(what + ": checksum " + got + " differs from the floor's " + expected
                    + ": the variant did not do the same work");
        }
    }

    /**
     * A fresh scratch directory for write benchmarks.
     *
     * @param what a name part
     * @return a new empty directory
     */
    public static Path scratch(String what) {
        try {
            Path d = root().resolve("scratch");
            Files.createDirectories(d);
            return Files.createTempDirectory(d, what + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes a directory tree (missing is fine).
     *
     * @param dir the tree
     */
    public static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Name of the method a JMH trial runs.
     *
     * @param benchmark {@code BenchmarkParams.getBenchmark()}
     * @return the part after the last dot
     */
    public static String method(String benchmark) {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }
}
