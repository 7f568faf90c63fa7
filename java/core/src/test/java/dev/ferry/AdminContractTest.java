package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Administration: flush, compaction and properties, checkpoints and backups, statistics, SST files and
 * ingestion.
 */
class AdminContractTest extends StoreContract {
    @MatrixTest
    void flushCompactAndPropertiesWork() {
        for (int i = 0; i < 100; i++) {
            store.put(b("k" + i), b("v" + i));
        }
        store.flush();
        store.compactRange();
        store.compactRange(store.defaultColumnFamily(), b("k1"), b("k5"));
        assertEquals("v42", s(store.get(b("k42"))));
        long est = store.estimatedKeyCount();
        assertTrue(est >= 50 && est <= 200, "estimate " + est);
        assertTrue(store.property(options().engine() == Engine.ROCKSDB ? "rocksdb.stats" : "lmdb.stat").isPresent());
        assertFalse(store.property("no.such.property").isPresent());
    }

    // ---- checkpoints and backups ----

    /**
     * Writes initial data to the default family and two others, then checkpoints while a writer
     * keeps committing batches that put key {@code w<i>} into both families and {@code i} as the
     * default family's counter. The copy must hold the initial data exactly, every batch up to its
     * counter in both families and none after it (one point in time), every batch that returned
     * before the checkpoint began, and no write made after it returned.
     */
    private void checkpointHoldsOnePointInTime(boolean compact) throws Exception {
        checkpointHoldsOnePointInTime(compact, true);
    }

