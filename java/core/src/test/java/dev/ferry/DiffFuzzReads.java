package dev.ferry;

import dev.ferry.DifferentialFuzz.Config;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The read operations of the differential fuzzer ({@link DifferentialFuzz}), on the store or a snapshot:
 * gets through every overload, gets into buffers, multiGet, scans, splits and parallel scans, and cursor
 * sessions of mixed moves whose every answer and view is compared with the model cursor.
 */
abstract class DiffFuzzReads extends DiffFuzzWrites {
    DiffFuzzReads(Config cfg, Path dir, String replay) {
        super(cfg, dir, replay);
    }

    void opGet(Fam f) {
        byte[] k = probe(f);
        boolean any = lmdb && f.isDefault() && isLiveName(k);
        byte[] want = f.data.get(k);
        int c = r.nextInt(4);
        byte[] got;
        if (c == 0 && f.isDefault()) {
            note("store.get(" + x(k) + ")");
            got = store.get(k);
        } else if (c == 1) {
            int off = r.nextInt(4);
            byte[] a = new byte[off + k.length + r.nextInt(4)];
            Arrays.fill(a, (byte) 0x77);
            System.arraycopy(k, 0, a, off, k.length);
            note("store.get(" + f.ref() + ", slice " + off + "+" + k.length + " of " + x(k) + ")");
            got = store.get(f.cf, a, off, k.length);
        } else if (c == 2) {
            boolean d = r.nextBoolean();
            ByteBuffer kb = buffer(k, d);
            int p = kb.position();
            note("store.get(" + f.ref() + ", " + (d ? "direct " : "heap ") + x(k) + ")");
            got = store.get(f.cf, kb);
            check(kb.position() == p, ctx("get(ByteBuffer) moved the key buffer's position"));
        } else {
            note("store.get(" + f.ref() + ", " + x(k) + ")");
            got = store.get(f.cf, k);
        }
        checkValue(any, want, got, "get " + x(k));
    }

    /** get into a buffer, through the store or a snapshot, against a model map. */
    void opGetInto(Snap s, Fam f, TreeMap<byte[], byte[]> frozen) {
        byte[] k = probe(f);
        boolean any;
        byte[] want;
        if (frozen == null) {
            any = lmdb && f.isDefault() && isLiveName(k);
            want = f.data.get(k);
        } else {
            any = frozen.containsKey(k) && frozen.get(k) == null;
            want = frozen.get(k);
        }
        boolean direct = r.nextBoolean();
        int vlen = any ? DB_RECORD : want == null ? 0 : want.length;
        int cap = r.nextInt(3) == 0 ? vlen + r.nextInt(8) : r.nextInt(Math.max(1, Math.min(vlen, 64)) + 1);
        int pos = r.nextInt(6);
        int total = pos + cap + 4;
        ByteBuffer into = direct ? ByteBuffer.allocateDirect(total) : ByteBuffer.allocate(total);
        for (int i = 0; i < total; i++) {
            into.put(i, (byte) 0x3C);
        }
        into.position(pos).limit(pos + cap);
        ByteBuffer kb = buffer(k, r.nextBoolean());
        String src = s == null ? "store" : s.ref();
        note(src + ".get(" + f.ref() + ", " + x(k) + ", " + (direct ? "direct" : "heap") + " buffer pos " + pos + " remaining " + cap + ")");
        int n;
        if (s == null && f.isDefault() && r.nextBoolean()) {
            n = store.get(k, into);
        } else if (s == null) {
            n = store.get(f.cf, kb, into);
        } else {
            n = s.snapshot.get(f.cf, kb, into);
        }
        if (want == null && !any) {
            check(n == Store.NOT_FOUND, ctx("get into buffer of absent " + x(k) + " returned " + n));
            check(into.position() == pos, ctx("get into buffer of an absent key moved the position to " + into.position()));
        } else {
            if (any) {
                check(n > 0, ctx("get into buffer of a family record returned " + n));
                return;
            }
            check(n == want.length, ctx("get into buffer of " + x(k) + " returned length " + n + ", expected " + want.length));
            int w = Math.min(cap, want.length);
            check(into.position() == pos + w, ctx("get into buffer: position " + into.position() + ", expected " + (pos + w)));
            for (int i = 0; i < w; i++) {
                if (into.get(pos + i) != want[i]) {
                    throw new AssertionError(ctx("get into buffer of " + x(k) + ": byte " + i + " differs"));
                }
            }
        }
        ByteBuffer whole = into.duplicate();
        whole.limit(whole.capacity());
        for (int i = 0; i < total; i++) {
            boolean written = i >= pos && i < into.position();
            if (!written && whole.get(i) != (byte) 0x3C) {
                throw new AssertionError(ctx("get into buffer wrote outside position..position+length at index " + i));
            }
        }
    }

