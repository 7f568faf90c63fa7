package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Agrona adapter reads the same bytes as the views, on both engines, without copying. */
class AgronaViewsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Engine.class)
    void wrappedBuffersMatchViews(Engine engine) {
        try (Store store = Store.open(dir.resolve(engine.name()), StoreOptions.of(engine).binding("jni"))) {
            for (long i = 1; i <= 500; i++) {
                byte[] k = ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(i).array();
                byte[] v = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(i * 3).putLong(-i).array();
                store.put(k, v);
            }
            UnsafeBuffer kb = new UnsafeBuffer(0, 0);
            UnsafeBuffer vb = new UnsafeBuffer(0, 0);
            long expect = 1;
            try (Cursor c = store.cursor()) {
                for (boolean ok = c.first(); ok; ok = c.next(), expect++) {
                    assertSame(kb, AgronaViews.wrap(c.key(), kb));
                    AgronaViews.wrap(c.value(), vb);
                    assertEquals(8, kb.capacity());
                    assertEquals(expect, kb.getLong(0, ByteOrder.BIG_ENDIAN));
                    assertEquals(expect * 3, vb.getLong(0, ByteOrder.LITTLE_ENDIAN));
                    assertEquals(-expect, vb.getLong(8, ByteOrder.LITTLE_ENDIAN));
                    assertEquals(c.key().getLong(0, ByteOrder.BIG_ENDIAN), AgronaViews.wrap(c.key()).getLong(0, ByteOrder.BIG_ENDIAN));
                }
            }
            assertEquals(501, expect);
            assertTrue(kb.addressOffset() != 0);
        }
    }
}
