package dev.ferry.bench;

import dev.ferry.Engine;
import dev.ferry.Store;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Random point reads of existing keys: 100,000 random keys of the scan data set, read in turn.
 * <b>Unit: ns per get</b> ({@code @OperationsPerInvocation}: Java variants do 1,000 gets per
 * invocation, the floor all 100,000 in one JNI call).
 *
 * <p>Variants: {@code ferry} ({@code Store.get(byte[])}, a new byte[] per value),
 * {@code ferryInto} ({@code Store.get(cf, ByteBuffer, ByteBuffer)} into a reused direct
 * buffer), {@code floor} (rocksdb_get_pinned / mdb_get in C; LMDB: one read transaction for all).
 * Each sums value length, first and last byte; the setup checks the sum over all keys against
 * the value generator. Peers: {@link RocksJavaGetBench}, {@link LmdbJavaGetBench}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE, BenchData.HEAP})
public class GetBench {
    /** Keys in the random key list. */
    public static final int KEYS = 100_000;
    /** Gets per invocation of the Java variants. */
    public static final int BATCH = 1000;

    @Param({"ROCKSDB", "LMDB"})
    public String engine;
    @Param({"jni", "ffm"})
    public String binding;
    @Param({"100"})
    public int valueSize;
    @Param({"1000000"})
    public int entries;

    private RandomKeys rk;
    private int pos;
    private Store store;
    private ByteBuffer[] keyBufs;
    private ByteBuffer into;
    private NativeFloor.Db floorDb;

    /**
     * Opens the data set for the trial's method and checks one full pass.
     *
     * @param params the trial
     */
    @Setup
    public void setup(BenchmarkParams params) {
        Engine e = Engine.valueOf(engine);
        BenchData.Dataset d = BenchData.dataset(e, entries, valueSize);
        rk = new RandomKeys(KEYS, entries, valueSize);
        String m = BenchData.method(params.getBenchmark());
        long sum = 0;
        if (m.equals("floor")) {
            NativeFloor.attach(e, binding);
            floorDb = NativeFloor.open(e, d.dir, true, 0);
            sum = floor();
        } else {
            store = Store.open(d.dir, BenchData.options(e, binding, true));
            keyBufs = new ByteBuffer[KEYS];
            for (int i = 0; i < KEYS; i++) {
                keyBufs[i] = ByteBuffer.wrap(rk.keys[i]);
            }
            into = ByteBuffer.allocateDirect(valueSize);
            for (int i = 0; i < KEYS / BATCH; i++) {
                sum += m.equals("ferry") ? ferry() : ferryInto();
            }
        }
        BenchData.check("GetBench." + m + " " + engine + "/" + binding, sum, rk.expected);
    }

    /** Closes the store. */
    @TearDown
    public void tearDown() {
        if (store != null) {
            store.close();
        }
        if (floorDb != null) {
            floorDb.close();
        }
    }

    /** @return checksum of 1,000 gets returning byte[] */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long ferry() {
        long sum = 0;
        byte[][] keys = rk.keys;
        int p = pos;
        for (int i = 0; i < BATCH; i++) {
            byte[] v = store.get(keys[p++]);
            sum += v.length + (v[0] & 0xFF) + (v[v.length - 1] & 0xFF);
        }
        pos = p == KEYS ? 0 : p;
        return sum;
    }

    /** @return checksum of 1,000 gets into a direct buffer */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long ferryInto() {
        long sum = 0;
        ByteBuffer[] keys = keyBufs;
        ByteBuffer v = into;
        int p = pos;
        var cf = store.defaultColumnFamily();
        for (int i = 0; i < BATCH; i++) {
            v.clear();
            int vl = store.get(cf, keys[p++], v);
            sum += vl + (v.get(0) & 0xFF) + (v.get(vl - 1) & 0xFF);
        }
        pos = p == KEYS ? 0 : p;
        return sum;
    }

    /** @return checksum of all 100,000 gets in C */
    @Benchmark
    @OperationsPerInvocation(KEYS)
    public long floor() {
        return floorDb.gets(rk.packedAddr, KEYS, BenchData.KEY_SIZE);
    }

    /** The random key list shared by the get benchmarks, with its expected checksum. */
    static final class RandomKeys {
        final byte[][] keys;
        final ByteBuffer packed;
        final long packedAddr;
        final long expected;

        RandomKeys(int n, int entries, int valueSize) {
            keys = new byte[n][];
            packed = ByteBuffer.allocateDirect(n * BenchData.KEY_SIZE);
            long exp = 0;
            for (int i = 0; i < n; i++) {
                long idx = Long.remainderUnsigned(BenchData.mix(1000003L * i), entries);
                keys[i] = BenchData.key(idx);
                packed.put(i * BenchData.KEY_SIZE, keys[i]);
                exp += BenchData.expectedGet(idx, valueSize);
            }
            packedAddr = NativeFloor.address(packed);
            expected = exp;
        }
    }
}
