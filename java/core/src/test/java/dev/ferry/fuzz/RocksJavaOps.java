package dev.ferry.fuzz;

import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.fuzz.World.BatchRef;
import dev.ferry.fuzz.World.CurRef;
import dev.ferry.rocksjava.RocksInterop;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/**
 * Misuse of {@link RocksInterop} (RocksDB children only): Ferry cursors, point reads and writes
 * over RocksJava objects that are open, closed, of another database, or null. The fuzzer itself
 * follows RocksJava's own rules (it closes iterators, releases snapshots and closes family handles
 * before their database, never uses a released snapshot, and serialises every call that can reach
 * a RocksJava object under one lock, as RocksInterop's documentation requires: "a RocksJava close
 * on another thread during a Ferry call" is outside what Ferry can check). Everything Ferry says
 * it checks is fair game: closed databases, families and iterators, families of other databases,
 * Ferry cursors left open after their database closed, wrapped iterators closed under the cursor.
 *
 * <p>Thread safety: every operation holds {@link #LOCK}.
 */
final class RocksJavaOps {
    /** Held around every call that can reach a RocksJava object (also by interop cursors' moves and closes). */
    static final Object LOCK = new Object();
    private static final List<Db> DBS = new ArrayList<>();

    /** A RocksJava database and the RocksJava objects the fuzzer made on it. */
    private static final class Db {
        final int id;
        final RocksDB db;
        final List<ColumnFamilyHandle> families = new ArrayList<>();
        final List<Snapshot> snapshots = new ArrayList<>();
        final List<RocksIterator> iterators = new ArrayList<>();
        /** Closed RocksJava objects kept to pass to Ferry (never used by RocksJava again). */
        final List<ColumnFamilyHandle> closedFamilies = new ArrayList<>();
        final List<RocksIterator> closedIterators = new ArrayList<>();
        boolean closed;

        Db(int id, RocksDB db) {
            this.id = id;
            this.db = db;
        }

        @Override
        public String toString() {
            return "rj" + id;
        }
    }

