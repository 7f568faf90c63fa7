package dev.ferry;

import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A consistent, read-only view of a store at the moment it was taken (RocksDB snapshot, LMDB
 * read transaction). Reads and cursors through it ignore later writes.
 *
 * <p>Closing a snapshot closes the cursors opened on it. Closing the store closes its snapshots.
 *
 * <p>Thread safety: RocksDB snapshots may be used from any thread. LMDB snapshots are bound to
 * the opening thread unless the store was opened with {@link LmdbFlag#NOTLS} (then used by one
 * thread at a time); wrong-thread use throws {@link IllegalStateException}.
 */
public final class Snapshot implements AutoCloseable {
    final Store store;
    final Guard guard = new Guard("snapshot");
    final long handle;
    private final Thread owner;
    private final Set<Cursor> cursors = ConcurrentHashMap.newKeySet();
    final Lifetime lifetime;

    Snapshot(Store store, long handle, boolean threadBound) {
        this.store = store;
        this.handle = handle;
        this.owner = threadBound ? Thread.currentThread() : null;
        this.lifetime = new Lifetime(() -> {
            store.binding.snapshotClose(handle);
            store.lifetime.unpin();
        });
    }

    /**
     * Reads a key of the default family.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(byte[] key) {
        return get(store.defaultColumnFamily(), key);
    }

    /**
     * Reads a key.
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key) {
        enter();
        try {
            return store.getImpl(handle, store.cfId(cf), Store.requireKey(key), 0, key.length);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads a key into a buffer without allocating.
     *
     * @param cf the family
     * @param key the key (position to limit)
     * @param into receives the value at its position
     * @return the value's full length, or {@link Store#NOT_FOUND}
     */
    public int get(ColumnFamily cf, ByteBuffer key, ByteBuffer into) {
        enter();
        try {
            return store.getIntoImpl(handle, store.cfId(cf), key, into);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads many keys in as few native calls as the value sizes allow.
     *
     * @param cf the family
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys) {
        enter();
        try {
            return store.multiGetImpl(handle, store.cfId(cf), keys);
        } finally {
            guard.exit();
        }
    }

    /**
     * Opens a cursor over a range of the default family.
     *
     * @param range the range
     * @return the cursor
     */
    public Cursor cursor(KeyRange range) {
        return cursor(store.defaultColumnFamily(), range, null);
    }

    /**
     * Opens a cursor.
     *
     * @param cf the family
     * @param range the range
     * @param options cursor options or null
     * @return the cursor
     */
    public Cursor cursor(ColumnFamily cf, KeyRange range, CursorOptions options) {
        return openTracked(cf, range, options, false);
    }

    /**
     * Visits every entry of a range in key order.
     *
     * @param cf the family
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(ColumnFamily cf, KeyRange range, EntryVisitor visitor) {
        try (Cursor c = openTracked(cf, range, null, true)) {
            return Store.drive(c, visitor);
        }
    }

    /** Opens a cursor on this snapshot and tracks it, so closing the snapshot closes it. */
    private Cursor openTracked(ColumnFamily cf, KeyRange range, CursorOptions options, boolean scanMode) {
        enter();
        try {
            Cursor c = store.openCursor(this, cf, range, options, scanMode);
            cursors.add(c);
            return c;
        } finally {
            guard.exit();
        }
    }

    /** @return true once closed */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /** Closes the snapshot and its cursors. Idempotent. */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        for (Cursor c : cursors) {
            c.close();
        }
        cursors.clear();
        store.forget(this);
        lifetime.unpin();
    }

    void forget(Cursor c) {
        cursors.remove(c);
    }

    private void enter() {
        if (owner != null && owner != Thread.currentThread()) {
            throw new IllegalStateException("LMDB snapshot opened by thread '" + owner.getName() + "' used from thread '"
                    + Thread.currentThread().getName() + "' (open the store with LmdbFlag.NOTLS to move snapshots between threads)");
        }
        guard.enter();
    }
}
