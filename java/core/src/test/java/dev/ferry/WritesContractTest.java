package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

/**
 * Writes: put, overwrite, delete, deleteRange, atomic write batches, merges (built-in operators, refusals),
 * and per-write options (sync, no WAL, no-overwrite, append, duplicate keys).
 */
class WritesContractTest extends StoreContract {
    @MatrixTest
    void overwriteReplacesValue() {
        store.put(b("k"), b("one"));
        store.put(b("k"), b("two"));
        assertEquals("two", s(store.get(b("k"))));
    }

    @MatrixTest
    void deleteRemovesKeyAndMissingDeleteIsFine() {
        store.put(b("k"), b("v"));
        store.delete(b("k"));
        store.delete(b("never"));
        assertNull(store.get(b("k")));
    }

    @MatrixTest
    void deleteRangeRemovesHalfOpenInterval() {
        putAll("a", "1", "b", "2", "c", "3", "d", "4");
        store.deleteRange(b("b"), b("d"));
        try (Cursor c = store.cursor()) {
            assertEquals(List.of("a", "d"), keys(c, true));
        }
    }

    @MatrixTest
    void deleteRangeOfAnEmptyRangeIsANoOpAndTheStoreStaysWritable() {
        putAll("1", "a", "3", "c", "5", "e");
        ColumnFamily cf = store.createColumnFamily("side");
        store.put(cf, b("3"), b("x"));
        // begin >= end in unsigned order, an empty end (the smallest key) included: nothing to delete
        store.deleteRange(b("5"), b("3"));
        store.deleteRange(b("3"), new byte[0]);
        store.deleteRange(b("3"), b("3"));
        store.deleteRange(new byte[0], new byte[0]);
        store.deleteRange(new byte[] {(byte) 0x80}, new byte[] {0x7f});
        store.deleteRange(cf, b("3"), new byte[0]);
        store.put(b("7"), b("g"));
        try (WriteBatch wb = new WriteBatch()) {
            wb.deleteRange(b("5"), b("3")).deleteRange(cf, b("1"), new byte[0]).put(b("8"), b("h"));
            assertEquals(3, wb.count(), "an empty range is counted (and deletes nothing)");
            store.write(wb);
        }
        store.put(b("9"), b("i"));
        for (String k : List.of("1", "3", "5", "7", "8", "9")) {
            assertNotNull(store.get(b(k)), k);
        }
        assertEquals("x", s(store.get(cf, b("3"))));
        // a real range still deletes; an empty begin is the smallest key
        store.deleteRange(new byte[0], b("4"));
        assertNull(store.get(b("1")));
        assertNull(store.get(b("3")));
        assertEquals("e", s(store.get(b("5"))));
        assertThrows(NullPointerException.class, () -> store.deleteRange(b("5"), null));
        assertThrows(NullPointerException.class, () -> new WriteBatch().deleteRange(null, b("3")));
    }

