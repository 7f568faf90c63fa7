package dev.ferry.rocksjava;

import dev.ferry.internal.CursorHost;
import dev.ferry.internal.CursorPage;
import dev.ferry.internal.NativeCalls;
import java.lang.ref.Reference;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;
import org.rocksdb.RocksIterator;
import org.rocksdb.RocksObject;

/**
 * Host of an interop cursor: checks the RocksJava objects before each page fill, keeps them
 * reachable, and frees the native cursor the safe way for its kind.
 *
 * <p>Thread safety: as {@link CursorHost}.
 */
final class RocksCursorHost implements CursorHost {
    private static final int MAX_POOLED_PAGES = 8;
    private static final ConcurrentLinkedDeque<CursorPage> PAGES = new ConcurrentLinkedDeque<>();

    private final NativeCalls calls;
    private final int pageSize;
    /** Opened cursors: the database, family and snapshot. Null for a wrapped iterator. */
    private final Target target;
    /** Wrapped cursors: the iterator and its database. Null for an opened cursor. */
    private final RocksIterator iterator;
    private final RocksObject iteratorDb;

    private RocksCursorHost(NativeCalls calls, int pageSize, Target target, RocksIterator iterator, RocksObject iteratorDb) {
        this.calls = calls;
        this.pageSize = pageSize;
        this.target = target;
        this.iterator = iterator;
        this.iteratorDb = iteratorDb;
    }

    static RocksCursorHost opened(NativeCalls calls, int pageSize, Target target) {
        return new RocksCursorHost(calls, pageSize, target, null, null);
    }

    static RocksCursorHost wrapped(NativeCalls calls, int pageSize, RocksIterator iterator, RocksObject db) {
        return new RocksCursorHost(calls, pageSize, null, iterator, db);
    }

    @Override
    public NativeCalls calls() {
        return calls;
    }

    @Override
    public CursorPage takePage(int size) {
        CursorPage p = PAGES.pollFirst();
        while (p != null && !p.fits(size)) {
            p = PAGES.pollFirst();
        }
        return p != null ? p.reset() : new CursorPage(calls, size);
    }

    @Override
    public void returnPage(CursorPage page) {
        if (page != null && page.fits(pageSize) && PAGES.size() < MAX_POOLED_PAGES) {
            PAGES.offerFirst(page);
        }
    }

    @Override
    public void beforeNativeCall() {
        if (target != null) {
            target.check();
        } else {
            checkWrapped();
        }
    }

    @Override
    public void afterNativeCall() {
        if (target != null) {
            target.fence();
        } else {
            Reference.reachabilityFence(iterator);
            Reference.reachabilityFence(iteratorDb);
        }
    }

    /**
     * A wrapped iterator is handed back standing on the cursor's current entry, so RocksJava
     * continues where Ferry stopped (Ferry's fills read ahead of it).
     */
    @Override
    public void closing(Supplier<byte[]> key, int direction) {
        if (iterator == null || key == null || !iterator.isOwningHandle() || !iteratorDb.isOwningHandle()) {
            return;
        }
        byte[] k = key.get();
        if (direction < 0) {
            iterator.seekForPrev(k);
        } else {
            iterator.seek(k);
        }
    }

    @Override
    public void forget() {
        // interop cursors are not tracked: RocksJava's objects do not close them
    }

    @Override
    public Runnable release(long handle) {
        NativeCalls b = calls;
        if (target == null) {
            return () -> b.cursorClose(handle); // frees Ferry's shell only; the iterator stays RocksJava's
        }
        RocksObject db = target.db;
        // destroying an engine iterator after its DB closed is unsafe: leak it, as RocksJava does
        return () -> {
            if (db.isOwningHandle()) {
                b.cursorClose(handle);
            } else {
                b.rjCursorForget(handle);
            }
        };
    }

    void checkWrapped() {
        Target.requireOpen(iterator, "RocksIterator");
        Target.requireOpen(iteratorDb, "RocksDB of the RocksIterator");
    }
}
