package dev.ferry.ffm;

import dev.ferry.ffm.internal.FfmBinding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.jni.JniBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FfmBindingTest {
    private static final int FERRY_EINVAL = -1002;
    private static final int ERROR_SIZE = 1024;
    private static final int MESSAGE_OFFSET = 8;

    private final FfmBinding ffm = FfmBinding.INSTANCE;

    @Test
    void libraryLoadsWithoutError() {
        assertTrue(FfmBinding.loadError().isEmpty(), () -> "load error: " + FfmBinding.loadError().get());
        assertEquals("ffm", ffm.name());
    }

    @Test
    void abiVersionIsTheHeadersVersion() {
        assertEquals(dev.ferry.internal.Abi.ABI_VERSION, ffm.abiVersion());
    }

    @Test
    void noopReturnsZeroOnPlainAndCriticalHandles() {
        assertEquals(0, ffm.noop());
        assertEquals(0, FfmBinding.noopCritical());
    }

    @Test
    void addressOfDirectBufferMatchesJniBinding() {
        ByteBuffer buf = ByteBuffer.allocateDirect(256);
        long a = ffm.address(buf);
        assertNotEquals(0L, a);
        assertEquals(JniBinding.INSTANCE.address(buf), a);
    }

    @Test
    void addressIsIndexZeroWhateverThePosition() {
        ByteBuffer buf = ByteBuffer.allocateDirect(256);
        long a = ffm.address(buf);
        buf.position(17);
        assertEquals(a, ffm.address(buf));
        ByteBuffer slice = buf.slice();
        assertEquals(a + 17, ffm.address(slice));
        assertEquals(JniBinding.INSTANCE.address(slice), ffm.address(slice));
    }

    @Test
    void addressOfHeapBufferIsZeroLikeJni() {
        ByteBuffer heap = ByteBuffer.allocate(16);
        assertEquals(0L, ffm.address(heap));
        assertEquals(JniBinding.INSTANCE.address(heap), ffm.address(heap));
    }

    @Test
    void wrapRoundTripsBytes() {
        ByteBuffer buf = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        buf.putLong(0, 0x0102030405060708L).put(8, (byte) 42);
        ByteBuffer view = ffm.wrap(ffm.address(buf), 64);
        assertTrue(view.isDirect());
        assertEquals(ByteOrder.nativeOrder(), view.order());
        assertEquals(64, view.capacity());
        assertEquals(0x0102030405060708L, view.getLong(0));
        assertEquals(42, view.get(8));
        view.putInt(16, 0xCAFEBABE);
        assertEquals(0xCAFEBABE, buf.getInt(16));
        assertEquals(ffm.address(buf), ffm.address(view));
    }

    @Test
    void engineAttachWithUnknownEngineFillsErrorStruct() {
        ByteBuffer err = ByteBuffer.allocateDirect(ERROR_SIZE).order(ByteOrder.nativeOrder());
        int rc = ffm.engineAttach(99, 0L, ffm.address(err));
        assertEquals(FERRY_EINVAL, rc);
        assertEquals(FERRY_EINVAL, err.getInt(0));
        String message = cString(err, MESSAGE_OFFSET);
        assertTrue(message.contains("unknown engine"), message);
    }

    @Test
    void ffmIsTheBindingChosenOnJava22AndLater() {
        assertTrue(Bindings.ffmAvailable());
        assertSame(FfmBinding.INSTANCE, Bindings.byName("ffm"));
    }

    private static String cString(ByteBuffer buf, int offset) {
        int end = offset;
        while (end < buf.capacity() && buf.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - offset];
        buf.get(offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
