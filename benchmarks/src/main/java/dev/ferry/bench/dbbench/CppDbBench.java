package dev.ferry.bench.dbbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs C++ db_bench (built by {@code benchmarks/cpp-dbbench/build.sh} against the rocksdbjni jar's
 * own {@code librocksdbjni-linux64.so}) with the command line given to {@code ./ferry dbbench},
 * echoes its output, and records what it ran on: the engine binary the process really mapped
 * (from {@code /proc/<pid>/maps}, with its SHA-256), printed as an {@code Engine:} line in the
 * Java tool's shape, and one JSON line per result (with {@code --json=FILE}) in the Java tool's
 * format, so the two sides' results can be put side by side.
 *
 * <p>Java-only flags are handled here: {@code --json} is taken, {@code --writes_per_second} becomes
 * {@code --benchmark_write_rate_limit} (times key plus value size), {@code --api} is dropped with a
 * note. Every other flag goes to C++ db_bench unchanged, which rejects what it does not know.
 *
 * <p>Usage: {@code ./ferry dbbench-cpp <db_bench flags>}; the program is found in
 * {@code -Dferry.dbbench.cpp=PATH}, else {@code ${XDG_CACHE_HOME:-$HOME/.cache}/ferry/db_bench-<version>/db_bench}.
 *
 * <p>Thread safety: one run per call.
 */
public final class CppDbBench {
    private static final Pattern RESULT = Pattern.compile(
            "^(\\S+)\\s*:\\s+([0-9.]+) micros/op (\\d+) ops/sec ([0-9.]+) seconds (\\d+) operations;(.*)$");
    private static final Pattern MB = Pattern.compile("^\\s*([0-9.]+) MB/s\\s*(.*)$");
    private static final Pattern PCT = Pattern.compile(
            "^Percentiles: P50: ([0-9.]+) P75: ([0-9.]+) P99: ([0-9.]+) P99\\.9: ([0-9.]+) P99\\.99: ([0-9.]+)");
    private static final Pattern COUNT = Pattern.compile("^Count: (\\d+) Average: ([0-9.]+)");
    private static final Pattern MINMAX = Pattern.compile("^Min: (\\d+)\\s+Median: [0-9.]+\\s+Max: (\\d+)");

    private CppDbBench() {
    }

