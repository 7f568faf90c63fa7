package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash durability: a child JVM ({@link CrashWriter}) writes puts and write batches with
 * {@code syncWrites(true)} in even rounds and {@code syncWrites(false)} in odd ones (a write
 * that returned has reached the OS: a process kill must not lose it on either engine) and
 * acknowledges each call on stdout; the test kills it with SIGKILL
 * at a random moment (after a random number of
 * acknowledgements, or a random delay that may fall in JVM start-up, store open or recovery;
 * through {@link ProcessHandle#destroyForcibly()}, which leaves the pipe to be read to its end),
 * reopens the store in this JVM and checks that it holds exactly the state after the last
 * acknowledged operation, or after the one in flight when the kill came: every acknowledged put
 * and batch is there with its values, every batch (acknowledged or not) is all or nothing, and
 * nothing later shows. The next round continues the sequence on the same directory.
 *
 * <p>Properties: {@code ferry.crash.rounds} (default 4), {@code ferry.crash.seed} (default 14, or
 * {@code random}). A failure names the seed and round and the command to replay it.
 */
public abstract class CrashDurabilityContract {
    private static final long HANG_SECONDS = 120;

    @TempDir
    Path dir;

    /** @return the engine under test */
    protected abstract Engine engine();

    /** @return the binding the child and the checks use: "jni" or "ffm" */
    protected abstract String binding();

    @Test
    void acknowledgedWritesSurviveSigkillAndBatchesAreAllOrNothing() throws Exception {
        String seedText = System.getProperty("ferry.crash.seed", "14").trim();
        long seed = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        int rounds = Integer.getInteger("ferry.crash.rounds", 4);
        Random r = new Random(seed);
        Path db = dir.resolve("db");
        String modules = binding().equals("ffm") ? "java/core,java/ffm" : "java/core";
        String replay = "mvn -B -o -pl " + modules + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest="
                + getClass().getSimpleName() + " -Dferry.crash.seed=" + seed + " -Dferry.crash.rounds=" + rounds;
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        long next = 0; // first op id of the round
        long acked = 0;
        long inFlightApplied = 0;
        long t0 = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
            String variant = engine() == Engine.LMDB ? (r.nextBoolean() ? "plain" : "writemap") : (r.nextBoolean() ? "plain" : "smallmem");
            if (round % 2 == 1) {
                variant += "-nosync"; // syncWrites(false)
            }
            int mode = r.nextInt(3);
            int ackTarget = 1 + r.nextInt(400);
            long delayMs = mode == 1 ? r.nextInt(300) : r.nextInt(1500);
            String what = "seed " + seed + ", round " + round + ", " + engine() + "/" + binding() + " variant " + variant + ", kill "
                    + (mode == 0 ? "after " + ackTarget + " acks" : mode == 1 ? delayMs + " ms after READY" : delayMs + " ms after start")
                    + ", first op " + next + "\n  replay: " + replay;
            Child c = Child.start(engine(), binding(), db, next, variant, dir.resolve("child-" + round + ".err"));
            try {
                if (mode == 0) {
                    c.awaitAcks(ackTarget, what);
                } else if (mode == 1) {
                    c.awaitReady(what);
                    Thread.sleep(delayMs);
                } else {
                    Thread.sleep(delayMs);
                }
            } finally {
                c.kill(what);
            }
            long last = c.lastAck(next); // next - 1 when nothing was acknowledged
            assertTrue(c.exitedBySignal() || c.done, what + ": the child exited by itself with " + c.exitCode + "\n" + c.stderr());
            assertTrue(c.acks == last - next + 1, what + ": acknowledgements out of order: " + c.acks + " acks, last " + last);
            // the model after the last acknowledged op, and after the one in flight
            for (long id = next; id <= last; id++) {
                CrashWriter.applyToModel(model, id);
            }
            TreeMap<byte[], byte[]> withInFlight = new TreeMap<>(model);
            CrashWriter.applyToModel(withInFlight, last + 1);
            TreeMap<byte[], byte[]> found = readStore(db, variant);
            boolean atLast = sameEntries(model, found);
            boolean atInFlight = !atLast && sameEntries(withInFlight, found);
            if (!atLast && !atInFlight) {
                fail(what + "\n  after the kill the store matches neither the state after the last acknowledged op " + last
                        + " nor after op " + (last + 1) + ":\n  " + firstDifference(model, found) + "\n" + c.stderr());
            }
            if (atInFlight) {
                model = withInFlight;
                inFlightApplied++;
                last++;
            }
            acked += c.acks;
            next = last + 1;
        }
        System.out.printf(Locale.ROOT,
                "crash durability %s/%s: %d rounds, %d acknowledged ops, %d unacknowledged ops found applied, %d entries, %.1f s%n",
                engine(), binding(), rounds, acked, inFlightApplied, model.size(), (System.nanoTime() - t0) / 1e9);
    }

    private TreeMap<byte[], byte[]> readStore(Path db, String variant) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
        if (!Files.exists(db)) {
            return m; // killed before the store was created
        }
        try (Store s = Store.open(db, CrashWriter.options(engine(), variant).binding(binding()))) {
            s.scan(KeyRange.all(), (k, v) -> {
                m.put(k.toByteArray(), v.toByteArray());
                return true;
            });
        }
        return m;
    }

    private static boolean sameEntries(TreeMap<byte[], byte[]> a, TreeMap<byte[], byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        var ia = a.entrySet().iterator();
        var ib = b.entrySet().iterator();
        while (ia.hasNext()) {
            Map.Entry<byte[], byte[]> ea = ia.next();
            Map.Entry<byte[], byte[]> eb = ib.next();
            if (!Arrays.equals(ea.getKey(), eb.getKey()) || !Arrays.equals(ea.getValue(), eb.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** Describes how the store differs from the model: missing, extra and changed keys (first few of each). */
    private static String firstDifference(TreeMap<byte[], byte[]> want, TreeMap<byte[], byte[]> got) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : want.entrySet()) {
            byte[] g = got.get(e.getKey());
            if (g == null) {
                out.add("missing: " + CrashWriter.describeKey(e.getKey()));
            } else if (!Arrays.equals(g, e.getValue())) {
                out.add("wrong value (" + g.length + " bytes, expected " + e.getValue().length + "): " + CrashWriter.describeKey(e.getKey()));
            }
            if (out.size() > 12) {
                break;
            }
        }
        for (byte[] k : got.keySet()) {
            if (!want.containsKey(k) && out.size() < 25) {
                out.add("extra: " + CrashWriter.describeKey(k));
            }
        }
        return "model " + want.size() + " entries, store " + got.size() + ": " + String.join("; ", out);
    }

    /** A running child JVM and the acknowledgements read from it. */
    private static final class Child {
        final Process process;
        final Path errFile;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        /** Every line taken, the last few kept for messages. */
        final java.util.ArrayDeque<String> seen = new java.util.ArrayDeque<>();
        final List<String> unexpected = new ArrayList<>();
        final Thread reader;
        long lastAck = Long.MIN_VALUE;
        long acks;
        boolean ready;
        boolean done;
        boolean aliveAtKill;
        int exitCode;

        private Child(Process process, Path errFile) {
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

        static Child start(Engine engine, String binding, Path db, long first, String variant, Path errFile) throws IOException {
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
            return new Child(pb.start(), errFile);
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
            } else if (l.equals("DONE")) {
                done = true;
            } else if (!l.equals("EOF") && unexpected.size() < 20) {
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
            for (String l = take(what); !l.equals("EOF"); l = take(what)) {
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
    }
}
