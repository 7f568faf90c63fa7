package dev.ferry;

import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.WriteOp;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Puts, merges, deletes and range deletes applied atomically by {@link Store#write(WriteBatch)} in one
 * native call. The batch is encoded in Java memory; it holds no native resources, so it can be
 * built on any thread and reused after {@link #clear()}.
 *
 * <pre>{@code
 * try (WriteBatch b = new WriteBatch()) {
 *     b.put(k1, v1).delete(k2);
 *     store.write(b);
 * }
 * }</pre>
 *
 * <p>Thread safety: not thread-safe.
 */
public final class WriteBatch implements AutoCloseable {
    /**
     * The most bytes a batch's records take (the largest array a JVM allocates): each put, merge or
     * delete takes its key's and value's length plus a 16-byte record header.
     */
    public static final int MAX_BYTES = Integer.MAX_VALUE - 16;

    private ByteBuffer buf = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
    private int count;
    private boolean closed;
    private StoreCore familiesOf;

    /** Creates an empty batch. */
    public WriteBatch() {
    }

    /**
     * Adds a put to the default family.
     *
     * @param key the key
     * @param value the value
     * @return this
     */
    public WriteBatch put(byte[] key, byte[] value) {
        return add(WriteOp.PUT, null, key, value);
    }

    /**
     * Adds a put.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     * @return this
     */
    public WriteBatch put(ColumnFamily cf, byte[] key, byte[] value) {
        return add(WriteOp.PUT, Objects.requireNonNull(cf, "cf"), key, value);
    }

    /**
     * Adds a merge of an operand into a key of the default family (see {@link Store#merge(byte[], byte[])}).
     *
     * @param key the key
     * @param operand the operand
     * @return this
     */
    public WriteBatch merge(byte[] key, byte[] operand) {
        return add(WriteOp.MERGE, null, key, operand);
    }

    /**
     * Adds a merge of an operand into a key. Writing the batch fails as a whole, nothing applied,
     * with {@link FerryException.NotSupported} on LMDB and on a RocksDB store without a merge
     * operator ({@link StoreOptions#mergeOperator(MergeOperator)}).
     *
     * @param cf the family
     * @param key the key
     * @param operand the operand
     * @return this
     */
    public WriteBatch merge(ColumnFamily cf, byte[] key, byte[] operand) {
        return add(WriteOp.MERGE, Objects.requireNonNull(cf, "cf"), key, operand);
    }

    /**
     * Adds a delete to the default family.
     *
     * @param key the key
     * @return this
     */
    public WriteBatch delete(byte[] key) {
        return add(WriteOp.DELETE, null, key, EMPTY);
    }

    /**
     * Adds a delete.
     *
     * @param cf the family
     * @param key the key
     * @return this
     */
    public WriteBatch delete(ColumnFamily cf, byte[] key) {
        return add(WriteOp.DELETE, Objects.requireNonNull(cf, "cf"), key, EMPTY);
    }

    /**
     * Adds a delete of one value of a key in an LMDB {@link ColumnFamilyFlag#DUPSORT} family (an
     * absent pair is fine). Writing the batch throws {@link FerryException.InvalidArgument} when the
     * family is not DUPSORT and {@link FerryException.NotSupported} on RocksDB; nothing is applied.
     *
     * @param cf the family
     * @param key the key
     * @param value the value to remove
     * @return this
     */
    public WriteBatch delete(ColumnFamily cf, byte[] key, byte[] value) {
        return add(WriteOp.DELETE_VALUE, Objects.requireNonNull(cf, "cf"), key, value);
    }

    /**
     * Adds a delete of every key in {@code [begin, end)} of the default family. An empty range
     * ({@code begin >= end} in unsigned byte order, e.g. {@code end = new byte[0]}) is counted
     * and deletes nothing.
     *
     * @param begin inclusive
     * @param end exclusive
     * @return this
     */
    public WriteBatch deleteRange(byte[] begin, byte[] end) {
        return addRange(null, begin, end);
    }

    /**
     * Adds a delete of every key in {@code [begin, end)}. Both bounds are keys compared as
     * unsigned bytes; an empty range ({@code begin >= end}, e.g. {@code end = new byte[0]}, the
     * smallest key) is counted by {@link #count()} and deletes nothing: the batch applies the same
     * as without it, on every engine.
     *
     * @param cf the family
     * @param begin inclusive
     * @param end exclusive
     * @return this
     */
    public WriteBatch deleteRange(ColumnFamily cf, byte[] begin, byte[] end) {
        return addRange(Objects.requireNonNull(cf, "cf"), begin, end);
    }

    /** @return the number of operations added */
    public int count() {
        checkOpen();
        return count;
    }

    /** @return the encoded size in bytes */
    public int sizeInBytes() {
        checkOpen();
        return buf.position();
    }

    /** Removes every operation; the batch can be reused. */
    public void clear() {
        checkOpen();
        buf.clear();
        count = 0;
        familiesOf = null;
    }

    /** Releases the batch; later calls throw {@link IllegalStateException}. Idempotent. */
    @Override
    public void close() {
        closed = true;
        buf = null;
    }

    private static final byte[] EMPTY = new byte[0];

    /** A range delete; an empty range is checked like any record but not added. */
    private WriteBatch addRange(ColumnFamily cf, byte[] begin, byte[] end) {
        checkOpen();
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        // an empty range is recorded (count() is the number of operations added) and deletes
        // nothing: the shim skips it on both engines, so it never reaches RocksDB's checks
        return add(WriteOp.DELETE_RANGE, cf, begin, end);
    }

    /** @return the family's store (null for no family), after checking the family can join the batch */
    private StoreCore checkFamily(ColumnFamily cf) {
        if (cf == null) {
            return null;
        }
        StoreCore owner = StoreCore.ownerOf(cf);
        if (familiesOf != null && familiesOf != owner) {
            throw new IllegalArgumentException(cf + " belongs to another store than the batch's other families");
        }
        return owner;
    }

    private WriteBatch add(WriteOp op, ColumnFamily cf, byte[] a, byte[] b) {
        checkOpen();
        Objects.requireNonNull(a, "key");
        Objects.requireNonNull(b, "value");
        StoreCore owner = checkFamily(cf);
        long need = NativeCalls.batchRecordSize(a.length, b.length);
        if (buf.remaining() < need) {
            long needed = buf.position() + need;
            if (needed > MAX_BYTES) {
                throw new IllegalStateException("write batch exceeds 2 GiB: " + count + " records take " + buf.position()
                        + " bytes and this one " + need + " more; write the batch and start another");
            }
            // doubling, but never past the most a batch holds (a batch of 1.5 GiB is fine)
            long cap = Math.min(MAX_BYTES, Math.max((long) buf.capacity() * 2, needed));
            ByteBuffer n = ByteBuffer.allocate((int) cap).order(ByteOrder.nativeOrder());
            buf.flip();
            n.put(buf);
            buf = n;
        }
        NativeCalls.batchRecord(buf, op, cf == null ? 0 : StoreCore.idOf(cf), a, b);
        count++;
        if (owner != null) {
            familiesOf = owner;
        }
        return this;
    }

    /** The encoded records, position = length. */
    ByteBuffer encoded() {
        checkOpen();
        return buf;
    }

    /** The store whose families the batch names, or null when only the default family is used. */
    StoreCore familiesOf() {
        return familiesOf;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("write batch is closed");
        }
    }
}
