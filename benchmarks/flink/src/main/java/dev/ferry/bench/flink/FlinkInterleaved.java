package dev.ferry.bench.flink;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.runtime.state.KeyedStateHandle;

/**
 * Flink's built-in RocksDB backend and Ferry's in one JVM, interleaved: every backend holds the same data
 * ({@link KeyedStateWorkload}) at once; each round runs every workload on every backend in turn (the order rotates
 * by round), for a fixed time each; then a full checkpoint of every backend and a restore of it into a new backend
 * of the same kind. Round 1 is warm-up. Prints, per workload, the best time of each backend over the other rounds
 * (ns per state access; checkpoint and restore in ms per backend of {@code keys} keys) and the built-in backend's
 * time over each of Ferry's ("speed-up", 1.30 = Ferry 1.3x as fast), with half the range of the per-round ratios.
 *
 * <pre>java -cp flink-benchmarks.jar dev.ferry.bench.flink.FlinkInterleaved [--keys N] [--rounds R] [--millis T]
 *     [--workloads valueGet,mapEntries,...] [--backends rocksdb,ferry-jni,ferry-ffm] [--incremental] [--out file.csv]</pre>
 *
 * {@code --incremental}: both backends take incremental checkpoints (workloads {@code checkpointIncremental} and
 * {@code restoreIncremental}); by default each takes its default full checkpoint, which for both backends (Ferry's
 * on RocksDB with timers in the store) is its table files, restored by opening them.
 *
 * The CSV has one line per backend and workload: {@code backend,workload,best,median,unit,speedup,speedup_error}.
 */
public final class FlinkInterleaved {
    /** Every workload, in the order they run. */
    static final List<String> ALL = List.of("valueGet", "valueUpdate", "listAdd", "listGet", "listUpdate", "mapGet", "mapPut",
            "mapContains", "mapIterator", "mapKeys", "mapValues", "mapEntries", "mapEntriesDeleted", "mapIsEmptyDeleted",
            "timerRegisterFire", "timerRegisterFireDeleted", "checkpoint", "restore");

    private FlinkInterleaved() {
    }