    @MatrixTest
    void writeBatchAppliesAllOperationsInOrder() {
        store.put(b("gone"), b("x"));
        store.put(b("r1"), b("x"));
        store.put(b("r2"), b("x"));
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(b("a"), b("1")).put(b("a"), b("2")).delete(b("gone")).deleteRange(b("r"), b("s")).put(b("z"), b("26"));
            assertEquals(5, wb.count());
            store.write(wb);
        }
        assertEquals("2", s(store.get(b("a"))));
        assertNull(store.get(b("gone")));
        assertNull(store.get(b("r1")));
        assertEquals("26", s(store.get(b("z"))));
    }

    @MatrixTest
    void writeBatchIsAtomicWhenOneOperationFails() {
        if (maxKeySize() < 0) {
            // RocksDB: a batch naming a dropped family fails as a whole
            ColumnFamily cf = store.createColumnFamily("tmp");
            try (WriteBatch wb = new WriteBatch()) {
                wb.put(b("a"), b("1")).put(cf, b("b"), b("2"));
                store.dropColumnFamily(cf);
                assertThrows(RuntimeException.class, () -> store.write(wb));
            }
        } else {
            try (WriteBatch wb = new WriteBatch()) {
                wb.put(b("a"), b("1")).put(new byte[maxKeySize() + 1], b("2"));
                assertThrows(FerryException.class, () -> store.write(wb));
            }
        }
        assertNull(store.get(b("a")), "nothing of a failed batch is applied");
    }

    // ---- merge ----

    @MatrixTest
    void uint64AddCountsMergesFromStoreAndBatchInEveryFamily() {
        if (reopenWithMerge(MergeOperator.UINT64_ADD) == null) {
            return;
        }
        ColumnFamily c = store.createColumnFamily("counts");
        for (int i = 0; i < 10; i++) {
            store.merge(b("hits"), le64(1));
            store.merge(c, b("hits"), le64(i));
        }
        try (WriteBatch w = new WriteBatch()) {
            w.merge(b("hits"), le64(100)).merge(c, b("hits"), le64(1000)).put(c, b("reset"), le64(7)).merge(c, b("reset"), le64(1));
            store.write(w);
        }
        assertEquals(110, le64(store.get(b("hits"))));
        assertEquals(1045, le64(store.get(c, b("hits"))));
        assertEquals(8, le64(store.get(c, b("reset"))));
        store.flush(c);
        store.compactRange(c, null, null);
        assertEquals(1045, le64(store.get(c, b("hits"))));
        // a cursor sees merged values too
        try (Cursor cur = store.cursor(c, KeyRange.all(), CursorOptions.defaults())) {
            assertTrue(cur.next());
            assertEquals("hits", s(cur.key().toByteArray()));
            assertEquals(1045, le64(cur.value().toByteArray()));
        }
        // RocksDB does not remember the operator: reopened with it, the counts go on
        store.close();
        store = Store.open(dir.resolve("db"), options().mergeOperator(MergeOperator.UINT64_ADD));
        store.merge(b("hits"), le64(-10));
        assertEquals(100, le64(store.get(b("hits"))));
    }

    @MatrixTest
    void builtInMergeOperatorsCombineAsDocumented() {
        if (reopenWithMerge(MergeOperator.STRING_APPEND) == null) {
            return;
        }
        store.put(b("k"), b("a"));
        store.merge(b("k"), b("b"));
        store.merge(b("k"), b("c"));
        assertEquals("a,b,c", s(store.get(b("k"))));
        reopenWithMerge(MergeOperator.MAX);
        store.merge(b("m"), b("b"));
        store.merge(b("m"), new byte[] {(byte) 0xff});
        store.merge(b("m"), b("c"));
        assertArrayEquals(new byte[] {(byte) 0xff}, store.get(b("m")));
        reopenWithMerge(MergeOperator.PUT);
        store.merge(b("p"), b("one"));
        store.merge(b("p"), b("two"));
        assertEquals("two", s(store.get(b("p"))));
        reopenWithMerge(MergeOperator.BYTES_XOR);
        store.merge(b("x"), new byte[] {0x0f, 0x01});
        store.merge(b("x"), new byte[] {(byte) 0xf0});
        assertArrayEquals(new byte[] {(byte) 0xff, 0x01}, store.get(b("x")));
        // the options string may set it instead, with another delimiter
        store.close();
        store = Store.open(dir.resolve("db"), options().rocksdbOptions("merge_operator={id=stringappend;delimiter=:}"));
        store.put(b("j"), b("a"));
        store.merge(b("j"), b("d"));
        assertEquals("a:d", s(store.get(b("j"))));
    }

    @MatrixTest
    void mergeWithoutAMergeOperatorThrowsNotSupportedAndBatchIsNotApplied() {
        FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, () -> store.merge(b("k"), le64(1)));
        String expected = options().engine() == Engine.ROCKSDB ? "mergeOperator" : "LMDB";
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        try (WriteBatch w = new WriteBatch()) {
            w.put(b("before"), b("1")).merge(b("k"), le64(1));
            assertThrows(FerryException.NotSupported.class, () -> store.write(w));
        }
        assertNull(store.get(b("before")));
        store.put(b("after"), b("2")); // the store still takes writes
        assertEquals("2", s(store.get(b("after"))));
    }

    @MatrixTest
    void aStoreOpenedWithAMergeOperatorRefusesToOpenWithoutOne() {
        if (reopenWithMerge(MergeOperator.UINT64_ADD) == null) {
            return;
        }
        store.merge(b("n"), le64(1));
        store.merge(b("n"), le64(2));
        store.close();
        FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("db"), options()));
        assertTrue(e.getMessage().contains("UInt64AddOperator") && e.getMessage().contains("StoreOptions.mergeOperator"),
                e.getMessage());
        store = Store.open(dir.resolve("db"), options().mergeOperator(MergeOperator.UINT64_ADD));
        assertEquals(3, le64(store.get(b("n"))));
    }

    @MatrixTest
    void mergeOperandsIngestedIntoAStoreWithoutAnOperatorThrowOnReadInsteadOfCrashing() {
        if (options().engine() != Engine.ROCKSDB) {
            return;
        }
        try (SstFileWriter w = SstFileWriter.open(dir.resolve("m.sst"), null, options().binding)) {
            w.put(b("a"), b("plain")).merge(b("n"), le64(1)).finish();
        }
        store.ingest(store.defaultColumnFamily(), List.of(dir.resolve("m.sst")), false);
        assertEquals("plain", s(store.get(b("a"))));
        assertThrows(FerryException.class, () -> store.get(b("n"))); // RocksDB: "Merge operator failed"
        for (boolean reverse : new boolean[] {false, true}) {
            try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), null)) {
                assertThrows(FerryException.class, () -> {
                    boolean on = reverse ? c.last() : c.first();
                    while (on) {
                        on = reverse ? c.prev() : c.next();
                    }
                });
            }
        }
    }

    @MatrixTest
    void unsafeOrUnknownMergeOperatorsInTheOptionsStringFailTheOpen() {
        if (options().engine() != Engine.ROCKSDB) {
            assertThrows(IllegalArgumentException.class, () -> options().mergeOperator(MergeOperator.UINT64_ADD));
            return;
        }
        store.close();
        for (String bad : List.of("sortlist", "bogus", "{delimiter=x}")) {
            FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class,
                    () -> Store.open(dir.resolve("db"), options().rocksdbOptions("merge_operator=" + bad)), bad);
            assertTrue(e.getMessage().contains("merge_operator=" + bad) && e.getMessage().contains("uint64add"), e.getMessage());
        }
        store = Store.open(dir.resolve("db"), options());
    }

    @MatrixTest
    void mergeArgumentsAreChecked() {
        reopenWithMerge(MergeOperator.UINT64_ADD);
        assertThrows(NullPointerException.class, () -> store.merge(null, le64(1)));
        assertThrows(NullPointerException.class, () -> store.merge(b("k"), null));
        assertThrows(NullPointerException.class, () -> new WriteBatch().merge(b("k"), null));
        ColumnFamily c = store.createColumnFamily("gone");
        store.dropColumnFamily(c);
        assertThrows(IllegalStateException.class, () -> store.merge(c, b("k"), le64(1)));
        store.close();
        assertThrows(IllegalStateException.class, () -> store.merge(b("k"), le64(1)));
    }

    // ---- per-write options ----

    @MatrixTest
    void rocksDbRefusesDuplicateKeysAndLmdbWriteOptions() {
        if (lmdb()) {
            return;
        }
        FerryException e = assertThrows(FerryException.NotSupported.class,
                () -> store.createColumnFamily("d", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT)));
        assertTrue(e.getMessage().contains("LMDB"), e.getMessage());
        assertTrue(store.columnFamily("d").isEmpty());
        ColumnFamily cf = store.defaultColumnFamily();
        store.put(b("k"), b("v"));
        e = assertThrows(FerryException.NotSupported.class, () -> store.put(cf, b("k"), b("w"), WriteOptions.DEFAULT.noOverwrite(true)));
        assertTrue(e.getMessage().contains("transaction"), e.getMessage());
        assertThrows(FerryException.NotSupported.class, () -> store.put(cf, b("k"), b("w"), WriteOptions.DEFAULT.noDupData(true)));
        assertThrows(FerryException.NotSupported.class, () -> store.put(cf, b("z"), b("w"), WriteOptions.DEFAULT.append(true)));
        assertThrows(FerryException.NotSupported.class, () -> store.delete(cf, b("k"), b("v")));
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(b("k"), b("w"));
            assertThrows(FerryException.NotSupported.class, () -> store.write(wb, WriteOptions.DEFAULT.noOverwrite(true)));
            assertThrows(FerryException.InvalidArgument.class,
                    () -> store.write(wb, WriteOptions.DEFAULT.sync(true).disableWal(true)));
        }
        assertEquals("v", s(store.get(b("k"))));
        assertEquals(1, store.valueCount(cf, b("k")));
        assertEquals(0, store.valueCount(cf, b("nope")));
    }

    @MatrixTest
    void syncAndDisableWalWritesLand() {
        ColumnFamily cf = store.defaultColumnFamily();
        assertTrue(store.put(cf, b("a"), b("1"), WriteOptions.DEFAULT.sync(true)));
        assertTrue(store.put(cf, b("b"), b("2"), WriteOptions.DEFAULT.disableWal(true)));
        try (WriteBatch wb = new WriteBatch()) {
            store.write(wb.put(b("c"), b("3")).delete(b("a")), WriteOptions.DEFAULT.sync(true));
            wb.clear();
            store.write(wb.put(b("d"), b("4")), WriteOptions.DEFAULT.disableWal(true));
        }
        assertNull(store.get(b("a")));
        assertEquals("2", s(store.get(b("b"))));
        assertEquals("3", s(store.get(b("c"))));
        assertEquals("4", s(store.get(b("d"))));
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals("3", s(store.get(b("c"))));
    }

    @MatrixTest
    void noOverwritePutReportsAnExistingKey() {
        if (!lmdb()) {
            return;
        }
        ColumnFamily cf = store.defaultColumnFamily();
        WriteOptions insert = WriteOptions.DEFAULT.noOverwrite(true);
        assertTrue(store.put(cf, b("k"), b("1"), insert));
        assertFalse(store.put(cf, b("k"), b("2"), insert));
        assertEquals("1", s(store.get(b("k"))));
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(b("new"), b("x")).put(b("k"), b("3"));
            FerryException e = assertThrows(FerryException.KeyExists.class, () -> store.write(wb, insert));
            assertEquals(ErrorCode.KEY_EXISTS, e.code());
            assertTrue(e.getMessage().contains("record 1"), e.getMessage());
        }
        assertNull(store.get(b("new")), "nothing of the batch was written");
        assertEquals("1", s(store.get(b("k"))));
        // DUPSORT: noOverwrite refuses a key with any value, noDupData only an existing pair
        ColumnFamily d = store.createColumnFamily("d", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        assertTrue(store.put(d, b("k"), b("1"), insert));
        assertFalse(store.put(d, b("k"), b("2"), insert));
        WriteOptions noDup = WriteOptions.DEFAULT.noDupData(true);
        assertTrue(store.put(d, b("k"), b("2"), noDup));
        assertFalse(store.put(d, b("k"), b("2"), noDup));
        assertEquals(2, store.valueCount(d, b("k")));
        assertThrows(FerryException.InvalidArgument.class, () -> store.put(cf, b("k"), b("9"), noDup));
    }

    @MatrixTest
    void appendWritesInOrderAndRefusesAKeyOutOfOrder() {
        if (!lmdb()) {
            return;
        }
        ColumnFamily cf = store.createColumnFamily("log");
        WriteOptions append = WriteOptions.DEFAULT.append(true);
        try (WriteBatch wb = new WriteBatch()) {
            for (int i = 0; i < 2000; i++) {
                wb.put(cf, b(String.format("%06d", i)), b("v" + i));
            }
            store.write(wb, append);
        }
        assertEquals(2000, store.estimatedKeyCount(cf));
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.put(cf, b("000100"), b("x"), append));
        assertTrue(e.getMessage().contains("append"), e.getMessage());
        assertEquals("v100", s(store.get(cf, b("000100"))));
        assertTrue(store.put(cf, b("999999"), b("last"), append));
        ColumnFamily d = store.createColumnFamily("d", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        assertTrue(store.put(d, b("k"), b("1"), append));
        assertTrue(store.put(d, b("k"), b("2"), append));
        assertThrows(FerryException.InvalidArgument.class, () -> store.put(d, b("k"), b("0"), append));
        assertEquals(2, store.valueCount(d, b("k")));
    }

    @MatrixTest
    void duplicateKeyAndWriteOptionCallsAfterCloseThrow() {
        ColumnFamily cf = store.defaultColumnFamily();
        store.close();
        assertThrows(IllegalStateException.class, () -> store.valueCount(cf, b("k")));
        assertThrows(IllegalStateException.class, () -> store.put(cf, b("k"), b("v"), WriteOptions.DEFAULT));
        assertThrows(IllegalStateException.class, () -> store.delete(cf, b("k"), b("v")));
        assertThrows(IllegalStateException.class, () -> store.createColumnFamily("x", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT)));
        try (WriteBatch wb = new WriteBatch()) {
            assertThrows(IllegalStateException.class, () -> store.write(wb.put(b("k"), b("v")), WriteOptions.DEFAULT.sync(true)));
        }
        assertThrows(NullPointerException.class, () -> store.put(cf, b("k"), b("v"), null));
        assertThrows(NullPointerException.class, () -> store.createColumnFamily("x", (java.util.Set<ColumnFamilyFlag>) null));
        assertThrows(NullPointerException.class, () -> store.createColumnFamily("x", (ColumnFamilyOptions) null));
    }
}
