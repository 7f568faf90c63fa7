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
 * open) gets a family of a random order (on either engine), random keys of
 * random lengths (a {@code UINT64_BIG_ENDIAN} family must refuse those not of 8 bytes), a scan checked
 * to run in the family's order, cursors over every kind of {@link KeyRange} (a reverse family must
 * refuse those with derived bounds), a range delete, then a reopen without the order (must throw) and
 * with it. Also {@code keyOrder(null)}. And TTL families ({@link ColumnFamilyOptions#ttl(long, int)}) in a
 * store of their own: setters given out-of-range values must throw, LMDB must refuse the family and
 * {@link Store#setTtlClock(long)}, and on RocksDB reads at a random clock must never show a value
 * expired at that time, and must show every stamped value that has not (in a TTL store of RocksDB's
 * kind, {@link StoreOptions#ttlSeconds(int)}, a third of the time). And secondary instances
 * ({@link StoreOptions#secondary(Path)}) of a store of their own: LMDB must refuse them and
 * {@link Store#tryCatchUpWithPrimary()}; on RocksDB a secondary must see the primary's keys after a
 * catch-up, refuse writes, and a primary must refuse to catch up.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class KeyOrderOps {
    private KeyOrderOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("keyOrderStore", 2, KeyOrderOps::ownStore, true);
        t.add("ttlStore", 2, KeyOrderOps::ttlStore, true);
        t.add("secondaryStore", 1, KeyOrderOps::secondaryStore, true);
    }

    private static void ownStore(Ctx c) {
        // the native orders (KeyOrder.JAVA is reported, not set: CallbackOps makes a JavaComparator family)
        KeyOrder[] natives = {KeyOrder.BYTEWISE, KeyOrder.REVERSE_BYTEWISE, KeyOrder.UINT64_BIG_ENDIAN};
        KeyOrder order = natives[c.rnd.nextInt(natives.length)];
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

    private static void ttlStore(Ctx c) {
        long ttl = c.oneIn(8) ? c.rnd.nextInt(3) - 1 : 1 + c.rnd.nextInt(1000);
        int off = c.oneIn(8) ? (c.oneIn(2) ? -1 : 65537) : c.rnd.nextInt(3);
        ColumnFamilyOptions[] o = new ColumnFamilyOptions[1];
        if (ttl < 1 || off < 0 || off > 65536) {
            c.badIndex("ttl(" + ttl + ", " + off + ") accepted");
        }
        if (!c.call("ColumnFamilyOptions.of().ttl(" + ttl + ", " + off + ")", () -> o[0] = ColumnFamilyOptions.of().ttl(ttl, off))) {
            return;
        }
        if (o[0].ttlMillis().getAsLong() != ttl || o[0].ttlTimestampOffset().getAsInt() != off) {
            c.wrong("ColumnFamilyOptions.ttl", "read back " + o[0]);
        }
        Path dir = c.world.root.resolve("ttl-" + c.world.nextId());
        StoreOptions so = StoreOptions.of(c.world.engine).binding(c.world.binding);
        if (c.world.engine == Engine.LMDB) {
            so.mapSize(64L << 20);
        }
        if (c.oneIn(3)) { // a TTL store (RocksDB's DBWithTTL) under the TTL family: its suffixes stay invisible
            int secs = c.oneIn(8) ? -1 - c.rnd.nextInt(3) : c.oneIn(2) ? 0 : 3600 + c.rnd.nextInt(100_000); // none expires meanwhile
            if (c.world.engine == Engine.LMDB) {
                c.mustThrow("ttlSeconds on LMDB options");
            } else if (secs < 0) {
                c.badIndex("ttlSeconds(" + secs + ") accepted");
            }
            c.call("StoreOptions.ttlSeconds(" + secs + ")", () -> so.ttlSeconds(secs));
        }
        Store[] st = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ")", () -> st[0] = Store.open(dir, so))) {
            return;
        }
        try {
            boolean lmdb = c.world.engine == Engine.LMDB;
            long now = 1_000_000 + c.rnd.nextInt(1000);
            if (lmdb) {
                c.mustThrow("setTtlClock on LMDB");
            }
            c.call("setTtlClock(" + now + ")", () -> st[0].setTtlClock(now));
            ColumnFamily[] cf = new ColumnFamily[1];
            if (lmdb) {
                c.mustThrow("a TTL family on LMDB");
            }
            if (!c.call("createColumnFamily(t, " + o[0] + ")", () -> cf[0] = st[0].createColumnFamily("t", o[0]))) {
                return;
            }
            java.util.Map<String, Boolean> live = new java.util.TreeMap<>();
            for (int i = 0; i < 1 + c.rnd.nextInt(20); i++) {
                String k = "k" + i;
                boolean stamped = !c.oneIn(5);
                long ts = now - c.rnd.nextInt((int) Math.min(2000, ttl * 2));
                byte[] v = new byte[stamped ? off + 8 + c.rnd.nextInt(4) : c.rnd.nextInt(off + 8)];
                if (stamped) {
                    java.nio.ByteBuffer.wrap(v, off, 8).putLong(ts);
                }
                if (c.call("put(t, " + k + ", ts " + (stamped ? ts : "none") + ")", () -> st[0].put(cf[0], k.getBytes(), v))) {
                    live.put(k, !stamped || ts + ttl > now);
                }
            }
            if (c.oneIn(2)) {
                c.call("flush+compact(t)", () -> {
                    st[0].flush(cf[0]);
                    st[0].compactRange(cf[0], null, null);
                });
            }
            c.call("scan(t) at " + now, () -> {
                java.util.List<String> seen = new java.util.ArrayList<>();
                try (Cursor cur = st[0].cursor(cf[0], KeyRange.all(), null)) {
                    for (boolean ok = cur.first(); ok; ok = cur.next()) {
                        seen.add(new String(cur.keyBytes()));
                    }
                }
                java.util.List<String> want = new java.util.ArrayList<>();
                live.forEach((k, alive) -> {
                    if (alive) {
                        want.add(k);
                    }
                });
                if (!seen.equals(want)) {
                    c.wrong("scan of a TTL family", "saw " + seen + ", want " + want);
                }
                for (String k : live.keySet()) {
                    if ((st[0].get(cf[0], k.getBytes()) != null) != live.get(k)) {
                        c.wrong("get of a TTL family", k + " found=" + !live.get(k));
                    }
                }
            });
        } finally {
            c.call(dir.getFileName() + ".close()", () -> st[0].close());
        }
    }

    private static void secondaryStore(Ctx c) {
        Path dir = c.world.root.resolve("primary-" + c.world.nextId());
        StoreOptions so = StoreOptions.of(c.world.engine).binding(c.world.binding);
        boolean lmdb = c.world.engine == Engine.LMDB;
        if (lmdb) {
            so.mapSize(64L << 20);
            c.mustThrow("secondary on LMDB options");
            c.call("StoreOptions.secondary(..)", () -> StoreOptions.lmdb().secondary(dir.resolveSibling("sec")));
        }
        Store[] p = new Store[1];
        if (!c.call("Store.open(" + dir.getFileName() + ")", () -> p[0] = Store.open(dir, so))) {
            return;
        }
        try {
            c.mustThrow(lmdb ? "tryCatchUpWithPrimary on LMDB" : "tryCatchUpWithPrimary on a primary");
            c.call("primary.tryCatchUpWithPrimary()", () -> p[0].tryCatchUpWithPrimary());
            if (lmdb) {
                return;
            }
            int n = 1 + c.rnd.nextInt(30);
            for (int i = 0; i < n; i++) {
                byte[] k = ("k" + i).getBytes();
                c.call("primary.put(k" + i + ")", () -> p[0].put(k, k));
            }
            Path sec = dir.resolveSibling(dir.getFileName() + "-sec");
            Store[] s = new Store[1];
            if (!c.call("Store.open(secondary)", () -> s[0] = Store.open(dir, StoreOptions.rocksdb().binding(c.world.binding).secondary(sec)))) {
                return;
            }
            try {
                byte[] more = ("k" + n).getBytes();
                c.call("primary.put(k" + n + ")", () -> p[0].put(more, more));
                c.call("secondary.tryCatchUpWithPrimary()", () -> {
                    s[0].tryCatchUpWithPrimary();
                    if (s[0].get(more) == null) {
                        c.wrong("Store.tryCatchUpWithPrimary", "the secondary does not see a key put before the catch-up");
                    }
                });
                c.mustThrow("a write on a secondary instance");
                c.call("secondary.put", () -> s[0].put(more, more));
            } finally {
                c.call("secondary.close()", () -> s[0].close());
            }
        } finally {
            c.call(dir.getFileName() + ".close()", () -> p[0].close());
        }
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
