package dev.ferry;

import dev.ferry.DifferentialFuzz.Config;
import dev.ferry.DifferentialFuzz.Kind;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The write operations of the differential fuzzer ({@link DifferentialFuzz}): puts through every overload
 * (arrays, slices, buffers), deletes, range deletes (also the empty and inverted ones, which are no-ops),
 * bulk loads, write batches across families and batches that must fail as a whole; each applied to the
 * model as well.
 */
abstract class DiffFuzzWrites extends DiffFuzzState {
    DiffFuzzWrites(Config cfg, Path dir, String replay) {
        super(cfg, dir, replay);
    }

    void opPut(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = value();
        if (f.isDefault() && r.nextBoolean()) {
            note("store.put(" + x(k) + ", " + x(v) + ")");
            store.put(k, v);
        } else {
            note("store.put(" + f.ref() + ", " + x(k) + ", " + x(v) + ")");
            store.put(f.cf, k, v);
        }
        f.data.put(k, v);
        remember(f, k);
    }

    void opPutSlice(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = value();
        int ko = r.nextInt(5);
        int vo = r.nextInt(5);
        byte[] ka = new byte[ko + k.length + r.nextInt(5)];
        byte[] va = new byte[vo + v.length + r.nextInt(5)];
        Arrays.fill(ka, (byte) 0xA5);
        Arrays.fill(va, (byte) 0x5A);
        System.arraycopy(k, 0, ka, ko, k.length);
        System.arraycopy(v, 0, va, vo, v.length);
        note("store.put(" + f.ref() + ", slice " + ko + "+" + k.length + " of " + x(k) + ", slice " + vo + "+" + v.length + " of " + x(v) + ")");
        store.put(f.cf, ka, ko, k.length, va, vo, v.length);
        f.data.put(k, v);
        remember(f, k);
    }

