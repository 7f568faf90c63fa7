package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.jni.JniBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Raw memory reads agree with a direct buffer's, at every alignment; the source follows the documented rule. */
class MemTest {
    private final NativeBuffer nb = NativeBuffer.allocate(JniBinding.INSTANCE, 256);

    MemTest() {
        byte[] b = new byte[256];
        new Random(7).nextBytes(b);
        nb.buf.put(0, b);
    }

    @Test
    void sourceFollowsTheJavaVersion() {
        int feature = Runtime.version().feature();
        String forced = System.getProperty("ferry.memory", "");
        String expected = !forced.isEmpty() ? forced : feature < 22 ? "unsafe" : feature >= 24 ? "ffm" : Mem.source();
        assertEquals(expected, Mem.source());
    }

    @Test
    void readsMatchTheBufferAtEveryOffset() {
        ByteBuffer b = nb.buf.duplicate().order(ByteOrder.nativeOrder());
        for (int i = 0; i + 8 <= 256; i++) {
            long a = nb.addr + i;
            assertEquals(b.get(i), Mem.getByte(a), "byte at " + i);
            assertEquals(b.getShort(i), Mem.getShort(a), "short at " + i);
            assertEquals(b.getInt(i), Mem.getInt(a), "int at " + i);
            assertEquals(b.getLong(i), Mem.getLong(a), "long at " + i);
        }
    }

    @Test
    void copiesToArraysAndNativeMemory() {
        byte[] all = nb.bytes(0, 256);
        byte[] dst = new byte[100];
        Mem.copy(nb.addr + 13, dst, 7, 80);
        assertArrayEquals(Arrays.copyOfRange(all, 13, 93), Arrays.copyOfRange(dst, 7, 87));
        assertArrayEquals(new byte[7], Arrays.copyOfRange(dst, 0, 7));

        NativeBuffer other = NativeBuffer.allocate(JniBinding.INSTANCE, 64);
        Mem.copy(nb.addr + 100, other.addr + 3, 50);
        assertArrayEquals(Arrays.copyOfRange(all, 100, 150), other.bytes(3, 50));
        assertEquals(0, other.buf.get(2));
        assertEquals(0, other.buf.get(53));
    }
}
