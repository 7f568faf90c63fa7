package dev.ferry.fuzz;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.Engine;
import dev.ferry.KeyRange;
import dev.ferry.Snapshot;
import dev.ferry.Store;
import dev.ferry.View;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Everything the misuse fuzzer's threads share: pools of the objects they made (open, closed,
 * of other stores, of dead threads), from which every operation picks its targets. A pool has a
 * fixed number of slots; adding to a full one overwrites a random slot, which drops the old
 * object without closing it (the Cleaner paths).
 *
 * <p>Thread safety: thread-safe (pools are atomic arrays; references are immutable records).
 */
public final class World {
    /** The engine under test. */
    public final Engine engine;
    /** The binding under test ({@code jni} or {@code ffm}). */
    public final String binding;
    final Path root;
    /** A logical clock: stamps that order family creation against snapshots. */
    final AtomicLong clock = new AtomicLong();
    private final AtomicInteger ids = new AtomicInteger();
    final StoreSlot[] slots = new StoreSlot[3];

    /** Every store opened (open or closed). */
    public final Pool<StoreRef> stores = new Pool<>(16);
    /** Column families of every store (live, dropped, of closed stores). */
    public final Pool<CfRef> families = new Pool<>(48);
    /** Families open with a merge operator of their own (ColumnFamilyOptions.mergeOperator). */
    public final java.util.Set<dev.ferry.ColumnFamily> familyMerge = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Snapshots (open or closed). */
    public final Pool<SnapRef> snapshots = new Pool<>(24);
    /** Cursors of every thread (open or closed). */
    public final Pool<CurRef> cursors = new Pool<>(48);
    /** Views kept after they were taken (possibly long invalid). */
    public final Pool<ViewRef> views = new Pool<>(48);
    /** Buffers from {@link View#asByteBuffer()} kept with the bytes they showed when made. */
    public final Pool<BufRef> buffers = new Pool<>(48);
    /** Write batches (shared between threads, so possibly used concurrently). */
    public final Pool<BatchRef> batches = new Pool<>(12);
    /** Key ranges. */
    public final Pool<KeyRange> ranges = new Pool<>(24);
    /** Backup directories (open or closed), shared between threads. */
    public final Pool<dev.ferry.Backups> backups = new Pool<>(4);
    /** SST file writers, shared between threads (they are thread-safe). */
    public final Pool<dev.ferry.SstFileWriter> sstWriters = new Pool<>(4);
    /** Cursor options (shared, mutated). */
    public final Pool<CursorOptions> cursorOptions = new Pool<>(8);

