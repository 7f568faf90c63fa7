package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyOptions;
import dev.ferry.Cursor;
import dev.ferry.Engine;
import dev.ferry.KeyOrder;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Key orders ({@link KeyOrder}): a store of the operation's own (so that no other operation meets a
 * family whose order its checks do not know, and no reopen of a shared store meets a family it cannot
 * open) gets a family of a random order (LMDB must refuse every order but bytewise), random keys of
 * random lengths (a {@code UINT64_BIG_ENDIAN} family must refuse those not of 8 bytes), a scan checked
 * to run in the family's order, cursors over every kind of {@link KeyRange} (a reverse family must
 * refuse those with derived bounds), a range delete, then a reopen without the order (must throw) and
 * with it. Also {@code keyOrder(null)}.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class KeyOrderOps {
    private KeyOrderOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("keyOrderStore", 2, KeyOrderOps::ownStore, true);
    }

    private static void ownStore(Ctx c) {
        KeyOrder order = KeyOrder.values()[c.rnd.nextInt(KeyOrder.values().length)];
        c.nullArg("keyOrder");
        c.call("ColumnFamilyOptions.of().keyOrder(null)", () -> ColumnFamilyOptions.of().keyOrder(null));
        ColumnFamilyOptions o = ColumnFamilyOptions.of().keyOrder(order);
        if (o.keyOrder() != order) {
            c.wrong("ColumnFamilyOptions.keyOrder()", "gave " + o.keyOrder() + ", set " + order);
        }
        Path dir = c.world.root.resolve("order-" + c.world.nextId());
        StoreOptions so = StoreOptions.of(c.world.engine).binding(c.world.binding);
        if (c.world.engine == Engine.LMDB) {
            so.mapSize(64L << 20);
        }
        Store[] st = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ")", () -> st[0] = Store.open(dir, so))) {
            return;
        }
        try {
            work(c, st, dir, so, order, o);
        } finally {
            c.call(dir.getFileName() + ".close()", () -> st[0].close());
        }
    }

    private static void work(Ctx c, Store[] st, Path dir, StoreOptions so, KeyOrder order, ColumnFamilyOptions o) {
        ColumnFamily[] cf = new ColumnFamily[1];
        boolean refused = c.world.engine == Engine.LMDB && order != KeyOrder.BYTEWISE;
        if (refused) {
            c.mustThrow("key order " + order + " on LMDB");
        }
        if (!c.call("createColumnFamily(o, keyOrder " + order + ")", () -> cf[0] = st[0].createColumnFamily("o", o))) {
            return;
        }
        if (cf[0].keyOrder() != order) {
            c.wrong("ColumnFamily.keyOrder()", "gave " + cf[0].keyOrder() + ", created " + order);
        }
        int n = 1 + c.rnd.nextInt(40);
        for (int i = 0; i < n; i++) {
            byte[] k = new byte[order == KeyOrder.UINT64_BIG_ENDIAN && c.rnd.nextInt(4) != 0 ? 8 : 1 + c.rnd.nextInt(12)];
            c.rnd.nextBytes(k);
            if (order == KeyOrder.UINT64_BIG_ENDIAN && k.length != 8) {
                c.mustThrow("a " + k.length + "-byte key in a UINT64_BIG_ENDIAN family");
            }
            c.call("put(o, " + Ctx.hex(k) + ")", () -> st[0].put(cf[0], k, k));
        }
        scanInOrder(c, st[0], cf[0], order);
        byte[] a = c.anyKey();
        byte[] b = c.anyKey();
        KeyRange[] ranges = {KeyRange.all(), KeyRange.atLeast(a), KeyRange.lessThan(b), KeyRange.closedOpen(a, b),
            KeyRange.greaterThan(a), KeyRange.atMost(b), KeyRange.closed(a, b), KeyRange.prefix(a)};
        int which = c.rnd.nextInt(ranges.length);
        if (order == KeyOrder.REVERSE_BYTEWISE && which >= 4 && !(which == 7 && a.length == 0)) {
            c.mustThrow("a range with derived bounds on a reverse family");
        }
        c.call("cursor(o, " + ranges[which] + ")", () -> {
            try (Cursor cur = st[0].cursor(cf[0], ranges[which], null)) {
                for (boolean ok = cur.first(); ok; ok = cur.next()) {
                    cur.keyBytes();
                }
            }
        });
        c.call("deleteRange(o, " + Ctx.hex(a) + ", " + Ctx.hex(b) + ")", () -> st[0].deleteRange(cf[0], a, b));
        scanInOrder(c, st[0], cf[0], order);
        c.call("close", () -> st[0].close());
        if (order != KeyOrder.BYTEWISE) {
            c.mustThrow("a reopen without the family's key order " + order);
            c.call("Store.open(" + dir.getFileName() + ") without the order", () -> Store.open(dir, so).close());
        }
        c.call("Store.open(" + dir.getFileName() + ") with the order", () -> {
            st[0] = Store.open(dir, so.columnFamily("o", o));
            ColumnFamily again = st[0].columnFamily("o").orElseThrow();
            if (again.keyOrder() != order) {
                c.wrong("ColumnFamily.keyOrder()", "gave " + again.keyOrder() + " after a reopen, created " + order);
            }
            scanInOrder(c, st[0], again, order);
        });
    }

    /** A whole forward scan must run in the family's order. */
    private static void scanInOrder(Ctx c, Store s, ColumnFamily cf, KeyOrder order) {
        c.call("scan(o)", () -> {
            byte[] prev = null;
            try (Cursor cur = s.cursor(cf, KeyRange.all(), null)) {
                for (boolean ok = cur.first(); ok; ok = cur.next()) {
                    byte[] k = cur.keyBytes();
                    int cmp = prev == null ? -1 : Arrays.compareUnsigned(prev, k);
                    if (order == KeyOrder.REVERSE_BYTEWISE ? cmp <= 0 && prev != null : cmp >= 0) {
                        c.wrong("scan of a " + order + " family", Ctx.hex(prev) + " before " + Ctx.hex(k));
                    }
                    prev = k;
                }
            }
        });
    }
}
