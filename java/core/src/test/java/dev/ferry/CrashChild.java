package dev.ferry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.OS;

/**
 * A running {@link CrashWriter} child JVM and the acknowledgements read from it: started by the crash
 * and power-cut tests, killed with SIGKILL through its {@link ProcessHandle} (which leaves the pipe to
 * be read to its end).
 */
final class CrashChild {
    /** How long the child may print nothing before the test calls it a hang. */
    static final long HANG_SECONDS = 120;
    final Process process;
    final Path errFile;
    final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    /** Every line taken, the last few kept for messages. */
    final ArrayDeque<String> seen = new ArrayDeque<>();
    final List<String> unexpected = new ArrayList<>();
    /** Checkpoints the child reported done: of the state after op {@code id}, in the sibling {@code name}. */
    final List<Checkpoint> checkpoints = new ArrayList<>();
    /** Backups the child reported done: of the state after op {@code id}, with backup id {@code name}. */
    final List<Checkpoint> backups = new ArrayList<>();
    final Thread reader;
    long lastAck = Long.MIN_VALUE;
    long acks;
    boolean ready;
    boolean done;
    /** Whether the end of the child's stdout was read. */
    boolean eof;
    int exitCode;
    boolean aliveAtKill;

    private CrashChild(Process process, Path errFile) {
        this.process = process;
        this.errFile = errFile;
        this.reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = in.readLine()) != null;) {
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // the pipe closes when the child dies
            }
            lines.add("EOF");
        }, "crash-child-reader");
        reader.setDaemon(true);
        reader.start();
    }

    static CrashChild start(Engine engine, String binding, Path db, long first, String variant, Path errFile) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-Xmx256m");
        cmd.add("-Dferry.binding=" + binding);
        for (String p : System.getProperties().stringPropertyNames()) {
            if (p.startsWith("ferry.") && !p.equals("ferry.binding")) {
                cmd.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        cmd.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CrashWriter.class.getName());
        cmd.add(engine.name());
        cmd.add(db.toString());
        cmd.add(Long.toString(first));
        cmd.add(variant);
        cmd.add("100000");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(errFile.toFile());
        return new CrashChild(pb.start(), errFile);
    }

    /** Takes one line, failing the test if none comes in {@link #HANG_SECONDS}. */
    private String take(String what) throws InterruptedException {
        String l = lines.poll(HANG_SECONDS, TimeUnit.SECONDS);
        if (l == null) {
            throw new AssertionError(what + ": the child printed nothing for " + HANG_SECONDS + " s (hang?)\n" + stderr());
        }
        seen.addLast(l);
        if (seen.size() > 6) {
            seen.removeFirst();
        }
        if (l.matches("A -?[0-9]+")) {
            lastAck = Long.parseLong(l.substring(2));
            acks++;
        } else if (l.startsWith("READY ")) {
            ready = true;
        } else if (l.startsWith("C ") || l.startsWith("K ")) {
            String[] f = l.split(" ");
            (l.startsWith("C ") ? checkpoints : backups).add(new Checkpoint(Long.parseLong(f[1]), f[2]));
        } else if (l.equals("DONE")) {
            done = true;
        } else if (l.equals("EOF")) {
            eof = true;
        } else if (unexpected.size() < 20) {
            unexpected.add(l);
        }
        return l;
    }

    void awaitAcks(long n, String what) throws InterruptedException {
        while (acks < n) {
            String l = take(what);
            if (l.equals("EOF") || l.equals("DONE")) {
                return;
            }
        }
    }

    void awaitReady(String what) throws InterruptedException {
        while (!ready) {
            String l = take(what);
            if (l.equals("EOF")) {
                return;
            }
        }
    }

    /**
     * Lets the child run until the round's kill moment, then kills it (also when waiting fails).
     *
     * @param mode 0: after {@code ackTarget} acknowledgements; 1: {@code delayMs} after READY; 2: {@code delayMs} after the start
     * @param ackTarget acknowledgements to wait for (mode 0)
     * @param delayMs the delay (modes 1 and 2)
     * @param what the round, for messages
     */
    void runAndKill(int mode, int ackTarget, long delayMs, String what) throws InterruptedException {
        try {
            if (mode == 0) {
                awaitAcks(ackTarget, what);
            } else if (mode == 1) {
                awaitReady(what);
                Thread.sleep(delayMs);
            } else {
                Thread.sleep(delayMs);
            }
        } finally {
            kill(what);
        }
    }

    void kill(String what) throws InterruptedException {
        // SIGKILL through the handle: Process.destroyForcibly() would also close our end of the
        // child's stdout and throw away the acknowledgements still in the pipe
        aliveAtKill = process.isAlive();
        process.toHandle().destroyForcibly();
        if (!process.waitFor(HANG_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError(what + ": the child did not die within " + HANG_SECONDS + " s of SIGKILL");
        }
        exitCode = process.exitValue();
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        // read every acknowledgement the child wrote before it died
        // (unless the end was read already: a child that exited by itself before the kill)
        for (String l = eof ? "EOF" : take(what); !l.equals("EOF"); l = take(what)) {
            // counted in take()
        }
    }

    /** A child killed by a signal exits with 128 + the signal number. */
    boolean exitedBySignal() {
        // Windows has no signals: destroyForcibly is TerminateProcess, which ends the child with exit code 1
        return OS.WINDOWS.isCurrentOs() ? aliveAtKill && exitCode == 1 : exitCode == 128 + 9;
    }

    long lastAck(long first) {
        return lastAck == Long.MIN_VALUE ? first - 1 : lastAck;
    }

    /** @return the last lines read from stdout, unexpected stdout lines, and stderr */
    String stderr() {
        try {
            String s = "  last stdout lines: " + seen + (unexpected.isEmpty() ? "" : "\n  unexpected stdout lines: " + unexpected)
                    + "\n  exit code " + exitCode + ", stderr:\n" + (Files.exists(errFile) ? Files.readString(errFile) : "");
            return s.length() > 4000 ? s.substring(0, 4000) + "..." : s;
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** A checkpoint the child made of the state after op {@code id}, in directory {@code name} beside the store. */
    record Checkpoint(long id, String name) {
    }
}
