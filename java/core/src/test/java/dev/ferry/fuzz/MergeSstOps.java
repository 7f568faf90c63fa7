package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.SstFileWriter;
import dev.ferry.Store;
import dev.ferry.fuzz.World.StoreRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Operations on {@link Store#merge}, {@link SstFileWriter} and {@link Store#ingest}: merges on
 * stores with and without a merge operator (LMDB must refuse), writers shared between threads fed
 * keys in and out of order, finished twice, closed and used again, and ingestion of finished,
 * unfinished, missing and null files into live, dropped and closed families. Files are deleted
 * again, so a run's disk use stays small.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class MergeSstOps {
    private MergeSstOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("merge", 20, MergeSstOps::merge, true);
        t.add("sstWriter", 6, MergeSstOps::sstWriter, true);
        t.add("ingest", 2, MergeSstOps::ingest, true);
    }

    private static void merge(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        StoreOps.closedStore(c, s);
        Object[] f = StoreOps.family(c, s);
        byte[] k = c.key("key");
        byte[] v = c.value("operand");
        if (c.world.engine == Engine.LMDB) {
            c.mustThrow("a merge on LMDB");
        } else if (!s.mergeOperator && (f[0] == null || !c.world.familyMerge.contains(f[0]))) {
            c.mustThrow("a merge on a RocksDB store without a merge operator");
        } else if (Ctx.validKey(k) && v != null && !s.readOnly) {
            c.validWrite((ColumnFamily) f[0]);
        }
        c.call(s + ".merge(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> st.merge((ColumnFamily) f[0], k, v));
    }

    /** A pooled writer or a new one. */
    private static SstFileWriter writer(Ctx c) {
        SstFileWriter w = c.world.sstWriters.pick(c.rnd);
        if (w != null && !c.oneIn(6)) {
            return w;
        }
        Path p = c.world.root.resolve("sst-" + c.world.nextId() + ".sst");
        String opts = c.oneIn(8) ? new String[] {"compression=kNoCompression", "comparator=foo", "bogus=1", "merge_operator=sortlist"}[c.rnd.nextInt(4)] : null;
        SstFileWriter[] out = new SstFileWriter[1];
        if (!c.call("SstFileWriter.open(" + p.getFileName() + ", " + opts + ", " + c.world.binding + ")",
                () -> out[0] = SstFileWriter.open(p, opts, c.world.binding))) {
            return null;
        }
        SstFileWriter old = c.world.sstWriters.add(c.rnd, out[0]);
        if (old != null && c.oneIn(2)) {
            c.call(old + ".close() (displaced from the pool)", old::close);
            delete(old.path());
        }
        return out[0];
    }

    private static void sstWriter(Ctx c) {
        SstFileWriter w = writer(c);
        if (w == null) {
            return;
        }
        int op = c.rnd.nextInt(10);
        boolean closed = w.isClosed();
        if (closed) {
            c.closed(w.toString());
        }
        switch (op) {
            case 0:
            case 1:
            case 2: { // keys mostly increasing: a run of sorted keys, sometimes one out of order
                int n = 1 + c.rnd.nextInt(20);
                List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    keys.add(c.anyKey());
                }
                keys.sort(java.util.Arrays::compareUnsigned);
                if (c.oneIn(3)) {
                    java.util.Collections.swap(keys, 0, keys.size() - 1);
                }
                for (byte[] k : keys) {
                    int kind = c.rnd.nextInt(5);
                    byte[] v = c.anyValue();
                    c.quiet(() -> w + (kind == 0 ? ".delete(" : kind == 1 ? ".merge(" : ".put(") + Ctx.hex(k) + ")", () -> {
                        if (kind == 0) {
                            w.delete(k);
                        } else if (kind == 1) {
                            w.merge(k, v);
                        } else {
                            w.put(k, v);
                        }
                    });
                }
                break;
            }
            case 3: {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                c.call(w + ".put(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> w.put(k, v));
                break;
            }
            case 4:
            case 5:
                c.call(w + ".finish()", w::finish);
                break;
            case 6:
                c.call(w + ".entries()", w::entries);
                break;
            default:
                c.resetPending(); // close is idempotent
                c.call(w + ".close()", w::close);
                break;
        }
    }

    private static void ingest(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        int r = c.rnd.nextInt(10);
        List<Path> files = new ArrayList<>();
        Path made = null;
        if (r == 0) {
            c.nullArg("files");
            files = null;
        } else if (r == 1) {
            c.mustThrow("an empty file list");
        } else if (r == 2) {
            files.add(c.world.root.resolve("absent-" + c.world.nextId() + ".sst"));
            c.mustThrow("a missing SST file");
        } else {
            // a fresh, finished file of sorted keys (merge operands only into stores with an operator)
            made = c.world.root.resolve("ingest-" + c.world.nextId() + ".sst");
            boolean merges = s.mergeOperator;
            Path p = made;
            long seed = c.rnd.nextLong();
            if (!c.call("SstFileWriter " + p.getFileName() + " (seed " + seed + ", merges " + merges + ")", () -> {
                java.util.Random rr = new java.util.Random(seed);
                try (SstFileWriter w = SstFileWriter.open(p, null, c.world.binding)) {
                    int n = 1 + rr.nextInt(50);
                    for (int i = 0; i < n; i++) {
                        byte[] k = {(byte) 'i', (byte) (i >> 8), (byte) i, (byte) rr.nextInt(256)};
                        if (merges && rr.nextInt(4) == 0) {
                            w.merge(k, new byte[8]);
                        } else {
                            w.put(k, new byte[rr.nextInt(40)]);
                        }
                    }
                    w.finish();
                }
            })) {
                return;
            }
            files.add(p);
        }
        Object[] f = StoreOps.family(c, s);
        boolean move = c.oneIn(2);
        StoreOps.closedStore(c, s); // noted last: the file was written by calls of its own
        if (c.world.engine == Engine.LMDB) {
            c.mustThrow("ingestion into LMDB");
        }
        List<Path> fl = files;
        c.call(s + ".ingest(" + f[1] + ", " + fl + ", " + move + ")", () -> st.ingest((ColumnFamily) f[0], fl, move));
        if (made != null) {
            delete(made);
        }
    }

    private static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (java.io.IOException | RuntimeException e) {
            // left for the run's directory cleanup
        }
    }
}
