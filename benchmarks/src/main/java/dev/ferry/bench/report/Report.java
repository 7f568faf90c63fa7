package dev.ferry.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Turns a results directory into {@code summary.csv}, {@code report.md} and PNG charts.
 *
 * <p>Input: {@code jmh-result.json} (or every {@code jmh-*.json}) written by JMH with
 * {@code -rf json}, plus {@code floor.txt} and {@code machine.txt} when present. Naming
 * convention read here (see benchmarks/README.md): the class is the workload family
 * ({@code ScanBench}, {@code GetBench}, {@code PutBench}, {@code BatchBench}, {@code CallBench};
 * peers prefix it with {@code RocksJava} or {@code LmdbJava}, which fixes the engine), the method
 * is the variant ({@code ferry}, {@code ferryScan}, {@code floor}, {@code rocksjavaBytes}, ...).
 * Scan scores are per whole scan and are divided by the {@code entries} parameter here, so every
 * {@code ns_per_op} in the summary is per entry (scans) or per call/get/put (the rest).
 * {@code ratio_to_native} divides by the in-process floor ({@code floor} method) of the same
 * family, engine, workload and value size measured in the same run.
 *
 * <p>Usage: {@code Report <results dir>} or {@code Report --merge <out.json> <in.json>...}.
 */
public final class Report {
    private Report() {
    }

    /** One summary row. */
    static final class Row {
        String family;
        String engine;
        String variant;
        String workload;
        String valueSize;
        int threads;
        double ns;
        double nsErr;
        double alloc = Double.NaN;
        double allocErr = Double.NaN;
        double ratio = Double.NaN;
        double ratioErr = Double.NaN;
        int samples;
    }

