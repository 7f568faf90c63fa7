package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.CursorPage;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import dev.ferry.internal.Readers;
import dev.ferry.internal.SeekRuns;
import dev.ferry.internal.WriteOp;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * The state of one open store that its public objects share: the call layer and native handle,
 * the guard that keeps the handle valid during a call, the lifetime that snapshots, transactions
 * and cursors pin, the family registry and the cursor page pool. {@link Store} is the public face;
 * {@link Snapshot}, {@link Transaction}, {@link StoreReader}, {@link StoreAdmin} and {@link Backups}
 * work on this object instead of on the Store's internals.
 *
 * <p>Thread safety: thread-safe.
 */
final class StoreCore {
    /**
     * Releases snapshots, transactions, stores, backup engines and SST writers that became
     * unreachable without being closed. Cursors have a cleaner of their own ({@link Cursor}).
     */
    static final Cleaner CLEANER = Cleaner.create();
    private static final int MAX_POOLED_PAGES = 8;
    /** LMDB: how long one native wait for the write lock lasts before the store's state is checked again. */
    private static final long LOCK_SLICE_MS = 50;

    final NativeCalls calls;
    final long handle;
    final Engine engine;
    final Path path;
    final StoreOptions options;
    /** Statistics as opened (the options may be changed later). */
    final boolean statisticsOn;
    final Guard guard = new Guard("store", true);
    /** LMDB snapshots are bound to their thread (no {@link LmdbFlag#NOTLS}). */
    final boolean lmdbThreadBound;
    /** Open cursors (on the latest state), snapshots and transactions, held weakly. */
    final Children children = new Children();
    /** The first page size after a cursor's positioning call, learnt from earlier cursors. */
    final SeekRuns seekRuns = new SeekRuns();
    /** Reclaims this store's LMDB reader slots held by leaked cursors and snapshots. */
    final Readers readers;
    final Lifetime lifetime;
    final Families families;
    /** The callbacks written in Java (merge operators, compaction filters) registered for this store. */
    final JavaCallbacks callbacks;
    private final ConcurrentLinkedDeque<CursorPage> pages = new ConcurrentLinkedDeque<>();

    StoreCore(NativeCalls calls, Path path, StoreOptions options, long handle, Once release, JavaCallbacks callbacks) {
        this.calls = calls;
        this.handle = handle;
        this.engine = options.engine;
        this.path = path;
        this.options = options;
        this.statisticsOn = options.statistics;
        this.lmdbThreadBound = engine == Engine.LMDB && !options.lmdbFlags.contains(LmdbFlag.NOTLS);
        this.readers = engine == Engine.LMDB ? new Readers() : Readers.NONE;
        this.lifetime = new Lifetime(release);
        this.families = new Families(this);
        this.callbacks = callbacks;
        callbacks.attach(guard, handle);
    }

    /** The family's id, after checking it belongs to this store and is not dropped. */
    int cfId(ColumnFamily cf) {
        Objects.requireNonNull(cf, "column family");
        if (cf.owner != this) {
            throw new IllegalArgumentException(cf + " belongs to another store");
        }
        if (cf.dropped) {
            guard.check();
            throw new IllegalStateException(cf + " was dropped");
        }
        return cf.id;
    }

    /** @throws IllegalArgumentException when the batch names column families of another store */
    void requireOwn(WriteBatch batch) {
        StoreCore owner = batch.familiesOf();
        if (owner != null && owner != this) {
            throw new IllegalArgumentException("the batch names column families of another store");
        }
    }

    /** @return the store's core (for Ferry's public classes other than the store, and tests) */
    static StoreCore of(Store store) {
        return store.core;
    }

    /**
     * The family's store and id for a batch record, after checking it is not dropped.
     *
     * @return the family's store
     */
    static StoreCore ownerOf(ColumnFamily cf) {
        if (cf.dropped) {
            throw new IllegalStateException(cf + " was dropped");
        }
        return cf.owner;
    }

    /** @return the family's id, unchecked (a batch checks the family when the record is added) */
    static int idOf(ColumnFamily cf) {
        return cf.id;
    }

    /** A batch in a transaction. */
    void txnWrite(long txn, WriteBatch batch) {
        calls.txnWrite(txn, batch.encoded(), batch.count());
    }

    /** Unpositions a transaction's open cursors before it writes (see {@link Transaction}). */
    static void transactionWrote(Children cursors) {
        cursors.forEach(c -> ((Cursor) c).transactionWrote());
    }

    ColumnFamily defaultFamily() {
        return families.get(0);
    }

