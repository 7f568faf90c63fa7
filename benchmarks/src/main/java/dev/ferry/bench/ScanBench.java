package dev.ferry.bench;

import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.View;
import java.nio.file.Path;
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
 * Full scans of a data set through Ferry and through the in-process native floor.
 *
 * <p><b>Unit: one operation is one whole scan of {@code entries} entries</b> (JMH AverageTime,
 * ns per scan). The report divides by {@code entries} to give ns per entry (and allocation per
 * entry from {@code -prof gc}).
 *
 * <p>Variants (method names): {@code ferry} (a {@link Cursor} {@code first()/next()} loop over
 * zero-copy views, {@code last()/prev()} in reverse), {@code ferryScan} ({@link Store#scan}
 * with a visitor; forward only, reverse trials fail on purpose), {@code floor} (the whole scan
 * in C, one JNI call). Each touches key length, value length and the first and last byte of
 * key and value, returns the checksum, and is checked against the floor's checksum at setup.
 * The floor does not use {@code binding} except to attach the engine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class ScanBench {
    @Param({"ROCKSDB", "LMDB"})
    public String engine;
    @Param({"jni", "ffm"})
    public String binding;
    @Param({"100", "800"})
    public int valueSize;
    @Param({"forward", "reverse"})
    public String direction;
    @Param({"1000000"})
    public int entries;

    /** Ferry's page size in bytes (not a JMH parameter: {@link Interleaved} varies it on request). */
    int pageSize = dev.ferry.StoreOptions.DEFAULT_PAGE_SIZE;
    /** Cursor options of the {@code ferry} loop (not a JMH parameter: {@link Interleaved} turns LMDB's page walk off on request). */
    CursorOptions cursorOptions = CursorOptions.defaults();
    /** Diagnostic ({@link Interleaved} only): the Ferry loop reads keys and value lengths but no value byte, so its checksum is not the data set's. */
    boolean noValueBytes;
    /** {@link Interleaved} only: a copy of the data set to open read-write instead (RocksDB serves a compacted store opened read-only in its compacted-DB mode, where Ferry keeps copy pages). */
    Path readWriteCopy;

    private boolean reverse;
    private Store store;
    private NativeFloor.Db floorDb;

    /**
     * Opens what the trial's method needs (only that: LMDB forbids a second open of one
     * environment in a process), runs one warm scan and checks its checksum.
     *
     * @param params the trial
     */
    @Setup
    public void setup(BenchmarkParams params) {
        open(BenchData.method(params.getBenchmark()));
    }

    /**
     * Opens the store for one variant, runs it once and checks its checksum.
     *
     * @param m the variant (method name)
     */
    void open(String m) {
        Engine e = Engine.valueOf(engine);
        BenchData.Dataset d = BenchData.dataset(e, entries, valueSize);
        reverse = direction.equals("reverse");
        long sum;
        if (m.equals("floor")) {
            NativeFloor.attach(e, binding);
            floorDb = NativeFloor.open(e, d.dir, true, 0);
            sum = floor();
        } else {
            if (m.equals("ferryScan") && reverse) {
                throw new UnsupportedOperationException("Store.scan is forward-only: run ferryScan with -p direction=forward");
            }
            store = readWriteCopy != null ? Store.open(readWriteCopy, BenchData.options(e, binding, false).pageSize(pageSize))
                    : Store.open(d.dir, BenchData.options(e, binding, true).pageSize(pageSize));
            sum = m.equals("ferry") ? ferry() : ferryScan();
            if (noValueBytes) {
                return;
            }
        }
        BenchData.check(getClass().getSimpleName() + "." + m + " " + engine + "/" + binding + "/" + direction, sum, d.checksum);
    }

    /** Closes the store or floor handle. */
    @TearDown
    public void tearDown() {
        if (store != null) {
            store.close();
            store = null;
        }
        if (floorDb != null) {
            floorDb.close();
            floorDb = null;
        }
    }

    /** @return checksum of a Ferry cursor loop over the whole store */
    @Benchmark
    public long ferry() {
        if (noValueBytes) {
            return noValueBytes(store, cursorOptions, reverse);
        }
        return reverse ? ferryReverse(store, cursorOptions) : ferryForward(store, cursorOptions);
    }

    /** @return the Ferry cursor loop's checksum without the values' bytes (lengths only): what reading them costs */
    static long noValueBytes(Store store, CursorOptions o, boolean reverse) {
        long sum = 0;
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), o)) {
            for (boolean ok = reverse ? c.last() : c.first(); ok; ok = reverse ? c.prev() : c.next()) {
                View k = c.key();
                int kl = k.length();
                sum += kl + c.value().length() + (k.getByte(0) & 0xFF) + (k.getByte(kl - 1) & 0xFF);
            }
        }
        return sum;
    }

    // One method per direction: see RocksJavaScanBench.bytesLoop.
    /** @return checksum of a forward Ferry cursor loop */
    static long ferryForward(Store store, CursorOptions o) {
        long sum = 0;
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), o)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                sum += BenchData.touch(c.key(), c.value());
            }
        }
        return sum;
    }

    /** @return checksum of a reverse Ferry cursor loop */
    static long ferryReverse(Store store, CursorOptions o) {
        long sum = 0;
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), o)) {
            for (boolean ok = c.last(); ok; ok = c.prev()) {
                sum += BenchData.touch(c.key(), c.value());
            }
        }
        return sum;
    }

    /** @return checksum of a {@link Store#scan} over the whole store */
    @Benchmark
    public long ferryScan() {
        long[] sum = new long[1];
        store.scan(KeyRange.all(), (k, v) -> {
            sum[0] += BenchData.touch(k, v);
            return true;
        });
        return sum[0];
    }

    /** @return checksum of the native floor's scan (one JNI call) */
    @Benchmark
    public long floor() {
        return floorDb.scan(reverse);
    }
}
