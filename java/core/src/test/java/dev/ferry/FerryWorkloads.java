package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Applies a {@link Workload} through Ferry and checks a Ferry store against a workload's model:
 * forward and reverse cursors entry by entry, {@code get} and {@code multiGet} of every key the
 * workload touched plus fresh ones. Shared by the differential tests (RocksJava, lmdbjava) and
 * the cross-binding tests of the FFM module.
 */
public final class FerryWorkloads {
    private FerryWorkloads() {
    }

    /**
     * Finds (or creates) the workload's families in a store, in the workload's order.
     *
     * @param store the store
     * @param w the workload
     * @param create whether to create missing families
     * @return the families, index = the workload's family index
     */
    public static List<ColumnFamily> families(Store store, Workload w, boolean create) {
        List<ColumnFamily> out = new ArrayList<>();
        for (String name : w.families()) {
            ColumnFamily cf = store.columnFamily(name).orElse(null);
            if (cf == null) {
                if (!create) {
                    throw new AssertionError(w + ": family '" + name + "' missing; store has "
                            + store.columnFamilies().stream().map(ColumnFamily::name).toList());
                }
                cf = store.createColumnFamily(name);
            }
            out.add(cf);
        }
        return out;
    }

    /**
     * A target writing through a Ferry store.
     *
     * @param store the store
     * @param cfs the families, by workload index
     * @return the target
     */
    public static Workload.Target target(Store store, List<ColumnFamily> cfs) {
        return new Workload.Target() {
            @Override
            public void put(int cf, byte[] key, byte[] value) {
                store.put(cfs.get(cf), key, value);
            }

            @Override
            public void delete(int cf, byte[] key) {
                store.delete(cfs.get(cf), key);
            }

            @Override
            public void deleteRange(int cf, byte[] begin, byte[] end) {
                store.deleteRange(cfs.get(cf), begin, end);
            }

            @Override
            public void batch(List<Workload.Op> ops) {
                try (WriteBatch wb = new WriteBatch()) {
                    for (Workload.Op op : ops) {
                        switch (op.kind) {
                            case PUT: wb.put(cfs.get(op.cf), op.key, op.value); break;
                            case DELETE: wb.delete(cfs.get(op.cf), op.key); break;
                            case DELETE_RANGE: wb.deleteRange(cfs.get(op.cf), op.key, op.end); break;
                            default: throw new IllegalArgumentException(op.kind.name());
                        }
                    }
                    store.write(wb);
                }
            }

            @Override
            public void flush() {
                for (ColumnFamily cf : cfs) {
                    store.flush(cf);
                }
            }
        };
    }

    /**
     * The expected contents of a family as another library sees it. In LMDB the names of named
     * databases are keys of the unnamed database (Ferry's default family): they are included,
     * mapped to null, meaning "any value".
     *
     * @param w the workload
     * @param cf the family index
     * @param engine the engine
     * @return expected entries; a null value matches any value
     */
    public static TreeMap<byte[], byte[]> expected(Workload w, int cf, Engine engine) {
        TreeMap<byte[], byte[]> m = new TreeMap<>(Arrays::compareUnsigned);
        m.putAll(w.model(cf));
        if (engine == Engine.LMDB && cf == 0) {
            for (String name : w.families().subList(1, w.families().size())) {
                m.put(name.getBytes(java.nio.charset.StandardCharsets.UTF_8), null);
            }
        }
        return m;
    }

