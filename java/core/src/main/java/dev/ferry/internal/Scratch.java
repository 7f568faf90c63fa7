package dev.ferry.internal;

import dev.ferry.FerryException;
import dev.ferry.spi.NativeBinding;

/**
 * Per-thread native memory for store-level calls: an error struct, out-parameter slots and a
 * data area for keys and values copied from Java arrays. Grows on demand, never shrinks below
 * its initial size.
 *
 * <p>Layout: [0, 1024) ferry_error; [1024, 1088) eight 8-byte out slots; [1088, cap) data.
 *
 * <p>Thread safety: one instance per thread (virtual threads included).
 */
public final class Scratch {
    /** Offset of the ferry_error struct. */
    public static final int ERR = 0;
    /** Offset of the first out slot. */
    public static final int OUT = ERR + Abi.ERROR_SIZE;
    /** Offset of the data area. */
    public static final int DATA = OUT + 64;
    private static final int INITIAL = 64 * 1024;

    private static final ThreadLocal<Scratch> LOCAL = new ThreadLocal<>();

    private final NativeBinding binding;
    /** The current memory (replaced when it grows). */
    public NativeBuffer mem;

    private Scratch(NativeBinding binding) {
        this.binding = binding;
        this.mem = NativeBuffer.allocate(binding, INITIAL);
    }

    /**
     * Returns this thread's scratch memory.
     *
     * @param binding used to resolve addresses on first use
     * @return the scratch
     */
    public static Scratch get(NativeBinding binding) {
        Scratch s = LOCAL.get();
        if (s == null) {
            s = new Scratch(binding);
            LOCAL.set(s);
        }
        s.clearError();
        return s;
    }

    /** Marks the error struct unwritten, before a call whose failure should be read from it. */
    public void clearError() {
        mem.buf.putInt(ERR, 0);
    }

    /**
     * Makes the buffer at least {@code bytes} long, keeping the first {@code keep} bytes.
     *
     * @param bytes required capacity
     * @param keep bytes to preserve
     * @return the (possibly new) memory
     */
    public NativeBuffer ensure(long bytes, int keep) {
        if (bytes > mem.cap) {
            if (bytes > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("value of " + bytes + " bytes is too large for a Java array");
            }
            int cap = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(bytes, 2L * mem.cap));
            NativeBuffer n = NativeBuffer.allocate(binding, cap);
            n.buf.put(0, mem.buf, 0, keep);
            mem = n;
        }
        return mem;
    }

    /**
     * Copies {@code bytes} into the data area at {@link #DATA} as a NUL-terminated C string (a
     * path, a family or property name).
     *
     * @param bytes the string's bytes (UTF-8, no NUL inside)
     * @return the address of the C string
     */
    public long cString(byte[] bytes) {
        NativeBuffer m = ensure(DATA + bytes.length + 1L, 0);
        m.putCString(DATA, bytes);
        return m.addr + DATA;
    }

    /**
     * Copies two byte strings into the data area: {@code a} at {@link #DATA}, {@code b} at the
     * next 8-byte boundary after it (null counts as empty and writes nothing).
     *
     * @param a first bytes, or null
     * @param b second bytes, or null
     * @return the offset of {@code b}
     */
    public int putTwo(byte[] a, byte[] b) {
        int alen = a == null ? 0 : a.length;
        int boff = (DATA + alen + 7) & ~7;
        NativeBuffer m = ensure((long) boff + (b == null ? 0 : b.length), 0);
        if (a != null) {
            m.buf.put(DATA, a);
        }
        if (b != null) {
            m.buf.put(boff, b);
        }
        return boff;
    }

    /** @return address of the error struct */
    public long err() {
        return mem.addr + ERR;
    }

    /**
     * Address of an out slot.
     *
     * @param i slot 0..7
     * @return its address
     */
    public long out(int i) {
        return mem.addr + OUT + 8L * i;
    }

    /**
     * Reads an out slot.
     *
     * @param i slot 0..7
     * @return its 8-byte value
     */
    public long outLong(int i) {
        return mem.buf.getLong(OUT + 8 * i);
    }

    /**
     * Builds the exception for a failed call whose error struct is at {@code off} of {@code m}
     * ({@link NativeCalls#failure}, the one place that does).
     *
     * @param m memory holding the error struct
     * @param off its offset
     * @param rc the return code
     * @return the exception
     */
    public static FerryException error(NativeBuffer m, int off, int rc) {
        return NativeCalls.failure(m, off, rc);
    }

    /**
     * Builds the exception for a failed call that used this scratch's error struct.
     *
     * @param rc the return code
     * @return the exception
     */
    public FerryException error(int rc) {
        return error(mem, ERR, rc);
    }
}
