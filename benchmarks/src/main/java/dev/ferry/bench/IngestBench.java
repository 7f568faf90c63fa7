package dev.ferry.bench;

import dev.ferry.SstFileWriter;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Bulk load of a new RocksDB store: the same sorted entries (16-byte keys, random values) loaded
 * three ways, each into a fresh store, until the data is in table files:
 * <ul>
 *   <li>{@code batch}: {@link WriteBatch}es of 10,000 entries (write-ahead log on, the default), then {@link Store#flush()};</li>
 *   <li>{@code batch-nowal}: the same with {@code wal(false)};</li>
 *   <li>{@code sst}: one {@link SstFileWriter} file, then {@link Store#ingest} with {@code move}.</li>
 * </ul>
 * As JMH benchmarks ({@code batch}, {@code batchNoWal}, {@code sst}; the report's "bulk load" rows):
 * one load into a fresh store per invocation, store open and close included. <b>Unit: ms per
 * load</b> (the report divides by the entries). As a program ({@link #main}): the three run
 * interleaved in every round (drift on a shared machine hits all alike); prints each round and the
 * medians in milliseconds and entries per second.
 *
 * <p>Usage: {@code IngestBench [entries=1000000] [valueBytes=100] [rounds=5] [binding=jni]}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 2, jvmArgsAppend = {BenchData.NATIVE_ACCESS, BenchData.UNSAFE, BenchData.HEAP})
public class IngestBench {
    private static final int BATCH = 10_000;

    @Param({"200000"})
    public int entries;
    @Param({"100"})
    public int valueSize;
    @Param({"jni", "ffm"})
    public String binding;

    private Path root;
    private int loads;

    /** Makes the scratch directory. */
    @Setup(Level.Trial)
    public void setup() {
        root = BenchData.scratch(getClass().getSimpleName());
    }

    /** Deletes what the last load left. */
    @TearDown(Level.Invocation)
    public void clean() throws IOException {
        delete(root.resolve("load-" + loads));
        loads++;
    }

    /** Deletes the scratch directory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        BenchData.deleteTree(root);
    }

    /**
     * {@code WriteBatch}es of 10,000 entries with the write-ahead log, then {@code flush()}.
     *
     * @return the load's milliseconds as measured inside
     * @throws IOException on file errors
     */
    @Benchmark
    public double batch() throws IOException {
        return load("batch", root.resolve("load-" + loads), entries, valueSize, binding);
    }

    /**
     * The same without the write-ahead log.
     *
     * @return the load's milliseconds as measured inside
     * @throws IOException on file errors
     */
    @Benchmark
    public double batchNoWal() throws IOException {
        return load("batch-nowal", root.resolve("load-" + loads), entries, valueSize, binding);
    }

    /**
     * One {@code SstFileWriter} file, then {@code ingest} with move.
     *
     * @return the load's milliseconds as measured inside
     * @throws IOException on file errors
     */
    @Benchmark
    public double sst() throws IOException {
        return load("sst", root.resolve("load-" + loads), entries, valueSize, binding);
    }

    /**
     * @param args entries, value bytes, rounds, binding
     * @throws IOException on file errors
     */
    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int vlen = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String binding = args.length > 3 ? args[3] : "jni";
        Path root = Files.createTempDirectory("ferry-ingest");
        String[] ways = {"batch", "batch-nowal", "sst"};
        List<List<Double>> ms = new ArrayList<>();
        for (int i = 0; i < ways.length; i++) {
            ms.add(new ArrayList<>());
        }
        System.out.printf(Locale.ROOT, "IngestBench: %d entries, 16 B keys, %d B values, %d rounds, binding %s%n", n, vlen, rounds, binding);
        for (int r = -1; r < rounds; r++) { // round -1 warms up and is not counted
            for (int w = 0; w < ways.length; w++) {
                Path dir = root.resolve(ways[w] + "-" + (r + 1));
                double t = load(ways[w], dir, n, vlen, binding);
                delete(dir);
                if (r >= 0) {
                    ms.get(w).add(t);
                    System.out.printf(Locale.ROOT, "round %d %-12s %9.1f ms%n", r, ways[w], t);
                }
            }
        }
        System.out.println("median:");
        for (int w = 0; w < ways.length; w++) {
            double[] v = ms.get(w).stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double med = v[v.length / 2];
            System.out.printf(Locale.ROOT, "%-12s %9.1f ms  %,12.0f entries/s%n", ways[w], med, n / (med / 1000));
        }
        delete(root);
    }

    private static byte[] key(int i) {
        return ByteBuffer.allocate(16).putLong(0x6b65792dL).putLong(i).array(); // big-endian: sorted as i
    }

    private static byte[] value(int i, int vlen) {
        byte[] v = new byte[vlen];
        long x = i * 0x9E3779B97F4A7C15L;
        for (int j = 0; j < vlen; j++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            v[j] = (byte) x;
        }
        return v;
    }

    private static double load(String way, Path dir, int n, int vlen, String binding) throws IOException {
        StoreOptions o = StoreOptions.rocksdb().binding(binding);
        if (way.equals("batch-nowal")) {
            o.wal(false);
        }
        long t0 = System.nanoTime();
        try (Store s = Store.open(dir.resolve("db"), o)) {
            if (way.equals("sst")) {
                Path f = dir.resolve("load.sst");
                try (SstFileWriter w = SstFileWriter.open(f, null, binding)) {
                    for (int i = 0; i < n; i++) {
                        w.put(key(i), value(i, vlen));
                    }
                    w.finish();
                }
                s.ingest(s.defaultColumnFamily(), List.of(f), true);
            } else {
                try (WriteBatch b = new WriteBatch()) {
                    for (int i = 0; i < n; i++) {
                        b.put(key(i), value(i, vlen));
                        if (b.count() == BATCH || i == n - 1) {
                            s.write(b);
                            b.clear();
                        }
                    }
                }
                s.flush();
            }
            if (s.get(key(n - 1)) == null) {
                throw new IllegalStateException(way + ": last key missing");
            }
        }
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void delete(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toArray(Path[]::new)) {
                Files.delete(x);
            }
        }
    }
}
