package dev.ferry.fuzz;

import dev.ferry.AgronaViews;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.KeyRange;
import dev.ferry.Snapshot;
import dev.ferry.View;
import dev.ferry.fuzz.World.BufRef;
import dev.ferry.fuzz.World.CurRef;
import dev.ferry.fuzz.World.SnapRef;
import dev.ferry.fuzz.World.StoreRef;
import dev.ferry.fuzz.World.StoreSlot;
import dev.ferry.fuzz.World.ViewRef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Multi-step scenarios biased toward the paths where misuse has crashed the JVM before: other
 * threads reading a cursor's views while its owner closes the cursor and the store (issue 14,
 * defect 2), buffers from {@code asByteBuffer()} read after their cursor and store closed
 * (defect 3), cursor construction failing for lack of direct memory followed by GC (defect 1),
 * another thread closing a cursor, snapshot or store while the owner scans (defect 5), cursors
 * whose owner thread died, and references dropped without close followed by GC. Every step is
 * a judged, logged call; readers in tight loops log one line and judge each read quietly.
 *
 * <p>Thread safety: stateless; each scenario runs on the calling fuzz thread plus helpers it starts and joins.
 */
final class Scenarios {
    /** Keys holding large values (overflow pages on LMDB; long copies for racing readers). */
    private static final byte[][] BIG = {{(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x42, 0}, {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x42, 1}};

    private Scenarios() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("S:raceReadersVsClose", 8, Scenarios::raceReaders, false);
        t.add("S:closeDuringOwnerScan", 5, Scenarios::closeDuringScan, false);
        t.add("S:bufferAfterClose", 5, Scenarios::bufferAfterClose, false);
        t.addRare("S:leakUntilOom", 1, Scenarios::leakUntilOom, false); // each direct-memory OOM costs the JDK's GC retries (~0.5 s)
        t.add("S:deadOwner", 2, Scenarios::deadOwner, false);
        t.addRare("S:dropAndGc", 2, Scenarios::dropAndGc, false);
    }

