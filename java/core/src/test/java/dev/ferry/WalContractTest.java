package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TransactionLogIterator;
import org.rocksdb.WriteOptions;

/**
 * The write-ahead log read back ({@link Store#updatesSince(long)}, {@link Store#latestSequenceNumber()}) on
 * every engine x binding: batches come back in write order with their sequence numbers and operations
 * (puts, deletes, merges, range deletes, per family); a sequence number gone from the WAL is a clear
 * {@link FerryException.NotFound}; closed and foreign-thread use throws; LMDB has no WAL. Against
 * RocksJava's {@code getUpdatesSince}: the same random writes to a Ferry store and a RocksJava database
 * read back as the same batches.
 */
@Matrix(Target.Slice.ENGINES)
class WalContractTest {
    @TempDir
    Path dir;
    Target target;

    static {
        RocksDB.loadLibrary();
    }

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return b == null ? "-" : new String(b, StandardCharsets.ISO_8859_1);
    }

    private static List<String> read(Store s, long since) {
        List<String> out = new ArrayList<>();
        try (WalIterator it = s.updatesSince(since)) {
            while (it.hasNext()) {
                WalBatch batch = it.next();
                out.add("batch " + batch.sequence());
                for (WalBatch.Entry e : batch.entries()) {
                    out.add(e.sequence() + " " + e.kind() + " cf" + e.engineFamilyId() + " " + s(e.key()) + " " + s(e.value()));
                }
            }
        }
        return out;
    }

    @MatrixTest
    void lmdbHasNoWriteAheadLog() {
        if (target.engine != Engine.LMDB) {
            return;
        }
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            FerryException e = assertThrows(FerryException.NotSupported.class, () -> s.updatesSince(0));
            assertTrue(e.getMessage().contains("no write-ahead log"), e.getMessage());
            assertThrows(FerryException.NotSupported.class, s::latestSequenceNumber);
        }
    }

    @MatrixTest
    void batchesComeBackInWriteOrderWithTheirSequenceNumbers() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            ColumnFamily counts = s.createColumnFamily("counts", ColumnFamilyOptions.of().mergeOperator(MergeOperator.UINT64_ADD));
            assertEquals(0, s.latestSequenceNumber());
            try (WalIterator it = s.updatesSince(0)) {
                assertFalse(it.hasNext());
                assertThrows(NoSuchElementException.class, it::next);
            }
            s.put(b("a"), b("1"));                                     // 1
            s.merge(counts, b("n"), new byte[] {5, 0, 0, 0, 0, 0, 0, 0}); // 2
            try (WriteBatch wb = new WriteBatch()) {                    // 3..5
                wb.put(counts, b("m"), new byte[8]).delete(b("a")).deleteRange(b("b"), b("d"));
                s.write(wb);
            }
            s.delete(b("z"));                                          // 6
            assertEquals(6, s.latestSequenceNumber());
            try (WalIterator it = s.updatesSince(1)) {
                WalBatch first = it.next();
                assertEquals(1, first.sequence());
                WalBatch.Entry put = first.entries().get(0);
                assertEquals(WalBatch.Kind.PUT, put.kind());
                assertSame(s.defaultColumnFamily(), put.columnFamily());
                assertArrayEquals(b("a"), put.key());
                assertArrayEquals(b("1"), put.value());
                WalBatch.Entry merge = it.next().entries().get(0);
                assertEquals(WalBatch.Kind.MERGE, merge.kind());
                assertSame(counts, merge.columnFamily());
                assertEquals(2, merge.sequence());
                WalBatch three = it.next();
                assertEquals(3, three.sequence());
                assertEquals(List.of(WalBatch.Kind.PUT, WalBatch.Kind.DELETE, WalBatch.Kind.DELETE_RANGE),
                        three.entries().stream().map(WalBatch.Entry::kind).toList());
                assertEquals(List.of(3L, 4L, 5L), three.entries().stream().map(WalBatch.Entry::sequence).toList());
                assertNull(three.entries().get(1).value());
                assertArrayEquals(b("d"), three.entries().get(2).value());
                assertTrue(three.data().length > 12);
                assertEquals(6, it.next().sequence());
                assertFalse(it.hasNext());
            }
            // from the middle of a batch: RocksDB starts at the batch holding it
            assertEquals("batch 3", read(s, 4).get(0));
            assertEquals(List.of(), read(s, 7));
            assertEquals(List.of(), read(s, 1000));
        }
    }

    @MatrixTest
    void aSequenceNumberGoneFromTheWalIsNotFoundAndArchivedLogsKeepIt() {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            s.put(b("a"), b("1"));
            s.flush();
            s.put(b("b"), b("2"));
            FerryException e = assertThrows(FerryException.NotFound.class, () -> s.updatesSince(1));
            assertTrue(e.getMessage().contains("no longer in the WAL"), e.getMessage());
            assertEquals(List.of("batch 2", "2 PUT cf0 b 2"), read(s, 2));
            assertThrows(IllegalArgumentException.class, () -> s.updatesSince(-1));
        }
        try (Store s = Store.open(dir.resolve("kept"), target.options().rocksdbOptions("WAL_ttl_seconds=3600"))) {
            s.put(b("a"), b("1"));
            s.flush();
            s.put(b("b"), b("2"));
            assertEquals(List.of("batch 1", "1 PUT cf0 a 1", "batch 2", "2 PUT cf0 b 2"), read(s, 1));
        }
    }

    @MatrixTest
    void misuseThrows() throws Exception {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        Store s = Store.open(dir.resolve("db"), target.options());
        s.put(b("a"), b("1"));
        WalIterator it = s.updatesSince(0);
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(it::hasNext);
        ExecutionException e = assertThrows(ExecutionException.class, other::get);
        assertTrue(e.getCause() instanceof IllegalStateException, e.getCause().toString());
        assertTrue(it.hasNext());
        it.close();
        it.close();
        assertTrue(it.isClosed());
        assertThrows(IllegalStateException.class, it::hasNext);
        WalIterator open = s.updatesSince(0);
        s.close(); // closes its iterators
        assertTrue(open.isClosed());
        assertThrows(IllegalStateException.class, open::next);
        assertThrows(IllegalStateException.class, () -> s.updatesSince(0));
        assertThrows(IllegalStateException.class, s::latestSequenceNumber);
        try (Store noWal = Store.open(dir.resolve("nowal"), target.options().wal(false))) {
            FerryException x = assertThrows(FerryException.NotSupported.class, () -> noWal.updatesSince(0));
            assertTrue(x.getMessage().contains("without a write-ahead log"), x.getMessage());
        }
        try (Store ttl = Store.open(dir.resolve("ttl"), target.options().ttlSeconds(100))) {
            assertThrows(FerryException.NotSupported.class, () -> ttl.updatesSince(0));
        }
    }

    @MatrixTest
    void theSameWritesReadBackAsRocksJavasGetUpdatesSince() throws Exception {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        Random rnd = new Random(44);
        Path rjPath = dir.resolve("rj");
        try (Store s = Store.open(dir.resolve("db"), target.options().mergeOperator(MergeOperator.STRING_APPEND));
                Options o = new Options().setCreateIfMissing(true).setMergeOperatorName("stringappend");
                org.rocksdb.ColumnFamilyOptions co = new org.rocksdb.ColumnFamilyOptions().setMergeOperatorName("stringappend");
                RocksDB rj = RocksDB.open(o, rjPath.toString());
                WriteOptions wo = new WriteOptions()) {
            ColumnFamily[] fams = {s.defaultColumnFamily(), s.createColumnFamily("one"), s.createColumnFamily("two")};
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            handles.add(rj.getDefaultColumnFamily());
            for (String n : new String[] {"one", "two"}) {
                handles.add(rj.createColumnFamily(new ColumnFamilyDescriptor(b(n), co)));
            }
            for (int i = 0; i < 300; i++) {
                int f = rnd.nextInt(3);
                byte[] k = b("k" + rnd.nextInt(50));
                byte[] v = b("v" + i);
                int op = rnd.nextInt(10);
                if (op < 4) {
                    s.put(fams[f], k, v);
                    rj.put(handles.get(f), wo, k, v);
                } else if (op < 6) {
                    s.delete(fams[f], k);
                    rj.delete(handles.get(f), wo, k);
                } else if (op < 7) {
                    s.merge(fams[f], k, v);
                    rj.merge(handles.get(f), wo, k, v);
                } else if (op < 8) {
                    s.deleteRange(fams[f], b("k1"), b("k3"));
                    rj.deleteRange(handles.get(f), b("k1"), b("k3"));
                } else {
                    try (WriteBatch wb = new WriteBatch(); org.rocksdb.WriteBatch rb = new org.rocksdb.WriteBatch()) {
                        for (int j = 0; j < 1 + rnd.nextInt(5); j++) {
                            int g = rnd.nextInt(3);
                            byte[] kk = b("b" + rnd.nextInt(20));
                            if (rnd.nextBoolean()) {
                                wb.put(fams[g], kk, v);
                                rb.put(handles.get(g), kk, v);
                            } else {
                                wb.delete(fams[g], kk);
                                rb.delete(handles.get(g), kk);
                            }
                        }
                        s.write(wb);
                        rj.write(wo, rb);
                    }
                }
            }
            assertEquals(rj.getLatestSequenceNumber(), s.latestSequenceNumber());
            for (long since : new long[] {0, 1, 57, s.latestSequenceNumber(), s.latestSequenceNumber() + 1}) {
                assertEquals(rocksJava(rj, since), read(s, since), "since " + since);
            }
            for (ColumnFamilyHandle h : handles.subList(1, handles.size())) {
                h.close();
            }
        }
    }

    /** RocksJava's reading of the same log, in {@link #read}'s format. */
    private static List<String> rocksJava(RocksDB db, long since) throws RocksDBException {
        List<String> out = new ArrayList<>();
        if (since > db.getLatestSequenceNumber()) {
            return out; // RocksDB answers NotFound ("not yet written"); Ferry's iterator ends at once
        }
        try (TransactionLogIterator it = db.getUpdatesSince(since)) {
            for (; it.isValid(); it.next()) {
                TransactionLogIterator.BatchResult r = it.getBatch();
                out.add("batch " + r.sequenceNumber());
                long[] seq = {r.sequenceNumber()};
                try (org.rocksdb.WriteBatch wb = r.writeBatch()) {
                    wb.iterate(new org.rocksdb.WriteBatch.Handler() {
                        private void add(String kind, int cf, byte[] k, byte[] v) {
                            out.add(seq[0]++ + " " + kind + " cf" + cf + " " + s(k) + " " + s(v));
                        }

                        @Override
                        public void put(int cf, byte[] k, byte[] v) {
                            add("PUT", cf, k, v);
                        }

                        @Override
                        public void put(byte[] k, byte[] v) {
                            add("PUT", 0, k, v);
                        }

                        @Override
                        public void merge(int cf, byte[] k, byte[] v) {
                            add("MERGE", cf, k, v);
                        }

                        @Override
                        public void merge(byte[] k, byte[] v) {
                            add("MERGE", 0, k, v);
                        }

                        @Override
                        public void delete(int cf, byte[] k) {
                            add("DELETE", cf, k, null);
                        }

                        @Override
                        public void delete(byte[] k) {
                            add("DELETE", 0, k, null);
                        }

                        @Override
                        public void singleDelete(int cf, byte[] k) {
                            add("SINGLE_DELETE", cf, k, null);
                        }

                        @Override
                        public void singleDelete(byte[] k) {
                            add("SINGLE_DELETE", 0, k, null);
                        }

                        @Override
                        public void deleteRange(int cf, byte[] a, byte[] z) {
                            add("DELETE_RANGE", cf, a, z);
                        }

                        @Override
                        public void deleteRange(byte[] a, byte[] z) {
                            add("DELETE_RANGE", 0, a, z);
                        }

                        @Override
                        public void logData(byte[] blob) {
                        }

                        @Override
                        public void putBlobIndex(int cf, byte[] k, byte[] v) {
                            add("BLOB_INDEX", cf, k, v);
                        }

                        @Override
                        public void markBeginPrepare() {
                        }

                        @Override
                        public void markEndPrepare(byte[] xid) {
                        }

                        @Override
                        public void markNoop(boolean emptyBatch) {
                        }

                        @Override
                        public void markRollback(byte[] xid) {
                        }

                        @Override
                        public void markCommit(byte[] xid) {
                        }

                        @Override
                        public void markCommitWithTimestamp(byte[] xid, byte[] ts) {
                        }
                    });
                }
            }
            it.status();
        }
        return out;
    }
}
