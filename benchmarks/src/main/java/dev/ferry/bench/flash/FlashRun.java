package dev.ferry.bench.flash;

import dev.ferry.bench.report.FlashReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs the reproduction planned by {@link FlashPlan} and writes its results directory:
 * {@code raw/<nn>-<workload>-t<threads>-<api>-r<repeat>p<position>.txt} (everything the run printed,
 * after a header with its command, repeat and place in the order) and {@code .jsonl} (its result
 * lines), {@code runs.tsv} (one line per run: kind, tool, workload, threads, repeat, position, exit
 * status, seconds, command), {@code plan.txt} (mode, sizes and why, repeats, data directory), then
 * the report ({@link FlashReport}). Every run is its own process: C++
 * db_bench through {@code dev.ferry.bench.dbbench.CppDbBench}, the Java tool in a fresh JVM that
 * loads the engine from the directory of C++ db_bench's engine file ({@code -Djava.library.path}),
 * so both sides map the very same file.
 *
 * <p>Usage (normally through {@code ./ferry reproduce flash}): {@code FlashRun --mode quick|full
 * --out DIR --data DIR --java JAVA --jar JAR --cpp DB_BENCH [--num N] [--duration S] [--only
 * fillseq,readrandom,...] [--threads 1,2,32] [--apis rocksjava,ferry-jni,...] [--repeat N] [--keep-db]}.
 *
 * <p>Thread safety: one run per process.
 */
public final class FlashRun {
    private static final List<String> JVM = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
    private static final Pattern OPS = Pattern.compile("\"kind\":\"run\".*?\"ops_per_sec\":([0-9.E]+)");

    private FlashRun() {
    }

