package dev.ferry.bench.report;

import dev.ferry.bench.million.MillionPlan;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * Turns a {@code ./ferry reproduce million} results directory into {@code summary.csv}, {@code report.md}
 * and {@code chart-million.png}: microseconds per GET per system (each run's best of its three repeats, as
 * published; over several rounds the median of those, with the range), the published figure beside, the
 * rows not run with the reason, our ordering, and the machine and plan.
 *
 * <p>Input: {@code results.tsv} (from {@code MillionRun}), {@code plan.txt} and {@code machine.txt} when
 * present. Usage: {@code MillionReport <results dir>}. Thread safety: one report per call.
 */
public final class MillionReport {
    private MillionReport() {
    }

    /**
     * One run's line of {@code results.tsv}.
     *
     * @param system the system's name
     * @param round the round
     * @param position the place in the round
     * @param status "ok" or "failed: why"
     * @param loadSeconds seconds to load the entries (NaN when failed)
     * @param getMicros the repeats' average microseconds per GET
     * @param bestMicros the best of them
     * @param storageBytes storage after close, -1 in memory, 0 unknown
     */
    public record Run(String system, int round, int position, String status, double loadSeconds, double[] getMicros, double bestMicros,
            long storageBytes) {
        /** @return true when the run gave a result */
        public boolean ok() {
            return status.equals("ok");
        }
    }

    /**
     * One system's row: its runs summarised.
     *
     * @param system the plan's row
     * @param runs its runs (none for a row not run)
     * @param medianMicros median over the runs of each run's best (NaN without a result)
     * @param minMicros the smallest best
     * @param maxMicros the largest best
     * @param loadSeconds median load time
     * @param storageBytes median storage
     * @param status "ok", "not run: why", or the first failure
     */
    public record Row(MillionPlan.System system, List<Run> runs, double medianMicros, double minMicros, double maxMicros, double loadSeconds,
            long storageBytes, String status) {
    }

