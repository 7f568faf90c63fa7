package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeBuffer;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import dev.ferry.internal.Readers;
import dev.ferry.internal.SeekRuns;
import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The state of one open store that its public objects share: the call layer and native handle,
 * the guard that keeps the handle valid during a call, the lifetime that snapshots, transactions
 * and cursors pin, the family registry and the cursor page pool. {@link Store} is the public face;
 * {@link Snapshot}, {@link Transaction}, {@link ReadView}, {@link StoreAdmin} and {@link Backups}
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
    private final ConcurrentLinkedDeque<NativeBuffer> pages = new ConcurrentLinkedDeque<>();

    StoreCore(NativeCalls calls, Path path, StoreOptions options, long handle, Once release) {
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
     * Opens a cursor reading through {@code view} (a snapshot's or transaction's handle, or 0 for
     * the latest state), tracked in {@code siblings} and pinning {@code parent}. The caller holds
     * its guard.
     */
    Cursor openCursor(long view, Children siblings, Lifetime parent, int cf, boolean pairSeeks, KeyRange range,
                      CursorOptions options, boolean scanMode) {
        CursorOptions o = options == null ? CursorOptions.defaults() : options;
        int flags = o.nativeFlags();
        long h = calls.cursorOpen(handle, view, cf, range.lowerRef(), range.upperRef(), flags, readers);
        parent.pin();
        StoreCursorHost host = new StoreCursorHost(this, siblings, parent);
        Once release = new Once(host.release(h));
        Cursor c;
        try {
            c = new Cursor(host, h, release, range, o.pageSize > 0 ? o.pageSize : this.options.pageSize, scanMode, false);
            c.pairSeeks = pairSeeks;
        } catch (RuntimeException | Error e) {
            release.run();
            throw e;
        }
        // from here the cursor's cleaner owns the release; tracking is weak
        host.track(c);
        return c;
    }

    NativeBuffer takePage(int size) {
        NativeBuffer p = pages.pollFirst();
        while (p != null && p.cap != size) {
            p = pages.pollFirst();
        }
        return p != null ? p : calls.allocate(size);
    }

    void returnPage(NativeBuffer p) {
        if (p != null && p.cap == options.pageSize + Cursor.AUX && pages.size() < MAX_POOLED_PAGES && !guard.isClosed()) {
            pages.offerFirst(p);
        }
    }

    void clearPages() {
        pages.clear();
    }

    /**
     * Runs a native call on this store's handle while the store cannot close.
     *
     * @param call gets the handle
     * @return what the call returned
     * @throws IllegalStateException when the store is closed
     */
    <T> T withHandle(java.util.function.LongFunction<T> call) {
        guard.enter();
        try {
            return call.apply(handle);
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
                java.nio.file.Files.createDirectories(parent);
            } catch (java.io.IOException e) {
                throw FerryException.of(ErrorCode.IO_ERROR, 0, "cannot create " + parent + ": " + e);
            }
        }
    }
}
