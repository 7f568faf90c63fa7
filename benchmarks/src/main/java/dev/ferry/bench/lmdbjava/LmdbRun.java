package dev.ferry.bench.lmdbjava;

import dev.ferry.bench.store.KvStore;
import dev.ferry.bench.store.Stores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs the LmdbJava suite's reproduction ({@link LmdbPlan}) and writes its results directory: {@code
 * raw/<n>-<group>-<store>.txt} (each case's output), {@code results.tsv} (one line per case and workload),
 * {@code plan.txt}, then the report ({@link LmdbReport}). Every case is its own JVM ({@code --child}, default
 * JVM settings apart from the flags the stores need, as the suite's JMH forks): per round it opens a fresh
 * store, times the write of every entry, then times each read workload {@code reads} times inside one read
 * run ({@link KvStore#readsBegin()}), closes; after the last round it measures the storage (POSIX allocated
 * bytes). A case's figure per workload is the best (smallest) of its samples, the median is kept beside it.
 *
 * <p>Usage (normally through {@code ./ferry reproduce lmdbjava}): {@code LmdbRun --mode quick|full --out DIR
 * --data DIR --java JAVA --jar JAR [--tests 4,5,2,1] [--stores a,b] [--entries N]}.
 *
 * <p>Thread safety: one run per process.
 */
public final class LmdbRun {
    /** The children's JVM flags: native access, lmdbjava's opens, Chronicle Map's exports and opens (PEERS.md). */
    static final List<String> JVM = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "-Dchronicle.analytics.disable=true",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED", "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED", "-Xmx6g");
    /** The header of results.tsv. */
    static final String HEADER = "test\tgroup\tstore\tnum\tval_size\tkey_size\tworkload\tstatus\tbest_ms\tmedian_ms\tsamples_ms\tresult\tstorage_bytes\tseconds";

    private LmdbRun() {
    }

    /**
     * Runs the reproduction, or one child.
     *
     * @param args see the class comment
     * @throws Exception when a step cannot start or the results cannot be written
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        LmdbPlan.Mode mode = LmdbPlan.Mode.QUICK;
        Path out = null;
        Path data = null;
        String java = null;
        String jar = null;
        List<String> tests = List.of("4", "5", "2", "1");
        List<String> stores = Stores.SUITE;
        int entries = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> mode = LmdbPlan.Mode.valueOf(args[++i].toUpperCase(Locale.ROOT));
                case "--out" -> out = Path.of(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--jar" -> jar = args[++i];
                case "--tests" -> tests = List.of(args[++i].split(","));
                case "--stores" -> stores = List.of(args[++i].split(","));
                case "--entries" -> entries = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null || data == null || java == null || jar == null) {
            throw new IllegalArgumentException("--out, --data, --java and --jar are required");
        }
        for (String s : stores) {
            if (!Stores.SUITE.contains(s)) {
                throw new IllegalArgumentException("unknown store " + s + " " + Stores.SUITE);
            }
        }
        List<LmdbPlan.Case> cases = LmdbPlan.cases(mode, tests, stores, entries);
        Files.createDirectories(out.resolve("raw"));
        Files.createDirectories(data);
        Files.writeString(out.resolve("plan.txt"), String.join("\n",
                "mode: " + mode.name().toLowerCase(Locale.ROOT),
                "tests: " + String.join(",", tests),
                "stores: " + String.join(",", stores),
                "cases: " + cases.size(),
                "rounds: " + mode.rounds() + " (fresh store, write, reads)",
                "reads: " + mode.reads() + " timed runs of each read workload per round",
                "figure: best of the samples (median kept in results.tsv)",
                "seed: " + LmdbPlan.SEED,
                "jvm: " + String.join(" ", JVM)) + "\n");
        Path tsv = out.resolve("results.tsv");
        Files.writeString(tsv, HEADER + "\n");
        Instant start = Instant.now();
        for (int i = 0; i < cases.size(); i++) {
            LmdbPlan.Case c = cases.get(i);
            String eta = "";
            if (i > 0) {
                long perCase = Duration.between(start, Instant.now()).toSeconds() / i;
                eta = String.format(Locale.ROOT, ", about %d min left", (perCase * (cases.size() - i) + 59) / 60);
            }
            progress(String.format(Locale.ROOT, "[%d/%d] %s%s", i + 1, cases.size(), LmdbPlan.describe(c), eta));
            List<String> lines = runChild(i + 1, c, mode, java, jar, data, out);
            Files.write(tsv, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            StringBuilder sb = new StringBuilder("    ");
            for (String l : lines) {
                String[] f = l.split("\t", -1);
                sb.append(f[6]).append(' ').append(f[7].equals("ok") ? f[8] + " ms" : f[7]).append("; ");
            }
            progress(sb.toString());
        }
        LmdbReport.write(out);
        progress("report: " + out.resolve("report.md"));
    }

    private static void progress(String s) {
        System.out.println("[" + java.time.LocalTime.now().withNano(0) + "] " + s);
        System.out.flush();
    }

    private static List<String> runChild(int n, LmdbPlan.Case c, LmdbPlan.Mode mode, String java, String jar, Path data, Path out)
            throws IOException, InterruptedException {
        Path dir = data.resolve("case");
        deleteTree(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(JVM);
        cmd.addAll(List.of("-cp", jar, LmdbRun.class.getName(), "--child", c.spec(), "--dir", dir.toString(), "--num", "" + c.num(),
                "--val-size", "" + c.valSize(), "--int-key", "" + c.intKey(), "--sequential", "" + c.sequential(), "--workloads",
                String.join(",", c.workloads()), "--rounds", "" + mode.rounds(), "--reads", "" + mode.reads()));
        Path raw = out.resolve("raw").resolve(String.format(Locale.ROOT, "%03d-%s-%s.txt", n, c.group(), c.store()));
        Files.writeString(raw, "# " + String.join(" ", cmd) + "\n");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(raw.toFile())).start();
        boolean done = p.waitFor(60, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly().waitFor();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        deleteTree(dir);
        List<String> rawLines = Files.readAllLines(raw, StandardCharsets.UTF_8);
        List<List<Double>> samples = new ArrayList<>();
        String[] results = new String[c.workloads().size()];
        for (int i = 0; i < c.workloads().size(); i++) {
            samples.add(new ArrayList<>());
        }
        String storage = "";
        String why = null;
        for (String l : rawLines) {
            String[] f = l.split("\t");
            if (f[0].equals("sample") && f.length == 5) {
                int w = c.workloads().indexOf(f[1]);
                samples.get(w).add(Double.parseDouble(f[3]));
                results[w] = f[4];
            } else if (f[0].equals("storage")) {
                storage = f[1];
            } else if (why == null && (l.startsWith("Exception") || l.startsWith("Caused by") || l.contains("Error:") || l.contains("Exception:"))
                    && !l.startsWith("WARNING")) {
                why = l.strip();
            }
        }
        boolean ok = done && p.exitValue() == 0;
        String status = ok ? "ok" : "failed: " + (!done ? "no result in 60 min" : (why == null ? "exit " + p.exitValue() : why)
                .replace('\t', ' ') + " (raw/" + raw.getFileName() + ")");
        List<String> lines = new ArrayList<>();
        for (int w = 0; w < c.workloads().size(); w++) {
            List<Double> s = samples.get(w);
            String best = "";
            String median = "";
            String st = status;
            if (!s.isEmpty()) {
                double[] a = s.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                best = fmt(a[0]);
                median = fmt(a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2);
                st = "ok"; // measured before a later step failed
            }
            StringBuilder all = new StringBuilder();
            for (double d : s) {
                all.append(all.length() == 0 ? "" : ",").append(fmt(d));
            }
            lines.add(String.join("\t", c.test(), c.group(), c.store(), "" + c.num(), "" + c.valSize(), "" + (c.intKey() ? 4 : SuiteData.STRING_KEY),
                    c.workloads().get(w), s.isEmpty() ? status : st, best, median, all, results[w] == null ? "" : results[w],
                    ok ? storage : "", String.format(Locale.ROOT, "%.1f", seconds)));
        }
        return lines;
    }

    private static String fmt(double ms) {
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One case in this JVM: rounds of fresh store, write, reads; prints {@code sample} lines and a {@code storage} line. */
    private static void child(String[] args) throws Exception {
        String spec = args[1];
        Path dir = null;
        int num = 0;
        int valSize = 100;
        boolean intKey = true;
        boolean sequential = true;
        List<String> workloads = Workloads.ALL;
        int rounds = 1;
        int reads = 1;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--num" -> num = Integer.parseInt(args[++i]);
                case "--val-size" -> valSize = Integer.parseInt(args[++i]);
                case "--int-key" -> intKey = Boolean.parseBoolean(args[++i]);
                case "--sequential" -> sequential = Boolean.parseBoolean(args[++i]);
                case "--workloads" -> workloads = Arrays.asList(args[++i].split(","));
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--reads" -> reads = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        SuiteData d = new SuiteData(num, intKey, sequential, valSize, false, LmdbPlan.SEED);
        System.out.println("java: " + System.getProperty("java.vm.name") + " " + Runtime.version());
        System.out.println("store: " + spec);
        long storage = -1;
        for (int r = 1; r <= rounds; r++) {
            deleteTree(dir);
            KvStore s = Stores.open(spec, dir, Stores.Servers.NONE);
            try {
                for (String w : workloads) {
                    int times = w.equals("write") ? 1 : reads;
                    if (!w.equals("write")) {
                        s.readsBegin();
                    }
                    for (int t = 0; t < times; t++) {
                        long t0 = System.nanoTime();
                        long result = Workloads.run(w, s, d);
                        double ms = (System.nanoTime() - t0) / 1e6;
                        System.out.println(String.join("\t", "sample", w, "" + r, fmt(ms), "" + result));
                    }
                    s.readsEnd();
                }
            } finally {
                s.close();
            }
            if (r == rounds) {
                storage = s.storageBytes();
            }
        }
        System.out.println("storage\t" + storage);
    }
}
