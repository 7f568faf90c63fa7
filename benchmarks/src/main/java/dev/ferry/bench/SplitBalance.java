package dev.ferry.bench;

import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What {@code Store.split} costs and how evenly it cuts, on even and skewed keys (issue 35): per key
 * shape a fresh store of {@code entries} entries x 100 B (RocksDB flushed, unless {@code -Dsplit.flush=false}), then {@code Store.split}
 * into n sub-ranges, best of 20, with the engine's split points ({@code ferry_split_points}) and with
 * sampling alone ({@code -Dferry.split.engine=false}, flipped between the two in this JVM), and each
 * sub-range's entry count against the mean.
 *
 * <p>Shapes: {@code even} (16-digit decimal counters, the benchmarks' keys), {@code hot} (90% of the keys
 * under one prefix, 10% random bytes), {@code runs} (five dense runs of counters far apart, 2% sparse
 * keys), {@code squares} (i*i as 16-digit decimals: ever sparser).
 *
 * <p>Usage: {@code SplitBalance <ROCKSDB|LMDB> <jni|ffm> <entries> <n> [shape,...]}; prints one line per
 * shape and method: {@code split engine=.. shape=.. method=engine|sampling n=.. splits=.. best_us=..
 * min_to_mean=.. max_to_mean=.. counts=[..]}.
 */
public final class SplitBalance {
    private SplitBalance() {
    }

    /**
     * @param args engine, binding, entries, n, shapes (default all)
     * @throws IOException when the scratch directory cannot be made or removed
     */
    public static void main(String[] args) throws IOException {
        Engine engine = Engine.valueOf(args[0]);
        String binding = args[1];
        int entries = Integer.parseInt(args[2]);
        int n = Integer.parseInt(args[3]);
        List<String> shapes = List.of((args.length > 4 ? args[4] : "even,hot,runs,squares").split(","));
        for (String shape : shapes) {
            Path dir = Files.createTempDirectory("ferry-split-balance-");
            try {
                try (Store s = Store.open(dir.resolve("db"), BenchData.options(engine, binding, false))) {
                    fill(s, shape, entries);
                    if (!"false".equals(System.getProperty("split.flush"))) {
                        s.flush();
                    }
                    ColumnFamily cf = s.defaultColumnFamily();
                    long total = s.scan(cf, KeyRange.all(), (k, v) -> true);
                    for (String method : new String[] {"engine", "sampling"}) {
                        System.setProperty("ferry.split.engine", method.equals("engine") ? "true" : "false");
                        List<KeyRange> splits = null;
                        long best = Long.MAX_VALUE;
                        for (int i = 0; i < 20; i++) {
                            long t = System.nanoTime();
                            splits = s.split(cf, KeyRange.all(), n);
                            best = Math.min(best, System.nanoTime() - t);
                        }
                        long[] counts = new long[splits.size()];
                        long min = Long.MAX_VALUE;
                        long max = 0;
                        for (int i = 0; i < counts.length; i++) {
                            counts[i] = s.scan(cf, splits.get(i), (k, v) -> true);
                            min = Math.min(min, counts[i]);
                            max = Math.max(max, counts[i]);
                        }
                        double mean = total / (double) n;
                        System.out.printf(Locale.ROOT, "split engine=%s jvm_binding=%s shape=%s method=%s entries=%d n=%d"
                                        + " splits=%d best_us=%.1f min_to_mean=%.3f max_to_mean=%.3f counts=%s%n",
                                engine.name().toLowerCase(Locale.ROOT), binding, shape, method, total, n, counts.length,
                                best / 1e3, min / mean, max / mean, java.util.Arrays.toString(counts));
                    }
                    System.clearProperty("ferry.split.engine");
                }
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private static byte[] dec(long i) {
        return String.format(Locale.ROOT, "%016d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static void fill(Store s, String shape, int entries) {
        Random rnd = new Random(42);
        byte[] v = new byte[100];
        WriteBatch b = new WriteBatch();
        for (int i = 0; i < entries; i++) {
            byte[] k;
            switch (shape) {
                case "even":
                    k = dec(i);
                    break;
                case "hot":
                    if (i % 10 != 0) {
                        k = ("hot/" + String.format(Locale.ROOT, "%012d", i)).getBytes(StandardCharsets.US_ASCII);
                    } else {
                        k = new byte[16];
                        rnd.nextBytes(k);
                        k[0] = (byte) (k[0] | 1);
                    }
                    break;
                case "runs":
                    k = i % 50 == 0 ? dec(Math.floorMod(rnd.nextLong(), 10_000_000_000_000_000L))
                            : dec((i % 5) * 1_000_000_000_000L + i);
                    break;
                case "squares":
                    k = dec((long) i * i);
                    break;
                default:
                    throw new IllegalArgumentException("shape " + shape + " (even, hot, runs, squares)");
            }
            rnd.nextBytes(v);
            b.put(k, v);
            if (b.count() == 1000) {
                s.write(b);
                b = new WriteBatch();
            }
        }
        if (b.count() > 0) {
            s.write(b);
        }
    }
}
