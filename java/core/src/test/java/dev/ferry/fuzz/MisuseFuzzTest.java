package dev.ferry.fuzz;

import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import dev.ferry.Matrix;
import dev.ferry.MatrixTest;
import dev.ferry.Target;
import org.junit.jupiter.api.BeforeEach;

/**
 * The misuse fuzzer, run for each engine x binding ({@link Target.Slice#ENGINES}): starts {@link MisuseFuzz} in a child JVM
 * (the same java executable and class path, {@code -XX:ErrorFile} and a small
 * {@code -XX:MaxDirectMemorySize}), waits for it with a timeout, and fails on a crash (exit by
 * signal, an hs_err file), a hang (the child's watchdog, or the parent's timeout after a
 * jcmd thread dump) or any failure the child reports, printing the seed, the exact replay
 * command and the last lines of the call log. The work directory is
 * {@code target/misuse-fuzz/<test>-<seed>}: deleted after a clean run; after a failure its logs,
 * hs_err files and replay.sh are kept, its stores only with {@code ferry.fuzz.keep}.
 *
 * <p>System properties: {@code ferry.fuzz.seconds} (default 30), {@code ferry.fuzz.seed}
 * (default: new each run, printed), {@code ferry.fuzz.threads} (default 3),
 * {@code ferry.fuzz.maxDirect} (default 128m), {@code ferry.fuzz.contracts} (default true;
 * false judges only what calls throw, not calls that should have thrown),
 * {@code ferry.fuzz.skip} (operations to leave out, e.g. {@code S:leakUntilOom}, to look past a
 * known defect), {@code ferry.fuzz.keep} (keep the work directory after a clean run).
 *
 * <p>Thread safety: a JUnit test class; one child at a time.
 */
@Matrix(Target.Slice.ENGINES)
class MisuseFuzzTest {
    private static final int LOG_LINES = 40;

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    /** @return the engine under test */
    Engine engine() {
        return target.engine;
    }

    /** @return the binding under test: "jni" or "ffm" */
    String binding() {
        return target.binding;
    }

    /**
     * @return comma-separated {@link FuzzExtension} classes for the child, or empty: on FFM, ferry-ffm's
     *         {@code Segments} operations (dev.ferry.ffm.FfmMisuseOps, in java/ffm's tests)
     */
    String extensions() {
        return target.binding.equals("ffm") ? "dev.ferry.ffm.FfmMisuseOps" : "";
    }

    /** @return the Maven modules a replay builds ({@code -pl}) */
    String modules() {
        return target.modules();
    }

