package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ErrorCode;
import dev.ferry.FerryException;
import dev.ferry.jni.JniBinding;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Point reads when the engine reports a value no Java array holds (LMDB and RocksDB take values of
 * 2 GiB and more from C programs): a clear exception, not a loop growing a buffer that never fits.
 * The native call is a stand-in that writes what an engine would report into the scratch memory.
 */
class ReadCallsTest {
    private static final long THREE_GIB = 3L << 30;
    private static final int ETOOSMALL = -1004;

    /** Writes {@code v} at native address {@code addr}, which lies in this thread's scratch memory. */
    private static void putLong(long addr, long v) {
        NativeBuffer m = Scratch.get(JniBinding.INSTANCE).mem;
        m.buf.putLong((int) (addr - m.addr), v);
    }

    @Test
    void getOfAValueLargerThanAnArrayThrows() {
        int[] calls = {0};
        FerryException e = assertThrows(FerryException.class, () -> ReadCalls.get(JniBinding.INSTANCE, Readers.NONE,
                (b, h1, h2, h3, flags, key, klen, dst, cap, vlenOut, err) -> {
                    calls[0]++;
                    putLong(vlenOut, THREE_GIB);
                    return 0;
                }, 0, 0, 0, 0, new byte[] {1}, 0, 1));
        assertEquals(ErrorCode.BUFFER_TOO_SMALL, e.code());
        assertTrue(e.getMessage().contains(Long.toString(THREE_GIB)), e.getMessage());
        assertEquals(1, calls[0], "asked once, then refused");
    }

    @Test
    void multiGetOfAValueLargerThanAnArrayThrowsInsteadOfRetrying() {
        int[] calls = {0};
        FerryException e = assertThrows(FerryException.class, () -> ReadCalls.multiGet(JniBinding.INSTANCE, Readers.NONE,
                (b, h1, h2, h3, flags, n, keys, keysLen, dst, cap, lensOut, err) -> {
                    if (++calls[0] > 5) {
                        throw new AssertionError("multiGet keeps retrying a value that cannot fit");
                    }
                    putLong(lensOut, THREE_GIB);
                    return ETOOSMALL;
                }, 0, 0, 0, 0, List.of(new byte[] {1})));
        assertEquals(ErrorCode.BUFFER_TOO_SMALL, e.code());
        assertEquals(1, calls[0]);
    }

    @Test
    void multiGetStillGrowsForValuesThatFit() {
        // larger than this thread's scratch memory now (other tests may have grown it)
        int big = Scratch.get(JniBinding.INSTANCE).mem.cap + 1000;
        int[] calls = {0};
        List<byte[]> got = ReadCalls.multiGet(JniBinding.INSTANCE, Readers.NONE, (b, h1, h2, h3, flags, n, keys, keysLen, dst, cap,
                lensOut, err) -> {
            calls[0]++;
            if (cap < big) {
                putLong(lensOut, big);
                return ETOOSMALL;
            }
            putLong(lensOut, big);
            NativeBuffer m = Scratch.get(JniBinding.INSTANCE).mem;
            m.buf.put((int) (dst - m.addr), (byte) 7);
            m.buf.put((int) (dst - m.addr) + big - 1, (byte) 9);
            return 1;
        }, 0, 0, 0, 0, List.of(new byte[] {1}));
        assertEquals(2, calls[0]);
        assertEquals(big, got.get(0).length);
        assertArrayEquals(new byte[] {7, 9}, new byte[] {got.get(0)[0], got.get(0)[big - 1]});
    }
}
