package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Random operation sequences against TreeMap models: one family, then several families with snapshots.
 */
class ModelContractTest extends StoreContract {
    @MatrixTest
    void randomOperationsMatchATreeMapModel() {
        TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        Random r = new Random(11);
        for (int op = 0; op < 4000; op++) {
            byte[] k = randomKey(r);
            switch (r.nextInt(10)) {
                case 0: case 1: case 2: case 3: {
                    byte[] v = new byte[r.nextInt(64)];
                    r.nextBytes(v);
                    store.put(k, v);
                    model.put(k, v);
                    break;
                }
                case 4: store.delete(k); model.remove(k); break;
                case 5: {
                    byte[] k2 = randomKey(r);
                    byte[] lo = UNSIGNED.compare(k, k2) <= 0 ? k : k2;
                    byte[] hi = lo == k ? k2 : k;
                    store.deleteRange(lo, hi);
                    model.subMap(lo, true, hi, false).clear();
                    break;
                }
                case 6: {
                    try (WriteBatch wb = new WriteBatch()) {
                        for (int i = 0; i < 5; i++) {
                            byte[] bk = randomKey(r);
                            if (r.nextBoolean()) {
                                wb.put(bk, bk);
                                model.put(bk, bk);
                            } else {
                                wb.delete(bk);
                                model.remove(bk);
                            }
                        }
                        store.write(wb);
                    }
                    break;
                }
                case 7: {
                    try (Cursor c = store.cursor()) {
                        Map.Entry<byte[], byte[]> e = model.ceilingEntry(k);
                        assertEquals(e != null, c.seek(k));
                        if (e != null) {
                            assertArrayEquals(e.getKey(), c.keyBytes());
                            Map.Entry<byte[], byte[]> n = model.higherEntry(e.getKey());
                            assertEquals(n != null, c.next());
                            if (n != null) {
                                assertArrayEquals(n.getKey(), c.keyBytes());
                            }
                        }
                        Map.Entry<byte[], byte[]> f = model.floorEntry(k);
                        assertEquals(f != null, c.seekForPrev(k));
                        if (f != null) {
                            assertArrayEquals(f.getValue(), c.valueBytes());
                        }
                    }
                    break;
                }
                case 8: {
                    byte[] k2 = randomKey(r);
                    byte[] lo = UNSIGNED.compare(k, k2) <= 0 ? k : k2;
                    byte[] hi = lo == k ? k2 : k;
                    List<byte[]> got = new ArrayList<>();
                    store.scan(KeyRange.closed(lo, hi), (kk, vv) -> got.add(kk.toByteArray()));
                    List<byte[]> want = new ArrayList<>(model.subMap(lo, true, hi, true).keySet());
                    assertEquals(want.size(), got.size());
                    for (int i = 0; i < want.size(); i++) {
                        assertArrayEquals(want.get(i), got.get(i));
                    }
                    break;
                }
                default:
                    assertArrayEquals(model.get(k), store.get(k));
            }
        }
        List<byte[]> all = new ArrayList<>();
        store.scan(KeyRange.all(), (kk, vv) -> all.add(kk.toByteArray()));
        assertEquals(model.size(), all.size());
    }