    @MatrixTest
    void randomMisuseNeverCrashesHangsOrBreaksTheContract() throws Exception {
        long seconds = Long.getLong("ferry.fuzz.seconds", 30);
        String fixed = System.getProperty("ferry.fuzz.seed", "");
        long seed = fixed.isEmpty() ? (System.currentTimeMillis() * 1_000_003L) ^ System.nanoTime() ^ target.id().hashCode()
                : Long.parseLong(fixed.trim());
        seed &= Long.MAX_VALUE;
        String name = getClass().getSimpleName() + "-" + target.id();
        Path work = Paths.get("target", "misuse-fuzz", name + "-" + seed).toAbsolutePath();
        deleteTree(work);
        Files.createDirectories(work);

        List<String> cmd = command(work, seed, seconds);
        Files.writeString(work.resolve("replay.sh"), "#!/bin/sh\n# replays " + name + " seed " + seed + "\ncd " + quote(Paths.get("").toAbsolutePath().toString())
                + " && exec " + cmd.stream().map(MisuseFuzzTest::quote).collect(Collectors.joining(" ")) + "\n");
        boolean jdk17 = "17".equals(System.getProperty("ferry.test.jdk"));
        // ./ferry finds the JDKs; the JNI classes also run on JDK 17 unless skipped
        String replay = (jdk17 || !modules().equals("java/core") ? "" : "FERRY_SKIP_JDK17=1 ") + "./ferry test -pl " + modules() + " -am -Dtest="
                + getClass().getSimpleName() + " -Dferry.test.targets=" + target.id() + " -Dsurefire.failIfNoSpecifiedTests=false -Dferry.fuzz.seed=" + seed + " -Dferry.fuzz.seconds=" + seconds;
        System.out.println("misuse fuzz " + engine() + "/" + binding() + ": seed=" + seed + " seconds=" + seconds + " java=" + Runtime.version()
                + " work=" + work);

        Path out = work.resolve("child.out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean done = p.waitFor(seconds + 240, TimeUnit.SECONDS);
        String problem = null;
        String dump = "";
        if (!done) {
            dump = threadDump(p.pid());
            p.destroyForcibly();
            p.waitFor(60, TimeUnit.SECONDS);
            problem = "HANG: the child did not end within " + (seconds + 240) + " s (thread dump below)";
        }
        int exit = done ? p.exitValue() : -1;
        List<Path> hsErr;
        try (Stream<Path> s = Files.list(work)) {
            hsErr = s.filter(f -> f.getFileName().toString().startsWith("hs_err")).sorted().collect(Collectors.toList());
        }
        String childOut = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        if (problem == null) {
            if (exit > 128) {
                problem = "CRASH: the child JVM died by signal " + (exit - 128) + " (exit status " + exit + ")";
            } else if (!hsErr.isEmpty()) {
                problem = "CRASH: the child JVM wrote " + hsErr.get(0).getFileName() + " (exit status " + exit + ")";
            } else if (exit == MisuseFuzz.EXIT_HANG) {
                problem = "HANG: the child's watchdog found a call that did not return (thread dump in the child output)";
            } else if (exit != 0) {
                problem = "FAILURES: the child reported misuse outcomes the contract forbids (exit status " + exit + ")";
            }
        }
        String summary = childOut.lines().filter(l -> l.startsWith("misuse fuzz:") || l.startsWith("ops (") || l.startsWith("thrown"))
                .collect(Collectors.joining("\n"));
        System.out.println(summary);
        if (problem == null) {
            if (!Boolean.getBoolean("ferry.fuzz.keep")) {
                deleteTree(work);
            }
            return;
        }
        if (!Boolean.getBoolean("ferry.fuzz.keep")) {
            // the logs, hs_err files and replay.sh say what happened; the stores can take GBs
            deleteTree(work.resolve("stores"));
        }
        StringBuilder r = new StringBuilder();
        r.append("misuse fuzz ").append(engine()).append('/').append(binding()).append(" on Java ").append(Runtime.version().feature())
                .append(": ").append(problem).append('\n');
        r.append("seed=").append(seed).append(" seconds=").append(seconds).append('\n');
        r.append("replay: ").append(replay);
        if (jdk17) {
            r.append("   (this failure was in the JDK 17 run)");
        }
        r.append("\nreplay the child alone: sh ").append(work.resolve("replay.sh")).append("   (work directory kept: ").append(work).append(")\n");
        for (Path h : hsErr) {
            r.append("\n---- ").append(h).append(" (excerpt) ----\n").append(hsErrExcerpt(h));
        }
        r.append("\n---- child output (last 80 lines) ----\n").append(tail(childOut, 80));
        if (!dump.isEmpty()) {
            r.append("\n---- thread dump (jcmd Thread.print) ----\n").append(dump);
        }
        Path log = work.resolve("misuse.log");
        String crashed = hsErr.isEmpty() ? null : crashedThread(hsErr.get(0));
        String lastOfThread = "";
        if (Files.exists(log)) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            r.append("\n---- misuse.log (last ").append(LOG_LINES).append(" lines) ----\n")
                    .append(tail(String.join("\n", lines), LOG_LINES));
            if (crashed != null) {
                String tag = " " + crashed + " ";
                String mine = lines.stream().filter(l -> l.contains(tag)).collect(Collectors.joining("\n"));
                lastOfThread = "---- misuse.log, the crashed thread " + crashed + "'s last calls ----\n" + tail(mine, 15);
                r.append(lastOfThread);
            }
        }
        System.out.println(r);
        // the assertion message repeats the essentials; the full report is on stdout above
        fail("misuse fuzz " + engine() + "/" + binding() + ": " + problem + "\nseed=" + seed + "\nreplay: " + replay
                + "\nwork directory (log, hs_err, child output, replay.sh): " + work + "\n"
                + hsErr.stream().map(MisuseFuzzTest::problematicFrame).collect(Collectors.joining()) + lastOfThread);
    }