    World(Engine engine, String binding, Path root) {
        this.engine = engine;
        this.binding = binding;
        this.root = root;
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new StoreSlot(i);
        }
    }

    /** @return a new object number for the log */
    public int nextId() {
        return ids.incrementAndGet();
    }

    /**
     * Keeps a cursor in the pool. The cursor it displaces is mostly closed first when this thread
     * owns it (else leaked to its Cleaner): leaking every displaced LMDB cursor would keep the
     * reader table full, and each full-table call waits for GCs.
     *
     * @param c the calling thread
     * @param r the cursor
     */
    public void keep(Ctx c, CurRef r) {
        CurRef old = cursors.add(c.rnd, r);
        if (old != null && !old.foreign() && c.rnd.nextInt(4) != 0) {
            c.call(old + ".close() (displaced from the pool)", () -> CursorOps.locked(old, old.cursor::close));
        }
    }

    /**
     * Keeps a snapshot in the pool, mostly closing the one it displaces (from any thread).
     *
     * @param c the calling thread
     * @param p the snapshot
     */
    public void keep(Ctx c, SnapRef p) {
        SnapRef old = snapshots.add(c.rnd, p);
        if (old != null && c.rnd.nextInt(4) != 0) {
            c.call(old + ".close() (displaced from the pool)", old.snap::close);
        }
    }

    long tick() {
        return clock.incrementAndGet();
    }

    /**
     * A fixed set of slots holding objects; overwriting a slot drops the old object.
     *
     * @param <T> element type
     */
    public static final class Pool<T> {
        private final AtomicReferenceArray<T> a;

        Pool(int size) {
            a = new AtomicReferenceArray<>(size);
        }

        /**
         * Puts an object into a random slot (dropping what was there).
         *
         * @param r randomness
         * @param x the object
         * @return the object dropped from the slot, or null
         */
        public T add(Random r, T x) {
            for (int i = 0; i < 3; i++) {
                int j = r.nextInt(a.length());
                if (a.compareAndSet(j, null, x)) {
                    return null;
                }
            }
            return a.getAndSet(r.nextInt(a.length()), x);
        }

        /**
         * @param r randomness
         * @return a random object, or null when the probed slots were empty
         */
        public T pick(Random r) {
            for (int i = 0; i < 6; i++) {
                T x = a.get(r.nextInt(a.length()));
                if (x != null) {
                    return x;
                }
            }
            return null;
        }

        /**
         * Drops a random slot's object (without closing it).
         *
         * @param r randomness
         * @return the dropped object, or null
         */
        public T drop(Random r) {
            return a.getAndSet(r.nextInt(a.length()), null);
        }

        /** @return every object held now */
        public List<T> all() {
            List<T> r = new ArrayList<>();
            for (int i = 0; i < a.length(); i++) {
                T x = a.get(i);
                if (x != null) {
                    r.add(x);
                }
            }
            return r;
        }

        /** Drops every object. */
        public void clear() {
            for (int i = 0; i < a.length(); i++) {
                a.set(i, null);
            }
        }
    }

    /** A directory the fuzzer keeps a store open in, reopening it after it was closed. */
    static final class StoreSlot {
        final int index;
        volatile StoreRef current;
        /** Bumped when the directory cannot be reopened (still held): the slot moves on. */
        int generation;

        StoreSlot(int index) {
            this.index = index;
        }
    }

    /** A store with what the fuzzer knows about it. */
    public static final class StoreRef {
        /** Log number ({@code s<id>}). */
        public final int id;
        /** The store. */
        public final Store store;
        /** Its directory. */
        public final Path dir;
        /** Opened read-only: writes fail. */
        public final boolean readOnly;
        /** LMDB without NOTLS: snapshots are bound to their thread. */
        public final boolean threadBoundSnapshots;
        /** A store a scenario opened for itself. */
        final boolean privateStore;
        /** Opened with a merge operator (RocksDB): merges work, and SST files with merge operands may be ingested. */
        public boolean mergeOperator;

        StoreRef(int id, Store store, Path dir, boolean readOnly, boolean threadBoundSnapshots, boolean privateStore) {
            this.id = id;
            this.store = store;
            this.dir = dir;
            this.readOnly = readOnly;
            this.threadBoundSnapshots = threadBoundSnapshots;
            this.privateStore = privateStore;
        }

        @Override
        public String toString() {
            return "s" + id;
        }
    }

    /** A column family and its store. */
    public static final class CfRef {
        /** Log number. */
        public final int id;
        /** The family. */
        public final ColumnFamily cf;
        /** Its store. */
        public final StoreRef store;
        /** {@link World#clock} just before the create call began (0: found when the store opened). */
        final long createdAfter;

        CfRef(int id, ColumnFamily cf, StoreRef store, long createdAfter) {
            this.id = id;
            this.cf = cf;
            this.store = store;
            this.createdAfter = createdAfter;
        }

        @Override
        public String toString() {
            return "f" + id;
        }
    }

    /** A snapshot, its store and the thread that took it. */
    public static final class SnapRef {
        /** Log number. */
        public final int id;
        /** The snapshot. */
        public final Snapshot snap;
        /** Its store. */
        public final StoreRef store;
        /** The thread that took it. */
        public final Thread owner;
        /** {@link World#clock} right after the snapshot was taken. */
        final long takenBefore;

        SnapRef(int id, Snapshot snap, StoreRef store, Thread owner, long takenBefore) {
            this.id = id;
            this.snap = snap;
            this.store = store;
            this.owner = owner;
            this.takenBefore = takenBefore;
        }

        /** @return whether the calling thread may not use it (LMDB without NOTLS, another thread) */
        boolean foreignAndBound() {
            return store.threadBoundSnapshots && owner != Thread.currentThread();
        }

        @Override
        public String toString() {
            return "p" + id;
        }
    }

    /** A cursor, its owner thread and where it reads. */
    public static final class CurRef {
        /** Log number. */
        public final int id;
        /** The cursor. */
        public final Cursor cursor;
        /** The thread that opened it (the only one allowed to use it). */
        public final Thread owner;
        /** Its range, for checking where it lands (null when unknown). */
        public final KeyRange range;
        /** Its store (null for RocksJava interop cursors). */
        public final StoreRef store;
        /** Lock held around calls that may reach RocksJava's objects (interop cursors), else null. */
        public final Object lock;
        /** Its family keeps several values per key (LMDB DUPSORT): walks step by (key, value). */
        public boolean dups;

        CurRef(int id, Cursor cursor, Thread owner, KeyRange range, StoreRef store, Object lock) {
            this.id = id;
            this.cursor = cursor;
            this.owner = owner;
            this.range = range;
            this.store = store;
            this.lock = lock;
        }

        /** @return whether the calling thread is not the owner */
        public boolean foreign() {
            return owner != Thread.currentThread();
        }

        @Override
        public String toString() {
            return "c" + id;
        }
    }

    /** A key or value view taken from a cursor and kept. */
    public static final class ViewRef {
        /** Log number. */
        public final int id;
        /** The view. */
        public final View view;
        /** Its cursor. */
        public final CurRef cursor;

        ViewRef(int id, View view, CurRef cursor) {
            this.id = id;
            this.view = view;
            this.cursor = cursor;
        }

        @Override
        public String toString() {
            return "v" + id;
        }
    }

    /** A buffer from asByteBuffer and the bytes it showed when it was made. */
    public static final class BufRef {
        /** Log number. */
        public final int id;
        /** The buffer. */
        public final ByteBuffer buf;
        /** Its bytes when made. */
        public final byte[] expect;
        /** The cursor whose view made it. */
        public final CurRef cursor;

        BufRef(int id, ByteBuffer buf, byte[] expect, CurRef cursor) {
            this.id = id;
            this.buf = buf;
            this.expect = expect;
            this.cursor = cursor;
        }

        @Override
        public String toString() {
            return "b" + id;
        }
    }

    /** A write batch; {@link #shared} once a second thread touched it (then it is racy). */
    public static final class BatchRef {
        /** Log number. */
        public final int id;
        /** The batch. */
        public final WriteBatch batch;
        final Thread creator;
        volatile boolean shared;

        BatchRef(int id, WriteBatch batch, Thread creator) {
            this.id = id;
            this.batch = batch;
            this.creator = creator;
        }

        /** Marks the batch shared when the calling thread is not its creator; call before using it. */
        void touch() {
            if (creator != Thread.currentThread()) {
                shared = true;
            }
        }

        @Override
        public String toString() {
            return "w" + id;
        }
    }
}
