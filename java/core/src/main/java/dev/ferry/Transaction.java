package dev.ferry;

import dev.ferry.internal.Abi;
import dev.ferry.internal.Children;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeBuffer;
import dev.ferry.internal.Once;
import dev.ferry.internal.Scratch;
import dev.ferry.spi.NativeBinding;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * A write transaction with read-your-writes: its reads, cursors and scans see its own writes,
 * which become visible to others, all at once, at {@link #commit()}. Closing it without a commit
 * rolls it back. Begin one with {@link Store#beginTransaction()}, or run a read-modify-write body
 * with retries with {@link Store#inTransaction}.
 *
 * <pre>{@code
 * try (Transaction txn = store.beginTransaction()) {
 *     long n = decode(txn.getForUpdate(key));
 *     txn.put(key, encode(n + 1));
 *     txn.commit();
 * }
 * }</pre>
 *
 * <p>Engines (docs/usage.md, "Transactions"):
 * <ul>
 * <li>LMDB: its one write transaction. One writer at a time per store: {@link Store#beginTransaction()}
 *     waits while another transaction is open ({@link Store#beginTransaction(long)} waits at most that
 *     long, 0 not at all, then throws {@link FerryException.TimedOut} or {@link FerryException.Busy}),
 *     and so does every plain write of the store ({@code put}, {@code write}, family create and
 *     drop). A plain write on the thread that holds the transaction throws
 *     {@link FerryException.Busy} (it would wait for itself): write through the transaction.</li>
 * <li>RocksDB: a store opened with {@link StoreOptions#transactions(TransactionMode)}. Pessimistic:
 *     writes and {@link #getForUpdate} lock their keys (a lock not granted within the lock timeout
 *     throws {@link FerryException.TimedOut}, a deadlock {@link FerryException.Deadlock});
 *     optimistic: {@link #commit()} throws {@link FerryException.Conflict} when a key the
 *     transaction wrote or read for update was written by someone else meanwhile. Reads see the
 *     latest committed state plus the transaction's writes. {@link #deleteRange} is not supported
 *     ({@link FerryException.NotSupported}). A store opened without transactions throws
 *     {@link FerryException.NotSupported} from {@link Store#beginTransaction()}.</li>
 * </ul>
 *
 * <p>Cursors of a transaction see its writes made before each positioning call. A write through
 * the transaction unpositions its open cursors: their views become invalid (LMDB pointer views
 * point into the transaction's own pages, which the write may change), and the next
 * {@link Cursor#next()} / {@link Cursor#prev()} continues after / before the key the cursor stood
 * on, now seeing the write. Committing or closing the transaction closes its cursors.
 *
 * <p>After {@link #commit()} (successful or not) the transaction is over: every method but
 * {@link #close()} and {@link #isClosed()} throws {@link IllegalStateException}, a second commit
 * included. A transaction dropped without being closed is rolled back by a cleaner once it is
 * unreachable (LMDB: see below).
 *
 * <p>Thread safety: a transaction and its cursors are confined to the thread that began it (LMDB
 * binds its write transaction to that thread): every method but {@link #close()} throws
 * {@link IllegalStateException} on another thread. {@link #close()} may be called from any thread
 * (closing the store closes its transactions); on LMDB, a transaction closed (or cleaned) on
 * another thread cannot be ended there: it is abandoned, the store's other writers then fail with
 * {@link FerryException.Busy} instead of waiting for it, and it is rolled back at the beginning
 * thread's next write on the store, or when the store closes.
 */
public final class Transaction implements AutoCloseable {
    final Store store;
    final long handle;
    private final NativeBinding binding;
    private final Thread owner;
    private final Guard guard = new Guard("transaction");
    /** Cursors opened through this transaction, held weakly. */
    final Children cursors = new Children();
    final Lifetime lifetime;
    private final Cleaner.Cleanable cleanable;
    private volatile Object token;
    /** Committed, or a commit failed: the transaction is over (owner thread only). */
    private boolean ended;

    Transaction(Store store, long handle, Once release) {
        this.store = store;
        this.handle = handle;
        this.binding = store.binding;
        this.owner = Thread.currentThread();
        Lifetime lt = new Lifetime(release);
        this.lifetime = lt;
        this.cleanable = Store.CLEANER.register(this, new Once(lt::unpin));
    }

    /** Registers with the store's children (weakly), so closing the store closes this transaction. */
    void track(Children storeChildren) {
        token = storeChildren.add(this);
    }

    // ---- reads ----

    /**
     * Reads a key of the default family, seeing this transaction's writes.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(byte[] key) {
        return get(store.defaultColumnFamily(), key);
    }

    /**
     * Reads a key, seeing this transaction's writes.
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] get(ColumnFamily cf, byte[] key) {
        Store.requireKey(key);
        int id = store.cfId(cf);
        enter();
        try {
            return store.getImpl(handle, id, key, 0, key.length);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads a key into a buffer (as {@link Store#get(ColumnFamily, ByteBuffer, ByteBuffer)}), seeing
     * this transaction's writes.
     *
     * @param cf the family
     * @param key the key (position to limit; not moved)
     * @param into receives the value
     * @return the value's full length, or {@link Store#NOT_FOUND}
     */
    public int get(ColumnFamily cf, ByteBuffer key, ByteBuffer into) {
        int id = store.cfId(cf);
        enter();
        try {
            return store.getIntoImpl(handle, id, key, into);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads many keys, seeing this transaction's writes.
     *
     * @param cf the family
     * @param keys the keys
     * @return values in key order, null for absent keys
     */
    public List<byte[]> multiGet(ColumnFamily cf, List<byte[]> keys) {
        int id = store.cfId(cf);
        enter();
        try {
            return store.multiGetImpl(handle, id, keys);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads a key of the default family for update: see {@link #getForUpdate(ColumnFamily, byte[])}.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] getForUpdate(byte[] key) {
        return getForUpdate(store.defaultColumnFamily(), key);
    }

    /**
     * Reads a key that the transaction means to write from what it read. RocksDB pessimistic: locks
     * the key until the transaction ends (others' writes of it wait; {@link FerryException.TimedOut},
     * {@link FerryException.Deadlock}); optimistic: the commit throws {@link FerryException.Conflict}
     * when someone else wrote the key after this read; LMDB: a plain read (the transaction already
     * excludes every other writer).
     *
     * @param cf the family
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] getForUpdate(ColumnFamily cf, byte[] key) {
        Store.requireKey(key);
        int id = store.cfId(cf);
        enter();
        try {
            return dev.ferry.internal.PointReads.get(binding, dev.ferry.internal.Readers.NONE,
                    (k, kl, d, c, vo, e) -> binding.txnGetForUpdate(handle, id, k, kl, d, c, vo, e), key, 0, key.length);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Opens a cursor over a range of the default family that sees this transaction's writes.
     *
     * @param range the range
     * @return the cursor (closed with the transaction at the latest)
     */
    public Cursor cursor(KeyRange range) {
        return cursor(store.defaultColumnFamily(), range, null);
    }

    /**
     * Opens a cursor that sees this transaction's writes (see the class comment for how a write
     * affects an open cursor). LMDB pointer views point into the transaction's pages.
     *
     * @param cf the family
     * @param range the range
     * @param options cursor options or null
     * @return the cursor (closed with the transaction at the latest)
     */
    public Cursor cursor(ColumnFamily cf, KeyRange range, CursorOptions options) {
        return openCursor(cf, range, options, false);
    }

    /**
     * Visits every entry of a range in key order, seeing this transaction's writes. The visitor
     * must not write through the transaction.
     *
     * @param cf the family
     * @param range the range
     * @param visitor receives each entry; return false to stop
     * @return the number of entries visited
     */
    public long scan(ColumnFamily cf, KeyRange range, EntryVisitor visitor) {
        Objects.requireNonNull(visitor, "visitor");
        try (Cursor c = openCursor(cf, range, null, true)) {
            return Store.drive(c, visitor);
        }
    }

    private Cursor openCursor(ColumnFamily cf, KeyRange range, CursorOptions options, boolean scanMode) {
        enter();
        try {
            return store.openCursor(handle, cursors, lifetime, cf, range, options, scanMode);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    // ---- writes ----

    /**
     * Writes a key of the default family in this transaction.
     *
     * @param key the key
     * @param value the value
     */
    public void put(byte[] key, byte[] value) {
        put(store.defaultColumnFamily(), key, value);
    }

    /**
     * Writes a key in this transaction.
     *
     * @param cf the family
     * @param key the key
     * @param value the value
     */
    public void put(ColumnFamily cf, byte[] key, byte[] value) {
        Store.requireKey(key);
        Objects.requireNonNull(value, "value");
        record(Abi.OP_PUT, store.cfId(cf), key, value);
    }

    /**
     * Deletes a key of the default family in this transaction (absent keys are fine).
     *
     * @param key the key
     */
    public void delete(byte[] key) {
        delete(store.defaultColumnFamily(), key);
    }

    /**
     * Deletes a key in this transaction (absent keys are fine).
     *
     * @param cf the family
     * @param key the key
     */
    public void delete(ColumnFamily cf, byte[] key) {
        Store.requireKey(key);
        record(Abi.OP_DELETE, store.cfId(cf), key, new byte[0]);
    }

    /**
     * Deletes every key in {@code [begin, end)} in this transaction (LMDB only; an empty range is a
     * no-op).
     *
     * @param cf the family
     * @param begin inclusive
     * @param end exclusive
     * @throws FerryException.NotSupported on RocksDB: its transactions have no range delete
     */
    public void deleteRange(ColumnFamily cf, byte[] begin, byte[] end) {
        Objects.requireNonNull(begin, "begin");
        Objects.requireNonNull(end, "end");
        record(Abi.OP_DELETE_RANGE, store.cfId(cf), begin, end);
    }

    /**
     * Applies a batch inside this transaction, all of it or (on failure) none of it on RocksDB; on
     * LMDB a batch of several records that fails part way fails the transaction.
     *
     * @param batch the batch (unchanged; can be reused)
     */
    public void write(WriteBatch batch) {
        Objects.requireNonNull(batch, "batch");
        ByteBuffer enc = batch.encoded();
        Store fams = batch.familiesOf();
        if (fams != null && fams != store) {
            throw new IllegalArgumentException("the batch names column families of another store");
        }
        int count = batch.count();
        int len = enc.position();
        enter();
        try {
            beforeWrite();
            Scratch s = Scratch.get(binding);
            NativeBuffer m = s.ensure(Scratch.DATA + (long) len, 0);
            m.buf.put(Scratch.DATA, enc, 0, len);
            int rc = binding.txnWrite(handle, m.addr + Scratch.DATA, len, count, s.err());
            if (rc != 0) {
                throw failure(s, rc);
            }
        } finally {
            guard.exit();
        }
    }

    /** One batch record {@code op cf a b} through ferry_txn_write. */
    private void record(int op, int cf, byte[] a, byte[] b) {
        enter();
        try {
            beforeWrite();
            Scratch s = Scratch.get(binding);
            int aoff = Scratch.DATA + Abi.OP_HEADER;
            NativeBuffer m = s.ensure((long) aoff + a.length + b.length, 0);
            ByteBuffer buf = m.buf;
            buf.putInt(Scratch.DATA, op);
            buf.putInt(Scratch.DATA + 4, cf);
            buf.putInt(Scratch.DATA + 8, a.length);
            buf.putInt(Scratch.DATA + 12, b.length);
            buf.put(aoff, a);
            buf.put(aoff + a.length, b);
            int rc = binding.txnWrite(handle, m.addr + Scratch.DATA, Abi.OP_HEADER + a.length + b.length, 1, s.err());
            if (rc != 0) {
                throw failure(s, rc);
            }
        } finally {
            guard.exit();
        }
    }

    /** Unpositions the open cursors before a write (see the class comment). */
    private void beforeWrite() {
        cursors.forEach(c -> ((Cursor) c).transactionWrote());
    }

    // ---- end ----

    /**
     * Commits: the transaction's writes become visible to others, all at once. Closes its cursors
     * first. The transaction is over afterwards, also when the commit fails (its writes are then
     * gone); close it (try-with-resources does).
     *
     * @throws FerryException.Conflict on an optimistic RocksDB store, when a key the transaction
     *         wrote or read for update was written by someone else meanwhile
     * @throws IllegalStateException when already committed, closed, or on another thread
     */
    public void commit() {
        enter();
        try {
            RuntimeException failure = cursors.closeAll();
            ended = true;
            Scratch s = Scratch.get(binding);
            int rc = binding.txnCommit(handle, s.err());
            if (rc != 0) {
                throw failure(s, rc);
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            guard.exit();
        }
    }

    /** @return true once committed (or its commit failed) or closed: no more reads or writes */
    public boolean isEnded() {
        return ended || guard.isClosed();
    }

    /** @return true once closed */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Rolls back (unless committed) and releases the transaction and its cursors. Idempotent;
     * callable from any thread (see the class comment for LMDB).
     */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        if (Thread.currentThread() != owner) {
            // LMDB: writers waiting for this transaction's write lock stop waiting (its thread may
            // not touch it again; only that thread can end it, once its cursors are released)
            binding.txnAbandon(handle);
        }
        RuntimeException failure = cursors.closeAll();
        store.children.remove(token);
        cleanable.clean(); // the owner's reference: the native transaction ends once no cursor pins it
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "Transaction[" + store.engine() + (isClosed() ? ", closed" : ended ? ", committed" : "") + "]";
    }

    /**
     * The exception for a failed native call: the engine's, or {@link IllegalStateException} when
     * the transaction can no longer be used (an earlier failure ended it, see the class comment).
     */
    private static RuntimeException failure(Scratch s, int rc) {
        return translate(s.error(rc));
    }

    private static RuntimeException translate(FerryException e) {
        if (e.code() == ErrorCode.BAD_TRANSACTION) {
            return new IllegalStateException("the transaction failed earlier and can only be closed: " + e.getMessage(), e);
        }
        return e;
    }

    private void enter() {
        if (owner != Thread.currentThread()) {
            throw new IllegalStateException("transaction begun by thread '" + owner.getName() + "' used from thread '"
                    + Thread.currentThread().getName() + "': transactions are confined to their thread");
        }
        guard.enter();
        if (ended) {
            guard.exit();
            throw new IllegalStateException("transaction already committed (or its commit failed): it is over");
        }
    }
}