    /** @return the log tag (T<n>) of the fuzz thread an hs_err file names as the crashing one, or null */
    private static String crashedThread(Path h) throws IOException {
        for (String l : Files.readAllLines(h, StandardCharsets.ISO_8859_1)) {
            if (l.startsWith("Current thread")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"fuzz-(T[0-9]+)").matcher(l);
                return m.find() ? m.group(1) : null;
            }
        }
        return null;
    }

    private static String problematicFrame(Path h) {
        try {
            List<String> l = Files.readAllLines(h, StandardCharsets.ISO_8859_1);
            for (int i = 0; i + 1 < l.size(); i++) {
                if (l.get(i).startsWith("# Problematic frame")) {
                    return "crash at: " + l.get(i + 1).substring(1).trim() + "\n";
                }
            }
        } catch (IOException e) {
            return "";
        }
        return "";
    }

    private List<String> command(Path work, long seed, long seconds) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-Xmx512m");
        cmd.add("-XX:MaxDirectMemorySize=" + System.getProperty("ferry.fuzz.maxDirect", "128m"));
        cmd.add("-XX:ErrorFile=" + work.resolve("hs_err_pid%p.log"));
        cmd.add("-XX:-CreateCoredumpOnCrash");
        cmd.add("-XX:ErrorLogTimeout=30"); // a crash after heap corruption can stall the hs_err writer for minutes
        cmd.add("-Dferry.binding=" + binding());
        for (String p : new String[] {"ferry.memory", "ferry.native.lib", "ferry.lmdb.lib", "ferry.rocksdb.pointers"}) {
            if (System.getProperty(p) != null) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-cp");
        cmd.add(classPath());
        cmd.add(MisuseFuzz.class.getName());
        cmd.add("engine=" + engine());
        cmd.add("binding=" + binding());
        cmd.add("seed=" + seed);
        cmd.add("seconds=" + seconds);
        cmd.add("dir=" + work);
        cmd.add("threads=" + Integer.getInteger("ferry.fuzz.threads", 3));
        cmd.add("contracts=" + System.getProperty("ferry.fuzz.contracts", "true"));
        String skip = System.getProperty("ferry.fuzz.skip", "");
        if (!skip.isEmpty()) {
            cmd.add("skip=" + skip);
        }
        if (!extensions().isEmpty()) {
            cmd.add("ext=" + extensions());
        }
        return cmd;
    }

    /** @return the test class path, expanded from surefire's manifest-only jar so a replay can use it later */
    private static String classPath() throws IOException {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp != null && !cp.isEmpty()) {
            return cp;
        }
        cp = System.getProperty("java.class.path");
        if (!cp.contains(java.io.File.pathSeparator) && cp.endsWith(".jar")) {
            try (JarFile jar = new JarFile(cp)) {
                Manifest m = jar.getManifest();
                String entries = m == null ? null : m.getMainAttributes().getValue("Class-Path");
                if (entries != null) {
                    List<String> paths = new ArrayList<>();
                    for (String e : entries.trim().split("\\s+")) {
                        paths.add(e.startsWith("file:") ? Paths.get(URI.create(e)).toString() : e);
                    }
                    return String.join(java.io.File.pathSeparator, paths);
                }
            }
        }
        return cp;
    }

    private static String threadDump(long pid) {
        Path jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return "(no jcmd in " + jcmd.getParent() + ")";
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
            byte[] b;
            try (InputStream in = p.getInputStream()) {
                b = in.readAllBytes();
            }
            p.waitFor(30, TimeUnit.SECONDS);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException | InterruptedException e) {
            return "(jcmd failed: " + e + ")";
        }
    }

    private static String hsErrExcerpt(Path h) throws IOException {
        List<String> lines = Files.readAllLines(h, StandardCharsets.ISO_8859_1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(lines.size(), 20); i++) {
            sb.append(lines.get(i)).append('\n');
        }
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("Current thread") || l.startsWith("Native frames") || l.startsWith("Java frames")) {
                for (int j = i; j < Math.min(lines.size(), i + 25) && !(j > i && lines.get(j).isEmpty()); j++) {
                    sb.append(lines.get(j)).append('\n');
                }
            }
        }
        return sb.toString();
    }

    private static String tail(String text, int n) {
        List<String> l = text.lines().collect(Collectors.toList());
        return String.join("\n", l.subList(Math.max(0, l.size() - n), l.size())) + "\n";
    }

    private static String quote(String s) {
        return s.matches("[A-Za-z0-9_./:=%,+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(f);
            }
        }
    }
}
