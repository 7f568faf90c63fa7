package dev.ferry.bench;

import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.ffm.internal.FfmBinding;
import dev.ferry.internal.Abi;
import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.spi.NativeBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Per-call costs. <b>Unit: one operation is one call</b> (ns per call).
 *
 * <ul>
 * <li>{@code jniNoop}, {@code ffmNoop}, {@code ffmNoopCritical}: an empty {@code ferry_noop()}
 *     through JNI, FFM and FFM with {@code Linker.Option.critical}; no engine, no parameters.
 * <li>{@code get}: {@code Store.get(byte[])} of a random existing key (returns a new byte[]).
 * <li>{@code put}: {@code Store.put(byte[], byte[])} of a random key into a fresh store.
 * <li>{@code cursorStep}: one {@code Cursor.next()} including amortised page refills
 *     ({@code first()} again at the end).
 * <li>{@code pageFill}: one {@code ferry_cursor_fill(FIRST)} call filling a whole 64 KiB page,
 *     through the binding's SPI (no Java page walk).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class CallBench {
    private static final NativeBinding JNI = Bindings.jni();
    private static final NativeBinding FFM = FfmBinding.INSTANCE;
    private static final int KEYS = 1 << 16;
    private static final int PAGE = 64 * 1024;

    /** An open store for the engine x binding calls. */
    @State(Scope.Thread)
    public static class StoreState {
        @Param({"ROCKSDB", "LMDB"})
        public String engine;
        @Param({"jni", "ffm"})
        public String binding;
        @Param({"100"})
        public int valueSize;
        @Param({"1000000"})
        public int entries;

        Store store;
        Cursor cursor;
        byte[][] keys;
        byte[] value;
        int pos;
        java.nio.file.Path scratch;
        NativeBinding spi;
        long nstore;
        long ncursor;
        ByteBuffer mem;
        long page;
        long err;

        /**
         * Opens what the trial's method needs.
         *
         * @param params the trial
         */
        @Setup
        public void setup(BenchmarkParams params) {
            Engine e = Engine.valueOf(engine);
            BenchData.Dataset d = BenchData.dataset(e, entries, valueSize);
            String m = BenchData.method(params.getBenchmark());
            keys = new byte[KEYS][];
            value = new byte[valueSize];
            BenchData.value(7, value);
            for (int i = 0; i < KEYS; i++) {
                long idx = Long.remainderUnsigned(BenchData.mix(i), m.equals("put") ? 1_000_000_000_000_000L : entries);
                keys[i] = BenchData.key(idx);
            }
            switch (m) {
                case "put":
                    scratch = BenchData.scratch("callput");
                    store = Store.open(scratch.resolve("db"), BenchData.options(e, binding, false));
                    break;
                case "pageFill":
                    openRaw(e, d);
                    break;
                default:
                    store = Store.open(d.dir, BenchData.options(e, binding, true));
                    if (m.equals("cursorStep")) {
                        cursor = store.cursor();
                        cursor.first();
                    }
            }
        }

        private void openRaw(Engine e, BenchData.Dataset d) {
            spi = Bindings.byName(binding);
            Engines.attach(spi, e);
            mem = ByteBuffer.allocateDirect(PAGE + 8192).order(ByteOrder.nativeOrder());
            long base = spi.address(mem);
            page = base;
            err = base + PAGE;
            long out = err + Abi.ERROR_SIZE;
            long opts = out + 16;
            long path = opts + 8L * Abi.OPT_COUNT;
            long[] o = new long[Abi.OPT_COUNT];
            java.util.Arrays.fill(o, -1);
            o[Abi.OPT_CREATE_IF_MISSING] = 0;
            o[Abi.OPT_READ_ONLY] = 1;
            if (e == Engine.ROCKSDB) {
                o[Abi.OPT_BLOCK_CACHE_BYTES] = BenchData.CACHE_BYTES;
                o[Abi.OPT_COMPRESSION] = Abi.COMPRESSION_NONE;
            } else {
                o[Abi.OPT_MAP_SIZE] = 4L << 30;
            }
            for (int i = 0; i < Abi.OPT_COUNT; i++) {
                mem.putLong((int) (opts - base) + 8 * i, o[i]);
            }
            byte[] p = d.dir.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
            mem.put((int) (path - base), p).put((int) (path - base) + p.length, (byte) 0);
            int rc = spi.storeOpen(e.id(), path, opts, Abi.OPT_COUNT, 0, 0, 0, 0, out, err);
            if (rc != 0) {
                throw new IllegalStateException("ferry_store_open rc=" + rc);
            }
            nstore = mem.getLong((int) (out - base));
            rc = spi.cursorOpen(nstore, 0, 0, 0, 0, 0, 0, e == Engine.LMDB ? Abi.CURSOR_POINTERS : 0, out, err);
            if (rc != 0) {
                throw new IllegalStateException("ferry_cursor_open rc=" + rc);
            }
            ncursor = mem.getLong((int) (out - base));
        }

        /** Closes everything. */
        @TearDown
        public void tearDown() {
            if (cursor != null) {
                cursor.close();
            }
            if (store != null) {
                store.close();
            }
            if (ncursor != 0) {
                spi.cursorClose(ncursor);
                spi.storeClose(nstore);
                ncursor = 0;
            }
            BenchData.deleteTree(scratch);
        }

        byte[] nextKey() {
            byte[] k = keys[pos];
            pos = (pos + 1) & (KEYS - 1);
            return k;
        }
    }

    /** @return ferry_noop through JNI */
    @Benchmark
    public int jniNoop() {
        return JNI.noop();
    }

    /** @return ferry_noop through FFM */
    @Benchmark
    public int ffmNoop() {
        return FFM.noop();
    }

    /** @return ferry_noop through a critical FFM handle */
    @Benchmark
    public int ffmNoopCritical() {
        return FfmBinding.noopCritical();
    }

    /**
     * @param s the store
     * @return the value read
     */
    @Benchmark
    public byte[] get(StoreState s) {
        return s.store.get(s.nextKey());
    }

    /** @param s the store */
    @Benchmark
    public void put(StoreState s) {
        s.store.put(s.nextKey(), s.value);
    }

    /**
     * @param s the store
     * @return whether the cursor stands on an entry
     */
    @Benchmark
    public int cursorStep(StoreState s) {
        Cursor c = s.cursor;
        if (!c.next()) {
            c.first();
        }
        return c.value().length();
    }

    /**
     * @param s the store
     * @return entries in the page
     */
    @Benchmark
    public int pageFill(StoreState s) {
        return s.spi.cursorFill(s.ncursor, Abi.FIRST, 0, 0, s.page, PAGE, Integer.MAX_VALUE, s.err);
    }
}