    /**
     * Reads {@code results.tsv}.
     *
     * @param tsv the file
     * @return its runs
     * @throws IOException when it cannot be read
     */
    public static List<Run> read(Path tsv) throws IOException {
        List<Run> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(tsv, StandardCharsets.UTF_8);
        for (String l : lines.subList(1, lines.size())) {
            if (l.isBlank()) {
                continue;
            }
            String[] f = l.split("\t", -1);
            boolean ok = f[3].equals("ok");
            double[] us = ok ? Arrays.stream(f[5].split(",")).mapToDouble(Double::parseDouble).toArray() : new double[0];
            out.add(new Run(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], ok ? Double.parseDouble(f[4]) : Double.NaN, us,
                    ok ? Double.parseDouble(f[6]) : Double.NaN, ok ? Long.parseLong(f[7]) : 0));
        }
        return out;
    }

    static double median(double[] xs) {
        if (xs.length == 0) {
            return Double.NaN;
        }
        double[] s = xs.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * One row per system of the plan, in the plan's order; systems the runs do not name and that are
     * run here are left out (a run of a subset), rows not run are kept.
     *
     * @param runs the runs
     * @return the rows
     */
    public static List<Row> rows(List<Run> runs) {
        List<Row> out = new ArrayList<>();
        for (MillionPlan.System s : MillionPlan.SYSTEMS) {
            if (!s.runs()) {
                out.add(new Row(s, List.of(), Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, "not run: " + MillionPlan.NOT_RUN_WHY));
                continue;
            }
            List<Run> mine = runs.stream().filter(r -> r.system().equals(s.name())).toList();
            if (mine.isEmpty()) {
                continue;
            }
            List<Run> ok = mine.stream().filter(Run::ok).toList();
            double[] bests = ok.stream().mapToDouble(Run::bestMicros).toArray();
            String status = ok.size() == mine.size() ? "ok"
                    : mine.stream().filter(r -> !r.ok()).findFirst().orElseThrow().status() + " (" + (mine.size() - ok.size()) + " of "
                    + mine.size() + " runs)";
            out.add(new Row(s, mine, median(bests), Arrays.stream(bests).min().orElse(Double.NaN), Arrays.stream(bests).max().orElse(Double.NaN),
                    median(ok.stream().mapToDouble(Run::loadSeconds).toArray()),
                    (long) median(ok.stream().mapToDouble(r -> r.storageBytes()).toArray()), status));
        }
        return out;
    }

    /**
     * Writes {@code summary.csv}, {@code report.md} and {@code chart-million.png} into a results directory.
     *
     * @param dir the results directory
     * @throws IOException when a file cannot be read or written
     */
    public static void write(Path dir) throws IOException {
        List<Row> rows = rows(read(dir.resolve("results.tsv")));
        StringBuilder csv = new StringBuilder("system,label,kind,runs,ok_runs,us_per_get_median,us_per_get_min,us_per_get_max,load_s,storage_bytes,status,published\n");
        for (Row r : rows) {
            csv.append(String.join(",", r.system().name(), q(r.system().label()), r.system().kind(), "" + r.runs().size(),
                    "" + r.runs().stream().filter(Run::ok).count(), num(r.medianMicros()), num(r.minMicros()), num(r.maxMicros()),
                    num(r.loadSeconds()), r.runs().isEmpty() ? "" : "" + r.storageBytes(), q(r.status()), q(r.system().published()))).append('\n');
        }
        Files.writeString(dir.resolve("summary.csv"), csv.toString());
        Map<String, String> plan = keyValues(dir.resolve("plan.txt"));
        String title = String.format(Locale.ROOT, "One in a Million: microseconds per GET (%s entries, best of %s x %s random GETs; lower is better)",
                grouped(plan.getOrDefault("entries", "?")), plan.getOrDefault("repeats", "3"), grouped(plan.getOrDefault("gets", "?")));
        String chart = chart(dir.resolve("chart-million.png"), title, rows);
        Files.writeString(dir.resolve("report.md"), markdown(dir, rows, chart));
    }

    /** @return a count with thousands separators (1,000,000), or the text as it is when it is not a number */
    static String grouped(String count) {
        try {
            return String.format(Locale.ROOT, "%,d", Long.parseLong(count));
        } catch (NumberFormatException e) {
            return count;
        }
    }

    private static String q(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    private static String num(double d) {
        return Double.isNaN(d) ? "" : String.format(Locale.ROOT, "%.4f", d);
    }

    private static String us(double d) {
        if (Double.isNaN(d)) {
            return "-";
        }
        return d >= 100 ? String.format(Locale.ROOT, "%.0f", d) : d >= 10 ? String.format(Locale.ROOT, "%.1f", d)
                : String.format(Locale.ROOT, "%.2f", d);
    }

    /**
     * The systems that gave a result, fastest first.
     *
     * @param rows the rows
     * @return their labels in order of median microseconds per GET
     */
    public static List<Row> ordering(List<Row> rows) {
        return rows.stream().filter(r -> !Double.isNaN(r.medianMicros())).sorted(Comparator.comparingDouble(Row::medianMicros)).toList();
    }

    static String markdown(Path dir, List<Row> rows, String chartError) throws IOException {
        StringBuilder md = new StringBuilder();
        Map<String, String> plan = keyValues(dir.resolve("plan.txt"));
        int rounds = Integer.parseInt(plan.getOrDefault("rounds", "1"));
        md.append("# One in a Million: GET latency, reproduced\n\n");
        md.append("The published comparison: Frans Lundberg, \"One in a Million: GET performance of MongoDB, Riak, BergDB, MySQL, and more\", ")
                .append("10 January 2014, ").append(MillionPlan.SOURCE).append(". One million entries, keys the ints 0..999,999 as 4 ")
                .append("big-endian bytes inserted in random order, value = key; then 100,000 random GETs, three times; the best average ")
                .append("GET time counts. The post ran on an i7 laptop (Toshiba Z930, SSD, Ubuntu 12.04, Oracle JVM 1.7), each database ")
                .append("with its default settings, in-process or as a server on localhost.\n\n");
        md.append("Lower is better. Here every system ran ").append(grouped(plan.getOrDefault("entries", "?"))).append(" entries and ")
                .append(grouped(plan.getOrDefault("gets", "?"))).append(" GETs x ").append(plan.getOrDefault("repeats", "3"))
                .append(" repeats in its own JVM, loaded in batches of ").append(plan.getOrDefault("batch", "?"))
                .append(" (the post does not say how it loaded), ").append(rounds).append(rounds == 1 ? " round" : " rounds, the order rotated")
                .append(" (mode ").append(plan.getOrDefault("mode", "?")).append(").");
        if (rounds == 1) {
            md.append(" One round is a smoke run on a shared machine: it shows the orders of magnitude, not small differences (`--full` runs 5).");
        }
        md.append(" Every GET's value is checked against its key.\n\n");
        md.append("## Microseconds per GET\n\n");
        md.append(rounds > 1 ? "| system | kind | us/GET (median of the rounds' bests) | range | load s | storage | published |\n"
                + "|---|---|---:|---:|---:|---:|---|\n"
                : "| system | kind | us/GET (best of 3) | repeats (us) | load s | storage | published |\n|---|---|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            String kind = switch (r.system().kind()) {
                case "server" -> "server (localhost)";
                case "peer" -> "in-process";
                case "ferry" -> "Ferry (in-process)";
                default -> r.system().kind();
            };
            String value;
            String spread;
            if (r.runs().isEmpty()) {
                value = "not run";
                spread = "";
            } else if (Double.isNaN(r.medianMicros())) {
                value = "failed";
                spread = r.status();
            } else {
                value = "**" + us(r.medianMicros()) + "**" + (r.status().equals("ok") ? "" : " (" + r.status() + ")");
                if (rounds > 1) {
                    spread = us(r.minMicros()) + " - " + us(r.maxMicros());
                } else {
                    Run only = r.runs().stream().filter(Run::ok).findFirst().orElseThrow();
                    List<String> reps = new ArrayList<>();
                    for (double u : only.getMicros()) {
                        reps.add(us(u));
                    }
                    spread = String.join(", ", reps);
                }
            }
            String storage = r.runs().isEmpty() || Double.isNaN(r.medianMicros()) ? "" : r.storageBytes() < 0 ? "in memory"
                    : String.format(Locale.ROOT, "%.1f MB", r.storageBytes() / 1e6);
            md.append("| ").append(r.system().label()).append(" | ").append(kind).append(" | ").append(value).append(" | ").append(spread)
                    .append(" | ").append(r.runs().isEmpty() ? "" : us(r.loadSeconds())).append(" | ").append(storage).append(" | ")
                    .append(r.system().published()).append(" |\n");
        }
        md.append("\nNot run: BergDB, MongoDB and Riak are ").append(MillionPlan.NOT_RUN_WHY).append(". MySQL's row runs MariaDB ")
                .append("(Debian's `mariadb-server`) through MariaDB Connector/J on a private server on 127.0.0.1 with InnoDB's defaults: ")
                .append("one prepared `SELECT v FROM kv WHERE k = ?` per GET. Storage: allocated bytes of the store's directory after ")
                .append("close (MariaDB: InnoDB's data + index length of the table).\n\n");
        md.append("## Chart\n\n");
        md.append(chartError == null ? "![microseconds per GET, log scale](chart-million.png)\n\n" : "(no chart: " + chartError + ")\n\n");
        md.append("## Ordering\n\n");
        List<Row> order = ordering(rows);
        md.append("Ours, fastest first: ");
        List<String> labels = new ArrayList<>();
        for (Row r : order) {
            labels.add(r.system().label() + " " + us(r.medianMicros()));
        }
        md.append(String.join(" < ", labels)).append(" (us/GET).\n\n");
        double inMax = order.stream().filter(r -> !r.system().kind().equals("server")).mapToDouble(Row::medianMicros).max().orElse(Double.NaN);
        double inMedian = median(order.stream().filter(r -> !r.system().kind().equals("server")).mapToDouble(Row::medianMicros).toArray());
        double server = order.stream().filter(r -> r.system().kind().equals("server")).mapToDouble(Row::medianMicros).min().orElse(Double.NaN);
        md.append("Published (the post's text): the in-process databases were \"in the order of 100 times faster\" than the out-of-process ")
                .append("ones (MySQL, MongoDB, Riak); a localhost TCP round trip measured 50 us there; Riak answered in \"a little more than 1 ms\". ")
                .append("The post's per-system figures are in its chart (an image) and are not quoted here.\n\n");
        if (!Double.isNaN(server) && !Double.isNaN(inMax)) {
            md.append(String.format(Locale.ROOT, "Here: the server (MariaDB) took %.0fx the median in-process system and %.1fx the slowest one; ",
                    server / inMedian, server / inMax));
            md.append(server > inMax ? "every in-process system was faster than the server, as published.\n\n"
                    : "**an in-process system was slower than the server, unlike the post.**\n\n");
        } else {
            md.append("No server result here: the in-process / server ordering cannot be compared.\n\n");
        }
        md.append("## Machine and plan\n\n```\n");
        Path machine = dir.resolve("machine.txt");
        if (Files.exists(machine)) {
            md.append(Files.readString(machine).strip()).append('\n');
        }
        if (Files.exists(dir.resolve("plan.txt"))) {
            md.append(Files.readString(dir.resolve("plan.txt")).strip()).append('\n');
        }
        md.append("```\n\nEach run's output is in `raw/`, one line per run in `results.tsv`, one per system in `summary.csv`.\n");
        return md.toString();
    }

    private static Map<String, String> keyValues(Path file) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int i = l.indexOf(": ");
                if (i > 0) {
                    m.put(l.substring(0, i), l.substring(i + 2));
                }
            }
        }
        return m;
    }

    /**
     * Draws the bar chart: one bar per system with a result, log y axis, microseconds per GET; Ferry in
     * blue, in-process peers in orange, the server in grey.
     *
     * @param file the PNG to write
     * @param title the chart's title
     * @param rows the rows (those without a result get no bar)
     * @return null when saved, else why not
     */
    static String chart(Path file, String title, List<Row> rows) {
        List<Row> measured = rows.stream().filter(r -> !Double.isNaN(r.medianMicros())).toList();
        if (measured.isEmpty()) {
            return "no results";
        }
        List<String> xs = measured.stream().map(r -> r.system().label().replace(" (JDBC; published: MySQL)", " (JDBC)")).toList();
        String[] kinds = {"ferry", "peer", "server"};
        String[] names = {"Ferry", "in-process peers", "server on localhost"};
        Color[] colors = {new Color(0x1f4e9c), new Color(0xd95f02), new Color(0x6d6d6d)};
        double min = measured.stream().mapToDouble(Row::medianMicros).min().orElseThrow();
        double max = measured.stream().mapToDouble(Row::medianMicros).max().orElseThrow();
        CategoryChart c = new CategoryChartBuilder().width(1100).height(600)
                .title(title)
                .xAxisTitle("system").yAxisTitle("microseconds per GET (log)").build();
        CategoryStyler st = c.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideNW);
        st.setXAxisLabelRotation(30);
        st.setToolTipsEnabled(false);
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        c.getStyler().setOverlapped(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min / 2))));
        c.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(max * 1.5))));
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        List<Color> used = new ArrayList<>();
        for (int k = 0; k < kinds.length; k++) {
            String kind = kinds[k];
            List<Double> ys = new ArrayList<>();
            boolean any = false;
            for (Row r : measured) {
                boolean mine = r.system().kind().equals(kind);
                any |= mine;
                ys.add(mine ? r.medianMicros() : Double.NaN);
            }
            if (any) {
                c.addSeries(names[k], new ArrayList<>(xs), ys);
                used.add(colors[k]);
            }
        }
        st.setSeriesColors(used.toArray(new Color[0]));
        try {
            BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
            return null;
        } catch (Exception | Error e) {
            return e.toString();
        }
    }

    /**
     * Renders the report of a results directory again.
     *
     * @param args the results directory
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        write(Path.of(args[0]));
    }
}
