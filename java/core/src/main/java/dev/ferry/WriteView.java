package dev.ferry;

import java.nio.ByteBuffer;

/**
 * The former name of {@link StoreWriter}, kept one release so that code written against it still
 * compiles: {@link Store} and {@link Transaction} are still {@code WriteView}s. Use
 * {@code StoreWriter} (see {@link ReadView} for why the name changed).
 *
 * @deprecated use {@link StoreWriter}, which has the same methods; this interface goes in the next
 *             release
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public sealed interface WriteView extends ReadView permits StoreWriter {
    /**
     * Writes a key of the default family.
     *
     * @param key the key
     * @param value the value
     */
    void put(byte[] key, byte[] value);

    /**
     * Writes a key.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    void put(ColumnFamily cf, byte[] key, byte[] value);

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
    void put(ColumnFamily cf, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength);

    /**
     * Writes a key given as buffers (position to limit; not moved). Both are copied into memory
     * Ferry owns before the engine sees them.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    void put(ColumnFamily cf, ByteBuffer key, ByteBuffer value);

    /**
     * Deletes a key of the default family (absent keys are fine).
     *
     * @param key the key
     */
    void delete(byte[] key);

    /**
     * Deletes a key (absent keys are fine).
     *
     * @param cf the family
     * @param key the key
     */
    void delete(ColumnFamily cf, byte[] key);

    /**
     * Deletes a key given as an array slice.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     */
    void delete(ColumnFamily cf, byte[] key, int offset, int length);

    /**
     * Deletes a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     */
    void delete(ColumnFamily cf, ByteBuffer key);

    /**
     * Deletes every key in {@code [begin, end)} of the default family, as
     * {@link #deleteRange(ColumnFamily, byte[], byte[])}.
     *
     * @param begin inclusive
     * @param end exclusive
     */
    void deleteRange(byte[] begin, byte[] end);

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
    void deleteRange(ColumnFamily cf, byte[] begin, byte[] end);

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
    void delete(ColumnFamily cf, byte[] key, byte[] value);

    /**
     * Merges an operand into a key of the default family, as {@link #merge(ColumnFamily, byte[], byte[])}.
     *
     * @param key the key
     * @param operand the operand
     */
    void merge(byte[] key, byte[] operand);

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
    void merge(ColumnFamily cf, byte[] key, byte[] operand);

    /**
     * Applies a batch atomically in one native call (in a transaction: all of it or, on failure,
     * none of it on RocksDB; on LMDB a batch of several records that fails part way fails the
     * transaction).
     *
     * @param batch the batch (unchanged; can be reused)
     * @throws IllegalArgumentException when the batch names column families of another store
     */
    void write(WriteBatch batch);
}
