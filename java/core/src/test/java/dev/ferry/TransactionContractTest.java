package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write transactions on every engine x binding (and both RocksDB transaction modes: {@link Target.Slice#TRANSACTIONS}): read-your-writes
 * through gets, multiGet and cursors, commit and rollback, the engines' conflicts as typed
 * exceptions, the retry helper, and misuse (wrong thread, use after commit, close with a
 * transaction open, a transaction left to the cleaner) that must throw, never hang or crash.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Matrix(Target.Slice.TRANSACTIONS)
class TransactionContractTest {
    @TempDir
    Path dir;
    Store store;
    Target target;

    /** @return new options choosing engine, binding and (RocksDB) the transaction mode */
    StoreOptions options() {
        return target.transactionOptions();
    }

    boolean lmdb() {
        return options().engine() == Engine.LMDB;
    }

    boolean pessimistic() {
        return options().transactions == TransactionMode.PESSIMISTIC;
    }

    boolean optimistic() {
        return options().transactions == TransactionMode.OPTIMISTIC;
    }

    @BeforeEach
    void openStore(Target t) {
        target = t;
        store = Store.open(dir.resolve("db"), options());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    static List<String> keys(Cursor c) {
        List<String> r = new ArrayList<>();
        for (boolean ok = c.first(); ok; ok = c.next()) {
            r.add(s(c.keyBytes()));
        }
        return r;
    }

    @MatrixTest
    void readsSeeOwnWritesAndOthersSeeThemAtCommit() {
        store.put(b("a"), b("1"));
        store.put(b("c"), b("3"));
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("b"), b("2"));
            txn.delete(b("c"));
            assertEquals("2", s(txn.get(b("b"))));
            assertNull(txn.get(b("c")));
            assertEquals("1", s(txn.get(b("a"))));
            assertNull(store.get(b("b")));
            assertEquals("3", s(store.get(b("c"))));
            List<byte[]> many = txn.multiGet(store.defaultColumnFamily(), List.of(b("a"), b("b"), b("c")));
            assertEquals("1", s(many.get(0)));
            assertEquals("2", s(many.get(1)));
            assertNull(many.get(2));
            ByteBuffer into = ByteBuffer.allocate(8);
            assertEquals(1, txn.get(store.defaultColumnFamily(), ByteBuffer.wrap(b("b")), into));
            txn.commit();
        }
        assertEquals("2", s(store.get(b("b"))));
        assertNull(store.get(b("c")));
    }

    @MatrixTest
    void closeWithoutCommitRollsBack() {
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("k"), b("v"));
        }
        assertNull(store.get(b("k")));
        // the store takes writes (and another transaction) again
        store.put(b("k2"), b("v2"));
        try (Transaction txn = store.beginTransaction()) {
            assertEquals("v2", s(txn.get(b("k2"))));
        }
    }

    @MatrixTest
    void cursorSeesOwnWritesAndGoesOnAfterAWrite() {
        for (String k : List.of("a", "c", "e")) {
            store.put(b(k), b(k));
        }
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("d"), b("d"));
            txn.delete(b("e"));
            try (Cursor c = txn.cursor(KeyRange.all())) {
                assertEquals(List.of("a", "c", "d"), keys(c));
                assertTrue(c.first());
                assertEquals("a", s(c.keyBytes()));
                txn.put(b("b"), b("b"));
                assertThrows(IllegalStateException.class, c::key); // views are invalid after a write
                assertTrue(c.next());
                assertEquals("b", s(c.keyBytes()));
                assertTrue(c.next());
                assertEquals("c", s(c.keyBytes()));
                txn.delete(b("d"));
                assertFalse(c.next());
                assertTrue(c.last());
                assertEquals("c", s(c.keyBytes()));
                txn.put(b("bb"), b("x"));
                assertTrue(c.prev());
                assertEquals("bb", s(c.keyBytes()));
            }
            try (Cursor c = txn.cursor(store.defaultColumnFamily(), KeyRange.closedOpen(b("b"), b("c")),
                    CursorOptions.defaults().pointers(true))) {
                assertEquals(List.of("b", "bb"), keys(c));
                assertTrue(c.first());
                View v = c.value();
                assertEquals(1, v.length());
                txn.put(b("b"), b("longer value"));
                assertThrows(IllegalStateException.class, v::length);
                assertTrue(c.first());
                assertEquals("longer value", s(c.valueBytes()));
            }
            long[] n = {0};
            txn.scan(store.defaultColumnFamily(), KeyRange.all(), (k, v) -> {
                n[0]++;
                return true;
            });
            assertEquals(4, n[0]);
            txn.commit();
        }
        try (Cursor c = store.cursor()) {
            assertEquals(List.of("a", "b", "bb", "c"), keys(c));
        }
    }

    @MatrixTest
    void familiesAndBatchesInATransaction() {
        ColumnFamily cf = store.createColumnFamily("fam");
        try (Transaction txn = store.beginTransaction(); WriteBatch wb = new WriteBatch()) {
            wb.put(cf, b("x"), b("1")).put(b("y"), b("2")).delete(cf, b("none"));
            txn.write(wb);
            assertEquals("1", s(txn.get(cf, b("x"))));
            assertEquals("2", s(txn.get(b("y"))));
            try (Cursor c = txn.cursor(cf, KeyRange.all(), null)) {
                assertEquals(List.of("x"), keys(c));
            }
            txn.commit();
        }
        assertEquals("1", s(store.get(cf, b("x"))));
        assertEquals("2", s(store.get(b("y"))));
    }

    @MatrixTest
    void deleteRangeInATransaction() {
        for (String k : List.of("a", "b", "c")) {
            store.put(b(k), b(k));
        }
        try (Transaction txn = store.beginTransaction()) {
            if (lmdb()) {
                txn.deleteRange(store.defaultColumnFamily(), b("a"), b("c"));
                assertNull(txn.get(b("b")));
                txn.commit();
            } else {
                assertThrows(FerryException.NotSupported.class,
                        () -> txn.deleteRange(store.defaultColumnFamily(), b("a"), b("c")));
                assertEquals("b", s(txn.get(b("b")))); // nothing applied, still usable
            }
        }
        assertEquals(lmdb() ? null : "b", s(store.get(b("b"))));
        // and the store's own range delete works on a store with transactions
        store.deleteRange(b("a"), b("z"));
        assertNull(store.get(b("c")));
    }

    /**
     * The reads and writes a transaction has as a view like the store's (get and multiGet with
     * read options, valueCount, merge, the one-value delete): they see and make the transaction's
     * own writes, with the store's refusals.
     */
    @MatrixTest
    void viewMethodsSeeAndMakeTheTransactionsWrites() {
        ReadOptions hints = ReadOptions.DEFAULT.fillCache(false).verifyChecksums(true);
        byte[] one = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(1).array();
        ColumnFamily cf = lmdb() ? store.createColumnFamily("dup", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT))
                : store.defaultColumnFamily();
        try (Transaction t = store.beginTransaction()) {
            t.put(cf, b("k"), b("a"));
            t.put(cf, b("k"), b("b"));
            assertEquals(lmdb() ? "a" : "b", s(t.get(cf, b("k"), hints)), "read options are hints: the read sees the write");
            assertEquals(Arrays.asList(lmdb() ? "a" : "b", null),
                    t.multiGet(cf, List.of(b("k"), b("none")), hints).stream().map(v -> v == null ? null : s(v)).toList());
            assertEquals(lmdb() ? 2 : 1, t.valueCount(cf, b("k")));
            assertEquals(0, t.valueCount(cf, b("none")));
            if (lmdb()) {
                t.delete(cf, b("k"), b("a"));
                assertEquals(1, t.valueCount(cf, b("k")));
                assertEquals("b", s(t.get(cf, b("k"))));
            } else {
                assertThrows(FerryException.NotSupported.class, () -> t.delete(cf, b("k"), b("b")));
            }
            assertThrows(FerryException.NotSupported.class, () -> t.merge(b("n"), one), "no merge operator (LMDB: none at all)");
            t.commit();
        }
        assertNull(store.get(cf, b("none")));
        assertEquals("b", s(store.get(cf, b("k"))));
        assertEquals(1, store.valueCount(cf, b("k")));
        if (lmdb()) {
            return;
        }
        store.close();
        store = Store.open(dir.resolve("counter"), options().mergeOperator(MergeOperator.UINT64_ADD));
        try (Transaction t = store.beginTransaction()) {
            t.merge(b("n"), one);
            t.merge(store.defaultColumnFamily(), b("n"), one);
            t.commit();
        }
        assertEquals(2L, java.nio.ByteBuffer.wrap(store.get(b("n"))).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong());
    }

    /** Merge records in a transaction batch: merged at commit with an operator, refused without one (and on LMDB). */
    @MatrixTest
    void mergeInATransaction() {
        byte[] one = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(1).array();
        try (Transaction t = store.beginTransaction()) {
            t.put(b("keep"), b("v"));
            FerryException e = assertThrows(FerryException.NotSupported.class, () -> t.write(new WriteBatch().put(b("x"), b("1"))
                    .merge(b("n"), one)));
            assertTrue(e.getMessage().contains(lmdb() ? "LMDB" : "merge operator"), e.getMessage());
            assertNull(t.get(b("x")), "a refused batch applies nothing");
            t.commit();
        }
        assertEquals("v", s(store.get(b("keep"))), "the transaction stays usable after the refused batch");
        if (lmdb()) {
            return;
        }
        store.close();
        store = Store.open(dir.resolve("counter"), options().mergeOperator(MergeOperator.UINT64_ADD));
        store.put(b("n"), one);
        try (Transaction t = store.beginTransaction()) {
            t.write(new WriteBatch().merge(b("n"), one).merge(b("n"), one));
            t.commit();
        }
        assertEquals(3L, java.nio.ByteBuffer.wrap(store.get(b("n"))).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong());
    }

    /** LMDB duplicate-key families inside a transaction: the same checks and the same one-value deletes as store writes. */
    @MatrixTest
    void duplicateKeyFamiliesInATransaction() {
        if (!lmdb()) {
            ColumnFamily plain = store.createColumnFamily("plain");
            try (Transaction t = store.beginTransaction()) {
                assertThrows(FerryException.NotSupported.class, () -> t.write(new WriteBatch().delete(plain, b("k"), b("v"))));
            }
            return;
        }
        ColumnFamily dup = store.createColumnFamily("dup", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
        ColumnFamily fixed = store.createColumnFamily("fixed", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT, ColumnFamilyFlag.DUPFIXED));
        ColumnFamily plain = store.createColumnFamily("plain");
        try (Transaction t = store.beginTransaction()) {
            t.put(dup, b("k"), b("a"));
            t.put(dup, b("k"), b("b"));
            t.put(dup, b("k"), b("c"));
            t.write(new WriteBatch().delete(dup, b("k"), b("b")));
            t.put(fixed, b("k"), b("12"));
            assertThrows(FerryException.InvalidArgument.class, () -> t.put(fixed, b("k"), b("123")),
                    "a DUPFIXED key's values all have one size, in a transaction too");
            assertThrows(FerryException.InvalidArgument.class, () -> t.put(dup, b("big"), new byte[4096]),
                    "a DUPSORT value is limited to the key size, in a transaction too");
            assertThrows(FerryException.InvalidArgument.class, () -> t.write(new WriteBatch().delete(plain, b("k"), b("v"))));
            t.put(fixed, b("k"), b("34"));
            t.commit();
        }
        List<String> pairs = new ArrayList<>();
        try (Cursor c = store.cursor(dup, KeyRange.all(), null)) {
            while (c.next()) {
                pairs.add(s(c.keyBytes()) + "=" + s(c.valueBytes()));
            }
        }
        assertEquals(List.of("k=a", "k=c"), pairs);
        List<String> fixedValues = new ArrayList<>();
        try (Cursor c = store.cursor(fixed, KeyRange.all(), null)) {
            while (c.next()) {
                fixedValues.add(s(c.valueBytes()));
            }
        }
        assertEquals(List.of("12", "34"), fixedValues);
    }

    @MatrixTest
    void commitEndsTheTransaction() {
        Transaction txn = store.beginTransaction();
        txn.put(b("k"), b("v"));
        Cursor c = txn.cursor(KeyRange.all());
        assertTrue(c.first());
        txn.commit();
        assertTrue(txn.isEnded());
        assertTrue(c.isClosed());
        assertThrows(IllegalStateException.class, c::first);
        assertThrows(IllegalStateException.class, txn::commit);
        assertThrows(IllegalStateException.class, () -> txn.put(b("k"), b("w")));
        assertThrows(IllegalStateException.class, () -> txn.get(b("k")));
        assertThrows(IllegalStateException.class, () -> txn.cursor(KeyRange.all()));
        txn.close();
        txn.close();
        assertThrows(IllegalStateException.class, () -> txn.get(b("k")));
        assertEquals("v", s(store.get(b("k"))));
    }

    @MatrixTest
    void otherThreadsCannotUseTheTransaction() throws Exception {
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("k"), b("v"));
            Cursor c = txn.cursor(KeyRange.all());
            AtomicReference<Throwable> t = new AtomicReference<>();
            Thread th = new Thread(() -> {
                try {
                    txn.put(b("x"), b("y"));
                    t.set(new AssertionError("put on another thread"));
                } catch (IllegalStateException expected) {
                    try {
                        c.first();
                        t.set(new AssertionError("cursor on another thread"));
                    } catch (IllegalStateException expected2) {
                        // ok
                    }
                }
            });
            th.start();
            th.join();
            if (t.get() != null) {
                throw new AssertionError(t.get());
            }
            txn.commit();
        }
        assertEquals("v", s(store.get(b("k"))));
        assertNull(store.get(b("x")));
    }

    @MatrixTest
    void storeWithoutTransactionsSaysSo() {
        if (lmdb()) {
            return; // LMDB always has its write transaction
        }
        try (Store plain = Store.open(dir.resolve("plain"), StoreOptions.rocksdb().binding(options().binding))) {
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, plain::beginTransaction);
            assertTrue(e.getMessage().contains("transactions"), e.getMessage());
        }
    }

    @MatrixTest
    void aReadOnlyStoreHasNoTransactions() {
        store.put(b("k"), b("v"));
        store.close();
        try (Store ro = Store.open(dir.resolve("db"), options().readOnly(true))) {
            assertThrows(FerryException.ReadOnly.class, ro::beginTransaction);
            assertEquals("v", s(ro.get(b("k"))));
        } finally {
            store = Store.open(dir.resolve("db"), options());
        }
    }

    @MatrixTest
    void lmdbHasOneWriter() throws Exception {
        if (!lmdb()) {
            return;
        }
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("k"), b("v"));
            // this thread's own plain write would wait for itself
            assertThrows(FerryException.Busy.class, () -> store.put(b("p"), b("q")));
            assertThrows(FerryException.Busy.class, () -> store.createColumnFamily("fam"));
            assertThrows(FerryException.Busy.class, store::beginTransaction);
            assertThrows(FerryException.Busy.class, () -> store.checkpoint(dir.resolve("cp")));
            assertThrows(FerryException.Busy.class, () -> store.checkpoint(dir.resolve("cp2"), true));
            assertEquals("v", s(txn.get(b("k"))));
            // reads beside the transaction see the committed state
            assertNull(store.get(b("k")));
            ExecutorService ex = Executors.newSingleThreadExecutor();
            try {
                assertThrows(FerryException.Busy.class, unwrap(ex.submit(() -> store.beginTransaction(0))));
                assertThrows(FerryException.TimedOut.class, unwrap(ex.submit(() -> store.beginTransaction(100))));
                // a plain write on another thread waits for the commit
                CountDownLatch started = new CountDownLatch(1);
                Future<?> put = ex.submit(() -> {
                    started.countDown();
                    store.put(b("other"), b("o"));
                });
                started.await();
                Thread.sleep(100);
                assertFalse(put.isDone());
                txn.commit();
                put.get(10, TimeUnit.SECONDS);
            } finally {
                ex.shutdownNow();
            }
        }
        assertEquals("o", s(store.get(b("other"))));
        assertEquals("v", s(store.get(b("k"))));
    }

    @MatrixTest
    void lmdbMapFullFailsTheTransactionAndInTransactionRunsItAgain() {
        if (!lmdb()) {
            return;
        }
        StoreOptions small = StoreOptions.lmdb().binding(options().binding).mapSize(1L << 20).autoGrow(1L << 20);
        try (Store s = Store.open(dir.resolve("small"), small)) {
            byte[] v = bytes(1000);
            try (Transaction txn = s.beginTransaction()) {
                FerryException.MapFull full = assertThrows(FerryException.MapFull.class, () -> {
                    for (int i = 0; i < 1500; i++) {
                        txn.put(b(String.format("k%05d", i)), v);
                    }
                });
                assertTrue(full.getMessage().contains("transaction"), full.getMessage());
                assertThrows(IllegalStateException.class, () -> txn.get(b("k00000")));
                assertThrows(IllegalStateException.class, () -> txn.put(b("x"), v));
            }
            int[] attempts = {0};
            s.inTransaction(txn -> {
                attempts[0]++;
                for (int i = 0; i < 1500; i++) {
                    txn.put(b(String.format("k%05d", i)), v);
                }
                return null;
            });
            assertTrue(attempts[0] >= 1);
            assertEquals(1500, s.estimatedKeyCount());
        }
    }

    @MatrixTest
    void pessimisticLocksTimeOutAndDeadlocksAreTyped() throws Exception {
        if (!pessimistic()) {
            return;
        }
        store.put(b("a"), b("0"));
        store.put(b("b"), b("0"));
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try (Transaction txn = store.beginTransaction()) {
            assertEquals("0", s(txn.getForUpdate(b("a"))));
            // a plain write of the locked key and another transaction's both time out
            assertThrows(FerryException.TimedOut.class, unwrap(ex.submit(() -> store.put(b("a"), b("x")))));
            assertThrows(FerryException.TimedOut.class, unwrap(ex.submit(() -> {
                try (Transaction other = store.beginTransaction(50)) {
                    other.put(b("a"), b("x"));
                }
            })));
            // deadlock: this one holds a and wants b, the other holds b and wants a
            CountDownLatch holdsB = new CountDownLatch(1);
            Future<?> other = ex.submit(() -> {
                try (Transaction t2 = store.beginTransaction(5000)) {
                    t2.put(b("b"), b("2"));
                    holdsB.countDown();
                    t2.put(b("a"), b("2"));
                    t2.commit();
                }
                return null;
            });
            holdsB.await();
            Thread.sleep(100);
            FerryException mine = null;
            try {
                txn.put(b("b"), b("1"));
            } catch (FerryException e) {
                mine = e;
            }
            FerryException theirs = null;
            if (mine == null) {
                try {
                    other.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    theirs = (FerryException) e.getCause();
                }
            }
            FerryException dead = mine != null ? mine : theirs;
            if (dead == null) {
                fail("no deadlock reported");
            }
            assertTrue(dead instanceof FerryException.Deadlock, dead.toString());
            assertEquals(ErrorCode.DEADLOCK, dead.code());
        } finally {
            ex.shutdownNow();
            ex.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @MatrixTest
    void optimisticCommitConflicts() {
        if (!optimistic()) {
            return;
        }
        store.put(b("a"), b("0"));
        try (Transaction txn = store.beginTransaction()) {
            assertEquals("0", s(txn.getForUpdate(b("a"))));
            txn.put(b("a"), b("1"));
            store.put(b("a"), b("other"));
            FerryException.Conflict e = assertThrows(FerryException.Conflict.class, txn::commit);
            assertEquals(ErrorCode.CONFLICT, e.code());
            assertThrows(IllegalStateException.class, () -> txn.get(b("a")));
        }
        assertEquals("other", s(store.get(b("a"))));
    }

    @MatrixTest
    void inTransactionRetriesConflicts() throws Exception {
        store.put(b("n"), b("0"));
        int threads = 4;
        int each = 50;
        ExecutorService ex = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(ex.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        store.inTransaction(10_000, txn -> {
                            long n = Long.parseLong(s(txn.getForUpdate(b("n"))));
                            txn.put(b("n"), b(Long.toString(n + 1)));
                            return n;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            ex.shutdownNow();
        }
        assertEquals(Integer.toString(threads * each), s(store.get(b("n"))));
        // a body's own exception rolls back and is not retried
        int[] runs = {0};
        assertThrows(ArithmeticException.class, () -> store.inTransaction(txn -> {
            runs[0]++;
            txn.put(b("n"), b("x"));
            return 1 / 0;
        }));
        assertEquals(1, runs[0]);
        assertEquals(Integer.toString(threads * each), s(store.get(b("n"))));
        // a body that commits itself
        assertEquals("done", store.inTransaction(txn -> {
            txn.put(b("self"), b("1"));
            txn.commit();
            return "done";
        }));
        assertEquals("1", s(store.get(b("self"))));
    }

    @MatrixTest
    void storeCloseClosesAnOpenTransaction() {
        Transaction txn = store.beginTransaction();
        txn.put(b("k"), b("v"));
        Cursor c = txn.cursor(KeyRange.all());
        assertTrue(c.first());
        store.close();
        assertTrue(txn.isClosed());
        assertThrows(IllegalStateException.class, () -> txn.get(b("k")));
        assertThrows(IllegalStateException.class, c::first);
        store = Store.open(dir.resolve("db"), options());
        assertNull(store.get(b("k")));
        store.put(b("k2"), b("v2"));
    }

    @MatrixTest
    void storeCloseOnAnotherThreadWhileATransactionIsOpen() throws Exception {
        CountDownLatch begun = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Throwable> after = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            Transaction txn = store.beginTransaction();
            txn.put(b("k"), b("v"));
            Cursor c = txn.cursor(KeyRange.all());
            c.first();
            begun.countDown();
            try {
                closed.await();
                txn.put(b("k2"), b("v2"));
                after.set(new AssertionError("put after the store closed"));
            } catch (IllegalStateException expected) {
                try {
                    c.next();
                    after.set(new AssertionError("cursor after the store closed"));
                } catch (IllegalStateException expected2) {
                    // ok
                }
            } catch (Throwable e) {
                after.set(e);
            }
        });
        owner.start();
        begun.await();
        // another thread waiting to write (LMDB: for the write lock) must not hold the close up
        Thread writer = new Thread(() -> {
            try {
                store.put(b("w"), b("w"));
            } catch (RuntimeException expected) {
                // Busy (LMDB: the transaction was abandoned) or closed
            }
        });
        writer.start();
        Thread.sleep(50);
        store.close();
        closed.countDown();
        owner.join(30_000);
        writer.join(30_000);
        assertFalse(owner.isAlive());
        assertFalse(writer.isAlive());
        if (after.get() != null) {
            throw new AssertionError(after.get());
        }
        try {
            store = Store.open(dir.resolve("db"), options());
        } catch (FerryException.Busy e) {
            // LMDB, when the engine's close ran on this thread: only the owner thread can release
            // LMDB's write lock, so the environment stays open in this process (closing it under
            // that thread crashed it later) and the path cannot be opened again
            assertTrue(lmdb(), e.getMessage());
            store = Store.open(dir.resolve("db2"), options());
            return;
        }
        assertNull(store.get(b("k")));
        store.put(b("k3"), b("v3"));
        try (Transaction txn = store.beginTransaction(5000)) {
            txn.put(b("k4"), b("v4"));
            txn.commit();
        }
        assertEquals("v4", s(store.get(b("k4"))));
    }

    /**
     * LMDB: a store closed on one thread while another thread's write transaction is open. Only
     * that thread can release LMDB's write lock (a robust mutex it holds); closing the environment
     * under it made its next lock of any robust mutex write into unmapped memory (a JVM crash the
     * misuse fuzzer found). The environment stays open in the process instead: the path is Busy.
     */
    @MatrixTest
    void lmdbStoreClosedUnderAnotherThreadsTransactionStaysOpenInTheProcess(@TempDir(cleanup = CleanupMode.NEVER) Path kept) throws Exception {
        if (!lmdb()) {
            Files.delete(kept);
            return;
        }
        // The environment stays open until the process exits, and Windows cannot delete open files:
        // on Windows it lives in a directory that JUnit does not try to delete.
        Path dir = OS.WINDOWS.isCurrentOs() ? kept : this.dir;
        if (dir == kept) {
            store.close();
            store = Store.open(dir.resolve("db"), options());
        } else {
            Files.delete(kept);
        }
        CountDownLatch begun = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Throwable> after = new AtomicReference<>();
        Thread owner = new Thread(() -> {
            Transaction t = store.beginTransaction();
            t.put(b("k"), b("v"));
            begun.countDown();
            try {
                closed.await();
                t.put(b("k2"), b("v2"));
                after.set(new AssertionError("put after the store closed"));
            } catch (IllegalStateException expected) {
                // the store closed its transactions
            } catch (Throwable e) {
                after.set(e);
            }
        });
        owner.start();
        begun.await();
        store.close();
        FerryException e = assertThrows(FerryException.Busy.class, () -> Store.open(dir.resolve("db"), options()));
        assertTrue(e.getMessage().contains("already open in this process"), e.getMessage());
        closed.countDown();
        owner.join(30_000);
        assertFalse(owner.isAlive());
        if (after.get() != null) {
            throw new AssertionError(after.get());
        }
        store = Store.open(dir.resolve("other"), options());
        store.put(b("a"), b("1"));
        assertEquals("1", s(store.get(b("a"))));
    }

    @MatrixTest
    void aTransactionLeftToTheCleanerIsRolledBack() throws Exception {
        beginAndDrop();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        boolean done = false;
        while (!done && System.nanoTime() < until) {
            System.gc();
            Thread.sleep(20);
            try {
                // LMDB: Busy until the cleaner abandoned it; then this (its) thread's write rolls it back
                store.put(b("after"), b("1"));
                done = true;
            } catch (FerryException.Busy | FerryException.TimedOut e) {
                // not cleaned yet
            }
        }
        assertTrue(done, "the leaked transaction was never cleaned");
        assertNull(store.get(b("leaked")));
        try (Transaction txn = store.beginTransaction(5000)) {
            txn.put(b("k"), b("v"));
            txn.commit();
        }
        assertEquals("v", s(store.get(b("k"))));
    }

    private void beginAndDrop() {
        Transaction txn = store.beginTransaction();
        txn.put(b("leaked"), b("x"));
        if (pessimistic()) {
            txn.getForUpdate(b("after")); // holds the key lock the put above waits for
        }
    }

    @MatrixTest
    void plainCallsWorkOnAStoreWithTransactions() {
        ColumnFamily cf = store.createColumnFamily("f");
        store.put(cf, b("a"), b("1"));
        try (Snapshot snap = store.snapshot()) {
            store.put(cf, b("a"), b("2"));
            assertEquals("1", s(snap.get(cf, b("a"))));
        }
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(cf, b("b"), b("2")).deleteRange(cf, b("a"), b("b"));
            store.write(wb);
        }
        try (Cursor c = store.cursor(cf, KeyRange.all(), null)) {
            assertEquals(List.of("b"), keys(c));
        }
        store.checkpoint(dir.resolve("cp"));
        store.dropColumnFamily(cf);
        store.flush();
        try (Store cp = Store.open(dir.resolve("cp"), options())) {
            assertArrayEquals(b("2"), cp.get(cp.columnFamily("f").orElseThrow(), b("b")));
        }
    }

    @MatrixTest
    void aDroppedFamilyFailsTheCommit() {
        if (lmdb()) {
            return; // an LMDB transaction excludes the drop (one writer)
        }
        ColumnFamily cf = store.createColumnFamily("f");
        try (Transaction txn = store.beginTransaction()) {
            txn.put(cf, b("k"), b("v"));
            store.dropColumnFamily(cf);
            assertThrows(RuntimeException.class, txn::commit);
        }
        store.put(b("still"), b("writable"));
        assertEquals("writable", s(store.get(b("still"))));
    }

    // ---- savepoints ----

    @MatrixTest
    void rollbackToSavePointUndoesTheWritesSinceIt() {
        ColumnFamily cf = store.createColumnFamily("f");
        store.put(b("a"), b("0"));
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("a"), b("1"));
            txn.setSavePoint();
            txn.put(b("b"), b("2"));
            txn.delete(b("a"));
            txn.put(cf, b("c"), b("3"));
            assertNull(txn.get(b("a")));
            txn.rollbackToSavePoint();
            assertEquals("1", s(txn.get(b("a"))));
            assertNull(txn.get(b("b")));
            assertNull(txn.get(cf, b("c")));
            txn.put(b("d"), b("4")); // the transaction goes on after the rollback
            txn.commit();
        }
        assertEquals("1", s(store.get(b("a"))));
        assertNull(store.get(b("b")));
        assertNull(store.get(cf, b("c")));
        assertEquals("4", s(store.get(b("d"))));
    }

    @MatrixTest
    void savePointsNestAndEachRollbackRemovesOne() {
        try (Transaction txn = store.beginTransaction()) {
            txn.setSavePoint();
            txn.put(b("x"), b("1"));
            txn.setSavePoint();
            txn.put(b("y"), b("2"));
            txn.put(b("x"), b("changed"));
            txn.rollbackToSavePoint();
            assertEquals("1", s(txn.get(b("x"))));
            assertNull(txn.get(b("y")));
            txn.rollbackToSavePoint();
            assertNull(txn.get(b("x")));
            FerryException.NotFound e = assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
            assertTrue(e.getMessage().contains("no savepoint"), e.getMessage());
            txn.put(b("z"), b("3"));
            txn.commit();
        }
        assertNull(store.get(b("x")));
        assertEquals("3", s(store.get(b("z"))));
    }

    @MatrixTest
    void popKeepsTheWritesForTheSavePointBelow() {
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("a"), b("1"));
            txn.setSavePoint();
            txn.put(b("b"), b("2"));
            txn.setSavePoint();
            txn.put(b("c"), b("3"));
            txn.popSavePoint();
            assertEquals("3", s(txn.get(b("c"))));
            txn.rollbackToSavePoint(); // to the first savepoint: b and c both go
            assertEquals("1", s(txn.get(b("a"))));
            assertNull(txn.get(b("b")));
            assertNull(txn.get(b("c")));
            txn.setSavePoint();
            txn.put(b("d"), b("4"));
            txn.popSavePoint();
            assertThrows(FerryException.NotFound.class, txn::popSavePoint);
            assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
            txn.commit();
        }
        assertEquals("1", s(store.get(b("a"))));
        assertNull(store.get(b("b")));
        assertEquals("4", s(store.get(b("d"))));
    }

    @MatrixTest
    void withoutASavePointRollbackAndPopThrowAndChangeNothing() {
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("k"), b("v"));
            FerryException.NotFound r = assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
            assertEquals(ErrorCode.NOT_FOUND, r.code());
            assertThrows(FerryException.NotFound.class, txn::popSavePoint);
            assertEquals("v", s(txn.get(b("k"))));
            txn.commit();
        }
        assertEquals("v", s(store.get(b("k"))));
    }

    @MatrixTest
    void commitWithOpenSavePointsCommitsEverythingAndCloseRollsBackEverything() {
        try (Transaction txn = store.beginTransaction()) {
            txn.setSavePoint();
            txn.put(b("a"), b("1"));
            txn.setSavePoint();
            txn.put(b("b"), b("2"));
            txn.commit();
        }
        assertEquals("1", s(store.get(b("a"))));
        assertEquals("2", s(store.get(b("b"))));
        try (Transaction txn = store.beginTransaction()) {
            txn.put(b("c"), b("3"));
            txn.setSavePoint();
            txn.put(b("d"), b("4"));
            txn.setSavePoint();
        }
        assertNull(store.get(b("c")));
        assertNull(store.get(b("d")));
        store.put(b("e"), b("5")); // the store takes writes again (LMDB: the nested transactions ended too)
        assertEquals("5", s(store.get(b("e"))));
    }

    @MatrixTest
    void rollbackUndoesWholeBatchesWrittenAfterTheSavePoint() {
        try (Transaction txn = store.beginTransaction()) {
            try (WriteBatch wb = new WriteBatch()) {
                txn.write(wb.put(b("before1"), b("1")).put(b("before2"), b("2")));
            }
            txn.setSavePoint();
            txn.put(b("first"), b("0")); // a write between the savepoint and the batch's own (RocksDB)
            try (WriteBatch wb = new WriteBatch()) {
                txn.write(wb.put(b("in1"), b("1")).put(b("in2"), b("2")).delete(b("before1")));
            }
            txn.put(b("single"), b("3"));
            txn.rollbackToSavePoint();
            assertEquals("1", s(txn.get(b("before1"))));
            assertEquals("2", s(txn.get(b("before2"))));
            assertNull(txn.get(b("in1")));
            assertNull(txn.get(b("in2")));
            assertNull(txn.get(b("single")));
            assertNull(txn.get(b("first")));
            assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
            txn.commit();
        }
        assertEquals("1", s(store.get(b("before1"))));
        assertNull(store.get(b("in1")));
    }

    @MatrixTest
    void savePointCallsAfterTheEndOrOnAnotherThreadThrow() throws Exception {
        Transaction txn = store.beginTransaction();
        txn.setSavePoint();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            for (Runnable call : List.<Runnable>of(txn::setSavePoint, txn::rollbackToSavePoint, txn::popSavePoint)) {
                Future<?> f = other.submit(call);
                assertThrows(IllegalStateException.class, unwrap(f));
            }
        } finally {
            other.shutdownNow();
        }
        txn.put(b("k"), b("v"));
        txn.commit();
        assertThrows(IllegalStateException.class, txn::setSavePoint);
        assertThrows(IllegalStateException.class, txn::rollbackToSavePoint);
        assertThrows(IllegalStateException.class, txn::popSavePoint);
        txn.close();
        assertThrows(IllegalStateException.class, txn::setSavePoint);
        assertThrows(IllegalStateException.class, txn::rollbackToSavePoint);
        assertThrows(IllegalStateException.class, txn::popSavePoint);
        assertEquals("v", s(store.get(b("k"))));
    }

    @MatrixTest
    void cursorsGoOnAcrossRollbackAndPop() {
        for (String k : List.of("a", "c", "e")) {
            store.put(b(k), b("0"));
        }
        try (Transaction txn = store.beginTransaction()) {
            Cursor before = txn.cursor(store.defaultColumnFamily(), KeyRange.all(), null);
            assertTrue(before.next());
            assertEquals("a", s(before.keyBytes()));
            txn.setSavePoint();
            txn.put(b("b"), b("1"));
            txn.put(b("d"), b("1"));
            Cursor inside = txn.cursor(store.defaultColumnFamily(), KeyRange.all(), null);
            assertTrue(inside.next());
            assertTrue(inside.next());
            assertEquals("b", s(inside.keyBytes()));
            txn.rollbackToSavePoint();
            // both continue after the key they stood on, in the rolled-back state
            assertTrue(before.next());
            assertEquals("c", s(before.keyBytes()));
            assertTrue(inside.next());
            assertEquals("c", s(inside.keyBytes()));
            txn.setSavePoint();
            Cursor third = txn.cursor(store.defaultColumnFamily(), KeyRange.all(), null);
            assertTrue(third.first());
            txn.put(b("f"), b("1"));
            txn.popSavePoint();
            assertTrue(third.next());
            assertEquals("c", s(third.keyBytes()));
            assertTrue(third.next());
            assertTrue(third.next());
            assertEquals("f", s(third.keyBytes()));
            assertFalse(third.next());
            assertEquals(List.of("a", "c", "e", "f"), keys(inside));
            inside.close();
            txn.commit(); // closes the other cursors
            assertTrue(before.isClosed());
            assertTrue(third.isClosed());
        }
        try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), null)) {
            assertEquals(List.of("a", "c", "e", "f"), keys(c));
        }
    }

    @MatrixTest
    void savePointsAgreeWithAModelOnRandomOperations() {
        java.util.Random rnd = new java.util.Random(44);
        for (int round = 0; round < 20; round++) {
            java.util.TreeMap<String, String> model = new java.util.TreeMap<>();
            for (int i = 0; i < 8; i++) {
                String v = store.get(b("k" + i)) == null ? null : s(store.get(b("k" + i)));
                if (v != null) {
                    model.put("k" + i, v);
                }
            }
            java.util.ArrayDeque<java.util.TreeMap<String, String>> marks = new java.util.ArrayDeque<>();
            try (Transaction txn = store.beginTransaction()) {
                for (int step = 0; step < 40; step++) {
                    String k = "k" + rnd.nextInt(8);
                    String v = round + "." + step;
                    switch (rnd.nextInt(8)) {
                        case 0, 1 -> {
                            txn.put(b(k), b(v));
                            model.put(k, v);
                        }
                        case 2 -> {
                            txn.delete(b(k));
                            model.remove(k);
                        }
                        case 3 -> {
                            String k2 = "k" + rnd.nextInt(8);
                            try (WriteBatch wb = new WriteBatch()) {
                                txn.write(wb.put(b(k), b(v)).delete(b(k2)));
                            }
                            model.put(k, v);
                            model.remove(k2);
                        }
                        case 4 -> {
                            txn.setSavePoint();
                            marks.push(new java.util.TreeMap<>(model));
                        }
                        case 5 -> {
                            if (marks.isEmpty()) {
                                assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
                            } else {
                                txn.rollbackToSavePoint();
                                model = marks.pop();
                            }
                        }
                        case 6 -> {
                            if (marks.isEmpty()) {
                                assertThrows(FerryException.NotFound.class, txn::popSavePoint);
                            } else {
                                txn.popSavePoint();
                                marks.pop();
                            }
                        }
                        default -> {
                            try (Cursor c = txn.cursor(store.defaultColumnFamily(), KeyRange.all(), null)) {
                                assertEquals(new ArrayList<>(model.keySet()), keys(c), "round " + round + " step " + step);
                            }
                        }
                    }
                    assertEquals(model.get(k), s(txn.get(b(k))), "round " + round + " step " + step + " key " + k);
                }
                if (rnd.nextBoolean()) {
                    txn.commit();
                } else {
                    model = null;
                }
            }
            if (model != null) {
                for (int i = 0; i < 8; i++) {
                    assertEquals(model.get("k" + i), s(store.get(b("k" + i))), "round " + round + " after commit");
                }
            }
        }
    }

    @MatrixTest
    void lmdbWithWriteMapHasNoSavePoints() throws Exception {
        if (!lmdb()) {
            return;
        }
        try (Store wm = Store.open(dir.resolve("writemap"), options().lmdbFlags(java.util.EnumSet.of(LmdbFlag.WRITEMAP)));
                Transaction txn = wm.beginTransaction()) {
            txn.put(b("k"), b("v"));
            FerryException.NotSupported e = assertThrows(FerryException.NotSupported.class, txn::setSavePoint);
            assertTrue(e.getMessage().contains("WRITEMAP"), e.getMessage());
            assertThrows(FerryException.NotFound.class, txn::rollbackToSavePoint);
            txn.commit();
            assertEquals("v", s(wm.get(b("k"))));
        }
    }

    private static org.junit.jupiter.api.function.Executable unwrap(Future<?> f) {
        return () -> {
            try {
                f.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause();
            }
        };
    }

    static byte[] bytes(int n) {
        byte[] a = new byte[n];
        Arrays.fill(a, (byte) 'x');
        return a;
    }
}
