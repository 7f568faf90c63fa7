package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.Lifetime;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * What can be read: a {@link Store} (its latest state), a {@link Snapshot} (the state when it was
 * taken) or a {@link Transaction} (the latest committed state plus the transaction's own writes).
 * The reads are written once here for all three, as the C ABI takes "the latest state, a snapshot
 * or a transaction" as one handle; code that only reads can take a {@code StoreReader} and work on
 * any. (Named {@code ReadView} until 0.1.0; that name stays one release as a deprecated interface,
 * {@link ReadView}, which this class implements: "view" is {@link View}, the bytes of a cursor's entry.)
 *
 * <p>Keys are compared as unsigned bytes. A missing key is not an error: {@code get} returns null
 * (or {@link Store#NOT_FOUND}). Each reader adds its own rules (see its class comment): a store's
 * reads run from any thread; an LMDB snapshot and a transaction belong to their thread; a snapshot
 * reads only the families that existed when it was taken; every read of a closed (or, for a
 * transaction, committed) reader throws {@link IllegalStateException}.
 *
 * <p>Thread safety: as the reader's.
 */
@SuppressWarnings({"deprecation", "removal"}) // implements ReadView, its former name, for one release
public abstract sealed class StoreReader implements ReadView permits Snapshot, StoreWriter {
    final StoreCore core;
    /**
     * The handle the C ABI reads through (its {@code snap} argument): 0 for the store's latest state,
     * a snapshot's, or a transaction's ({@code FERRY_TXN_VIEW}).
     */
    final long snapshot;

    StoreReader(StoreCore core, long snapshot) {
        this.core = core;
        this.snapshot = snapshot;
    }

    // ---- the reader's own rules ----

    /**
     * Enters a call on the reader (its guard, thread and state checks) for a family.
     *
     * @param cf the family
     * @return its id; the caller calls {@link #exit()} after the call (when this throws, nothing was entered)
     */
    abstract int enter(ColumnFamily cf);

    /** Leaves a call entered with {@link #enter}. */
    abstract void exit();

    /** @return the children that track the cursors opened through this reader */
    abstract Children cursors();

    /** @return the lifetime the cursors opened through this reader pin */
    abstract Lifetime lifetime();

    /**
     * The exception a failed call reports (a transaction reports one that failed earlier as
     * {@link IllegalStateException}).
     *
     * @param e the engine's failure
     * @return what to throw
     */
    RuntimeException translate(FerryException e) {
        return e;
    }

    // ---- reads ----

    /**
     * Reads a key of the default family.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(byte[] key) {
        return get(core.defaultFamily(), key);
    }

    /**
     * Reads a key.
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key) {
        return read(cf, StoreCore.requireKey(key), 0, key.length, ReadOptions.DEFAULT);
    }

    /**
     * Reads a key with read options ({@link ReadOptions}: RocksDB's fillCache and verifyChecksums;
     * a transaction's reads go through the transaction, which ignores them).
     *
     * @param cf the family
     * @param key the key
     * @param options the read options
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key, ReadOptions options) {
        return read(cf, StoreCore.requireKey(key), 0, key.length, options);
    }

    /**
     * Reads a key given as a slice of an array.
     *
     * @param cf the family
     * @param key the array
     * @param offset first key byte
     * @param length key length
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key, int offset, int length) {
        return read(cf, key, offset, length, ReadOptions.DEFAULT);
    }

    /**
     * Reads a key given as a buffer (position to limit; not moved).
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, ByteBuffer key) {
        byte[] k = new byte[Objects.requireNonNull(key, "key").remaining()];
        key.get(key.position(), k);
        return get(cf, k, 0, k.length);
    }

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
    public int get(byte[] key, ByteBuffer into) {
        return get(core.defaultFamily(), ByteBuffer.wrap(StoreCore.requireKey(key)), into);
    }

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
    public int get(ColumnFamily cf, ByteBuffer key, ByteBuffer into) {
        int id = enter(cf);
        try {
            return core.calls.reads().getInto(core.handle, snapshot, id, key, into, core.readers);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            exit();
        }
    }

    /**
     * Reads many keys of the default family in as few native calls as the value sizes allow.
     *
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(List<byte[]> keys) {
        return multiGet(core.defaultFamily(), keys);
    }

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param cf the family
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys) {
        return multiGet(cf, keys, ReadOptions.DEFAULT);
    }

    /**
     * Reads many keys with read options (as {@link #get(ColumnFamily, byte[], ReadOptions)}).
     *
     * @param cf the family
     * @param keys the keys
     * @param options the read options
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys, ReadOptions options) {
        Objects.requireNonNull(options, "options");
        int id = enter(cf);
        try {
            return core.calls.reads().multiGet(core.handle, snapshot, id, keys, options.flags(), core.readers);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            exit();
        }
    }

    /**
     * Counts the values of a key: in an LMDB {@link ColumnFamilyFlag#DUPSORT} family the number of
     * its duplicates, elsewhere 1 when the key is present.
     *
     * @param cf the family
     * @param key the key
     * @return the count, 0 when the key is absent
     */
    public long valueCount(ColumnFamily cf, byte[] key) {
        StoreCore.requireKey(key);
        int id = enter(cf);
        try {
            return core.calls.reads().valueCount(core.handle, snapshot, id, key);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            exit();
        }
    }

    /** @return a cursor over all keys of the default family */
    public Cursor cursor() {
        return cursor(core.defaultFamily(), KeyRange.all(), null);
    }

    /**
     * Opens a cursor over a range of the default family.
     *
     * @param range the range
     * @return the cursor
     */
    public Cursor cursor(KeyRange range) {
        return cursor(core.defaultFamily(), range, null);
    }

    /**
     * Opens a cursor. Closing the view closes its cursors; a transaction's cursors see its writes
     * (see {@link Transaction} for how a write affects an open cursor).
     *
     * @param cf the family
     * @param range the range
     * @param options cursor options, or null for defaults
     * @return the cursor
     */
    public Cursor cursor(ColumnFamily cf, KeyRange range, CursorOptions options) {
        return open(cf, range, options, false);
    }

    /**
     * Visits every entry of a range of the default family in key order, a page per native call.
     *
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(KeyRange range, EntryVisitor visitor) {
        return scan(core.defaultFamily(), range, visitor);
    }

    /**
     * Visits every entry of a range in key order, a page per native call. The visitor must not
     * write through the transaction it scans.
     *
     * @param cf the family
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(ColumnFamily cf, KeyRange range, EntryVisitor visitor) {
        Objects.requireNonNull(visitor, "visitor");
        try (Cursor c = open(cf, range, null, true)) {
            return StoreCore.drive(c, visitor);
        }
    }

    // ---- shared by the reads ----

    private byte[] read(ColumnFamily cf, byte[] key, int off, int len, ReadOptions options) {
        Objects.requireNonNull(key, "array");
        Objects.checkFromIndexSize(off, len, key.length);
        Objects.requireNonNull(options, "options");
        int id = enter(cf);
        try {
            return core.calls.reads().get(core.handle, snapshot, id, key, off, len, options.flags(), core.readers);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            exit();
        }
    }

    private Cursor open(ColumnFamily cf, KeyRange range, CursorOptions options, boolean scanMode) {
        Objects.requireNonNull(range, "range");
        int id = enter(cf);
        try {
            return core.openCursor(snapshot, cursors(), lifetime(), id, cf.hasDuplicates(), cf.keyOrder(), range, options,
                    scanMode);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            exit();
        }
    }
}
