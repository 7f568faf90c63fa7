package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.ReadOptions;
import dev.ferry.Store;
import dev.ferry.Transaction;
import dev.ferry.WriteBatch;
import dev.ferry.fuzz.World.StoreRef;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Write transactions: begin one on any store (closed, read-only, RocksDB without transactions,
 * LMDB while another fuzz thread holds the writer: never waiting long), run a few random calls
 * through it (reads, reads for update, writes and batches with any record kind on any family,
 * cursors left open or closed, a store write on the same thread, which must not deadlock on LMDB,
 * a call from another thread, which must throw), then end it by commit, a second commit, close,
 * or (RocksDB) by dropping it for the cleaner. Nothing is kept between operations: an LMDB
 * transaction holds its store's only writer.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class TxnOps {
    private TxnOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("txn", 16, TxnOps::txn, true);
    }

    private static void txn(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        StoreOps.closedStore(c, s);
        long timeout = c.oneIn(2) ? 0 : 20; // never wait long: another fuzz thread may hold LMDB's writer
        Transaction[] tx = new Transaction[1];
        if (!c.call("t = " + s + ".beginTransaction(" + timeout + ")", () -> tx[0] = st.beginTransaction(timeout))) {
            return;
        }
        Transaction t = tx[0];
        int steps = 1 + c.rnd.nextInt(8);
        for (int i = 0; i < steps; i++) {
            step(c, s, t);
        }
        switch (c.rnd.nextInt(5)) {
            case 0:
                c.call("t.commit()", t::commit);
                break;
            case 1:
                if (c.call("t.commit()", t::commit)) {
                    c.mustThrow("a second commit returned normally");
                    c.call("t.commit() again", t::commit);
                }
                break;
            case 2:
                if (c.world.engine == Engine.ROCKSDB) {
                    tx[0] = null; // the cleaner rolls it back (an LMDB one would hold the store's writer until a GC)
                    return;
                }
                break;
            default:
                break;
        }
        c.call("t.close()", t::close);
        c.call("t.close() again", t::close);
    }

    private static void step(Ctx c, StoreRef s, Transaction t) {
        int op = c.rnd.nextInt(20);
        if (op >= 18) {
            savepoints(c, t);
            return;
        }
        if (op >= 11) {
            views(c, s, t, op);
            return;
        }
        if (op >= 9) {
            bystander(c, s, t, op);
            return;
        }
        // the argument helpers note what the next call must do: called only right before that call
        Object[] f = StoreOps.family(c, s);
        ColumnFamily cf = (ColumnFamily) f[0];
        byte[] k = op <= 4 || op == 6 ? c.key("key") : c.anyKey(); // batches, cursors and scans take no key argument
        switch (op) {
            case 0 -> c.call("t.get(" + f[1] + ", " + Ctx.hex(k) + ")", () -> t.get(cf, k));
            case 1 -> c.call("t.getForUpdate(" + f[1] + ", " + Ctx.hex(k) + ")", () -> t.getForUpdate(cf, k));
            case 2 -> {
                byte[] v = c.value("value");
                if (c.call("t.put(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> t.put(cf, k, v))) {
                    c.call("t.get(" + f[1] + ", " + Ctx.hex(k) + ") after its put", () -> {
                        if (t.get(cf, k) == null) {
                            c.wrong("t.get after t.put", "the transaction does not see its own put of " + Ctx.hex(k));
                        }
                    });
                }
            }
            case 3 -> c.call("t.delete(" + f[1] + ", " + Ctx.hex(k) + ")", () -> t.delete(cf, k));
            case 4 -> {
                byte[] e = c.key("end");
                c.call("t.deleteRange(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(e) + ")", () -> t.deleteRange(cf, k, e));
            }
            case 5 -> {
                int n = 1 + c.rnd.nextInt(5);
                c.call("t.write(batch of " + n + " on " + f[1] + ")", () -> {
                    try (WriteBatch b = new WriteBatch()) {
                        for (int i = 0; i < n; i++) {
                            byte[] bk = c.anyKey();
                            byte[] bv = c.anyValue();
                            switch (c.rnd.nextInt(5)) {
                                case 0 -> b.put(cf, bk, bv);
                                case 1 -> b.delete(cf, bk);
                                case 2 -> b.merge(cf, bk, bv);
                                case 3 -> b.delete(cf, bk, bv);
                                default -> b.deleteRange(cf, bk, bv);
                            }
                        }
                        t.write(b);
                    }
                });
            }
            case 6 -> c.call("t.multiGet(" + f[1] + ", 3 keys)", () -> t.multiGet(cf, List.of(k, c.anyKey(), c.anyKey())));
            case 7 -> c.call("t.cursor(" + f[1] + ") walk", () -> {
                Cursor cur = t.cursor(cf, KeyRange.all(), null);
                for (int i = 0; i < 4 && cur.next(); i++) {
                    cur.keyBytes();
                }
                if (!c.oneIn(3)) {
                    cur.close(); // else left open: the transaction's end must close it
                }
            });
            case 8 -> c.call("t.scan(" + f[1] + ")", () -> t.scan(cf, KeyRange.all(), (kk, vv) -> kk.length() >= 0));
            default -> throw new AssertionError(op);
        }
    }

    /**
     * The {@link dev.ferry.StoreReader} and {@link dev.ferry.StoreWriter} calls a transaction inherits
     * beyond the plain ones: reads with {@link ReadOptions} (or null), the short forms on the default
     * family, slices and buffers, {@code valueCount}, merges (refused on LMDB and without a merge
     * operator), one-value deletes (on LMDB DUPSORT families from the pool, and elsewhere).
     */
    private static void views(Ctx c, StoreRef s, Transaction t, int op) {
        // the family is picked (and what the call must do about it noted) only for the calls that take one
        boolean takesFamily = op != 17;
        Object[] f = takesFamily ? StoreOps.family(c, s) : new Object[] {null, "default"};
        ColumnFamily cf = (ColumnFamily) f[0];
        switch (op) {
            case 11 -> {
                ReadOptions o = c.oneIn(30) ? null : ReadOptions.DEFAULT.fillCache(c.oneIn(2)).verifyChecksums(c.oneIn(2));
                if (o == null) {
                    c.nullArg("options");
                }
                byte[] k = c.key("key");
                c.call("t.get(" + f[1] + ", " + Ctx.hex(k) + ", " + o + ")", () -> t.get(cf, k, o));
            }
            case 12 -> {
                ReadOptions o = c.oneIn(30) ? null : ReadOptions.DEFAULT.verifyChecksums(c.oneIn(2));
                if (o == null) {
                    c.nullArg("options");
                }
                List<byte[]> keys = c.oneIn(30) ? null : new java.util.ArrayList<>(List.of(c.anyKey(), c.anyKey()));
                if (keys == null) {
                    c.nullArg("keys");
                } else if (c.oneIn(20)) {
                    keys.add(null);
                    c.nullArg("a key");
                }
                c.call("t.multiGet(" + f[1] + ", keys, " + o + ")", () -> t.multiGet(cf, keys, o));
            }
            case 13 -> {
                byte[] k = c.key("key");
                c.call("t.valueCount(" + f[1] + ", " + Ctx.hex(k) + ")", () -> {
                    long n = t.valueCount(cf, k);
                    if (n < 0 || (n > 1 && !cf.hasDuplicates())) {
                        c.wrong("t.valueCount", n + " values in a family without duplicates");
                    }
                });
            }
            case 14 -> {
                byte[] k = c.key("key");
                byte[] v = c.value("operand");
                if (c.world.engine == Engine.LMDB) {
                    c.mustThrow("a transaction's merge on LMDB");
                } else if (!s.mergeOperator && (cf == null ? !MoreOps.defaultFamilyMerges(c, s.store)
                        : !c.world.familyMerge.contains(cf))) {
                    c.mustThrow("a transaction's merge on a RocksDB store without a merge operator");
                }
                c.call("t.merge(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> t.merge(cf, k, v));
            }
            case 15 -> {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                boolean put = c.oneIn(2);
                c.call("t.put+delete(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> {
                    if (put) {
                        t.put(cf, k, v);
                    }
                    t.delete(cf, k, v);
                    if (put && cf.hasDuplicates()) {
                        // its own one-value delete: the value is gone from the transaction's view
                        try (Cursor cur = t.cursor(cf, KeyRange.closed(k, k), null)) {
                            for (boolean ok = cur.first(); ok; ok = cur.next()) {
                                if (java.util.Arrays.equals(cur.valueBytes(), v)) {
                                    c.wrong("t.delete(cf, k, v)", "the transaction still sees the value it deleted");
                                }
                            }
                        }
                    }
                });
            }
            case 16 -> {
                // the slice overload
                byte[] k = c.key("key");
                int len = k == null ? 4 : k.length;
                int off = c.rnd.nextInt(4) == 0 ? c.extreme() : c.rnd.nextInt(len + 1);
                int n = c.rnd.nextInt(4) == 0 ? c.extreme() : off >= 0 && off <= len ? c.rnd.nextInt(len - off + 1) : 0;
                if (n < 0 || off < 0 || (long) off + n > len) {
                    c.badIndex(k == null ? null : "slice off=" + off + " len=" + n + " of " + len + " accepted");
                }
                c.call("t.get(" + f[1] + ", " + Ctx.hex(k) + ", " + off + ", " + n + ")", () -> t.get(cf, k, off, n));
            }
            default -> {
                // the default-family short forms and the buffer overload (arguments drawn right before their call)
                switch (c.rnd.nextInt(6)) {
                    case 0 -> {
                        byte[] k = c.key("key");
                        c.call("t.get(" + Ctx.hex(k) + ")", () -> t.get(k));
                    }
                    case 1 -> {
                        byte[] k = c.key("key");
                        byte[] v = c.value("value");
                        c.call("t.put(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> t.put(k, v));
                    }
                    case 2 -> {
                        byte[] k = c.key("key");
                        c.call("t.delete(" + Ctx.hex(k) + ")", () -> t.delete(k));
                    }
                    case 3 -> {
                        byte[] k = c.key("begin");
                        byte[] e = c.key("end");
                        c.call("t.deleteRange(" + Ctx.hex(k) + ", " + Ctx.hex(e) + ")", () -> t.deleteRange(k, e));
                    }
                    case 4 -> c.call("t.multiGet(3 keys)", () -> t.multiGet(List.of(c.anyKey(), c.anyKey(), c.anyKey())));
                    default -> {
                        byte[] k = c.key("key");
                        java.nio.ByteBuffer into = java.nio.ByteBuffer.allocate(c.rnd.nextInt(16));
                        c.call("t.get(" + Ctx.hex(k) + ", into " + into.capacity() + ")", () -> t.get(k, into));
                    }
                }
            }
        }
    }

    /**
     * Savepoints: set, roll back or pop one, with or without one set (rollback and pop must throw
     * then), and a cursor of the transaction walked across a rollback or pop (LMDB moves cursors
     * opened in the nested transaction to its parent).
     */
    private static void savepoints(Ctx c, Transaction t) {
        switch (c.rnd.nextInt(4)) {
            case 0 -> c.call("t.setSavePoint()", t::setSavePoint);
            case 1 -> c.call("t.rollbackToSavePoint()", t::rollbackToSavePoint);
            case 2 -> c.call("t.popSavePoint()", t::popSavePoint);
            default -> {
                boolean rollback = c.oneIn(2);
                c.call("t.setSavePoint(), put, cursor, " + (rollback ? "rollbackToSavePoint()" : "popSavePoint()") + ", cursor.next()", () -> {
                    t.setSavePoint();
                    t.put(new byte[] {1, (byte) c.rnd.nextInt(4)}, new byte[] {2});
                    try (Cursor cur = t.cursor(KeyRange.all())) {
                        cur.next();
                        if (rollback) {
                            t.rollbackToSavePoint();
                        } else {
                            t.popSavePoint();
                        }
                        cur.next();
                    }
                });
            }
        }
    }

    /** Calls beside the transaction: a store write on its thread, a transaction call from another thread. */
    private static void bystander(Ctx c, StoreRef s, Transaction t, int op) {
        byte[] k = c.anyKey();
        switch (op) {
            case 9 -> {
                byte[] v = c.anyValue();
                // a store write on the thread holding the transaction: LMDB must refuse it (Busy), never wait for itself
                c.call(s + ".put(" + Ctx.hex(k) + ") beside t", () -> s.store.put(k, v));
            }
            default -> {
                AtomicReference<Throwable> got = new AtomicReference<>();
                Thread other = new Thread(() -> {
                    try {
                        t.get(new byte[] {1});
                    } catch (Throwable e) {
                        got.set(e);
                    }
                });
                other.start();
                try {
                    other.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                Throwable g = got.get();
                if (!(g instanceof IllegalStateException) && !(g instanceof dev.ferry.FerryException)) {
                    c.wrong("t.get from another thread", "must throw (IllegalStateException), got " + g);
                }
            }
        }
    }
}
