package dev.ferry;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs a test program in a child JVM (same java, same class path, the parent's {@code ferry.*}
 * properties) so a JVM crash fails a test instead of killing the test run. A child that dies by a
 * signal, leaves an hs_err file, exits non-zero or outlives its timeout fails with its output.
 */
final class ChildJvm {
    private ChildJvm() {
    }

    /** What a child did. */
    record Result(int exit, String output, List<Path> hsErr, boolean timedOut) {
        /** @return a description for a failure message */
        String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append(timedOut ? "timed out" : exit > 128 ? "died by signal " + (exit - 128) : "exit " + exit);
            for (Path p : hsErr) {
                sb.append("\nhs_err file ").append(p);
                try {
                    List<String> lines = Files.readAllLines(p, StandardCharsets.ISO_8859_1);
                    lines.stream().limit(40).forEach(l -> sb.append("\n  | ").append(l));
                } catch (IOException e) {
                    sb.append(" (unreadable: ").append(e).append(')');
                }
            }
            String out = output.length() > 8000 ? "..." + output.substring(output.length() - 8000) : output;
            return sb.append("\n--- output ---\n").append(out).toString();
        }
    }

    /**
     * Runs {@code main} with {@code args} in a child JVM and waits for it.
     *
     * @param work directory for hs_err files (and the child's working directory)
     * @param timeoutSeconds how long the child may run
     * @param jvmArgs extra JVM options
     * @param main the class whose main method runs
     * @param args its arguments
     * @return what happened
     */
    static Result run(Path work, long timeoutSeconds, List<String> jvmArgs, Class<?> main, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:ErrorFile=" + work.resolve("hs_err_pid%p.log"));
        cmd.add("-XX:-CreateCoredumpOnCrash");
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("ferry."))
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        Path out = work.resolve("child-" + System.nanoTime() + ".out");
        // The output comes through a pipe and this process writes the file: a child holding the file
        // itself may keep it open for a moment after waitFor under wine (which signals a process's
        // exit before it has closed that process's handles), and Windows cannot delete an open file.
        Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        Thread copier = new Thread(() -> {
            try (InputStream in = p.getInputStream(); OutputStream o = Files.newOutputStream(out)) {
                in.transferTo(o);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "child-output");
        copier.start();
        boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
            p.waitFor();
        }
        copier.join(TimeUnit.SECONDS.toMillis(60));
        List<Path> hsErr;
        try (Stream<Path> s = Files.list(work)) {
            hsErr = s.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
        return new Result(done ? p.exitValue() : -1, Files.readString(out, StandardCharsets.ISO_8859_1), hsErr, !done);
    }

    /**
     * Runs a child and fails unless it exits 0 without an hs_err file.
     *
     * @return its output
     */
    static String runClean(Path work, long timeoutSeconds, List<String> jvmArgs, Class<?> main, String... args)
            throws IOException, InterruptedException {
        Result r = run(work, timeoutSeconds, jvmArgs, main, args);
        if (r.exit() != 0 || !r.hsErr().isEmpty() || r.timedOut()) {
            fail(main.getSimpleName() + " " + String.join(" ", args) + ": " + r.describe());
        }
        return r.output();
    }
}
