package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power cut: a child JVM ({@link CrashWriter}, the sequence of the crash test) writes through Ferry
 * into a store on cutfs ({@link PowerCutFs}), the FUSE file system that forgets whatever was not
 * fsynced when it is unmounted. At a random moment (seeded: after a number of acknowledgements, or
 * a delay after READY or after start) the test kills the child with SIGKILL, so nothing more reaches
 * the file system, then cuts the power (unmounts; in some rounds a seeded half of the unsynced
 * pages survive, torn) and opens the store straight from the backing directory:
 *
 * <ul>
 *   <li>{@code syncWrites(true)} (even rounds): the store equals the model after the last
 *       acknowledged op or after the one in flight: every acknowledged put and batch survives the
 *       cut, batches are all or nothing, nothing later shows;
 *   <li>{@code syncWrites(false)} (odd rounds): the store opens and equals the model after some op
 *       between the start of the round and the one in flight: a prefix of the sequence, any number
 *       of acknowledged ops lost. A torn odd round on RocksDB may instead keep the round's start
 *       plus any subset of its ops, each whole ({@link OpSubset}): RocksDB's log reader can skip a
 *       lost log page and keep the writes after it (docs/usage.md, "Durability"); a value never
 *       written, a partly applied batch or a lost key of the round's start still fails. LMDB's odd rounds are never torn: without a sync LMDB relies on
 *       the file system keeping its write order (docs/usage.md, "Durability"). On RocksDB, once
 *       an unsynced round was torn, later rounds use optimistic instead of pessimistic
 *       transactions, unless {@code ferry.powercut.tornTxn=true}: a pessimistic TransactionDB
 *       opening a store whose unsynced log was torn can open once and then fail later opens with
 *       "Corruption: SST file contains data beyond the point of corruption" (docs/usage.md).
 * </ul>
 *
 * <p>Variants per round (seeded): RocksDB with the default or a 256 KiB memtable (flushes and
 * compactions during the run), LMDB plain, with {@code WRITEMAP} or with a 4 MiB map that grows
 * by 4 MiB steps; batches as transactions ({@code +txn}, committed by {@link Store#inTransaction});
 * checkpoints every 100 ops ({@code +cp}), each checked after the cut to open and hold the state
 * after its op.
 *
 * <p>Rounds continue the sequence on the same store. Properties: {@code ferry.powercut.rounds}
 * (default 4), {@code ferry.powercut.seed} (default 34, or {@code random}). Skipped, with the
 * reason, where FUSE cannot be used; {@code FERRY_REQUIRE_FUSE=1} makes that a failure.
 */
@Matrix(Target.Slice.ENGINES)
class PowerCutTest {
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
    void syncedWritesSurviveAPowerCutAndUnsyncedOnesLeaveAPrefix() throws Exception {
        String why = PowerCutFs.unavailableReason(dir);
        if (why != null && "1".equals(System.getenv("FERRY_REQUIRE_FUSE"))) {
            fail("FERRY_REQUIRE_FUSE=1 but the power-cut tests cannot run: " + why);
        }
        Assumptions.assumeTrue(why == null, () -> "power-cut test skipped: " + why);
        String seedText = System.getProperty("ferry.powercut.seed", "34").trim();
        long seed = seedText.equalsIgnoreCase("random") ? new SecureRandom().nextLong() : Long.parseLong(seedText);
        int rounds = Integer.getInteger("ferry.powercut.rounds", 4);
        Random r = new Random(seed);
        Path disk = Files.createDirectories(dir.resolve("disk"));
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        String replay = "mvn -B -o -pl " + target.modules() + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest="
                + getClass().getSimpleName() + " -Dferry.test.targets=" + target.id() + " -Dferry.powercut.seed=" + seed + " -Dferry.powercut.rounds=" + rounds;
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        long next = 0; // first op id of the round
        long acked = 0;
        long lost = 0;
        long checkpoints = 0;
        long backups = 0;
        long holes = 0; // ops lost below a later op that survived (RocksDB, unsynced, torn)
        boolean tornLog = false; // an unsynced round of RocksDB was torn (LMDB's never are)
        long t0 = System.nanoTime();
        StringBuilder history = new StringBuilder();
        for (int round = 0; round < rounds; round++) {
            boolean sync = round % 2 == 0;
            String variant = engine() == Engine.LMDB ? new String[] {"plain", "writemap", "grow"}[r.nextInt(3)]
                    : (r.nextBoolean() ? "plain" : "smallmem");
            if (r.nextInt(3) == 0) {
                // RocksDB: optimistic in a third of them (not drawn from r, which keeps the other draws of a seed)
                variant += engine() == Engine.ROCKSDB && Math.floorMod(seed + round, 3) == 0 ? "+otxn" : "+txn";
            }
            if (r.nextInt(3) == 0) {
                variant += "+cp";
            }
            if (engine() == Engine.ROCKSDB && Math.floorMod(seed + round, 4) == 1) {
                variant += "+bk"; // not drawn from r (keeps the other draws of a seed)
            }
            if (!sync) {
                variant += "-nosync";
            }
            long tornSeed = r.nextLong();
            boolean torn = r.nextBoolean() && (sync || engine() != Engine.LMDB);
            if (!sync && torn) {
                tornLog = true;
            }
            if (tornLog && variant.contains("+txn") && !Boolean.getBoolean("ferry.powercut.tornTxn")) {
                // a pessimistic TransactionDB on a store whose unsynced log was torn: see the class comment
                variant = variant.replace("+txn", "+otxn");
            }
            int mode = r.nextInt(3);
            int ackTarget = 1 + r.nextInt(400);
            long delayMs = mode == 1 ? r.nextInt(300) : r.nextInt(2500);
            String what = "seed " + seed + ", round " + round + ", " + engine() + "/" + binding() + " variant " + variant
                    + (torn ? ", torn pages (cutfs --torn " + Long.toUnsignedString(tornSeed) + ")" : "") + ", kill "
                    + (mode == 0 ? "after " + ackTarget + " acks" : mode == 1 ? delayMs + " ms after READY" : delayMs + " ms after start")
                    + ", first op " + next;
            CrashChild c;
            String cut;
            try (PowerCutFs fs = PowerCutFs.mount(disk, mnt, torn ? tornSeed : null, dir.resolve("cutfs-" + round + ".err"))) {
                c = CrashChild.start(engine(), binding(), mnt.resolve("db"), next, variant, dir.resolve("child-" + round + ".err"));
                c.runAndKill(mode, ackTarget, delayMs, what);
                cut = fs.cut();
            }
            long last = c.lastAck(next); // next - 1 when nothing was acknowledged
            what += ", last acknowledged op " + last + ", " + cut;
            String context = "\n  earlier rounds:" + (history.length() == 0 ? " none" : history) + "\n  replay: " + replay
                    + "\n  (op ids are CrashWriter's deterministic sequence: CrashWriter.records(id) lists each op's records)";
            assertTrue(c.exitedBySignal() || c.done, what + ": the child exited by itself with " + c.exitCode + "\n" + c.stderr() + context);
            assertTrue(c.acks == last - next + 1, what + ": acknowledgements out of order: " + c.acks + " acks, last " + last + context);
            TreeMap<byte[], byte[]> found;
            try {
                found = readStore(disk.resolve("db"), variant);
            } catch (FerryException e) {
                throw new AssertionError(what + ": the store does not open after the power cut: " + e + context, e);
            }
            // the model after each op from the round's start to the one in flight
            TreeMap<byte[], byte[]> m = new TreeMap<>(model);
            long at = -1;
            long atLastAck = Long.MIN_VALUE;
            TreeMap<byte[], byte[]> atLastModel = null;
            TreeMap<byte[], byte[]> atModel = null;
            java.util.Map<Long, TreeMap<byte[], byte[]>> atCheckpoint = new java.util.HashMap<>();
            for (CrashChild.Checkpoint cp : c.checkpoints) {
                atCheckpoint.put(cp.id(), null);
            }
            for (CrashChild.Checkpoint bk : c.backups) {
                atCheckpoint.put(bk.id(), null);
            }
            for (long id = next - 1; id <= last + 1; id++) {
                if (id >= next) {
                    CrashWriter.applyToModel(m, id);
                }
                if (atCheckpoint.containsKey(id)) {
                    atCheckpoint.put(id, new TreeMap<>(m));
                }
                if (id == last) {
                    atLastModel = new TreeMap<>(m);
                    atLastAck = id;
                }
                if (CrashWriter.sameEntries(m, found)) {
                    at = id;
                    atModel = new TreeMap<>(m);
                }
            }
            // RocksDB, unsynced writes, torn cut: the log reader can skip a lost page and keep the writes
            // after it (docs/usage.md, "Durability"), so what survives is the round's start plus some
            // subset of its ops, each whole, not necessarily a prefix
            boolean holesAllowed = !sync && torn && engine() == Engine.ROCKSDB;
            OpSubset.Result subset = null;
            if (atModel == null && holesAllowed) {
                subset = OpSubset.find(model, next, last + 1, found);
                if (subset.found()) {
                    List<Long> applied = subset.applied();
                    at = applied.isEmpty() ? next - 1 : applied.get(applied.size() - 1);
                    atModel = new TreeMap<>(found);
                    long keptAcked = applied.stream().filter(id -> id <= last).count();
                    lost += (last - next + 1) - keptAcked - (at < last ? last - at : 0); // the holes; the tail is counted below
                    holes += (at - next + 1) - applied.size();
                }
            }
            if (atModel == null || (sync && at < last)) {
                fail(what + "\n  after the power cut the store matches "
                        + (atModel == null ? "no prefix of the sequence from op " + (next - 1) + " to op " + (last + 1)
                                + (subset == null ? "" : ", nor the round's start with a subset of those ops, each whole: " + subset.why())
                                : "only the state after op " + at + ": acknowledged synced ops " + (at + 1) + ".." + last + " were lost")
                        + ":\n  against the state after the last acknowledged op " + atLastAck + ": "
                        + CrashWriter.firstDifference(atLastModel, found) + "\n" + c.stderr() + context);
            }
            if (at < last) {
                lost += last - at;
            }
            // every checkpoint made before the cut opens and holds the state after its op
            for (CrashChild.Checkpoint cp : c.checkpoints) {
                TreeMap<byte[], byte[]> inCp;
                try {
                    inCp = readStore(disk.resolve(cp.name()), variant);
                } catch (FerryException e) {
                    throw new AssertionError(what + ": checkpoint " + cp.name() + " (after op " + cp.id()
                            + ", made before the cut) does not open: " + e + context, e);
                }
                if (!CrashWriter.sameEntries(atCheckpoint.get(cp.id()), inCp)) {
                    fail(what + ": checkpoint " + cp.name() + " (after op " + cp.id() + ", made before the cut) differs: "
                            + CrashWriter.firstDifference(atCheckpoint.get(cp.id()), inCp) + context);
                }
                checkpoints++;
            }
            // every backup made before the cut restores to the state after its op
            if (!c.backups.isEmpty()) {
                try (Backups b = Backups.open(disk.resolve("backups"), binding())) {
                    for (CrashChild.Checkpoint bk : c.backups) {
                        Path restored = disk.resolve("cp-restore-" + bk.name());
                        TreeMap<byte[], byte[]> inBk;
                        try {
                            b.restore(Integer.parseInt(bk.name()), restored);
                            inBk = readStore(restored, variant);
                        } catch (FerryException e) {
                            throw new AssertionError(what + ": backup " + bk.name() + " (after op " + bk.id()
                                    + ", made before the cut) does not restore and open: " + e + context, e);
                        }
                        if (!CrashWriter.sameEntries(atCheckpoint.get(bk.id()), inBk)) {
                            fail(what + ": backup " + bk.name() + " (after op " + bk.id() + ", made before the cut) differs: "
                                    + CrashWriter.firstDifference(atCheckpoint.get(bk.id()), inBk) + context);
                        }
                        backups++;
                    }
                }
            }
            deleteCheckpoints(disk);
            history.append("\n    ").append(what);
            acked += c.acks;
            model = atModel;
            next = at + 1;
        }
        System.out.printf(Locale.ROOT,
                "power cut %s/%s: seed %d, %d rounds, %d acknowledged ops, %d acknowledged unsynced ops lost (%d of them below a surviving op),"
                        + " %d checkpoints and %d backups verified, %d entries, %.1f s%n",
                engine(), binding(), seed, rounds, acked, lost, holes, checkpoints, backups, model.size(), (System.nanoTime() - t0) / 1e9);
    }

    /** Removes the checkpoints, restores and backups (checked, or left unfinished by the kill) from the backing directory. */
    private static void deleteCheckpoints(Path disk) throws java.io.IOException {
        try (var dirs = Files.list(disk)) {
            for (Path cp : dirs.filter(p -> p.getFileName().toString().startsWith("cp-") || p.getFileName().toString().equals("backups"))
                    .toList()) {
                try (var tree = Files.walk(cp)) {
                    for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    private TreeMap<byte[], byte[]> readStore(Path db, String variant) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
        if (!Files.exists(db) && db.getFileName().toString().equals("db")) {
            return m; // killed before the store was created, or its name was never made durable
        }
        boolean store = db.getFileName().toString().equals("db"); // else a checkpoint, which must exist
        try (Store s = Store.open(db, CrashWriter.options(engine(), variant).createIfMissing(store).binding(binding()))) {
            s.scan(KeyRange.all(), (k, v) -> {
                m.put(k.toByteArray(), v.toByteArray());
                return true;
            });
        }
        return m;
    }
}
