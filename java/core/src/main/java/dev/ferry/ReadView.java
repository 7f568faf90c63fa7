package dev.ferry;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The former name of {@link StoreReader}, kept one release so that code written against it still
 * compiles: {@link Store}, {@link Snapshot} and {@link Transaction} are still {@code ReadView}s.
 * Use {@code StoreReader}: "view" names {@link View}, the bytes of a cursor's entry, and the two
 * names collided.
 *
 * @deprecated use {@link StoreReader}, which has the same methods; this interface goes in the next
 *             release
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public sealed interface ReadView permits StoreReader, WriteView {
    /**
     * Reads a key of the default family.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    byte[] get(byte[] key);

    /**
     * Reads a key.
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    byte[] get(ColumnFamily cf, byte[] key);

    /**
     * Reads a key with read options ({@link ReadOptions}: RocksDB's fillCache and verifyChecksums;
     * a transaction's reads go through the transaction, which ignores them).
     *
     * @param cf the family
     * @param key the key
     * @param options the read options
     * @return a copy of the value, or null when absent
     */
    byte[] get(ColumnFamily cf, byte[] key, ReadOptions options);

    /**
     * Reads a key given as a slice of an array.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     * @return a copy of the value, or null when absent
     */
    byte[] get(ColumnFamily cf, byte[] key, int offset, int length);

    /**
     * Reads a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    byte[] get(ColumnFamily cf, ByteBuffer key);

    /**
     * Reads a key of the default family into a buffer without allocating.
     *
     * @param key the key
     * @param into receives the value as by a relative {@link ByteBuffer#put(byte[])}: up to
     *        {@code into.remaining()} bytes written from its position, which advances by the bytes
     *        written; its limit is not changed (call {@code flip()} to read the value); when the key
     *        is absent nothing changes
     * @return the value's full length (larger than the bytes written when {@code into} was
     *         too small; {@code Integer.MAX_VALUE} for a value of 2 GiB or more), or {@link Store#NOT_FOUND}
     */
    int get(byte[] key, ByteBuffer into);

    /**
     * Reads a key into a buffer without allocating (the value is copied in through the buffer's own API).
     *
     * @param cf the family
     * @param key the key (position to limit; not moved)
     * @param into receives the value as by a relative {@link ByteBuffer#put(byte[])}: up to
     *        {@code into.remaining()} bytes written from its position, which advances by the bytes
     *        written; its limit is not changed (call {@code flip()} to read the value); when the key
     *        is absent nothing changes
     * @return the value's full length (larger than the bytes written when {@code into} was too
     *         small), or {@link Store#NOT_FOUND}
     */
    int get(ColumnFamily cf, ByteBuffer key, ByteBuffer into);

    /**
     * Reads many keys of the default family in as few native calls as the value sizes allow.
     *
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    List<byte[]> multiGet(List<byte[]> keys);

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param cf the family
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys);

    /**
     * Reads many keys with read options (as {@link #get(ColumnFamily, byte[], ReadOptions)}).
     *
     * @param cf the family
     * @param keys the keys
     * @param options the read options
     * @return values in key order, null for absent keys
     */
    List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys, ReadOptions options);

    /**
     * Counts the values of a key: in an LMDB {@link ColumnFamilyFlag#DUPSORT} family the number of
     * its duplicates, elsewhere 1 when the key is present.
     *
     * @param cf the family
     * @param key the key
     * @return the count, 0 when the key is absent
     */
    long valueCount(ColumnFamily cf, byte[] key);

    /** @return a cursor over all keys of the default family */
    Cursor cursor();

    /**
     * Opens a cursor over a range of the default family.
     *
     * @param range the range
     * @return the cursor
     */
    Cursor cursor(KeyRange range);

    /**
     * Opens a cursor. Closing the view closes its cursors; a transaction's cursors see its writes
     * (see {@link Transaction} for how a write affects an open cursor).
     *
     * @param cf the family
     * @param range the range
     * @param options cursor options, or null for defaults
     * @return the cursor
     */
    Cursor cursor(ColumnFamily cf, KeyRange range, CursorOptions options);

    /**
     * Visits every entry of a range of the default family in key order, a page per native call.
     *
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    long scan(KeyRange range, EntryVisitor visitor);

    /**
     * Visits every entry of a range in key order, a page per native call. The visitor must not
     * write through the transaction it scans.
     *
     * @param cf the family
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    long scan(ColumnFamily cf, KeyRange range, EntryVisitor visitor);
}