    /**
     * Wraps a native child just opened (a snapshot, a transaction): pins the store's lifetime and
     * builds the child around a release that closes the handle and unpins. The release captures
     * no Store and no child (a cleaner runs it when a child is dropped unclosed); a child that
     * fails to construct is released here.
     */
    <T> T adopt(long h, LongConsumer closeNative, Function<Once, T> make) {
        lifetime.pin();
        Lifetime storeLifetime = lifetime;
        Once release = new Once(() -> {
            closeNative.accept(h);
            storeLifetime.unpin();
        });
        try {
            return make.apply(release);
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
    }

    /**
     * Opens a cursor reading through {@code snapshot} (a snapshot's or transaction's handle, or 0 for
     * the latest state), tracked in {@code siblings} and pinning {@code parent}. The caller holds
     * its guard.
     */
    Cursor openCursor(long snapshot, Children siblings, Lifetime parent, int cf, boolean pairSeeks, KeyOrder order,
                      KeyRange range, CursorOptions options, boolean scanMode) {
        CursorOptions o = options == null ? CursorOptions.defaults() : options;
        boolean empty = range.isEmptyIn(order); // throws before the native call for a range the order cannot take
        int flags = o.nativeFlags(engine);
        long h = calls.cursorOpen(handle, snapshot, cf, range.lowerRef(), range.upperRef(), flags, readers);
        parent.pin();
        StoreCursorHost host = new StoreCursorHost(this, siblings, parent);
        Once release = new Once(host.release(h));
        Cursor c;
        try {
            c = new Cursor(host, h, release, empty, o.pageSize > 0 ? o.pageSize : this.options.pageSize, scanMode, false);
            c.pairSeeks = pairSeeks;
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        // from here the cursor's cleaner owns the release; tracking is weak
        host.track(c);
        return c;
    }

    CursorPage takePage(int size) {
        CursorPage p = pages.pollFirst();
        while (p != null && !p.fits(size)) {
            p = pages.pollFirst();
        }
        return p != null ? p.reset() : new CursorPage(calls, size);
    }

    void returnPage(CursorPage p) {
        if (p != null && p.fits(options.pageSize) && pages.size() < MAX_POOLED_PAGES && !guard.isClosed()) {
            pages.offerFirst(p);
        }
    }

    /**
     * Runs a native call on this store's handle while the store cannot close.
     *
     * @param call gets the handle
     * @return what the call returned
     * @throws IllegalStateException when the store is closed
     */
    <T> T withHandle(LongFunction<T> call) {
        guard.enter();
        try {
            return call.apply(handle);
        } finally {
            guard.exit();
        }
    }

    /** {@link Store#snapshot()}. */
    Snapshot snapshot() {
        guard.enter();
        try {
            // families are numbered in creation order: those below this count exist in the snapshot
            int familyLimit = families.size();
            long h = calls.snapshotOpen(handle, readers);
            Snapshot snap = adopt(h, calls::snapshotClose, release -> new Snapshot(this, h, familyLimit, release));
            snap.track(children);
            return snap;
        } finally {
            guard.exit();
        }
    }

    /** {@link Store#beginTransaction(long)}. */
    Transaction beginTransaction(long timeoutMillis) {
        if (timeoutMillis < -1) {
            throw new IllegalArgumentException("timeoutMillis=" + timeoutMillis + " (-1 = no limit)");
        }
        boolean lmdb = engine == Engine.LMDB;
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        for (;;) {
            // LMDB waits in slices outside the store's guard, so that a close of the store is never
            // held up by a wait for the write lock (the transaction that holds it may be the closer's)
            long slice = timeoutMillis;
            if (lmdb && timeoutMillis != 0) {
                long left = timeoutMillis < 0 ? LOCK_SLICE_MS : (deadline - System.nanoTime()) / 1_000_000L;
                slice = Math.max(1, Math.min(LOCK_SLICE_MS, left));
            }
            guard.enter();
            try {
                long h = calls.txnBegin(handle, slice, lmdb);
                if (h == 0) { // LMDB's write lock was not free in this slice
                    if (timeoutMillis < 0 || System.nanoTime() - deadline < 0) {
                        continue; // the finally below leaves the guard first
                    }
                    throw FerryException.of(ErrorCode.TIMED_OUT, 0, "the LMDB store's write lock was not free within "
                            + timeoutMillis + " ms (another write transaction is open)");
                }
                Transaction t = adopt(h, calls::txnClose, release -> new Transaction(this, h, release));
                t.track(children);
                return t;
            } finally {
                guard.exit();
            }
        }
    }

    /** {@link StoreWriter}'s writes of a store: the dedicated native calls (see {@link StoreWriter}). */
    void send(WriteOp op, ColumnFamily cf, byte[] a, int ao, int al, byte[] b, int bo, int bl) {
        int id = cfId(cf);
        boolean reverse = op == WriteOp.DELETE_RANGE && cf.keyOrder() == KeyOrder.REVERSE_BYTEWISE;
        // a JAVA family's range is checked natively, with its comparator
        if (op == WriteOp.DELETE_RANGE && cf.keyOrder() != KeyOrder.JAVA && (reverse ? Arrays.compareUnsigned(b, bo, bo + bl, a, ao, ao + al)
                : Arrays.compareUnsigned(a, ao, ao + al, b, bo, bo + bl)) >= 0) {
            guard.check(); // an empty range: no native call
            return;
        }
        guard.enter();
        try {
            if (op == WriteOp.PUT) {
                calls.put(handle, id, a, ao, al, b, bo, bl);
            } else if (op == WriteOp.DELETE) {
                calls.delete(handle, id, a, ao, al);
            } else if (op == WriteOp.MERGE) {
                calls.merge(handle, id, a, b); // whole arrays, as for a range delete
            } else if (op == WriteOp.DELETE_VALUE) {
                try (WriteBatch batch = new WriteBatch()) { // no dedicated call: one batch record
                    calls.write(handle, batch.delete(cf, a, b).encoded(), 1, 0);
                }
            } else {
                calls.deleteRange(handle, id, a, b); // whole arrays: StoreWriter passes them so
            }
        } finally {
            guard.exit();
        }
    }

    /** A batch with {@code FERRY_WRITE_*} flags. */
    void write(WriteBatch batch, int flags) {
        guard.enter();
        try {
            calls.write(handle, batch.encoded(), batch.count(), flags);
        } finally {
            guard.exit();
        }
    }

    /** {@link Store#inTransaction(int, java.util.function.Function)}. */
    <T> T inTransaction(int maxAttempts, Function<Transaction, T> body) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts=" + maxAttempts);
        }
        Objects.requireNonNull(body, "body");
        for (int attempt = 1;; attempt++) {
            try (Transaction txn = beginTransaction(-1)) {
                T result = body.apply(txn);
                if (!txn.isEnded()) {
                    txn.commit();
                }
                return result;
            } catch (FerryException e) {
                boolean retryable = e instanceof FerryException.Conflict || e instanceof FerryException.Deadlock
                        || e instanceof FerryException.TimedOut
                        || (e instanceof FerryException.MapFull && engine == Engine.LMDB && options.autoGrowStep > 0);
                if (attempt >= maxAttempts || !retryable) {
                    throw e;
                }
            }
            long maxMicros = Math.min(50_000L, 100L << Math.min(attempt, 9));
            long micros = ThreadLocalRandom.current().nextLong(maxMicros / 2, maxMicros + 1);
            LockSupport.parkNanos(micros * 1000L);
        }
    }

