package dev.ferry.fuzz;

import dev.ferry.Backups;
import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.EntryVisitor;
import dev.ferry.KeyRange;
import dev.ferry.LmdbStats;
import dev.ferry.ReadOptions;
import dev.ferry.Snapshot;
import dev.ferry.SstFileWriter;
import dev.ferry.Statistics;
import dev.ferry.Store;
import dev.ferry.Transaction;
import dev.ferry.fuzz.World.SnapRef;
import dev.ferry.fuzz.World.StoreRef;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The public methods {@link FuzzCoverageTest} found no other operation calling: a snapshot's
 * remaining read overloads (slices, buffers, read options, the default-family forms), a
 * transaction's write and read overloads (buffers, slices, default-family cursors and scans,
 * {@code getForUpdate(key)}, {@code isEnded}), {@code Store.merge(key, operand)},
 * {@code Store.statistics()} and what it returns, {@code Store.lmdbStats}, {@code
 * Store.beginTransaction()} and {@code inTransaction} (RocksDB, whose begin never waits for another
 * transaction), {@code checkpoint(dir)}, and the one-argument {@code Backups.open} and {@code
 * SstFileWriter.open}.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class MoreOps {
    private MoreOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("snapshotOverloads", 10, MoreOps::snapshotOverloads, true);
        t.add("storeMore", 6, MoreOps::storeMore, false);
        t.add("txnOverloads", 6, MoreOps::txnOverloads, true);
    }

    /** @return whether the store's default family was opened with a merge operator of its own (its column family options) */
    static boolean defaultFamilyMerges(Ctx c, Store st) {
        try {
            return c.world.familyMerge.contains(st.defaultColumnFamily());
        } catch (RuntimeException closed) {
            return false; // a closed store: the merge must throw anyway
        }
    }

    private static void snapshotOverloads(Ctx c) {
        SnapRef p = c.world.snapshots.pick(c.rnd);
        if (p == null) {
            return;
        }
        Snapshot sn = p.snap;
        if (sn.isClosed()) {
            c.closed("snapshot " + p);
        }
        if (p.foreignAndBound()) {
            c.foreign("another thread used an LMDB snapshot bound to its thread");
        }
        int op = c.rnd.nextInt(8);
        // only the calls that take a family pick one (and note what the call must do about it)
        Object[] f = op <= 3 ? snapFamily(c, p) : new Object[] {null, "default"};
        ColumnFamily cf = (ColumnFamily) f[0];
        switch (op) {
            case 0 -> {
                StringBuilder d = new StringBuilder();
                ByteBuffer k = c.oneIn(40) ? null : StoreOps.buffer(c, c.anyKey(), d);
                if (k == null) {
                    c.nullArg("key");
                }
                c.call(p + ".get(" + f[1] + ", " + d + ")", () -> sn.get(cf, k));
            }
            case 1 -> {
                byte[] k = c.key("key");
                int len = k == null ? 4 : k.length;
                int off = c.index(len, 0, true);
                int n = off >= 0 && off <= len && c.rnd.nextInt(4) != 0 ? c.rnd.nextInt(len - off + 1) : c.extreme();
                if (n < 0 || off < 0 || (long) off + n > len) {
                    c.badIndex(k == null ? null : "slice off=" + off + " len=" + n + " of " + len + " accepted");
                }
                c.call(p + ".get(" + f[1] + ", " + Ctx.hex(k) + ", " + off + ", " + n + ")", () -> sn.get(cf, k, off, n));
            }
            case 2 -> {
                byte[] k = c.key("key");
                ReadOptions o = readOptions(c);
                c.call(p + ".get(" + f[1] + ", " + Ctx.hex(k) + ", " + o + ")", () -> sn.get(cf, k, o));
            }
            case 3 -> {
                StringBuilder d = new StringBuilder();
                List<byte[]> ks = StoreOps.keys(c, d);
                ReadOptions o = readOptions(c);
                c.call(p + ".multiGet(" + f[1] + ", " + d + ", " + o + ")", () -> sn.multiGet(cf, ks, o));
            }
            case 4 -> {
                byte[] k = c.key("key");
                StringBuilder d = new StringBuilder();
                ByteBuffer into = c.oneIn(40) ? null : StoreOps.into(c, d);
                if (into == null) {
                    c.nullArg("into");
                }
                c.call(p + ".get(" + Ctx.hex(k) + ", into " + d + ")", () -> sn.get(k, into));
            }
            case 5 -> {
                StringBuilder d = new StringBuilder();
                List<byte[]> ks = StoreOps.keys(c, d);
                c.call(p + ".multiGet(" + d + ")", () -> sn.multiGet(ks));
            }
            case 6 -> c.call(p + ".cursor() walk", () -> {
                try (Cursor cur = sn.cursor()) {
                    for (int i = 0; i < 3 && cur.next(); i++) {
                        cur.keyBytes();
                    }
                }
            });
            default -> {
                StringBuilder d = new StringBuilder();
                KeyRange r = StoreOps.range(c, d);
                d.append(", ");
                Ctx.FuzzStop stop = new Ctx.FuzzStop();
                EntryVisitor v = StoreOps.visitor(c, d, p.store, sn, r, stop);
                c.call(p + ".scan(" + d + ")", () -> sn.scan(r, v));
            }
        }
    }

    /** A family for a snapshot call; one created after the snapshot must be refused. */
    private static Object[] snapFamily(Ctx c, SnapRef p) {
        Object[] f = StoreOps.family(c, p.store);
        if (f[0] != null) {
            for (World.CfRef r : c.world.families.all()) {
                if (r.cf == f[0] && r.store == p.store && r.createdAfter > p.takenBefore) {
                    c.mustThrow("a snapshot read a column family created after it was taken");
                }
            }
        }
        return f;
    }

    private static ReadOptions readOptions(Ctx c) {
        if (c.oneIn(30)) {
            c.nullArg("options");
            return null;
        }
        return ReadOptions.DEFAULT.fillCache(c.oneIn(2)).verifyChecksums(c.oneIn(2));
    }

    private static void storeMore(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        int op = c.rnd.nextInt(7);
        if (op <= 4) {
            StoreOps.closedStore(c, s);
        }
        switch (op) {
            case 0 -> {
                byte[] k = c.key("key");
                byte[] v = c.value("operand");
                if (c.world.engine == Engine.LMDB) {
                    c.mustThrow("a merge on LMDB");
                } else if (!s.mergeOperator && !defaultFamilyMerges(c, st)) {
                    c.mustThrow("a merge on a RocksDB store without a merge operator");
                }
                c.call(s + ".merge(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> st.merge(k, v));
            }
            case 1 -> c.call(s + ".statistics() and its readings", () -> {
                Statistics stats = st.statistics();
                stats.tickers();
                stats.histograms();
                Statistics.Ticker t = Statistics.Ticker.values()[c.rnd.nextInt(Statistics.Ticker.values().length)];
                if (stats.ticker(t) < 0 || stats.ticker(t.engineName()) < 0) {
                    c.wrong(s + ".statistics()", "a negative ticker " + t);
                }
                Statistics.HistogramType h = Statistics.HistogramType.values()[c.rnd.nextInt(Statistics.HistogramType.values().length)];
                Statistics.Histogram hv = stats.histogram(h);
                Statistics.Histogram hn = stats.histogram(h.engineName());
                if (hv != null && hn != null && (hv.count() < 0 || hv.sum() < 0 || Double.isNaN(hv.p50() + hv.p95() + hv.p99() + hv.max() + hv.average()))) {
                    c.wrong(s + ".statistics()", "histogram " + h + ": " + hv);
                }
                stats.ticker(c.oneIn(2) ? "rocksdb.no.such.ticker" : "");
                stats.histogram("rocksdb.no.such.histogram");
            });
            case 2 -> {
                Object[] f = StoreOps.family(c, s);
                c.call(s + ".lmdbStats(" + f[1] + ")", () -> {
                    LmdbStats ls = st.lmdbStats((ColumnFamily) f[0]);
                    if (ls.entries() < 0 || ls.depth() < 0 || ls.pageSize() <= 0 || ls.mapSize() <= 0 || ls.readers() < 0
                            || ls.maxReaders() <= 0 || ls.branchPages() < 0 || ls.leafPages() < 0 || ls.overflowPages() < 0
                            || ls.lastPage() < 0 || ls.lastTxnId() < 0) {
                        c.wrong(s + ".lmdbStats", "impossible statistics " + ls);
                    }
                });
            }
            case 3 -> {
                if (c.world.engine != Engine.ROCKSDB) {
                    return; // LMDB's begin waits for the writer another fuzz thread may hold
                }
                Transaction[] tx = new Transaction[1];
                if (c.call("t = " + s + ".beginTransaction()", () -> tx[0] = st.beginTransaction())) {
                    byte[] k = c.anyKey();
                    c.call("t.getForUpdate(" + Ctx.hex(k) + ") / t.isEnded() / t.rollback", () -> {
                        tx[0].getForUpdate(k);
                        // only a close of the store by another fuzz thread (a race op), which closes its
                        // transactions first, may end it: then it is closed too
                        if (tx[0].isEnded() && !tx[0].isClosed()) {
                            c.wrong("t.isEnded()", "a new transaction is ended but not closed");
                        }
                    });
                    if (c.call("t.close()", tx[0]::close) && (!tx[0].isEnded() || !tx[0].isClosed())) {
                        c.wrong("t.close()", "a closed transaction is not ended and closed");
                    }
                }
            }
            case 4 -> {
                if (c.world.engine != Engine.ROCKSDB) {
                    return;
                }
                Ctx.FuzzStop stop = new Ctx.FuzzStop();
                boolean fail = c.oneIn(3);
                if (fail) {
                    c.thrownByUs(stop);
                }
                byte[] k = c.anyKey();
                byte[] v = c.anyValue();
                int attempts = c.oneIn(5) ? c.extreme() : 1 + c.rnd.nextInt(3);
                if (c.oneIn(2)) {
                    c.call(s + ".inTransaction(put" + (fail ? ", then throw" : "") + ")", () -> st.inTransaction(t -> {
                        t.put(k, v);
                        if (fail) {
                            throw stop;
                        }
                        return null;
                    }));
                } else {
                    if (attempts < 1) {
                        c.mustThrow("inTransaction with " + attempts + " attempts accepted");
                    }
                    c.call(s + ".inTransaction(" + attempts + ", put" + (fail ? ", then throw" : "") + ")",
                            () -> st.inTransaction(attempts, t -> {
                                t.put(k, v);
                                if (fail) {
                                    throw stop;
                                }
                                return null;
                            }));
                }
            }
            case 5 -> {
                StoreOps.closedStore(c, s);
                Path dir = c.world.root.resolve("checkpoint-" + c.world.nextId());
                c.call(s + ".checkpoint(" + dir.getFileName() + ")", () -> st.checkpoint(dir));
                BackupOps.delete(dir);
            }
            default -> {
                Path dir = c.world.root.resolve("more-" + c.world.nextId());
                if (c.oneIn(2)) {
                    Backups[] out = new Backups[1];
                    // the one-argument form: the default binding (the child's ferry.binding)
                    if (c.call("Backups.open(" + dir.getFileName() + ")", () -> out[0] = Backups.open(dir))) {
                        c.call("b.path() / b.close()", () -> {
                            if (!out[0].path().equals(dir)) {
                                c.wrong("Backups.path()", out[0].path() + " for " + dir);
                            }
                            out[0].close();
                        });
                    }
                } else {
                    SstFileWriter[] out = new SstFileWriter[1];
                    Path file = dir.resolveSibling(dir.getFileName() + ".sst");
                    if (c.call("SstFileWriter.open(" + file.getFileName() + ")", () -> out[0] = SstFileWriter.open(file))) {
                        c.call("w.isFinished() / w.close()", () -> {
                            if (out[0].isFinished()) {
                                c.wrong("SstFileWriter.isFinished()", "a new writer is finished");
                            }
                            out[0].close();
                        });
                    }
                    try {
                        java.nio.file.Files.deleteIfExists(file);
                    } catch (java.io.IOException e) {
                        // left for the run's cleanup
                    }
                }
                BackupOps.delete(dir);
            }
        }
    }

    /** A transaction's overloads not called elsewhere, on a short transaction of its own. */
    private static void txnOverloads(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        StoreOps.closedStore(c, s);
        Transaction[] tx = new Transaction[1];
        if (!c.call("t = " + s + ".beginTransaction(0)", () -> tx[0] = s.store.beginTransaction(0))) {
            return;
        }
        Transaction t = tx[0];
        try {
            int op = c.rnd.nextInt(12);
            Object[] f = op <= 5 ? StoreOps.family(c, s) : new Object[] {null, "default"};
            ColumnFamily cf = (ColumnFamily) f[0];
            switch (op) {
                case 0 -> {
                    StringBuilder d = new StringBuilder();
                    ByteBuffer k = StoreOps.buffer(c, c.anyKey(), d);
                    c.call("t.delete(" + f[1] + ", " + d + ")", () -> t.delete(cf, k));
                }
                case 1 -> {
                    byte[] k = c.key("key");
                    int len = k == null ? 4 : k.length;
                    int off = c.index(len, 0, true);
                    int n = off >= 0 && off <= len && c.rnd.nextInt(4) != 0 ? c.rnd.nextInt(len - off + 1) : c.extreme();
                    if (n < 0 || off < 0 || (long) off + n > len) {
                        c.badIndex(k == null ? null : "slice off=" + off + " len=" + n + " of " + len + " accepted");
                    }
                    c.call("t.delete(" + f[1] + ", " + Ctx.hex(k) + ", " + off + ", " + n + ")", () -> t.delete(cf, k, off, n));
                }
                case 2 -> {
                    StringBuilder d = new StringBuilder();
                    ByteBuffer k = StoreOps.buffer(c, c.anyKey(), d);
                    c.call("t.get(" + f[1] + ", " + d + ")", () -> t.get(cf, k));
                }
                case 3 -> {
                    StringBuilder d = new StringBuilder();
                    ByteBuffer k = StoreOps.buffer(c, c.anyKey(), d);
                    d.append(", into ");
                    ByteBuffer into = StoreOps.into(c, d);
                    c.call("t.get(" + f[1] + ", " + d + ")", () -> t.get(cf, k, into));
                }
                case 4 -> {
                    StringBuilder d = new StringBuilder();
                    ByteBuffer k = StoreOps.buffer(c, c.anyKey(), d);
                    d.append(", ");
                    ByteBuffer v = StoreOps.buffer(c, c.anyValue(), d);
                    c.call("t.put(" + f[1] + ", " + d + ")", () -> t.put(cf, k, v));
                }
                case 5 -> {
                    byte[] k = c.anyKey();
                    byte[] v = c.anyValue();
                    int ko = c.oneIn(5) ? c.extreme() : 0;
                    int vo = c.oneIn(5) ? c.extreme() : 0;
                    int kl = k.length;
                    int vl = v.length;
                    if (ko != 0 || vo != 0) {
                        c.badIndex("an offset of " + ko + "/" + vo + " accepted");
                    }
                    c.call("t.put(" + f[1] + ", " + Ctx.hex(k) + " at " + ko + ", value at " + vo + ")", () -> t.put(cf, k, ko, kl, v, vo, vl));
                }
                case 6 -> {
                    byte[] k = c.key("key");
                    c.call("t.getForUpdate(" + Ctx.hex(k) + ")", () -> t.getForUpdate(k));
                }
                case 7 -> {
                    byte[] k = c.key("key");
                    byte[] v = c.value("operand");
                    if (c.world.engine == Engine.LMDB) {
                        c.mustThrow("a transaction's merge on LMDB");
                    } else if (!s.mergeOperator && !defaultFamilyMerges(c, s.store)) {
                        // the default family's own options may name one (as TxnOps and the store's merge above ask)
                        c.mustThrow("a transaction's merge on a RocksDB store without a merge operator");
                    }
                    c.call("t.merge(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> t.merge(k, v));
                }
                case 8 -> c.call("t.cursor() walk", () -> {
                    try (Cursor cur = t.cursor()) {
                        for (int i = 0; i < 3 && cur.next(); i++) {
                            cur.keyBytes();
                        }
                    }
                });
                case 9 -> {
                    StringBuilder d = new StringBuilder();
                    KeyRange r = c.oneIn(40) ? null : StoreOps.range(c, d);
                    if (r == null) {
                        c.nullArg("range");
                    }
                    c.call("t.cursor(" + d + ") walk", () -> {
                        try (Cursor cur = t.cursor(r)) {
                            for (int i = 0; i < 3 && cur.next(); i++) {
                                cur.keyBytes();
                            }
                        }
                    });
                }
                case 10 -> {
                    StringBuilder d = new StringBuilder();
                    KeyRange r = StoreOps.range(c, d);
                    c.call("t.scan(" + d + ")", () -> t.scan(r, (k, v) -> k.length() >= 0));
                }
                default -> c.call("t.isEnded() after commit", () -> {
                    // another fuzz thread may close the store, which closes its transactions: only an
                    // ended transaction that nobody closed is wrong
                    if (t.isEnded() && !t.isClosed()) {
                        c.wrong("t.isEnded()", "an open transaction is ended");
                    }
                    t.commit();
                    if (!t.isEnded()) {
                        c.wrong("t.isEnded()", "a committed transaction is not ended");
                    }
                });
            }
        } finally {
            c.call("t.close()", t::close);
        }
    }
}
