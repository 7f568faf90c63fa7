package dev.ferry.bench.million;

import dev.ferry.bench.store.MariaDbServer;
import dev.ferry.bench.store.KvStore;
import dev.ferry.bench.store.Stores;
import dev.ferry.bench.report.MillionReport;
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
 * Runs "One in a Million" ({@link MillionPlan}) and writes its results directory: {@code raw/<system>-r<round>.txt}
 * (each run's output), {@code results.tsv} (one line per run), {@code plan.txt}, then the report
 * ({@link MillionReport}). Every run is its own JVM ({@code --child}): it opens a fresh store, loads the
 * entries in random order in batches, then times {@link MillionPlan#REPEATS} x the GETs, checks every
 * value, closes and measures the storage. MariaDB runs on a private server started here ({@link
 * MariaDbServer}) and stopped at the end; when it cannot be started its row says why.
 *
 * <p>Usage (normally through {@code ./ferry reproduce million}): {@code MillionRun --mode quick|full --out DIR
 * --data DIR --java JAVA --jar JAR [--systems a,b] [--rounds N] [--entries N] [--gets N]}. A child: {@code
 * MillionRun --child SYSTEM --dir DIR --entries N --gets N --round R [--mariadb URL]}.
 *
 * <p>Thread safety: one run per process.
 */
public final class MillionRun {
    /** The children's JVM flags: Ferry's and RocksJava's native access, lmdbjava's opens, room for a million entries on the heap. */
    static final List<String> JVM = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "-Xmx3g");
    static final long SEED = 20140110L;

    private MillionRun() {
    }

    /**
     * Runs the reproduction, or one child run.
     *
     * @param args see the class comment
     * @throws Exception when a step cannot start or the results cannot be written
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args);
            return;
        }
        MillionPlan.Mode mode = MillionPlan.Mode.QUICK;
        Path out = null;
        Path data = null;
        String java = null;
        String jar = null;
        List<String> systems = MillionPlan.runnable();
        int rounds = 0;
        int entries = MillionPlan.ENTRIES;
        int gets = MillionPlan.GETS;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mode" -> mode = MillionPlan.Mode.valueOf(args[++i].toUpperCase(Locale.ROOT));
                case "--out" -> out = Path.of(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--jar" -> jar = args[++i];
                case "--systems" -> systems = List.of(args[++i].split(","));
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--entries" -> entries = Integer.parseInt(args[++i]);
                case "--gets" -> gets = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null || data == null || java == null || jar == null) {
            throw new IllegalArgumentException("--out, --data, --java and --jar are required");
        }
        for (String s : systems) {
            if (!MillionPlan.system(s).runs()) {
                throw new IllegalArgumentException(s + " is not run here: " + MillionPlan.NOT_RUN_WHY);
            }
        }
        if (rounds == 0) {
            rounds = mode.rounds();
        }
        List<MillionPlan.Run> runs = MillionPlan.runs(systems, rounds);
        Files.createDirectories(out.resolve("raw"));
        Files.createDirectories(data);
        Files.writeString(out.resolve("plan.txt"), String.join("\n",
                "mode: " + mode.name().toLowerCase(Locale.ROOT),
                "entries: " + entries,
                "gets: " + gets,
                "repeats: " + MillionPlan.REPEATS,
                "batch: " + MillionPlan.BATCH,
                "rounds: " + rounds,
                "seed: " + SEED,
                "systems: " + String.join(",", systems),
                "jvm: " + String.join(" ", JVM)) + "\n");
        Path tsv = out.resolve("results.tsv");
        Files.writeString(tsv, "system\tround\tposition\tstatus\tload_s\tget_us\tbest_us\tstorage_bytes\tseconds\n");

        MariaDbServer server = null;
        String serverWhy = null;
        if (systems.contains("mariadb")) {
            String missing = MariaDbServer.missing();
            if (missing != null) {
                serverWhy = missing;
            } else {
                progress("starting a private MariaDB server (data in " + data.resolve("mariadb") + ")");
                try {
                    server = MariaDbServer.start(data.resolve("mariadb"));
                    Files.writeString(out.resolve("plan.txt"), "mariadb: " + server.version() + " (mariadbd --no-defaults, InnoDB defaults, TCP on 127.0.0.1)\n",
                            StandardOpenOption.APPEND);
                } catch (IOException e) {
                    serverWhy = "MariaDB server failed to start: " + e.getMessage();
                }
            }
            if (serverWhy != null) {
                progress("mariadb: " + serverWhy);
            }
        }
        Instant start = Instant.now();
        try {
            for (int i = 0; i < runs.size(); i++) {
                MillionPlan.Run r = runs.get(i);
                String eta = "";
                if (i > 0) {
                    long perRun = Duration.between(start, Instant.now()).toSeconds() / i;
                    eta = String.format(Locale.ROOT, ", about %d min left", (perRun * (runs.size() - i) + 59) / 60);
                }
                progress(String.format(Locale.ROOT, "[%d/%d] round %d/%d: %s%s", i + 1, runs.size(), r.round(), rounds, r.system(), eta));
                String line;
                if (r.system().equals("mariadb") && server == null) {
                    line = String.join("\t", r.system(), "" + r.round(), "" + r.position(), "failed: " + serverWhy.replace('\t', ' '), "", "", "", "", "0");
                } else {
                    line = runChild(r, java, jar, data, out, entries, gets, server);
                }
                Files.writeString(tsv, line + "\n", StandardOpenOption.APPEND);
                String[] f = line.split("\t", -1);
                progress("    " + (f[3].equals("ok") ? "best " + f[6] + " us/get (repeats " + f[5] + " us), load " + f[4] + " s" : f[3]));
            }
        } finally {
            if (server != null) {
                progress("stopping the MariaDB server");
                server.close();
                server.delete();
            }
        }
        MillionReport.write(out);
        progress("report: " + out.resolve("report.md"));
    }

    private static void progress(String s) {
        System.out.println("[" + java.time.LocalTime.now().withNano(0) + "] " + s);
        System.out.flush();
    }

    private static String runChild(MillionPlan.Run r, String java, String jar, Path data, Path out, int entries, int gets,
            MariaDbServer server) throws IOException, InterruptedException {
        Path dir = data.resolve(r.system() + "-r" + r.round());
        deleteTree(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(JVM);
        cmd.addAll(List.of("-cp", jar, MillionRun.class.getName(), "--child", r.system(), "--dir", dir.toString(),
                "--entries", "" + entries, "--gets", "" + gets, "--round", "" + r.round()));
        if (r.system().equals("mariadb")) {
            cmd.addAll(List.of("--mariadb", server.jdbcUrl()));
        }
        Path raw = out.resolve("raw").resolve(r.system() + "-r" + r.round() + ".txt");
        Files.writeString(raw, "# " + String.join(" ", cmd) + "\n");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(raw.toFile())).start();
        boolean done = p.waitFor(40, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly().waitFor();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        deleteTree(dir);
        String result = null;
        for (String l : Files.readAllLines(raw, StandardCharsets.UTF_8)) {
            if (l.startsWith("result\t")) {
                result = l;
            }
        }
        String base = String.join("\t", r.system(), "" + r.round(), "" + r.position());
        String secs = String.format(Locale.ROOT, "%.1f", seconds);
        if (result == null || !done || p.exitValue() != 0) {
            String why = !done ? "failed: no result in 40 min" : "failed: exit " + p.exitValue() + " (raw/" + raw.getFileName() + ")";
            return String.join("\t", base, why, "", "", "", "", secs);
        }
        // result \t load_s \t get_us(,,,) \t best_us \t storage_bytes
        String[] f = result.split("\t");
        return String.join("\t", base, "ok", f[1], f[2], f[3], f[4], secs);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One system's run in this JVM: load, time the GETs, check, close; prints one {@code result} line. */
    private static void child(String[] args) throws Exception {
        String system = args[1];
        Path dir = null;
        int entries = MillionPlan.ENTRIES;
        int gets = MillionPlan.GETS;
        int round = 1;
        String url = null;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--entries" -> entries = Integer.parseInt(args[++i]);
                case "--gets" -> gets = Integer.parseInt(args[++i]);
                case "--round" -> round = Integer.parseInt(args[++i]);
                case "--mariadb" -> url = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Stores.Servers servers = url == null ? Stores.Servers.NONE : new Stores.Servers(url, "ferry", "ferry");
        Measured m = measure(system, dir, servers, entries, gets, round);
        StringBuilder us = new StringBuilder();
        for (double u : m.getMicros()) {
            us.append(us.length() == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.4f", u));
        }
        System.out.println("java: " + System.getProperty("java.vm.name") + " " + Runtime.version());
        System.out.println(String.join("\t", "result", String.format(Locale.ROOT, "%.2f", m.loadSeconds()), us,
                String.format(Locale.ROOT, "%.4f", m.bestMicros()), "" + m.storageBytes()));
    }

    /**
     * One system's measurement.
     *
     * @param loadSeconds time to write the entries
     * @param getMicros average microseconds per GET of each repeat
     * @param storageBytes the store's storage after close (-1: in memory)
     */
    record Measured(double loadSeconds, double[] getMicros, long storageBytes) {
        /** @return the best (smallest) average of the repeats */
        double bestMicros() {
            return Arrays.stream(getMicros).min().orElse(Double.NaN);
        }
    }

    /**
     * Loads a fresh store of {@code system} and times the GETs (in this JVM).
     *
     * @param system the peer store's name
     * @param dir its directory
     * @param servers where server stores live
     * @param entries entries to load
     * @param gets GETs per repeat
     * @param round the round (picks the GET keys)
     * @return the measurement
     * @throws IllegalStateException when a GET returns a wrong or no value
     */
    static Measured measure(String system, Path dir, Stores.Servers servers, int entries, int gets, int round) {
        int[] order = MillionPlan.insertionOrder(entries, SEED);
        KvStore s = Stores.open(system, dir, servers);
        double load;
        double[] us = new double[MillionPlan.REPEATS];
        try {
            List<byte[]> keys = new ArrayList<>(MillionPlan.BATCH);
            long t0 = System.nanoTime();
            for (int i = 0; i < entries; i += MillionPlan.BATCH) {
                keys.clear();
                int end = Math.min(entries, i + MillionPlan.BATCH);
                for (int j = i; j < end; j++) {
                    keys.add(MillionPlan.key(order[j]));
                }
                s.write(keys, keys, 0, keys.size()); // value = key
            }
            load = (System.nanoTime() - t0) / 1e9;
            for (int rep = 1; rep <= MillionPlan.REPEATS; rep++) {
                int[] ints = MillionPlan.getKeys(entries, gets, SEED, round, rep);
                byte[][] ks = new byte[gets][];
                long expected = 0;
                for (int i = 0; i < gets; i++) {
                    ks[i] = MillionPlan.key(ints[i]);
                    expected += ints[i];
                }
                long sum = 0;
                long g0 = System.nanoTime();
                for (int i = 0; i < gets; i++) {
                    byte[] v = s.get(ks[i]);
                    sum += ((v[0] & 0xFF) << 24 | (v[1] & 0xFF) << 16 | (v[2] & 0xFF) << 8 | (v[3] & 0xFF)) + (v.length - 4);
                }
                long g1 = System.nanoTime();
                if (sum != expected) {
                    throw new IllegalStateException(system + ": the GETs' values sum to " + sum + ", the keys to " + expected);
                }
                us[rep - 1] = (g1 - g0) / 1e3 / gets;
            }
        } finally {
            s.close();
        }
        return new Measured(load, us, s.storageBytes());
    }
}
