package dev.ferry.fuzz;

import dev.ferry.AgronaViews;
import dev.ferry.Cursor;
import dev.ferry.View;
import dev.ferry.fuzz.World.BufRef;
import dev.ferry.fuzz.World.CurRef;
import dev.ferry.fuzz.World.ViewRef;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Operations on {@link Cursor}, {@link View}, buffers from {@link View#asByteBuffer()} and
 * {@link AgronaViews}: from the owner's thread (with checks that positioned cursors land inside
 * their range, in order, and that every accessor agrees with {@link View#toByteArray()}) and from
 * other threads (which contract 1 says must get {@link IllegalStateException}).
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class CursorOps {
    private CursorOps() {
    }

    /** Whether Agrona (an optional dependency of ferry-core) is on the class path: ferry-ffm's tests run without it. */
    static final boolean AGRONA = present("org.agrona.concurrent.UnsafeBuffer");

    private static boolean present(String cls) {
        try {
            Class.forName(cls, false, CursorOps.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("cursorOp", 120, CursorOps::cursorOp, true);
        t.add("cursorWalk", 50, CursorOps::walk, true);
        t.add("viewOp", 120, CursorOps::viewOp, true);
        t.add("bufferRead", 35, CursorOps::bufferRead, true);
        if (AGRONA) {
            t.add("agrona", 12, CursorOps::agrona, true);
        }
    }

    /** Runs {@code a} holding the cursor's lock when it has one (RocksJava interop cursors). */
    static void locked(CurRef r, Ctx.Action a) throws Throwable {
        if (r.lock == null) {
            a.run();
        } else {
            synchronized (r.lock) {
                a.run();
            }
        }
    }

    static String foreignUse(CurRef r) {
        return "cursor " + r + " of thread '" + r.owner.getName() + "' used from thread '" + Thread.currentThread().getName()
                + "' without IllegalStateException";
    }

    /** @return a pooled cursor whose owner is mostly the calling thread */
    static CurRef pick(Ctx c) {
        CurRef r = null;
        for (int i = 0; i < 4; i++) {
            r = c.world.cursors.pick(c.rnd);
            if (r == null || !r.foreign() || c.oneIn(3)) {
                break;
            }
        }
        return r;
    }

    private static void cursorOp(Ctx c) throws Throwable {
        CurRef r = pick(c);
        if (r == null) {
            return;
        }
        Cursor cur = r.cursor;
        boolean foreign = r.foreign();
        boolean closedBefore = cur.isClosed();
        int op = c.rnd.nextInt(19);
        if (foreign && (op < 11 || op >= 15)) { // isClosed(), close() and toString() work from any thread
            c.foreign(foreignUse(r));
        }
        if (op >= 15) { // moves between keys and between a key's values (any family; DUPSORT ones have several)
            String[] names = {"nextKey", "prevKey", "firstValue", "lastValue"};
            c.call(r + "." + names[op - 15] + "()", () -> locked(r, () -> {
                byte[] before = cur.isValid() ? cur.keyBytes() : null;
                boolean ok = op == 15 ? cur.nextKey() : op == 16 ? cur.prevKey() : op == 17 ? cur.firstValue() : cur.lastValue();
                land(c, r, ok, null, 0, foreign);
                if (ok && before != null && !foreign) {
                    int cmp = Arrays.compareUnsigned(cur.keyBytes(), before);
                    if (op == 15 ? cmp <= 0 : op == 16 ? cmp >= 0 : cmp != 0) {
                        c.wrong(r + "." + names[op - 15], "went from key " + Ctx.hex(before) + " to " + Ctx.hex(cur.keyBytes()));
                    }
                }
            }));
            return;
        }
        if (closedBefore && op <= 3) {
            c.closed("cursor " + r);
        }
        switch (op) {
            case 0:
                c.call(r + ".first()", () -> locked(r, () -> land(c, r, cur.first(), null, 0, foreign)));
                break;
            case 1:
                c.call(r + ".last()", () -> locked(r, () -> land(c, r, cur.last(), null, 0, foreign)));
                break;
            case 2: {
                byte[] k = c.key("key");
                c.call(r + ".seek(" + Ctx.hex(k) + ")", () -> locked(r, () -> land(c, r, cur.seek(k), k, 1, foreign)));
                break;
            }
            case 3: {
                byte[] k = c.key("key");
                c.call(r + ".seekForPrev(" + Ctx.hex(k) + ")", () -> locked(r, () -> land(c, r, cur.seekForPrev(k), k, -1, foreign)));
                break;
            }
            case 4:
                c.call(r + ".next()", () -> locked(r, () -> land(c, r, cur.next(), null, 0, foreign)));
                break;
            case 5:
                c.call(r + ".prev()", () -> locked(r, () -> land(c, r, cur.prev(), null, 0, foreign)));
                break;
            case 6:
                c.call(r + ".isValid()", cur::isValid);
                break;
            case 7: case 8: {
                boolean isKey = op == 7;
                View[] out = new View[1];
                int id = c.world.nextId();
                if (c.call("v" + id + " = " + r + (isKey ? ".key()" : ".value()"), () -> out[0] = isKey ? cur.key() : cur.value())
                        && c.oneIn(2)) {
                    c.world.views.add(c.rnd, new ViewRef(id, out[0], r));
                }
                break;
            }
            case 9:
                c.call(r + ".keyBytes()", cur::keyBytes);
                break;
            case 10:
                c.call(r + ".valueBytes()", cur::valueBytes);
                break;
            case 11:
                c.call(r + ".isClosed()", cur::isClosed);
                break;
            case 12:
                c.call(r + ".close()", () -> locked(r, cur::close));
                break;
            default:
                c.call(r + ".toString()", cur::toString);
                break;
        }
    }

    /**
     * After a positioning call or move on the owner's thread: the cursor stands inside its range,
     * at or past a seek target in the seek's direction, and key() agrees with keyBytes().
     */
    private static void land(Ctx c, CurRef r, boolean ok, byte[] target, int dir, boolean foreign) {
        if (!ok || foreign) {
            return;
        }
        byte[] k = r.cursor.keyBytes();
        if (r.range != null && !r.range.contains(k)) {
            c.wrong(r + " move", "cursor stands on " + Ctx.hex(k) + " outside its range " + r.range);
        }
        if (target != null) {
            int cmp = Arrays.compareUnsigned(k, target);
            if (dir > 0 ? cmp < 0 : cmp > 0) {
                c.wrong(r + " seek", (dir > 0 ? "seek(" : "seekForPrev(") + Ctx.hex(target) + ") landed on " + Ctx.hex(k));
            }
        }
        if (!r.cursor.key().contentEquals(k)) {
            c.wrong(r + " key()", "key() and keyBytes() differ");
        }
    }

    private static void walk(Ctx c) throws Throwable {
        CurRef r = pick(c);
        if (r == null) {
            return;
        }
        Cursor cur = r.cursor;
        boolean foreign = r.foreign();
        if (foreign) {
            c.foreign(foreignUse(r));
        }
        int n = 1 + c.rnd.nextInt(c.oneIn(2) ? 8 : 400);
        int mix = c.rnd.nextInt(3);
        int read = c.rnd.nextInt(5);
        c.call(r + ".walk(steps=" + n + ", " + (mix == 0 ? "next" : mix == 1 ? "prev" : "mixed") + ", read=" + read + ")",
                () -> locked(r, () -> {
                    byte[] prev = null;
                    byte[] prevV = null;
                    int dir = mix == 1 ? -1 : 1;
                    for (int i = 0; i < n; i++) {
                        if (mix == 2 && c.oneIn(6)) {
                            dir = -dir;
                        }
                        boolean ok = dir > 0 ? cur.next() : cur.prev();
                        if (!ok) {
                            prev = null;
                            if (c.oneIn(2)) {
                                break;
                            }
                            ok = dir > 0 ? cur.first() : cur.last();
                            if (!ok) {
                                break;
                            }
                        } else if (prev != null && !foreign) {
                            byte[] k = cur.keyBytes();
                            int cmp = Arrays.compareUnsigned(k, prev);
                            if (cmp == 0 && r.dups) { // a key's values, in order
                                cmp = Arrays.compareUnsigned(cur.valueBytes(), prevV);
                            }
                            if (dir > 0 ? cmp <= 0 : cmp >= 0) {
                                c.wrong(r + ".walk", (dir > 0 ? "next()" : "prev()") + " went from " + Ctx.hex(prev) + " to " + Ctx.hex(k));
                            }
                        }
                        if (foreign) {
                            continue;
                        }
                        byte[] k = cur.keyBytes();
                        if (r.range != null && !r.range.contains(k)) {
                            c.wrong(r + ".walk", "cursor stands on " + Ctx.hex(k) + " outside its range " + r.range);
                        }
                        prev = k;
                        prevV = r.dups ? cur.valueBytes() : null;
                        if (read == 1) {
                            cur.valueBytes();
                        } else if (read == 2) {
                            consistent(c, r, cur.value());
                        } else if (read == 3) {
                            ByteBuffer b = cur.value().asByteBuffer();
                            byte[] got = new byte[b.remaining()];
                            b.duplicate().get(got);
                            if (!Arrays.equals(got, cur.valueBytes())) {
                                c.wrong(r + ".walk", "asByteBuffer() shows other bytes than valueBytes()");
                            }
                        } else if (read == 4 && c.oneIn(20)) {
                            StoreOps.keepBuffer(c, cur.value(), r);
                        }
                    }
                }));
    }

    /** Every accessor of a valid view agrees with its copy (owner's thread). */
    private static void consistent(Ctx c, CurRef r, View v) {
        byte[] b = v.toByteArray();
        int n = b.length;
        if (v.length() != n) {
            c.wrong(r + " view", "length() " + v.length() + " but toByteArray() has " + n);
        }
        ByteBuffer w = ByteBuffer.wrap(b); // big-endian: the views' order without a ByteOrder
        if (n > 0 && v.getByte(n - 1) != b[n - 1]) {
            c.wrong(r + " view", "getByte disagrees with toByteArray");
        }
        if (n >= 8 && (v.getLong(n - 8) != w.getLong(n - 8) || v.getLong(0, ByteOrder.LITTLE_ENDIAN) != ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(0))) {
            c.wrong(r + " view", "getLong disagrees with toByteArray");
        }
        if (n >= 4 && (v.getInt(1 % (n - 3)) != w.getInt(1 % (n - 3)) || v.getShort(0) != w.getShort(0))) {
            c.wrong(r + " view", "getInt/getShort disagree with toByteArray");
        }
        byte[] part = new byte[n + 2];
        v.getBytes(0, part, 1, n);
        if (!Arrays.equals(Arrays.copyOfRange(part, 1, n + 1), b)) {
            c.wrong(r + " view", "getBytes disagrees with toByteArray");
        }
        ByteBuffer d = StoreOps.direct(n + 3);
        d.position(3);
        v.copyTo(d);
        byte[] viaCopy = new byte[n];
        d.position(3);
        d.get(viaCopy);
        if (!Arrays.equals(viaCopy, b)) {
            c.wrong(r + " view", "copyTo disagrees with toByteArray");
        }
        if (v.compareTo(b) != 0 || !v.contentEquals(b) || (n > 0 && v.contentEquals(Arrays.copyOf(b, n - 1)))) {
            c.wrong(r + " view", "compareTo/contentEquals disagree with toByteArray");
        }
    }

    /** @return a view to work on: a kept one or a fresh one from a cursor; null when none */
    private static ViewRef view(Ctx c) {
        if (c.oneIn(2)) {
            ViewRef v = c.world.views.pick(c.rnd);
            if (v != null) {
                return v;
            }
        }
        CurRef r = pick(c);
        if (r == null) {
            return null;
        }
        View[] out = new View[1];
        boolean isKey = c.oneIn(2);
        int id = c.world.nextId();
        if (r.foreign()) {
            c.foreign(foreignUse(r));
        }
        if (!c.call("v" + id + " = " + r + (isKey ? ".key()" : ".value()"), () -> out[0] = isKey ? r.cursor.key() : r.cursor.value())) {
            return null;
        }
        ViewRef v = new ViewRef(id, out[0], r);
        if (c.oneIn(3)) {
            c.world.views.add(c.rnd, v);
        }
        return v;
    }

    private static void viewOp(Ctx c) {
        ViewRef vr = view(c);
        if (vr == null) {
            return;
        }
        View v = vr.view;
        CurRef r = vr.cursor;
        boolean foreign = r.foreign();
        int len = -1;
        if (!foreign) {
            int[] l = {-1};
            c.quiet(() -> vr + ".length() (for indexes)", () -> l[0] = v.length());
            len = l[0];
        }
        int L = len;
        int op = foreign ? c.rnd.nextInt(15) : c.rnd.nextInt(16); // 15: the consistency check, owner only
        if (foreign && op != 14) {
            c.foreign("view " + vr + " of " + foreignUse(r));
        }
        switch (op) {
            case 0:
                c.call(vr + ".length()", v::length);
                break;
            case 1: {
                int i = c.index(L, 1, true);
                c.call(vr + ".getByte(" + i + ")", () -> v.getByte(i));
                break;
            }
            case 2: {
                int i = c.index(L, 2, true);
                if (c.oneIn(2)) {
                    c.call(vr + ".getShort(" + i + ")", () -> v.getShort(i));
                } else {
                    ByteOrder o = order(c);
                    c.call(vr + ".getShort(" + i + ", " + o + ")", () -> v.getShort(i, o));
                }
                break;
            }
            case 3: {
                int i = c.index(L, 4, true);
                c.call(vr + ".getInt(" + i + ")", () -> v.getInt(i));
                break;
            }
            case 4: {
                int i = c.index(L, 4, true);
                ByteOrder o = order(c);
                c.call(vr + ".getInt(" + i + ", " + o + ")", () -> v.getInt(i, o));
                break;
            }
            case 5: {
                int i = c.index(L, 8, true);
                c.call(vr + ".getLong(" + i + ")", () -> v.getLong(i));
                break;
            }
            case 6: {
                int i = c.index(L, 8, true);
                ByteOrder o = order(c);
                c.call(vr + ".getLong(" + i + ", " + o + ")", () -> v.getLong(i, o));
                break;
            }
            case 7: {
                byte[] dst = c.oneIn(30) ? null : new byte[c.rnd.nextInt(Math.max(L, 0) + 9)];
                if (dst == null) {
                    c.nullArg("dst");
                }
                int dl = dst == null ? 16 : dst.length;
                int n = c.rnd.nextInt(5) != 0 ? Math.min(dl, Math.max(L, 0)) : c.extreme();
                int i = c.rnd.nextInt(5) != 0 ? Math.max(0, Math.min(Math.max(L, 0) - Math.max(n, 0), c.rnd.nextInt(3))) : c.index(L, 1, false);
                int off = c.rnd.nextInt(5) != 0 ? Math.max(0, Math.min(dl - Math.max(n, 0), c.rnd.nextInt(3))) : c.extreme();
                boolean bad = n < 0 || i < 0 || off < 0 || (long) off + n > dl || (L < 0 || (long) i + n > L);
                if (bad) {
                    c.badIndex(L >= 0 && dst != null ? "getBytes(" + i + ", dst[" + dl + "], " + off + ", " + n + ") of length " + L + " accepted" : null);
                }
                c.call(vr + ".getBytes(" + i + ", byte[" + (dst == null ? "null" : dl) + "], " + off + ", " + n + ")",
                        () -> v.getBytes(i, dst, off, n));
                break;
            }
            case 8:
                copyTo(c, vr, L);
                break;
            case 9:
                c.call(vr + ".toByteArray()", v::toByteArray);
                break;
            case 10:
                c.call(vr + ".toUtf8String()", v::toUtf8String);
                break;
            case 11:
                if (foreign) {
                    c.call(vr + ".asByteBuffer() then read", () -> {
                        ByteBuffer b = v.asByteBuffer();
                        c.world.buffers.add(c.rnd, new BufRef(c.world.nextId(), b, null, r));
                        if (b.remaining() > 0) {
                            b.get(b.remaining() - 1);
                        }
                    });
                } else {
                    StoreOps.keepBuffer(c, v, r);
                }
                break;
            case 12: case 13: {
                byte[] other = c.oneIn(20) ? null : c.anyKey();
                if (other == null) {
                    c.nullArg("other");
                }
                if (op == 12) {
                    c.call(vr + ".contentEquals(" + Ctx.hex(other) + ")", () -> v.contentEquals(other));
                } else {
                    c.call(vr + ".compareTo(" + Ctx.hex(other) + ")", () -> v.compareTo(other));
                }
                break;
            }
            case 14:
                c.call(vr + ".toString()", () -> {
                    try {
                        v.toString();
                    } catch (RuntimeException e) {
                        c.wrong(vr + ".toString()", "View.toString() threw " + MisuseFuzz.brief(e));
                    }
                });
                break;
            default:
                c.call(vr + " accessors agree" + (L < 0 ? " (or throw: not valid)" : ""), () -> consistent(c, r, v));
                break;
        }
    }

    private static ByteOrder order(Ctx c) {
        int r = c.rnd.nextInt(20);
        if (r == 0) {
            c.nullArg("order");
            return null;
        }
        return r % 2 == 0 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    private static void copyTo(Ctx c, ViewRef vr, int len) {
        View v = vr.view;
        int kind = c.rnd.nextInt(8);
        ByteBuffer dst;
        String d;
        int n = Math.max(len, 0);
        switch (kind) {
            case 0:
                c.nullArg("dst");
                dst = null;
                d = "null";
                break;
            case 1:
                dst = ByteBuffer.allocate(n + 4).asReadOnlyBuffer();
                c.readOnlyDst();
                if (len >= 0) {
                    c.mustThrow("copyTo into a read-only buffer accepted");
                }
                d = "read-only";
                break;
            case 2:
                if (len <= 0) {
                    dst = ByteBuffer.allocate(n);
                    d = "heap exact";
                    break;
                }
                dst = c.oneIn(2) ? ByteBuffer.allocate(len - 1) : StoreOps.direct(len - 1);
                c.badIndex("copyTo into " + (len - 1) + " bytes of room for " + len + " accepted");
                d = "too small";
                break;
            case 3: {
                ByteBuffer big = ByteBuffer.allocate(n + 16);
                big.position(5);
                dst = big.slice();
                dst.position(2);
                d = "heap slice at 5+2";
                break;
            }
            case 4:
                dst = StoreOps.direct(n + 3);
                dst.position(3);
                d = "direct at 3";
                break;
            default:
                dst = ByteBuffer.allocate(n + c.rnd.nextInt(4));
                d = "heap";
                break;
        }
        if (len < 0) {
            c.badIndex(null); // length unknown (another thread's view): a too-small buffer may be refused
        }
        ByteBuffer t = dst;
        c.call(vr + ".copyTo(" + d + ")", () -> {
            int p = t == null ? 0 : t.position();
            v.copyTo(t);
            if (len >= 0 && !vr.cursor.foreign()) {
                byte[] got = new byte[len];
                t.duplicate().position(p).get(got);
                if (t.position() != p + len || !Arrays.equals(got, v.toByteArray())) {
                    c.wrong(vr + ".copyTo", "copied bytes or position differ from toByteArray()");
                }
            }
        });
    }

    private static void bufferRead(Ctx c) {
        BufRef b = c.world.buffers.pick(c.rnd);
        if (b == null) {
            return;
        }
        boolean foreign = b.cursor != null && b.cursor.foreign();
        if (foreign) {
            c.foreign(null);
        }
        ByteBuffer buf = b.buf;
        int lim = buf.limit();
        int mode = c.rnd.nextInt(3);
        if (mode == 0) {
            c.call(b + " read all (" + lim + " bytes" + (b.cursor == null ? "" : ", from " + b.cursor) + ")", () -> {
                byte[] got = new byte[lim];
                buf.get(0, got);
                if (b.expect != null && !Arrays.equals(got, b.expect)) {
                    c.wrong(b + " read", "a kept asByteBuffer() buffer shows other bytes than when it was made (it must keep them or throw)");
                }
            });
        } else {
            int i = c.index(lim, mode == 1 ? 1 : 8, true);
            c.call(b + (mode == 1 ? ".get(" : ".getLong(") + i + ")", () -> {
                if (mode == 1) {
                    byte x = buf.get(i);
                    if (b.expect != null && x != b.expect[i]) {
                        c.wrong(b + ".get", "a kept asByteBuffer() buffer shows another byte than when it was made");
                    }
                } else {
                    long x = buf.getLong(i);
                    if (b.expect != null && x != ByteBuffer.wrap(b.expect).order(buf.order()).getLong(i)) {
                        c.wrong(b + ".getLong", "a kept asByteBuffer() buffer shows other bytes than when it was made");
                    }
                }
            });
        }
    }

    private static void agrona(Ctx c) {
        ViewRef vr = view(c);
        if (vr == null) {
            return;
        }
        View v = c.oneIn(30) ? null : vr.view;
        if (v == null) {
            c.nullArg("view");
        }
        boolean foreign = vr.cursor.foreign();
        if (foreign) {
            c.foreign("AgronaViews.wrap of " + foreignUse(vr.cursor));
        }
        boolean reuse = c.oneIn(2);
        UnsafeBuffer into = reuse && c.oneIn(20) ? null : new UnsafeBuffer(0, 0);
        if (reuse && into == null) {
            c.nullArg("into");
        }
        c.call("AgronaViews.wrap(" + (v == null ? "null" : vr) + (reuse ? ", " + (into == null ? "null" : "into") : "") + ") then read", () -> {
            UnsafeBuffer u = reuse ? AgronaViews.wrap(v, into) : AgronaViews.wrap(v);
            int n = u.capacity();
            byte[] got = new byte[n];
            u.getBytes(0, got);
            if (!foreign && !Arrays.equals(got, v.toByteArray())) {
                c.wrong("AgronaViews.wrap", "the wrapped buffer shows other bytes than the view");
            }
        });
    }
}
