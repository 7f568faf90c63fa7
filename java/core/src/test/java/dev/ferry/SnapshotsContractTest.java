package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Snapshots and point-in-time reads: isolation from later writes, cursors seeing their open time, readers
 * beside a writer seeing whole batches only, families created after a snapshot.
 */
class SnapshotsContractTest extends StoreContract {
    @MatrixTest
    void snapshotIsolatesFromLaterWrites() {
        putAll("a", "1", "b", "2");
        try (Snapshot snap = store.snapshot()) {
            store.put(b("a"), b("changed"));
            store.put(b("c"), b("new"));
            store.delete(b("b"));
            assertEquals("1", s(snap.get(b("a"))));
            assertEquals("2", s(snap.get(b("b"))));
            assertNull(snap.get(b("c")));
            try (Cursor c = snap.cursor(KeyRange.all())) {
                assertEquals(List.of("a", "b"), keys(c, true));
            }
            assertEquals(2, snap.scan(store.defaultColumnFamily(), KeyRange.all(), (k, v) -> true));
            List<byte[]> mg = snap.multiGet(store.defaultColumnFamily(), List.of(b("a"), b("c")));
            assertEquals("1", s(mg.get(0)));
            assertNull(mg.get(1));
        }
        assertEquals("changed", s(store.get(b("a"))));
    }

    @MatrixTest
    void cursorSeesStateAtOpenTime() {
        putAll("a", "1");
        try (Cursor c = store.cursor()) {
            store.put(b("b"), b("2"));
            assertEquals(List.of("a"), keys(c, true));
        }
    }

    @MatrixTest
    void readersBesideAWriterSeeOnlyWholeBatches() throws Exception {
        // one writer commits batches that set all 32 keys to the same version; readers on other
        // threads, each with its own snapshots or cursors, must never see two versions at once,
        // and a thread's plain gets must never see a key's version go back
        int keys = 32;
        int batches = 300;
        java.util.function.IntFunction<byte[]> key = i -> b(String.format("acct%02d", i));
        try (WriteBatch wb = new WriteBatch()) {
            for (int i = 0; i < keys; i++) {
                wb.put(key.apply(i), b(String.format("v%06d", 0)));
            }
            store.write(wb);
        }
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            int mode = r % 4;
            threads.add(new Thread(() -> {
                try {
                    int[] lastSeen = new int[keys];
                    boolean last = false;
                    while (!last) {
                        last = done.get();
                        List<String> seen = new ArrayList<>();
                        if (mode == 0) {
                            try (Snapshot snap = store.snapshot()) {
                                for (int i = 0; i < keys; i++) {
                                    seen.add(s(snap.get(key.apply(i))));
                                }
                            }
                        } else if (mode == 1) {
                            try (Cursor c = store.cursor(KeyRange.prefix(b("acct")))) {
                                while (c.next()) {
                                    seen.add(s(c.valueBytes()));
                                }
                            }
                        } else if (mode == 2) {
                            List<byte[]> ks = new ArrayList<>();
                            for (int i = 0; i < keys; i++) {
                                ks.add(key.apply(i));
                            }
                            try (Snapshot snap = store.snapshot()) {
                                snap.multiGet(store.defaultColumnFamily(), ks).forEach(v -> seen.add(s(v)));
                            }
                        } else {
                            for (int i = 0; i < keys; i++) {
                                int v = Integer.parseInt(s(store.get(key.apply(i))).substring(1));
                                if (v < lastSeen[i]) {
                                    throw new AssertionError("key " + i + " went back from version " + lastSeen[i] + " to " + v);
                                }
                                lastSeen[i] = v;
                            }
                            reads.incrementAndGet();
                            continue;
                        }
                        assertEquals(keys, seen.size(), "mode " + mode);
                        if (seen.stream().distinct().count() != 1) {
                            throw new AssertionError("mode " + mode + " saw two batches at once: " + seen);
                        }
                        reads.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        try {
            for (int v = 1; v <= batches && failure.get() == null; v++) {
                try (WriteBatch wb = new WriteBatch()) {
                    for (int i = 0; i < keys; i++) {
                        wb.put(key.apply(i), b(String.format("v%06d", v)));
                    }
                    store.write(wb);
                }
            }
        } finally {
            done.set(true);
            for (Thread t : threads) {
                t.join();
            }
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(reads.get() >= threads.size(), "every reader read at least once");
        assertEquals(String.format("v%06d", batches), s(store.get(key.apply(keys - 1))));
    }

    @MatrixTest
    void snapshotNeverReadsAFamilyCreatedAfterIt() {
        ColumnFamily a = store.createColumnFamily("a");
        store.put(a, b("k"), b("in-a"));
        try (Snapshot snap = store.snapshot()) {
            assertEquals("in-a", s(snap.get(a, b("k"))));
            try (Cursor c = snap.cursor(a, KeyRange.all(), null)) {
                assertTrue(c.first());
            }
            // LMDB gives the dropped database's handle number to the next one created
            store.dropColumnFamily(a);
            ColumnFamily later = store.createColumnFamily("b");
            ColumnFamily filled = store.createColumnFamily("c");
            store.put(filled, b("k"), b("in-c"));
            List<org.junit.jupiter.api.function.Executable> reads = List.of(
                () -> snap.get(later, b("k")),
                () -> snap.get(later, ByteBuffer.wrap(b("k")), ByteBuffer.allocate(16)),
                () -> snap.multiGet(later, List.of(b("k"))),
                () -> snap.cursor(later, KeyRange.all(), null),
                () -> snap.scan(later, KeyRange.all(), (k, v) -> true),
                () -> snap.get(filled, b("k")));
            for (org.junit.jupiter.api.function.Executable read : reads) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, read);
                assertTrue(e.getMessage().contains("was created after this snapshot"), e.getMessage());
            }
            assertTrue(assertThrows(IllegalArgumentException.class, () -> snap.get(later, b("k"))).getMessage()
                    .contains("column family 'b'"));
            assertThrows(IllegalStateException.class, () -> snap.get(a, b("k")), "a dropped family");
            assertNull(snap.get(b("k")), "the default family still reads");
            try (Snapshot now = store.snapshot()) {
                assertNull(now.get(later, b("k")));
                assertEquals("in-c", s(now.get(filled, b("k"))));
            }
        }
    }
}
