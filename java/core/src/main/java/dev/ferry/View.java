package dev.ferry;

import dev.ferry.internal.Mem;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.binding.Bindings;
import dev.ferry.spi.EntryBuffers;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A zero-copy view of a key or value: a flyweight re-pointed by its {@link Cursor} at each
 * entry, in the manner of Agrona's DirectBuffer. It is valid until the cursor moves again or
 * closes; reading it after the cursor closed or ran off its range throws
 * {@link IllegalStateException}. Use {@link #toByteArray()} to keep the bytes.
 *
 * <p>Index arithmetic is always checked ({@link IndexOutOfBoundsException} with index, size and
 * length): a view never reads outside its entry, even when it points into an LMDB map.
 * Multi-byte reads without a {@link ByteOrder} are big-endian, as {@link ByteBuffer}'s are (and as
 * keys that sort as unsigned bytes encode numbers); the variants taking a {@link ByteOrder} read
 * either order. Reads go
 * straight to native memory (docs/design.md, "Reading pages and views in Java"); a view keeps
 * its cursor reachable, so an unclosed cursor is not cleaned up while one of its views is held.
 *
 * <p>Thread safety: confined to the cursor's thread. Every method except {@link #toString()}
 * throws {@link IllegalStateException} on another thread: the memory a view reads belongs to the
 * cursor, and only the cursor's thread knows when it is released.
 */
public final class View {
    private static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    /** Address of byte 0 (meaningful while {@link #len} is not negative). */
    long addr;
    /** Length in bytes; -1 while the view is not valid (one field checks both). */
    int len = -1;
    /** Keeps the owner (and the memory it holds) reachable as long as the view is. */
    private final Cursor owner;
    private final NativeCalls calls;
    /** The only thread allowed to read: the cursor's. */
    private final Thread thread;

    View(Cursor owner, NativeCalls calls, Thread thread) {
        this.owner = owner;
        this.calls = calls;
        this.thread = thread;
    }

    void set(long addr, int len) {
        this.addr = addr;
        this.len = len;
    }

    void invalidate() {
        len = -1;
    }

    /** @return the address of byte {@code index}, after checking {@code [index, index + size)} lies inside */
    private long at(int index, int size) {
        int l = len;
        if (Thread.currentThread() != thread || index < 0 || index > l - size) {
            throw outside(index, size);
        }
        return addr + index;
    }

    private RuntimeException outside(int index, int size) {
        if (Thread.currentThread() != thread) {
            return wrongThread();
        }
        if (len < 0) {
            return invalid();
        }
        return new IndexOutOfBoundsException("index=" + index + " size=" + size + " length=" + len);
    }

    private static IllegalStateException invalid() {
        return new IllegalStateException("view is not valid: its cursor moved off its range, is unpositioned or closed");
    }

    private IllegalStateException wrongThread() {
        return new IllegalStateException("view of a cursor opened by thread '" + thread.getName() + "' read from thread '"
                + Thread.currentThread().getName() + "': cursors and their views are confined to their thread");
    }

    /** @return the length, after checking the caller's thread and that the view is valid */
    private int checkedLength() {
        int l = len;
        if (l < 0 || Thread.currentThread() != thread) {
            throw Thread.currentThread() != thread ? wrongThread() : invalid();
        }
        return l;
    }

    /** @return the number of bytes */
    public int length() {
        return checkedLength();
    }

    /**
     * Reads one byte.
     *
     * @param index position, {@code 0 <= index < length()}
     * @return the byte
     */
    public byte getByte(int index) {
        return Mem.getByte(at(index, 1));
    }