    @MatrixTest
    void randomOperationsOnSeveralFamiliesAndSnapshotsMatchTreeMapModels() {
        List<ColumnFamily> cfs = List.of(store.defaultColumnFamily(), store.createColumnFamily("m1"), store.createColumnFamily("m2"));
        List<byte[]> names = List.of(b("m1"), b("m2"));
        List<TreeMap<byte[], byte[]>> models = new ArrayList<>();
        for (int i = 0; i < cfs.size(); i++) {
            models.add(new TreeMap<>(UNSIGNED));
        }
        List<Snapshot> snaps = new ArrayList<>();
        List<List<TreeMap<byte[], byte[]>>> frozen = new ArrayList<>();
        Random r = new Random(13);
        try {
            for (int op = 0; op < 3000; op++) {
                int f = r.nextInt(cfs.size());
                ColumnFamily cf = cfs.get(f);
                TreeMap<byte[], byte[]> m = models.get(f);
                byte[] k = randomKey(r);
                String ctx = "op " + op + ", family " + cf.name() + ", key " + View.hex(k, 0, k.length);
                switch (r.nextInt(12)) {
                    case 0: case 1: case 2: case 3: {
                        byte[] v = new byte[r.nextInt(64)];
                        r.nextBytes(v);
                        store.put(cf, k, v);
                        m.put(k, v);
                        break;
                    }
                    case 4: store.delete(cf, k); m.remove(k); break;
                    case 5: {
                        byte[][] lh = orderedPair(k, randomKey(r));
                        if (f == 0 && coversFamilyName(lh, names)) {
                            break;
                        }
                        store.deleteRange(cf, lh[0], lh[1]);
                        m.subMap(lh[0], true, lh[1], false).clear();
                        break;
                    }
                    case 6: {
                        try (WriteBatch wb = new WriteBatch()) {
                            for (int i = 0; i < 6; i++) {
                                int bf = r.nextInt(cfs.size());
                                byte[] bk = randomKey(r);
                                int kind = r.nextInt(3);
                                if (kind == 0) {
                                    wb.put(cfs.get(bf), bk, k);
                                    models.get(bf).put(bk, k);
                                } else if (kind == 1) {
                                    wb.delete(cfs.get(bf), bk);
                                    models.get(bf).remove(bk);
                                } else {
                                    byte[][] lh = orderedPair(bk, randomKey(r));
                                    if (bf != 0 || !coversFamilyName(lh, names)) {
                                        wb.deleteRange(cfs.get(bf), lh[0], lh[1]);
                                        models.get(bf).subMap(lh[0], true, lh[1], false).clear();
                                    }
                                }
                            }
                            store.write(wb);
                        }
                        break;
                    }
                    case 7: {
                        if (snaps.size() == 4) {
                            snaps.remove(0).close();
                            frozen.remove(0);
                        }
                        snaps.add(store.snapshot());
                        List<TreeMap<byte[], byte[]>> copy = new ArrayList<>();
                        for (TreeMap<byte[], byte[]> mm : models) {
                            copy.add(new TreeMap<>(mm));
                        }
                        frozen.add(copy);
                        break;
                    }
                    case 8: {
                        if (snaps.isEmpty()) {
                            break;
                        }
                        int si = r.nextInt(snaps.size());
                        TreeMap<byte[], byte[]> fm = frozen.get(si).get(f);
                        assertArrayEquals(fm.get(k), snaps.get(si).get(cf, k), ctx + ": snapshot " + si + " get");
                        try (Cursor c = snaps.get(si).cursor(cf, KeyRange.all(), null)) {
                            assertSameEntries(ctx + ": snapshot " + si + " scan", fm, c, f == 0 ? names : List.of());
                        }
                        break;
                    }
                    case 9: {
                        try (Cursor c = store.cursor(cf, KeyRange.atLeast(k), null)) {
                            Map.Entry<byte[], byte[]> e = m.ceilingEntry(k);
                            boolean ok = c.first();
                            while (ok && f == 0 && isFamilyName(c.keyBytes(), names)) {
                                assertTrue(familyNamesAreDefaultFamilyKeys(), ctx + ": a family name in the default family");
                                ok = c.next();
                            }
                            assertEquals(e != null, ok, ctx + ": first entry at or after the key");
                            if (e != null) {
                                assertArrayEquals(e.getKey(), c.keyBytes(), ctx);
                                assertArrayEquals(e.getValue(), c.valueBytes(), ctx);
                            }
                        }
                        break;
                    }
                    default:
                        assertArrayEquals(m.get(k), store.get(cf, k), ctx + ": get");
                }
            }
            for (int f = 0; f < cfs.size(); f++) {
                try (Cursor c = store.cursor(cfs.get(f), KeyRange.all(), null)) {
                    assertSameEntries("final, family " + cfs.get(f).name(), models.get(f), c, f == 0 ? names : List.of());
                }
                for (int si = 0; si < snaps.size(); si++) {
                    try (Cursor c = snaps.get(si).cursor(cfs.get(f), KeyRange.all(), null)) {
                        assertSameEntries("final, snapshot " + si + ", family " + cfs.get(f).name(), frozen.get(si).get(f), c,
                                f == 0 ? names : List.of());
                    }
                }
            }
        } finally {
            for (Snapshot sn : snaps) {
                sn.close();
            }
        }
    }

    /**
     * Compares a cursor's entries with a model. Keys in {@code familyNames} must appear exactly
     * when {@link #familyNamesAreDefaultFamilyKeys()} (their values are the engine's) and are
     * otherwise skipped.
     */
    private void assertSameEntries(String ctx, TreeMap<byte[], byte[]> model, Cursor c, List<byte[]> familyNames) {
        List<Map.Entry<byte[], byte[]>> want = new ArrayList<>(model.entrySet());
        int i = 0;
        int namesSeen = 0;
        for (boolean ok = c.first(); ok; ok = c.next()) {
            byte[] k = c.keyBytes();
            if (isFamilyName(k, familyNames)) {
                namesSeen++;
                continue;
            }
            assertTrue(i < want.size(), ctx + ": more entries than the model's " + want.size());
            assertArrayEquals(want.get(i).getKey(), k, ctx + ": key #" + i);
            assertArrayEquals(want.get(i).getValue(), c.valueBytes(), ctx + ": value #" + i);
            i++;
        }
        assertEquals(want.size(), i, ctx + ": entry count");
        assertEquals(familyNamesAreDefaultFamilyKeys() ? familyNames.size() : 0, namesSeen, ctx + ": family names among the keys");
    }

    private static boolean isFamilyName(byte[] k, List<byte[]> names) {
        for (byte[] n : names) {
            if (Arrays.equals(n, k)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a range deletion [lo, hi) on the default family would cover a family's record. */
    private boolean coversFamilyName(byte[][] lh, List<byte[]> names) {
        if (!familyNamesAreDefaultFamilyKeys()) {
            return false;
        }
        for (byte[] n : names) {
            if (UNSIGNED.compare(lh[0], n) <= 0 && UNSIGNED.compare(n, lh[1]) < 0) {
                return true;
            }
        }
        return false;
    }

    private static byte[][] orderedPair(byte[] a, byte[] b) {
        return UNSIGNED.compare(a, b) <= 0 ? new byte[][] {a, b} : new byte[][] {b, a};
    }

    private static byte[] randomKey(Random r) {
        byte[] k = new byte[1 + r.nextInt(3)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (r.nextInt(6) * 51);
        }
        return k;
    }
}
