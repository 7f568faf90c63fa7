package dev.ferry.ffm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Scoped MemorySegment views: same bytes as the views, dead after the cursor moves or closes. */
class SegmentsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"ROCKSDB,ffm", "LMDB,ffm", "ROCKSDB,jni", "LMDB,jni"})
    void segmentsMatchViewsAndDieWhenTheCursorMoves(Engine engine, String binding) {
        try (Store store = Store.open(dir.resolve("s"), StoreOptions.of(engine).binding(binding))) {
            for (int i = 0; i < 2000; i++) {
                store.put(String.format("key%05d", i).getBytes(StandardCharsets.UTF_8), ("value-" + i).getBytes(StandardCharsets.UTF_8));
            }
            MemorySegment previous = null;
            int n = 0;
            try (Cursor c = store.cursor(store.defaultColumnFamily(), KeyRange.all(), CursorOptions.defaults().pageSize(512))) {
                for (boolean ok = c.first(); ok; ok = c.next(), n++) {
                    if (previous != null) {
                        MemorySegment p = previous;
                        assertThrows(IllegalStateException.class, () -> p.get(ValueLayout.JAVA_BYTE, 0));
                    }
                    MemorySegment k = Segments.key(c);
                    MemorySegment v = Segments.value(c);
                    assertArrayEquals(c.keyBytes(), k.toArray(ValueLayout.JAVA_BYTE));
                    assertArrayEquals(c.valueBytes(), v.toArray(ValueLayout.JAVA_BYTE));
                    assertTrue(k.isReadOnly());
                    assertEquals(c.key().length(), k.byteSize());
                    previous = v;
                }
                MemorySegment last = previous;
                assertThrows(IllegalStateException.class, () -> last.get(ValueLayout.JAVA_BYTE, 0), "dead after running off the range");
                assertTrue(c.last());
                MemorySegment atClose = Segments.key(c);
                c.close();
                assertThrows(IllegalStateException.class, () -> atClose.get(ValueLayout.JAVA_BYTE, 0), "dead after close");
                assertThrows(IllegalStateException.class, () -> Segments.key(c));
            }
            assertEquals(2000, n);
        }
    }

    @ParameterizedTest
    @CsvSource({"ROCKSDB", "LMDB"})
    void segmentsAreConfinedToTheCursorThread(Engine engine) throws Exception {
        try (Store store = Store.open(dir.resolve("t"), StoreOptions.of(engine).binding("ffm"))) {
            store.put(new byte[] {1}, new byte[] {2});
            try (Cursor c = store.cursor()) {
                assertTrue(c.first());
                MemorySegment v = Segments.value(c);
                Throwable[] seen = new Throwable[1];
                Thread t = new Thread(() -> {
                    try {
                        v.get(ValueLayout.JAVA_BYTE, 0);
                    } catch (Throwable e) {
                        seen[0] = e;
                    }
                });
                t.start();
                t.join();
                assertTrue(seen[0] instanceof WrongThreadException, String.valueOf(seen[0]));
                assertEquals(2, v.get(ValueLayout.JAVA_BYTE, 0));
            }
        }
    }

    /**
     * Issue 14: a buffer of a closed arena (a kept {@code asByteBuffer()} of an earlier entry, or the
     * application's own) passed as a value or a target throws instead of letting native code use
     * freed memory; a segment kept after its cursor was dropped keeps the cursor's memory alive.
     */
    @ParameterizedTest
    @CsvSource({"ROCKSDB,ffm", "LMDB,ffm", "ROCKSDB,jni", "LMDB,jni"})
    void buffersOfClosedArenasAreRefusedAndKeptSegmentsStayReadable(Engine engine, String binding) throws Exception {
        try (Store store = Store.open(dir.resolve("a"), StoreOptions.of(engine).binding(binding))) {
            byte[] big = new byte[40_000];
            java.util.Arrays.fill(big, (byte) 7);
            store.put("k".getBytes(StandardCharsets.UTF_8), big);
            java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
            java.nio.ByteBuffer value = arena.allocate(40_000).asByteBuffer();
            java.nio.ByteBuffer into = arena.allocate(64).asByteBuffer();
            arena.close();
            assertThrows(IllegalStateException.class,
                    () -> store.put(store.defaultColumnFamily(), java.nio.ByteBuffer.wrap("v".getBytes(StandardCharsets.UTF_8)), value));
            assertThrows(IllegalStateException.class,
                    () -> store.get(store.defaultColumnFamily(), java.nio.ByteBuffer.wrap("k".getBytes(StandardCharsets.UTF_8)), into));
            java.nio.ByteBuffer kept;
            try (Cursor c = store.cursor()) {
                assertTrue(c.first());
                kept = c.value().asByteBuffer();
                assertEquals(7, kept.get(39_999));
                assertTrue(c.first(), "a move closes the entry's scope");
                java.nio.ByteBuffer stale = kept;
                assertThrows(IllegalStateException.class,
                        () -> store.put(store.defaultColumnFamily(), java.nio.ByteBuffer.wrap("v".getBytes(StandardCharsets.UTF_8)), stale));
                kept = c.value().asByteBuffer();
            }
            java.nio.ByteBuffer closed = kept;
            assertThrows(IllegalStateException.class, () -> closed.get(0), "closing the cursor closes the scope");
            // a segment kept while its cursor is dropped (never closed) stays readable: it keeps the cursor reachable
            MemorySegment held = heldSegment(store);
            for (int i = 0; i < 5; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(7, held.get(ValueLayout.JAVA_BYTE, 39_999));
        }
    }

    /**
     * Issue 14, found by the misuse fuzzer: a buffer of a shared arena that another thread closes
     * during a get into it or a put from it corrupted the native heap (the shim wrote and read the
     * buffer by address). Buffers are now copied through their own API, which the JDK guards.
     */
    @ParameterizedTest
    @CsvSource({"ROCKSDB,ffm", "LMDB,ffm", "ROCKSDB,jni", "LMDB,jni"})
    void aSharedArenaClosedDuringAGetOrPutNeverCrashes(Engine engine, String binding) throws Exception {
        int size = 2 << 20;
        StoreOptions o = StoreOptions.of(engine).binding(binding);
        if (engine == Engine.LMDB) {
            o.mapSize(64L << 20);
        }
        try (Store store = Store.open(dir.resolve("race"), o)) {
            byte[] k = "k".getBytes(StandardCharsets.UTF_8);
            byte[] big = new byte[size];
            big[size - 1] = 9;
            store.put(k, big);
            java.util.Random r = new java.util.Random(14);
            int completed = 0;
            for (int round = 0; round < 60; round++) {
                java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
                java.nio.ByteBuffer b = arena.allocate(size).asByteBuffer();
                long spin = r.nextInt(300_000);
                Thread closer = new Thread(() -> {
                    long until = System.nanoTime() + spin;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    arena.close();
                });
                closer.start();
                try {
                    if (round % 2 == 0) {
                        assertEquals(size, store.get(store.defaultColumnFamily(), java.nio.ByteBuffer.wrap(k), b));
                        assertEquals(9, b.get(size - 1));
                    } else {
                        store.put(store.defaultColumnFamily(), java.nio.ByteBuffer.wrap("w".getBytes(StandardCharsets.UTF_8)), b);
                    }
                    completed++;
                } catch (IllegalStateException closedMeanwhile) {
                    // the JDK's answer to touching a closed arena's memory; on JDK 25 the losing
                    // thread sometimes also comes back interrupted (seen with plain ByteBuffer.put, no Ferry)
                    Thread.interrupted();
                }
                closer.join();
            }
            assertEquals(size, store.get(k).length, "the store still works");
            assertTrue(completed > 0, "no call completed before its arena closed: the race was not run");
        }
    }

    private static MemorySegment heldSegment(Store store) {
        Cursor c = store.cursor();
        assertTrue(c.first());
        return Segments.value(c);
    }
}