    /**
     * Checks every family of a store against the workload's model.
     *
     * @param store the store (open)
     * @param w the workload
     * @param what names the direction for messages, e.g. "RocksJava wrote, Ferry/ffm read"
     */
    public static void verify(Store store, Workload w, String what) {
        String ctx = what + ", " + w + ", binding=" + store.binding();
        TreeSet<String> want = new TreeSet<>(w.families());
        TreeSet<String> have = new TreeSet<>();
        store.columnFamilies().forEach(cf -> have.add(cf.name()));
        assertEquals(want, have, ctx + ": column families");
        List<ColumnFamily> cfs = families(store, w, false);
        for (int i = 0; i < cfs.size(); i++) {
            ColumnFamily cf = cfs.get(i);
            String c = ctx + ", family " + cf.name();
            List<Map.Entry<byte[], byte[]>> exp = new ArrayList<>(expected(w, i, store.engine()).entrySet());
            // forward, default page size
            int n = 0;
            try (Cursor cur = store.cursor(cf, KeyRange.all(), null)) {
                for (boolean ok = cur.first(); ok; ok = cur.next(), n++) {
                    assertTrue(n < exp.size(), () -> c + ": forward cursor has more than " + exp.size() + " entries, extra key "
                            + Workload.hex(cur.keyBytes()));
                    checkEntry(c + ": forward #" + n, exp.get(n), cur.keyBytes(), cur.valueBytes());
                }
            }
            assertEquals(exp.size(), n, c + ": forward cursor entry count");
            // reverse, a small page so large values come through the oversized-entry path
            n = exp.size() - 1;
            try (Cursor cur = store.cursor(cf, KeyRange.all(), CursorOptions.defaults().pageSize(1024))) {
                for (boolean ok = cur.last(); ok; ok = cur.prev(), n--) {
                    assertTrue(n >= 0, () -> c + ": reverse cursor has more than " + exp.size() + " entries");
                    checkEntry(c + ": reverse #" + n, exp.get(n), cur.keyBytes(), cur.valueBytes());
                }
            }
            assertEquals(-1, n, c + ": reverse cursor entry count");
            // point reads: every touched key plus fresh ones, through get and multiGet
            List<byte[]> probes = w.probeKeys(i, 50);
            TreeMap<byte[], byte[]> model = w.model(i);
            for (byte[] k : probes) {
                assertArrayEquals(model.get(k), store.get(cf, k), () -> c + ": get " + Workload.hex(k));
            }
            List<byte[]> got = store.multiGet(cf, probes);
            assertEquals(probes.size(), got.size(), c + ": multiGet size");
            for (int j = 0; j < probes.size(); j++) {
                byte[] k = probes.get(j);
                assertArrayEquals(model.get(k), got.get(j), c + ": multiGet #" + j + " " + Workload.hex(k));
            }
            // a snapshot sees the same
            try (Snapshot snap = store.snapshot()) {
                for (int j = 0; j < Math.min(200, probes.size()); j++) {
                    byte[] k = probes.get(j);
                    assertArrayEquals(model.get(k), snap.get(cf, k), c + ": snapshot get " + Workload.hex(k));
                }
            }
        }
    }

    /**
     * Guards against a vacuous comparison: every family of the model holds at least
     * {@code minEntries} entries, and the model as a whole has an empty value, a value over
     * 4 KiB and keys containing 0x00 and 0xFF bytes.
     *
     * @param w the workload
     * @param minEntries the least entries per family
     */
    public static void assertSubstantial(Workload w, int minEntries) {
        boolean empty = false;
        boolean large = false;
        boolean zero = false;
        boolean ff = false;
        for (int i = 0; i < w.families().size(); i++) {
            int size = w.model(i).size();
            assertTrue(size >= minEntries, w + ": family " + w.families().get(i) + " has only " + size + " entries");
            for (Map.Entry<byte[], byte[]> e : w.model(i).entrySet()) {
                empty |= e.getValue().length == 0;
                large |= e.getValue().length > 4096;
                for (byte b : e.getKey()) {
                    zero |= b == 0;
                    ff |= b == (byte) 0xFF;
                }
            }
        }
        assertTrue(empty && large && zero && ff, w + ": empty value " + empty + ", value > 4 KiB " + large
                + ", key byte 00 " + zero + ", key byte ff " + ff);
    }

    /**
     * Compares one entry read from some library with an expected one.
     *
     * @param ctx message prefix
     * @param exp the expected entry (null value: any value)
     * @param key the key read
     * @param value the value read
     */
    public static void checkEntry(String ctx, Map.Entry<byte[], byte[]> exp, byte[] key, byte[] value) {
        if (!Arrays.equals(exp.getKey(), key)) {
            throw new AssertionError(ctx + ": key expected " + Workload.hex(exp.getKey()) + " but was " + Workload.hex(key));
        }
        if (exp.getValue() != null && !Arrays.equals(exp.getValue(), value)) {
            throw new AssertionError(ctx + ": value of key " + Workload.hex(key) + " expected " + exp.getValue().length
                    + " bytes " + Workload.hex(exp.getValue()) + " but was " + (value == null ? "null" : value.length + " bytes " + Workload.hex(value)));
        }
        assertFalse(value == null, ctx + ": null value");
    }
}