    /** The first failure of the last {@link #close()}, thrown once. */
    private RuntimeException closeFailure;

    /**
     * {@link Store#close()} up to the owner's reference: closes the transactions, refuses new calls
     * and waits for those in flight, closes the other children and drops the page pool.
     *
     * @return true when this call closed the store (the caller then drops its reference and calls
     *         {@link #rethrowCloseFailure()})
     */
    boolean close() {
        guard.refuseCallback(); // a callback closing its own store: refused, even while the store closes
        if (guard.isClosed()) {
            return false;
        }
        // Transactions first, before waiting for the calls in flight: an LMDB write waiting for the
        // write lock may wait for a transaction of this very thread (then it ends here) or of
        // another one (then it is abandoned, and the waiting writes fail instead of waiting).
        RuntimeException[] failure = new RuntimeException[1];
        children.forEach(c -> {
            if (c instanceof Transaction) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (failure[0] == null) {
                        failure[0] = e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
                    }
                }
            }
        });
        if (!guard.close()) {
            return false;
        }
        // keep closing the others and the engine; report the first failure at the end
        RuntimeException childFailure = children.closeAll();
        closeFailure = childFailure != null ? childFailure : failure[0];
        pages.clear();
        return true;
    }

    /** Notes a store held open after close ({@link Stores#closed}) and throws the close's first failure. */
    void rethrowCloseFailure() {
        Stores.closed(this);
        RuntimeException f = closeFailure;
        closeFailure = null;
        if (f != null) {
            throw f;
        }
    }

    /** Runs a write on a family inside the guard. */
    void write(ColumnFamily cf, IntConsumer call) {
        int id = cfId(cf);
        guard.enter();
        try {
            call.accept(id);
        } finally {
            guard.exit();
        }
    }

    /** {@link #write(ColumnFamily, java.util.function.IntConsumer)} for a write that answers. */
    <T> T writeFor(ColumnFamily cf, IntFunction<T> call) {
        int id = cfId(cf);
        guard.enter();
        try {
            return call.apply(id);
        } finally {
            guard.exit();
        }
    }

    static byte[] requireKey(byte[] key) {
        return Objects.requireNonNull(key, "key");
    }

    /** Visits a cursor's entries from the first: {@code scan}'s loop for every reader. */
    static long drive(Cursor c, EntryVisitor visitor) {
        long n = 0;
        for (boolean ok = c.first(); ok; ok = c.next()) {
            n++;
            if (!visitor.visit(c.key(), c.value())) {
                break;
            }
        }
        return n;
    }

    /** Creates the missing parents of {@code dir} (checkpoint and backup targets). */
    static void createParents(Path dir) {
        Path parent = dir.getParent();
        if (parent != null) {
            try {
                Files.createDirectories(parent);
            } catch (IOException e) {
                throw FerryException.of(ErrorCode.IO_ERROR, 0, "cannot create " + parent + ": " + e);
            }
        }
    }
}