    /**
     * Runs the comparison.
     *
     * @param args see the class comment
     * @throws Exception if a backend fails
     */
    public static void main(String[] args) throws Exception {
        int keys = 10_000;
        int rounds = 5;
        long millis = 500;
        List<String> workloads = ALL;
        List<String> backends = List.of("rocksdb", "ferry-jni", "ferry-ffm");
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--keys" -> keys = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--millis" -> millis = Long.parseLong(args[++i]);
                case "--workloads" -> workloads = Arrays.asList(args[++i].split(","));
                case "--backends" -> backends = Arrays.asList(args[++i].split(","));
                case "--out" -> out = Path.of(args[++i]);
                case "--incremental" -> System.setProperty("bench.flink.incremental", "true");
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + " (see the class comment)");
            }
        }
        if (rounds < 2 || !backends.contains("rocksdb")) {
            throw new IllegalArgumentException("needs 2 rounds or more (the first is warm-up) and the rocksdb backend");
        }
        Map<String, KeyedStateWorkload> open = new LinkedHashMap<>();
        org.rocksdb.RocksDB.loadLibrary();
        // frocksdbjni's (Flink's RocksDB backend brings it): both backends run on this engine
        System.out.println("engine: RocksDB " + org.rocksdb.RocksDB.rocksdbVersion() + " (frocksdbjni)");
        for (String b : backends) {
            open.put(b, new KeyedStateWorkload(b, keys, 16, 0));
        }
        // times[workload][backend][round]
        Map<String, Map<String, double[]>> times = new LinkedHashMap<>();
        Path scratch = Files.createTempDirectory("ferry-flink-interleaved-");
        try {
            for (int r = 0; r < rounds; r++) {
                List<String> order = new ArrayList<>(backends);
                java.util.Collections.rotate(order, -r);
                for (String w : workloads) {
                    for (String b : order) {
                        double t = measure(w, b, open.get(b), millis, scratch, r);
                        String name = Backends.incremental() && (w.equals("checkpoint") || w.equals("restore"))
                                ? w + "Incremental" : w;
                        times.computeIfAbsent(name, x -> new LinkedHashMap<>()).computeIfAbsent(b, x -> new double[0]);
                        double[] prev = times.get(name).get(b);
                        double[] next = Arrays.copyOf(prev, prev.length + 1);
                        next[prev.length] = t;
                        times.get(name).put(b, next);
                    }
                }
                System.out.printf("round %d of %d done%n", r + 1, rounds);
            }
        } finally {
            for (KeyedStateWorkload w : open.values()) {
                w.close();
            }
            delete(scratch);
        }
        report(times, backends, keys, System.out);
        if (out != null) {
            try (PrintStream csv = new PrintStream(Files.newOutputStream(out))) {
                csv.println("backend,workload,best,median,unit,speedup,speedup_error");
                for (var w : times.entrySet()) {
                    String unit = w.getKey().startsWith("checkpoint") || w.getKey().startsWith("restore") ? "ms" : "ns/op";
                    double[] base = w.getValue().get("rocksdb");
                    for (var b : w.getValue().entrySet()) {
                        double[] ratio = ratios(base, b.getValue());
                        csv.printf(java.util.Locale.ROOT, "%s,%s,%.3f,%.3f,%s,%.4f,%.4f%n", b.getKey(), w.getKey(),
                                best(b.getValue()), median(afterWarmUp(b.getValue())), unit, median(ratio), halfRange(ratio));
                    }
                }
            }
        }
    }

    /** One workload's time on one backend: ns per access over {@code millis}, or ms for checkpoint and restore. */
    private static double measure(String workload, String backend, KeyedStateWorkload w, long millis, Path scratch, int round)
            throws Exception {
        if (workload.equals("checkpoint") || workload.equals("restore")) {
            Path target = scratch.resolve(backend + "-" + round);
            Files.createDirectories(target);
            long t0 = System.nanoTime();
            KeyedStateHandle snapshot = w.backends().snapshot(target, round + 1);
            long t1 = System.nanoTime();
            try (Backends restored = Backends.restore(backend, snapshot)) {
                long t2 = System.nanoTime();
                // not timed: the restored backend holds as many entries as the one snapshotted
                int before = w.backends().keyed().numKeyValueStateEntries();
                int after = restored.keyed().numKeyValueStateEntries();
                if (before != after) {
                    throw new IllegalStateException(backend + ": " + before + " entries snapshotted, " + after + " restored");
                }
                return (workload.equals("checkpoint") ? t1 - t0 : t2 - t1) / 1e6;
            } finally {
                snapshot.discardState();
                delete(target);
            }
        }
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long calls = 0;
        long sink = 0;
        long t0 = System.nanoTime();
        long t1;
        do {
            sink += call(workload, w);
            calls++;
            t1 = System.nanoTime();
        } while (t1 < deadline);
        if (sink == 42) {
            System.out.print("");
        }
        return (t1 - t0) / (double) (calls * KeyedStateWorkload.BATCH);
    }

    private static long call(String workload, KeyedStateWorkload w) throws Exception {
        return switch (workload) {
            case "valueGet" -> w.valueGet();
            case "valueUpdate" -> w.valueUpdate();
            case "listAdd" -> w.listAdd();
            case "listGet" -> w.listGet();
            case "listUpdate" -> w.listUpdate();
            case "mapGet" -> w.mapGet();
            case "mapPut" -> w.mapPut();
            case "mapContains" -> w.mapContains();
            case "mapIterator" -> w.mapIterator();
            case "mapKeys" -> w.mapKeys();
            case "mapValues" -> w.mapValues();
            case "mapEntries" -> w.mapEntries();
            case "mapEntriesDeleted" -> w.mapEntriesDeleted();
            case "mapIsEmptyDeleted" -> w.mapIsEmptyDeleted();
            case "timerRegisterFire" -> w.timerRegisterFire();
            case "timerRegisterFireDeleted" -> w.timerRegisterFireDeleted();
            default -> throw new IllegalArgumentException("unknown workload " + workload + "; known: " + ALL);
        };
    }

    /** Per-round ratios base/other, leaving out round 1 (warm-up). */
    static double[] ratios(double[] base, double[] other) {
        double[] r = new double[Math.max(0, Math.min(base.length, other.length) - 1)];
        for (int i = 0; i < r.length; i++) {
            r[i] = base[i + 1] / other[i + 1];
        }
        return r;
    }

    /** The rounds after the first (warm-up). */
    static double[] afterWarmUp(double[] t) {
        return Arrays.copyOfRange(t, Math.min(1, t.length), t.length);
    }

    static double best(double[] t) {
        return Arrays.stream(afterWarmUp(t)).min().orElse(Double.NaN);
    }

    static double median(double[] t) {
        double[] s = t.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static double halfRange(double[] t) {
        return t.length == 0 ? Double.NaN : (Arrays.stream(t).max().getAsDouble() - Arrays.stream(t).min().getAsDouble()) / 2;
    }

    private static void report(Map<String, Map<String, double[]>> times, List<String> backends, int keys, PrintStream out) {
        out.printf("%nFlink keyed state, interleaved: %d keys; best of rounds 2..; speed-up = built-in time / Ferry's (median"
                + " of per-round ratios +- half their range)%n", keys);
        StringBuilder head = new StringBuilder(String.format("%-26s %-6s", "workload", "unit"));
        for (String b : backends) {
            head.append(String.format(" %12s", b));
        }
        for (String b : backends) {
            if (!b.equals("rocksdb")) {
                head.append(String.format(" %18s", "speed-up " + b));
            }
        }
        out.println(head);
        for (var w : times.entrySet()) {
            String unit = w.getKey().startsWith("checkpoint") || w.getKey().startsWith("restore") ? "ms" : "ns/op";
            StringBuilder line = new StringBuilder(String.format("%-26s %-6s", w.getKey(), unit));
            for (String b : backends) {
                line.append(String.format(java.util.Locale.ROOT, " %12.1f", best(w.getValue().get(b))));
            }
            for (String b : backends) {
                if (!b.equals("rocksdb")) {
                    double[] r = ratios(w.getValue().get("rocksdb"), w.getValue().get(b));
                    line.append(String.format(java.util.Locale.ROOT, " %11.2f +-%.2f", median(r), halfRange(r)));
                }
            }
            out.println(line);
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