    private void checkpointHoldsOnePointInTime(boolean compact, boolean sync) throws Exception {
        ColumnFamily a = store.createColumnFamily("a");
        ColumnFamily c = store.createColumnFamily("c");
        for (int i = 0; i < 50; i++) {
            store.put(b("k" + i), b("v" + i));
            store.put(a, b("a" + i), b("x" + i));
            store.put(c, b("c" + i), b("y" + i));
        }
        java.util.concurrent.atomic.AtomicInteger done = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 1; !stop.get(); i++) {
                    try (WriteBatch wb = new WriteBatch()) {
                        wb.put(a, b("w" + i), b("a" + i)).put(c, b("w" + i), b("c" + i)).put(b("counter"), b(Integer.toString(i)));
                        store.write(wb);
                    }
                    done.set(i);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "checkpoint-writer");
        writer.start();
        while (done.get() < 20 && failure.get() == null) {
            Thread.onSpinWait();
        }
        int before = done.get();
        Path copy = dir.resolve("copies/one");
        store.checkpoint(copy, compact, sync);
        stop.set(true);
        writer.join();
        assertNull(failure.get(), () -> "writer failed: " + failure.get());
        int total = done.get();
        store.put(b("k0"), b("after"));
        store.put(a, b("after"), b("after"));
        try (Store cp = Store.open(copy, options())) {
            assertEquals(List.of("default", "a", "c"), cp.columnFamilies().stream().map(ColumnFamily::name).toList());
            ColumnFamily ca = cp.columnFamily("a").orElseThrow();
            ColumnFamily cc = cp.columnFamily("c").orElseThrow();
            for (int i = 0; i < 50; i++) {
                assertEquals("v" + i, s(cp.get(b("k" + i))));
                assertEquals("x" + i, s(cp.get(ca, b("a" + i))));
                assertEquals("y" + i, s(cp.get(cc, b("c" + i))));
            }
            assertNull(cp.get(ca, b("after")));
            int counter = Integer.parseInt(s(cp.get(b("counter"))));
            assertTrue(counter >= before && counter <= total, "counter " + counter + " outside " + before + ".." + total);
            for (int i = 1; i <= total; i++) {
                assertEquals(i <= counter ? "a" + i : null, s(cp.get(ca, b("w" + i))), "batch " + i + " in a");
                assertEquals(i <= counter ? "c" + i : null, s(cp.get(cc, b("w" + i))), "batch " + i + " in c");
            }
        }
        assertEquals("after", s(store.get(b("k0"))));
    }

    @MatrixTest
    void checkpointHoldsEveryFamilyAsOfOnePointInTime() throws Exception {
        checkpointHoldsOnePointInTime(false);
    }

    /** Without the fsync the checkpoint is as complete, at once, for a store opened on it. */
    @MatrixTest
    void checkpointWithoutSyncHoldsEveryFamilyAsOfOnePointInTime() throws Exception {
        checkpointHoldsOnePointInTime(false, false);
    }

    @MatrixTest
    void compactingCheckpointWithoutSyncIsLmdbsAndRocksDbRefusesIt() throws Exception {
        if (options().engine() == Engine.LMDB) {
            checkpointHoldsOnePointInTime(true, false);
        } else {
            assertThrows(IllegalArgumentException.class, () -> store.checkpoint(dir.resolve("copy"), true, false));
            assertFalse(java.nio.file.Files.exists(dir.resolve("copy")));
        }
    }

    @MatrixTest
    void compactingCheckpointIsLmdbsAndRocksDbRefusesIt() throws Exception {
        if (options().engine() == Engine.LMDB) {
            checkpointHoldsOnePointInTime(true);
        } else {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.checkpoint(dir.resolve("copy"), true));
            assertTrue(e.getMessage().contains("LMDB"), e.getMessage());
            assertFalse(java.nio.file.Files.exists(dir.resolve("copy")));
        }
    }

    @MatrixTest
    void checkpointIntoAnExistingPathThrowsAlreadyExists() throws Exception {
        store.put(b("k"), b("v"));
        Path copy = dir.resolve("copy");
        store.checkpoint(copy);
        assertThrows(FerryException.AlreadyExists.class, () -> store.checkpoint(copy));
        Path empty = java.nio.file.Files.createDirectories(dir.resolve("empty"));
        assertThrows(FerryException.AlreadyExists.class, () -> store.checkpoint(empty));
        Path file = java.nio.file.Files.writeString(dir.resolve("file"), "x");
        assertThrows(FerryException.AlreadyExists.class, () -> store.checkpoint(file));
        try (Store cp = Store.open(copy, options())) {
            assertEquals("v", s(cp.get(b("k"))));
        }
    }

    @MatrixTest
    void checkpointMisuseThrows() throws Exception {
        assertThrows(NullPointerException.class, () -> store.checkpoint(null));
        assertThrows(NullPointerException.class, () -> store.checkpoint(null, false));
        assertThrows(NullPointerException.class, () -> store.checkpoint(null, false, false));
        store.close();
        assertThrows(IllegalStateException.class, () -> store.checkpoint(dir.resolve("copy")));
        assertFalse(java.nio.file.Files.exists(dir.resolve("copy")));
    }

    /** LMDB copies a read-only store; RocksDB would copy it without the writes still in its log: refused. */
    @MatrixTest
    void checkpointOfAReadOnlyStoreIsLmdbsOnly() throws Exception {
        store.put(b("k"), b("v"));
        store.close();
        store = Store.open(dir.resolve("db"), options().readOnly(true));
        if (options().engine() == Engine.ROCKSDB) {
            FerryException e = assertThrows(FerryException.NotSupported.class, () -> store.checkpoint(dir.resolve("copy")));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            assertFalse(java.nio.file.Files.exists(dir.resolve("copy")));
            try (Backups backups = Backups.open(dir.resolve("backups"), options().binding)) {
                assertThrows(FerryException.NotSupported.class, () -> backups.create(store));
            }
            return;
        }
        store.checkpoint(dir.resolve("copy"));
        try (Store cp = Store.open(dir.resolve("copy"), options())) {
            assertEquals("v", s(cp.get(b("k"))));
            cp.put(b("k"), b("w"));
        }
        assertEquals("v", s(store.get(b("k"))));
    }

    /** RocksDB without its write-ahead log: the checkpoint's and the backup's flushes carry the writes. */
    @MatrixTest
    void checkpointAndBackupWithoutTheWalHoldEveryFamily() throws Exception {
        if (options().engine() != Engine.ROCKSDB) {
            return; // wal(false) is a RocksDB option; LMDB has no log
        }
        store.close();
        store = Store.open(dir.resolve("nowal"), options().wal(false));
        ColumnFamily a = store.createColumnFamily("a");
        store.put(b("k"), b("v"));
        store.put(a, b("ka"), b("va"));
        store.checkpoint(dir.resolve("copy"));
        try (Backups backups = Backups.open(dir.resolve("backups"), options().binding)) {
            backups.create(store);
            backups.restoreLatest(dir.resolve("restored"));
        }
        for (String d : List.of("copy", "restored")) {
            try (Store cp = Store.open(dir.resolve(d), options())) {
                assertEquals("v", s(cp.get(b("k"))), d);
                assertEquals("va", s(cp.get(cp.columnFamily("a").orElseThrow(), b("ka"))), d);
            }
        }
    }

    @MatrixTest
    void checkpointFromAnotherThreadWorks() throws Exception {
        store.put(b("k"), b("v"));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                store.checkpoint(dir.resolve("copy"));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        assertNull(failure.get());
        try (Store cp = Store.open(dir.resolve("copy"), options())) {
            assertEquals("v", s(cp.get(b("k"))));
        }
    }

    @MatrixTest
    @NeedsRocksDb
    void backupsRestoreEveryFamilyAndPurgeKeepsTheNewest() throws Exception {
        try (Backups backups = Backups.open(dir.resolve("backups"), options().binding)) {
            if (options().engine() != Engine.ROCKSDB) {
                FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, () -> backups.create(store));
                assertTrue(e.getMessage().contains("checkpoint"), e.getMessage());
                assertEquals(List.of(), backups.list());
                return;
            }
            ColumnFamily a = store.createColumnFamily("a");
            assertEquals(List.of(), backups.list());
            assertThrows(FerryException.NotFound.class, () -> backups.restoreLatest(dir.resolve("none")));
            store.put(b("k"), b("one"));
            store.put(a, b("ka"), b("one"));
            int id1 = backups.create(store);
            store.put(b("k"), b("two"));
            store.delete(a, b("ka"));
            int id2 = backups.create(store);
            store.put(b("k"), b("three"));
            int id3 = backups.create(store);
            store.put(b("k"), b("not backed up"));
            assertTrue(id1 >= 1 && id2 > id1 && id3 > id2, id1 + " " + id2 + " " + id3);
            List<BackupInfo> list = backups.list();
            assertEquals(List.of(id1, id2, id3), list.stream().map(BackupInfo::id).toList());
            for (BackupInfo info : list) {
                assertTrue(info.size() > 0 && info.fileCount() > 0, info.toString());
                assertTrue(info.timestamp().isAfter(java.time.Instant.parse("2020-01-01T00:00:00Z")), info.toString());
            }
            backups.restore(id1, dir.resolve("r1"));
            backups.restoreLatest(dir.resolve("r3"));
            assertThrows(FerryException.AlreadyExists.class, () -> backups.restoreLatest(dir.resolve("r3")));
            try (Store r = Store.open(dir.resolve("r1"), options())) {
                assertEquals("one", s(r.get(b("k"))));
                assertEquals("one", s(r.get(r.columnFamily("a").orElseThrow(), b("ka"))));
            }
            try (Store r = Store.open(dir.resolve("r3"), options())) {
                assertEquals("three", s(r.get(b("k"))));
                assertNull(r.get(r.columnFamily("a").orElseThrow(), b("ka")));
            }
            backups.purgeOldBackups(2);
            assertEquals(List.of(id2, id3), backups.list().stream().map(BackupInfo::id).toList());
            assertThrows(FerryException.NotFound.class, () -> backups.restore(id1, dir.resolve("r1-again")));
            backups.restore(id2, dir.resolve("r2"));
            try (Store r = Store.open(dir.resolve("r2"), options())) {
                assertEquals("two", s(r.get(b("k"))));
            }
        }
        // the backups stay on disk: a new Backups sees them
        if (options().engine() == Engine.ROCKSDB) {
            try (Backups again = Backups.open(dir.resolve("backups"), options().binding)) {
                assertEquals(2, again.list().size());
            }
        }
    }

    @MatrixTest
    @NeedsRocksDb
    void backupsMisuseThrows() throws Exception {
        Backups backups = Backups.open(dir.resolve("backups"), options().binding);
        assertThrows(NullPointerException.class, () -> backups.create(null));
        assertThrows(NullPointerException.class, () -> backups.restoreLatest(null));
        assertThrows(IllegalArgumentException.class, () -> backups.restore(0, dir.resolve("r")));
        assertThrows(IllegalArgumentException.class, () -> backups.purgeOldBackups(-1));
        assertThrows(NullPointerException.class, () -> Backups.open(null));
        Store other = Store.open(dir.resolve("other"), options());
        other.close();
        assertThrows(IllegalStateException.class, () -> backups.create(other));
        backups.close();
        backups.close();
        assertTrue(backups.isClosed());
        assertThrows(IllegalStateException.class, () -> backups.create(store));
        assertThrows(IllegalStateException.class, backups::list);
        assertThrows(IllegalStateException.class, () -> backups.restoreLatest(dir.resolve("r")));
        assertThrows(IllegalStateException.class, () -> backups.restore(1, dir.resolve("r")));
        assertThrows(IllegalStateException.class, () -> backups.purgeOldBackups(1));
        assertFalse(java.nio.file.Files.exists(dir.resolve("r")));
    }

    // ---- statistics ----

    @MatrixTest
    void rocksDbTickersAndHistogramsCountWritesAndReads() {
        if (options().engine() != Engine.ROCKSDB) {
            assertThrows(FerryException.NotSupported.class, () -> store.statistics());
            return;
        }
        IllegalStateException off = assertThrows(IllegalStateException.class, () -> store.statistics());
        assertTrue(off.getMessage().contains("StoreOptions.statistics(true)"), off.getMessage());
        store.close();
        store = Store.open(dir.resolve("db"), options().statistics(true));
        Statistics before = store.statistics();
        for (int i = 0; i < 10; i++) {
            store.put(b("key" + i), b("value" + i));
        }
        for (int i = 0; i < 5; i++) {
            assertNotNull(store.get(b("key" + i)));
        }
        Statistics after = store.statistics();
        assertEquals(10, after.ticker(Statistics.Ticker.KEYS_WRITTEN) - before.ticker(Statistics.Ticker.KEYS_WRITTEN));
        assertEquals(5, after.ticker(Statistics.Ticker.KEYS_READ) - before.ticker(Statistics.Ticker.KEYS_READ));
        assertTrue(after.ticker("rocksdb.bytes.written") - before.ticker("rocksdb.bytes.written") >= 10 * 10);
        assertEquals(5 * "value0".length(), after.ticker(Statistics.Ticker.BYTES_READ) - before.ticker(Statistics.Ticker.BYTES_READ));
        Statistics.Histogram get = after.histogram(Statistics.HistogramType.DB_GET);
        assertEquals(5, get.count() - before.histogram("rocksdb.db.get.micros").count());
        assertTrue(get.p50() <= get.p95() && get.p95() <= get.p99() && get.p99() <= get.max(), get.toString());
        for (Statistics.Ticker t : Statistics.Ticker.values()) {
            after.ticker(t); // every named ticker exists in this RocksDB
        }
        for (Statistics.HistogramType h : Statistics.HistogramType.values()) {
            after.histogram(h);
        }
        assertTrue(after.tickers().size() > 100, "tickers " + after.tickers().size());
        assertThrows(IllegalArgumentException.class, () -> after.ticker("rocksdb.no.such.ticker"));
        assertThrows(IllegalArgumentException.class, () -> after.histogram("rocksdb.no.such.histogram"));
        assertThrows(FerryException.NotSupported.class, () -> store.lmdbStats(store.defaultColumnFamily()));
        store.close();
        assertThrows(IllegalStateException.class, () -> store.statistics());
    }

    @MatrixTest
    void lmdbStatsCountEntriesAndPagesPerFamily() {
        if (options().engine() != Engine.LMDB) {
            assertThrows(FerryException.NotSupported.class, () -> store.lmdbStats(store.defaultColumnFamily()));
            return;
        }
        ColumnFamily c = store.createColumnFamily("stats");
        for (int i = 0; i < 2000; i++) {
            store.put(c, b(String.format("k%05d", i)), new byte[100]);
        }
        store.put(b("big"), new byte[100_000]);
        LmdbStats f = store.lmdbStats(c);
        assertEquals(2000, f.entries());
        assertTrue(f.depth() >= 2 && f.branchPages() >= 1 && f.leafPages() > 10, f.toString());
        assertEquals(0, f.overflowPages());
        assertTrue(f.pageSize() >= 4096 && f.mapSize() > 0 && f.maxReaders() > 0 && f.lastPage() > f.leafPages(), f.toString());
        LmdbStats d = store.lmdbStats(store.defaultColumnFamily());
        assertTrue(d.overflowPages() >= 100_000 / d.pageSize(), d.toString()); // the big value
        assertTrue(d.entries() >= 2, d.toString()); // "big" and the family's record
        assertTrue(d.lastTxnId() >= f.lastTxnId());
        assertThrows(FerryException.NotSupported.class, () -> store.statistics());
        store.dropColumnFamily(c);
        assertThrows(IllegalStateException.class, () -> store.lmdbStats(c));
    }

    // ---- SST files and ingestion ----

    private SstFileWriter sst(String name) {
        return SstFileWriter.open(dir.resolve(name), null, options().binding);
    }

    @MatrixTest
    @NeedsRocksDb
    void sstFileIsIngestedIntoAFamilyAndItsDeletesHideOlderValues() throws Exception {
        Path f = dir.resolve("load.sst");
        try (SstFileWriter w = sst("load.sst")) {
            assertEquals(f, w.path());
            for (int i = 0; i < 1000; i++) {
                w.put(b(String.format("k%05d", i)), b("v" + i));
            }
            w.delete(b("k99999"));
            assertEquals(1001, w.entries());
            assertTrue(w.finish() > 0);
            assertTrue(w.isFinished());
        }
        ColumnFamily c = store.createColumnFamily("bulk");
        if (options().engine() == Engine.LMDB) {
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, () -> store.ingest(c, List.of(f), false));
            assertTrue(e.getMessage().contains("LMDB"), e.getMessage());
            return;
        }
        store.put(c, b("k99999"), b("old"));
        store.put(c, b("k00001"), b("old"));
        store.ingest(c, List.of(f), false);
        assertTrue(java.nio.file.Files.exists(f)); // copied
        assertEquals("v1", s(store.get(c, b("k00001"))));
        assertEquals("v999", s(store.get(c, b("k00999"))));
        assertNull(store.get(c, b("k99999")));
        assertNull(store.get(b("k00001"))); // the default family is untouched
        int n = 0;
        try (Cursor cur = store.cursor(c, KeyRange.all(), null)) {
            while (cur.next()) {
                n++;
            }
        }
        assertEquals(1000, n);
        // move: the file leaves its path
        try (SstFileWriter w = sst("more.sst")) {
            w.put(b("z"), b("last")).finish();
        }
        store.ingest(c, List.of(dir.resolve("more.sst")), true);
        assertFalse(java.nio.file.Files.exists(dir.resolve("more.sst")));
        assertEquals("last", s(store.get(c, b("z"))));
        // the store reopens with the ingested files
        store.close();
        store = Store.open(dir.resolve("db"), options());
        assertEquals("last", s(store.get(store.columnFamily("bulk").orElseThrow(), b("z"))));
    }

    @MatrixTest
    @NeedsRocksDb
    void sstKeysOutOfOrderThrowAndTheWriterStaysUsable() {
        try (SstFileWriter w = sst("o.sst")) {
            w.put(b("b"), b("1"));
            for (byte[] k : List.of(b("a"), b("b"), b(""))) {
                FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class, () -> w.put(k, b("x")));
                assertTrue(e.getMessage().contains("strictly increasing"), e.getMessage());
            }
            assertThrows(FerryException.InvalidArgument.class, () -> w.merge(b("a"), b("x")));
            assertThrows(FerryException.InvalidArgument.class, () -> w.delete(b("b")));
            w.put(b("b\0"), b("2")); // longer with the same prefix sorts after
            w.put(new byte[] {(byte) 0x80}, b("3")); // unsigned order
            assertEquals(3, w.entries());
            w.finish();
            assertThrows(FerryException.InvalidArgument.class, () -> w.finish());
            assertThrows(FerryException.InvalidArgument.class, () -> w.put(new byte[] {(byte) 0xff}, b("4")));
        }
    }

    @MatrixTest
    @NeedsRocksDb
    void sstWriterMisuseThrows() throws Exception {
        SstFileWriter w = sst("m.sst");
        assertThrows(FerryException.InvalidArgument.class, w::finish); // no entries
        assertThrows(NullPointerException.class, () -> w.put(null, b("v")));
        assertThrows(NullPointerException.class, () -> w.put(b("k"), null));
        assertThrows(NullPointerException.class, () -> w.merge(b("k"), null));
        w.close();
        w.close();
        assertThrows(IllegalStateException.class, () -> w.put(b("k"), b("v")));
        assertThrows(IllegalStateException.class, w::finish);
        assertThrows(FerryException.InvalidArgument.class,
                () -> SstFileWriter.open(dir.resolve("c.sst"), "comparator=foo", options().binding));
        assertThrows(IllegalArgumentException.class, () -> store.ingest(store.defaultColumnFamily(), List.of(), false));
        assertThrows(NullPointerException.class, () -> store.ingest(store.defaultColumnFamily(), null, false));
        if (options().engine() == Engine.ROCKSDB) {
            assertThrows(FerryException.IOError.class, () -> store.ingest(store.defaultColumnFamily(), List.of(dir.resolve("absent.sst")), false));
        }
        store.close();
        assertThrows(IllegalStateException.class, () -> store.ingest(store.defaultColumnFamily(), List.of(dir.resolve("m.sst")), false));
    }

    @MatrixTest
    void sstMergeOperandsAreCombinedByTheIngestingStoresOperator() {
        if (reopenWithMerge(MergeOperator.UINT64_ADD) == null) {
            return;
        }
        store.merge(b("n"), le64(5));
        try (SstFileWriter w = sst("m.sst")) {
            w.merge(b("n"), le64(10)).finish();
        }
        store.ingest(store.defaultColumnFamily(), List.of(dir.resolve("m.sst")), false);
        assertEquals(15, le64(store.get(b("n"))));
    }
}
