package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Open, close and misuse: the other engine's directory and options, read-only stores, second opens, calls on
 * closed objects, null and out-of-range arguments; threads and lifetimes (issue 14): cursors used, closed and
 * leaked across threads, views and buffers that outlive their entry.
 */
class LifecycleContractTest extends StoreContract {
    /**
     * A directory that holds the other engine's store is refused, naming that engine and the
     * directory, and nothing is created in it.
     */
    @MatrixTest
    @NeedsRocksDb
    void openingADirectoryOfTheOtherEngineIsRefusedNamingIt() throws Exception {
        Engine mine = options().engine();
        Engine other = mine == Engine.ROCKSDB ? Engine.LMDB : Engine.ROCKSDB;
        Path p = dir.resolve("other");
        try (Store o = Store.open(p, StoreOptions.of(other).binding(options().binding))) {
            o.put(b("k"), b("v"));
        }
        List<String> before;
        try (var files = java.nio.file.Files.list(p)) {
            before = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        String otherName = other == Engine.ROCKSDB ? "RocksDB" : "LMDB";
        for (StoreOptions o : List.of(options(), options().createIfMissing(false), options().readOnly(true))) {
            FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(p, o));
            assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("holds a" + (other == Engine.LMDB ? "n " : " ") + otherName + " store"), e.getMessage());
        }
        try (var files = java.nio.file.Files.list(p)) {
            assertEquals(before, files.map(f -> f.getFileName().toString()).sorted().toList(), "nothing created");
        }
        try (Store o = Store.open(p, StoreOptions.of(other).binding(options().binding))) {
            assertEquals("v", s(o.get(b("k"))));
        }
    }

    /** Every option of the other engine throws at once, naming the option and both engines. */
    @MatrixTest
    void optionsOfTheOtherEngineAreRejectedNamingThem() {
        boolean rocks = options().engine() == Engine.ROCKSDB;
        Map<String, java.util.function.Consumer<StoreOptions>> foreign = new TreeMap<>();
        Map<String, java.util.function.Consumer<StoreOptions>> own = new TreeMap<>();
        Map<String, java.util.function.Consumer<StoreOptions>> rocksdb = rocks ? own : foreign;
        Map<String, java.util.function.Consumer<StoreOptions>> lmdb = rocks ? foreign : own;
        rocksdb.put("blockCacheSize", o -> o.blockCacheSize(1 << 20));
        rocksdb.put("compression", o -> o.compression(Compression.LZ4));
        rocksdb.put("wal", o -> o.wal(true));
        rocksdb.put("bloomBitsPerKey", o -> o.bloomBitsPerKey(10));
        rocksdb.put("maxOpenFiles", o -> o.maxOpenFiles(64));
        rocksdb.put("rocksdbOptions", o -> o.rocksdbOptions("write_buffer_size=1048576"));
        rocksdb.put("mergeOperator", o -> o.mergeOperator(MergeOperator.UINT64_ADD));
        rocksdb.put("statistics", o -> o.statistics(true));
        rocksdb.put("readaheadSize", o -> o.readaheadSize(1 << 20));
        lmdb.put("mapSize", o -> o.mapSize(1L << 20));
        lmdb.put("maxColumnFamilies", o -> o.maxColumnFamilies(4));
        lmdb.put("maxReaders", o -> o.maxReaders(16));
        lmdb.put("lmdbFlags", o -> o.lmdbFlags(java.util.EnumSet.of(LmdbFlag.NORDAHEAD)));
        lmdb.put("autoGrow", o -> o.autoGrow(1 << 20));
        String mine = rocks ? "RocksDB" : "LMDB";
        String theirs = rocks ? "LMDB" : "RocksDB";
        for (var f : foreign.entrySet()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.getValue().accept(options()), f.getKey());
            assertTrue(e.getMessage().contains("StoreOptions." + f.getKey() + " is a") && e.getMessage().contains(theirs + " option")
                    && e.getMessage().contains("for " + mine), e.getMessage());
        }
        for (var f : own.entrySet()) {
            f.getValue().accept(options()); // the engine's own options are taken
        }
        // options of both engines
        options().createIfMissing(true).errorIfExists(false).readOnly(false).syncWrites(false).pageSize(4096).binding(null);
    }

    @MatrixTest
    void errorIfExistsThrowsAlreadyExists() {
        store.close();
        FerryException e = assertThrows(FerryException.AlreadyExists.class,
                () -> Store.open(dir.resolve("db"), options().errorIfExists(true)));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
    }

    @MatrixTest
    void readOnlyStoreRejectsWrites() {
        store.put(b("k"), b("v"));
        store.close();
        store = Store.open(dir.resolve("db"), options().readOnly(true));
        assertEquals("v", s(store.get(b("k"))));
        FerryException e = assertThrows(FerryException.ReadOnly.class, () -> store.put(b("k"), b("w")));
        assertEquals(ErrorCode.READ_ONLY, e.code());
    }

    @MatrixTest
    void readOnlyStoreOfACompactedDatabaseServesEveryRead() {
        // RocksDB serves a fully compacted database opened read-only with only the default family
        // from its CompactedDBImpl, which refuses any merge operator: Ferry opens it without its
        // refusing operator when the database holds no merge operand, and says so in the property
        // "ferry.compacted-read-only"; every read must work on it
        TreeMap<byte[], byte[]> model = new TreeMap<>(UNSIGNED);
        for (int i = 0; i < 3000; i++) {
            byte[] k = b(String.format("r%05d", i * 7 % 3001));
            byte[] v = b("value-" + i);
            store.put(k, v);
            model.put(k, v);
        }
        store.flush();
        store.compactRange();
        store.close();
        store = Store.open(dir.resolve("db"), options().readOnly(true));
        if (options().engine() == Engine.ROCKSDB) {
            assertEquals(1, store.propertyLong(store.defaultColumnFamily(), "ferry.compacted-read-only").orElse(-1));
        }
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertEquals(s(e.getValue()), s(store.get(e.getKey())));
        }
        assertNull(store.get(b("r99999")));
        List<byte[]> some = new ArrayList<>(List.of(b("r00007"), b("nope"), b("r00014")));
        List<byte[]> got = store.multiGet(some);
        assertEquals(s(model.get(b("r00007"))), s(got.get(0)));
        assertNull(got.get(1));
        assertEquals(s(model.get(b("r00014"))), s(got.get(2)));
        List<String> all = new ArrayList<>();
        model.keySet().forEach(k -> all.add(s(k)));
        try (Cursor c = store.cursor()) {
            assertEquals(all, keys(c, true));
            List<String> rev = new ArrayList<>(all);
            java.util.Collections.reverse(rev);
            assertEquals(rev, keys(c, false));
        }
        try (Cursor c = store.cursor(KeyRange.closedOpen(b("r01000"), b("r01010")))) {
            assertEquals(all.subList(1000, 1010), keys(c, true));
        }
        try (Snapshot snap = store.snapshot(); Cursor c = snap.cursor(KeyRange.all())) {
            assertEquals(s(model.get(b("r02000"))), s(snap.get(b("r02000"))));
            assertTrue(c.seek(b("r02000")));
            assertEquals("r02000", s(c.keyBytes()));
            assertTrue(c.seekForPrev(b("r020005")));
            assertEquals("r02000", s(c.keyBytes()));
        }
        assertThrows(FerryException.ReadOnly.class, () -> store.delete(b("r00007")));
    }

    @MatrixTest
    void secondOpenOfAnOpenStoreFailsCleanly() {
        // RocksDB refuses through its LOCK file; LMDB must never be opened twice in one
        // process (it would break its locks), so Ferry refuses before calling it. Both say it in
        // the same words.
        FerryException e = assertThrows(FerryException.Busy.class, () -> Store.open(dir.resolve("db"), options()));
        assertTrue(e.getMessage().contains(store.path() + " is already open in this process: share that Store instead"),
                e.getMessage());
        store.close();
        Store.open(dir.resolve("db"), options()).close();
        store = Store.open(dir.resolve("db"), options());
    }

    /**
     * A store closed while another thread owns a cursor keeps its engine open until that thread next
     * uses the cursor: an open of the same directory meanwhile is refused as busy and says why, and
     * succeeds once the owner has let the cursor go.
     */
    @MatrixTest
    void reopenWhileACursorOfAnotherThreadHoldsTheEngineSaysWhy() throws Exception {
        store.put(b("held"), b("v"));
        java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        Store st = store;
        Thread owner = new Thread(() -> {
            try {
                Cursor c = st.cursor();
                c.first();
                opened.countDown();
                closed.await();
                c.next();
                unexpected.set(new AssertionError("a cursor of a closed store moved"));
            } catch (IllegalStateException expected) {
                // the store was closed: this use lets the engine go
            } catch (Throwable t) {
                unexpected.set(t);
            }
        });
        owner.start();
        assertTrue(opened.await(30, java.util.concurrent.TimeUnit.SECONDS));
        store.close();
        FerryException e = assertThrows(FerryException.Busy.class, () -> Store.open(dir.resolve("db"), options()));
        assertTrue(e.getMessage().contains("that Store was closed, but a cursor that another thread owns still holds its engine open"),
                e.getMessage());
        closed.countDown();
        owner.join();
        if (unexpected.get() != null) {
            throw new AssertionError(unexpected.get());
        }
        store = Store.open(dir.resolve("db"), options());
        assertArrayEquals(b("v"), store.get(b("held")));
        // a store busy for another reason says nothing of a close
        FerryException again = assertThrows(FerryException.Busy.class, () -> Store.open(dir.resolve("db"), options()));
        assertFalse(again.getMessage().contains("was closed"), again.getMessage());
    }

    @MatrixTest
    void missingStoreWithoutCreateThrowsNotFound() {
        Path missing = dir.resolve("nothing-here");
        for (StoreOptions o : List.of(options().createIfMissing(false), options().readOnly(true))) {
            FerryException e = assertThrows(FerryException.NotFound.class, () -> Store.open(missing, o));
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
            assertTrue(e.getMessage().contains(o.readOnly ? "read-only" : "createIfMissing"), e.getMessage());
            assertFalse(java.nio.file.Files.exists(missing), "a failed open leaves nothing behind");
        }
    }

    @MatrixTest
    void mapSizeTheProcessCannotMapNamesTheOption() {
        Path p = dir.resolve("huge-map");
        if (options().engine() != Engine.LMDB) {
            assertThrows(IllegalArgumentException.class, () -> options().mapSize(Long.MAX_VALUE)); // an LMDB option
            return;
        }
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(p, options().mapSize(Long.MAX_VALUE)));
        assertTrue(e.getMessage().contains("map size of " + Long.MAX_VALUE + " bytes (mapSize"), e.getMessage());
        Store.open(p, options()).close(); // nothing of the failed open is left in the way
    }

    @MatrixTest
    void everyCallOnAClosedStoreThrows() {
        ColumnFamily cf = store.defaultColumnFamily();
        store.close();
        store.close();
        assertTrue(store.isClosed());
        List<Runnable> calls = List.of(
            () -> store.get(b("k")), () -> store.put(b("k"), b("v")), () -> store.delete(b("k")),
            () -> store.deleteRange(b("a"), b("b")), () -> store.write(new WriteBatch()), () -> store.flush(),
            () -> store.compactRange(), () -> store.property("x"), () -> store.estimatedKeyCount(),
            () -> store.snapshot(), () -> store.cursor(), () -> store.scan(KeyRange.all(), (k, v) -> true),
            () -> store.multiGet(List.of(b("k"))), () -> store.createColumnFamily("x"), () -> store.columnFamilies(),
            () -> store.columnFamily("x"), () -> store.get(cf, ByteBuffer.wrap(b("k")), ByteBuffer.allocate(4)));
        for (Runnable r : calls) {
            assertThrows(IllegalStateException.class, r::run);
        }
    }

    @MatrixTest
    void closingStoreClosesItsCursorsAndSnapshots() {
        putAll("a", "1", "b", "2");
        Cursor c = store.cursor();
        assertTrue(c.first());
        View v = c.value();
        Snapshot snap = store.snapshot();
        Cursor sc = snap.cursor(KeyRange.all());
        store.close();
        assertTrue(c.isClosed());
        assertTrue(snap.isClosed());
        assertTrue(sc.isClosed());
        assertThrows(IllegalStateException.class, c::next);
        assertThrows(IllegalStateException.class, c::first);
        assertThrows(IllegalStateException.class, () -> v.getByte(0));
        assertThrows(IllegalStateException.class, () -> snap.get(b("a")));
        assertThrows(IllegalStateException.class, sc::first);
    }

    @MatrixTest
    void closedCursorSnapshotAndBatchThrow() {
        Cursor c = store.cursor();
        c.close();
        c.close();
        assertThrows(IllegalStateException.class, c::first);
        assertThrows(IllegalStateException.class, () -> c.seek(b("a")));
        assertThrows(IllegalStateException.class, c::key);
        Snapshot snap = store.snapshot();
        snap.close();
        snap.close();
        assertThrows(IllegalStateException.class, () -> snap.get(b("a")));
        assertThrows(IllegalStateException.class, () -> snap.cursor(KeyRange.all()));
        WriteBatch wb = new WriteBatch();
        wb.close();
        assertThrows(IllegalStateException.class, () -> wb.put(b("a"), b("b")));
        assertThrows(IllegalStateException.class, () -> store.write(wb));
    }

    @MatrixTest
    void nullArgumentsAndBadOffsetsThrowBeforeNativeCalls() {
        assertThrows(NullPointerException.class, () -> store.get((byte[]) null));
        assertThrows(NullPointerException.class, () -> store.put(null, b("v")));
        assertThrows(NullPointerException.class, () -> store.put(b("k"), null));
        assertThrows(NullPointerException.class, () -> store.get(null, b("k")));
        assertThrows(NullPointerException.class, () -> store.cursor(null));
        assertThrows(NullPointerException.class, () -> store.write(null));
        assertThrows(IndexOutOfBoundsException.class, () -> store.get(store.defaultColumnFamily(), b("key"), 2, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> store.get(store.defaultColumnFamily(), b("key"), -1, 1));
        assertThrows(IndexOutOfBoundsException.class,
            () -> store.put(store.defaultColumnFamily(), b("k"), 0, 1, b("v"), 1, 1));
        assertThrows(IllegalArgumentException.class, () -> store.get(b("k"), ByteBuffer.allocate(4).asReadOnlyBuffer()));
        try (Cursor c = store.cursor()) {
            assertThrows(NullPointerException.class, () -> c.seek(null));
        }
    }

    // ---- threads and lifetimes (issue 14) ----

    @MatrixTest
    void cursorUsedFromAnotherThreadIsDetected() throws Exception {
        putAll("a", "1");
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            AtomicReference<Throwable> err = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    c.next();
                } catch (Throwable e) {
                    err.set(e);
                }
            });
            t.start();
            t.join();
            assertNotNull(err.get());
            assertTrue(err.get() instanceof IllegalStateException, String.valueOf(err.get()));
            assertEquals("a", s(c.keyBytes()), "owner can still use it");
        }
    }

    @MatrixTest
    void concurrentCloseWhileScanningDoesNotCrash() throws Exception {
        for (int i = 0; i < 20000; i++) {
            store.put(b(String.format("%08d", i)), new byte[100]);
        }
        for (int round = 0; round < 5; round++) {
            store.close();
            store = Store.open(dir.resolve("db"), options());
            Thread[] readers = new Thread[2];
            for (int t = 0; t < readers.length; t++) {
                readers[t] = new Thread(() -> {
                    try {
                        while (true) {
                            store.scan(KeyRange.all(), (k, v) -> k.length() > 0);
                            store.get(b("00000001"));
                        }
                    } catch (IllegalStateException expected) {
                        // the store closed under us: the only acceptable failure
                    }
                });
                readers[t].start();
            }
            Thread.sleep(20);
            store.close();
            for (Thread t : readers) {
                t.join();
            }
        }
        store = Store.open(dir.resolve("db"), options());
        assertEquals(20000, store.scan(KeyRange.all(), (k, v) -> true));
    }

    /**
     * A cursor closed by another thread while its owner walks a page: the owner may keep reading
     * the current entry or get IllegalStateException, never a crash. (The owner used to step through
     * copy pages by view lengths that the closing thread reset to -1, and read outside its page.)
     */
    @MatrixTest
    void cursorClosedByAnotherThreadMidPageDoesNotCrash() throws Exception {
        for (int i = 0; i < 5000; i++) {
            store.put(b(String.format("%08d", i)), new byte[1 + i % 200]);
        }
        for (boolean pointers : new boolean[] {true, false}) {
            for (int round = 0; round < 200; round++) {
                AtomicReference<Cursor> open = new AtomicReference<>();
                AtomicReference<Throwable> unexpected = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pointers(pointers))) {
                        open.set(c);
                        long n = 0;
                        while (true) {
                            // mostly bare steps: the close lands between two moves
                            for (boolean ok = c.first(); ok; ok = c.next()) {
                                if (++n % 64 == 0) {
                                    assertTrue(c.key().length() + c.value().length() > 0);
                                }
                            }
                            for (boolean ok = c.last(); ok; ok = c.prev()) {
                                n++;
                            }
                        }
                    } catch (IllegalStateException expected) {
                        // closed under us: the acceptable outcome
                    } catch (Throwable t) {
                        unexpected.set(t);
                    }
                });
                reader.start();
                while (open.get() == null && reader.isAlive()) {
                    Thread.onSpinWait();
                }
                long until = System.nanoTime() + (round % 20) * 50_000L;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                if (open.get() != null) {
                    open.get().close();
                }
                reader.join();
                if (unexpected.get() != null) {
                    throw new AssertionError("round " + round, unexpected.get());
                }
            }
        }
    }

    /** Defects 1 and 4: leaked cursors are reclaimed, a failed construction is freed once (child JVM, 64 MB direct memory). */
    @MatrixTest
    void leakedCursorsAndFailedCursorConstructionNeverCrash() throws Exception {
        Path work = java.nio.file.Files.createDirectories(dir.resolve("child"));
        String out = ChildJvm.runClean(work, 300, List.of("-XX:MaxDirectMemorySize=64m", "-Xmx256m"), LeakedCursorsProgram.class,
                dir.resolve("leaks").toString(), options().engine().name(), options().binding);
        assertTrue(out.contains("ok"), out);
    }

    /** Defect 4: cursors dropped without close do not pile up (LMDB: 126 reader slots by default). */
    @MatrixTest
    void leakedCursorsAreReclaimedWhileTheStoreStaysOpen() {
        putAll("a", "1", "b", "2");
        for (int i = 0; i < 1000; i++) {
            Cursor c = store.cursor();
            assertTrue(c.next(), "leaked cursor " + i);
            if (i % 3 == 0) {
                Snapshot snap = store.snapshot();
                assertEquals("1", s(snap.get(b("a"))), "leaked snapshot " + i);
            }
        }
        assertEquals(2, store.scan(KeyRange.all(), (k, v) -> true));
    }

    /** Defect 2: every method of a cursor and its views refuses another thread (it used to read freed memory). */
    @MatrixTest
    void cursorAndViewMethodsRefuseOtherThreads() throws Exception {
        putAll("a", "1");
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            View k = c.key();
            View v = c.value();
            List<Runnable> calls = List.of(c::key, c::value, c::keyBytes, c::valueBytes, c::isValid, c::next, c::prev,
                c::first, c::last, () -> c.seek(b("a")), () -> c.seekForPrev(b("a")),
                k::length, () -> k.getByte(0), () -> v.getByte(0), () -> k.getShort(0), () -> k.getInt(0),
                () -> k.getLong(0), () -> k.getInt(0, java.nio.ByteOrder.BIG_ENDIAN), () -> k.getBytes(0, new byte[1], 0, 1),
                () -> k.copyTo(ByteBuffer.allocate(8)), () -> k.copyTo(ByteBuffer.allocateDirect(8)), k::toByteArray,
                k::toUtf8String, k::asByteBuffer, () -> k.compareTo(b("a")), () -> k.contentEquals(b("a")));
            AtomicReference<String> failures = new AtomicReference<>("");
            Thread t = new Thread(() -> {
                for (int i = 0; i < calls.size(); i++) {
                    try {
                        calls.get(i).run();
                        failures.set(failures.get() + " call " + i + " succeeded;");
                    } catch (IllegalStateException expected) {
                        // the contract
                    } catch (Throwable e) {
                        failures.set(failures.get() + " call " + i + " threw " + e + ";");
                    }
                }
                if (!k.toString().contains("only") || c.isClosed()) { // toString and isClosed never throw
                    failures.set(failures.get() + " toString " + k + ";");
                }
            });
            t.start();
            t.join();
            assertEquals("", failures.get());
            assertEquals("a", s(c.keyBytes()), "the owner still reads");
            assertEquals("1", v.toUtf8String());
        }
    }

    /** Defect 2: a second thread copying views while the owner closes cursor and store gets exceptions, never a crash. */
    @MatrixTest
    void readingViewsFromAnotherThreadWhileTheOwnerClosesNeverCrashes() throws Exception {
        for (int i = 0; i < 300; i++) {
            store.put(b(String.format("%06d", i)), new byte[64]);
        }
        for (int round = 0; round < 100; round++) {
            Cursor c = store.cursor();
            assertTrue(c.first());
            View k = c.key();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Thread spy = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        c.keyBytes();
                        unexpected.compareAndSet(null, new AssertionError("keyBytes from another thread succeeded"));
                    } catch (IllegalStateException expected) {
                        // the contract
                    }
                    try {
                        k.toByteArray();
                        unexpected.compareAndSet(null, new AssertionError("toByteArray from another thread succeeded"));
                    } catch (IllegalStateException expected) {
                        // the contract
                    }
                }
            });
            spy.start();
            for (int i = 0; i < round % 7; i++) {
                c.next();
            }
            c.close();
            if (round % 10 == 9) {
                store.close();
                store = Store.open(dir.resolve("db"), options());
            }
            stop.set(true);
            spy.join();
            if (unexpected.get() != null) {
                throw new AssertionError("round " + round, unexpected.get());
            }
        }
    }

    /** Defect 3: a buffer from asByteBuffer() never reads memory its cursor let go. */
    @MatrixTest
    void asByteBufferNeverOutlivesItsEntry() {
        putAll("a", "apple", "b", "banana");
        boolean scoped = dev.ferry.internal.binding.Bindings.entryBuffers() != null;
        Cursor c = store.cursor();
        assertTrue(c.first());
        ByteBuffer first = c.value().asByteBuffer();
        assertTrue(first.isReadOnly());
        assertEquals((byte) 'a', first.get(0));
        assertTrue(c.next());
        ByteBuffer second = c.value().asByteBuffer();
        assertEquals((byte) 'b', second.get(0));
        c.close();
        store.close();
        for (ByteBuffer bb : List.of(first, second)) {
            if (scoped) {
                assertThrows(IllegalStateException.class, () -> bb.get(0), "a scoped buffer after its entry");
            } else {
                assertEquals(bb == first ? 'a' : 'b', (char) bb.get(0), "a copy keeps its bytes");
            }
        }
        store = Store.open(dir.resolve("db"), options());
    }

    /**
     * Defect 5: an owner whose cursor was closed by another thread during a call frees it when it
     * gets the IllegalStateException, so the store really closes (LMDB could not be reopened until
     * a GC ran).
     */
    @MatrixTest
    void cursorClosedByAnotherThreadDuringACallIsReleasedByItsOwner() throws Exception {
        for (int i = 0; i < 2000; i++) {
            store.put(b(String.format("%06d", i)), new byte[32]);
        }
        for (int round = 0; round < 200; round++) {
            AtomicReference<Cursor> open = new AtomicReference<>();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Store st = store;
            Thread owner = new Thread(() -> {
                try {
                    Cursor c = st.cursor();
                    open.set(c);
                    for (long i = 0;; i++) {
                        c.seek(b(String.format("%06d", i % 2000)));
                        c.next();
                    }
                } catch (IllegalStateException expected) {
                    // closed under us; the owner just stops (without calling close)
                } catch (Throwable t) {
                    unexpected.set(t);
                }
            });
            owner.start();
            while (open.get() == null && owner.isAlive()) {
                Thread.onSpinWait();
            }
            long until = System.nanoTime() + (round % 10) * 20_000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            open.get().close();
            store.close();
            owner.join();
            if (unexpected.get() != null) {
                throw new AssertionError("round " + round, unexpected.get());
            }
            store = Store.open(dir.resolve("db"), options()); // Busy when the engine had stayed open
        }
        assertEquals(2000, store.scan(KeyRange.all(), (k, v) -> true));
    }
}
