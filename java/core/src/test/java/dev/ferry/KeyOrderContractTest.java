package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Native key orders of column families ({@link KeyOrder}, issue 44 item 2): RocksDB's reverse bytewise
 * comparator and the unsigned 64-bit big-endian one, through cursors (of the store, of snapshots and of
 * transactions), range deletes, batches, splits and reopens, on RocksDB and on LMDB (mdb_set_compare, the
 * order recorded in the family's database flags). On every engine x binding x transaction mode.
 */
class KeyOrderContractTest extends StoreContract {
    private static final ColumnFamilyOptions REV = ColumnFamilyOptions.of().keyOrder(KeyOrder.REVERSE_BYTEWISE);
    private static final ColumnFamilyOptions U64 = ColumnFamilyOptions.of().keyOrder(KeyOrder.UINT64_BIG_ENDIAN);

    private static byte[] be64(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    private static List<Long> longs(Cursor c) {
        List<Long> r = new ArrayList<>();
        try (c) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                r.add(ByteBuffer.wrap(c.keyBytes()).getLong());
            }
        }
        return r;
    }

    private static List<String> all(ReadView v, ColumnFamily cf, KeyRange r, boolean forward) {
        try (Cursor c = v.cursor(cf, r, null)) {
            return keys(c, forward);
        }
    }

    private Path path() {
        return dir.resolve("db");
    }

    @MatrixTest
    void aReverseFamilyScansFromTheBytewiseLargestKeyAndReadsBoundsInItsOrder() {
        ColumnFamily rev = store.createColumnFamily("rev", REV);
        assertEquals(KeyOrder.REVERSE_BYTEWISE, rev.keyOrder());
        assertEquals(KeyOrder.BYTEWISE, store.defaultColumnFamily().keyOrder());
        for (String k : List.of("a", "ab", "b", "c")) {
            store.put(rev, b(k), b("v" + k));
        }
        assertEquals(List.of("c", "b", "ab", "a"), all(store, rev, KeyRange.all(), true));
        assertEquals(List.of("a", "ab", "b", "c"), all(store, rev, KeyRange.all(), false));
        assertEquals(List.of("b", "ab"), all(store, rev, KeyRange.closedOpen(b("b"), b("a")), true));
        assertEquals(List.of("ab", "b"), all(store, rev, KeyRange.closedOpen(b("b"), b("a")), false));
        assertEquals(List.of("b", "ab", "a"), all(store, rev, KeyRange.atLeast(b("b")), true));
        assertEquals(List.of("c", "b"), all(store, rev, KeyRange.lessThan(b("ab")), true));
        assertEquals(List.of(), all(store, rev, KeyRange.closedOpen(b("a"), b("b")), true));
        assertThrows(IllegalArgumentException.class, () -> store.cursor(rev, KeyRange.closed(b("b"), b("a")), null));
        assertThrows(IllegalArgumentException.class, () -> store.cursor(rev, KeyRange.prefix(b("a")), null));
        assertEquals("vab", s(store.get(rev, b("ab"))));
        try (Cursor c = store.cursor(rev, KeyRange.all(), null)) {
            assertTrue(c.seek(b("bb")));
            assertEquals("b", s(c.keyBytes()));
        }
        try (Snapshot snap = store.snapshot()) {
            store.put(rev, b("d"), b("vd"));
            assertEquals(List.of("c", "b", "ab", "a"), all(snap, rev, KeyRange.all(), true));
            assertEquals(1, snap.split(rev, KeyRange.all(), 4).size());
        }
        assertEquals(1, store.split(rev, KeyRange.all(), 4).size());
    }

    @MatrixTest
    void rangeDeletesOfAReverseFamilyTakeTheirBoundsInItsOrder() {
        ColumnFamily rev = store.createColumnFamily("rev", REV);
        for (String k : List.of("a", "ab", "b", "c", "d")) {
            store.put(rev, b(k), b(k));
        }
        store.deleteRange(rev, b("a"), b("c")); // empty in reverse order: nothing deleted
        assertEquals(List.of("d", "c", "b", "ab", "a"), all(store, rev, KeyRange.all(), true));
        store.deleteRange(rev, b("c"), b("ab")); // c and b
        assertEquals(List.of("d", "ab", "a"), all(store, rev, KeyRange.all(), true));
        store.write(new WriteBatch().deleteRange(rev, b("a"), b("d")).deleteRange(rev, b("d"), b("ab"))
                .put(rev, b("e"), b("e")));
        assertEquals(List.of("e", "ab", "a"), all(store, rev, KeyRange.all(), true));
        store.put(rev, b("f"), b("f")); // the store takes writes after the skipped range
        assertEquals("f", s(store.get(rev, b("f"))));
    }

    @MatrixTest
    void aTransactionSeesItsOwnWritesInTheFamilysOrder() {
        if (target.mode == TransactionMode.NONE) {
            return;
        }
        ColumnFamily rev = store.createColumnFamily("rev", REV);
        store.put(rev, b("a"), b("a"));
        store.put(rev, b("c"), b("c"));
        try (Transaction t = store.beginTransaction()) {
            t.put(rev, b("b"), b("b"));
            t.put(rev, b("d"), b("d"));
            assertEquals(List.of("d", "c", "b", "a"), all(t, rev, KeyRange.all(), true));
            assertEquals(List.of("c", "b"), all(t, rev, KeyRange.closedOpen(b("c"), b("a")), true));
            assertEquals(List.of("b", "c"), all(t, rev, KeyRange.closedOpen(b("c"), b("a")), false));
            t.commit();
        }
        assertEquals(List.of("d", "c", "b", "a"), all(store, rev, KeyRange.all(), true));
    }

    @MatrixTest
    void aUint64FamilyTakesOnlyEightByteKeysInNumericOrder() {
        ColumnFamily u = store.createColumnFamily("u64", U64);
        assertEquals(KeyOrder.UINT64_BIG_ENDIAN, u.keyOrder());
        for (long v : new long[] {1L << 40, 1, 256, -1L}) {
            store.put(u, be64(v), b("v"));
        }
        assertEquals(List.of(1L, 256L, 1L << 40, -1L), longs(store.cursor(u, KeyRange.all(), null)));
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.put(u, b("abc"), b("v")));
        assertEquals(ErrorCode.KEY_SIZE, e.code());
        assertTrue(e.getMessage().contains("'u64'"), e.getMessage());
        assertThrows(FerryException.InvalidArgument.class,
                () -> store.write(new WriteBatch().put(u, be64(7), b("v")).put(u, b("123456789"), b("v"))));
        assertNull(store.get(u, be64(7))); // nothing of the batch was written
        store.delete(u, b("abc")); // a delete of another length finds nothing and is no error
        assertEquals(4, longs(store.cursor(u, KeyRange.all(), null)).size());
    }

    @MatrixTest
    void reopeningWithoutTheFamilysOrderFailsClearlyAndWithItFindsTheData() {
        ColumnFamily rev = store.createColumnFamily("rev", REV);
        store.createColumnFamily("u64", U64);
        store.put(rev, b("a"), b("a"));
        store.put(rev, b("b"), b("b"));
        store.flush(rev);
        store.close();
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(path(), options()));
        assertEquals(lmdb() ? ErrorCode.INVALID_ARGUMENT : ErrorCode.ENGINE_INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("keyOrder"), e.getMessage());
        e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(path(), options().columnFamily("rev", REV).columnFamily("u64", REV)));
        assertTrue(e.getMessage().contains(lmdb() ? "UINT64_BIG_ENDIAN" : "Uint64BigEndian"), e.getMessage());
        store = Store.open(path(), options().columnFamily("rev", REV).columnFamily("u64", U64));
        ColumnFamily again = store.columnFamily("rev").orElseThrow();
        assertEquals(KeyOrder.REVERSE_BYTEWISE, again.keyOrder());
        assertEquals(KeyOrder.UINT64_BIG_ENDIAN, store.columnFamily("u64").orElseThrow().keyOrder());
        assertEquals(List.of("b", "a"), all(store, again, KeyRange.all(), true));
    }

    @MatrixTest
    void aReverseFamilyKeepsItsOrderOverManyPagesAndAcrossAReopen() {
        ColumnFamily rev = store.createColumnFamily("rev", REV);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, new java.util.Random(44));
        try (Transaction t = target.mode == TransactionMode.NONE ? null : store.beginTransaction()) {
            for (int i : order) {
                if (t == null) {
                    store.put(rev, b(String.format("k%05d", i)), b("v" + i));
                } else {
                    t.put(rev, b(String.format("k%05d", i)), b("v" + i));
                }
            }
            if (t != null) {
                t.commit();
            }
        }
        store.close();
        store = Store.open(path(), options().columnFamily("rev", REV));
        ColumnFamily again = store.columnFamily("rev").orElseThrow();
        List<String> keys = all(store, again, KeyRange.all(), true);
        assertEquals(3000, keys.size());
        for (int i = 0; i < 3000; i++) {
            assertEquals(String.format("k%05d", 2999 - i), keys.get(i));
        }
        assertEquals("v1234", s(store.get(again, b("k01234"))));
        try (Cursor c = store.cursor(again, KeyRange.closedOpen(b("k02000"), b("k01990")), null)) {
            assertEquals(List.of("k02000", "k01999", "k01998", "k01997", "k01996", "k01995", "k01994", "k01993",
                    "k01992", "k01991"), keys(c, true));
        }
        store.deleteRange(again, b("k02999"), b("k00010"));
        assertEquals(List.of("k00010", "k00009"), all(store, again, KeyRange.closedOpen(b("k99999"), b("k00008")), true));
    }

    @MatrixTest
    void anLmdbFamilyLookedUpAfterTheOpenIsCheckedForItsOrder() {
        if (!lmdb()) {
            return;
        }
        store.createColumnFamily("rev", REV);
        for (int i = 0; i < 1100; i++) { // more than LMDB lists at open (FERRY_LMDB_FAMILY_SCAN_MAX)
            store.put(store.defaultColumnFamily(), b(String.format("d%05d", i)), b("v"));
        }
        store.close();
        store = Store.open(path(), options()); // the family is not looked up yet
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.columnFamily("rev"));
        assertTrue(e.getMessage().contains("REVERSE_BYTEWISE") && e.getMessage().contains("BYTEWISE"), e.getMessage());
        store.close();
        store = Store.open(path(), options().columnFamily("rev", REV));
        assertEquals(KeyOrder.REVERSE_BYTEWISE, store.columnFamily("rev").orElseThrow().keyOrder());
    }
}