    /**
     * @param args a results directory, or --merge out in...
     * @throws IOException on I/O failure
     */
    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (args.length >= 2 && args[0].equals("--merge")) {
            List<Object> all = new ArrayList<>();
            for (int i = 2; i < args.length; i++) {
                all.addAll(list(Json.parse(Files.readString(Path.of(args[i])))));
            }
            Files.writeString(Path.of(args[1]), Json.write(all));
            return;
        }
        if (args.length != 1) {
            System.err.println("usage: Report <results dir> | Report --merge <out.json> <in.json>...");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        List<Object> results = new ArrayList<>();
        Path merged = dir.resolve("jmh-result.json");
        if (Files.exists(merged)) {
            results.addAll(list(Json.parse(Files.readString(merged))));
        } else {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.filter(p -> p.getFileName().toString().matches("jmh-.*\\.json")).sorted().toList()) {
                    results.addAll(list(Json.parse(Files.readString(p))));
                }
            }
        }
        List<Row> rows = rows(results);
        ratios(rows);
        writeCsv(dir.resolve("summary.csv"), rows);
        List<String> charts = charts(dir, rows);
        writeMarkdown(dir, rows, charts);
        System.out.println("report: " + rows.size() + " rows -> " + dir.resolve("summary.csv") + ", " + dir.resolve("report.md")
                + ", " + charts.size() + " charts");
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return o instanceof List ? (List<Object>) o : List.of();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map ? (Map<String, Object>) o : Map.of();
    }

    static double num(Object o) {
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        if (o instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    static List<Row> rows(List<Object> results) {
        List<Row> rows = new ArrayList<>();
        for (Object o : results) {
            Map<String, Object> r = map(o);
            String bench = String.valueOf(r.get("benchmark"));
            String[] parts = bench.split("\\.");
            String cls = parts[parts.length - 2];
            String method = parts[parts.length - 1];
            Map<String, Object> params = map(r.get("params"));
            Row row = new Row();
            String fixedEngine = null;
            String base = cls;
            if (cls.startsWith("RocksJava")) {
                fixedEngine = "rocksdb";
                base = cls.substring("RocksJava".length());
            } else if (cls.startsWith("LmdbJava")) {
                fixedEngine = "lmdb";
                base = cls.substring("LmdbJava".length());
            }
            row.family = base.replace("Bench", "").toLowerCase(Locale.ROOT);
            Object eng = params.get("engine");
            row.engine = fixedEngine != null ? fixedEngine : eng != null ? eng.toString().toLowerCase(Locale.ROOT) : "-";
            String binding = params.get("binding") == null ? null : params.get("binding").toString();
            row.valueSize = params.get("valueSize") == null ? "-" : params.get("valueSize").toString();
            row.threads = (int) num(r.get("threads"));
            switch (row.family) {
                case "scan" -> row.workload = "scan-" + params.getOrDefault("direction", "forward");
                case "get" -> row.workload = "get-random";
                case "put", "batch" -> row.workload = row.family + "-" + params.getOrDefault("order", "seq");
                case "call" -> row.workload = method.toLowerCase(Locale.ROOT).contains("noop") ? "noop" : method;
                default -> row.workload = row.family;
            }
            boolean interop = cls.equals("InteropScanBench");
            if (interop) {
                // RocksJava's own iterator loop vs the same iterator wrapped by Ferry, same JVM
                row.family = "scan";
                row.engine = "rocksdb";
                row.workload = "scan-forward";
            }
            if (interop) {
                row.variant = method.equals("rocksjavaInterop") ? "rocksjava-interop-" + binding : method + "@interop-" + binding;
            } else if (row.family.equals("call") && row.workload.equals("noop")) {
                row.variant = switch (method) {
                    case "jniNoop" -> "jni";
                    case "ffmNoop" -> "ffm";
                    case "ffmNoopCritical" -> "ffm-critical";
                    default -> method;
                };
            } else if (method.equals("floor") || fixedEngine != null || binding == null) {
                row.variant = method;
            } else if (row.family.equals("call")) {
                row.variant = "ferry-" + binding;
            } else {
                row.variant = method + "-" + binding;
            }
            Map<String, Object> pm = map(r.get("primaryMetric"));
            double div = 1;
            if (row.family.equals("scan") && params.get("entries") != null) {
                div = num(params.get("entries"));
            }
            String unit = String.valueOf(pm.get("scoreUnit"));
            double toNs = unit.startsWith("us") ? 1e3 : unit.startsWith("ms") ? 1e6 : unit.startsWith("s/") ? 1e9 : 1;
            row.ns = num(pm.get("score")) * toNs / div;
            row.nsErr = num(pm.get("scoreError")) * toNs / div;
            row.samples = list(pm.get("rawData")).stream().mapToInt(x -> list(x).size()).sum();
            Map<String, Object> sec = map(r.get("secondaryMetrics"));
            for (Map.Entry<String, Object> e : sec.entrySet()) {
                if (e.getKey().endsWith("gc.alloc.rate.norm")) {
                    row.alloc = num(map(e.getValue()).get("score")) / div;
                    row.allocErr = num(map(e.getValue()).get("scoreError")) / div;
                }
            }
            rows.add(row);
        }
        return rows;
    }

    static String key(Row r) {
        return r.family + "|" + r.engine + "|" + r.workload + "|" + r.valueSize;
    }

    static void ratios(List<Row> rows) {
        Map<String, double[]> floors = new TreeMap<>();
        for (Row r : rows) {
            if (r.variant.equals("floor")) {
                double[] a = floors.computeIfAbsent(key(r), k -> new double[3]);
                a[0] += r.ns;
                a[1] += r.nsErr;
                a[2]++;
            }
        }
        for (Row r : rows) {
            double[] f = floors.get(key(r));
            if (f != null && f[2] > 0) {
                double fns = f[0] / f[2];
                double ferr = f[1] / f[2];
                r.ratio = r.ns / fns;
                double rel = Math.hypot(r.nsErr / r.ns, ferr / fns);
                r.ratioErr = r.variant.equals("floor") ? 0 : r.ratio * rel;
            }
        }
    }

    static String f(double v, int digits) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    static void writeCsv(Path p, List<Row> rows) throws IOException {
        StringBuilder sb = new StringBuilder(
                "engine,binding_or_peer,workload,key_size,value_size,threads,ns_per_op,ns_per_op_error,ops_per_s,ratio_to_native,ratio_error,alloc_bytes_per_op,alloc_error,family\n");
        for (Row r : rows) {
            sb.append(r.engine).append(',').append(r.variant).append(',').append(r.workload).append(',')
                    .append(r.family.equals("call") && r.workload.equals("noop") ? "-" : "16").append(',')
                    .append(r.valueSize).append(',').append(r.threads).append(',')
                    .append(f(r.ns, 3)).append(',').append(f(r.nsErr, 3)).append(',')
                    .append(f(1e9 / r.ns, 0)).append(',').append(f(r.ratio, 3)).append(',').append(f(r.ratioErr, 3)).append(',')
                    .append(f(r.alloc, 3)).append(',').append(f(r.allocErr, 3)).append(',').append(r.family).append('\n');
        }
        Files.writeString(p, sb.toString(), StandardCharsets.UTF_8);
    }

    static List<String> charts(Path dir, List<Row> rows) {
        List<String> out = new ArrayList<>();
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) {
            String key = r.engine.equals("-") ? r.family + "-" + r.workload // engine-less rows: the empty downcalls
                    : r.family + "-" + r.engine + (r.valueSize.equals("-") ? "" : "-" + r.valueSize);
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Row>> g : groups.entrySet()) {
            List<Row> rs = g.getValue();
            Set<String> variants = new LinkedHashSet<>();
            Set<String> workloads = new LinkedHashSet<>();
            rs.stream().map(r -> r.variant).sorted().forEach(variants::add);
            rs.forEach(r -> workloads.add(r.workload));
            List<String> xs = new ArrayList<>(variants);
            Map<String, List<Double>> series = new LinkedHashMap<>();
            for (String w : workloads) {
                List<Double> ys = new ArrayList<>();
                for (String v : xs) {
                    ys.add(rs.stream().filter(r -> r.variant.equals(v) && r.workload.equals(w)).mapToDouble(r -> r.ns)
                            .average().orElse(Double.NaN));
                }
                series.put(w, ys);
            }
            String title = g.getKey().equals("call-noop") ? "empty downcall: JNI, FFM, FFM critical (ns per call)"
                    : g.getKey() + (g.getKey().startsWith("scan") ? " (ns per entry)" : " (ns per op)");
            String name = "chart-" + g.getKey() + ".png";
            String failed = BarChart.save(dir.resolve(name), title, "variant", "ns per op", xs, series);
            if (failed == null) {
                out.add(name);
            } else {
                System.err.println("report: chart " + name + " failed: " + failed + " values " + rs.stream().map(r -> r.variant + "/" + r.workload + "=" + r.ns).toList());
            }
        }
        return out;
    }

    /**
     * The project's targets, each with the figure measured in this run and MET or MISSED. Scan
     * ratios come from the interleaved runs (floor, Ferry and the peers in turn in one JVM) when
     * present; allocation, empty calls and the interop speed-up from JMH.
     */
    static String targets(Path dir, List<Row> rows) throws IOException {
        StringBuilder t = new StringBuilder("## Targets\n\n| target | measured | verdict |\n|---|---|---|\n");
        Map<String, Double> best = new TreeMap<>();
        Path inter = dir.resolve("interleaved.txt");
        if (Files.exists(inter)) {
            for (String line : Files.readAllLines(inter)) {
                if (!line.startsWith("interleaved ")) {
                    continue;
                }
                Map<String, String> kv = new LinkedHashMap<>();
                for (String tok : line.substring(12).split(" ")) {
                    int eq = tok.indexOf('=');
                    if (eq > 0) {
                        kv.put(tok.substring(0, eq), tok.substring(eq + 1));
                    }
                }
                String k = kv.get("engine") + "|" + kv.get("value_size") + "|" + kv.get("direction") + "|" + kv.get("jvm_binding") + "|" + kv.get("variant");
                best.put(k, Double.parseDouble(kv.get("best_ns_per_entry")));
            }
        }
        for (Map.Entry<String, Double> e : best.entrySet()) {
            String[] k = e.getKey().split("\\|");
            String jvm = k[0] + "|" + k[1] + "|" + k[2] + "|" + k[3] + "|";
            if (k[4].startsWith("rocksjava-interop-")) {
                Double loop = best.get(jvm + "rocksjavaBytes");
                if (loop != null) {
                    interopTarget(t, k[3], k[1], "interleaved", loop / e.getValue(),
                            " (" + f(e.getValue(), 1) + " vs " + f(loop, 1) + " ns)");
                }
                continue;
            }
            if (!k[4].startsWith("ferry-")) {
                continue;
            }
            String what = k[0] + " " + k[1] + " B " + k[2] + " scan, " + k[4];
            Double floor = best.get(jvm + "floor");
            if (floor != null) {
                double r = e.getValue() / floor;
                t.append("| ").append(what).append(" <= 1.05x floor | ").append(f(r, 2)).append("x (").append(f(e.getValue(), 1))
                        .append(" vs ").append(f(floor, 1)).append(" ns) | ").append(r <= 1.05 ? "MET" : "MISSED").append(" |\n");
            }
            String peer = k[0].equals("rocksdb") ? "rocksjavaBytes" : "lmdbjava";
            double want = k[0].equals("rocksdb") ? 2.0 : 1.7;
            Double p = best.get(jvm + peer);
            if (p != null) {
                double sp = p / e.getValue();
                t.append("| ").append(what).append(" >= ").append(f(want, 1)).append("x faster than ").append(peer).append(" | ")
                        .append(f(sp, 2)).append("x | ").append(sp >= want ? "MET" : "MISSED").append(" |\n");
            }
        }
        for (Row r : rows) {
            if (r.family.equals("scan") && r.variant.startsWith("ferry") && !Double.isNaN(r.alloc)) {
                t.append("| ").append(r.engine).append(' ').append(r.valueSize).append(" B ").append(r.workload).append(", ").append(r.variant)
                        .append(": no allocation per entry | ").append(f(r.alloc, 4)).append(" B/entry | ")
                        .append(r.alloc < 0.1 ? "MET" : "MISSED").append(" |\n");
            }
            if (r.variant.equals("ffm-critical")) {
                t.append("| empty FFM critical downcall <= 6 ns | ").append(f(r.ns, 1)).append(" ns | ")
                        .append(r.ns <= 6 ? "MET" : "MISSED").append(" |\n");
            }
            if (r.variant.startsWith("rocksjava-interop-")) {
                String b = r.variant.substring("rocksjava-interop-".length());
                for (Row o : rows) {
                    if (o.variant.equals("rocksjavaBytes@interop-" + b) && o.valueSize.equals(r.valueSize)) {
                        interopTarget(t, b, r.valueSize, "JMH", o.ns / r.ns, "");
                    }
                }
            }
        }
        t.append("\nAllocation: `-prof gc` bytes per scan divided by the entries scanned. Each scan opens a cursor and so allocates "
                + "a few KB once (cursor, views, guard, offset array); an allocation per entry would add at least "
                + "16 B/entry (the smallest object), so below 0.1 B/entry there is none: steady-state allocation per entry is 0.\n\n");
        return t.toString();
    }

    /**
     * One Targets row for the interop speed-up: a RocksJava iterator wrapped by Ferry against
     * RocksJava's own loop over the same kind of iterator, at least 2x faster.
     */
    private static void interopTarget(StringBuilder t, String binding, String valueSize, String how, double speedUp, String detail) {
        t.append("| RocksJava iterator wrapped by Ferry (").append(binding).append(", ").append(valueSize).append(" B, ").append(how)
                .append(") >= 2x faster than the same iterator's loop | ").append(f(speedUp, 2)).append('x').append(detail)
                .append(" | ").append(speedUp >= 2 ? "MET" : "MISSED").append(" |\n");
    }

    static void writeMarkdown(Path dir, List<Row> rows, List<String> charts) throws IOException {
        StringBuilder sb = new StringBuilder("# Ferry benchmark report\n\n");
        Path machine = dir.resolve("machine.txt");
        if (Files.exists(machine)) {
            sb.append("```\n").append(Files.readString(machine).strip()).append("\n```\n\n");
        }
        sb.append("ns per op: per entry for scans (JMH score per whole scan / entries), per call, get or put otherwise. "
                + "Error: JMH 99.9% confidence half-width. Ratio: to the in-process native floor (`floor`) of the same "
                + "engine, workload and value size in this run. B/op from `-prof gc` (per entry for scans).\n\n");
        sb.append(targets(dir, rows));
        sb.append("## Headline\n\n");
        Map<String, List<Row>> byKey = new TreeMap<>();
        for (Row r : rows) {
            if (r.family.equals("scan") || r.family.equals("get")) {
                byKey.computeIfAbsent(r.family + " " + r.engine + " " + r.valueSize + " B " + r.workload, k -> new ArrayList<>()).add(r);
            }
        }
        for (Map.Entry<String, List<Row>> e : byKey.entrySet()) {
            sb.append("- ").append(e.getKey()).append(": ");
            List<Row> rs = new ArrayList<>(e.getValue());
            rs.sort((a, b) -> Double.compare(a.ns, b.ns));
            List<String> parts = new ArrayList<>();
            for (Row r : rs) {
                parts.add(r.variant + " " + f(r.ns, r.ns < 100 ? 1 : 0) + " ns" + (Double.isNaN(r.ratio) ? "" : " (" + f(r.ratio, 2) + "x)"));
            }
            sb.append(String.join(", ", parts)).append('\n');
        }
        rows.stream().filter(r -> r.workload.equals("noop")).forEach(r -> sb.append("- empty call ").append(r.variant).append(": ")
                .append(f(r.ns, 1)).append(" ns\n"));
        for (Row r : rows) {
            if (r.variant.startsWith("rocksjava-interop-")) {
                String b = r.variant.substring("rocksjava-interop-".length());
                rows.stream().filter(o -> o.variant.equals("rocksjavaBytes@interop-" + b) && o.valueSize.equals(r.valueSize)).findFirst()
                        .ifPresent(o -> sb.append("- RocksJava interop (").append(b).append(", ").append(r.valueSize)
                                .append(" B): the same RocksIterator wrapped by Ferry scans ").append(f(o.ns / r.ns, 2))
                                .append("x faster than RocksJava's isValid/key/value/next loop (").append(f(r.ns, 0)).append(" vs ")
                                .append(f(o.ns, 0)).append(" ns per entry, same JVM)\n"));
            }
        }
        sb.append('\n');
        Map<String, List<Row>> fam = new LinkedHashMap<>();
        for (String f : List.of("scan", "call", "get", "put", "batch")) {
            fam.put(f, new ArrayList<>());
        }
        for (Row r : rows) {
            fam.computeIfAbsent(r.family, k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Row>> e : fam.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            sb.append("## ").append(e.getKey()).append("\n\n");
            sb.append("| engine | value B | workload | variant | ns/op | ± | ops/s | x floor | B/op |\n");
            sb.append("|---|---:|---|---|---:|---:|---:|---:|---:|\n");
            e.getValue().stream()
                    .sorted((a, b) -> (a.engine + a.valueSize + a.workload).compareTo(b.engine + b.valueSize + b.workload) != 0
                            ? (a.engine + a.valueSize + a.workload).compareTo(b.engine + b.valueSize + b.workload)
                            : Double.compare(a.ns, b.ns))
                    .forEach(r -> sb.append("| ").append(r.engine).append(" | ").append(r.valueSize).append(" | ").append(r.workload)
                            .append(" | ").append(r.variant).append(" | ").append(f(r.ns, r.ns < 100 ? 2 : 1)).append(" | ")
                            .append(f(r.nsErr, r.ns < 100 ? 2 : 1)).append(" | ").append(f(1e9 / r.ns, 0)).append(" | ")
                            .append(Double.isNaN(r.ratio) ? "" : f(r.ratio, 2) + (Double.isNaN(r.ratioErr) ? "" : " ± " + f(r.ratioErr, 2)))
                            .append(" | ")
                            .append(f(r.alloc, r.family.equals("scan") ? 3 : 0)).append(" |\n"));
            sb.append('\n');
            for (String c : charts) {
                if (c.startsWith("chart-" + e.getKey() + "-")) {
                    sb.append("![").append(c).append("](").append(c).append(")\n\n");
                }
            }
        }
        Path inter = dir.resolve("interleaved.txt");
        if (Files.exists(inter)) {
            sb.append("## Scans measured interleaved (best of rounds, ns per entry)\n\n")
                    .append("Each JVM runs one engine and one Ferry binding; floor, Ferry and the peers open, scan and close in turn, "
                            + "round after round, so a noisy phase of the machine hits all of them. Ratio to the floor of the same JVM.\n\n")
                    .append("| engine | value B | direction | JVM | variant | best ns/entry | x floor |\n|---|---:|---|---|---|---:|---:|\n");
            for (String line : Files.readAllLines(inter)) {
                if (!line.startsWith("interleaved ")) {
                    continue;
                }
                Map<String, String> kv = new LinkedHashMap<>();
                for (String t : line.substring(12).split(" ")) {
                    int eq = t.indexOf('=');
                    if (eq > 0) {
                        kv.put(t.substring(0, eq), t.substring(eq + 1));
                    }
                }
                sb.append("| ").append(kv.get("engine")).append(" | ").append(kv.get("value_size")).append(" | ").append(kv.get("direction"))
                        .append(" | ").append(kv.get("jvm_binding")).append(" | ").append(kv.get("variant")).append(" | ")
                        .append(kv.get("best_ns_per_entry")).append(" | ").append(kv.get("ratio_to_floor")).append(" |\n");
            }
            sb.append('\n');
        }
        Path floor = dir.resolve("floor.txt");
        if (Files.exists(floor)) {
            sb.append("## Out-of-process floor (C program)\n\n```\n").append(Files.readString(floor).strip()).append("\n```\n");
        }
        Files.writeString(dir.resolve("report.md"), sb.toString(), StandardCharsets.UTF_8);
    }
}
