package dev.ferry.fuzz;

import dev.ferry.Backups;
import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.fuzz.World.StoreRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Operations on {@link Store#checkpoint(Path, boolean)} and {@link Backups}: into new, existing
 * and null directories, on closed stores and closed backup directories, with compaction on either
 * engine, from every fuzz thread (a {@code Backups} is shared between them). Copies and restores
 * are deleted again, so a run's disk use stays small.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class BackupOps {
    private BackupOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        // a checkpoint flushes (RocksDB) or copies the map (LMDB); a backup copies table files: rare
        t.add("checkpoint", 2, BackupOps::checkpoint, true);
        t.add("backups", 2, BackupOps::backups, true);
    }

    private static void checkpoint(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        StoreOps.closedStore(c, s);
        int op = c.rnd.nextInt(8);
        Path dir = c.world.root.resolve("checkpoint-" + c.world.nextId());
        boolean compact = c.oneIn(3);
        boolean sync = !c.oneIn(3);
        if (op == 0) {
            c.nullArg("dir");
            c.call(s + ".checkpoint(null, " + compact + ", " + sync + ")", () -> st.checkpoint(null, compact, sync));
            return;
        }
        if (op == 1) { // an existing directory (a store's own, or an empty one)
            Path existing = c.oneIn(2) ? s.dir : dir;
            try {
                Files.createDirectories(existing);
            } catch (IOException e) {
                return;
            }
            c.mustThrow("checkpoint into an existing directory");
            c.call(s + ".checkpoint(" + existing.getFileName() + " (exists), " + compact + ")",
                    () -> st.checkpoint(existing, compact));
            delete(dir);
            return;
        }
        if (compact && c.world.engine == Engine.ROCKSDB) {
            c.mustThrow("compact=true on RocksDB");
        }
        if (sync) {
            c.call(s + ".checkpoint(" + dir.getFileName() + ", " + compact + ")", () -> st.checkpoint(dir, compact));
        } else {
            c.call(s + ".checkpoint(" + dir.getFileName() + ", " + compact + ", false)",
                    () -> st.checkpoint(dir, compact, false));
        }
        delete(dir);
    }

    private static void backups(Ctx c) {
        Backups b = c.world.backups.pick(c.rnd);
        if (b == null || c.oneIn(8)) {
            Path dir = c.world.root.resolve("backups-" + c.world.nextId());
            Backups[] out = new Backups[1];
            if (c.call("Backups.open(" + dir.getFileName() + ", " + c.world.binding + ")",
                    () -> out[0] = Backups.open(dir, c.world.binding))) {
                Backups old = c.world.backups.add(c.rnd, out[0]);
                if (old != null && c.oneIn(2)) {
                    c.call(old + ".close() (displaced from the pool)", old::close);
                }
            }
            return;
        }
        int op = c.rnd.nextInt(8);
        // the target store is picked (possibly opened, a call of its own) before any expectation is noted
        StoreRef s = op <= 1 ? StoreOps.anyStore(c) : null;
        if (op <= 1 && s == null) {
            return;
        }
        if (b.isClosed()) {
            c.closed(b.toString());
        }
        switch (op) {
            case 0:
            case 1: {
                if (c.oneIn(10)) {
                    c.nullArg("store");
                    c.call(b + ".create(null)", () -> b.create(null));
                    return;
                }
                if (s.store.isClosed()) {
                    c.closed("store " + s);
                }
                if (c.world.engine != Engine.ROCKSDB) {
                    c.mustThrow("a backup of an LMDB store");
                }
                c.call(b + ".create(" + s + ")", () -> b.create(s.store));
                break;
            }
            case 2:
                c.call(b + ".list()", b::list);
                break;
            case 3:
            case 4: {
                Path dir = c.world.root.resolve("restore-" + c.world.nextId());
                int id = c.rnd.nextInt(4);
                if (c.oneIn(10)) {
                    c.nullArg("dbDir");
                    c.call(b + ".restoreLatest(null)", () -> b.restoreLatest(null));
                } else if (id == 0) {
                    c.call(b + ".restoreLatest(" + dir.getFileName() + ")", () -> b.restoreLatest(dir));
                } else {
                    int bad = c.oneIn(5) ? -id : id;
                    if (bad <= 0) {
                        c.mustThrow("a backup id below 1");
                    }
                    c.call(b + ".restore(" + bad + ", " + dir.getFileName() + ")", () -> b.restore(bad, dir));
                }
                delete(dir);
                break;
            }
            case 5: {
                int keep = c.oneIn(5) ? -1 : c.rnd.nextInt(3);
                if (keep < 0) {
                    c.mustThrow("a negative keep");
                }
                c.call(b + ".purgeOldBackups(" + keep + ")", () -> b.purgeOldBackups(keep));
                break;
            }
            default:
                c.resetPending(); // close is idempotent: it may return normally on a closed Backups
                c.call(b + ".close()", b::close);
                break;
        }
    }

    /** Deletes a directory tree the fuzzer made, ignoring what cannot be deleted. */
    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // left for the run's directory cleanup
        }
    }
}