    private RocksJavaOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        RocksDB.loadLibrary();
        t.add("rocksInterop", 50, RocksJavaOps::op, false);
    }

    private static void op(Ctx c) throws Throwable {
        synchronized (LOCK) {
            Db d = DBS.isEmpty() ? null : DBS.get(c.rnd.nextInt(DBS.size()));
            int r = c.rnd.nextInt(40);
            if (d == null || (r == 0 && DBS.size() < 3)) {
                open(c);
                return;
            }
            if (r == 1 && !d.closed) {
                close(c, d);
                return;
            }
            if (r == 2 && DBS.size() > 4 && d.closed) {
                DBS.remove(d);
                return;
            }
            if (d.closed || r < 12) {
                interop(c, d);
            } else {
                rocksJava(c, d);
            }
        }
    }

    private static void open(Ctx c) {
        int id = c.world.nextId();
        Path dir = c.world.root.resolve("rocksjava-" + id);
        RocksDB[] out = new RocksDB[1];
        c.allow(org.rocksdb.RocksDBException.class);
        if (c.call("rj" + id + " = RocksDB.open(" + dir.getFileName() + ")", () -> {
            dir.toFile().mkdirs();
            try (Options o = new Options().setCreateIfMissing(true)) {
                out[0] = RocksDB.open(o, dir.toString());
            }
            for (int i = 0; i < 200; i++) {
                out[0].put(new byte[] {(byte) (i * 7), (byte) i}, new byte[i % 40]);
            }
        })) {
            DBS.add(new Db(id, out[0]));
        }
    }

    /** Closes a database the RocksJava way (its iterators, snapshots and handles first); Ferry's cursors stay. */
    private static void close(Ctx c, Db d) {
        c.call(d + " close (RocksJava: iterators, snapshots, families, then the database)", () -> {
            for (RocksIterator it : d.iterators) {
                it.close();
                d.closedIterators.add(it);
            }
            d.iterators.clear();
            for (Snapshot s : d.snapshots) {
                d.db.releaseSnapshot(s);
            }
            d.snapshots.clear();
            for (ColumnFamilyHandle h : d.families) {
                h.close();
                d.closedFamilies.add(h);
            }
            d.families.clear();
            d.closed = true;
            d.db.close();
        });
    }

    static void closeAll(Ctx c) {
        synchronized (LOCK) {
            for (Db d : DBS) {
                if (!d.closed) {
                    close(c, d);
                }
            }
            DBS.clear();
        }
    }

    /** RocksJava-side steps that change what Ferry later sees. */
    private static void rocksJava(Ctx c, Db d) {
        c.allow(org.rocksdb.RocksDBException.class); // RocksJava's own refusals (e.g. a family that exists)
        switch (c.rnd.nextInt(7)) {
            case 0: {
                String name = "rf" + c.rnd.nextInt(4);
                c.call(d + ".createColumnFamily(" + name + ")", () -> {
                    for (ColumnFamilyHandle h : d.families) {
                        if (new String(h.getName(), StandardCharsets.UTF_8).equals(name)) {
                            return;
                        }
                    }
                    d.families.add(d.db.createColumnFamily(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8))));
                });
                break;
            }
            case 1:
                if (!d.families.isEmpty()) {
                    ColumnFamilyHandle h = d.families.remove(c.rnd.nextInt(d.families.size()));
                    c.call(d + " closes a family handle", () -> {
                        h.close();
                        d.closedFamilies.add(h);
                    });
                }
                break;
            case 2:
                c.call(d + ".getSnapshot()", () -> d.snapshots.add(d.db.getSnapshot()));
                break;
            case 3:
                if (!d.snapshots.isEmpty()) {
                    Snapshot s = d.snapshots.remove(c.rnd.nextInt(d.snapshots.size()));
                    c.call(d + ".releaseSnapshot()", () -> d.db.releaseSnapshot(s));
                }
                break;
            case 4: {
                byte[] k = c.anyKey();
                c.call(d + ".newIterator().seek(" + Ctx.hex(k) + ")", () -> {
                    RocksIterator it = d.db.newIterator();
                    it.seek(k);
                    d.iterators.add(it);
                });
                break;
            }
            case 5:
                if (!d.iterators.isEmpty()) {
                    RocksIterator it = d.iterators.remove(c.rnd.nextInt(d.iterators.size()));
                    c.call(d + " closes an iterator (a Ferry cursor may still wrap it)", () -> {
                        it.close();
                        d.closedIterators.add(it);
                    });
                }
                break;
            default: {
                byte[] k = c.anyKey();
                byte[] v = c.anyValue();
                c.call(d + ".put(" + Ctx.hex(k) + ")", () -> d.db.put(k, v));
                break;
            }
        }
    }

    /** @return a family handle for a Ferry call on {@code d}: null (default), one of d's, a closed one, or another database's */
    private static Object[] family(Ctx c, Db d) {
        int r = c.rnd.nextInt(10);
        if (r < 4 || d.closed) {
            return new Object[] {null, "null"};
        }
        if (r < 7 && !d.families.isEmpty()) {
            return new Object[] {d.families.get(c.rnd.nextInt(d.families.size())), d + ".family"};
        }
        if (r < 8 && !d.closedFamilies.isEmpty()) {
            c.mustThrow("a closed ColumnFamilyHandle accepted");
            return new Object[] {d.closedFamilies.get(c.rnd.nextInt(d.closedFamilies.size())), d + ".closedFamily"};
        }
        for (Db o : DBS) {
            if (o != d && !o.closed && !o.families.isEmpty()) {
                c.mustThrow("a ColumnFamilyHandle of another RocksDB accepted");
                return new Object[] {o.families.get(0), o + ".family"};
            }
        }
        return new Object[] {null, "null"};
    }

    private static void interop(Ctx c, Db d) {
        int op = c.rnd.nextInt(11);
        if (op == 10) {
            c.call("RocksInterop.binding()", () -> {
                if (!RocksInterop.binding().equals(c.world.binding)) {
                    c.wrong("RocksInterop.binding()", "binding " + RocksInterop.binding() + " but -Dferry.binding=" + c.world.binding);
                }
            });
            return;
        }
        boolean whole = op <= 1 && c.oneIn(4); // RocksInterop.cursor(db): no family, snapshot or range
        boolean defaultWrite = (op == 8 || op == 9) && c.oneIn(2); // RocksInterop.write(db, batch): no family
        BatchRef batch = null;
        if (op == 8 || op == 9) {
            // made before the expectations below, which are for the write call
            batch = c.world.batches.pick(c.rnd);
            if (batch == null) {
                batch = StoreOps.newBatch(c);
                StoreOps.fillBatch(c, batch, null, 1 + c.rnd.nextInt(5));
            }
            c.resetPending();
        }
        RocksDB db = c.oneIn(40) ? null : d.db;
        if (db == null) {
            c.nullArg("db");
        } else if (d.closed) {
            c.closed("RocksDB " + d);
        }
        String dn = db == null ? "null" : d.toString();
        Object[] f = whole || defaultWrite || op == 2 ? new Object[] {null, "null"} : family(c, d);
        ColumnFamilyHandle cf = (ColumnFamilyHandle) f[0];
        Snapshot snap = !d.closed && !d.snapshots.isEmpty() && c.oneIn(2) ? d.snapshots.get(c.rnd.nextInt(d.snapshots.size())) : null;
        switch (op) {
            case 0: case 1: {
                StringBuilder sb = new StringBuilder();
                KeyRange range = whole ? null : c.oneIn(30) ? null : StoreOps.range(c, sb);
                if (range == null && !whole) {
                    c.nullArg("range");
                }
                Cursor[] out = new Cursor[1];
                int id = c.world.nextId();
                if (c.call("c" + id + " = RocksInterop.cursor(" + dn + (whole ? "" : ", " + f[1] + ", " + (snap == null ? "null" : "snap") + ", " + sb)
                        + ")", () -> out[0] = whole ? RocksInterop.cursor(db) : RocksInterop.cursor(db, cf, snap, range))) {
                    c.world.keep(c, new CurRef(id, out[0], Thread.currentThread(), whole ? KeyRange.all() : range, null, LOCK));
                }
                break;
            }
            case 2: {
                c.resetPending(); // wrap takes only the iterator
                RocksIterator it = pickIterator(c, d);
                Cursor[] out = new Cursor[1];
                int id = c.world.nextId();
                if (c.call("c" + id + " = RocksInterop.wrap(" + (it == null ? "null" : "iterator") + ")", () -> out[0] = RocksInterop.wrap(it))) {
                    c.world.keep(c, new CurRef(id, out[0], Thread.currentThread(), KeyRange.all(), null, LOCK));
                }
                break;
            }
            case 3: {
                byte[] k = c.key("key");
                c.call("RocksInterop.get(" + dn + ", " + f[1] + ", " + Ctx.hex(k) + ")", () -> RocksInterop.get(db, cf, k));
                break;
            }
            case 4: {
                byte[] k = c.key("key");
                c.call("RocksInterop.get(" + dn + ", " + f[1] + ", snap, " + Ctx.hex(k) + ")", () -> RocksInterop.get(db, cf, snap, k));
                break;
            }
            case 5: {
                byte[] k = c.key("key");
                StringBuilder sb = new StringBuilder();
                ByteBuffer into = c.oneIn(30) ? null : StoreOps.into(c, sb);
                if (into == null) {
                    c.nullArg("into");
                }
                c.call("RocksInterop.get(" + dn + ", " + f[1] + ", " + Ctx.hex(k) + ", " + sb + ")", () -> RocksInterop.get(db, cf, k, into));
                break;
            }
            case 6: {
                StringBuilder sb = new StringBuilder();
                List<byte[]> keys = StoreOps.keys(c, sb);
                c.call("RocksInterop.multiGet(" + dn + ", " + f[1] + ", " + (snap == null ? "null" : "snap") + ", " + sb + ")",
                        () -> RocksInterop.multiGet(db, cf, snap, keys));
                break;
            }
            case 7: {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                c.call("RocksInterop.put(" + dn + ", " + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> RocksInterop.put(db, cf, k, v));
                break;
            }
            case 8: case 9: {
                BatchRef w = batch;
                w.touch();
                c.racy(() -> w.shared);
                if (defaultWrite) {
                    c.call("RocksInterop.write(" + dn + ", " + w + ")", () -> RocksInterop.write(db, w.batch));
                } else {
                    c.call("RocksInterop.write(" + dn + ", " + f[1] + ", " + w + ")", () -> RocksInterop.write(db, cf, w.batch));
                }
                break;
            }
            default:
                break;
        }
    }

    private static RocksIterator pickIterator(Ctx c, Db d) {
        int r = c.rnd.nextInt(10);
        if (r == 0) {
            c.nullArg("iterator");
            return null;
        }
        if (r < 3 && !d.closedIterators.isEmpty()) {
            c.mustThrow("a closed RocksIterator accepted");
            return d.closedIterators.get(c.rnd.nextInt(d.closedIterators.size()));
        }
        if (!d.iterators.isEmpty()) {
            return d.iterators.get(c.rnd.nextInt(d.iterators.size()));
        }
        if (d.closed) {
            c.nullArg("iterator");
            return null;
        }
        RocksIterator it = d.db.newIterator();
        d.iterators.add(it);
        return it;
    }
}
