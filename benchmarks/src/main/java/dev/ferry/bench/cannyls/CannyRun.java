package dev.ferry.bench.cannyls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Runs the CannyLS reproduction planned by {@link CannyPlan} and writes its results directory: the
 * workloads ({@code workloads/<size>-<phase>.json}, made by {@code ekvsb workload} when ekvsb is
 * there, else by {@link Ekvsb#generate}), every run's result JSON and log ({@code
 * raw/<size>-<backend>-<phase>.json|.log}), {@code cells.tsv} (one line per size x backend x phase:
 * status, the summary, LOAD seconds) and the report ({@link CannyReport}).
 *
 * <p>Every phase is its own process: ekvsb's backends through {@code ekvsb run}, Ferry's through
 * {@link Replay} in a fresh JVM; both read the same workload file. Before each phase the page cache is
 * dropped ({@code sync; echo 3 > /proc/sys/vm/drop_caches}) when this process may; the report says
 * whether it could. One backend's data is deleted before the next backend starts.
 *
 * <p>Usage (normally through {@code ./ferry reproduce cannyls}): {@code CannyRun --mode quick|full --out DIR
 * --data DIR --java JAVA --jar JAR [--ekvsb PATH] [--no-ekvsb REASON] [--sizes 100KB:1000,...]
 * [--backends a,b] [--binding jni|ffm] [--seed S]}.
 *
 * <p>Thread safety: one run per process.
 */
public final class CannyRun {
    private static final List<String> JVM = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
    private static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");

    private CannyRun() {
    }

    /**
     * One measured cell.
     *
     * @param size the value size
     * @param backend the backend
     * @param phase one of {@link CannyPlan#PHASES}
     * @param status "ok", or why it did not run or failed
     * @param summary the summary of a task phase (null for LOAD and failures)
     * @param loadSeconds LOAD's seconds (NaN for the task phases)
     * @param ekvsbAgrees for a task phase measured with ekvsb present: whether {@code ekvsb summary} printed
     *     the same summary as {@link Ekvsb#summarize}; null when not checked
     */
    public record Cell(CannyPlan.Size size, String backend, String phase, String status, Ekvsb.Summary summary,
            double loadSeconds, Boolean ekvsbAgrees) {
    }

