package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import java.lang.ref.Cleaner;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A consistent, read-only view of a store at the moment it was taken (RocksDB snapshot, LMDB
 * read transaction). Reads and cursors through it ignore later writes.
 *
 * <p>A snapshot reads the column families that existed when it was taken: a family created later
 * throws {@link IllegalArgumentException} (its data did not exist in the snapshot's view), a family
 * dropped since throws {@link IllegalStateException}.
 *
 * <p>Closing a snapshot closes the cursors opened on it. Closing the store closes its snapshots.
 * A snapshot dropped without being closed is released by a cleaner once it and its cursors are
 * unreachable (LMDB: until then it holds a reader slot; close it).
 *
 * <p>Thread safety: RocksDB snapshots may be used from any thread. LMDB snapshots are bound to
 * the opening thread unless the store was opened with {@link LmdbFlag#NOTLS} (then used by one
 * thread at a time); wrong-thread use throws {@link IllegalStateException}.
 */
public final class Snapshot extends StoreReader implements AutoCloseable {
    private final Guard guard = new Guard("snapshot", true);
    /** Families with an id at or above this were created after the snapshot (ids grow). */
    private final int familyLimit;
    private final Thread owner;
    /** Cursors opened on this snapshot, held weakly. */
    private final Children cursors = new Children();
    private final Lifetime lifetime;
    private final Cleaner.Cleanable cleanable;
    /** This snapshot's token in the store's children. */
    private volatile Object token;

    /**
     * Takes ownership of a native snapshot.
     *
     * @param familyLimit the store's family count before the native snapshot was taken
     * @param release closes the native snapshot and unpins the store, once; the caller runs it
     *        too when this constructor throws (the cleaner registered last shares it)
     */
    Snapshot(StoreCore core, long handle, int familyLimit, Once release) {
        super(core, handle);
        this.familyLimit = familyLimit;
        this.owner = core.lmdbThreadBound ? Thread.currentThread() : null;
        Lifetime lt = new Lifetime(release);
        this.lifetime = lt;
        this.cleanable = StoreCore.CLEANER.register(this, new Once(lt::unpin));
    }

    /** Registers with the store's children (weakly), so closing the store closes this snapshot. */
    void track(Children storeChildren) {
        token = storeChildren.add(this);
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
        RuntimeException failure = cursors.closeAll();
        core.children.remove(token);
        cleanable.clean(); // the owner's reference: the native snapshot closes once no cursor pins it
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    int enter(ColumnFamily cf) {
        enter();
        try {
            return familyId(cf);
        } catch (RuntimeException | Error e) {
            guard.exit();
            throw e;
        }
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

    /** The family's id, checked as the store checks it and against this snapshot's age. */
    private int familyId(ColumnFamily cf) {
        int id = core.cfId(cf);
        if (id >= familyLimit) {
            throw new IllegalArgumentException("column family '" + cf.name() + "' was created after this snapshot"
                    + " (or, on LMDB, first looked up after it: see Store.columnFamily)");
        }
        return id;
    }

    /**
     * Splits a range into at most {@code n} contiguous, non-overlapping sub-ranges, in key order, whose
     * union is exactly {@code range}, of similar numbers of entries in this snapshot: the boundaries
     * follow where the engine's own structure says the data lies (LMDB's B+tree pages, RocksDB's
     * approximate sizes of pieces of the range), skewed keys included, and where it says nothing they
     * are found by sampling, which balances keys that fill their key space evenly (see docs/usage.md,
     * "Parallel scans"). Costs a few thousand page or index reads at most and about n seeks, whatever
     * the range's size. The sub-ranges are plain ranges: they can be read through any snapshot or
     * store, on any thread.
     *
     * @param cf the family
     * @param range the range to split
     * @param n the largest number of sub-ranges wanted (at least 1)
     * @return the sub-ranges (one, {@code range} itself, when it holds fewer than two keys)
     */
    public List<KeyRange> split(ColumnFamily cf, KeyRange range, int n) {
        Objects.requireNonNull(range, "range");
        if (n < 1) {
            throw new IllegalArgumentException("n=" + n + " (at least 1 sub-range)");
        }
        try (Cursor c = cursor(cf, range, null)) {
            return RangeSplits.split(c, range, n, n > 1 && RangeSplits.enginePoints() ? splitPoints(cf, range, n) : null);
        }
    }

    /** The engine's split points for {@code range} (see {@link RangeSplits}), or null when it has none. */
    private NativeCalls.SplitPoints splitPoints(ColumnFamily cf, KeyRange range, int n) {
        int id = enter(cf);
        try {
            return RangeSplits.points(core, snapshot, id, range, n);
        } catch (FerryException e) {
            if (e.code() == ErrorCode.NOT_SUPPORTED) {
                return null; // sampling instead (e.g. a RocksDB library that cannot weigh its memtables)
            }
            throw translate(e);
        } finally {
            exit();
        }
    }

    /**
     * Visits every entry of a range on several threads, all reading this snapshot: the range is
     * split ({@link #split}) into {@code 4 x threads} sub-ranges, and the calling thread with
     * {@code threads - 1} threads of Ferry's own each take the next sub-range not yet taken, open a
     * cursor on it through this snapshot and visit its entries in key order with a visitor of their
     * own. Entries of different sub-ranges are visited concurrently, in no particular order. Returns
     * once every sub-range is done; a visitor returning false, or throwing, stops every thread (the
     * exception is rethrown here).
     *
     * <p>On LMDB this works on a snapshot bound to the calling thread too: the workers read the
     * snapshot's read transaction while the caller waits in this call (Ferry opens every LMDB
     * environment with MDB_NOTLS, under which a read transaction may be read from several threads).
     *
     * @param cf the family
     * @param range the range
     * @param threads threads to read with, the caller's included (at least 1)
     * @param visitors gives a visitor for each sub-range, called on the thread that visits it
     * @return the number of entries visited
     */
    public long parallelScan(ColumnFamily cf, KeyRange range, int threads,
                             Supplier<? extends EntryVisitor> visitors) {
        Objects.requireNonNull(visitors, "visitors");
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " (at least 1)");
        }
        List<KeyRange> splits = split(cf, range,
                threads == 1 ? 1 : (int) Math.min(Integer.MAX_VALUE, (long) threads * RangeSplits.SPLITS_PER_THREAD));
        return RangeSplits.parallelScan(this, cf, splits, threads, visitors);
    }

    /**
     * As {@link #parallelScan(ColumnFamily, KeyRange, int, java.util.function.Supplier)}, with the
     * helpers run as tasks of the caller's executor instead of threads of Ferry's own: the range is split
     * into {@code 4 x threads} sub-ranges, {@code threads - 1} tasks are handed to {@code executor}, and
     * the calling thread reads too. Every task reads this snapshot (one state, as the other overload),
     * each sub-range with a visitor of its own, in key order. The call returns once every sub-range is
     * done and every task that started has finished; a task that starts after that does nothing and
     * touches nothing (so a busy executor only costs parallelism, never a wait), and a task the executor
     * rejects ({@link java.util.concurrent.RejectedExecutionException}) leaves its share to the others.
     * A visitor returning false, or throwing, stops every task (the exception is rethrown here), as does
     * an interrupt of the calling thread while it waits (its interrupt status is then set again).
     *
     * @param cf the family
     * @param range the range
     * @param threads tasks to read with, the caller's thread included (at least 1)
     * @param executor runs the helper tasks (e.g. a {@code ForkJoinPool} or a virtual-thread executor)
     * @param visitors gives a visitor for each sub-range, called on the thread that visits it
     * @return the number of entries visited
     */
    public long parallelScan(ColumnFamily cf, KeyRange range, int threads, Executor executor,
                             Supplier<? extends EntryVisitor> visitors) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(visitors, "visitors");
        if (threads < 1) {
            throw new IllegalArgumentException("threads=" + threads + " (at least 1)");
        }
        List<KeyRange> splits = split(cf, range,
                threads == 1 ? 1 : (int) Math.min(Integer.MAX_VALUE, (long) threads * RangeSplits.SPLITS_PER_THREAD));
        return RangeSplits.parallelScan(this, cf, splits, threads, executor, visitors);
    }

    /**
     * A cursor of a parallel scan's worker thread: as {@link #cursor} without the LMDB thread check,
     * for threads working for a {@link #parallelScan} call that the owner thread is waiting in.
     */
    Cursor workerCursor(ColumnFamily cf, KeyRange range) {
        Objects.requireNonNull(range, "range");
        guard.enter();
        try {
            return core.openCursor(snapshot, cursors, lifetime, familyId(cf), cf.hasDuplicates(), cf.keyOrder(), range,
                    null, true);
        } catch (FerryException e) {
            throw translate(e);
        } finally {
            guard.exit();
        }
    }

    private void enter() {
        if (owner != null && owner != Thread.currentThread()) {
            throw new IllegalStateException("LMDB snapshot opened by thread '" + owner.getName() + "' used from thread '"
                    + Thread.currentThread().getName() + "' (open the store with LmdbFlag.NOTLS to move snapshots between threads)");
        }
        guard.enter();
    }
}
