package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ferry.Engine;
import dev.ferry.PowerCutFs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A power cut under a Kafka Streams store: the changelog offset a Ferry store commits is never ahead
 * of its data, so after the cut Kafka Streams restores from that offset and no record goes missing.
 *
 * <p>A child JVM ({@link PowerCutWriter}) drives a Ferry key-value store on cutfs
 * ({@link PowerCutFs}, docs/testing.md "Power cut") as a task does: it restores the changelog from
 * the committed offset, then puts records and commits offsets (the store keeps them beside its
 * entries, {@code managesOffsets()}), with flushes now and then. At a seeded random moment the test
 * kills it (SIGKILL; in some rounds after its first commits, which fall inside the restoration when it
 * commits while restoring) and cuts the power (RocksDB: in some rounds a seeded half of the unsynced pages
 * survive, torn; LMDB's never are, see docs/usage.md "Durability"), then opens the store from the
 * backing directory and checks, with {@code c} the committed offset found:
 *
 * <ul>
 *   <li>{@code c} is no later than the last offset the child committed (nothing from the future);
 *   <li>every key holds the value of its last record before {@code c}, or of a later record the
 *       child wrote (the store may be ahead of its offset, never behind it);
 *   <li>every value is one the changelog holds for that key.
 * </ul>
 *
 * <p>The next round restores from {@code c}, as Kafka Streams would. The store syncs nothing per
 * write (Ferry's Kafka default): the cut may lose acknowledged commits, which the changelog
 * restores; it must never leave the offset ahead. Properties: {@code ferry.powercut.rounds}
 * (default 3), {@code ferry.powercut.seed} (default 34, or {@code random}).
 */
class KafkaPowerCutTest {
    private static final long HANG_SECONDS = 120;

    @TempDir
    Path dir;

    static Stream<Arguments> targets() {
        List<Arguments> l = new ArrayList<>();
        for (Engine e : List.of(Engine.ROCKSDB, Engine.LMDB)) {
            l.add(Arguments.of(e, "jni"));
            if (Runtime.version().feature() >= 22) {
                l.add(Arguments.of(e, "ffm"));
            }
        }
        return l.stream();
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("targets")
    void committedOffsetsAreNeverAheadOfTheDataAfterAPowerCut(Engine engine, String binding) throws Exception {
        String why = PowerCutFs.unavailableReason(dir);
        if (why != null && "1".equals(System.getenv("FERRY_REQUIRE_FUSE"))) {
            fail("FERRY_REQUIRE_FUSE=1 but the power-cut tests cannot run: " + why);
        }
        Assumptions.assumeTrue(why == null, () -> "power-cut test skipped: " + why);
        String seedText = System.getProperty("ferry.powercut.seed", "34").trim();
        long seed = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        int rounds = Integer.getInteger("ferry.powercut.rounds", 3);
        Random r = new Random(seed ^ engine.ordinal() ^ binding.hashCode());
        Path disk = Files.createDirectories(dir.resolve("disk"));
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        String replay = "mvn -B -o -pl java/kafka-streams -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest="
                + getClass().getSimpleName() + " -Dferry.powercut.seed=" + seed + " -Dferry.powercut.rounds=" + rounds;
        long end = 0; // the changelog's end: records [0, end) were processed by some child or (grown) another instance
        long committedBefore = 0;
        long restored = 0;
        long lostCommits = 0;
        int killedRestoring = 0;
        Random kr = new Random(~seed ^ engine.ordinal() ^ binding.hashCode());
        // the changelog grows past the store in half of the rounds (records another instance processed), so the
        // next child restores: commits are synced, so a cut alone never leaves the store behind its changelog
        Random er = new Random(seed * 31 + engine.ordinal() * 7 + binding.hashCode());
        StringBuilder history = new StringBuilder();
        for (int round = 0; round < rounds; round++) {
            boolean torn = engine == Engine.ROCKSDB && r.nextBoolean();
            long tornSeed = r.nextLong();
            int commits = 1 + r.nextInt(300);
            boolean byCommits = r.nextBoolean();
            long delayMs = r.nextInt(2500);
            // a third of the rounds kill during the restoration, after its first 1-3 commits (apart from r: the
            // rounds draw what they drew before these were added)
            boolean inRestore = kr.nextInt(3) == 0;
            int restoreCommits = 1 + kr.nextInt(3);
            String what = "seed " + seed + ", round " + round + ", " + engine + "/" + binding
                    + (torn ? ", torn pages (cutfs --torn " + Long.toUnsignedString(tornSeed) + ")" : "") + ", kill "
                    + (inRestore ? "after " + restoreCommits + " commits while restoring"
                            : byCommits ? "after " + commits + " commits" : delayMs + " ms after start") + ", restoring from "
                    + committedBefore + " to " + end;
            String context = "\n  earlier rounds:" + (history.length() == 0 ? " none" : history) + "\n  replay: " + replay;
            long lastCommit;
            String cut;
            Child c;
            try (PowerCutFs fs = PowerCutFs.mount(disk, mnt, torn ? tornSeed : null, dir.resolve("cutfs-" + round + ".err"))) {
                c = Child.start(engine, binding, mnt.resolve("state"), end, r.nextLong(), dir.resolve("child-" + round + ".err"));
                try {
                    if (inRestore) {
                        c.awaitRestoreCommits(restoreCommits, what);
                    } else if (byCommits) {
                        c.awaitCommits(commits, what);
                    } else {
                        Thread.sleep(delayMs);
                    }
                } finally {
                    c.kill(what);
                }
                cut = fs.cut();
            }
            lastCommit = c.lastCommit;
            what += ", " + c.commits + " commits, the last of offset " + lastCommit + (c.ready ? "" : ", killed while restoring")
                    + ", " + cut;
            if (!c.ready && c.opened >= 0) {
                killedRestoring++;
            }
            if (c.opened >= 0) {
                assertEquals(committedBefore, c.opened, what + ": the child found another committed offset than the parent" + context);
            }
            assertTrue(c.exitCode == 128 + 9, what + ": the child exited by itself with " + c.exitCode + "\n" + c.stderr() + context);
            long upTo = Math.max(end, Math.max(lastCommit, c.lastBegun)); // offsets the child may have committed
            long written = upTo + PowerCutWriter.MAX_COMMIT_EVERY; // records the child may have written
            long found;
            try (PowerCutWriter.Opened o = PowerCutWriter.open(engine, disk.resolve("state").toFile())) {
                Long committed = o.ferry().committedOffset(PowerCutWriter.PARTITION);
                found = committed == null ? 0 : committed;
                if (found > upTo) {
                    fail(what + ": after the cut the store's committed offset " + found + " is ahead of every offset committed ("
                            + upTo + ")" + context);
                }
                if (found < committedBefore) {
                    fail(what + ": the committed offset went back from " + committedBefore + " to " + found
                            + ", though that offset was made durable by the round before" + context);
                }
                String bad = check(o, found, written);
                if (bad != null) {
                    fail(what + ": after the cut, with committed offset " + found + ": " + bad + "\n" + c.stderr() + context);
                }
            }
            if (c.opened >= 0) {
                restored += Math.max(0, end - committedBefore);
            }
            lostCommits += Math.max(0, upTo - found);
            history.append("\n    ").append(what).append(", committed offset after the cut ").append(found);
            end = upTo + (er.nextBoolean() ? 1 + er.nextInt(30_000) : 0);
            committedBefore = found;
        }
        System.out.printf(Locale.ROOT, "kafka power cut %s/%s: seed %d, %d rounds, changelog end %d, %d records restored,"
                + " %d committed offsets lost to cuts (restored from the changelog), %d kills during restoration%n", engine, binding,
                seed, rounds, end, restored, lostCommits, killedRestoring);
    }

    /**
     * @return null when every key holds the value of its last record before {@code committed} or of
     *     a later record written, else the first difference
     */
    private static String check(PowerCutWriter.Opened o, long committed, long written) {
        long[] seen = new long[PowerCutWriter.KEYS];
        java.util.Arrays.fill(seen, -1);
        try (KeyValueIterator<Bytes, byte[]> it = o.store().all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                String k = new String(kv.key.get(), StandardCharsets.UTF_8);
                long record = PowerCutWriter.recordOf(kv.value);
                if (!k.startsWith("k") || record < 0 || !k.equals("k" + (record % PowerCutWriter.KEYS))) {
                    return "key " + k + " holds a value no record of the changelog wrote to it";
                }
                if (record >= written) {
                    return "key " + k + " holds record " + record + ", which no child wrote (at most " + written + ")";
                }
                seen[(int) (record % PowerCutWriter.KEYS)] = record;
            }
        }
        for (int k = 0; k < PowerCutWriter.KEYS; k++) {
            // the last record before the committed offset that wrote key k
            long last = committed - 1 - Math.floorMod(committed - 1 - k, PowerCutWriter.KEYS);
            if (last >= 0 && seen[k] < last) {
                return "key k" + k + " holds " + (seen[k] < 0 ? "nothing" : "record " + seen[k]) + ", but record " + last
                        + " wrote it before the committed offset: Kafka Streams would restore from " + committed
                        + " and miss it";
            }
        }
        return null;
    }

    /** The child JVM and what it printed. */
    private static final class Child {
        final Process process;
        final Path errFile;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        long opened = -1;
        long lastCommit = -1;
        /** The offset of the last commit begun ({@code CP}): a kill may land after it is durable, before its C line. */
        long lastBegun = -1;
        int commits;
        /** Commits while restoring ({@code RC} lines). */
        int restoreCommits;
        /** The child printed READY: its restoration was over. */
        boolean ready;
        int exitCode;
        boolean eof;

        private Child(Process process, Path errFile) {
            this.process = process;
            this.errFile = errFile;
            Thread t = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String l; (l = in.readLine()) != null;) {
                        lines.add(l);
                    }
                } catch (IOException ignored) {
                    // the child died
                }
                lines.add("EOF");
            }, "powercut-child-reader");
            t.setDaemon(true);
            t.start();
        }

        static Child start(Engine engine, String binding, Path stateDir, long end, long seed, Path errFile) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            if (Runtime.version().feature() >= 22) {
                cmd.add("--enable-native-access=ALL-UNNAMED");
            }
            cmd.addAll(List.of("-Xmx256m", "-Dferry.binding=" + binding, "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
                    "-cp", System.getProperty("java.class.path"), PowerCutWriter.class.getName(), engine.name(), stateDir.toString(),
                    Long.toString(end), Long.toString(seed)));
            return new Child(new ProcessBuilder(cmd).redirectError(errFile.toFile()).start(), errFile);
        }

        private String take(String what) throws InterruptedException {
            String l = lines.poll(HANG_SECONDS, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError(what + ": the child printed nothing for " + HANG_SECONDS + " s\n" + stderr());
            }
            if (l.equals("EOF")) {
                eof = true;
            } else if (l.startsWith("C ")) {
                long offset = Long.parseLong(l.substring(2));
                if (offset < lastCommit) {
                    throw new AssertionError(what + ": commits out of order: " + offset + " after " + lastCommit);
                }
                lastCommit = offset;
                commits++;
            } else if (l.startsWith("CP ")) {
                lastBegun = Math.max(lastBegun, Long.parseLong(l.substring(3)));
            } else if (l.startsWith("RC ")) {
                long offset = Long.parseLong(l.substring(3));
                if (offset < lastCommit) {
                    throw new AssertionError(what + ": commits out of order: " + offset + " after " + lastCommit);
                }
                lastCommit = offset;
                restoreCommits++;
            } else if (l.startsWith("OPEN ")) {
                opened = Long.parseLong(l.substring(5));
            } else if (l.equals("READY")) {
                ready = true;
            } else {
                throw new AssertionError(what + ": unexpected line from the child: " + l + "\n" + stderr());
            }
            return l;
        }

        void awaitCommits(int n, String what) throws InterruptedException {
            while (commits < n) {
                if (take(what).equals("EOF")) {
                    throw new AssertionError(what + ": the child ended after " + commits + " commits\n" + stderr());
                }
            }
        }

        /** Waits for n commits while restoring, or for the end of the restoration (READY). */
        void awaitRestoreCommits(int n, String what) throws InterruptedException {
            while (restoreCommits < n && !ready) {
                if (take(what).equals("EOF")) {
                    throw new AssertionError(what + ": the child ended while restoring\n" + stderr());
                }
            }
        }

        void kill(String what) throws InterruptedException {
            // SIGKILL through the handle, keeping our end of its stdout to read what it printed
            process.toHandle().destroyForcibly();
            if (!process.waitFor(HANG_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError(what + ": the child did not die within " + HANG_SECONDS + " s of SIGKILL");
            }
            exitCode = process.exitValue();
            while (!eof) {
                take(what);
            }
        }

        String stderr() {
            try {
                String s = "  child stderr:\n" + (Files.exists(errFile) ? Files.readString(errFile) : "");
                return s.length() > 4000 ? s.substring(0, 4000) + "..." : s;
            } catch (IOException e) {
                return "(stderr unreadable: " + e + ")";
            }
        }
    }
}
