package dev.ferry;

import dev.ferry.internal.WriteOp;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A {@link StoreReader} that can also be written: a {@link Store} (each write applies at once) or a
 * {@link Transaction} (its writes apply together at its commit, and its own reads see them). The
 * puts and deletes are written once here for both; each writer sends them its own way: a store
 * through the engine's dedicated calls ({@code ferry_put}, {@code ferry_delete},
 * {@code ferry_delete_range}, {@code ferry_write}), a transaction as batch records
 * ({@code ferry_txn_write}). Sending a store's put as a batch record too measured 3-8% slower on
 * RocksDB (docs/design.md, "Layers in Java"), so the store keeps the dedicated calls.
 *
 * <p>Named {@code WriteView} until 0.1.0; that name stays one release as a deprecated interface,
 * {@link WriteView}, which this class implements.
 *
 * <p>Thread safety: as the writer's (a store's writes run from any thread, a transaction's on its own).
 */
@SuppressWarnings({"deprecation", "removal"}) // implements WriteView, its former name, for one release
public abstract sealed class StoreWriter extends StoreReader implements WriteView permits Store, Transaction {
    StoreWriter(StoreCore core, long snapshot) {
        super(core, snapshot);
    }

    /**
     * Sends one write of arrays.
     *
     * @param op {@code WriteOp.PUT} (a key and a value), {@code DELETE} (a key; b is empty),
     *        {@code DELETE_RANGE} (begin and end), {@code DELETE_VALUE} (a key and one of its
     *        values) or {@code MERGE} (a key and an operand); the last three with whole arrays
     * @param cf the family
     */
    abstract void send(WriteOp op, ColumnFamily cf, byte[] a, int ao, int al, byte[] b, int bo, int bl);

    /** Sends a put of buffers (position to limit; not moved). */
    abstract void send(ColumnFamily cf, ByteBuffer key, ByteBuffer value);

    /** Sends a batch. */
    abstract void send(WriteBatch batch);

    /**
     * Writes a key of the default family.
     *
     * @param key the key
     * @param value the value
     */
    public void put(byte[] key, byte[] value) {
        put(core.defaultFamily(), key, value);
    }

    /**
     * Writes a key.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(ColumnFamily cf, byte[] key, byte[] value) {
        StoreCore.requireKey(key);
        Objects.requireNonNull(value, "value");
        send(WriteOp.PUT, cf, key, 0, key.length, value, 0, value.length);
    }

    /**
     * Writes a key given as array slices.
     *
     * @param cf the family
     * @param key key array
     * @param keyOffset first key byte
     * @param keyLength key length
     * @param value value array
     * @param valueOffset first value byte
     * @param valueLength value length
     */
    public void put(ColumnFamily cf, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        requireSlice(key, keyOffset, keyLength);
        requireSlice(value, valueOffset, valueLength);
        send(WriteOp.PUT, cf, key, keyOffset, keyLength, value, valueOffset, valueLength);
    }

    /**
     * Writes a key given as buffers (position to limit; not moved). Both are copied into memory
     * Ferry owns before the engine sees them.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(ColumnFamily cf, ByteBuffer key, ByteBuffer value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        send(cf, key, value);
    }

    /**
     * Deletes a key of the default family (absent keys are fine).
     *
     * @param key the key
     */
    public void delete(byte[] key) {
        delete(core.defaultFamily(), key);
    }

    /**
     * Deletes a key (absent keys are fine).
     *
     * @param cf the family
     * @param key the key
     */
    public void delete(ColumnFamily cf, byte[] key) {
        StoreCore.requireKey(key);
        delete(cf, key, 0, key.length);
    }

    /**
     * Deletes a key given as an array slice.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     */
    public void delete(ColumnFamily cf, byte[] key, int offset, int length) {
        requireSlice(key, offset, length);
        send(WriteOp.DELETE, cf, key, offset, length, key, 0, 0);
    }

