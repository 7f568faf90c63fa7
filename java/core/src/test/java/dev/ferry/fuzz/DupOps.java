package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyFlag;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import dev.ferry.WriteOptions;
import dev.ferry.fuzz.World.CfRef;
import dev.ferry.fuzz.World.StoreRef;
import java.util.EnumSet;
import java.util.Set;

/**
 * Operations on duplicate-key families and per-write options: {@code createColumnFamily} with
 * {@link ColumnFamilyFlag}s (any combination, on either engine), {@code put} with random
 * {@link WriteOptions}, {@code delete(cf, key, value)}, {@code valueCount}, and batches with
 * value deletes written with options, on any family (DUPSORT or not, dropped, of another store,
 * null) and on closed stores. The DUPSORT families created here join the pool, so every other
 * operation (cursors, scans, point reads and writes) meets them too.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class DupOps {
    private DupOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("dupFamily", 6, DupOps::createFamily, true);
        t.add("dupWrite", 40, DupOps::write, true);
    }

    private static Set<ColumnFamilyFlag> flags(Ctx c, StringBuilder d) {
        int r = c.rnd.nextInt(8);
        Set<ColumnFamilyFlag> f = r < 4 ? EnumSet.of(ColumnFamilyFlag.DUPSORT)
                : r < 6 ? EnumSet.of(ColumnFamilyFlag.DUPSORT, ColumnFamilyFlag.DUPFIXED)
                : r < 7 ? EnumSet.of(ColumnFamilyFlag.DUPFIXED) : EnumSet.noneOf(ColumnFamilyFlag.class);
        d.append(f);
        return f;
    }

    private static WriteOptions options(Ctx c, StringBuilder d) {
        WriteOptions o = WriteOptions.DEFAULT;
        if (c.oneIn(6)) {
            o = o.sync(true);
        }
        if (c.oneIn(6)) {
            o = o.disableWal(true);
        }
        if (c.oneIn(3)) {
            o = o.noOverwrite(true);
        }
        if (c.oneIn(3)) {
            o = o.noDupData(true);
        }
        if (c.oneIn(5)) {
            o = o.append(true);
        }
        d.append(o);
        return o;
    }

    private static void createFamily(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        StoreOps.closedStore(c, s);
        String name = StoreOps.familyName(c);
        StringBuilder d = new StringBuilder();
        Set<ColumnFamilyFlag> fl = c.oneIn(40) ? null : flags(c, d);
        if (fl == null) {
            c.nullArg("flags");
            d.append("null");
        }
        ColumnFamily[] out = new ColumnFamily[1];
        long before = c.world.tick();
        int id = c.world.nextId();
        if (c.call("f" + id + " = " + s + ".createColumnFamily(" + StoreOps.shown(name) + ", " + d + ")",
                () -> out[0] = s.store.createColumnFamily(name, fl))) {
            if (!out[0].flags().equals(fl)) {
                c.wrong(s + ".createColumnFamily", "family has flags " + out[0].flags() + ", asked for " + fl);
            }
            c.world.families.add(c.rnd, new CfRef(id, out[0], s, before));
        }
    }

    private static void write(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        Store st = s.store;
        StoreOps.closedStore(c, s);
        Object[] f = StoreOps.family(c, s);
        ColumnFamily cf = (ColumnFamily) f[0];
        switch (c.rnd.nextInt(5)) {
            case 0: {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                StringBuilder d = new StringBuilder();
                WriteOptions o = c.oneIn(40) ? null : options(c, d);
                if (o == null) {
                    c.nullArg("options");
                }
                c.call(s + ".put(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ", " + d + ")", () -> st.put(cf, k, v, o));
                break;
            }
            case 1: {
                byte[] k = c.key("key");
                byte[] v = c.value("value");
                c.call(s + ".delete(" + f[1] + ", " + Ctx.hex(k) + ", " + Ctx.hex(v) + ")", () -> st.delete(cf, k, v));
                break;
            }
            case 2: {
                byte[] k = c.key("key");
                c.call(s + ".valueCount(" + f[1] + ", " + Ctx.hex(k) + ")", () -> {
                    long n = st.valueCount(cf, k);
                    if (n < 0 || (n > 1 && !cf.hasDuplicates())) {
                        c.wrong(s + ".valueCount", n + " values in a family without duplicates");
                    }
                });
                break;
            }
            default: {
                StringBuilder d = new StringBuilder();
                WriteOptions o = options(c, d);
                int n = 1 + c.rnd.nextInt(6);
                byte[][] ks = new byte[n][];
                byte[][] vs = new byte[n][];
                int[] kinds = new int[n];
                for (int i = 0; i < n; i++) {
                    ks[i] = c.anyKey();
                    vs[i] = c.anyValue();
                    kinds[i] = c.rnd.nextInt(3);
                }
                kinds[n - 1] = 1 + c.rnd.nextInt(2); // the family is always used (a null one must throw)
                // built inside the call: adding a dropped family's record throws there
                c.call(s + ".write(batch of " + n + " with value deletes on " + f[1] + ", " + d + ")", () -> {
                    try (WriteBatch b = new WriteBatch()) {
                        for (int i = 0; i < n; i++) {
                            if (kinds[i] == 0) {
                                b.put(ks[i], vs[i]);
                            } else if (kinds[i] == 1) {
                                b.put(cf, ks[i], vs[i]);
                            } else {
                                b.delete(cf, ks[i], vs[i]);
                            }
                        }
                        st.write(b, o);
                    }
                });
                break;
            }
        }
    }
}