    /**
     * Runs the reproduction.
     *
     * @param args see the class comment
     * @throws Exception when a step cannot start or the results cannot be written
     */
    public static void main(String[] args) throws Exception {
        FlashPlan.Mode mode = FlashPlan.Mode.QUICK;
        Path out = null;
        Path data = null;
        String java = null;
        String jar = null;
        Path cpp = null;
        long num = 0;
        int duration = 0;
        List<String> only = FlashPlan.WORKLOADS;
        List<Integer> threads = List.of();
        List<String> apis = null;
        boolean keep = false;
        int repeats = 1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--mode" -> mode = FlashPlan.Mode.valueOf(args[++i].toUpperCase(Locale.ROOT));
                case "--out" -> out = Path.of(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--java" -> java = args[++i];
                case "--jar" -> jar = args[++i];
                case "--cpp" -> cpp = Path.of(args[++i]);
                case "--num" -> num = Long.parseLong(args[++i]);
                case "--duration" -> duration = Integer.parseInt(args[++i]);
                case "--only" -> only = List.of(args[++i].split(","));
                case "--threads" -> threads = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--apis" -> apis = List.of(args[++i].split(","));
                case "--repeat" -> repeats = Integer.parseInt(args[++i]);
                case "--keep-db" -> keep = true;
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        if (repeats < 1) {
            throw new IllegalArgumentException("--repeat must be at least 1");
        }
        if (out == null || data == null || java == null || jar == null || cpp == null) {
            throw new IllegalArgumentException("--out, --data, --java, --jar and --cpp are required");
        }
        for (String w : only) {
            if (!FlashPlan.WORKLOADS.contains(w)) {
                throw new IllegalArgumentException("unknown workload " + w + " (" + FlashPlan.WORKLOADS + ")");
            }
        }
        Files.createDirectories(out.resolve("raw"));
        Files.createDirectories(data);
        FileStore store = Files.getFileStore(data);
        long free = store.getUsableSpace();
        FlashPlan.Sizes sizes = FlashPlan.sizes(mode, free, num, duration);
        int cores = Runtime.getRuntime().availableProcessors();
        List<String> fillApis = apis != null ? apis.stream().filter(x -> !x.startsWith("rocksjava-")).toList()
                : List.of("rocksjava", "ferry-jni", "ferry-ffm");
        List<String> readerApis = apis != null ? apis : mode == FlashPlan.Mode.FULL
                ? List.of("rocksjava", "rocksjava-reuse", "rocksjava-direct", "ferry-jni", "ferry-ffm")
                : List.of("rocksjava", "rocksjava-reuse", "ferry-jni", "ferry-ffm");
        List<FlashPlan.Run> runs = FlashPlan.runs(sizes, cores, data, fillApis, readerApis, only, threads, repeats);
        Instant started = Instant.now();
        List<String> plan = new ArrayList<>(List.of(
                "mode: " + mode.name().toLowerCase(Locale.ROOT),
                "num: " + sizes.num(),
                "duration: " + sizes.durationSeconds(),
                "seq_reads_total: " + sizes.seqReadsTotal(),
                "seq_warmup: " + sizes.seqWarmup(),
                "why: " + sizes.why(),
                "workloads: " + String.join(",", only),
                "reader_threads: " + (threads.isEmpty() ? FlashPlan.readerThreads(cores) : threads).toString().replaceAll("[\\[\\] ]", ""),
                "cores: " + cores,
                "fill_apis: " + String.join(",", fillApis),
                "reader_apis: " + String.join(",", readerApis),
                "repeats: " + repeats,
                "data_dir: " + data.toAbsolutePath(),
                "data_fs: " + store.type() + " (" + store.name() + ")",
                "free_bytes: " + free,
                "cpp_db_bench: " + cpp,
                "java_library_path: " + cpp.toAbsolutePath().getParent(),
                "runs: " + runs.size(),
                "started: " + started.truncatedTo(ChronoUnit.SECONDS)));
        Files.write(out.resolve("plan.txt"), plan, StandardCharsets.UTF_8);
        Path tsv = out.resolve("runs.tsv");
        Files.writeString(tsv, "index\tkind\tapi\tworkload\tthreads\trepeat\tposition\texit\tseconds\tstem\tcommand\n", StandardCharsets.UTF_8);
        System.out.printf(Locale.ROOT, "flash: %s, %,d entries (about %.1f GB per database), %d runs (%d repeat%s); results in %s%n",
                mode.name().toLowerCase(Locale.ROOT), sizes.num(), sizes.dbBytes() / 1e9, runs.size(), repeats, repeats == 1 ? "" : "s", out);
        int failed = 0;
        for (FlashPlan.Run r : runs) {
            prepareDb(r, data.resolve("shared"));
            List<String> cmd = command(r, java, jar, cpp, out);
            Path raw = out.resolve("raw").resolve(r.stem() + ".txt");
            Files.writeString(raw, "# " + r.kind() + " " + r.workload() + " threads=" + r.threads() + " api=" + r.api() + " repeat=" + r.repeat()
                    + " position=" + r.position() + "\n# command: "
                    + shell(cmd) + "\n", StandardCharsets.UTF_8);
            long t0 = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(raw.toFile())).start();
            int rc;
            if (!p.waitFor(4, TimeUnit.HOURS)) {
                p.destroyForcibly();
                rc = -1;
            } else {
                rc = p.exitValue();
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            Files.writeString(tsv, r.index() + "\t" + r.kind() + "\t" + r.api() + "\t" + r.workload() + "\t" + r.threads() + "\t" + r.repeat() + "\t"
                    + r.position() + "\t" + rc + "\t"
                    + String.format(Locale.ROOT, "%.1f", secs) + "\t" + r.stem() + "\t" + shell(cmd) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.APPEND);
            String ops = "";
            Path json = out.resolve("raw").resolve(r.stem() + ".jsonl");
            if (Files.exists(json)) {
                for (String l : Files.readAllLines(json)) {
                    Matcher m = OPS.matcher(l);
                    if (m.find()) {
                        ops = String.format(Locale.ROOT, "%,.0f ops/s", Double.parseDouble(m.group(1)));
                    }
                }
            }
            if (rc != 0) {
                failed++;
            }
            System.out.printf(Locale.ROOT, "[%s] %d/%d r%d %-16s t=%-2d %-16s %s (%.1f s)%s%n", LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")),
                    r.index(), runs.size(), r.repeat(), r.workload(), r.threads(), r.api(), rc == 0 ? ops : "FAILED, exit " + rc, secs,
                    rc == 0 ? "" : " see " + raw);
            if (!r.dbSetup().equals("shared") && !r.db().equals(data.resolve("shared"))) {
                delete(r.db());
            }
        }
        if (!keep) {
            delete(data.resolve("shared"));
        }
        Instant finished = Instant.now();
        Files.writeString(out.resolve("plan.txt"), "finished: " + finished.truncatedTo(ChronoUnit.SECONDS) + "\nwall_seconds: "
                + ChronoUnit.SECONDS.between(started, finished) + "\nfailed_runs: " + failed + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        FlashReport.main(new String[] {out.toString()});
        if (failed > 0) {
            System.out.println("flash: " + failed + " run(s) failed; their output is in " + out.resolve("raw"));
            System.exit(1);
        }
    }

    /** The process of one run: C++ db_bench through its Java wrapper, or the Java tool in a fresh JVM. */
    static List<String> command(FlashPlan.Run r, String java, String jar, Path cpp, Path out) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(JVM);
        String json = "--json=" + out.resolve("raw").resolve(r.stem() + ".jsonl");
        if (r.api().equals(FlashPlan.CPP)) {
            cmd.add("-Dferry.dbbench.cpp=" + cpp);
            cmd.addAll(List.of("-cp", jar, "dev.ferry.bench.dbbench.CppDbBench"));
        } else {
            // RocksJava loads librocksdbjni-linux64.so from java.library.path before extracting its own copy
            cmd.add("-Djava.library.path=" + cpp.toAbsolutePath().getParent());
            cmd.addAll(List.of("-cp", jar, "dev.ferry.bench.dbbench.DbBench", "--api=" + r.api()));
        }
        cmd.addAll(r.args());
        cmd.add(json);
        return cmd;
    }

    /** Quotes a command for a POSIX shell where needed. */
    static String shell(List<String> cmd) {
        StringBuilder b = new StringBuilder();
        for (String a : cmd) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(a.matches("[A-Za-z0-9_./=:,@%+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return b.toString();
    }

    private static void prepareDb(FlashPlan.Run r, Path shared) throws IOException {
        switch (r.dbSetup()) {
            case "fresh" -> delete(r.db());
            case "copy" -> {
                delete(r.db());
                copyDb(shared, r.db());
            }
            default -> { }
        }
    }

    /**
     * Copies a closed RocksDB database: table files (never modified once written) are hard links,
     * everything else is copied.
     */
    static void copyDb(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path f : s.toList()) {
                Path t = to.resolve(f.getFileName());
                if (f.getFileName().toString().endsWith(".sst")) {
                    try {
                        Files.createLink(t, f);
                        continue;
                    } catch (IOException | UnsupportedOperationException e) {
                        // another file system or no hard links: copy
                    }
                }
                if (!f.getFileName().toString().equals("LOCK")) {
                    Files.copy(f, t);
                }
            }
        }
    }

    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