    /**
     * Reads a big-endian short (the order {@link ByteBuffer} uses by default).
     *
     * @param index position of the first byte
     * @return the value
     */
    public short getShort(int index) {
        return getShort(index, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Reads a short in the given order.
     *
     * @param index position of the first byte
     * @param order byte order
     * @return the value
     */
    public short getShort(int index, ByteOrder order) {
        Objects.requireNonNull(order, "order");
        short v = Mem.getShort(at(index, 2));
        return order == NATIVE ? v : Short.reverseBytes(v);
    }

    /**
     * Reads a big-endian int (the order {@link ByteBuffer} uses by default, and the order in which
     * non-negative ints sort as unsigned bytes).
     *
     * @param index position of the first byte
     * @return the value
     */
    public int getInt(int index) {
        return getInt(index, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Reads an int in the given order.
     *
     * @param index position of the first byte
     * @param order byte order
     * @return the value
     */
    public int getInt(int index, ByteOrder order) {
        Objects.requireNonNull(order, "order");
        int v = Mem.getInt(at(index, 4));
        return order == NATIVE ? v : Integer.reverseBytes(v);
    }

    /**
     * Reads a big-endian long (the order {@link ByteBuffer} uses by default, and the order in which
     * non-negative longs sort as unsigned bytes). Note: an Agrona buffer over the same bytes
     * ({@link AgronaViews#wrap(View)}) reads {@code getLong(0)} in native order (little-endian on
     * x86-64 and aarch64), Agrona's default; pass {@code ByteOrder.BIG_ENDIAN} there, or
     * {@code ByteOrder.nativeOrder()} here, to read the same number through both.
     *
     * @param index position of the first byte
     * @return the value
     */
    public long getLong(int index) {
        return getLong(index, ByteOrder.BIG_ENDIAN);
    }

    /**
     * Reads a long in the given order.
     *
     * @param index position of the first byte
     * @param order byte order
     * @return the value
     */
    public long getLong(int index, ByteOrder order) {
        Objects.requireNonNull(order, "order");
        long v = Mem.getLong(at(index, 8));
        return order == NATIVE ? v : Long.reverseBytes(v);
    }

    /**
     * Copies bytes into an array.
     *
     * @param index first byte of this view
     * @param dst destination
     * @param dstOffset first byte of the destination
     * @param length count
     */
    public void getBytes(int index, byte[] dst, int dstOffset, int length) {
        Objects.requireNonNull(dst, "dst");
        Objects.checkFromIndexSize(dstOffset, length, dst.length);
        long a = at(index, length);
        Mem.copy(a, dst, dstOffset, length);
        Reference.reachabilityFence(this); // a long copy may pass a safepoint
    }

    /**
     * Copies the whole view into {@code dst} at its position, advancing it.
     *
     * @param dst destination with at least {@link #length()} bytes remaining
     */
    public void copyTo(ByteBuffer dst) {
        int l = checkedLength();
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        if (dst.remaining() < l) {
            throw new IndexOutOfBoundsException("length=" + l + " remaining=" + dst.remaining());
        }
        int p = dst.position();
        if (dst.hasArray()) {
            Mem.copy(addr, dst.array(), dst.arrayOffset() + p, l);
        } else if (l > 0) {
            dst.put(p, calls.wrap(addr, l), 0, l);
        }
        Reference.reachabilityFence(this);
        dst.position(p + l);
    }

    /** @return a new array with the view's bytes */
    public byte[] toByteArray() {
        int l = checkedLength();
        byte[] r = new byte[l];
        Mem.copy(addr, r, 0, l);
        Reference.reachabilityFence(this);
        return r;
    }

    /** @return the bytes decoded as UTF-8 */
    public String toUtf8String() {
        return new String(toByteArray(), StandardCharsets.UTF_8);
    }

    /**
     * Returns the bytes as a read-only buffer in big-endian order (a new {@link ByteBuffer}'s
     * default, and the order of {@link #getInt(int)}); change it with {@link ByteBuffer#order(ByteOrder)}.
     *
     * <p>On Java 22+ with {@code dev.ferry:ferry-ffm} on the class path the buffer reads the entry
     * in place (no copy) and is scoped to it: once the cursor moves or closes, any access to the
     * buffer throws {@link IllegalStateException}, and from another thread it throws
     * {@code WrongThreadException}; it never reads memory the cursor has let go. Otherwise (Java
     * 17-21) it is a copy. Asking for a scoped buffer turns the cursor's allocation-free step off
     * for the current entry; use the view's own accessors in hot loops.
     *
     * @return the buffer, position 0, limit {@link #length()}
     */
    public ByteBuffer asByteBuffer() {
        int l = checkedLength();
        EntryBuffers scoped = Bindings.entryBuffers();
        ByteBuffer b = l == 0 ? ByteBuffer.allocate(0)
                : scoped != null ? scoped.readOnly(owner.currentEntry(), addr, l)
                : ByteBuffer.wrap(toByteArray());
        return b.asReadOnlyBuffer().order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * Compares contents with an array.
     *
     * @param other the array
     * @return true when the bytes are equal
     */
    public boolean contentEquals(byte[] other) {
        return compareTo(other) == 0;
    }

    /**
     * Compares with an array in unsigned lexicographic order (the engines' key order).
     *
     * @param other the array
     * @return negative, zero or positive
     */
    public int compareTo(byte[] other) {
        int l = checkedLength();
        Objects.requireNonNull(other, "other");
        int n = Math.min(l, other.length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(Mem.getByte(addr + i) & 0xFF, other[i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(l, other.length);
    }

    /** @return the bytes in hex (the first 64), or a note when the view is invalid or owned by another thread */
    @Override
    public String toString() {
        if (Thread.currentThread() != thread) {
            return "View[readable on thread '" + thread.getName() + "' only]";
        }
        if (len < 0) {
            return "View[invalid]";
        }
        byte[] b = toByteArray();
        return "View[" + hex(b, 0, Math.min(b.length, 64)) + (b.length > 64 ? "..." : "") + "]";
    }

    static String hex(byte[] b, int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        return sb.toString();
    }
}
