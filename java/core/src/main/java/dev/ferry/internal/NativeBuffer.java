package dev.ferry.internal;

import dev.ferry.spi.NativeBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A direct buffer in native byte order with its address resolved once.
 *
 * <p>Thread safety: not thread-safe; owned by one thread or guarded by its owner.
 */
public final class NativeBuffer {
    /** The buffer (native order, absolute access only). */
    public final ByteBuffer buf;
    /** Address of byte 0. */
    public final long addr;
    /** Capacity in bytes. */
    public final int cap;

    private NativeBuffer(ByteBuffer buf, long addr) {
        this.buf = buf;
        this.addr = addr;
        this.cap = buf.capacity();
    }

    /**
     * Allocates a zeroed buffer.
     *
     * @param binding resolves the address
     * @param cap capacity in bytes
     * @return the buffer
     */
    public static NativeBuffer allocate(NativeBinding binding, int cap) {
        ByteBuffer b = ByteBuffer.allocateDirect(cap).order(ByteOrder.nativeOrder());
        return new NativeBuffer(b, binding.address(b));
    }

    /**
     * Writes a NUL-terminated UTF-8 string.
     *
     * @param off where
     * @param utf8 the bytes (no NUL inside)
     * @return the offset after the NUL
     */
    public int putCString(int off, byte[] utf8) {
        buf.put(off, utf8);
        buf.put(off + utf8.length, (byte) 0);
        return off + utf8.length + 1;
    }

    /**
     * Reads bytes into a new array.
     *
     * @param off first byte
     * @param len count
     * @return the bytes
     */
    public byte[] bytes(int off, int len) {
        byte[] r = new byte[len];
        buf.get(off, r);
        return r;
    }
}