    /**
     * Runs the reproduction.
     *
     * @param args see the class comment
     * @throws Exception when a step cannot start or the results cannot be written
     */
    public static void main(String[] args) throws Exception {
        String mode = "quick";
        Path out = null;
        Path data = null;
        String java = null;
        String jar = null;
        String ekvsb = null;
        String noEkvsb = "ekvsb was not given (--ekvsb)";
        String sizes = null;
        String backends = null;
        String binding = null;
        String seed = "ferry-cannyls";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> mode = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--jar" -> jar = args[++i];
                case "--ekvsb" -> ekvsb = args[++i];
                case "--no-ekvsb" -> noEkvsb = args[++i];
                case "--sizes" -> sizes = args[++i];
                case "--backends" -> backends = args[++i];
                case "--binding" -> binding = args[++i];
                case "--seed" -> seed = args[++i];
                default -> throw new IllegalArgumentException("CannyRun: unknown argument " + args[i]);
            }
        }
        if (out == null || data == null || java == null || jar == null) {
            throw new IllegalArgumentException("CannyRun: --out, --data, --java and --jar are required");
        }
        CannyPlan plan = CannyPlan.of(mode);
        if (sizes != null) {
            plan = new CannyPlan(mode, CannyPlan.parseSizes(sizes), plan.backends());
        }
        if (backends != null) {
            List<String> bs = Arrays.asList(backends.split(","));
            for (String b : bs) {
                if (!CannyPlan.ALL_BACKENDS.contains(b)) {
                    throw new IllegalArgumentException("unknown backend '" + b + "' (known: " + CannyPlan.ALL_BACKENDS + ")");
                }
            }
            plan = new CannyPlan(mode, plan.sizes(), bs);
        }
        new CannyRun.Runner(plan, out, data, java, jar, ekvsb, noEkvsb, binding, seed).run();
    }

    /** The state of one run. */
    private static final class Runner {
        private final CannyPlan plan;
        private final Path out;
        private final Path data;
        private final String java;
        private final String jar;
        private final String ekvsb;
        private final String noEkvsb;
        private final String binding;
        private final String seed;
        private final List<Cell> cells = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();
        private boolean dropped = true;
        private String dropWhy = "";
        private int done;

        Runner(CannyPlan plan, Path out, Path data, String java, String jar, String ekvsb, String noEkvsb, String binding, String seed) {
            this.plan = plan;
            this.out = out;
            this.data = data;
            this.java = java;
            this.jar = jar;
            this.ekvsb = ekvsb;
            this.noEkvsb = noEkvsb;
            this.binding = binding;
            this.seed = seed;
        }

        void run() throws Exception {
            Path raw = Files.createDirectories(out.resolve("raw"));
            Path wl = Files.createDirectories(out.resolve("workloads"));
            Files.createDirectories(data);
            Path empty = wl.resolve("empty.json");
            Files.writeString(empty, "[]\n");
            int total = plan.sizes().size() * plan.backends().size() * CannyPlan.PHASES.size();
            progress("plan: " + plan.mode() + ", sizes " + describe(plan.sizes()) + ", backends " + plan.backends() + ", "
                    + total + " phases; ekvsb " + (ekvsb != null ? ekvsb : "absent: " + noEkvsb));
            for (CannyPlan.Size size : plan.sizes()) {
                workloads(size, wl);
                for (String backend : plan.backends()) {
                    Path dir = data.resolve(size.label() + "-" + backend);
                    deleteTree(dir);
                    for (String phase : CannyPlan.PHASES) {
                        Cell c = phase(size, backend, phase, dir, wl, empty, raw);
                        cells.add(c);
                        done++;
                        progress(String.format(Locale.ROOT, "(%d/%d) %s %s %s: %s", done, total, size.label(), backend, phase, brief(c)));
                    }
                    deleteTree(dir);
                }
            }
            if (!dropped) {
                notes.add("The page cache could not be dropped before the phases (" + dropWhy + "): reads may have been served "
                        + "from memory.");
            }
            writeCells(out.resolve("cells.tsv"));
            CannyReport.write(out, plan, cells, dropped, ekvsb != null ? null : noEkvsb, notes);
            progress("report: " + out.resolve("report.md"));
        }

        private void workloads(CannyPlan.Size size, Path wl) throws Exception {
            int n = size.count();
            int k = size.sample();
            String[][] specs = {
                {"put-new", "put", Integer.toString(n), null},
                {"put-update", "put", Integer.toString(k), "update"},
                {"get", "get", Integer.toString(k), "get"},
                {"delete", "delete", Integer.toString(k), "delete"},
            };
            for (String[] sp : specs) {
                Path f = wl.resolve(size.label() + "-" + sp[0] + ".json");
                if (ekvsb != null) {
                    List<String> cmd = new ArrayList<>(List.of(ekvsb, "workload", sp[1], "--count", sp[2], "--population-size",
                            Integer.toString(n), "--key-size", Integer.toString(CannyPlan.KEY_SIZE), "--seed", seed));
                    if (sp[1].equals("put")) {
                        cmd.addAll(List.of("--value-size", size.label()));
                    }
                    if (sp[3] != null) {
                        cmd.addAll(List.of("--shuffle", sp[3]));
                    }
                    Process p = new ProcessBuilder(cmd).redirectOutput(f.toFile())
                            .redirectError(ProcessBuilder.Redirect.appendTo(wl.resolve("workloads.log").toFile())).start();
                    if (p.waitFor() != 0) {
                        throw new IOException("ekvsb workload failed: " + String.join(" ", cmd) + " (see " + wl.resolve("workloads.log") + ")");
                    }
                    List<Ekvsb.Task> tasks = Ekvsb.readWorkload(f);
                    if (tasks.size() != Integer.parseInt(sp[2])) {
                        throw new IOException(f + ": " + tasks.size() + " tasks, wanted " + sp[2]);
                    }
                } else {
                    Ekvsb.Method m = Ekvsb.Method.valueOf(sp[1].toUpperCase(Locale.ROOT));
                    List<Ekvsb.Task> tasks = Ekvsb.generate(m, Integer.parseInt(sp[2]), n, CannyPlan.KEY_SIZE, size.bytes(),
                            seed.hashCode(), sp[3] == null ? null : (long) sp[3].hashCode());
                    Files.writeString(f, Ekvsb.workloadJson(tasks));
                }
            }
        }

        private Cell phase(CannyPlan.Size size, String backend, String phase, Path dir, Path wl, Path empty, Path raw)
                throws Exception {
            boolean viaEkvsb = CannyPlan.EKVSB_BACKENDS.contains(backend);
            if (viaEkvsb && ekvsb == null) {
                return new Cell(size, backend, phase, "not run: " + noEkvsb, null, Double.NaN, null);
            }
            dropCaches();
            String name = size.label() + "-" + backend + "-" + phase;
            Path result = raw.resolve(name + ".json");
            Path log = raw.resolve(name + ".log");
            Path workload = phase.equals("load") ? empty : wl.resolve(size.label() + "-" + phase + ".json");
            List<String> cmd = new ArrayList<>();
            if (viaEkvsb) {
                cmd.add(ekvsb);
                cmd.add("run");
                switch (backend) {
                    case "cannyls", "cannyls-sync" -> {
                        Files.createDirectories(dir);
                        // room for every value plus the updates, with slack for CannyLS's own records
                        long capacity = size.dataBytes() * 3 / 2 + (256L << 20);
                        cmd.addAll(List.of("cannyls", dir.resolve("store.lusf").toString(), "--capacity", capacity + "B"));
                        if (backend.equals("cannyls-sync")) {
                            cmd.addAll(List.of("--journal-sync-interval", "1"));
                        }
                    }
                    case "fs" -> cmd.addAll(List.of("builtin-fs", dir.toString()));
                    case "rocksdb" -> cmd.addAll(List.of("rocksdb", dir.toString()));
                    default -> throw new AssertionError(backend);
                }
            } else {
                cmd.add(java);
                cmd.addAll(JVM);
                cmd.addAll(List.of("-cp", jar, Replay.class.getName(), "--backend", backend, "--db", dir.toString(),
                        "--max-value", Integer.toString(size.bytes()), "--map-size", Long.toString(size.dataBytes() * 3 / 2 + (64L << 20))));
                if (binding != null) {
                    cmd.addAll(List.of("--binding", binding));
                }
                if (phase.equals("load")) {
                    cmd.add("--load");
                } else {
                    cmd.addAll(List.of("--workload", workload.toString(), "--out", result.toString()));
                }
            }
            Files.writeString(log, "command: " + String.join(" ", cmd) + "\n");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(workload.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
            Path stdout = viaEkvsb ? result : raw.resolve(name + ".out");
            pb.redirectOutput(stdout.toFile());
            long start = System.nanoTime();
            int rc = pb.start().waitFor();
            double wall = (System.nanoTime() - start) / 1e9;
            if (rc != 0) {
                return new Cell(size, backend, phase, "failed (exit " + rc + "): " + lastLine(log), null, Double.NaN, null);
            }
            if (phase.equals("load")) {
                double secs = wall;
                if (!viaEkvsb) {
                    secs = Double.NaN;
                    for (String line : Files.readAllLines(stdout)) {
                        if (line.startsWith("LOAD ")) {
                            secs = Double.parseDouble(line.substring(5).trim());
                        }
                    }
                }
                Files.deleteIfExists(viaEkvsb ? result : stdout);
                return new Cell(size, backend, phase, "ok", null, secs, null);
            }
            Ekvsb.Summary s = Ekvsb.summarize(Ekvsb.readResults(result));
            Boolean agrees = null;
            if (ekvsb != null) {
                Process p = new ProcessBuilder(ekvsb, "summary").redirectInput(result.toFile())
                        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
                String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (p.waitFor() == 0) {
                    Files.writeString(raw.resolve(name + ".summary.json"), json);
                    agrees = same(s, Ekvsb.parseSummary(json));
                }
            }
            return new Cell(size, backend, phase, "ok", s, Double.NaN, agrees);
        }

        private void dropCaches() {
            if (!dropped) {
                return;
            }
            try {
                new ProcessBuilder("sync").inheritIO().start().waitFor();
                Files.writeString(DROP_CACHES, "3\n", StandardOpenOption.WRITE);
            } catch (IOException | InterruptedException | SecurityException e) {
                dropped = false;
                dropWhy = e.getMessage() == null ? e.toString() : e.getMessage();
            }
        }

        private void writeCells(Path f) throws IOException {
            StringBuilder b = new StringBuilder("size\tbackend\tphase\tstatus\toks\terrors\texists\tabsents\tunknowns\telapsed_s\tops"
                    + "\tmin_s\tmedian_s\tp95_s\tp99_s\tmax_s\tload_s\tekvsb_summary_agrees\n");
            for (Cell c : cells) {
                Ekvsb.Summary s = c.summary();
                b.append(c.size().label()).append('\t').append(c.backend()).append('\t').append(c.phase()).append('\t')
                        .append(c.status().replace('\t', ' ').replace('\n', ' '));
                if (s != null) {
                    b.append(String.format(Locale.ROOT, "\t%d\t%d\t%d\t%d\t%d\t%.6f\t%.3f\t%.9f\t%.9f\t%.9f\t%.9f\t%.9f\t",
                            s.oks(), s.errors(), s.exists(), s.absents(), s.unknowns(), s.elapsed(), s.ops(), s.min(), s.median(),
                            s.p95(), s.p99(), s.max()));
                } else {
                    b.append("\t\t\t\t\t\t\t\t\t\t\t\t\t");
                }
                b.append(Double.isNaN(c.loadSeconds()) ? "" : String.format(Locale.ROOT, "%.6f", c.loadSeconds()));
                b.append('\t').append(c.ekvsbAgrees() == null ? "" : c.ekvsbAgrees().toString()).append('\n');
            }
            Files.writeString(f, b);
        }
    }

    /**
     * Whether two summaries agree: counts exactly, times within a nanosecond (ekvsb prints them rounded).
     *
     * @param a one summary
     * @param b the other
     * @return true when they agree
     */
    static boolean same(Ekvsb.Summary a, Ekvsb.Summary b) {
        double eps = 1e-9;
        return a.oks() == b.oks() && a.errors() == b.errors() && a.exists() == b.exists() && a.absents() == b.absents()
                && a.unknowns() == b.unknowns() && Math.abs(a.elapsed() - b.elapsed()) <= eps * Math.max(1, a.oks() + a.errors())
                && Math.abs(a.min() - b.min()) <= eps && Math.abs(a.median() - b.median()) <= eps
                && Math.abs(a.p95() - b.p95()) <= eps && Math.abs(a.p99() - b.p99()) <= eps && Math.abs(a.max() - b.max()) <= eps;
    }

    private static String brief(Cell c) {
        if (!c.status().equals("ok")) {
            return c.status();
        }
        if (c.summary() == null) {
            return String.format(Locale.ROOT, "%.3f s", c.loadSeconds());
        }
        return String.format(Locale.ROOT, "median %.3f ms, p99 %.3f ms, %d errors", c.summary().median() * 1e3, c.summary().p99() * 1e3,
                c.summary().errors());
    }

    private static String describe(List<CannyPlan.Size> sizes) {
        StringBuilder b = new StringBuilder();
        for (CannyPlan.Size s : sizes) {
            b.append(b.length() == 0 ? "" : ", ").append(s.label()).append(" x ").append(s.count()).append(" (sample ").append(s.sample())
                    .append(')');
        }
        return b.toString();
    }

    private static void progress(String line) {
        System.out.println("[" + LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + "] " + line);
        System.out.flush();
    }

    private static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    String l = lines.get(i).strip();
                    return l.length() > 300 ? l.substring(0, 300) + "..." : l;
                }
            }
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
        return "(empty log)";
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> w = Files.walk(dir)) {
            for (Path p : w.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