    /**
     * The cached C++ db_bench of the RocksDB version RocksJava reports.
     *
     * @return its path, whether or not it exists
     */
    public static Path defaultBinary() {
        String p = System.getProperty("ferry.dbbench.cpp");
        if (p != null && !p.isEmpty()) {
            return Path.of(p);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path cache = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return cache.resolve("ferry").resolve("db_bench-" + rocksVersion()).resolve("db_bench");
    }

    /** @return RocksDB's version as RocksJava reports it, e.g. "11.8.1" */
    static String rocksVersion() {
        org.rocksdb.RocksDB.loadLibrary();
        return org.rocksdb.RocksDB.rocksdbVersion().toString();
    }

    /**
     * What a run gave.
     *
     * @param exitCode db_bench's exit status
     * @param engine the engine binary the process mapped, if seen
     * @param results JSON lines, one per result
     * @param stdout everything db_bench printed to stdout
     */
    public record Run(int exitCode, Optional<EngineBinary> engine, List<String> results, String stdout) {
    }

    /**
     * Runs C++ db_bench.
     *
     * @param binary the program
     * @param args the command line (Java-only flags allowed, see the class comment)
     * @param out where to echo db_bench's stdout and the Engine line (null: nowhere)
     * @param err where notes go
     * @return the run
     * @throws IOException when the program cannot start
     */
    public static Run run(Path binary, List<String> args, PrintStream out, PrintStream err) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        String json = "";
        long wps = 0;
        int keySize = 16;
        int valueSize = 100;
        int threads = 1;
        for (String a : args) {
            String[] kv = split(a);
            switch (kv[0]) {
                case "json" -> json = kv[1];
                case "api" -> err.println("note: --" + kv[0] + " is a Java-only flag; C++ db_bench runs without it");
                case "writes_per_second" -> wps = Long.parseLong(kv[1]);
                default -> {
                    if (kv[0].equals("key_size")) {
                        keySize = Integer.parseInt(kv[1]);
                    } else if (kv[0].equals("value_size")) {
                        valueSize = Integer.parseInt(kv[1]);
                    } else if (kv[0].equals("threads")) {
                        threads = Integer.parseInt(kv[1]);
                    }
                    cmd.add(a);
                }
            }
        }
        if (wps > 0) {
            cmd.add("--benchmark_write_rate_limit=" + wps * (keySize + valueSize));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        String pid = Long.toString(p.pid());
        Optional<EngineBinary> engine = Optional.empty();
        for (int i = 0; i < 2000 && engine.isEmpty() && p.isAlive(); i++) {
            engine = EngineBinary.ofProcess(pid);
            if (engine.isEmpty()) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (out != null) {
            out.println(engine.map(EngineBinary::line).orElse("Engine:     (not seen in /proc/" + pid + "/maps)"));
        }
        StringBuilder all = new StringBuilder();
        List<String> results = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            Json pending = null;
            String histOp = null;
            int warmupsLeft = 0;
            java.util.Map<String, Integer> runs = new java.util.HashMap<>();
            Pattern warm = Pattern.compile("^Warming up benchmark by running (\\d+) times");
            for (String line; (line = r.readLine()) != null;) {
                all.append(line).append('\n');
                if (out != null) {
                    out.println(line);
                    out.flush();
                }
                Matcher w = warm.matcher(line);
                if (w.find()) {
                    warmupsLeft = Integer.parseInt(w.group(1));
                }
                Matcher m = RESULT.matcher(line);
                if (m.matches()) {
                    if (pending != null) {
                        results.add(pending.toString());
                    }
                    String bench = m.group(1);
                    String extra = m.group(6);
                    Double mb = null;
                    Matcher mm = MB.matcher(extra);
                    if (mm.matches()) {
                        mb = Double.parseDouble(mm.group(1));
                        extra = mm.group(2);
                    }
                    String kind = warmupsLeft > 0 ? "warmup" : "run";
                    int index = runs.merge(bench + "/" + kind, 1, Integer::sum);
                    if (warmupsLeft > 0) {
                        warmupsLeft--;
                    }
                    pending = new Json().put("tool", "cpp-db_bench").put("api", "c++").put("benchmark", bench)
                            .put("kind", kind).put("index", index)
                            .put("micros_per_op", Double.parseDouble(m.group(2))).put("ops_per_sec", Long.parseLong(m.group(3)))
                            .put("seconds", Double.parseDouble(m.group(4))).put("operations", Long.parseLong(m.group(5)))
                            .put("mb_per_sec", mb).put("message", extra.strip())
                            .put("threads", bench.equals("readwhilewriting") ? threads + 1 : threads)
                            .put("key_size", keySize).put("value_size", valueSize)
                            .put("engine_path", engine.map(e -> e.path().toString()).orElse(null))
                            .put("engine_sha256", engine.map(EngineBinary::sha256).orElse(null))
                            .put("binary", binary.toString()).put("args", String.join(" ", args));
                    histOp = null;
                    continue;
                }
                if (pending != null && line.startsWith("Microseconds per ") && line.endsWith(":")) {
                    histOp = line.substring("Microseconds per ".length(), line.length() - 1);
                    continue;
                }
                if (pending != null && histOp != null) {
                    String pfx = "hist_" + histOp + "_";
                    Matcher c = COUNT.matcher(line);
                    Matcher mn = MINMAX.matcher(line);
                    Matcher pc = PCT.matcher(line);
                    if (c.find()) {
                        pending.put(pfx + "count", Long.parseLong(c.group(1))).put(pfx + "avg", Double.parseDouble(c.group(2)));
                    } else if (mn.find()) {
                        pending.put(pfx + "max", Long.parseLong(mn.group(2)));
                    } else if (pc.find()) {
                        pending.put(pfx + "p50", Double.parseDouble(pc.group(1))).put(pfx + "p75", Double.parseDouble(pc.group(2)))
                                .put(pfx + "p99", Double.parseDouble(pc.group(3))).put(pfx + "p99_9", Double.parseDouble(pc.group(4)))
                                .put(pfx + "p99_99", Double.parseDouble(pc.group(5)));
                    }
                }
            }
            if (pending != null) {
                results.add(pending.toString());
            }
        }
        int rc;
        try {
            rc = p.waitFor();
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            rc = 1;
        }
        if (!json.isEmpty() && !results.isEmpty()) {
            Path j = Path.of(json);
            if (j.toAbsolutePath().getParent() != null) {
                Files.createDirectories(j.toAbsolutePath().getParent());
            }
            Files.write(j, results, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return new Run(rc, engine, results, all.toString());
    }

    /** Splits "--name=value" into {name, value}; other arguments come back as {arg, ""}. */
    private static String[] split(String a) {
        String body = a.startsWith("--") ? a.substring(2) : a.startsWith("-") ? a.substring(1) : a;
        int eq = body.indexOf('=');
        return eq < 0 ? new String[] {body, ""} : new String[] {body.substring(0, eq), body.substring(eq + 1)};
    }

    /**
     * Runs C++ db_bench from the command line.
     *
     * @param args db_bench flags
     * @throws IOException when the program cannot start
     */
    public static void main(String[] args) throws IOException {
        Path bin = defaultBinary();
        if (!Files.isExecutable(bin)) {
            System.err.println("C++ db_bench not found at " + bin + ": run benchmarks/cpp-dbbench/build.sh");
            System.exit(1);
        }
        if (Arrays.asList(args).contains("--help")) {
            System.err.println(String.format(Locale.ROOT, "C++ db_bench: %s (its own --help follows)", bin));
        }
        Run r = run(bin, Arrays.asList(args), System.out, System.err);
        System.out.flush();
        System.exit(r.exitCode());
    }
}
