package dev.ferry;

import java.nio.ByteBuffer;
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
 * Multi-byte reads without a {@link ByteOrder} use the platform's native order.
 *
 * <p>Thread safety: not thread-safe; belongs to the cursor's thread.
 */
public final class View {
    ByteBuffer buf;
    int off;
    int len;
    long addr;
    boolean valid;

    View() {
    }

    void set(ByteBuffer buf, int off, int len, long addr) {
        if (this.buf != buf) {
            this.buf = buf; // mostly the same page or window: skip the store (and its GC barrier)
        }
        this.off = off;
        this.len = len;
        this.addr = addr;
        this.valid = true;
    }

    private void checkValid() {
        if (!valid) {
            throw new IllegalStateException("view is not valid: its cursor moved off its range, is unpositioned or closed");
        }
    }

    private void check(int index, int size) {
        checkValid();
        if ((index < 0 || (long) index + size > len)) {
            throw new IndexOutOfBoundsException("index=" + index + " size=" + size + " length=" + len);
        }
    }

    /** @return the number of bytes */
    public int length() {
        checkValid();
        return len;
    }

    /**
     * Reads one byte.
     *
     * @param index position, {@code 0 <= index < length()}
     * @return the byte
     */
    public byte getByte(int index) {
        check(index, 1);
        return buf.get(off + index);
    }

    /**
     * Reads a short in native order.
     *
     * @param index position of the first byte
     * @return the value
     */
    public short getShort(int index) {
        check(index, 2);
        return buf.getShort(off + index);
    }

    /**
     * Reads an int in native order.
     *
     * @param index position of the first byte
     * @return the value
     */
    public int getInt(int index) {
        check(index, 4);
        return buf.getInt(off + index);
    }

    /**
     * Reads an int in the given order (big-endian is the usual order of sortable keys).
     *
     * @param index position of the first byte
     * @param order byte order
     * @return the value
     */
    public int getInt(int index, ByteOrder order) {
        int v = getInt(index);
        return order == ByteOrder.nativeOrder() ? v : Integer.reverseBytes(v);
    }

    /**
     * Reads a long in native order.
     *
     * @param index position of the first byte
     * @return the value
     */
    public long getLong(int index) {
        check(index, 8);
        return buf.getLong(off + index);
    }

    /**
     * Reads a long in the given order.
     *
     * @param index position of the first byte
     * @param order byte order
     * @return the value
     */
    public long getLong(int index, ByteOrder order) {
        long v = getLong(index);
        return order == ByteOrder.nativeOrder() ? v : Long.reverseBytes(v);
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
        check(index, length);
        buf.get(off + index, dst, dstOffset, length);
    }

    /**
     * Copies the whole view into {@code dst} at its position, advancing it.
     *
     * @param dst destination with at least {@link #length()} bytes remaining
     */
    public void copyTo(ByteBuffer dst) {
        checkValid();
        Objects.requireNonNull(dst, "dst");
        if (dst.remaining() < len) {
            throw new IndexOutOfBoundsException("length=" + len + " remaining=" + dst.remaining());
        }
        dst.put(dst.position(), buf, off, len);
        dst.position(dst.position() + len);
    }

    /** @return a new array with the view's bytes */
    public byte[] toByteArray() {
        checkValid();
        byte[] r = new byte[len];
        buf.get(off, r, 0, len);
        return r;
    }

    /** @return the bytes decoded as UTF-8 */
    public String toUtf8String() {
        return new String(toByteArray(), StandardCharsets.UTF_8);
    }

    /**
     * Returns a read-only buffer over the bytes (allocates a small buffer object; the memory
     * is not copied and is valid only as long as the view).
     *
     * @return the buffer, position 0, limit {@link #length()}
     */
    public ByteBuffer asByteBuffer() {
        checkValid();
        return buf.slice(off, len).asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    }

    /**
     * Compares contents with an array.
     *
     * @param other the array
     * @return true when the bytes are equal
     */
    public boolean contentEquals(byte[] other) {
        return compareTo(other) == 0 && len == other.length;
    }

    /**
     * Compares with an array in unsigned lexicographic order (the engines' key order).
     *
     * @param other the array
     * @return negative, zero or positive
     */
    public int compareTo(byte[] other) {
        checkValid();
        Objects.requireNonNull(other, "other");
        int n = Math.min(len, other.length);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(buf.get(off + i) & 0xFF, other[i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(len, other.length);
    }

    @Override
    public String toString() {
        if (!valid) {
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
