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
}
