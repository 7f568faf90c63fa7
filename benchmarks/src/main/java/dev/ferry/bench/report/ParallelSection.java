package dev.ferry.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report's parallel-scan section, from {@code parallel.txt} (the lines {@code InterleavedParallel}
 * prints, one JVM per engine and binding): per JVM the one-thread C floor, the t-thread C floor over
 * the same sub-ranges, {@code Store.scan} and {@code Store.parallelScan} on t threads, and issue 35's
 * targets judged on them: t threads at least 1.8x the one-thread floor's rate, at most 1.05x the
 * t-thread floor's time, and sub-ranges within 20% of their mean entry count.
 *
 * <p>Thread safety: stateless.
 */
final class ParallelSection {
    private ParallelSection() {
    }

    /** One JVM's figures: variant to its line's fields, and the split line's fields. */
    record Jvm(String engine, String binding, Map<String, Map<String, String>> variants, Map<String, String> split) {
    }

    /**
     * @param dir a results directory
     * @return the section's Markdown, or "" when the directory has no {@code parallel.txt}
     * @throws IOException on I/O failure
     */
    static String markdown(Path dir) throws IOException {
        Path p = dir.resolve("parallel.txt");
        return Files.exists(p) ? markdown(Files.readAllLines(p)) : "";
    }

