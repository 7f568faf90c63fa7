package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyOptions;
import dev.ferry.Compression;
import dev.ferry.Engine;
import dev.ferry.MergeOperator;
import dev.ferry.StoreOptions;
import dev.ferry.fuzz.World.CfRef;
import dev.ferry.fuzz.World.StoreRef;

/**
 * Operations on per-column-family options: {@link ColumnFamilyOptions} built from random values
 * (out of range ones must throw {@link IllegalArgumentException} at the setter), families created
 * with them (LMDB must refuse any setting), null options, closed stores, and store options carrying
 * random family entries ({@link #addFamilyOptions}). A family created with a merge operator is
 * recorded in {@link World#familyMerge}, so merges into it are expected to work.
 *
 * <p>Thread safety: stateless; every method runs on the calling fuzz thread.
 */
final class CfOptionOps {
    private CfOptionOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("cfOptionsFamily", 5, CfOptionOps::createFamily, true);
        t.add("readOptionsGet", 15, CfOptionOps::readOptionsGet, true);
    }

    /** A Java merge operator whose name breaks the rules (';' would break RocksDB's OPTIONS file). */
    static final dev.ferry.JavaMergeOperator BADLY_NAMED = new dev.ferry.JavaMergeOperator() {
        @Override public String name() {
            return "a;b";
        }

        @Override public byte[] fullMerge(byte[] key, byte[] existing, java.util.List<byte[]> operands) {
            return operands.get(0);
        }
    };

    /** Random family options (possibly empty); null when a setter refused a value (judged). */
    static ColumnFamilyOptions random(Ctx c, StringBuilder d) {
        ColumnFamilyOptions[] o = {ColumnFamilyOptions.of()};
        if (c.oneIn(2)) {
            Compression z = Compression.values()[c.rnd.nextInt(Compression.values().length)];
            o[0] = o[0].compression(z);
        }
        int[] ints = new int[3];
        boolean[] bad = new boolean[3];
        int[][] ranges = {{0, dev.ferry.internal.Abi.CFOPT_MAX_BLOOM_BITS}, {1, dev.ferry.internal.Abi.CFOPT_MAX_BLOCK_SIZE},
            {0, dev.ferry.internal.Abi.CFOPT_MAX_PREFIX_LEN}};
        for (int i = 0; i < 3; i++) {
            ints[i] = -2;
            if (c.oneIn(2)) {
                int r = c.rnd.nextInt(10);
                ints[i] = r == 0 ? c.extreme() : r == 1 ? ranges[i][1] + 1 : r == 2 ? ranges[i][0] - 1
                        : i == 1 ? 256 << c.rnd.nextInt(8) : c.rnd.nextInt(i == 0 ? 21 : 17);
                bad[i] = ints[i] < ranges[i][0] || ints[i] > ranges[i][1];
            }
        }
        if (c.oneIn(3)) {
            o[0] = o[0].mergeOperator(MergeOperator.values()[c.rnd.nextInt(MergeOperator.values().length)]);
        }
        if (c.oneIn(20)) { // a Java merge operator with a name RocksDB could not record: refused, nothing set
            c.call("ColumnFamilyOptions.javaMergeOperator(badly named)", () -> o[0] = o[0].javaMergeOperator(BADLY_NAMED));
            c.call("ColumnFamilyOptions.javaMergeOperator()", () -> o[0].javaMergeOperator().ifPresent(op -> {
                throw new AssertionError("a refused Java merge operator was set");
            }));
        }
        d.append(o[0]);
        String[] names = {"bloomBitsPerKey", "blockSize", "fixedPrefixLength"};
        for (int i = 0; i < 3; i++) {
            if (ints[i] == -2) {
                continue;
            }
            int v = ints[i];
            int which = i;
            d.append('.').append(names[i]).append('(').append(v).append(')');
            if (bad[i]) {
                c.badIndex(names[i] + "=" + v + " out of range accepted");
            }
            if (!c.call("ColumnFamilyOptions." + names[i] + "(" + v + ")", () -> o[0] = which == 0 ? o[0].bloomBitsPerKey(v)
                    : which == 1 ? o[0].blockSize(v) : o[0].fixedPrefixLength(v))) {
                return null;
            }
        }
        return o[0];
    }

    private static void createFamily(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        // the options first: their setter calls must not take the expectations set for the create
        StringBuilder d = new StringBuilder();
        boolean nullOptions = c.oneIn(30);
        ColumnFamilyOptions o = nullOptions ? null : random(c, d);
        if (!nullOptions && o == null) {
            return;
        }
        StoreOps.closedStore(c, s);
        String name = StoreOps.familyName(c);
        if (nullOptions) {
            c.nullArg("options");
            d.append("null");
        }
        if (o != null && c.world.engine == Engine.LMDB && !o.isEmpty()) {
            c.mustThrow("RocksDB family options on LMDB");
        }
        ColumnFamily[] out = new ColumnFamily[1];
        long before = c.world.tick();
        int id = c.world.nextId();
        ColumnFamilyOptions fo = o;
        if (c.call("f" + id + " = " + s + ".createColumnFamily(" + StoreOps.shown(name) + ", " + d + ")",
                () -> out[0] = s.store.createColumnFamily(name, fo))) {
            if (fo.mergeOperator().isPresent()) {
                c.world.familyMerge.add(out[0]);
            }
            c.world.families.add(c.rnd, new CfRef(id, out[0], s, before));
        }
    }

    /** Point reads with random {@link dev.ferry.ReadOptions} (or null), on the store or a snapshot. */
    private static void readOptionsGet(Ctx c) {
        StoreRef s = StoreOps.anyStore(c);
        if (s == null) {
            return;
        }
        dev.ferry.ReadOptions o = c.oneIn(40) ? null
                : dev.ferry.ReadOptions.DEFAULT.fillCache(c.oneIn(2)).verifyChecksums(c.oneIn(2));
        StoreOps.closedStore(c, s);
        Object[] f = StoreOps.family(c, s);
        byte[] k = c.key("key");
        if (o == null) {
            c.nullArg("options");
        }
        if (c.oneIn(2)) {
            c.call(s + ".get(" + f[1] + ", " + Ctx.hex(k) + ", " + o + ")", () -> s.store.get((ColumnFamily) f[0], k, o));
        } else {
            java.util.List<byte[]> keys = new java.util.ArrayList<>();
            keys.add(k);
            if (c.oneIn(2)) {
                keys.add(c.anyKey());
            }
            c.call(s + ".multiGet(" + f[1] + ", " + keys.size() + " keys, " + o + ")",
                    () -> s.store.multiGet((ColumnFamily) f[0], keys, o));
        }
    }

    /**
     * Sometimes adds random family entries to store options (names a fuzz run uses, so some exist);
     * returns the names given a merge operator.
     */
    static java.util.Set<String> addFamilyOptions(Ctx c, StoreOptions o, StringBuilder d) {
        java.util.Set<String> merging = new java.util.HashSet<>();
        int n = c.oneIn(4) ? 1 + c.rnd.nextInt(3) : 0;
        for (int i = 0; i < n; i++) {
            String name = c.oneIn(10) ? "default" : "f" + c.rnd.nextInt(8);
            StringBuilder fd = new StringBuilder();
            ColumnFamilyOptions f = random(c, fd);
            if (f == null) {
                continue;
            }
            o.columnFamily(name, f);
            merging.remove(name);
            if (f.mergeOperator().isPresent()) {
                merging.add(name);
            }
            d.append(" cf[").append(StoreOps.shown(name)).append("]=").append(fd);
        }
        return merging;
    }
}
