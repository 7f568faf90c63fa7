package dev.ferry;

import dev.ferry.internal.Guard;
import dev.ferry.internal.Once;
import java.lang.ref.Cleaner;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The write batches of a RocksDB store's write-ahead log from a sequence number on
 * ({@link Store#updatesSince(long)}; RocksDB's {@code GetUpdatesSince}, RocksJava's
 * {@code TransactionLogIterator}): the basis of change-data capture. Each {@link #next()} reads one
 * batch from the WAL files and copies it to Java. The iterator ends at the latest batch written
 * before it reached the end; batches written after that are read by a new iterator from
 * {@code last.sequence() + last.entries().size()}.
 *
 * <p>Closing the store closes its iterators. A call on a closed iterator throws
 * {@link IllegalStateException}.
 *
 * <p>Thread safety: confined to the thread that opened it; a call from another thread throws
 * {@link IllegalStateException}.
 */
public final class WalIterator implements Iterator<WalBatch>, AutoCloseable {
    private final Guard guard = new Guard("WAL iterator");
    private final StoreCore core;
    private final long handle;
    private final Cleaner.Cleanable cleanable;
    private final Thread owner = Thread.currentThread();
    private final Object token;
    private final long[] seq = new long[1];
    /** RocksDB's family ids to the store's families, filled as ids are met. */
    private final Map<Integer, ColumnFamily> families = new HashMap<>();
    private WalBatch pending;
    private boolean ended;

    WalIterator(StoreCore core, long handle, Once release) {
        this.core = core;
        this.handle = handle;
        this.cleanable = StoreCore.CLEANER.register(this, release); // the release captures no iterator
        this.token = core.children.add(this);
    }

    /**
     * Tells whether another batch follows; reads it from the WAL when not read yet.
     *
     * @return true when {@link #next()} has a batch
     * @throws IllegalStateException when closed, or called from another thread than the opening one
     * @throws FerryException when RocksDB fails to read the WAL
     */
    @Override
    public boolean hasNext() {
        enter();
        try {
            if (pending == null && !ended) {
                byte[] data = core.calls.admin().walNext(handle, seq);
                if (data == null) {
                    ended = true;
                } else {
                    pending = WalReader.parse(seq[0], data, this::family);
                }
            }
            return pending != null;
        } finally {
            guard.exit();
        }
    }

    /**
     * The next batch.
     *
     * @return the batch
     * @throws NoSuchElementException at the end
     * @throws IllegalStateException when closed, or called from another thread than the opening one
     */
    @Override
    public WalBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no write batch after the last one read");
        }
        WalBatch b = pending;
        pending = null;
        return b;
    }

    /** @return true once closed */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /** Releases the iterator. Idempotent; any thread. */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        core.children.remove(token);
        cleanable.clean();
    }

    private void enter() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("WAL iterator opened on thread '" + owner.getName() + "' used on thread '"
                    + Thread.currentThread().getName() + "': WAL iterators are confined to their thread");
        }
        guard.enter();
        // a store's close marks it closed before it closes its iterators: from that moment on, as for a closed
        // iterator (the misuse fuzzer saw hasNext return normally in between)
        if (core.guard.isClosed()) {
            guard.exit();
            throw new IllegalStateException("WAL iterator of a closed store");
        }
    }

    private ColumnFamily family(int engineId) {
        ColumnFamily cf = families.get(engineId);
        if (cf == null || cf.isDropped()) {
            families.clear();
            core.guard.enter();
            try {
                for (ColumnFamily f : core.families.live()) {
                    try {
                        families.put(core.calls.admin().cfEngineId(core.handle, core.cfId(f)), f);
                    } catch (FerryException.ColumnFamilyDropped e) {
                        // dropped since live() listed it: its entries get no family
                    }
                }
            } finally {
                core.guard.exit();
            }
            cf = families.get(engineId);
        }
        return cf;
    }
}
