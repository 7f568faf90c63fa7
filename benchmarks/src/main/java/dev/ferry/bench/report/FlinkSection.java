package dev.ferry.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The report's Flink section, from {@code flink.csv} (the figures {@code dev.ferry.bench.flink.FlinkInterleaved}
 * writes: Flink's built-in RocksDB backend and Ferry's driven directly in one JVM, interleaved, same data) and
 * {@code flink-incremental.csv} (the same with incremental checkpoints: {@code checkpointIncremental},
 * {@code restoreIncremental}) and {@code flink-job.csv} ({@code FlinkJobThroughput}: one keyed job on a MiniCluster
 * per backend): per workload the
 * time on each backend and the built-in backend's time over Ferry's, then issue 45's targets judged on them: map
 * iteration and timers at least 1.3x the built-in backend, point operations at least 0.95x, restore no slower.
 *
 * <p>Thread safety: stateless.
 */
final class FlinkSection {
    /** Map iteration workloads (target: 1.3x). */
    static final Set<String> ITERATION = Set.of("mapIterator", "mapKeys", "mapValues", "mapEntries", "mapEntriesDeleted");
    /** Timer workloads (target: 1.3x). */
    static final Set<String> TIMERS = Set.of("timerRegisterFire", "timerRegisterFireDeleted");
    /** Point operations (target: 0.95x). */
    static final Set<String> POINT = Set.of("valueGet", "valueUpdate", "mapGet", "mapPut", "mapContains");

    private FlinkSection() {
    }

    /** One line of a CSV: backend, workload, best, median, unit, speed-up and its error. */
    record Line(String backend, String workload, double best, double median, String unit, double speedup, double error) {
    }

    /**
     * @param dir a results directory
     * @return the section's Markdown, or "" when the directory has neither file
     * @throws IOException on I/O failure
     */
    static String markdown(Path dir) throws IOException {
        List<Line> lines = new ArrayList<>();
        for (String f : List.of("flink.csv", "flink-incremental.csv", "flink-job.csv")) {
            Path p = dir.resolve(f);
            if (Files.exists(p)) {
                lines.addAll(parse(Files.readAllLines(p)));
            }
        }
        return markdown(lines);
    }

    /**
     * @param csv the lines of a CSV, header first
     * @return its figures
     */
    static List<Line> parse(List<String> csv) {
        List<Line> out = new ArrayList<>();
        for (String l : csv.subList(Math.min(1, csv.size()), csv.size())) {
            String[] f = l.split(",");
            if (f.length == 7) {
                out.add(new Line(f[0], f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3]), f[4], Double.parseDouble(f[5]),
                        Double.parseDouble(f[6])));
            }
        }
        return out;
    }

    /**
     * @param lines the figures
     * @return the section's Markdown, or "" when there are none
     */
    static String markdown(List<Line> lines) {
        if (lines.isEmpty()) {
            return "";
        }
        List<String> ferry = lines.stream().map(Line::backend).filter(b -> !b.equals("rocksdb")).distinct().toList();
        Map<String, Map<String, Line>> byWorkload = new LinkedHashMap<>();
        for (Line l : lines) {
            byWorkload.computeIfAbsent(l.workload(), w -> new LinkedHashMap<>()).put(l.backend(), l);
        }
        StringBuilder sb = new StringBuilder("## Flink keyed state backend\n\n")
                .append("Flink 2.3.0's built-in `EmbeddedRocksDBStateBackend` (`rocksdb`) and Ferry's backend (`ferry-<binding>`), each ")
                .append("driven directly as one task's keyed backend over 128 key groups (as flink-benchmarks does), in one JVM, ")
                .append("interleaved round after round, same data, both on frocksdbjni's engine binary. Times are the best round after ")
                .append("the warm-up: ns per state access (map iterations: per walk of a key's whole map; timers: per timer registered ")
                .append("and fired), checkpoint and restore in ms (default checkpoints: full, both backends' table files; ")
                .append("`...Incremental`: both incremental, table files); `job` is a keyed job on a MiniCluster, in events per ")
                .append("second. \"Speed-up\" is the built-in backend's time over Ferry's (for `job`, Ferry's events/s over the built-in's): ")
                .append("1.30 means Ferry 1.3x as fast; ± is half the range of the per-round ratios.\n\n| workload | unit | rocksdb |");
        for (String b : ferry) {
            sb.append(' ').append(b).append(" | speed-up |");
        }
        sb.append("\n|---|---|---:|");
        for (int i = 0; i < ferry.size(); i++) {
            sb.append("---:|---:|");
        }
        sb.append('\n');
        for (var w : byWorkload.entrySet()) {
            Line base = w.getValue().get("rocksdb");
            sb.append("| ").append(w.getKey()).append(" | ").append(base == null ? "" : base.unit()).append(" | ")
                    .append(base == null ? "" : num(base.best())).append(" |");
            for (String b : ferry) {
                Line l = w.getValue().get(b);
                sb.append(' ').append(l == null ? "" : num(l.best())).append(" | ")
                        .append(l == null ? "" : "**" + pm(l.speedup(), l.error()) + "**").append(" |");
            }
            sb.append('\n');
        }
        sb.append("\n### Flink targets (issue 45)\n\n| target | backend | workload | speed-up | verdict |\n|---|---|---|---:|---|\n");
        for (var w : byWorkload.entrySet()) {
            String workload = w.getKey();
            double limit = ITERATION.contains(workload) || TIMERS.contains(workload) ? 1.3
                    : POINT.contains(workload) ? 0.95 : workload.startsWith("restore") ? 1.0 : Double.NaN;
            if (Double.isNaN(limit)) {
                continue;
            }
            String target = ITERATION.contains(workload) ? "map iteration >= 1.3x" : TIMERS.contains(workload) ? "timers >= 1.3x"
                    : POINT.contains(workload) ? "point operation >= 0.95x" : "restore no slower (>= 1.0x)";
            for (String b : ferry) {
                Line l = w.getValue().get(b);
                if (l != null) {
                    sb.append("| ").append(target).append(" | ").append(b).append(" | ").append(workload).append(" | ")
                            .append(pm(l.speedup(), l.error())).append(" | ").append(Report.verdict(l.speedup(), l.error(), limit, false))
                            .append(" |\n");
                }
            }
        }
        return sb.append('\n').toString();
    }

    private static String num(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String pm(double v, double e) {
        return String.format(Locale.ROOT, "%.2f ± %.2f", v, e);
    }
}
