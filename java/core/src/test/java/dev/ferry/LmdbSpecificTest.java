package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
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
            assertTrue(e.getMessage().toLowerCase().contains("map"), e.getMessage());
            s.put("after".getBytes(), "still works".getBytes());
        }
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
            open.forEach(Snapshot::close);
            try (Snapshot again = s.snapshot()) {
                assertEquals(null, again.get(new byte[] {1}));
            }
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
}
