package dev.ferry.bench;

import dev.ferry.CursorOptions;
import dev.ferry.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scan ratios measured interleaved: round after round, every variant (floor, Ferry on JNI and
 * FFM, the engine's peers) opens the data set, scans it a few times and closes, in turn, so
 * slow phases of a shared machine hit all variants alike. Reports the best scan of each variant
 * in ns per entry and its ratio to the floor's best. A complement to the JMH scan figures (which
 * run variants minutes apart), not a replacement: no forks, so JIT luck is shared by design.
 *
 * <p>One JVM per engine and binding (as JMH forks would), so Ferry's code is profiled for one
 * engine and one binding only; the floor and the engine's peers run in every such JVM.
 *
 * <p>{@code -Dferry.bench.pageSizes=4096,16384} adds Ferry variants with those page sizes
 * (named {@code ferry-<binding>-page<bytes>}) beside the default. On LMDB,
 * {@code -Dferry.bench.engineSteps=true} adds {@code ferry-<binding>-steps}: the same loop with
 * {@code CursorOptions.pageWalk(false)}, every entry stepped by {@code mdb_cursor_get}. On RocksDB,
 * {@code -Dferry.bench.pointers=true} adds {@code ferry-<binding>-pointers}: the same loop over pointer pages
 * ({@code CursorOptions.pointers(true)}, values read where RocksDB's pinned blocks hold them), and
 * {@code ferry-<binding>-rw}, copy pages, both over a read-write copy of the data set (a compacted store opened
 * read-only, as the other variants open it, is served by RocksDB's compacted-DB mode, where Ferry keeps copy
 * pages); the copy is removed after each value size and direction. {@code -Dferry.bench.noValueBytes=true} adds
 * {@code ferry-<binding>-novalue} (diagnostic, its checksum is not checked): the Ferry loop reading keys and value lengths but no value byte, so the difference to
 * {@code ferry-<binding>} is what reading each value's first and last byte costs the Java walk.
 *
 * <p>Usage: {@code Interleaved <ROCKSDB|LMDB> <jni|ffm> <entries> <rounds> <valueSize>...}; prints one line per variant:
 * {@code interleaved engine=.. value_size=.. direction=.. variant=.. best_ns_per_entry=.. ratio_to_floor=.. ratio_err=.. round_ratios=..}
 * ({@code ratio_err}: half the range of the per-round ratios {@code round_ratios}, see {@link RoundBests}).
 */
public final class Interleaved {
    private Interleaved() {
    }

    interface Variant {
        AutoCloseable open() throws Exception;

        long scan();
    }

    /**
     * @param args entries, rounds, value sizes
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String engine = args[0];
        String binding = args[1];
        int entries = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        for (int a = 4; a < args.length; a++) {
            int vs = Integer.parseInt(args[a]);
            for (String dir : new String[] {"forward", "reverse"}) {
                run(engine, binding, vs, dir, entries, rounds);
            }
        }
        System.exit(0);
    }

    private static void run(String engine, String binding, int vs, String dir, int entries, int rounds) throws Exception {
        // the data set is compacted and opened read-only, which RocksDB serves in its compacted-DB mode, where Ferry
        // keeps copy pages: pointer pages read a read-write copy of it, beside copy pages of the same copy
        Path copy = engine.equals("ROCKSDB") && Boolean.getBoolean("ferry.bench.pointers") ? readWriteCopy(engine, vs, entries) : null;
        try {
            measure(engine, binding, vs, dir, entries, rounds, copy);
        } finally {
            BenchData.deleteTree(copy);
        }
    }

    private static void measure(String engine, String binding, int vs, String dir, int entries, int rounds, Path copy)
            throws Exception {
        Map<String, Variant> vars = new LinkedHashMap<>();
        vars.put("floor", ferry(engine, binding, vs, dir, entries, "floor"));
        vars.put("ferry-" + binding, ferry(engine, binding, vs, dir, entries, "ferry"));
        for (String p : System.getProperty("ferry.bench.pageSizes", "").split(",")) {
            if (!p.isBlank()) {
                ScanVariant v = ferry(engine, binding, vs, dir, entries, "ferry");
                v.bench.pageSize = Integer.parseInt(p.trim());
                vars.put("ferry-" + binding + "-page" + p.trim(), v);
            }
        }
        if (engine.equals("LMDB") && Boolean.getBoolean("ferry.bench.engineSteps")) {
            ScanVariant v = ferry(engine, binding, vs, dir, entries, "ferry");
            v.bench.cursorOptions = CursorOptions.defaults().pageWalk(false);
            vars.put("ferry-" + binding + "-steps", v);
        }
        if (Boolean.getBoolean("ferry.bench.noValueBytes")) {
            ScanVariant v = ferry(engine, binding, vs, dir, entries, "ferry");
            v.bench.noValueBytes = true;
            vars.put("ferry-" + binding + "-novalue", v);
        }
        if (copy != null) {
            ScanVariant rw = ferry(engine, binding, vs, dir, entries, "ferry");
            rw.bench.readWriteCopy = copy;
            vars.put("ferry-" + binding + "-rw", rw);
            ScanVariant v = ferry(engine, binding, vs, dir, entries, "ferry");
            v.bench.cursorOptions = CursorOptions.defaults().pointers(true);
            v.bench.readWriteCopy = copy;
            vars.put("ferry-" + binding + "-pointers", v);
        }
        if (engine.equals("ROCKSDB")) {
            for (String m : List.of("rocksjavaBytes", "rocksjavaReuse", "rocksjavaDirect")) {
                RocksJavaScanBench b = new RocksJavaScanBench();
                b.valueSize = vs;
                b.direction = dir;
                b.entries = entries;
                vars.put(m, new Variant() {
                    public AutoCloseable open() throws Exception {
                        b.open(m);
                        return b::tearDown;
                    }

                    public long scan() {
                        return b.run(m);
                    }
                });
            }
            if (dir.equals("forward")) {
                // a RocksJava iterator wrapped by Ferry (issue "speed up existing RocksJava code"),
                // beside rocksjavaBytes driving the same kind of iterator itself
                InteropScanBench ib = new InteropScanBench();
                ib.binding = binding;
                ib.valueSize = vs;
                ib.entries = entries;
                vars.put("rocksjava-interop-" + binding, new Variant() {
                    public AutoCloseable open() throws Exception {
                        ib.setup();
                        return ib::tearDown;
                    }

                    public long scan() {
                        return ib.rocksjavaInterop();
                    }
                });
            }
        } else {
            LmdbJavaScanBench b = new LmdbJavaScanBench();
            b.valueSize = vs;
            b.direction = dir;
            b.entries = entries;
            vars.put("lmdbjava", new Variant() {
                public AutoCloseable open() {
                    b.setup(null);
                    return b::tearDown;
                }

                public long scan() {
                    return b.lmdbjava();
                }
            });
        }
        RoundBests rb = new RoundBests();
        long expected = BenchData.dataset(Engine.valueOf(engine), entries, vs).checksum;
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, Variant> v : vars.entrySet()) {
                try (AutoCloseable c = v.getValue().open()) {
                    for (int k = 0; k < 3; k++) {
                        long t = System.nanoTime();
                        long sum = v.getValue().scan();
                        long ns = System.nanoTime() - t;
                        if (!v.getKey().endsWith("-novalue")) {
                            BenchData.check("interleaved " + v.getKey(), sum, expected);
                        }
                        rb.add(v.getKey(), r, ns);
                    }
                }
            }
        }
        Map<String, Long> best = rb.best();
        double floor = best.get("floor") / (double) entries;
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Long> e : best.entrySet()) {
            double ns = e.getValue() / (double) entries;
            lines.add(String.format(Locale.ROOT, "interleaved engine=%s jvm_binding=%s value_size=%d direction=%s variant=%s best_ns_per_entry=%.2f ratio_to_floor=%.3f ratio_err=%.3f round_ratios=%s",
                    engine.toLowerCase(Locale.ROOT), binding, vs, dir, e.getKey(), ns, ns / floor, rb.ratioSpread(e.getKey()),
                    rb.roundRatiosText(e.getKey())));
        }
        lines.forEach(System.out::println);
        System.out.flush();
    }

    /** A copy of the data set, to open read-write; the caller removes it. */
    private static Path readWriteCopy(String engine, int vs, int entries) throws Exception {
        Path src = BenchData.dataset(Engine.valueOf(engine), entries, vs).dir;
        Path dst = Files.createTempDirectory("ferry-bench-rw");
        Process p = new ProcessBuilder("cp", "-a", src + "/.", dst.toString()).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("cp -a " + src + " " + dst + " failed");
        }
        return dst;
    }

    private static ScanVariant ferry(String engine, String binding, int vs, String dir, int entries, String method) {
        ScanBench b = new ScanBench();
        b.engine = engine;
        b.binding = binding;
        b.valueSize = vs;
        b.direction = dir;
        b.entries = entries;
        return new ScanVariant(b, method);
    }

    /** A floor or Ferry scan through a {@link ScanBench}. */
    static final class ScanVariant implements Variant {
        final ScanBench bench;
        private final String method;

        ScanVariant(ScanBench bench, String method) {
            this.bench = bench;
            this.method = method;
        }

        public AutoCloseable open() {
            bench.open(method);
            return bench::tearDown;
        }

        public long scan() {
            return method.equals("floor") ? bench.floor() : bench.ferry();
        }
    }
}
