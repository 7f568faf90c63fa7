package dev.ferry.bench.lmdbjava;

import dev.ferry.bench.report.BarChart;
import java.io.IOException;
import java.io.InputStream;
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

/**
 * Writes the LmdbJava reproduction's report from its {@code results.tsv}: {@code report.md} with, per test
 * and case (e.g. {@code 4-intKey-seq}), a table of milliseconds per workload and store and a log-scale bar
 * chart ({@code <case>.png}), our ordering beside the published one (fastest first; the published figures are
 * the suite's {@code results/20160710} data, quoted as orderings only: the machines differ), the storage tables
 * with the overhead against a flat array, test 2's storage per value size and test 1's LMDB settings.
 *
 * <p>Usage: {@code LmdbReport DIR}. Thread safety: stateless.
 */
public final class LmdbReport {
    /** Published implementation names to ours ("LMDB DB", lmdbjava over Agrona buffers, is not run here). */
    static final Map<String, String> PUBLISHED_NAMES = Map.of("LMDB BB", "lmdbjava", "LMDB JNI", "lmdbjni", "LMDB JGL", "lwjgl-lmdb",
            "LevelDB", "leveldbjni", "RocksDB", "rocksjava", "MapDB", "mapdb", "MVStore", "mvstore", "Xodus", "xodus", "Chronicle", "chronicle",
            "LMDB DB", "(lmdbjava-agrona)");

    private LmdbReport() {
    }

    /**
     * Writes the report of a results directory.
     *
     * @param args the directory
     * @throws IOException when the files cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        write(Path.of(args[0]));
    }

    /** One line of results.tsv. */
    record Row(String test, String group, String store, long num, int valSize, int keySize, String workload, String status, double best,
            double median, String result, long storage) {
        static Row parse(String line) {
            String[] f = line.split("\t", -1);
            return new Row(f[0], f[1], f[2], Long.parseLong(f[3]), Integer.parseInt(f[4]), Integer.parseInt(f[5]), f[6], f[7],
                    f[8].isEmpty() ? Double.NaN : Double.parseDouble(f[8]), f[9].isEmpty() ? Double.NaN : Double.parseDouble(f[9]), f[11],
                    f[12].isEmpty() ? -1 : Long.parseLong(f[12]));
        }

        boolean ok() {
            return status.equals("ok");
        }
    }

    /**
     * Writes {@code report.md} and the charts.
     *
     * @param dir the results directory
     * @throws IOException when the files cannot be read or written
     */
    public static void write(Path dir) throws IOException {
        List<Row> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(dir.resolve("results.tsv"), StandardCharsets.UTF_8);
        for (String l : lines.subList(1, lines.size())) {
            if (!l.isBlank()) {
                rows.add(Row.parse(l));
            }
        }
        Map<String, Map<String, Map<String, Double>>> published = published();
        StringBuilder md = new StringBuilder();
        md.append("# LmdbJava benchmark suite, reproduced\n\n");
        md.append("The LmdbJava benchmarks (github.com/lmdbjava/benchmarks, results of 2016-07-10) on this machine, scaled; ")
                .append("docs/reproductions.md section A says what differs. Milliseconds per workload (the whole workload: every ")
                .append("entry), best of the samples; fewer is better. Published orderings are the suite's own data, fastest first ")
                .append("(its machine: 2 x Xeon E5-2667 v3, 512 GB RAM, tmpfs, Java 8; 1M entries in test 4, 10M in test 5).\n\n");
        for (String f : List.of("machine.txt", "plan.txt")) {
            Path p = dir.resolve(f);
            if (Files.exists(p)) {
                md.append("```\n").append(Files.readString(p).strip()).append("\n```\n\n");
            }
        }
        failures(md, rows);
        for (String test : List.of("4", "5", "2", "1")) {
            List<Row> t = rows.stream().filter(r -> r.test.equals(test)).toList();
            if (t.isEmpty()) {
                continue;
            }
            switch (test) {
                case "4", "5" -> workloadTests(dir, md, test, t, published);
                case "2" -> test2(dir, md, t, published);
                default -> test1(dir, md, t, published);
            }
        }
        Files.writeString(dir.resolve("report.md"), md.toString());
    }

