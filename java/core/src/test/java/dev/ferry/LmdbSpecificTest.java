package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LMDB behaviour the shared contract cannot express: map size, readers, threads, flags. */
class LmdbSpecificTest {
    @TempDir
    Path dir;

    private StoreOptions lmdb() {
        return StoreOptions.lmdb().binding("jni");
    }

    /**
     * A store with as many families as allowed reopens, even when default-family records look like
     * family records (48-byte values): listing families at open probes them, and LMDB said "table
     * full" before "not a database" (found by the differential fuzzer, seed 16). More families than
     * allowed still refuse to open, naming the option.
     */
    @Test
    void aStoreAtItsFamilyLimitReopensAndOneBeyondItIsRefused() {
        StoreOptions two = lmdb().maxColumnFamilies(2);
        try (Store s = Store.open(dir.resolve("fams"), two)) {
            s.createColumnFamily("a");
            s.createColumnFamily("b");
            for (String k : new String[] {"0", "aa", "zz", "zzz"}) {
                s.put(k.getBytes(), new byte[48]);
            }
        }
        try (Store s = Store.open(dir.resolve("fams"), two)) {
            assertEquals(3, s.columnFamilies().size());
            assertEquals(48, s.get("zzz".getBytes()).length);
        }
        try (Store s = Store.open(dir.resolve("fams"), lmdb().maxColumnFamilies(3))) {
            s.createColumnFamily("c");
        }
        FerryException e = assertThrows(FerryException.class, () -> Store.open(dir.resolve("fams"), two));
        assertEquals(ErrorCode.TOO_MANY_COLUMN_FAMILIES, e.code());
        assertTrue(e.getMessage().contains("maxColumnFamilies"), e.getMessage());
    }

    @Test
    void fullMapThrowsMapFullSayingHowToGrowIt() {
        try (Store s = Store.open(dir.resolve("small"), lmdb().mapSize(256 * 1024))) {
            FerryException e = assertThrows(FerryException.MapFull.class, () -> {
                for (int i = 0; i < 10_000; i++) {
                    s.put(("key" + i).getBytes(), new byte[1000]);
                }
            });
            assertEquals(ErrorCode.MAP_FULL, e.code());
            assertEquals(-30792, e.engineCode(), "MDB_MAP_FULL");
            assertTrue(e.getMessage().contains("StoreOptions.mapSize"), e.getMessage());
            assertTrue(e.getMessage().contains("StoreOptions.autoGrow"), e.getMessage());
            s.put("after".getBytes(), "still works".getBytes());
        }
    }

    /**
     * LMDB keeps named databases as records of its main database, which is the default family: a
     * key equal to a family's name cannot be written there. The error says so instead of LMDB's
     * MDB_INCOMPATIBLE, for puts, deletes and batches, and the store stays usable.
     */
    @Test
    void aDefaultFamilyKeyEqualToAFamilyNameIsRefusedSayingWhy() {
        try (Store s = Store.open(dir.resolve("names"), lmdb())) {
            ColumnFamily users = s.createColumnFamily("users");
            byte[] name = "users".getBytes();
            List<Runnable> writes = List.of(() -> s.put(name, new byte[] {1}), () -> s.delete(name), () -> {
                try (WriteBatch b = new WriteBatch()) {
                    b.put("other".getBytes(), new byte[] {2});
                    b.put(name, new byte[] {1});
                    s.write(b);
                }
            });
            for (Runnable w : writes) {
                FerryException e = assertThrows(FerryException.InvalidArgument.class, w::run);
                assertEquals(-30784, e.engineCode(), "MDB_INCOMPATIBLE");
                assertTrue(e.getMessage().contains("'users' is the name of a column family"), e.getMessage());
                assertTrue(e.getMessage().contains("default family cannot equal a column family's name"), e.getMessage());
            }
            assertEquals(null, s.get("other".getBytes()), "the failed batch applied nothing");
            s.put(users, name, new byte[] {3}); // in a family it is an ordinary key
            s.put("user".getBytes(), new byte[] {4});
            assertArrayEquals(new byte[] {3}, s.get(users, name));
        }
    }

