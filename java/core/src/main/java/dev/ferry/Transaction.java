package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.Once;
import dev.ferry.internal.WriteOp;
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
 * <p>Savepoints ({@link #setSavePoint()}, {@link #rollbackToSavePoint()}, {@link #popSavePoint()})
 * undo part of a transaction: rolling back to the most recent savepoint undoes the writes made since
 * it and removes it.
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
public final class Transaction extends StoreWriter implements AutoCloseable {
    private final long handle;
    private final Thread owner;
    private final Guard guard = new Guard("transaction");
    /** Cursors opened through this transaction, held weakly. */
    private final Children cursors = new Children();
    private final Lifetime lifetime;
    private final Cleaner.Cleanable cleanable;
    private volatile Object token;
    /** Committed, or a commit failed: the transaction is over (owner thread only). */
    private boolean ended;

    Transaction(StoreCore core, long handle, Once release) {
        super(core, handle);
        this.handle = handle;
        this.owner = Thread.currentThread();
        Lifetime lt = new Lifetime(release);
        this.lifetime = lt;
        this.cleanable = StoreCore.CLEANER.register(this, new Once(lt::unpin));
    }

    /** Registers with the store's children (weakly), so closing the store closes this transaction. */
    void track(Children storeChildren) {
        token = storeChildren.add(this);
    }

    // ---- reads ----

    /**
     * Reads a key of the default family for update: see {@link #getForUpdate(ColumnFamily, byte[])}.
     *
     * @param key the key
     * @return a copy of the value, or null when absent
     */
    public byte[] getForUpdate(byte[] key) {
        return getForUpdate(core.defaultFamily(), key);
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
        StoreCore.requireKey(key);
        int id = core.cfId(cf);
        enter();
        try {
            return core.calls.reads().txnGetForUpdate(handle, id, key);
        } catch (FerryException e) {
            throw fail(e);
        } finally {
            guard.exit();
        }
    }

    // ---- writes ----

    @Override
    void send(WriteOp op, ColumnFamily cf, byte[] a, int ao, int al, byte[] b, int bo, int bl) {
        int id = core.cfId(cf);
        enter();
        try {
            beforeWrite();
            core.calls.txnRecord(handle, op, id, a, ao, al, b, bo, bl);
        } catch (FerryException e) {
            throw fail(e);
        } finally {
            guard.exit();
        }
    }

    @Override
    void send(ColumnFamily cf, ByteBuffer key, ByteBuffer value) {
        byte[] k = new byte[key.remaining()];
        key.get(key.position(), k);
        byte[] v = new byte[value.remaining()];
        value.get(value.position(), v);
        send(WriteOp.PUT, cf, k, 0, k.length, v, 0, v.length);
    }

    @Override
    void send(WriteBatch batch) {
        enter();
        try {
            beforeWrite();
            core.txnWrite(handle, batch);
        } catch (FerryException e) {
            throw fail(e);
        } finally {
            guard.exit();
        }
    }

    /** Unpositions the open cursors before a write (see the class comment). */
    private void beforeWrite() {
        StoreCore.transactionWrote(cursors);
    }

    // ---- savepoints ----

    /**
     * Sets a savepoint: {@link #rollbackToSavePoint()} can later undo the writes made after it.
     * Savepoints nest: each call pushes one onto the transaction's stack, and rollback and pop act
     * on the most recent one. Reads and cursors are unaffected. RocksDB: RocksDB's own savepoint
     * ({@code Transaction::SetSavePoint}). LMDB: a nested write transaction, through which the
     * transaction's reads and writes then go; LMDB has none with {@link LmdbFlag#WRITEMAP}.
     *
     * @throws FerryException.NotSupported on an LMDB store opened with {@link LmdbFlag#WRITEMAP}
     * @throws IllegalStateException when committed, closed, failed, or on another thread
     */
    public void setSavePoint() {
        enter();
        try {
            core.calls.txnSetSavepoint(handle);
        } catch (FerryException e) {
            throw fail(e);
        } finally {
            guard.exit();
        }
    }

    /**
     * Undoes the transaction's writes made since the most recent savepoint, and removes that
     * savepoint (the one before it, if any, is then the most recent). Writes made before it stay.
     * On a pessimistic RocksDB store the locks taken since the savepoint are released. Counts as a
     * write for the transaction's open cursors (see the class comment): they continue after or
     * before the key they stood on, now seeing the rolled-back state.
     *
     * @throws FerryException.NotFound when the transaction has no savepoint (nothing changes)
     * @throws IllegalStateException when committed, closed, failed, or on another thread
     */
    public void rollbackToSavePoint() {
        endSavePoint(true);
    }

    /**
     * Removes the most recent savepoint and keeps the writes made since it: they now belong to the
     * savepoint before it, if any, so a later {@link #rollbackToSavePoint()} undoes them together
     * with that savepoint's. Counts as a write for the transaction's open cursors (see the class
     * comment). RocksDB's C API has no pop: the savepoint is marked popped and stepped over by the
     * next rollback, so RocksDB keeps a small record of it until the transaction ends.
     *
     * @throws FerryException.NotFound when the transaction has no savepoint (nothing changes)
     * @throws IllegalStateException when committed, closed, failed, or on another thread
     */
    public void popSavePoint() {
        endSavePoint(false);
    }

    private void endSavePoint(boolean rollback) {
        enter();
        try {
            beforeWrite();
            if (rollback) {
                core.calls.txnRollbackToSavepoint(handle);
            } else {
                core.calls.txnPopSavepoint(handle);
            }
        } catch (FerryException e) {
            throw fail(e);
        } finally {
            guard.exit();
        }
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
            core.calls.txnCommit(handle);
            if (failure != null) {
                throw failure;
            }
        } catch (FerryException e) {
            throw fail(e);
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
            core.calls.txnAbandon(handle);
        }
        RuntimeException failure = cursors.closeAll();
        core.children.remove(token);
        cleanable.clean(); // the owner's reference: the native transaction ends once no cursor pins it
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "Transaction[" + core.engine + (isClosed() ? ", closed" : ended ? ", committed" : "") + "]";
    }

    /** The family's id, after the thread check and the guard; refuses a transaction that is over. */
    @Override
    int enter(ColumnFamily cf) {
        int id = core.cfId(cf);
        enter();
        return id;
    }

    @Override
    void exit() {
        guard.exit();
    }

    @Override
    Children cursors() {
        return cursors;
    }

    @Override
    Lifetime lifetime() {
        return lifetime;
    }

    /**
     * The exception for a failed native call: the engine's, or {@link IllegalStateException} when
     * the transaction can no longer be used (an earlier failure ended it, see the class comment).
     */
    @Override
    RuntimeException translate(FerryException e) {
        return fail(e);
    }

    private static RuntimeException fail(FerryException e) {
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
