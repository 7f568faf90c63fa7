package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Cursors: first, last, next, prev, seek and seekForPrev over pages of every size, key ranges, views,
 * scans, read options, and LMDB duplicate-key (DUPSORT, DUPFIXED) families.
 */
class CursorsContractTest extends StoreContract {
    @MatrixTest
    void cursorOnEmptyStoreFindsNothing() {
        try (Cursor c = store.cursor()) {
            assertFalse(c.first());
            assertFalse(c.last());
            assertFalse(c.seek(b("a")));
            assertFalse(c.next());
            assertFalse(c.isValid());
            assertThrows(IllegalStateException.class, c::key);
        }
    }

    @MatrixTest
    void nextReturnsFalseAfterLastEntryAndPrevBeforeFirst() {
        putAll("a", "1", "b", "2");
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            assertTrue(c.next());
            assertFalse(c.next());
            assertFalse(c.next());
            assertTrue(c.first());
            assertFalse(c.prev());
        }
    }

    @MatrixTest
    void freshCursorNextStartsAtFirstAndPrevAtLast() {
        putAll("a", "1", "b", "2", "c", "3");
        try (Cursor c = store.cursor()) {
            assertThrows(IllegalStateException.class, c::key, "not on an entry before the first move");
            List<String> seen = new ArrayList<>();
            while (c.next()) {
                seen.add(s(c.keyBytes()));
            }
            assertEquals(List.of("a", "b", "c"), seen);
            assertFalse(c.next(), "stays exhausted: no wrap-around");
            assertFalse(c.prev());
        }
        try (Cursor c = store.cursor()) {
            assertTrue(c.prev());
            assertEquals("c", s(c.keyBytes()));
        }
        try (Cursor c = store.cursor()) {
            assertFalse(c.seek(b("z")));
            assertFalse(c.next(), "a missed seek is not a fresh cursor");
        }
    }

    @MatrixTest
    void forwardAndReverseScansAgreeAcrossManySmallPages() {
        TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        Random r = new Random(7);
        for (int i = 0; i < 2000; i++) {
            byte[] k = new byte[1 + r.nextInt(20)];
            r.nextBytes(k);
            byte[] v = new byte[r.nextInt(300)];
            r.nextBytes(v);
            store.put(k, v);
            model.put(k, v);
        }
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pageSize(256))) {
            List<Map.Entry<byte[], byte[]>> expected = new ArrayList<>(model.entrySet());
            int i = 0;
            for (boolean ok = c.first(); ok; ok = c.next(), i++) {
                assertArrayEquals(expected.get(i).getKey(), c.keyBytes());
                assertArrayEquals(expected.get(i).getValue(), c.valueBytes());
            }
            assertEquals(expected.size(), i);
            i = expected.size() - 1;
            for (boolean ok = c.last(); ok; ok = c.prev(), i--) {
                assertArrayEquals(expected.get(i).getKey(), c.keyBytes());
            }
            assertEquals(-1, i);
        }
    }

    @MatrixTest
    void directionChangesInsideAndAtEdgesOfPages() {
        for (int i = 0; i < 300; i++) {
            store.put(b(String.format("k%04d", i)), b("v" + i));
        }
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pageSize(256))) {
            Random r = new Random(3);
            int pos = 0;
            assertTrue(c.first());
            for (int step = 0; step < 5000; step++) {
                boolean fwd = r.nextInt(3) != 0 ? pos < 150 : r.nextBoolean();
                boolean ok = fwd ? c.next() : c.prev();
                int expect = fwd ? pos + 1 : pos - 1;
                if (expect < 0 || expect >= 300) {
                    assertFalse(ok);
                    assertTrue(fwd ? c.last() : c.first());
                    pos = fwd ? 299 : 0;
                } else {
                    assertTrue(ok);
                    pos = expect;
                }
                assertEquals(String.format("k%04d", pos), s(c.keyBytes()));
                assertEquals("v" + pos, s(c.valueBytes()));
            }
        }
    }

    @MatrixTest
    void seekAndSeekForPrevLandOnNeighbours() {
        putAll("b", "1", "d", "2", "f", "3");
        try (Cursor c = store.cursor()) {
            assertTrue(c.seek(b("c")));
            assertEquals("d", s(c.keyBytes()));
            assertTrue(c.seek(b("d")));
            assertEquals("d", s(c.keyBytes()));
            assertTrue(c.seekForPrev(b("e")));
            assertEquals("d", s(c.keyBytes()));
            assertTrue(c.seekForPrev(b("d")));
            assertEquals("d", s(c.keyBytes()));
            assertTrue(c.prev());
            assertEquals("b", s(c.keyBytes()));
            assertFalse(c.seek(b("g")));
            assertFalse(c.seekForPrev(b("a")));
            assertTrue(c.seek(b("a")));
            assertEquals("b", s(c.keyBytes()));
        }
    }

    @MatrixTest
    void seekRunsOfChangingLengthsReadTheRightEntries() {
        // the first page after a seek is sized from earlier runs (SeekRuns): runs of changing
        // lengths, forward and back, on new and reused cursors, must all read the model's entries
        TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        try (WriteBatch wb = new WriteBatch()) {
            for (int i = 0; i < 2000; i += 2) {
                byte[] k = b(String.format("k%05d", i));
                byte[] v = b("v" + i);
                wb.put(k, v);
                model.put(k, v);
            }
            store.write(wb);
        }
        java.util.Random rnd = new java.util.Random(42);
        int[] runs = {11, 11, 11, 11, 11, 1, 0, 64, 64, 200, 3, 30, 11, 1, 1, 1, 500, 7};
        try (Cursor reused = store.cursor()) {
            for (int round = 0; round < 3; round++) {
                for (int n : runs) {
                    byte[] target = b(String.format("k%05d", rnd.nextInt(2100)));
                    boolean forward = rnd.nextBoolean();
                    Cursor c = round == 1 ? reused : store.cursor();
                    try {
                        java.util.Iterator<byte[]> want = forward ? model.tailMap(target, true).keySet().iterator()
                                : model.headMap(target, true).descendingKeySet().iterator();
                        boolean ok = forward ? c.seek(target) : c.seekForPrev(target);
                        for (int j = 0; j < n; j++) {
                            assertEquals(want.hasNext(), ok, "run " + n + " entry " + j);
                            if (!ok) {
                                break;
                            }
                            byte[] k = want.next();
                            assertEquals(s(k), s(c.keyBytes()));
                            assertEquals(s(model.get(k)), s(c.valueBytes()));
                            if (j == n / 2 && n > 4) {
                                // a direction change inside the run, then back
                                boolean back = forward ? c.prev() : c.next();
                                byte[] bk = forward ? model.lowerKey(k) : model.higherKey(k);
                                assertEquals(bk != null, back);
                                if (back) {
                                    assertEquals(s(bk), s(c.keyBytes()));
                                }
                                assertTrue(forward ? c.next() : c.prev());
                                assertEquals(s(k), s(c.keyBytes()));
                            }
                            ok = forward ? c.next() : c.prev();
                        }
                    } finally {
                        if (c != reused) {
                            c.close();
                        }
                    }
                }
            }
        }
    }

    @MatrixTest
    void rangesEnforceInclusiveAndExclusiveBounds() {
        putAll("a", "", "b", "", "c", "", "d", "", "e", "");
        String[][] cases = {
            {"closed", "b", "d", "b,c,d"}, {"closedOpen", "b", "d", "b,c"}, {"openClosed", "b", "d", "c,d"},
            {"open", "b", "d", "c"}, {"atLeast", "d", null, "d,e"}, {"greaterThan", "d", null, "e"},
            {"atMost", null, "b", "a,b"}, {"lessThan", null, "b", "a"},
        };
        for (String[] cs : cases) {
            KeyRange r;
            switch (cs[0]) {
                case "closed": r = KeyRange.closed(b(cs[1]), b(cs[2])); break;
                case "closedOpen": r = KeyRange.closedOpen(b(cs[1]), b(cs[2])); break;
                case "openClosed": r = KeyRange.openClosed(b(cs[1]), b(cs[2])); break;
                case "open": r = KeyRange.open(b(cs[1]), b(cs[2])); break;
                case "atLeast": r = KeyRange.atLeast(b(cs[1])); break;
                case "greaterThan": r = KeyRange.greaterThan(b(cs[1])); break;
                case "atMost": r = KeyRange.atMost(b(cs[2])); break;
                default: r = KeyRange.lessThan(b(cs[2]));
            }
            List<String> want = Arrays.asList(cs[3].split(","));
            try (Cursor c = store.cursor(r)) {
                assertEquals(want, keys(c, true), cs[0]);
                List<String> rev = new ArrayList<>(want);
                java.util.Collections.reverse(rev);
                assertEquals(rev, keys(c, false), cs[0] + " reverse");
            }
        }
    }

    @MatrixTest
    void seeksOutsideTheRangeStayInside() {
        putAll("a", "", "b", "", "c", "", "d", "", "e", "");
        try (Cursor c = store.cursor(KeyRange.closed(b("b"), b("d")))) {
            assertTrue(c.seek(b("a")));
            assertEquals("b", s(c.keyBytes()));
            assertTrue(c.seekForPrev(b("z")));
            assertEquals("d", s(c.keyBytes()));
            assertFalse(c.seek(b("da")));
            assertFalse(c.seekForPrev(b("ab")));
        }
    }

    @MatrixTest
    void emptyRangesYieldNothing() {
        putAll("a", "", "b", "");
        for (KeyRange r : List.of(KeyRange.closedOpen(b("b"), b("b")), KeyRange.closedOpen(b("b"), b("a")), KeyRange.lessThan(new byte[0]))) {
            assertTrue(r.isEmpty());
            try (Cursor c = store.cursor(r)) {
                assertFalse(c.first());
                assertFalse(c.last());
                assertFalse(c.seek(b("a")));
            }
        }
    }

    @MatrixTest
    void prefixRangeHandlesBinaryKeysWith00AndFF() {
        byte[][] ks = {
            {0x01}, {0x01, 0x00}, {0x01, (byte) 0xFF}, {0x01, (byte) 0xFF, (byte) 0xFF}, {0x02}, {(byte) 0xFF}, {(byte) 0xFF, 0x00},
            {(byte) 0xFF, (byte) 0xFF}, {0x00, 0x01},
        };
        for (byte[] k : ks) {
            store.put(k, k);
        }
        assertEquals(List.of("01", "0100", "01ff", "01ffff"), hexKeys(KeyRange.prefix(new byte[] {0x01})));
        assertEquals(List.of("01ff", "01ffff"), hexKeys(KeyRange.prefix(new byte[] {0x01, (byte) 0xFF})));
        assertEquals(List.of("ff", "ff00", "ffff"), hexKeys(KeyRange.prefix(new byte[] {(byte) 0xFF})));
        assertEquals(List.of("0001", "01", "0100", "01ff", "01ffff", "02", "ff", "ff00", "ffff"), hexKeys(KeyRange.all()));
    }

    private List<String> hexKeys(KeyRange r) {
        List<String> out = new ArrayList<>();
        store.scan(r, (k, v) -> {
            out.add(View.hex(k.toByteArray(), 0, k.length()));
            assertTrue(v.contentEquals(k.toByteArray()));
            return true;
        });
        return out;
    }

    @MatrixTest
    void entryLargerThanThePageComesThroughWhole() {
        byte[] big = new byte[100_000];
        new Random(5).nextBytes(big);
        putAll("a", "small");
        store.put(b("b"), big);
        putAll("c", "small");
        CursorOptions tiny = CursorOptions.defaults().pageSize(256);
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), tiny)) {
            assertTrue(c.first());
            assertTrue(c.next());
            assertArrayEquals(big, c.valueBytes());
            assertTrue(c.next());
            assertEquals("c", s(c.keyBytes()));
            assertTrue(c.prev());
            assertArrayEquals(big, c.valueBytes());
            assertTrue(c.last());
            assertTrue(c.prev());
            assertEquals(100_000, c.value().length());
        }
    }

    @MatrixTest
    void viewsAreFlyweightsValidUntilCursorCloses() {
        putAll("a", "1", "b", "2");
        Cursor c = store.cursor();
        assertTrue(c.first());
        View k = c.key();
        assertTrue(c.next());
        assertSame(k, c.key());
        assertEquals('b', k.getByte(0));
        assertThrows(IndexOutOfBoundsException.class, () -> k.getByte(1));
        assertThrows(IndexOutOfBoundsException.class, () -> k.getByte(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> k.getInt(0));
        c.close();
        assertThrows(IllegalStateException.class, () -> k.getByte(0));
        assertThrows(IllegalStateException.class, k::length);
    }

    @MatrixTest
    void scanVisitsEveryEntryAndStopsWhenAsked() {
        for (int i = 0; i < 1000; i++) {
            store.put(b(String.format("%05d", i)), b("v"));
        }
        assertEquals(1000, store.scan(KeyRange.all(), (k, v) -> true));
        long[] seen = {0};
        assertEquals(10, store.scan(KeyRange.all(), (k, v) -> ++seen[0] < 10));
    }

    @MatrixTest
    void scanWithANullVisitorThrowsOnStoreAndSnapshot() {
        assertThrows(NullPointerException.class, () -> store.scan(KeyRange.all(), null));
        try (Snapshot snap = store.snapshot()) {
            assertThrows(NullPointerException.class, () -> snap.scan(store.defaultColumnFamily(), KeyRange.all(), null));
            assertThrows(NullPointerException.class, () -> snap.scan(store.defaultColumnFamily(), null, (k, v) -> true));
            assertThrows(NullPointerException.class, () -> snap.scan(null, KeyRange.all(), (k, v) -> true));
            assertThrows(NullPointerException.class, () -> snap.get((byte[]) null));
        }
    }

    @MatrixTest
    void pageSizesOutsideTheSupportedRangeAreRejected() {
        for (int bad : new int[] {-1, 0, 255, (1 << 30) + 1, Integer.MAX_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> CursorOptions.defaults().pageSize(bad), "cursor pageSize " + bad);
            assertThrows(IllegalArgumentException.class, () -> options().pageSize(bad), "store pageSize " + bad);
        }
    }

    @MatrixTest
    void readOptionsOnCursorsReturnTheSameEntries() {
        if (options().engine() == Engine.ROCKSDB) {
            store.close();
            store = Store.open(dir.resolve("db"), options().readaheadSize(256 * 1024));
        }
        TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        for (int i = 0; i < 3000; i++) {
            byte[] k = b(String.format("r%05d", i));
            byte[] v = new byte[i % 300];
            Arrays.fill(v, (byte) i);
            store.put(k, v);
            model.put(k, v);
        }
        store.flush();
        for (CursorOptions o : List.of(CursorOptions.defaults().verifyChecksums(false),
                CursorOptions.defaults().asyncIo(true).fillCache(false),
                CursorOptions.defaults().asyncIo(true).verifyChecksums(false).pageSize(4096))) {
            if (o.asyncIo && options().engine() == Engine.ROCKSDB && org.rocksdb.RocksDB.rocksdbVersion().getMajor() < 8) {
                // async_io came with RocksDB 8: older engines refuse it at the cursor's open
                assertThrows(FerryException.NotSupported.class, () -> store.cursor(store.defaultColumnFamily(), KeyRange.all(), o));
                continue;
            }
            var it = model.entrySet().iterator();
            try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), o)) {
                while (c.next()) {
                    var e = it.next();
                    assertArrayEquals(e.getKey(), c.key().toByteArray());
                    assertArrayEquals(e.getValue(), c.value().toByteArray());
                }
            }
            assertFalse(it.hasNext());
        }
    }

    // ---- duplicate keys (LMDB DUPSORT, DUPFIXED) ----

    /** Value i of the DUPSORT tests: "%04d" then i * 7 % 300 'x's (sizes vary, order is by i). */
    private static byte[] dupValue(int i) {
        return b(String.format("%04d", i) + "x".repeat(i * 7 % 300));
    }

    /** Every (key, value) pair of cf through a cursor, as "key=value" strings. */
    private static List<String> pairs(Cursor c, boolean forward) {
        List<String> r = new ArrayList<>();
        for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
            r.add(s(c.keyBytes()) + "=" + s(c.valueBytes()));
        }
        return r;
    }

    /** A DUPSORT family with k0 (one value), k1 (n values, a sub-tree for n in the hundreds), k2 (3 values). */
    private ColumnFamily dupFamily(int n, List<String> expected) {
        ColumnFamily cf = store.createColumnFamily("dups", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        for (int i = n - 1; i >= 0; i--) { // LMDB sorts them: written in reverse
            store.put(cf, b("k1"), dupValue(i));
        }
        store.put(cf, b("k0"), b("v"));
        for (int i = 2; i >= 0; i--) {
            store.put(cf, b("k2"), dupValue(i));
        }
        expected.add("k0=v");
        for (int i = 0; i < n; i++) {
            expected.add("k1=" + s(dupValue(i)));
        }
        for (int i = 0; i < 3; i++) {
            expected.add("k2=" + s(dupValue(i)));
        }
        return cf;
    }

    @MatrixTest
    void dupsortFamilyYieldsEveryPairInKeyThenValueOrder() {
        if (!lmdb()) {
            return;
        }
        List<String> expected = new ArrayList<>();
        ColumnFamily cf = dupFamily(700, expected);
        assertEquals(java.util.Set.of(ColumnFamilyFlag.DUPSORT), cf.flags());
        assertTrue(cf.hasDuplicates());
        List<String> reversed = new ArrayList<>(expected);
        java.util.Collections.reverse(reversed);
        for (boolean walk : new boolean[] {true, false}) {
            for (boolean ptr : new boolean[] {true, false}) {
                for (int page : new int[] {256, 4096, 1 << 20}) {
                    CursorOptions o = CursorOptions.defaults().pageWalk(walk).pointers(ptr).pageSize(page);
                    try (Cursor c = store.cursor(cf, KeyRange.all(), o)) {
                        assertEquals(expected, pairs(c, true), "forward walk=" + walk + " ptr=" + ptr + " page=" + page);
                        assertEquals(reversed, pairs(c, false), "reverse walk=" + walk + " ptr=" + ptr + " page=" + page);
                    }
                }
            }
        }
        long[] n = {0};
        store.scan(cf, KeyRange.closed(b("k1"), b("k1")), (k, v) -> {
            assertEquals("k1=" + s(dupValue((int) n[0])), s(k.toByteArray()) + "=" + s(v.toByteArray()));
            n[0]++;
            return true;
        });
        assertEquals(700, n[0]);
        assertEquals(700, store.valueCount(cf, b("k1")));
        assertEquals(3, store.valueCount(cf, b("k2")));
        assertEquals(0, store.valueCount(cf, b("nope")));
        assertEquals("0000", s(store.get(cf, b("k1"))).substring(0, 4), "get returns the smallest value");
    }

    /** Random next/prev walks (direction changes at page edges) over many values of one key match the list. */
    @MatrixTest
    void dupsortCursorChangesDirectionInsideAKeysValues() {
        if (!lmdb()) {
            return;
        }
        List<String> expected = new ArrayList<>();
        ColumnFamily cf = dupFamily(500, expected);
        Random r = new Random(17);
        for (boolean ptr : new boolean[] {true, false}) {
            try (Cursor c = store.cursor(cf, KeyRange.all(), CursorOptions.defaults().pointers(ptr).pageSize(256))) {
                assertTrue(c.seek(b("k1")));
                int at = 1;
                for (int step = 0; step < 4000; step++) {
                    boolean fwd = r.nextInt(3) != 0 ? (step / 50) % 2 == 0 : r.nextBoolean();
                    boolean ok = fwd ? c.next() : c.prev();
                    at += fwd ? 1 : -1;
                    if (at < 0 || at >= expected.size()) {
                        assertFalse(ok);
                        at = at < 0 ? 0 : expected.size() - 1;
                        assertTrue(at == 0 ? c.first() : c.last());
                        continue;
                    }
                    assertTrue(ok, "step " + step);
                    assertEquals(expected.get(at), s(c.keyBytes()) + "=" + s(c.valueBytes()), "step " + step);
                }
            }
        }
    }

    @MatrixTest
    void dupsortCursorMovesBetweenKeysAndValues() {
        if (!lmdb()) {
            return;
        }
        ColumnFamily cf = dupFamily(400, new ArrayList<>());
        try (Cursor c = store.cursor(cf, KeyRange.all(), CursorOptions.defaults().pageSize(256))) {
            assertThrows(IllegalStateException.class, c::nextKey);
            assertTrue(c.seek(b("k1")));
            assertEquals("0000", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.next());
            assertTrue(c.nextKey());
            assertEquals("k2", s(c.keyBytes()));
            assertEquals("0000", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.prevKey());
            assertEquals("k1", s(c.keyBytes()));
            assertEquals("0399", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.firstValue());
            assertEquals("0000", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.lastValue());
            assertEquals("0399", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.prev());
            assertEquals("0398", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.seekForPrev(b("k1")));
            assertEquals("0399", s(c.valueBytes()).substring(0, 4));
            assertTrue(c.prevKey());
            assertEquals("k0", s(c.keyBytes()));
            assertFalse(c.prevKey());
        }
    }

    @MatrixTest
    void dupsortDeletesOneValueOrAll() {
        if (!lmdb()) {
            return;
        }
        ColumnFamily cf = dupFamily(300, new ArrayList<>());
        Snapshot before = store.snapshot();
        store.delete(cf, b("k1"), dupValue(5));
        store.delete(cf, b("k1"), dupValue(5)); // absent: fine
        assertEquals(300, before.valueCount(cf, b("k1")), "a snapshot counts what it saw");
        before.close();
        assertThrows(IllegalStateException.class, () -> before.valueCount(cf, b("k1")));
        store.delete(cf, b("k1"), b("x".repeat(600))); // larger than any value: absent
        assertEquals(299, store.valueCount(cf, b("k1")));
        try (WriteBatch wb = new WriteBatch()) {
            store.write(wb.delete(cf, b("k2"), dupValue(0)).delete(cf, b("k2"), dupValue(2)));
        }
        assertEquals(s(dupValue(1)), s(store.get(cf, b("k2"))));
        assertEquals(1, store.valueCount(cf, b("k2")));
        store.delete(cf, b("k1"));
        assertEquals(0, store.valueCount(cf, b("k1")));
        assertNull(store.get(cf, b("k1")));
        store.put(cf, b("k2"), dupValue(1)); // an existing pair: kept once
        assertEquals(1, store.valueCount(cf, b("k2")));
        store.put(cf, b("k3"), b("a"));
        store.put(cf, b("k3"), b("b"));
        store.deleteRange(cf, b("k2"), b("k4"));
        try (Cursor c = store.cursor(cf, KeyRange.all(), CursorOptions.defaults())) {
            assertEquals(List.of("k0=v"), pairs(c, true));
        }
        // one value of a family without duplicates: refused, nothing applied
        store.put(b("plain"), b("v"));
        FerryException e = assertThrows(FerryException.InvalidArgument.class,
                () -> store.delete(store.defaultColumnFamily(), b("plain"), b("v")));
        assertTrue(e.getMessage().contains("DUPSORT"), e.getMessage());
        assertEquals("v", s(store.get(b("plain"))));
    }

    @MatrixTest
    void dupsortValueOverTheKeySizeLimitThrowsNamingIt() {
        if (!lmdb()) {
            return;
        }
        ColumnFamily cf = store.createColumnFamily("dups", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        store.put(cf, b("k"), new byte[511]);
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.put(cf, b("k"), new byte[512]));
        assertEquals(ErrorCode.KEY_SIZE, e.code());
        assertTrue(e.getMessage().contains("511") && e.getMessage().contains("DUPSORT"), e.getMessage());
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(cf, b("a"), b("1")).put(cf, b("k"), new byte[4096]);
            assertThrows(FerryException.InvalidArgument.class, () -> store.write(wb));
        }
        assertNull(store.get(cf, b("a")), "a failed batch writes nothing");
        assertEquals(1, store.valueCount(cf, b("k")));
    }

    @MatrixTest
    void dupfixedFamilyRefusesAValueOfAnotherSize() {
        if (!lmdb()) {
            return;
        }
        assertThrows(IllegalArgumentException.class,
                () -> store.createColumnFamily("f", java.util.EnumSet.of(ColumnFamilyFlag.DUPFIXED)));
        ColumnFamily cf = store.createColumnFamily("f", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT, ColumnFamilyFlag.DUPFIXED));
        for (int i = 999; i >= 0; i--) {
            store.put(cf, b("n"), ByteBuffer.allocate(4).putInt(i).array());
        }
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.put(cf, b("n"), new byte[8]));
        assertEquals(ErrorCode.KEY_SIZE, e.code());
        List<Integer> seen = new ArrayList<>();
        store.scan(cf, KeyRange.all(), (k, v) -> seen.add(ByteBuffer.wrap(v.toByteArray()).getInt()));
        List<Integer> want = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            want.add(i);
        }
        assertEquals(want, seen);
    }
}