    /** syncWrites(true) asks for a sync per commit, LmdbFlag.NOSYNC for none: the open refuses both. */
    @Test
    void syncWritesWithTheNosyncFlagIsRefused() {
        FerryException e = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("sync"), lmdb().syncWrites(true).lmdbFlags(EnumSet.of(LmdbFlag.NOSYNC))));
        assertTrue(e.getMessage().contains("syncWrites(true)") && e.getMessage().contains("NOSYNC"), e.getMessage());
        // the relaxation that keeps a sync per commit, and NOSYNC with the default syncWrites(false), open
        Store.open(dir.resolve("sync"), lmdb().syncWrites(true).lmdbFlags(EnumSet.of(LmdbFlag.NOMETASYNC))).close();
        Store.open(dir.resolve("sync"), lmdb().lmdbFlags(EnumSet.of(LmdbFlag.NOSYNC))).close();
    }

    @Test
    void autoGrowLetsTheSameWritesSucceed() {
        try (Store s = Store.open(dir.resolve("grow"), lmdb().mapSize(256 * 1024).autoGrow(1 << 20))) {
            for (int i = 0; i < 10_000; i++) {
                s.put(("key" + i).getBytes(), new byte[1000]);
            }
            assertEquals(10_000, s.estimatedKeyCount());
            assertTrue(s.propertyLong(s.defaultColumnFamily(), "lmdb.map-size").getAsLong() > 256 * 1024);
        }
    }

    @Test
    void autoGrowRefusesWhileASnapshotIsOpenAndSaysWhy() {
        try (Store s = Store.open(dir.resolve("grow2"), lmdb().mapSize(256 * 1024).autoGrow(1 << 20))) {
            try (Snapshot snap = s.snapshot()) {
                FerryException e = assertThrows(FerryException.MapFull.class, () -> {
                    for (int i = 0; i < 10_000; i++) {
                        s.put(("key" + i).getBytes(), new byte[1000]);
                    }
                });
                assertTrue(e.getMessage().contains("read"), e.getMessage());
                assertEquals(null, snap.get("key1".getBytes()));
            }
        }
    }

    @Test
    void readerTableFullIsReportedNotCrashed() {
        try (Store s = Store.open(dir.resolve("readers"), lmdb().maxReaders(4))) {
            List<Snapshot> open = new ArrayList<>();
            FerryException e = assertThrows(FerryException.ReadersFull.class, () -> {
                for (int i = 0; i < 10; i++) {
                    open.add(s.snapshot());
                }
            });
            assertEquals(ErrorCode.READERS_FULL, e.code());
            assertTrue(e.getMessage().contains("unclosed cursors and snapshots"), e.getMessage());
            assertTrue(e.getMessage().contains("StoreOptions.maxReaders"), e.getMessage());
            open.forEach(Snapshot::close);
            try (Snapshot again = s.snapshot()) {
                assertEquals(null, again.get(new byte[] {1}));
            }
        }
    }

    /**
     * Reader tables are per environment: a store that just found its own table really full (and
     * fails fast for a while) must not stop another store from reclaiming slots held by its leaked
     * cursors.
     */
    @Test
    void oneStoreAtItsReaderLimitDoesNotStopAnotherFromReclaiming() {
        try (Store full = Store.open(dir.resolve("readers-full"), lmdb().maxReaders(4));
                Store other = Store.open(dir.resolve("readers-other"), lmdb().maxReaders(8))) {
            other.put(new byte[] {1}, new byte[] {2});
            List<Snapshot> open = new ArrayList<>();
            assertThrows(FerryException.ReadersFull.class, () -> {
                for (int i = 0; i < 10; i++) {
                    open.add(full.snapshot());
                }
            });
            for (int i = 0; i < 100; i++) {
                Cursor c = other.cursor(); // leaked on purpose: only reclamation frees its slot
                assertTrue(c.next(), "leaked cursor " + i);
            }
            open.forEach(Snapshot::close);
        }
    }

    @Test
    void snapshotIsBoundToItsThreadUnlessNotls() throws Exception {
        try (Store s = Store.open(dir.resolve("tls"), lmdb())) {
            s.put(new byte[] {1}, new byte[] {2});
            Snapshot snap = s.snapshot();
            AtomicReference<Throwable> err = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    snap.get(new byte[] {1});
                } catch (Throwable e) {
                    err.set(e);
                }
            });
            t.start();
            t.join();
            assertTrue(err.get() instanceof IllegalStateException, String.valueOf(err.get()));
            assertTrue(err.get().getMessage().contains("NOTLS"));
            snap.close();
        }
        try (Store s = Store.open(dir.resolve("notls"), lmdb().lmdbFlags(EnumSet.of(LmdbFlag.NOTLS)))) {
            s.put(new byte[] {1}, new byte[] {2});
            try (Snapshot snap = s.snapshot()) {
                AtomicReference<byte[]> got = new AtomicReference<>();
                Thread t = new Thread(() -> got.set(snap.get(new byte[] {1})));
                t.start();
                t.join();
                assertArrayEquals(new byte[] {2}, got.get());
            }
        }
    }

    @Test
    void environmentFlagsOpenAndWork() {
        try (Store s = Store.open(dir.resolve("flags"), lmdb().lmdbFlags(
                EnumSet.of(LmdbFlag.NOSYNC, LmdbFlag.NOMETASYNC, LmdbFlag.WRITEMAP, LmdbFlag.NORDAHEAD)))) {
            s.put(new byte[] {1}, new byte[] {2});
            s.flush();
            assertArrayEquals(new byte[] {2}, s.get(new byte[] {1}));
        }
    }

    @Test
    void tooManyNamedFamiliesIsReported() {
        try (Store s = Store.open(dir.resolve("dbs"), lmdb().maxColumnFamilies(2))) {
            s.createColumnFamily("a");
            s.createColumnFamily("b");
            FerryException e = assertThrows(FerryException.class, () -> s.createColumnFamily("c"));
            assertEquals(ErrorCode.TOO_MANY_COLUMN_FAMILIES, e.code());
        }
    }

    @Test
    void pointerAndCopyPagesReturnTheSameEntries() {
        try (Store s = Store.open(dir.resolve("modes"), lmdb())) {
            for (int i = 0; i < 3000; i++) {
                s.put(String.format("k%05d", i).getBytes(), new byte[i % 700]);
            }
            List<String> ptr = new ArrayList<>();
            List<String> copy = new ArrayList<>();
            try (Cursor a = s.cursor(s.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pointers(true));
                 Cursor b = s.cursor(s.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pointers(false))) {
                for (boolean ok = a.last(); ok; ok = a.prev()) {
                    ptr.add(a.key().toUtf8String() + "/" + a.value().length());
                }
                for (boolean ok = b.last(); ok; ok = b.prev()) {
                    copy.add(b.key().toUtf8String() + "/" + b.value().length());
                }
            }
            assertEquals(3000, ptr.size());
            assertEquals(copy, ptr);
        }
    }
    /**
     * The direct leaf-page walk against LMDB's own steps ({@code pageWalk(false)}): random keys and
     * values written in random order, some values on overflow pages (nodes the walk leaves to LMDB),
     * both page modes, random moves, seeks and direction changes; every step is compared.
     */
    @Test
    void leafPageWalkMatchesLmdbSteps() {
        try (Store s = Store.open(dir.resolve("walk"), lmdb())) {
            Random r = new Random(42);
            List<byte[]> keys = new ArrayList<>();
            try (WriteBatch b = new WriteBatch()) {
                for (int i = 0; i < 6000; i++) {
                    byte[] k = new byte[1 + r.nextInt(40)];
                    r.nextBytes(k);
                    byte[] v = new byte[r.nextInt(50) == 0 ? 3000 + r.nextInt(4000) : r.nextInt(300)];
                    r.nextBytes(v);
                    b.put(k, v);
                    keys.add(k);
                }
                s.write(b);
            }
            long before = s.propertyLong(s.defaultColumnFamily(), "lmdb.walked-pages").orElseThrow();
            for (boolean pointers : new boolean[] {true, false}) {
                CursorOptions walk = CursorOptions.defaults().pointers(pointers);
                CursorOptions steps = CursorOptions.defaults().pointers(pointers).pageWalk(false);
                try (Cursor a = s.cursor(s.defaultColumnFamily(), KeyRange.all(), walk);
                     Cursor b = s.cursor(s.defaultColumnFamily(), KeyRange.all(), steps)) {
                    int n = 0;
                    boolean x = a.first();
                    boolean y = b.first();
                    for (; x; x = a.next(), y = b.next()) {
                        assertTrue(y);
                        assertEntry(a, b);
                        n++;
                    }
                    assertFalse(y);
                    assertTrue(n > 5900, "entries: " + n);
                    for (int op = 0; op < 3000; op++) {
                        int what = r.nextInt(10);
                        if (what == 0) {
                            byte[] k = keys.get(r.nextInt(keys.size()));
                            x = a.seek(k);
                            y = b.seek(k);
                        } else if (what == 1) {
                            byte[] k = keys.get(r.nextInt(keys.size())).clone();
                            k[k.length - 1]++;
                            x = a.seekForPrev(k);
                            y = b.seekForPrev(k);
                        } else {
                            boolean fwd = what < 6;
                            int k = 1 + r.nextInt(80);
                            x = y = true;
                            for (int i = 0; i < k && x; i++) {
                                x = fwd ? a.next() : a.prev();
                                y = fwd ? b.next() : b.prev();
                                assertEquals(y, x);
                            }
                        }
                        assertEquals(y, x, "op " + op);
                        if (x) {
                            assertEntry(a, b);
                        } else {
                            assertTrue(a.first());
                            assertTrue(b.first());
                        }
                    }
                }
            }
            long after = s.propertyLong(s.defaultColumnFamily(), "lmdb.walked-pages").orElseThrow();
            assertTrue(after > before + 100, "pages walked: " + (after - before));
        }
    }

    private static void assertEntry(Cursor a, Cursor b) {
        assertArrayEquals(b.key().toByteArray(), a.key().toByteArray());
        assertArrayEquals(b.value().toByteArray(), a.value().toByteArray());
    }
}