    /**
     * Deletes a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     */
    public void delete(ColumnFamily cf, ByteBuffer key) {
        byte[] k = new byte[Objects.requireNonNull(key, "key").remaining()];
        key.get(key.position(), k);
        delete(cf, k, 0, k.length);
    }

    /**
     * Deletes every key in {@code [begin, end)} of the default family, as
     * {@link #deleteRange(ColumnFamily, byte[], byte[])}.
     *
     * @param begin inclusive
     * @param end exclusive
     */
    public void deleteRange(byte[] begin, byte[] end) {
        deleteRange(core.defaultFamily(), begin, end);
    }

    /**
     * Deletes every key in {@code [begin, end)}. Both bounds are keys compared as unsigned bytes;
     * an empty range ({@code begin >= end}, e.g. {@code end = new byte[0]}, the smallest key) is
     * a no-op on every engine (a store makes no native call for it).
     *
     * @param cf the family
     * @param begin inclusive
     * @param end exclusive
     * @throws FerryException.NotSupported in a RocksDB transaction: its transactions have no range delete
     */
    public void deleteRange(ColumnFamily cf, byte[] begin, byte[] end) {
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        send(WriteOp.DELETE_RANGE, cf, begin, 0, begin.length, end, 0, end.length);
    }

    /**
     * Deletes one value of a key in an LMDB {@link ColumnFamilyFlag#DUPSORT} family (an absent
     * pair is fine); the key's other values stay. {@link #delete(ColumnFamily, byte[])} removes the
     * key with all its values.
     *
     * @param cf a DUPSORT family
     * @param key the key
     * @param value the value to remove
     * @throws FerryException.InvalidArgument when the family is not DUPSORT
     * @throws FerryException.NotSupported on RocksDB
     */
    public void delete(ColumnFamily cf, byte[] key, byte[] value) {
        StoreCore.requireKey(key);
        Objects.requireNonNull(value, "value");
        send(WriteOp.DELETE_VALUE, cf, key, 0, key.length, value, 0, value.length);
    }

    /**
     * Merges an operand into a key of the default family, as {@link #merge(ColumnFamily, byte[], byte[])}.
     *
     * @param key the key
     * @param operand the operand
     */
    public void merge(byte[] key, byte[] operand) {
        merge(core.defaultFamily(), key, operand);
    }

    /**
     * Merges an operand into a key with the store's merge operator
     * ({@link StoreOptions#mergeOperator(MergeOperator)}). RocksDB combines the operands with the
     * key's value when it is read or compacted.
     *
     * <pre>{@code
     * try (Store s = Store.open(dir, StoreOptions.rocksdb().mergeOperator(MergeOperator.UINT64_ADD))) {
     *     byte[] one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(1).array();
     *     s.merge(s.defaultColumnFamily(), "hits".getBytes(), one);
     * }
     * }</pre>
     *
     * @param cf the family
     * @param key the key
     * @param operand the operand, in the operator's format (e.g. 8 bytes little-endian for
     *        {@link MergeOperator#UINT64_ADD})
     * @throws FerryException.NotSupported on LMDB (no merge operators) and on a RocksDB store opened
     *         without a merge operator
     */
    public void merge(ColumnFamily cf, byte[] key, byte[] operand) {
        StoreCore.requireKey(key);
        Objects.requireNonNull(operand, "operand");
        send(WriteOp.MERGE, cf, key, 0, key.length, operand, 0, operand.length);
    }

    /**
     * Applies a batch atomically in one native call (in a transaction: all of it or, on failure,
     * none of it on RocksDB; on LMDB a batch of several records that fails part way fails the
     * transaction).
     *
     * @param batch the batch (unchanged; can be reused)
     * @throws IllegalArgumentException when the batch names column families of another store
     */
    public void write(WriteBatch batch) {
        Objects.requireNonNull(batch, "batch");
        core.requireOwn(batch);
        send(batch);
    }

    static void requireSlice(byte[] a, int off, int len) {
        Objects.requireNonNull(a, "array");
        Objects.checkFromIndexSize(off, len, a.length);
    }
}
