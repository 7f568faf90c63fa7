package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
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
@Matrix(Target.Slice.ENGINES)
class CrashDurabilityTest {
    @TempDir
    Path dir;

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

    @MatrixTest
    void acknowledgedWritesSurviveSigkillAndBatchesAreAllOrNothing() throws Exception {
        String seedText = System.getProperty("ferry.crash.seed", "14").trim();
        long seed = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        int rounds = Integer.getInteger("ferry.crash.rounds", 4);
        Random r = new Random(seed);
        Path db = dir.resolve("db");
        String replay = "mvn -B -o -pl " + target.modules() + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest="
                + getClass().getSimpleName() + " -Dferry.test.targets=" + target.id() + " -Dferry.crash.seed=" + seed + " -Dferry.crash.rounds=" + rounds;
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
            CrashChild c = CrashChild.start(engine(), binding(), db, next, variant, dir.resolve("child-" + round + ".err"));
            c.runAndKill(mode, ackTarget, delayMs, what);
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
            boolean atLast = CrashWriter.sameEntries(model, found);
            boolean atInFlight = !atLast && CrashWriter.sameEntries(withInFlight, found);
            if (!atLast && !atInFlight) {
                fail(what + "\n  after the kill the store matches neither the state after the last acknowledged op " + last
                        + " nor after op " + (last + 1) + ":\n  " + CrashWriter.firstDifference(model, found) + "\n" + c.stderr());
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

}