    /**
     * @param lines the lines of {@code parallel.txt}
     * @return the section's Markdown, or "" when no line has a variant
     */
    static String markdown(List<String> lines) {
        List<Jvm> jvms = parse(lines);
        if (jvms.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("## Parallel scans, interleaved\n\n")
                .append("`Store.parallelScan` on t threads (its `Store.split` included) against the C floor on t threads over the very "
                        + "sub-ranges the split gave (`floor_scan_splits`), interleaved in one JVM per engine and binding "
                        + "(`InterleavedParallel`, docs/benchmarks.md \"Parallel scans\"): best pass in ns per entry; the speed-up is "
                        + "over the one-thread floor. ± is half the range of the per-round ratios (to the t-thread floor; for the "
                        + "speed-up, of the per-round speed-ups), without the first round. On a shared 2-core machine the t-thread floor itself rarely reaches 2x: read the ratio to it.\n\n")
                .append("| engine | binding | threads | floor | floor-t (speed-up) | ferry-1t | ferry-t (speed-up) | ferry-t / floor-t |"
                        + " splits: min, max / mean |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n");
        StringBuilder targets = new StringBuilder();
        for (Jvm j : jvms) {
            Map<String, String> floor = j.variants.get("floor");
            String t = threads(j);
            Map<String, String> floorT = j.variants.get("floor-" + t + "t");
            Map<String, String> ferry1 = j.variants.get("ferry-1t");
            Map<String, String> ferryT = j.variants.get("ferry-" + t + "t");
            if (floor == null || floorT == null || ferryT == null) {
                continue;
            }
            double ratio = Report.num(ferryT.get("ratio_to_floor_" + t + "t"));
            double err = spread(ratios(ferryT), ratios(floorT));
            double speedup = Report.num(ferryT.get("speedup_vs_floor"));
            // each round's speed-up is the inverse of its ratio to the one-thread floor
            List<Double> perRound = ratios(ferryT);
            double speedupErr = spread(java.util.Collections.nCopies(perRound.size(), 1.0), perRound);
            String split = j.split.isEmpty() ? "" : Report.f(Report.num(j.split.get("min_to_mean")), 3) + ", "
                    + Report.f(Report.num(j.split.get("max_to_mean")), 3) + " (" + j.split.get("splits") + ")";
            sb.append("| ").append(j.engine).append(" | ").append(j.binding).append(" | ").append(t).append(" | ")
                    .append(ns(floor)).append(" | ").append(ns(floorT)).append(" (").append(Report.f(Report.num(floorT.get("speedup_vs_floor")), 2))
                    .append("x) | ").append(ferry1 == null ? "" : ns(ferry1)).append(" | ").append(ns(ferryT)).append(" (")
                    .append(Report.f(speedup, 2)).append("x) | ").append(Report.f(ratio, 3))
                    .append(Double.isNaN(err) ? "" : " ± " + Report.f(err, 3)).append(" | ").append(split).append(" |\n");
            String what = j.engine + " " + j.binding + ", " + t + " threads";
            targets.append("| ").append(what).append(": parallel scan <= 1.05x the ").append(t).append("-thread floor | ")
                    .append(Report.f(ratio, 3)).append(Double.isNaN(err) ? "" : " ± " + Report.f(err, 3)).append("x | ")
                    .append(Report.verdict(ratio, err, 1.05, true)).append(" |\n");
            targets.append("| ").append(what).append(": parallel scan >= 1.8x the one-thread floor's rate | ")
                    .append(Report.f(speedup, 2)).append(Double.isNaN(speedupErr) ? "" : " ± " + Report.f(speedupErr, 2)).append("x | ")
                    .append(Report.verdict(speedup, speedupErr, 1.8, false)).append(" |\n");
            if (!j.split.isEmpty()) {
                double worst = Math.max(1 - Report.num(j.split.get("min_to_mean")), Report.num(j.split.get("max_to_mean")) - 1);
                targets.append("| ").append(j.engine).append(" ").append(j.binding).append(": sub-ranges within 20% of their mean entry count | ")
                        .append(Report.f(100 * worst, 2)).append("% | ").append(worst <= 0.20 ? "MET" : "MISSED").append(" (exact counts) |\n");
            }
        }
        if (!targets.isEmpty()) {
            sb.append("\n| target (issue 35) | measured | verdict |\n|---|---|---|\n").append(targets);
        }
        return sb.append('\n').toString();
    }

    private static String threads(Jvm j) {
        for (Map<String, String> v : j.variants.values()) {
            if (v.containsKey("threads")) {
                return v.get("threads");
            }
        }
        return "2";
    }

    private static String ns(Map<String, String> v) {
        double ns = Report.num(v.get("best_ns_per_entry"));
        return Report.f(ns, ns < 100 ? 1 : 0);
    }

    private static List<Double> ratios(Map<String, String> v) {
        List<Double> out = new ArrayList<>();
        String text = v.getOrDefault("round_ratios", "");
        for (String s : text.split(",")) {
            if (!s.isBlank()) {
                out.add(Double.parseDouble(s));
            }
        }
        return out;
    }

    /**
     * Half the range of the per-round quotients {@code a[r] / b[r]} (both ratios to the same round's
     * one-thread floor, so the quotient is the round's ratio of a to b), without the first round when
     * there are three or more.
     *
     * @param a one variant's per-round ratios
     * @param b another's
     * @return the half range, or NaN when fewer than two rounds are left
     */
    static double spread(List<Double> a, List<Double> b) {
        int n = Math.min(a.size(), b.size());
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        int used = 0;
        for (int r = n >= 3 ? 1 : 0; r < n; r++) {
            double q = a.get(r) / b.get(r);
            min = Math.min(min, q);
            max = Math.max(max, q);
            used++;
        }
        return used < 2 ? Double.NaN : (max - min) / 2;
    }

    /**
     * @param lines lines of {@code parallel.txt}
     * @return one entry per engine and binding, in file order
     */
    static List<Jvm> parse(List<String> lines) {
        Map<String, Jvm> out = new LinkedHashMap<>();
        for (String line : lines) {
            if (!line.startsWith("parallel engine=")) {
                continue;
            }
            Map<String, String> kv = new LinkedHashMap<>();
            for (String tok : line.substring("parallel ".length()).split(" ")) {
                int eq = tok.indexOf('=');
                if (eq > 0) {
                    kv.put(tok.substring(0, eq), tok.substring(eq + 1));
                }
            }
            Jvm j = out.computeIfAbsent(kv.get("engine") + "|" + kv.get("jvm_binding"),
                    k -> new Jvm(kv.get("engine"), kv.get("jvm_binding"), new LinkedHashMap<>(), new LinkedHashMap<>()));
            if (kv.containsKey("variant")) {
                j.variants.put(kv.get("variant"), kv);
            } else if (kv.containsKey("split_n")) {
                j.split.putAll(kv);
            }
        }
        out.values().removeIf(j -> j.variants.isEmpty());
        return new ArrayList<>(out.values());
    }
}