    private static void failures(StringBuilder md, List<Row> rows) {
        Map<String, List<String>> byCase = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!r.ok()) {
                byCase.computeIfAbsent(r.group + " " + r.store + ": " + r.status, k -> new ArrayList<>()).add(r.workload);
            }
        }
        List<String> seen = new ArrayList<>();
        byCase.forEach((k, ws) -> seen.add("- " + k.replaceFirst(": ", " (" + String.join(", ", ws) + "): ")));
        if (!seen.isEmpty()) {
            md.append("## Stores that failed here\n\n").append(String.join("\n", seen)).append("\n\n");
        }
    }

    private static void workloadTests(Path dir, StringBuilder md, String test, List<Row> t, Map<String, Map<String, Map<String, Double>>> pub)
            throws IOException {
        Row first = t.get(0);
        md.append(String.format(Locale.ROOT, "## Test %s: %,d x %,d-byte values%n%n", test, first.num, first.valSize));
        Set<String> groups = new LinkedHashSet<>();
        t.forEach(r -> groups.add(r.group));
        for (String g : groups) {
            List<Row> gr = t.stream().filter(r -> r.group.equals(g)).toList();
            List<String> workloads = new ArrayList<>();
            List<String> stores = new ArrayList<>();
            for (Row r : gr) {
                if (!workloads.contains(r.workload)) {
                    workloads.add(r.workload);
                }
                if (!stores.contains(r.store)) {
                    stores.add(r.store);
                }
            }
            md.append("### ").append(g).append(String.format(Locale.ROOT, " (%s keys, %s insertion)%n%n", g.contains("intKey") ? "int" : "16-byte string",
                    g.endsWith("seq") ? "sequential" : "random"));
            md.append("| store | ").append(String.join(" | ", workloads)).append(" |\n|---|").append("---:|".repeat(workloads.size())).append("\n");
            Map<String, List<Double>> series = new LinkedHashMap<>();
            for (String s : stores) {
                md.append("| ").append(s);
                List<Double> ys = new ArrayList<>();
                for (String w : workloads) {
                    Row r = find(gr, s, w);
                    md.append(" | ").append(cell(r));
                    ys.add(r != null && r.ok() ? r.best : Double.NaN);
                }
                md.append(" |\n");
                series.put(s, ys);
            }
            String why = BarChart.save(dir.resolve(g + ".png"), "LmdbJava suite " + g + String.format(Locale.ROOT, " (%,d x %,d B)", first.num, first.valSize),
                    "workload", "ms per workload", workloads, series);
            md.append("\n").append(why == null ? "![" + g + "](" + g + ".png)\n\n" : "(chart not drawn: " + why + ")\n\n");
            checksums(md, gr);
            md.append("Ordering, fastest first (ours | published ").append(g).append("):\n\n");
            Map<String, Map<String, Double>> p = pub.getOrDefault(g, Map.of());
            for (String w : workloads) {
                Map<String, Double> ours = new LinkedHashMap<>();
                for (Row r : gr) {
                    if (r.workload.equals(w) && r.ok()) {
                        ours.put(r.store, r.best);
                    }
                }
                md.append("- ").append(w).append(": ").append(order(ours)).append(" | ").append(order(rename(p.getOrDefault(w, Map.of())))).append("\n");
            }
            md.append("\n");
        }
        // storage, as published: from the random int-key case
        String g = test + "-intKey-rnd";
        List<Row> st = t.stream().filter(r -> r.group.equals(g) && r.workload.equals("write")).toList();
        if (!st.isEmpty()) {
            storage(dir, md, "Test " + test + " storage (" + g + ", after close)", test + "-size", st);
        }
    }

    private static void storage(Path dir, StringBuilder md, String title, String chart, List<Row> st) throws IOException {
        Row f = st.get(0);
        long flat = f.num * (f.keySize + f.valSize);
        md.append("### ").append(title).append("\n\n| store | bytes | overhead % |\n|---|---:|---:|\n");
        md.append(String.format(Locale.ROOT, "| (flat array) | %,d | |%n", flat));
        List<Row> sorted = new ArrayList<>(st);
        sorted.sort(Comparator.comparingLong(r -> r.storage < 0 ? Long.MAX_VALUE : r.storage));
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (Row r : sorted) {
            if (r.storage < 0) {
                md.append("| ").append(r.store).append(" | ").append(r.ok() ? "n/a" : r.status).append(" | |\n");
                continue;
            }
            md.append(String.format(Locale.ROOT, "| %s | %,d | %.2f |%n", r.store, r.storage, 100.0 * (r.storage - flat) / flat));
            series.put(r.store, List.of(r.storage / 1e6));
        }
        String why = BarChart.save(dir.resolve(chart + ".png"), title, "", "MB", List.of("storage"), series);
        md.append("\n").append(why == null ? "![" + chart + "](" + chart + ".png)\n\n" : "(chart not drawn: " + why + ")\n\n");
    }

    private static void test2(Path dir, StringBuilder md, List<Row> t, Map<String, Map<String, Map<String, Double>>> pub) throws IOException {
        md.append(String.format(Locale.ROOT, "## Test 2: storage around LMDB's page boundaries (%,d random int keys; published 1M)%n%n", t.get(0).num));
        List<Integer> sizes = new ArrayList<>();
        List<String> stores = new ArrayList<>();
        for (Row r : t) {
            if (!sizes.contains(r.valSize)) {
                sizes.add(r.valSize);
            }
            if (!stores.contains(r.store)) {
                stores.add(r.store);
            }
        }
        md.append("Bytes per entry after close (storage / entries; published: bytes per entry of their 1M-entry run), and write ms:\n\n");
        md.append("| store |");
        sizes.forEach(s -> md.append(" ").append(s).append(" B |"));
        md.append(" write ms per size |\n|---|").append("---:|".repeat(sizes.size())).append("---|\n");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String s : stores) {
            md.append("| ").append(s);
            List<Double> ys = new ArrayList<>();
            StringBuilder w = new StringBuilder();
            for (int size : sizes) {
                Row r = t.stream().filter(x -> x.store.equals(s) && x.valSize == size && x.workload.equals("write")).findFirst().orElse(null);
                if (r == null || r.storage < 0) {
                    md.append(" | ").append(r == null ? "" : r.status);
                    ys.add(Double.NaN);
                } else {
                    md.append(String.format(Locale.ROOT, " | %,.0f", (double) r.storage / r.num));
                    ys.add((double) r.storage / r.num);
                }
                w.append(w.length() == 0 ? "" : ", ").append(r != null && r.ok() ? String.format(Locale.ROOT, "%.0f", r.best) : "-");
            }
            md.append(" | ").append(w).append(" |\n");
            series.put(s, ys);
        }
        Map<String, Map<String, Double>> p = pub.getOrDefault("2-size", Map.of());
        md.append("| published (bytes per entry, 1M) |");
        for (int size : sizes) {
            StringBuilder c = new StringBuilder();
            for (Map.Entry<String, Double> e : p.getOrDefault("bytes", Map.of()).entrySet()) {
                if (e.getKey().endsWith(" " + size)) {
                    c.append(c.length() == 0 ? "" : ", ").append(e.getKey().replace(" " + size, "")).append(" ")
                            .append(String.format(Locale.ROOT, "%,.0f", e.getValue() / 1e6));
                }
            }
            md.append(" ").append(c.length() == 0 ? "-" : c).append(" |");
        }
        md.append(" |\n\n");
        List<String> xs = sizes.stream().map(s -> s + " B").toList();
        String why = BarChart.save(dir.resolve("2-size.png"), "Test 2: storage per entry by value size", "value size", "bytes per entry", xs, series);
        md.append(why == null ? "![2-size](2-size.png)\n\n" : "(chart not drawn: " + why + ")\n\n");
    }

    private static void test1(Path dir, StringBuilder md, List<Row> t, Map<String, Map<String, Map<String, Double>>> pub) throws IOException {
        md.append(String.format(Locale.ROOT, "## Test 1: LMDB settings (%,d sequential int keys x 100 B; write and readSeq ms)%n%n", t.get(0).num));
        List<String> groups = new ArrayList<>();
        List<String> stores = new ArrayList<>();
        for (Row r : t) {
            if (!groups.contains(r.group)) {
                groups.add(r.group);
            }
            if (!stores.contains(r.store)) {
                stores.add(r.store);
            }
        }
        md.append("| store |");
        groups.forEach(g -> md.append(" ").append(g.substring(2)).append(" write |"));
        groups.forEach(g -> md.append(" ").append(g.substring(2)).append(" readSeq |"));
        md.append("\n|---|").append("---:|".repeat(groups.size() * 2)).append("\n");
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String s : stores) {
            md.append("| ").append(s);
            List<Double> ys = new ArrayList<>();
            for (String w : List.of("write", "readSeq")) {
                for (String g : groups) {
                    Row r = t.stream().filter(x -> x.store.equals(s) && x.group.equals(g) && x.workload.equals(w)).findFirst().orElse(null);
                    md.append(" | ").append(cell(r));
                    if (w.equals("write")) {
                        ys.add(r != null && r.ok() ? r.best : Double.NaN);
                    }
                }
            }
            md.append(" |\n");
            series.put(s, ys);
        }
        String why = BarChart.save(dir.resolve("1-writes.png"), "Test 1: LMDB write by settings", "settings", "ms per write workload",
                groups.stream().map(g -> g.substring(2)).toList(), series);
        md.append("\n").append(why == null ? "![1-writes](1-writes.png)\n\n" : "(chart not drawn: " + why + ")\n\n");
        md.append("Published (1M, write ms, lower is better): ");
        for (String c : List.of("1-sync-writes", "1-writeMap-writes")) {
            md.append(c).append(": ").append(order(pub.getOrDefault(c, Map.of()).getOrDefault("write", Map.of()))).append(". ");
        }
        md.append("\n\n");
    }

    private static void checksums(StringBuilder md, List<Row> gr) {
        for (String w : List.of("readCrc", "readXxh64", "readSeq", "readRev")) {
            Set<String> distinct = new LinkedHashSet<>();
            List<String> who = new ArrayList<>();
            for (Row r : gr) {
                if (r.workload.equals(w) && r.ok() && !r.result.isEmpty()) {
                    distinct.add(r.result);
                    who.add(r.store + "=" + r.result);
                }
            }
            if (distinct.size() > 1) {
                md.append("**").append(w).append(" results differ between stores** (each must read the same entries): ").append(who).append("\n\n");
            }
        }
    }

    private static Row find(List<Row> rows, String store, String workload) {
        return rows.stream().filter(r -> r.store.equals(store) && r.workload.equals(workload)).findFirst().orElse(null);
    }

    private static String cell(Row r) {
        if (r == null) {
            return "-";
        }
        if (!r.ok()) {
            return r.status.startsWith("failed") ? "failed" : r.status;
        }
        return String.format(Locale.ROOT, r.best < 10 ? "%.2f" : "%,.0f", r.best);
    }

    private static Map<String, Double> rename(Map<String, Double> m) {
        Map<String, Double> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(PUBLISHED_NAMES.getOrDefault(k, k), v));
        return out;
    }

    private static String order(Map<String, Double> m) {
        if (m.isEmpty()) {
            return "(none)";
        }
        List<Map.Entry<String, Double>> e = new ArrayList<>(m.entrySet());
        e.sort(Map.Entry.comparingByValue());
        List<String> names = new ArrayList<>();
        e.forEach(x -> names.add(x.getKey()));
        return String.join(" < ", names);
    }

    /** The suite's published data: case, workload, implementation, ms (or bytes). */
    static Map<String, Map<String, Map<String, Double>>> published() throws IOException {
        Map<String, Map<String, Map<String, Double>>> out = new LinkedHashMap<>();
        try (InputStream in = LmdbReport.class.getResourceAsStream("published-20160710.tsv")) {
            if (in == null) {
                return out;
            }
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (l.startsWith("#") || l.isBlank()) {
                    continue;
                }
                String[] f = l.split("\t");
                out.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).computeIfAbsent(f[1], k -> new LinkedHashMap<>()).put(f[2], Double.parseDouble(f[3]));
            }
        }
        return out;
    }
}