    private static void spin(Random r, int maxMicros) {
        long until = System.nanoTime() + r.nextInt(maxMicros + 1) * 1000L;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    /** A store for a scenario: sometimes a private one in a new directory (closing it disturbs nobody). */
    private static StoreRef store(Ctx c, String what) {
        if (c.oneIn(3)) {
            return StoreOps.open(c, c.world.root.resolve(what + "-" + c.world.nextId()), true, false);
        }
        return StoreOps.liveStore(c);
    }

    /** Writes a large value under one of the BIG keys, sometimes. */
    private static void bigValue(Ctx c, StoreRef s, boolean always) {
        if (!always && !c.oneIn(3)) {
            return;
        }
        byte[] k = BIG[c.rnd.nextInt(BIG.length)];
        byte[] v = new byte[(64 << 10) + c.rnd.nextInt(c.oneIn(2) ? 4 << 20 : 256 << 10)];
        c.rnd.nextBytes(v);
        c.validWrite(null);
        c.call(s + ".put(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> s.store.put(k, v));
    }

    /** Opens a cursor for a scenario (on the store or a new snapshot) and positions it. */
    private static CurRef cursor(Ctx c, StoreRef s, Snapshot snap, String p) {
        Cursor[] out = new Cursor[1];
        int id = c.world.nextId();
        StringBuilder d = new StringBuilder();
        CursorOptions o = c.oneIn(3) ? StoreOps.cursorOptions(c, d) : null;
        boolean ok = snap == null
                ? c.call("c" + id + " = " + s + ".cursor(all, " + d + ")", () -> out[0] = s.store.cursor(s.store.defaultColumnFamily(), KeyRange.all(), o))
                : c.call("c" + id + " = " + p + ".cursor(all, " + d + ")", () -> out[0] = snap.cursor(s.store.defaultColumnFamily(), KeyRange.all(), o));
        if (!ok) {
            return null;
        }
        CurRef r = new CurRef(id, out[0], Thread.currentThread(), KeyRange.all(), s, null);
        c.world.keep(c, r);
        Cursor cur = r.cursor;
        switch (c.rnd.nextInt(4)) {
            case 0: case 1: {
                byte[] k = BIG[c.rnd.nextInt(BIG.length)];
                c.call(r + ".seek(" + Ctx.hex(k) + ")", () -> cur.seek(k));
                break;
            }
            case 2:
                c.call(r + ".first()", cur::first);
                break;
            default:
                c.call(r + ".last()", cur::last);
                break;
        }
        return r;
    }

    private static SnapRef maybeSnapshot(Ctx c, StoreRef s) {
        if (!c.oneIn(4)) {
            return null;
        }
        Snapshot[] out = new Snapshot[1];
        int id = c.world.nextId();
        if (!c.call("p" + id + " = " + s + ".snapshot()", () -> out[0] = s.store.snapshot())) {
            return null;
        }
        SnapRef p = new SnapRef(id, out[0], s, Thread.currentThread(), c.world.tick());
        c.world.keep(c, p);
        return p;
    }

    /** Starts a helper thread with its own judged context; it runs {@code body} once started is counted down. */
    private static Thread helper(Ctx c, String name, CountDownLatch started, java.util.function.Consumer<Ctx> body) {
        MisuseFuzz f = c.fuzz;
        Ctx h = f.newHelperContext();
        Thread t = new Thread(() -> {
            try {
                started.countDown();
                body.accept(h);
            } catch (Throwable e) {
                f.fail("FUZZER", h, h.seq, name, "escaped a helper thread", e);
            } finally {
                f.retire(h);
            }
        }, "fuzz-T" + h.tid + "-" + name);
        t.start();
        return t;
    }

    private static void join(Ctx c, List<Thread> ts) throws InterruptedException {
        for (Thread t : ts) {
            t.join(120_000);
            if (t.isAlive()) {
                c.fuzz.hang("helper " + t.getName() + " did not finish");
            }
        }
    }

    // ---- defect 2: other threads read the views while the owner closes ----

    private static void raceReaders(Ctx c) throws Throwable {
        StoreRef s = store(c, "race");
        if (s == null) {
            return;
        }
        bigValue(c, s, s.privateStore);
        SnapRef p = maybeSnapshot(c, s);
        CurRef r = cursor(c, s, p == null ? null : p.snap, p == null ? null : p.toString());
        if (r == null) {
            return;
        }
        int readers = 1 + c.rnd.nextInt(2);
        CountDownLatch started = new CountDownLatch(readers);
        AtomicBoolean stop = new AtomicBoolean();
        c.note("race: " + readers + " reader thread(s) loop over " + r + "'s views while its owner acts");
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            ts.add(helper(c, "race-reader", started, h -> {
                h.note("race reader loops over " + r);
                while (!stop.get() && !h.fuzz.over()) {
                    foreignRead(h, r);
                }
            }));
        }
        started.await(5, TimeUnit.SECONDS);
        spin(c.rnd, 2000);
        Cursor cur = r.cursor;
        switch (c.rnd.nextInt(7)) {
            case 0: case 1:
                c.call(r + ".close()", cur::close);
                c.call(s + ".close()", s.store::close);
                break;
            case 2:
                c.call(s + ".close()", s.store::close);
                break;
            case 3:
                c.call(r + ".close()", cur::close);
                break;
            case 4: {
                int n = 1 + c.rnd.nextInt(50);
                c.call(r + " moves x" + n + " (next/prev/seek)", () -> {
                    for (int i = 0; i < n; i++) {
                        int m = c.rnd.nextInt(3);
                        if (m == 0) {
                            cur.next();
                        } else if (m == 1) {
                            cur.prev();
                        } else {
                            cur.seek(BIG[c.rnd.nextInt(BIG.length)]);
                        }
                    }
                });
                break;
            }
            case 5:
                if (p != null) {
                    c.call(p + ".close()", p.snap::close);
                }
                c.call(s + ".close()", s.store::close);
                break;
            default:
                c.call(r + ".close()", cur::close);
                bigValue(c, s, true); // rewrite the big value while readers may still copy the old one
                break;
        }
        spin(c.rnd, 1000);
        stop.set(true);
        join(c, ts);
        if (s.privateStore && c.oneIn(2)) {
            c.call(s + ".close()", s.store::close);
        }
    }

    /** One read of another thread's cursor, judged quietly (contract 1: it must throw IllegalStateException). */
    static void foreignRead(Ctx h, CurRef r) {
        Cursor cur = r.cursor;
        int op = h.rnd.nextInt(14);
        if (op == 7 && !CursorOps.AGRONA) {
            op = 2;
        }
        if (op == 13) {
            for (FuzzExtension e : h.fuzz.extensions) {
                e.foreignRead(h, r);
            }
            return;
        }
        h.foreign(CursorOps.foreignUse(r));
        switch (op) {
            case 0: h.quiet(() -> r + ".keyBytes() [race]", cur::keyBytes); break;
            case 1: h.quiet(() -> r + ".valueBytes() [race]", cur::valueBytes); break;
            case 2: h.quiet(() -> r + ".value().toByteArray() [race]", () -> cur.value().toByteArray()); break;
            case 3: h.quiet(() -> r + ".value().getLong(end) [race]", () -> {
                View v = cur.value();
                int n = v.length();
                if (n >= 8) {
                    v.getLong(n - 8);
                }
            });
                break;
            case 4: h.quiet(() -> r + ".value().getBytes [race]", () -> {
                View v = cur.value();
                byte[] b = new byte[Math.max(0, v.length())];
                v.getBytes(0, b, 0, b.length);
            });
                break;
            case 5: h.quiet(() -> r + ".value().copyTo(direct) [race]", () -> {
                View v = cur.value();
                v.copyTo(StoreOps.direct(Math.max(0, v.length())));
            });
                break;
            case 6: h.quiet(() -> r + ".value().asByteBuffer() read [race]", () -> {
                ByteBuffer b = cur.value().asByteBuffer();
                byte[] got = new byte[b.remaining()];
                b.get(got);
            });
                break;
            case 7: h.quiet(() -> "AgronaViews.wrap(" + r + ".value()) read [race]", () -> {
                UnsafeBuffer u = AgronaViews.wrap(cur.value());
                byte[] got = new byte[u.capacity()];
                u.getBytes(0, got);
            });
                break;
            case 8: h.quiet(() -> r + ".key().compareTo [race]", () -> cur.key().compareTo(new byte[] {1, 2}));
                break;
            case 9: h.quiet(() -> r + ".value().toUtf8String() [race]", () -> cur.value().toUtf8String());
                break;
            case 10: h.quiet(() -> r + ".isValid() [race]", cur::isValid);
                break;
            case 11: h.quiet(() -> r + ".next() [race]", () -> locked(r, cur::next));
                break;
            default: h.quiet(() -> r + ".key().contentEquals [race]", () -> cur.key().contentEquals(new byte[] {1}));
                break;
        }
    }

    private static void locked(CurRef r, Ctx.Action a) throws Throwable {
        CursorOps.locked(r, a);
    }

    // ---- defect 5: another thread closes while the owner scans ----

    private static void closeDuringScan(Ctx c) throws Throwable {
        StoreRef s = store(c, "scanclose");
        if (s == null) {
            return;
        }
        SnapRef p = maybeSnapshot(c, s);
        CurRef r = cursor(c, s, p == null ? null : p.snap, p == null ? null : p.toString());
        if (r == null) {
            return;
        }
        Cursor cur = r.cursor;
        int what = c.rnd.nextInt(p == null ? 3 : 4);
        int delay = c.rnd.nextInt(3000);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        c.note("race: another thread closes " + (what == 0 ? r : what == 3 ? p : s) + " after ~" + delay + " us while " + r + "'s owner scans");
        Thread closer = helper(c, "closer", started, h -> {
            try {
                go.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            spin(h.rnd, delay);
            switch (what) {
                case 0: h.call(r + ".close() [closer]", cur::close); break;
                case 1: h.call(s + ".close() [closer]", s.store::close); break;
                case 2:
                    h.call(r + ".close() [closer]", cur::close);
                    h.call(s + ".close() [closer]", s.store::close);
                    break;
                default: h.call(p + ".close() [closer]", p.snap::close); break;
            }
        });
        started.await(5, TimeUnit.SECONDS);
        int read = c.rnd.nextInt(4);
        go.countDown();
        c.call(r + " scans with read=" + read + " while another thread closes", () -> {
            for (int i = 0; i < 200_000 && !c.fuzz.over(); i++) {
                boolean ok = i % 97 == 96 ? cur.prev() : cur.next();
                if (!ok && !cur.first()) {
                    break;
                }
                if (read == 1) {
                    cur.keyBytes();
                    cur.valueBytes();
                } else if (read == 2) {
                    View v = cur.value();
                    if (v.length() >= 8) {
                        v.getLong(v.length() - 8);
                    }
                } else if (read == 3) {
                    ByteBuffer b = cur.value().asByteBuffer();
                    if (b.remaining() > 0) {
                        b.get(b.remaining() - 1);
                    }
                }
            }
        });
        join(c, List.of(closer));
        // the owner touches it again: a closed cursor refuses positioning and releases its resources now
        boolean closed = cur.isClosed();
        if (closed) {
            c.closed("cursor " + r);
        }
        c.call(r + ".first() after the race", cur::first);
        c.call(r + ".close()", cur::close);
        if (s.store.isClosed() && c.oneIn(2)) {
            // reopen the directory at once (defect 5: LMDB said Busy until a GC)
            StoreRef o = StoreOps.open(c, s.dir, true, false);
            if (o != null && s.privateStore) {
                c.call(o + ".close()", o.store::close);
            } else if (o != null) {
                for (StoreSlot slot : c.world.slots) {
                    synchronized (slot) {
                        if (slot.current == s) {
                            slot.current = o;
                        }
                    }
                }
            }
        }
    }

    // ---- defect 3: buffers read after their cursor and store closed ----

    private static void bufferAfterClose(Ctx c) throws Throwable {
        StoreRef s = store(c, "buffers");
        if (s == null) {
            return;
        }
        bigValue(c, s, false);
        for (int i = 0; i < 3; i++) {
            byte[] k = c.anyKey();
            byte[] v = c.anyValue();
            c.call(s + ".put(" + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> s.store.put(k, v));
        }
        SnapRef p = maybeSnapshot(c, s);
        CurRef r = cursor(c, s, p == null ? null : p.snap, p == null ? null : p.toString());
        if (r == null) {
            return;
        }
        Cursor cur = r.cursor;
        List<BufRef> mine = new ArrayList<>();
        int n = 1 + c.rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            for (boolean key : new boolean[] {true, false}) {
                byte[][] expect = new byte[1][];
                ByteBuffer[] out = new ByteBuffer[1];
                int id = c.world.nextId();
                if (c.call("b" + id + " = " + r + (key ? ".key()" : ".value()") + ".asByteBuffer()", () -> {
                    View v = key ? cur.key() : cur.value();
                    expect[0] = v.toByteArray();
                    out[0] = v.asByteBuffer();
                })) {
                    BufRef b = new BufRef(id, out[0], expect[0], r);
                    mine.add(b);
                    c.world.buffers.add(c.rnd, b);
                }
            }
            if (!c.call(r + ".next()", cur::next)) {
                break;
            }
        }
        switch (c.rnd.nextInt(5)) {
            case 0:
                c.call(r + ".close()", cur::close);
                c.call(s + ".close()", s.store::close);
                break;
            case 1:
                c.call(s + ".close()", s.store::close);
                break;
            case 2:
                c.call(r + ".close()", cur::close);
                break;
            case 3:
                if (p != null) {
                    c.call(p + ".close()", p.snap::close);
                }
                c.call(r + ".close()", cur::close);
                bigValue(c, s, true);
                break;
            default:
                c.call(r + " moves", () -> {
                    cur.last();
                    cur.first();
                });
                break;
        }
        for (BufRef b : mine) {
            c.call(b + " read all after the cursor/store changed", () -> {
                byte[] got = new byte[b.buf.limit()];
                b.buf.get(0, got);
                if (!Arrays.equals(got, b.expect)) {
                    c.wrong(b + " read", "a kept asByteBuffer() buffer shows other bytes than when it was made (it must keep them or throw)");
                }
            });
        }
    }

    // ---- defect 1: cursor construction fails for lack of direct memory, then GC ----

    private static void leakUntilOom(Ctx c) throws Throwable {
        StoreRef s = StoreOps.liveStore(c);
        if (s == null) {
            return;
        }
        SnapRef p = maybeSnapshot(c, s);
        List<CurRef> leaked = new ArrayList<>();
        int page = (2 << 20) << c.rnd.nextInt(4);
        c.note("leak cursors with " + page + "-byte pages until direct memory runs out");
        long before = c.fuzz.directOoms.get();
        for (int i = 0; i < 64 && c.fuzz.directOoms.get() == before; i++) {
            Cursor[] out = new Cursor[1];
            int id = c.world.nextId();
            CursorOptions o = CursorOptions.defaults().pageSize(page);
            boolean ok = p == null
                    ? c.call("c" + id + " = " + s + ".cursor(all, page=" + page + ")", () -> out[0] = s.store.cursor(s.store.defaultColumnFamily(), KeyRange.all(), o))
                    : c.call("c" + id + " = " + p + ".cursor(all, page=" + page + ")", () -> out[0] = p.snap.cursor(s.store.defaultColumnFamily(), KeyRange.all(), o));
            if (!ok) {
                break;
            }
            CurRef r = new CurRef(id, out[0], Thread.currentThread(), KeyRange.all(), s, null);
            leaked.add(r);
            if (c.oneIn(2)) {
                c.call(r + ".first()", r.cursor::first);
            }
        }
        if (c.oneIn(2)) {
            for (CurRef r : leaked) {
                if (c.oneIn(2)) {
                    c.call(r + ".close()", r.cursor::close);
                }
            }
        }
        if (!leaked.isEmpty() && c.oneIn(3)) {
            c.world.keep(c, leaked.get(c.rnd.nextInt(leaked.size())));
        }
        leaked.clear();
        gc(c);
    }

    static void gc(Ctx c) throws InterruptedException {
        c.note("System.gc() (Cleaners run)");
        System.gc();
        Thread.sleep(1 + c.rnd.nextInt(10));
    }

    // ---- owners that die ----

    private static void deadOwner(Ctx c) throws Throwable {
        CountDownLatch started = new CountDownLatch(1);
        Thread t = helper(c, "short-lived", started, h -> {
            StoreRef s = StoreOps.liveStore(h);
            if (s == null) {
                return;
            }
            SnapRef p = maybeSnapshot(h, s);
            CurRef r = cursor(h, s, p == null ? null : p.snap, p == null ? null : p.toString());
            if (r == null) {
                return;
            }
            View[] v = new View[1];
            int id = h.world.nextId();
            if (h.call("v" + id + " = " + r + ".value()", () -> v[0] = r.cursor.value())) {
                h.world.views.add(h.rnd, new ViewRef(id, v[0], r));
                StoreOps.keepBuffer(h, v[0], r);
            }
            h.note("thread ends, leaving " + r + (p == null ? "" : " and " + p) + " to others");
        });
        join(c, List.of(t));
    }

    private static void dropAndGc(Ctx c) throws Throwable {
        int n = 1 + c.rnd.nextInt(8);
        c.note("drop " + n + " references of each kind without closing them");
        for (int i = 0; i < n; i++) {
            c.world.cursors.drop(c.rnd);
            c.world.snapshots.drop(c.rnd);
            c.world.views.drop(c.rnd);
            c.world.buffers.drop(c.rnd);
            c.world.batches.drop(c.rnd);
            if (c.oneIn(4)) {
                c.world.stores.drop(c.rnd);
            }
        }
        gc(c);
    }

    /** At the end: close every object from one thread (closes of other threads' cursors included), then GC. */
    static void closeEverything(Ctx c) {
        for (CurRef r : c.world.cursors.all()) {
            c.call(r + ".close() [end]", () -> CursorOps.locked(r, r.cursor::close));
        }
        for (SnapRef p : c.world.snapshots.all()) {
            c.call(p + ".close() [end]", p.snap::close);
        }
        for (StoreRef s : c.world.stores.all()) {
            c.call(s + ".close() [end]", s.store::close);
        }
        for (StoreSlot slot : c.world.slots) {
            StoreRef s = slot.current;
            if (s != null) {
                c.call(s + ".close() [end]", s.store::close);
            }
        }
        RocksJavaOps.closeAll(c);
        c.world.cursors.clear();
        c.world.snapshots.clear();
        c.world.views.clear();
        c.world.buffers.clear();
        c.world.stores.clear();
        for (StoreSlot slot : c.world.slots) {
            slot.current = null;
        }
        try {
            gc(c);
            Thread.sleep(50);
            gc(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