    ByteBuffer buffer(byte[] content, boolean direct) {
        int pad = r.nextInt(9);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(pad + content.length + 3) : ByteBuffer.allocate(pad + content.length + 3);
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0xC3);
        }
        b.position(pad);
        b.put(content);
        b.position(pad).limit(pad + content.length);
        return b;
    }

    void opPutBuffer(Fam f) {
        byte[] k = writeKey(f);
        byte[] v = r.nextInt(4) == 0 ? new byte[16384 + r.nextInt(70000)] : value(); // large direct values go by address
        if (v.length >= 16384) {
            r.nextBytes(v);
        }
        boolean kd = r.nextBoolean();
        boolean vd = r.nextBoolean();
        ByteBuffer kb = buffer(k, kd);
        ByteBuffer vb = buffer(v, vd);
        int kp = kb.position();
        int vp = vb.position();
        note("store.put(" + f.ref() + ", " + (kd ? "direct " : "heap ") + x(k) + ", " + (vd ? "direct " : "heap ") + x(v) + ")");
        store.put(f.cf, kb, vb);
        check(kb.position() == kp && vb.position() == vp, ctx("put(ByteBuffer) moved a buffer's position"));
        f.data.put(k, v);
        remember(f, k);
    }

    void opDelete(Fam f) {
        byte[] k = writeKey(f);
        int c = r.nextInt(4);
        if (c == 0 && f.isDefault()) {
            note("store.delete(" + x(k) + ")");
            store.delete(k);
        } else if (c == 1) {
            int off = r.nextInt(4);
            byte[] a = new byte[off + k.length + r.nextInt(4)];
            Arrays.fill(a, (byte) 0xEE);
            System.arraycopy(k, 0, a, off, k.length);
            note("store.delete(" + f.ref() + ", slice " + off + "+" + k.length + " of " + x(k) + ")");
            store.delete(f.cf, a, off, k.length);
        } else if (c == 2) {
            boolean d = r.nextBoolean();
            ByteBuffer kb = buffer(k, d);
            int p = kb.position();
            note("store.delete(" + f.ref() + ", " + (d ? "direct " : "heap ") + x(k) + ")");
            store.delete(f.cf, kb);
            check(kb.position() == p, ctx("delete(ByteBuffer) moved the buffer's position"));
        } else {
            note("store.delete(" + f.ref() + ", " + x(k) + ")");
            store.delete(f.cf, k);
        }
        f.data.remove(k);
        remember(f, k);
    }

    /** A range with begin &lt; end (ordered) or begin &gt;= end (degenerate). */
    byte[][] rangeBounds(Fam f, boolean degenerate) {
        if (degenerate) {
            byte[] k = probe(f);
            switch (r.nextInt(4)) {
                case 0: return new byte[][] {k, k.clone()};
                case 1: return new byte[][] {k, new byte[0]};
                case 2: {
                    byte[] o = probe(f);
                    return cmp(k, o) >= 0 ? new byte[][] {k, o} : new byte[][] {o, k};
                }
                default: {
                    // end a proper prefix of begin, or begin = end + 00
                    return r.nextBoolean() ? new byte[][] {Arrays.copyOf(k, k.length + 1), k}
                            : new byte[][] {k, Arrays.copyOf(k, r.nextInt(k.length + 1))};
                }
            }
        }
        for (;;) {
            byte[] lo;
            byte[] hi;
            int c = r.nextInt(100);
            if (c < 65 && !f.data.isEmpty()) {
                // from a key over the next few live keys
                lo = r.nextInt(4) == 0 ? probe(f) : poolKey(f);
                hi = null;
                int skip = 1 + r.nextInt(8);
                Iterator<byte[]> it = f.data.tailMap(lo, false).keySet().iterator();
                while (it.hasNext() && skip-- > 0) {
                    hi = it.next();
                }
                if (hi == null) {
                    hi = Arrays.copyOf(lo, lo.length + 1);
                }
            } else if (c < 80) {
                // a prefix: [p, successor(p))
                byte[] k = f.pool.isEmpty() ? probe(f) : poolKey(f);
                lo = Arrays.copyOf(k, Math.min(k.length, 2 + r.nextInt(3)));
                hi = prefixEnd(lo);
                if (hi == null) {
                    hi = new byte[lo.length + 1];
                    Arrays.fill(hi, (byte) 0xFF);
                }
            } else if (c < 83) {
                lo = new byte[0];
                hi = probe(f);
            } else {
                lo = probe(f);
                hi = probe(f);
                if (cmp(lo, hi) > 0) {
                    byte[] t = lo;
                    lo = hi;
                    hi = t;
                }
            }
            if (cmp(lo, hi) < 0) {
                return new byte[][] {lo, hi};
            }
        }
    }

    static byte[] prefixEnd(byte[] p) {
        for (int i = p.length - 1; i >= 0; i--) {
            if (p[i] != (byte) 0xFF) {
                byte[] e = Arrays.copyOf(p, i + 1);
                e[i]++;
                return e;
            }
        }
        return null;
    }

    /** Applies deleteRange to a model: [begin, end) when begin &lt; end, else nothing. */
    static void modelDeleteRange(Fam f, byte[] begin, byte[] end) {
        if (cmp(begin, end) < 0) {
            f.data.subMap(begin, true, end, false).clear();
        }
    }

    void opDeleteRange(Fam f, boolean degenerate) {
        byte[][] be = rangeBounds(f, degenerate);
        if (f.isDefault() && r.nextBoolean()) {
            note("store.deleteRange(" + x(be[0]) + ", " + x(be[1]) + ")");
            store.deleteRange(be[0], be[1]);
        } else {
            note("store.deleteRange(" + f.ref() + ", " + x(be[0]) + ", " + x(be[1]) + ")");
            store.deleteRange(f.cf, be[0], be[1]);
        }
        modelDeleteRange(f, be[0], be[1]);
    }

    /** Adds random records to a batch and applies them to the models in order. */
    void fillBatch(WriteBatch wb, List<Runnable> model, StringBuilder text, int n) {
        List<Fam> l = live();
        for (int i = 0; i < n; i++) {
            Fam f = l.get(r.nextInt(l.size()));
            boolean dflt = f.isDefault() && r.nextBoolean();
            int c = r.nextInt(100);
            if (c < 65) {
                byte[] k = writeKey(f);
                byte[] v = value();
                if (dflt) {
                    wb.put(k, v);
                } else {
                    wb.put(f.cf, k, v);
                }
                remember(f, k);
                model.add(() -> f.data.put(k, v));
                text.append("\n      .put(").append(dflt ? "" : f.ref() + ", ").append(x(k)).append(", ").append(x(v)).append(')');
            } else if (c < 92) {
                byte[] k = writeKey(f);
                if (dflt) {
                    wb.delete(k);
                } else {
                    wb.delete(f.cf, k);
                }
                remember(f, k);
                model.add(() -> f.data.remove(k));
                text.append("\n      .delete(").append(dflt ? "" : f.ref() + ", ").append(x(k)).append(')');
            } else {
                boolean degenerate = c >= 97 && allowed(Kind.DELETE_RANGE_EMPTY);
                byte[][] be = rangeBounds(f, degenerate);
                if (dflt) {
                    wb.deleteRange(be[0], be[1]);
                } else {
                    wb.deleteRange(f.cf, be[0], be[1]);
                }
                model.add(() -> modelDeleteRange(f, be[0], be[1]));
                text.append("\n      .deleteRange(").append(dflt ? "" : f.ref() + ", ").append(x(be[0])).append(", ")
                        .append(x(be[1])).append(')');
            }
        }
    }

    void opBatch() {
        WriteBatch wb;
        boolean reuse = reusable != null && r.nextInt(3) == 0;
        if (reuse) {
            wb = reusable;
            wb.clear();
            check(wb.count() == 0 && wb.sizeInBytes() == 0, ctx("a cleared batch is not empty"));
        } else {
            if (reusable != null) {
                reusable.close();
            }
            wb = new WriteBatch();
            reusable = wb;
        }
        List<Runnable> model = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int n = r.nextInt(10) == 0 ? 50 + r.nextInt(150) : 1 + r.nextInt(20);
        fillBatch(wb, model, text, n);
        check(wb.count() == n, ctx("batch count " + wb.count() + " != " + n));
        int times = r.nextInt(8) == 0 ? 2 : 1;
        note("store.write(" + (reuse ? "cleared batch" : "new WriteBatch()") + text + ")" + (times == 2 ? " twice" : ""));
        for (int t = 0; t < times; t++) {
            store.write(wb);
            for (Runnable m : model) {
                m.run();
            }
        }
    }

    void opBulk(Fam f) {
        byte[] prefix = alphabetKey(1 + r.nextInt(3));
        int n = 50 + r.nextInt(350);
        int start = r.nextInt(1000);
        int vmax = r.nextInt(4) == 0 ? 2000 : 40;
        boolean batch = r.nextBoolean();
        note((batch ? "one batch" : "puts") + " into " + f.ref() + ": " + n + " keys " + x(prefix) + " + int32 from " + start
                + ", values of up to " + vmax + " bytes");
        try (WriteBatch wb = batch ? new WriteBatch() : null) {
            for (int i = 0; i < n; i++) {
                byte[] k = ByteBuffer.allocate(prefix.length + 4).put(prefix).putInt(start + i).array();
                if (!writable(f, k)) {
                    continue;
                }
                byte[] v = new byte[r.nextInt(vmax + 1)];
                r.nextBytes(v);
                if (batch) {
                    wb.put(f.cf, k, v);
                } else {
                    store.put(f.cf, k, v);
                }
                f.data.put(k, v);
                remember(f, k);
            }
            if (batch) {
                store.write(wb);
            }
        }
    }

    void opBatchRejected() {
        List<Fam> named = new ArrayList<>(live());
        named.remove(0);
        boolean dropCase = !named.isEmpty() && (!lmdb || r.nextBoolean()) && allowed(Kind.DROP_FAMILY);
        try (WriteBatch wb = new WriteBatch()) {
            List<Runnable> ignored = new ArrayList<>();
            StringBuilder text = new StringBuilder();
            fillBatch(wb, ignored, text, r.nextInt(6));
            if (dropCase) {
                Fam victim = named.get(r.nextInt(named.size()));
                byte[] k = writeKey(victim);
                wb.put(victim.cf, k, value());
                text.append("\n      .put(").append(victim.ref()).append(", ").append(x(k)).append(", ...)");
                fillBatch(wb, ignored, text, r.nextInt(6));
                note("wb = new WriteBatch()" + text);
                dropFamily(victim);
                note("store.write(wb) -> must fail: " + victim.ref() + " was dropped after it was added");
                RuntimeException e = expectThrows(RuntimeException.class, () -> store.write(wb), "write of a batch naming a dropped family");
                check(e instanceof FerryException || e instanceof IllegalStateException,
                        ctx("a batch naming a dropped family threw " + e));
            } else if (lmdb) {
                byte[] bad = r.nextBoolean() ? new byte[0] : alphabetKey(512 + r.nextInt(100));
                Fam f = liveFam();
                if (r.nextBoolean()) {
                    wb.put(f.cf, bad, value());
                    text.append("\n      .put(").append(f.ref()).append(", ").append(x(bad)).append(", ...)");
                } else {
                    wb.delete(f.cf, bad);
                    text.append("\n      .delete(").append(f.ref()).append(", ").append(x(bad)).append(')');
                }
                fillBatch(wb, ignored, text, r.nextInt(6));
                note("store.write(new WriteBatch()" + text + ") -> must fail with KEY_SIZE and write nothing");
                FerryException e = expectThrows(FerryException.class, () -> store.write(wb), "batch with a bad key");
                check(e.code() == ErrorCode.KEY_SIZE, ctx("batch with a bad key: code " + e.code() + ", expected KEY_SIZE"));
            } else {
                note("(no family to drop: nothing to reject)");
            }
        }
    }

}
