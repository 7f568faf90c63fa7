package dev.ferry.bench;

import dev.ferry.JavaMergeOperator;
import dev.ferry.MergeOperator;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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

/**
 * The cost of a merge operator written in Java against RocksDB's built-in {@code uint64add} on the same
 * workload: 10,000 keys, each a value and {@link #OPERANDS} merge operands in the memtable, read in turn, so
 * that each get runs one full merge. <b>Unit: ns per get</b> (1,000 gets per invocation).
 *
 * <p>{@code merge}: {@code none} (the same keys written with plain puts: a get without a merge),
 * {@code uint64add} (the built-in), {@code java} (the same sum in a {@link JavaMergeOperator}, called through
 * libferry's JNI trampoline on both bindings). The setup checks every sum.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.OPENS_NIO, BenchData.OPENS_NIO_CH, BenchData.UNSAFE})
public class MergeBench {
    /** Keys. */
    public static final int KEYS = 10_000;
    /** Merge operands per key. */
    public static final int OPERANDS = 8;
    /** Gets per invocation. */
    public static final int BATCH = 1000;

    @Param({"none", "uint64add", "java"})
    public String merge;
    @Param({"jni", "ffm"})
    public String binding;

    private Path dir;
    private Store store;
    private byte[][] keys;
    private int pos;

    /** uint64add in Java: 8-byte little-endian sums. */
    static final class Sum implements JavaMergeOperator {
        @Override public String name() {
            return "bench.Sum";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, List<byte[]> operands) {
            long v = existing == null ? 0 : le64(existing);
            for (byte[] o : operands) {
                v += le64(o);
            }
            return le64(v);
        }

        @Override public byte[] partialMerge(byte[] key, byte[] left, byte[] right) {
            return le64(le64(left) + le64(right));
        }
    }

    static long le64(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    static byte[] le64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    /**
     * Writes the keys and checks every sum.
     *
     * @throws IOException when the directory cannot be made
     */
    @Setup
    public void setup() throws IOException {
        dir = Files.createTempDirectory("ferry-merge-bench");
        StoreOptions o = StoreOptions.rocksdb().binding(binding);
        if (merge.equals("uint64add")) {
            o.mergeOperator(MergeOperator.UINT64_ADD);
        } else if (merge.equals("java")) {
            o.javaMergeOperator(new Sum());
        }
        store = Store.open(dir, o);
        keys = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = String.format("key%08d", i).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            store.put(keys[i], le64(i));
            for (int j = 1; j <= OPERANDS; j++) {
                if (merge.equals("none")) {
                    store.put(keys[i], le64(i + j * (j + 1L) / 2));
                } else {
                    store.merge(keys[i], le64(j));
                }
            }
        }
        for (int i = 0; i < KEYS; i++) {
            long want = i + OPERANDS * (OPERANDS + 1L) / 2;
            if (le64(store.get(keys[i])) != want) {
                throw new IllegalStateException("key " + i + ": " + le64(store.get(keys[i])) + " != " + want);
            }
        }
    }

    /**
     * Closes and deletes the store.
     *
     * @throws IOException when a file cannot be deleted
     */
    @TearDown
    public void tearDown() throws IOException {
        store.close();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /**
     * 1,000 gets, each one full merge of the key's value and operands.
     *
     * @return the sum of the values
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long get() {
        long sum = 0;
        int p = pos;
        for (int i = 0; i < BATCH; i++) {
            sum += store.get(keys[p])[0];
            p = p + 1 == KEYS ? 0 : p + 1;
        }
        pos = p;
        return sum;
    }
}
