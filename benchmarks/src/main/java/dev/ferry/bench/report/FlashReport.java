package dev.ferry.bench.report;

import dev.ferry.bench.flash.FlashPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns a {@code ./ferry reproduce flash} results directory into {@code summary.csv},
 * {@code report.md} and PNG charts: a table shaped like the published one (workload, threads,
 * C++, RocksJava, RocksJava best, Ferry-JNI, Ferry-FFM, and each side's difference to C++), the
 * published figures as ratios beside it, latency percentiles, the engine-binary check (every run
 * must have mapped the same file with the same SHA-256, else the report says so at the top), the
 * sizes and why, the flags against the published ones, the machine and every command. With
 * repeats ({@code --repeat N}) each cell shows every tool's median over the repeats with its
 * spread, the differences to C++ come from the medians with the range of the per-repeat
 * differences, and an Order section says whether the rotation was balanced and how much a run's
 * place in the order moved it; {@code cells.csv} holds those per-cell figures.
 *
 * <p>Input: {@code raw/*.jsonl} (the result lines both tools write with {@code --json}, one
 * format), {@code runs.tsv} (commands, exit status, seconds), {@code plan.txt} and
 * {@code machine.txt} when present.
 *
 * <p>Usage: {@code FlashReport <results dir>}. Thread safety: one report per call.
 */
public final class FlashReport {
    private FlashReport() {
    }

    /** The report's columns, in order: C++, then the Java APIs. */
    static final List<String> APIS = List.of(FlashPlan.CPP, "rocksjava", "rocksjava-reuse", "rocksjava-direct", "ferry-jni", "ferry-ffm");

    /** APIs that may fill the "RocksJava best" column. */
    static final List<String> BEST = List.of("rocksjava-reuse", "rocksjava-direct");

    /**
     * One measured result.
     *
     * @param tool "cpp-db_bench" or "java-dbbench"
     * @param api {@link FlashPlan#CPP} or the Java tool's --api
     * @param workload the benchmark
     * @param threads reader (or writer) threads, without readwhilewriting's writer
     * @param opsPerSec ops/sec as the tool printed it
     * @param microsPerOp micros/op as the tool printed it
     * @param p50 median latency, microseconds (NaN without --histogram)
     * @param p99 99th percentile, microseconds
     * @param p999 99.9th percentile, microseconds
     * @param max the slowest operation, microseconds
     * @param operations operations done
     * @param seconds the run's time
     * @param enginePath the engine file the process mapped
     * @param engineSha256 its SHA-256
     * @param raw the raw output's file stem
     */
    public record Result(String tool, String api, String workload, int threads, double opsPerSec, double microsPerOp, double p50,
            double p99, double p999, double max, long operations, double seconds, String enginePath, String engineSha256, String raw) {
        /** @return the 1-based repeat the run belonged to, from its raw stem (1 when the stem does not say) */
        public int repeat() {
            Matcher m = REPEAT.matcher(raw);
            return m.find() ? Integer.parseInt(m.group(1)) : 1;
        }

        /** @return the run's 1-based place among its cell's tools in its repeat, from its raw stem (0 when unknown) */
        public int position() {
            Matcher m = REPEAT.matcher(raw);
            return m.find() ? Integer.parseInt(m.group(2)) : 0;
        }
    }

    private static final Pattern REPEAT = Pattern.compile("-r(\\d+)p(\\d+)$");

    /**
     * The median, smallest and largest of a tool's figures in one cell, over the repeats.
     *
     * @param median the median (the mean of the middle two for an even count)
     * @param min the smallest
     * @param max the largest
     * @param n how many figures
     */
    public record Spread(double median, double min, double max, int n) {
        /** No figures. */
        static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

        /**
         * The spread of some figures.
         *
         * @param xs the figures (NaNs are left out)
         * @return their median, minimum, maximum and count
         */
        public static Spread of(List<Double> xs) {
            double[] v = xs.stream().filter(x -> !Double.isNaN(x)).mapToDouble(Double::doubleValue).sorted().toArray();
            if (v.length == 0) {
                return NONE;
            }
            int h = v.length / 2;
            double median = v.length % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
            return new Spread(median, v[0], v[v.length - 1], v.length);
        }

        /** @return half of max - min relative to the median, percent (NaN without figures) */
        public double halfRangePercent() {
            return n == 0 || median == 0 ? Double.NaN : (max - min) / 2 / Math.abs(median) * 100;
        }
    }

    /** Outcomes of the engine check. */
    public enum Verdict {
        /** every run mapped the same file, with the same SHA-256, on both sides */
        MATCH,
        /** the same SHA-256 everywhere, but the files' paths differ */
        SAME_BYTES_OTHER_PATH,
        /** different SHA-256s, a hash missing, or one side without results */
        MISMATCH
    }

    /**
     * The engine check's outcome.
     *
     * @param verdict the verdict
     * @param detail one line per distinct (side, path, hash), and the reason when it is not a match
     */
    public record EngineCheck(Verdict verdict, List<String> detail) {
    }

    /**
     * Checks that C++ and Java drove the same engine binary.
     *
     * @param results every measured result
     * @return the verdict and what was seen
     */
    public static EngineCheck engineCheck(List<Result> results) {
        Map<String, Set<String>> seen = new LinkedHashMap<>();
        Set<String> hashes = new TreeSet<>();
        Set<String> paths = new TreeSet<>();
        boolean missing = false;
        boolean cpp = false;
        boolean java = false;
        for (Result r : results) {
            boolean isCpp = r.api().equals(FlashPlan.CPP);
            cpp |= isCpp;
            java |= !isCpp;
            String sha = r.engineSha256();
            if (sha == null || sha.isEmpty() || sha.equals("unreadable") || r.enginePath() == null) {
                missing = true;
                sha = String.valueOf(sha);
            }
            hashes.add(sha);
            paths.add(String.valueOf(r.enginePath()));
            seen.computeIfAbsent((isCpp ? "C++ db_bench" : "Java db_bench") + ": " + r.enginePath() + " sha256 " + sha, k -> new TreeSet<>())
                    .add(r.raw()); // one entry per run, repeats included
        }
        List<String> detail = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : seen.entrySet()) {
            detail.add(e.getKey() + " (" + e.getValue().size() + " runs)");
        }
        Verdict v;
        if (missing) {
            v = Verdict.MISMATCH;
            detail.add("a run reported no engine file or hash");
        } else if (!cpp || !java) {
            v = Verdict.MISMATCH;
            detail.add("no " + (cpp ? "Java" : "C++") + " results: nothing to compare");
        } else if (hashes.size() > 1) {
            v = Verdict.MISMATCH;
            detail.add(hashes.size() + " different SHA-256s");
        } else if (paths.size() > 1) {
            v = Verdict.SAME_BYTES_OTHER_PATH;
            detail.add(paths.size() + " different paths with the same SHA-256");
        } else {
            v = Verdict.MATCH;
        }
        return new EngineCheck(v, detail);
    }

    /**
     * Writes the report of a results directory.
     *
     * @param args the results directory
     * @throws IOException on I/O failure
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: FlashReport <results dir>");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        Path dir = Path.of(args[0]);
        List<Result> results = results(dir);
        writeCsv(dir.resolve("summary.csv"), results);
        writeCellsCsv(dir.resolve("cells.csv"), results);
        List<String> charts = charts(dir, results);
        writeMarkdown(dir, results, charts);
        System.out.println("report: " + results.size() + " results -> " + dir.resolve("summary.csv") + ", " + dir.resolve("cells.csv")
                + ", " + dir.resolve("report.md")
                + ", " + charts.size() + " charts");
    }

    /**
     * Reads every measured result of a results directory ({@code raw/*.jsonl}; warm-ups are left out).
     *
     * @param dir the results directory
     * @return the results, in run order
     * @throws IOException on I/O failure
     */
    public static List<Result> results(Path dir) throws IOException {
        List<Result> out = new ArrayList<>();
        Path raw = dir.resolve("raw");
        if (!Files.isDirectory(raw)) {
            return out;
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(raw)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".jsonl"))
                    .sorted(Comparator.comparingLong(FlashReport::runIndex).thenComparing(Path::toString)).toList();
        }
        for (Path f : files) {
            String stem = f.getFileName().toString().replaceFirst("\\.jsonl$", "");
            for (String line : Files.readAllLines(f)) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> j = Report.map(Json.parse(line));
                String bench = String.valueOf(j.get("benchmark"));
                if (!FlashPlan.WORKLOADS.contains(bench) || !"run".equals(j.get("kind"))) {
                    continue;
                }
                int threads = (int) Report.num(j.get("threads"));
                if (bench.equals("readwhilewriting")) {
                    threads--; // both tools count the writer
                }
                String op = bench.equals("fillseq") ? "write" : "read";
                out.add(new Result(String.valueOf(j.get("tool")), String.valueOf(j.get("api")), bench, threads,
                        Report.num(j.get("ops_per_sec")), Report.num(j.get("micros_per_op")), Report.num(j.get("hist_" + op + "_p50")),
                        Report.num(j.get("hist_" + op + "_p99")), Report.num(j.get("hist_" + op + "_p99_9")),
                        Report.num(j.get("hist_" + op + "_max")), (long) Report.num(j.get("operations")), Report.num(j.get("seconds")),
                        j.get("engine_path") == null ? null : String.valueOf(j.get("engine_path")),
                        j.get("engine_sha256") == null ? null : String.valueOf(j.get("engine_sha256")), stem));
            }
        }
        return out;
    }

    /** The run index a raw file's name starts with (stems sort by it: there may be more than 99 runs). */
    static long runIndex(Path p) {
        String n = p.getFileName().toString();
        int i = 0;
        while (i < n.length() && Character.isDigit(n.charAt(i))) {
            i++;
        }
        return i == 0 ? Long.MAX_VALUE : Long.parseLong(n.substring(0, i));
    }

    static void writeCsv(Path p, List<Result> rs) throws IOException {
        StringBuilder b = new StringBuilder("tool,api,workload,threads,ops_per_sec,micros_per_op,p50_us,p99_us,p99_9_us,max_us,"
                + "operations,seconds,engine_path,engine_sha256,raw,repeat,position\n");
        for (Result r : rs) {
            b.append(r.tool()).append(',').append(r.api()).append(',').append(r.workload()).append(',').append(r.threads()).append(',')
                    .append(Report.f(r.opsPerSec(), 0)).append(',').append(Report.f(r.microsPerOp(), 3)).append(',')
                    .append(Report.f(r.p50(), 2)).append(',').append(Report.f(r.p99(), 2)).append(',').append(Report.f(r.p999(), 2))
                    .append(',').append(Report.f(r.max(), 0)).append(',').append(r.operations()).append(',')
                    .append(Report.f(r.seconds(), 3)).append(',').append(r.enginePath() == null ? "" : r.enginePath()).append(',')
                    .append(r.engineSha256() == null ? "" : r.engineSha256()).append(',').append("raw/").append(r.raw()).append(".txt,")
                    .append(r.repeat()).append(',').append(r.position()).append('\n');
        }
        Files.writeString(p, b.toString(), StandardCharsets.UTF_8);
    }

    /** Every result of an API for a workload and thread count (one per repeat), in run order. */
    static List<Result> find(List<Result> rs, String api, String workload, int threads) {
        return rs.stream().filter(r -> r.api().equals(api) && r.workload().equals(workload) && r.threads() == threads).toList();
    }

    /** The spread of one figure of an API's results in a cell ({@link Spread#NONE} when it has none). */
    static Spread spread(List<Result> rs, String api, String workload, int threads, ToDoubleFunction<Result> figure) {
        return Spread.of(find(rs, api, workload, threads).stream().map(figure::applyAsDouble).toList());
    }

    /** The spread of an API's throughput in a cell. */
    static Spread ops(List<Result> rs, String api, String workload, int threads) {
        return spread(rs, api, workload, threads, Result::opsPerSec);
    }

    /**
     * An API's difference to C++ in a cell, percent: from the medians, with the smallest and largest
     * of the per-repeat differences (each run against C++'s run of the same repeat).
     *
     * @param rs the results
     * @param api the API
     * @param workload the workload
     * @param threads the thread count
     * @return median is the difference of the medians; min, max and n are over the repeats both have (NONE without C++)
     */
    static Spread vsCpp(List<Result> rs, String api, String workload, int threads) {
        Spread a = ops(rs, api, workload, threads);
        Spread c = ops(rs, FlashPlan.CPP, workload, threads);
        if (a.n() == 0 || c.n() == 0 || c.median() <= 0) {
            return Spread.NONE;
        }
        List<Double> paired = new ArrayList<>();
        for (Result x : find(rs, api, workload, threads)) {
            for (Result y : find(rs, FlashPlan.CPP, workload, threads)) {
                if (y.repeat() == x.repeat() && y.opsPerSec() > 0) {
                    paired.add((x.opsPerSec() / y.opsPerSec() - 1) * 100);
                }
            }
        }
        Spread p = Spread.of(paired);
        return new Spread((a.median() / c.median() - 1) * 100, p.min(), p.max(), p.n());
    }

    /** The "best RocksJava" API with the highest median in a cell, or null. */
    static String best(List<Result> rs, String workload, int threads) {
        String b = null;
        double bo = Double.NEGATIVE_INFINITY;
        for (String api : BEST) {
            Spread s = ops(rs, api, workload, threads);
            if (s.n() > 0 && s.median() > bo) {
                b = api;
                bo = s.median();
            }
        }
        return b;
    }

    /** The most runs any cell of any API has. */
    static int repeats(List<Result> rs) {
        Map<String, Integer> n = new LinkedHashMap<>();
        rs.forEach(r -> n.merge(r.api() + " " + r.workload() + " " + r.threads(), 1, Integer::sum));
        return n.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    static String label(String api) {
        return switch (api) {
            case FlashPlan.CPP -> "C++";
            case "rocksjava" -> "RocksJava";
            case "rocksjava-reuse" -> "RocksJava reuse";
            case "rocksjava-direct" -> "RocksJava direct";
            case "ferry-jni" -> "Ferry-JNI";
            case "ferry-ffm" -> "Ferry-FFM";
            default -> api;
        };
    }

    /** "-10.8%" style: x relative to base, minus one. */
    static String diff(double x, double base) {
        if (Double.isNaN(x) || Double.isNaN(base) || base <= 0) {
            return "";
        }
        double d = (x / base - 1) * 100;
        return String.format(Locale.ROOT, "%+.1f%%", d);
    }

    /** A throughput cell: the median, and with more than one run "±" half the range relative to the median. */
    static String ops(Spread s) {
        if (s.n() == 0) {
            return "";
        }
        String m = String.format(Locale.ROOT, "%,.0f", s.median());
        return s.n() == 1 ? m : m + String.format(Locale.ROOT, " ±%.1f%%", s.halfRangePercent());
    }

    /** A difference cell: "+2.8%" from the medians, and with more than one paired run the per-repeat range "(-1.0..+6.0)". */
    static String diff(Spread d) {
        if (d.n() == 0) {
            return "";
        }
        String m = String.format(Locale.ROOT, "%+.1f%%", d.median());
        return d.n() == 1 ? m : m + String.format(Locale.ROOT, " (%+.1f..%+.1f)", d.min(), d.max());
    }

    /** The (workload, threads) cells present, in the published order. */
    static List<Object[]> cells(List<Result> rs) {
        List<Object[]> out = new ArrayList<>();
        for (String w : FlashPlan.WORKLOADS) {
            Set<Integer> ts = new TreeSet<>();
            rs.stream().filter(r -> r.workload().equals(w)).forEach(r -> ts.add(r.threads()));
            for (int t : ts) {
                out.add(new Object[] {w, t});
            }
        }
        return out;
    }

    /**
     * The results table, shaped like the published one: per tool the median over the repeats (with
     * "±" half the range when there are several), differences to C++ from the medians (with the
     * range of the per-repeat differences).
     *
     * @param rs the results
     * @return Markdown
     */
    static String table(List<Result> rs) {
        StringBuilder b = new StringBuilder("| workload | threads | C++ | RocksJava | RocksJava best | Ferry-JNI | Ferry-FFM | Ferry vs C++ | RocksJava vs C++ |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---|---|\n");
        for (Object[] c : cells(rs)) {
            String w = (String) c[0];
            int t = (Integer) c[1];
            boolean cpp = ops(rs, FlashPlan.CPP, w, t).n() > 0;
            Spread rj = ops(rs, "rocksjava", w, t);
            String best = best(rs, w, t);
            Spread jni = ops(rs, "ferry-jni", w, t);
            Spread ffm = ops(rs, "ferry-ffm", w, t);
            String bestCell = best == null ? (w.equals("fillseq") && rj.n() > 0 ? "(same put)" : "")
                    : ops(ops(rs, best, w, t)) + " (" + best.substring("rocksjava-".length()) + ")";
            List<String> ferry = new ArrayList<>();
            if (jni.n() > 0) {
                ferry.add("JNI " + diff(vsCpp(rs, "ferry-jni", w, t)));
            }
            if (ffm.n() > 0) {
                ferry.add("FFM " + diff(vsCpp(rs, "ferry-ffm", w, t)));
            }
            String rjDiff = rj.n() == 0 ? "" : diff(vsCpp(rs, "rocksjava", w, t));
            if (best != null) {
                rjDiff += " (best " + diff(vsCpp(rs, best, w, t)) + ")";
            }
            b.append("| ").append(w).append(" | ").append(t).append(" | ").append(ops(ops(rs, FlashPlan.CPP, w, t))).append(" | ")
                    .append(ops(rj)).append(" | ").append(bestCell).append(" | ").append(ops(jni)).append(" | ").append(ops(ffm))
                    .append(" | ").append(cpp ? String.join(", ", ferry) : "").append(" | ").append(cpp ? rjDiff.strip() : "").append(" |\n");
        }
        return b.toString();
    }

    /**
     * The published table beside this run's differences at the published thread count (from the medians).
     *
     * @param rs the results
     * @return Markdown
     */
    static String publishedTable(List<Result> rs) {
        StringBuilder b = new StringBuilder("| published workload | RocksJava | C++ | RocksJava vs C++ (published) | here: threads | "
                + "RocksJava vs C++ | RocksJava best vs C++ | Ferry-JNI vs C++ | Ferry-FFM vs C++ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (FlashPlan.Published p : FlashPlan.PUBLISHED) {
            int t = p.workload().equals("fillseq") ? 1 : FlashPlan.PUBLISHED_READERS;
            String best = best(rs, p.workload(), t);
            b.append("| ").append(p.workload()).append(" (").append(p.label()).append(") | ").append(Report.f(p.rocksJava() / 1e3, 0))
                    .append("K | ").append(Report.f(p.cpp() / 1e3, 0)).append("K | ").append(diff(p.rocksJava(), p.cpp())).append(" | ")
                    .append(t).append(" | ").append(diff(vsCpp(rs, "rocksjava", p.workload(), t))).append(" | ")
                    .append(best == null ? "" : diff(vsCpp(rs, best, p.workload(), t))).append(" | ")
                    .append(diff(vsCpp(rs, "ferry-jni", p.workload(), t))).append(" | ")
                    .append(diff(vsCpp(rs, "ferry-ffm", p.workload(), t))).append(" |\n");
        }
        return b.toString();
    }

    /** Latency percentiles per cell and API; with repeats, each the median over the repeats. */
    static String latencyTable(List<Result> rs) {
        if (rs.stream().allMatch(r -> Double.isNaN(r.p50()))) {
            return "";
        }
        StringBuilder b = new StringBuilder("| workload | threads | api | p50 us | p99 us | p99.9 us | max us | micros/op |\n"
                + "|---|---:|---|---:|---:|---:|---:|---:|\n");
        for (Object[] c : cells(rs)) {
            String w = (String) c[0];
            int t = (Integer) c[1];
            for (String api : APIS) {
                if (find(rs, api, w, t).isEmpty()) {
                    continue;
                }
                b.append("| ").append(w).append(" | ").append(t).append(" | ").append(label(api)).append(" | ")
                        .append(Report.f(spread(rs, api, w, t, Result::p50).median(), 2)).append(" | ")
                        .append(Report.f(spread(rs, api, w, t, Result::p99).median(), 1)).append(" | ")
                        .append(Report.f(spread(rs, api, w, t, Result::p999).median(), 1)).append(" | ")
                        .append(Report.f(spread(rs, api, w, t, Result::max).median(), 0)).append(" | ")
                        .append(Report.f(spread(rs, api, w, t, Result::microsPerOp).median(), 2)).append(" |\n");
            }
        }
        return b.toString();
    }

    /**
     * Whether every cell's tools ran in every place equally often, and how far a run's place moved
     * it: per place, the runs there against their own tool's median in the same cell.
     *
     * @param rs the results
     * @return Markdown (empty with one run per cell)
     */
    static String orderSection(List<Result> rs) {
        if (repeats(rs) < 2) {
            return "";
        }
        StringBuilder b = new StringBuilder("## Order\n\n");
        List<String> unbalanced = new ArrayList<>();
        Map<Integer, List<Double>> byPlace = new java.util.TreeMap<>();
        for (Object[] c : cells(rs)) {
            String w = (String) c[0];
            int t = (Integer) c[1];
            List<String> apis = APIS.stream().filter(a -> !find(rs, a, w, t).isEmpty()).toList();
            if (!balanced(rs, w, t, apis)) {
                unbalanced.add(w + " t" + t);
            }
            for (String a : apis) {
                double med = ops(rs, a, w, t).median();
                for (Result r : find(rs, a, w, t)) {
                    if (r.position() > 0 && med > 0) {
                        byPlace.computeIfAbsent(r.position(), k -> new ArrayList<>()).add((r.opsPerSec() / med - 1) * 100);
                    }
                }
            }
        }
        b.append("Each repeat runs every tool once per cell; repeat r (from 0) starts at the cell's tool r mod T (C++ first in "
                + "repeat 0, then the Java APIs in the order given), so over T repeats each tool runs in each place once. ");
        if (unbalanced.isEmpty()) {
            b.append("**Balanced**: in every cell each tool ran in each place equally often.\n\n");
        } else {
            b.append("**Not balanced** (the repeats are not a multiple of the cell's tools, or runs are missing) in: ")
                    .append(String.join(", ", unbalanced)).append(". There, order still weighs on the medians.\n\n");
        }
        b.append("How much a run's place moved it: each run against its own tool's median in its cell, percent (fillseq's places "
                + "count its tools, the readers' theirs).\n\n| place | runs | median | min | max |\n|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<Integer, List<Double>> e : byPlace.entrySet()) {
            Spread s = Spread.of(e.getValue());
            b.append("| ").append(e.getKey()).append(" | ").append(s.n()).append(" | ")
                    .append(String.format(Locale.ROOT, "%+.1f%% | %+.1f%% | %+.1f%%", s.median(), s.min(), s.max())).append(" |\n");
        }
        return b.append('\n').toString();
    }

    /** Whether in a cell each of its tools ran in each place 1..T equally often (and every place is known). */
    static boolean balanced(List<Result> rs, String workload, int threads, List<String> apis) {
        int t = apis.size();
        Integer per = null;
        for (String a : apis) {
            int[] count = new int[t + 1];
            for (Result r : find(rs, a, workload, threads)) {
                if (r.position() < 1 || r.position() > t) {
                    return false;
                }
                count[r.position()]++;
            }
            for (int p = 1; p <= t; p++) {
                if (per == null) {
                    per = count[p];
                }
                if (count[p] != per || count[p] == 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Per cell and API: runs, median, min and max ops/s, half range, and the difference to C++ (see {@link #vsCpp}). */
    static void writeCellsCsv(Path p, List<Result> rs) throws IOException {
        StringBuilder b = new StringBuilder("workload,threads,api,runs,median_ops_per_sec,min_ops_per_sec,max_ops_per_sec,"
                + "half_range_pct,vs_cpp_pct,vs_cpp_min_pct,vs_cpp_max_pct\n");
        for (Object[] c : cells(rs)) {
            String w = (String) c[0];
            int t = (Integer) c[1];
            for (String api : APIS) {
                Spread s = ops(rs, api, w, t);
                if (s.n() == 0) {
                    continue;
                }
                Spread d = api.equals(FlashPlan.CPP) ? Spread.NONE : vsCpp(rs, api, w, t);
                b.append(w).append(',').append(t).append(',').append(api).append(',').append(s.n()).append(',')
                        .append(Report.f(s.median(), 0)).append(',').append(Report.f(s.min(), 0)).append(',').append(Report.f(s.max(), 0))
                        .append(',').append(Report.f(s.halfRangePercent(), 2)).append(',')
                        .append(d.n() == 0 ? "" : Report.f(d.median(), 2)).append(',').append(d.n() == 0 ? "" : Report.f(d.min(), 2))
                        .append(',').append(d.n() == 0 ? "" : Report.f(d.max(), 2)).append('\n');
            }
        }
        Files.writeString(p, b.toString(), StandardCharsets.UTF_8);
    }

    static List<String> charts(Path dir, List<Result> rs) {
        List<String> out = new ArrayList<>();
        for (String w : FlashPlan.WORKLOADS) {
            List<Result> wr = rs.stream().filter(r -> r.workload().equals(w)).toList();
            if (wr.isEmpty()) {
                continue;
            }
            List<Integer> ts = new ArrayList<>(new TreeSet<>(wr.stream().map(Result::threads).toList()));
            List<String> apis = APIS.stream().filter(a -> wr.stream().anyMatch(r -> r.api().equals(a))).toList();
            List<String> xs = ts.stream().map(t -> t + (t == 1 ? " thread" : " threads")).toList();
            Map<String, List<Double>> thr = new LinkedHashMap<>();
            Map<String, List<Double>> halfRanges = new LinkedHashMap<>();
            boolean repeated = false;
            for (String a : apis) {
                List<Spread> ss = ts.stream().map(t -> ops(wr, a, w, t)).toList();
                thr.put(label(a), ss.stream().map(Spread::median).toList());
                halfRanges.put(label(a), ss.stream().map(s -> s.n() > 1 ? (s.max() - s.min()) / 2 : Double.NaN).toList());
                repeated |= ss.stream().anyMatch(s -> s.n() > 1);
            }
            String name = "chart-flash-" + w + "-throughput.png";
            String failed = BarChart.save(dir.resolve(name), w + ": throughput per thread count (ops/s, higher is better)", "threads",
                    repeated ? "ops/s (median of the repeats, error bar: half their range)" : "ops/s", xs, thr, halfRanges);
            if (failed == null) {
                out.add(name);
            } else {
                System.err.println("report: chart " + name + ": " + failed);
            }
            if (wr.stream().allMatch(r -> Double.isNaN(r.p50()))) {
                continue;
            }
            List<String> lx = new ArrayList<>();
            for (int t : ts) {
                for (String q : List.of("p50", "p99", "p99.9")) {
                    lx.add(t + "t " + q);
                }
            }
            Map<String, List<Double>> lat = new LinkedHashMap<>();
            for (String a : apis) {
                List<Double> ys = new ArrayList<>();
                for (int t : ts) {
                    ys.add(spread(wr, a, w, t, Result::p50).median());
                    ys.add(spread(wr, a, w, t, Result::p99).median());
                    ys.add(spread(wr, a, w, t, Result::p999).median());
                }
                lat.put(label(a), ys);
            }
            name = "chart-flash-" + w + "-latency.png";
            failed = BarChart.save(dir.resolve(name), w + ": latency percentiles per thread count (microseconds, lower is better)",
                    "threads and percentile", "microseconds", lx, lat);
            if (failed == null) {
                out.add(name);
            } else {
                System.err.println("report: chart " + name + ": " + failed);
            }
        }
        return out;
    }

    /** Reads "key: value" lines. */
    static Map<String, String> keyValues(Path p) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (Files.exists(p)) {
            for (String l : Files.readAllLines(p)) {
                int c = l.indexOf(": ");
                if (c > 0) {
                    m.put(l.substring(0, c), l.substring(c + 2));
                }
            }
        }
        return m;
    }

    static void writeMarkdown(Path dir, List<Result> rs, List<String> charts) throws IOException {
        Map<String, String> plan = keyValues(dir.resolve("plan.txt"));
        StringBuilder b = new StringBuilder("# Reproduction: RocksJava Performance on Flash Storage\n\n");
        boolean quick = "quick".equals(plan.get("mode"));
        int n = repeats(rs);
        if (quick) {
            b.append("**SMOKE RUN (`--quick`): small data, short runs, ").append(n > 1 ? n + " runs" : "one run")
                    .append(" per cell on a shared machine. It checks that the reproduction works; its numbers are not a claim. "
                    + "`./ferry reproduce flash --full` measures.**\n\n");
        }
        b.append("Published: ").append(FlashPlan.SOURCE).append(" (RocksDB wiki, May 2014; 1B keys, 16 B keys, 800 B values, "
                + "40-core Xeon, flash). Here: the same four workloads with the published db_bench flags (see Flags), on C++ "
                + "db_bench 11.8.1 and the Java db_bench (`./ferry dbbench`) through RocksJava, Ferry-JNI and Ferry-FFM, all "
                + "over the same engine binary.\n\n");
        EngineCheck ec = engineCheck(rs);
        b.append("## Engine binary\n\n");
        switch (ec.verdict()) {
            case MATCH -> b.append("**MATCH**: every run, C++ and Java, mapped the same engine file with the same SHA-256 "
                    + "(read from each process's `/proc/<pid>/maps` while it ran):\n\n");
            case SAME_BYTES_OTHER_PATH -> b.append("**WARNING: THE ENGINE FILES' PATHS DIFFER.** The SHA-256 is the same everywhere "
                    + "(the same bytes, different copies):\n\n");
            default -> b.append("# WARNING: ENGINE MISMATCH\n\n**C++ and Java did not provably drive the same engine binary; the "
                    + "comparison below is not like for like.**\n\n");
        }
        for (String d : ec.detail()) {
            b.append("- ").append(d).append('\n');
        }
        b.append('\n');
        b.append("## Results (operations per second; higher is better)\n\n");
        b.append(table(rs)).append('\n');
        if (n > 1) {
            b.append(n).append(" runs per cell (`--repeat ").append(n).append("`), every tool once per repeat, the tools' order "
                    + "rotated between repeats (see Order). Each figure is the tool's median over its runs, \"±\" half the range "
                    + "(max - min) relative to that median; a difference to C++ is the medians' difference, and in brackets the "
                    + "smallest and largest difference of a repeat's run to C++'s run of the same repeat. fillseq creates the "
                    + "database it writes, so every repeat fills a fresh one for each tool (the first C++ fill writes the database "
                    + "the readers share); the readers of every repeat read that one shared database. ");
        } else {
            b.append("One run per cell, the tools in a fixed order (C++ first, then the Java APIs as listed in Commands): the "
                    + "order is not rotated, so a difference between tools is confounded with their place in the order "
                    + "(`--repeat N` runs each cell N times in rotated orders). ");
        }
        b.append("fillseq: each tool writes its own database (1 writer). The readers read the database C++ "
                + "db_bench's fillseq wrote (compacted to rest first); readwhilewriting runs on a fresh copy of it each time, with "
                + "1 writer at 10,000 puts/s beside the readers (its writes are not counted, as published). \"RocksJava\" is the "
                + "loop RocksJava's users write (`isValid()/key()/value()/next()`, two new arrays per entry; `get(byte[])`); "
                + "\"RocksJava best\" the fastest RocksJava loop measured (reuse: `key(byte[])/value(byte[])` into reused arrays, "
                + "`get` into a reused array; direct: direct ByteBuffers); fillseq has one RocksJava write path (`put(byte[])`). "
                + "Differences are relative to C++ in the same row.\n\n");
        b.append("### The published figures, for reference\n\n");
        b.append("Machines differ (40 cores and flash in 2014, this machine below), so compare the ratios, not the figures.\n\n");
        b.append(publishedTable(rs)).append('\n');
        b.append(orderSection(rs));
        String lat = latencyTable(rs);
        if (!lat.isEmpty()) {
            b.append("## Latency (`--histogram`, microseconds per operation").append(n > 1 ? "; each the median over the repeats" : "")
                    .append(")\n\n").append(lat).append('\n');
        }
        if (!charts.isEmpty()) {
            b.append("## Charts\n\n");
            for (String c : charts) {
                b.append("![").append(c).append("](").append(c).append(")\n\n");
            }
        }
        b.append("## Sizes\n\n");
        if (plan.containsKey("why")) {
            b.append(plan.get("why")).append(".\n\n");
        }
        for (String k : List.of("mode", "num", "duration", "seq_reads_total", "workloads", "reader_threads", "cores", "fill_apis",
                "reader_apis", "repeats", "data_dir", "data_fs", "free_bytes", "started", "finished", "wall_seconds", "failed_runs")) {
            if (plan.containsKey(k)) {
                b.append("- ").append(k).append(": ").append(plan.get(k)).append('\n');
            }
        }
        b.append('\n');
        b.append(flagsSection(plan));
        Path machine = dir.resolve("machine.txt");
        if (Files.exists(machine)) {
            b.append("## Machine\n\n```\n").append(Files.readString(machine).strip()).append("\n```\n\n");
        }
        Path tsv = dir.resolve("runs.tsv");
        if (Files.exists(tsv)) {
            b.append("## Commands (in run order; raw output of each in `raw/<stem>.txt`, result lines in `raw/<stem>.jsonl`)\n\n");
            b.append("C++ runs go through `dev.ferry.bench.dbbench.CppDbBench` (= `./ferry dbbench-cpp`), Java runs are "
                    + "`dev.ferry.bench.dbbench.DbBench` (= `./ferry dbbench`) with `-Djava.library.path` set to C++ db_bench's "
                    + "directory, so that RocksJava (and Ferry, which attaches to it) loads the very file C++ db_bench runs.\n\n");
            List<String> failed = new ArrayList<>();
            b.append("```\n");
            List<String> lines = Files.readAllLines(tsv);
            List<String> head = lines.isEmpty() ? List.of() : List.of(lines.get(0).split("\t"));
            int cols = head.size();
            int kind = head.indexOf("kind");
            int exit = head.indexOf("exit");
            int secs = head.indexOf("seconds");
            int stem = head.indexOf("stem");
            int command = head.indexOf("command");
            for (String l : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = l.split("\t", cols);
                if (f.length < cols || Math.min(Math.min(kind, exit), Math.min(Math.min(secs, stem), command)) < 0) {
                    continue;
                }
                b.append("# ").append(f[stem]).append(" (").append(f[kind].toLowerCase(Locale.ROOT)).append(", exit ").append(f[exit])
                        .append(", ").append(f[secs]).append(" s)\n").append(f[command]).append("\n");
                if (!f[exit].equals("0")) {
                    failed.add(f[stem] + " exited with " + f[exit]);
                }
            }
            b.append("```\n\n");
            if (!failed.isEmpty()) {
                b.append("## Failed runs\n\n");
                failed.forEach(x -> b.append("- ").append(x).append(" (see raw/").append(x.split(" ")[0]).append(".txt)\n"));
                b.append('\n');
            }
        }
        Files.writeString(dir.resolve("report.md"), b.toString(), StandardCharsets.UTF_8);
    }

    /** The published command per workload, what was passed, and each deviation with its reason. */
    static String flagsSection(Map<String, String> plan) {
        StringBuilder b = new StringBuilder("## Flags\n\n");
        long num = plan.containsKey("num") ? Long.parseLong(plan.get("num")) : 1_000_000;
        int dur = plan.containsKey("duration") ? Integer.parseInt(plan.get("duration")) : 60;
        long seq = plan.containsKey("seq_reads_total") ? Long.parseLong(plan.get("seq_reads_total")) : num;
        boolean warm = Boolean.parseBoolean(plan.getOrDefault("seq_warmup", "false"));
        FlashPlan.Sizes s = new FlashPlan.Sizes(num, dur, seq, warm, "");
        Path db = Path.of(plan.getOrDefault("data_dir", "DATA"));
        b.append("Every tool gets the same flags for a run. Published C++ command (flags as on the page) and what this run "
                + "passed (readers shown at 32 threads; `--db` under the data directory):\n\n");
        for (String w : FlashPlan.WORKLOADS) {
            List<FlashPlan.Deviation> dev = new ArrayList<>();
            List<String> passed = FlashPlan.flags(w, w.equals("fillseq") ? 1 : FlashPlan.PUBLISHED_READERS, s,
                    db.resolve(w.equals("fillseq") ? "shared" : w.equals("readwhilewriting") ? "rww" : "shared"), dev);
            b.append("### ").append(w).append("\n\npublished: `db_bench ").append(FlashPlan.PUBLISHED_CPP.get(w)).append("`\n\npassed: `")
                    .append(String.join(" ", passed)).append("`\n\n| published | passed | why |\n|---|---|---|\n");
            Set<String> seen = new LinkedHashSet<>();
            for (FlashPlan.Deviation d : dev) {
                if (seen.add(d.flag())) {
                    b.append("| ").append(d.flag()).append(" | ").append(d.passed().isEmpty() ? "(left out)" : "`" + d.passed() + "`")
                            .append(" | ").append(d.why()).append(" |\n");
                }
            }
            b.append('\n');
        }
        return b.toString();
    }
}