    void opMultiGet(Snap s, Fam f, TreeMap<byte[], byte[]> frozen) {
        int n = r.nextInt(8) == 0 ? 100 + r.nextInt(200) : r.nextInt(40);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(i > 0 && r.nextInt(10) == 0 ? keys.get(r.nextInt(i)) : probe(f));
        }
        String src = s == null ? "store" : s.ref();
        note(src + ".multiGet(" + f.ref() + ", " + n + " keys)");
        List<byte[]> got;
        if (s == null && f.isDefault() && r.nextBoolean()) {
            got = store.multiGet(keys);
        } else if (s == null) {
            got = store.multiGet(f.cf, keys);
        } else {
            got = s.snapshot.multiGet(f.cf, keys);
        }
        check(got.size() == n, ctx("multiGet returned " + got.size() + " values for " + n + " keys"));
        for (int i = 0; i < n; i++) {
            byte[] k = keys.get(i);
            boolean any = frozen == null ? lmdb && f.isDefault() && isLiveName(k) : frozen.containsKey(k) && frozen.get(k) == null;
            byte[] want = frozen == null ? f.data.get(k) : frozen.get(k);
            checkValue(any, want, got.get(i), "multiGet #" + i + " " + x(k));
        }
    }

    void opScan(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int stop = r.nextInt(3) == 0 ? 1 + r.nextInt(10) : Integer.MAX_VALUE;
        String src = s == null ? "store" : s.ref();
        note(src + ".scan(" + f.ref() + ", " + rs + ", stop after " + (stop == Integer.MAX_VALUE ? "none" : stop) + ")");
        List<byte[][]> got = new ArrayList<>();
        EntryVisitor v = (k, val) -> {
            got.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            return got.size() < stop;
        };
        long n = s == null ? store.scan(f.cf, rs.range, v) : s.snapshot.scan(f.cf, rs.range, v);
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        int expect = Math.min(stop, want.size());
        check(got.size() == expect, ctx("scan visited " + got.size() + " entries, expected " + expect + " of " + want.size()));
        check(n == expect, ctx("scan returned " + n + ", expected " + expect));
        for (int i = 0; i < expect; i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "scan key #" + i);
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "scan value #" + i + " " + x(got.get(i)[0]));
        }
    }

    /**
     * Splits a random range and scans each sub-range through the same source: the concatenation must
     * be the range's entries in the model, each once, in order; the sub-ranges are at most n, contiguous,
     * and span exactly the range.
     */
    void opSplit(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int n = 1 + r.nextInt(r.nextInt(4) == 0 ? 100 : 8);
        String src = s == null ? "store" : s.ref();
        note("parts = " + src + ".split(" + f.ref() + ", " + rs + ", " + n + ")");
        List<KeyRange> parts = s == null ? store.split(f.cf, rs.range, n) : s.snapshot.split(f.cf, rs.range, n);
        check(!parts.isEmpty() && parts.size() <= n, ctx("split gave " + parts.size() + " sub-ranges for n=" + n));
        checkBytes(rs.range.lower(), parts.get(0).lower(), "split: the first sub-range's lower bound");
        checkBytes(rs.range.upper(), parts.get(parts.size() - 1).upper(), "split: the last sub-range's upper bound");
        for (int i = 1; i < parts.size(); i++) {
            checkBytes(parts.get(i - 1).upper(), parts.get(i).lower(), "split: sub-ranges " + (i - 1) + " and " + i + " meet");
            check(!parts.get(i).isEmpty(), ctx("split: sub-range " + i + " of " + parts.size() + " is empty: " + parts.get(i)));
        }
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        List<byte[][]> got = new ArrayList<>();
        for (KeyRange p : parts) {
            EntryVisitor v = (k, val) -> got.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            if (s == null) {
                store.scan(f.cf, p, v);
            } else {
                s.snapshot.scan(f.cf, p, v);
            }
        }
        check(got.size() == want.size(), ctx("the " + parts.size() + " sub-ranges hold " + got.size() + " entries, the range " + want.size()));
        for (int i = 0; i < want.size(); i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "split: entry #" + i + " of the sub-ranges' scans");
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "split: value #" + i);
        }
    }

    /**
     * A parallel scan of a random range on 1-4 threads, each sub-range's entries collected by its own
     * visitor: together they must be the range's entries, each once, and in key order within each
     * visitor. On a snapshot, a writer thread puts and deletes keys of the family meanwhile (decided
     * here, so the sequence stays the seed's): the snapshot must not see them; the model takes them
     * once the writer is done.
     */
    void opParallelScan(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        int threads = 1 + r.nextInt(4);
        String src = s == null ? "store" : s.ref();
        List<byte[][]> writes = new ArrayList<>();
        if (s != null && r.nextBoolean()) {
            int w = 1 + r.nextInt(40);
            for (int i = 0; i < w; i++) {
                byte[] k = writeKey(f);
                writes.add(new byte[][] {k, r.nextInt(4) == 0 ? null : value()});
            }
        }
        boolean onExecutor = r.nextInt(3) == 0;
        note(src + ".parallelScan(" + f.ref() + ", " + rs + ", " + threads + (onExecutor ? ", ForkJoinPool.commonPool()" : "") + ", collect)"
                + (writes.isEmpty() ? "" : "  // beside a writer of " + writes.size() + " puts and deletes on " + f.ref()));
        java.util.concurrent.ConcurrentLinkedQueue<List<byte[][]>> lists = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> writerFailed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = null;
        if (!writes.isEmpty()) {
            writer = new Thread(() -> {
                try {
                    for (byte[][] kv : writes) {
                        if (kv[1] == null) {
                            store.delete(f.cf, kv[0]);
                        } else {
                            store.put(f.cf, kv[0], kv[1]);
                        }
                    }
                } catch (Throwable t) {
                    writerFailed.set(t);
                }
            }, "diff-writer");
            writer.start();
        }
        long n;
        try {
            java.util.function.Supplier<EntryVisitor> visitors = () -> {
                List<byte[][]> mine = new ArrayList<>();
                lists.add(mine);
                return (k, val) -> mine.add(new byte[][] {k.toByteArray(), val.toByteArray()});
            };
            if (onExecutor) {
                java.util.concurrent.Executor ex = java.util.concurrent.ForkJoinPool.commonPool();
                n = s == null ? store.parallelScan(f.cf, rs.range, threads, ex, visitors)
                        : s.snapshot.parallelScan(f.cf, rs.range, threads, ex, visitors);
            } else {
                n = s == null ? store.parallelScan(f.cf, rs.range, threads, visitors) : s.snapshot.parallelScan(f.cf, rs.range, threads, visitors);
            }
        } finally {
            if (writer != null) {
                try {
                    writer.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted while the writer beside a parallel scan ran", e);
                }
            }
        }
        check(writerFailed.get() == null, ctx("the writer beside the parallel scan failed: " + writerFailed.get()));
        List<byte[][]> got = new ArrayList<>();
        for (List<byte[][]> l : lists) {
            for (int i = 1; i < l.size(); i++) {
                check(Arrays.compareUnsigned(l.get(i - 1)[0], l.get(i)[0]) < 0,
                        ctx("a parallel scan's visitor saw " + x(l.get(i - 1)[0]) + " then " + x(l.get(i)[0])));
            }
            got.addAll(l);
        }
        got.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(rs.filter(frozenView).entrySet());
        check(n == want.size(), ctx("parallelScan returned " + n + ", the range holds " + want.size()));
        check(got.size() == want.size(), ctx("parallelScan's visitors saw " + got.size() + " entries, the range holds " + want.size()));
        for (int i = 0; i < want.size(); i++) {
            checkBytes(want.get(i).getKey(), got.get(i)[0], "parallelScan: entry #" + i + " in key order");
            checkValue(want.get(i).getValue() == null, want.get(i).getValue(), got.get(i)[1], "parallelScan: value #" + i);
        }
        for (byte[][] kv : writes) {
            note(kv[1] == null ? "  (writer) store.delete(" + f.ref() + ", " + x(kv[0]) + ")"
                    : "  (writer) store.put(" + f.ref() + ", " + x(kv[0]) + ", " + x(kv[1]) + ")");
            if (kv[1] == null) {
                f.data.remove(kv[0]);
            } else {
                f.data.put(kv[0], kv[1]);
            }
            remember(f, kv[0]);
        }
    }

    /** A cursor over a random range with random options and mixed moves; {@code frozenView} is what it must see. */
    void cursorSession(Snap s, Fam f, TreeMap<byte[], byte[]> frozenView) {
        RangeSpec rs = randomRange(f);
        CursorOptions o = randomCursorOptions();
        TreeMap<byte[], byte[]> exp = rs.filter(frozenView);
        String src = s == null ? "store" : s.ref();
        note("c = " + src + ".cursor(" + f.ref() + ", " + rs + ", " + cursorOptionsText(o) + ")  // " + exp.size() + " entries in range");
        Cursor c = s == null ? (f.isDefault() && o == null && r.nextInt(4) == 0 ? store.cursor(rs.range) : store.cursor(f.cf, rs.range, o))
                : s.snapshot.cursor(f.cf, rs.range, o);
        ModelCursor m = new ModelCursor(exp);
        try {
            int moves = r.nextInt(4) == 0 ? 1 + r.nextInt(200) : 1 + r.nextInt(30);
            for (int i = 0; i < moves; i++) {
                int w = r.nextInt(100);
                String what;
                boolean got;
                boolean want;
                if (w < 33) {
                    what = "c.next()";
                    got = c.next();
                    want = m.next();
                } else if (w < 58) {
                    what = "c.prev()";
                    got = c.prev();
                    want = m.prev();
                } else if (w < 64) {
                    what = "c.first()";
                    got = c.first();
                    want = m.first();
                } else if (w < 70) {
                    what = "c.last()";
                    got = c.last();
                    want = m.last();
                } else if (w < 80) {
                    byte[] t = probe(f);
                    what = "c.seek(" + x(t) + ")";
                    got = c.seek(t);
                    want = m.seek(t);
                } else if (w < 90) {
                    byte[] t = probe(f);
                    what = "c.seekForPrev(" + x(t) + ")";
                    got = c.seekForPrev(t);
                    want = m.seekForPrev(t);
                } else if (w < 94) {
                    // writes while the cursor is open must not show through it
                    interleavedWrite();
                    continue;
                } else {
                    // walk in one direction to the end
                    boolean fwd = r.nextBoolean();
                    note("  walk " + (fwd ? "next" : "prev") + " to the end");
                    int steps = 0;
                    do {
                        got = fwd ? c.next() : c.prev();
                        want = fwd ? m.next() : m.prev();
                        compareCursor(c, m, got, want, (fwd ? "c.next()" : "c.prev()") + " step " + steps, false);
                    } while (want && ++steps < 100000);
                    continue;
                }
                note("  " + what + " -> " + want + (want ? " " + x(m.pos) : ""));
                compareCursor(c, m, got, want, what, r.nextInt(5) == 0);
            }
            if (r.nextInt(10) == 0) {
                note("  c.close(); c.next() -> IllegalStateException");
                c.close();
                check(c.isClosed(), ctx("closed cursor not closed"));
                expectThrows(IllegalStateException.class, c::next, "next() on a closed cursor");
                expectThrows(IllegalStateException.class, c::key, "key() on a closed cursor");
            }
        } finally {
            c.close();
        }
    }

    void compareCursor(Cursor c, ModelCursor m, boolean got, boolean want, String what, boolean views) {
        if (got != want) {
            throw new AssertionError(ctx("cursor " + what + " returned " + got + ", expected " + want
                    + (want ? " on " + x(m.pos) : "") + (got ? " but stands on " + x(c.keyBytes()) : "")));
        }
        check(c.isValid() == want, ctx("cursor " + what + ": isValid() " + c.isValid()));
        if (want) {
            movesOnEntry++;
        } else {
            movesOff++;
        }
        if (!want) {
            if (views) {
                expectThrows(IllegalStateException.class, c::key, what + " then key() off an entry");
            }
            return;
        }
        byte[] k = c.keyBytes();
        checkBytes(m.pos, k, "cursor " + what + " key");
        byte[] wantValue = m.m.get(m.pos);
        byte[] v = c.valueBytes();
        checkValue(wantValue == null, wantValue, v, "cursor " + what + " value of " + x(k));
        if (views) {
            checkView(c.key(), m.pos, "key view");
            if (wantValue != null) {
                checkView(c.value(), wantValue, "value view");
            }
        }
    }

    /** Every accessor of a view against the bytes it must hold. */
    void checkView(View v, byte[] want, String what) {
        check(v.length() == want.length, ctx(what + " length " + v.length() + ", expected " + want.length));
        check(v.contentEquals(want), ctx(what + " contentEquals false"));
        check(v.compareTo(want) == 0, ctx(what + " compareTo itself != 0"));
        byte[] other = want.length > 0 && r.nextBoolean() ? Arrays.copyOf(want, want.length - 1) : Arrays.copyOf(want, want.length + 1);
        check(Integer.signum(v.compareTo(other)) == Integer.signum(cmp(want, other)), ctx(what + " compareTo sign"));
        ByteBuffer bb = v.asByteBuffer();
        check(bb.remaining() == want.length, ctx(what + " asByteBuffer remaining " + bb.remaining()));
        byte[] fromBuffer = new byte[bb.remaining()];
        bb.duplicate().get(fromBuffer);
        checkBytes(want, fromBuffer, what + " asByteBuffer");
        ByteBuffer dst = r.nextBoolean() ? ByteBuffer.allocateDirect(want.length + 7) : ByteBuffer.allocate(want.length + 7);
        dst.position(3);
        v.copyTo(dst);
        check(dst.position() == 3 + want.length, ctx(what + " copyTo position " + dst.position()));
        byte[] copied = new byte[want.length];
        dst.get(3, copied);
        checkBytes(want, copied, what + " copyTo");
        if (want.length > 0) {
            int i = r.nextInt(want.length);
            check(v.getByte(i) == want[i], ctx(what + " getByte(" + i + ")"));
            int len = r.nextInt(want.length - i + 1);
            byte[] part = new byte[len + 2];
            v.getBytes(i, part, 1, len);
            checkBytes(Arrays.copyOfRange(want, i, i + len), Arrays.copyOfRange(part, 1, 1 + len), what + " getBytes(" + i + ", " + len + ")");
        }
        if (want.length >= 8) {
            int i = r.nextInt(want.length - 7);
            ByteBuffer w = ByteBuffer.wrap(want);
            check(v.getLong(i, ByteOrder.BIG_ENDIAN) == w.order(ByteOrder.BIG_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ", BIG_ENDIAN)"));
            check(v.getLong(i, ByteOrder.LITTLE_ENDIAN) == w.order(ByteOrder.LITTLE_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ", LITTLE_ENDIAN)"));
            // without an order: big-endian, as ByteBuffer
            check(v.getLong(i) == w.order(ByteOrder.BIG_ENDIAN).getLong(i), ctx(what + " getLong(" + i + ")"));
            check(v.getInt(i) == w.order(ByteOrder.BIG_ENDIAN).getInt(i), ctx(what + " getInt(" + i + ")"));
            check(v.getShort(i) == w.order(ByteOrder.BIG_ENDIAN).getShort(i), ctx(what + " getShort(" + i + ")"));
            check(v.getShort(i, ByteOrder.LITTLE_ENDIAN) == w.order(ByteOrder.LITTLE_ENDIAN).getShort(i), ctx(what + " getShort(" + i + ", LITTLE_ENDIAN)"));
        }
        expectThrows(IndexOutOfBoundsException.class, () -> v.getByte(want.length), what + " getByte(length)");
    }

    void interleavedWrite() {
        Fam f = liveFam();
        int c = r.nextInt(10);
        if (c < 6) {
            opPut(f);
        } else if (c < 9) {
            opDelete(f);
        } else {
            opDeleteRange(f, false);
        }
    }

}
