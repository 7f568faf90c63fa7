package dev.ferry;

import dev.ferry.internal.CursorHost;
import dev.ferry.internal.CursorPage;
import dev.ferry.internal.CursorPage.Op;
import dev.ferry.internal.Guard;
import dev.ferry.internal.Mem;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.Once;
import dev.ferry.spi.CurrentEntry;
import java.lang.ref.Cleaner;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * Ordered iteration over a {@link KeyRange} of one column family, on the latest state (an
 * implicit snapshot taken when the cursor opens) or on a {@link Snapshot}.
 *
 * <p>Moves return {@code true} when the cursor stands on an entry: one combined step. Entries
 * arrive in pages filled by one native call each; {@link #next()} and {@link #prev()} walk the
 * page in Java and refill when it runs out, so a scan crosses into native code once per page,
 * not four times per entry. After a positioning call the first page is small (one entry, or as many
 * as the store's cursors read after their recent positioning calls, at most 64) and pages then grow
 * eightfold up to the page size, so a seek that reads a few entries stays cheap.
 *
 * <pre>{@code
 * try (Cursor c = store.cursor(KeyRange.prefix(p))) {
 *     for (boolean ok = c.first(); ok; ok = c.next()) {
 *         use(c.key(), c.value());   // zero-copy views, valid until the next move
 *     }
 * }
 * }</pre>
 *
 * <p>On a new cursor the first {@code next()} acts as {@link #first()} and the first
 * {@code prev()} as {@link #last()}, so {@code while (c.next()) { ... }} visits every entry.
 * {@link #key()} and {@link #value()} return the same two {@link View} objects every time,
 * re-pointed at the current entry: no allocation per entry. When a move returns {@code false}
 * the cursor is unpositioned: further {@code next()}/{@code prev()} return false until a
 * positioning call ({@link #first()}, {@link #last()}, {@link #seek}, {@link #seekForPrev}).
 * A cursor wrapping a RocksJava iterator ({@code dev.ferry.rocksjava.RocksInterop#wrap}) starts
 * "armed": its first {@code next()}/{@code prev()} lands on the entry the iterator stands on.
 *
 * <p>Over an LMDB {@link ColumnFamilyFlag#DUPSORT} family a cursor yields every (key, value) pair,
 * ordered by key then value ({@link #prev()}: both reversed). {@link #seek} lands on the first value
 * of a key, {@link #seekForPrev} on the last; {@link #nextKey()}, {@link #prevKey()},
 * {@link #firstValue()} and {@link #lastValue()} move between keys and within one.
 *
 * <p>Thread safety: a cursor and its views are confined to the thread that opened it: every
 * method but {@link #close()} and {@link #isClosed()} throws {@link IllegalStateException} on
 * another thread, and so does every method of its {@link View}s. {@link #close()} may be called
 * from any thread (closing the store or snapshot closes its cursors) and waits for a page fill in
 * flight. A cursor that is dropped without being closed is released by a cleaner once it (and
 * every view of it) is unreachable.
 */
public final class Cursor implements AutoCloseable {
    private static final int HEADER = CursorPage.HEADER;
    /** Bytes of a pointer entry: u64 key address, u32 key length, u32 value length, u64 value address. */
    private static final int POINTER_ENTRY = CursorPage.POINTER_ENTRY;
    /** {@link #fastNext}/{@link #fastPrev} when the hot path is off: below every address. */
    private static final long NO_FAST = Long.MIN_VALUE;
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /**
     * Releases cursors dropped without being closed (once they and their views are unreachable):
     * cursors' own cleaner; {@code StoreCore.CLEANER} releases stores, snapshots and transactions.
     */
    private static final Cleaner CLEANER = Cleaner.create();

    private final CursorHost host;
    private final Cleaner.Cleanable cleanable;
    private final NativeCalls calls;
    private final Guard guard = new Guard("cursor");
    private final Thread owner;
    private final boolean emptyRange;
    private final int firstMax;
    private final int growth;
    private final long handle;
    /** The page memory, its error struct and seek key; null once released. */
    private CursorPage page;
    /** The page's first byte, kept here for the walk (a page's memory changes only at a fill). */
    private long pageAddr;
    private Runnable moveListener;
    /** This cursor's current entry as binding modules see it, made on first use ({@link #currentEntry()}). */
    private CurrentEntry entry;
    /** Offsets of the entries walked so far in a copy page (grown on demand). */
    private int[] offs = new int[16];

    private int count;
    /** The page holds pointer entries (else copy entries). */
    private boolean pointers;
    /** The page's fill reached the end of the range in its direction. */
    private boolean pageEnd;
    private int pdir;
    /** Index of the current entry in a copy page (pointer pages use {@link #at}; see {@link #index()}). */
    private int idx;
    /** Address of the current entry in a pointer page. */
    private long at;
    /**
     * Address of the last pointer entry {@link #next()} may step to without its slow path: the
     * page's last entry while the cursor stands on an entry of a pointer page filled in key order
     * and no move listener waits, else {@link #NO_FAST} (then every move takes the slow path).
     * One compare covers "pointer page", "direction", "positioned", "listener" and "entries left".
     */
    private long fastNext = NO_FAST;
    /** The same for {@link #prev()}, on a pointer page filled in reverse key order. */
    private long fastPrev = NO_FAST;
    /** Offset of the current entry in a copy page. */
    private int off;
    private int nextMax;
    /** Entries of the pages finished since the last positioning call (for the host's hint). */
    private int runBefore;
    /** A positioning call began a run that has not been reported yet. */
    private boolean inRun;
    private boolean positioned;
    private boolean exhausted;
    private boolean armed;
    /** Never positioned: the first next()/prev() acts as first()/last(). */
    private boolean fresh = true;
    /** A write of the cursor's transaction unpositioned it on this key: next()/prev() go on after/before it. */
    private byte[] resumeKey;
    private final View key;
    private final View value;
    /**
     * The family keeps several values per key (LMDB DUPSORT): a direction change at a page's start
     * seeks past the current (key, value) pair, not past the key, which would skip its other values.
     */
    boolean pairSeeks;

    /**
     * Takes ownership of a native cursor.
     *
     * @param release frees {@code handle} once; the caller runs it too when this constructor
     *        throws (the cleaner registered last shares it, so nothing is freed twice)
     */
    Cursor(CursorHost host, long handle, Once release, KeyRange range, int pageSize, boolean scanMode, boolean armed) {
        this(host, handle, release, range.isEmpty(), pageSize, scanMode, armed);
    }

    /** As above, with the range's emptiness in its family's key order. */
    Cursor(CursorHost host, long handle, Once release, boolean emptyRange, int pageSize, boolean scanMode, boolean armed) {
        this.host = host;
        this.calls = host.calls();
        this.handle = handle;
        this.armed = armed;
        this.owner = Thread.currentThread();
        this.emptyRange = emptyRange;
        this.firstMax = scanMode ? Integer.MAX_VALUE : 1;
        this.growth = scanMode ? 1 : 8;
        this.key = new View(this, calls, owner);
        this.value = new View(this, calls, owner);
        // may throw (direct memory exhausted): before the cleaner exists
        this.page = host.takePage(pageSize);
        this.cleanable = CLEANER.register(this, release);
    }

    /**
     * Moves to the first entry of the range.
     *
     * @return true when the cursor stands on an entry
     */
    public boolean first() {
        return position(Op.FIRST, null);
    }

    /**
     * Moves to the last entry of the range.
     *
     * @return true when the cursor stands on an entry
     */
    public boolean last() {
        return position(Op.LAST, null);
    }

    /**
     * Moves to the first entry whose key is {@code >= key} (within the range).
     *
     * @param key the target
     * @return true when the cursor stands on an entry
     */
    public boolean seek(byte[] key) {
        return position(Op.SEEK_GE, Objects.requireNonNull(key, "key"));
    }

    /**
     * Moves to the last entry whose key is {@code <= key} (within the range).
     *
     * @param key the target
     * @return true when the cursor stands on an entry
     */
    public boolean seekForPrev(byte[] key) {
        return position(Op.SEEK_LE, Objects.requireNonNull(key, "key"));
    }

    /**
     * Moves to the first entry of the next key: past every value of the current key in an LMDB
     * {@link ColumnFamilyFlag#DUPSORT} family (LMDB's {@code MDB_NEXT_NODUP}); elsewhere the same
     * as {@link #next()}.
     *
     * @return true when the cursor stands on an entry; false at the end of the range
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public boolean nextKey() {
        return position(Op.SEEK_GT, keyBytes());
    }

    /**
     * Moves to the last value of the previous key (LMDB's {@code MDB_PREV_NODUP}); without
     * duplicates the same as {@link #prev()}.
     *
     * @return true when the cursor stands on an entry; false at the start of the range
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public boolean prevKey() {
        return position(Op.SEEK_LT, keyBytes());
    }

    /**
     * Moves to the first value of the current key (LMDB's {@code MDB_FIRST_DUP}); then
     * {@link #next()} walks the key's values in order and on into the next keys. Without
     * duplicates the cursor stays where it is.
     *
     * @return true (the cursor stands on an entry)
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public boolean firstValue() {
        return position(Op.SEEK_GE, keyBytes());
    }

    /**
     * Moves to the last value of the current key (LMDB's {@code MDB_LAST_DUP}); then
     * {@link #prev()} walks the key's values in reverse.
     *
     * @return true (the cursor stands on an entry)
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public boolean lastValue() {
        return position(Op.SEEK_LE, keyBytes());
    }

    /**
     * Moves to the next entry in key order: one combined step (move, check, key and value).
     *
     * @return true when the cursor stands on an entry; false at the end of the range
     */
    public boolean next() {
        return move(fastNext, 1);
    }

    /**
     * Moves to the previous entry in key order.
     *
     * @return true when the cursor stands on an entry; false at the start of the range
     */
    public boolean prev() {
        return move(fastPrev, -1);
    }

    /**
     * One step in direction {@code d} (1 = key order, -1 = reverse); {@code fast} is that direction's
     * hot-path limit ({@link #fastNext} or {@link #fastPrev}). A pointer page lists its entries in
     * the order it was filled, so the hot path always steps one entry up the page.
     */
    private boolean move(long fast, int d) {
        checkThread();
        long e = at + POINTER_ENTRY;
        if (e <= fast) {
            at = e;
            loadPointers(e);
            return true;
        }
        return moveSlow(d);
    }

    /**
     * One step in direction {@code d} (1 = key order, -1 = reverse) when the hot path of
     * {@link #move} does not apply (copy pages, page ends, direction changes,
     * listeners): walks the page when it was filled in this direction, refills at its end, walks
     * back through it otherwise and re-seeks past the current key at its start.
     */
    private boolean moveSlow(int d) {
        // a close from another thread ends the walk here, on the owner's thread
        checkOpen();
        boolean fwd = d > 0;
        if (!positioned) {
            if (resumeKey != null) {
                return position(fwd ? Op.SEEK_GT : Op.SEEK_LT, resumeKey);
            }
            return armed ? position(fwd ? Op.CURRENT_FWD : Op.CURRENT_REV, null)
                    : fresh ? position(fwd ? Op.FIRST : Op.LAST, null) : unpositionedMove();
        }
        int i = index();
        if (pdir == d) {
            if (i + 1 < count) {
                step(i, 1);
                return true;
            }
            runBefore += count;
            if (pageEnd) {
                exhaust();
                return false;
            }
            return fill(fwd ? Op.NEXT : Op.PREV, 0, 0, nextMax);
        }
        if (i > 0) {
            step(i, -1);
            return true;
        }
        return pairSeeks ? reseekPair(fwd ? Op.SEEK_PAIR_GT : Op.SEEK_PAIR_LT) : reseek(fwd ? Op.SEEK_GT : Op.SEEK_LT);
    }

    /** @return true when the cursor stands on an entry */
    public boolean isValid() {
        checkThread();
        return positioned;
    }

    /**
     * Returns the current key as a zero-copy view, valid until the next move.
     *
     * @return the key view (the same object at every entry)
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public View key() {
        checkThread();
        View k = key;
        if (k.len < 0) {
            throw notOnEntry();
        }
        return k;
    }

    /**
     * Returns the current value as a zero-copy view, valid until the next move.
     *
     * @return the value view (the same object at every entry)
     * @throws IllegalStateException when the cursor is not on an entry
     */
    public View value() {
        checkThread();
        View v = value;
        if (v.len < 0) {
            throw notOnEntry();
        }
        return v;
    }

    /** @return a copy of the current key */
    public byte[] keyBytes() {
        return key().toByteArray();
    }

    /** @return a copy of the current value */
    public byte[] valueBytes() {
        return value().toByteArray();
    }

    /** @return true once closed */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /**
     * Closes the cursor. Idempotent; callable from any thread. Closed by its own thread, the
     * native iterator is freed at once. Closed by another thread (e.g. through
     * {@link Store#close()}), the owning thread's next move or positioning call throws
     * {@link IllegalStateException} (a move within the current pointer page may still succeed
     * first); its native iterator, and the engine memory its views point into, are freed on the
     * owning thread at that point, or when the cursor becomes unreachable. Until then the owner's
     * views stay readable.
     */
    @Override
    public void close() {
        if (!guard.close()) {
            releaseIfOwner();
            return;
        }
        try {
            if (Thread.currentThread() == owner) {
                endRun();
                host.closing(positioned ? key::toByteArray : null, pdir);
            }
        } finally {
            if (Thread.currentThread() == owner) {
                invalidate();
            } else {
                // Another thread only turns the hot path off. The views, the position and the page
                // walk belong to the owner, which may be using them right now: it used to step
                // through copy pages by view lengths this thread had just set to -1, and then read
                // outside its page. The owner invalidates them itself, below, before the page goes.
                disarm();
            }
            host.forget();
            releaseIfOwner();
        }
    }

    /** Frees the native cursor once, when called on the owning thread after close. */
    private void releaseIfOwner() {
        if (Thread.currentThread() == owner && page != null) {
            invalidate();
            host.returnPage(page);
            page = null;
            cleanable.clean();
        }
    }

    // ---- for binding modules (View.asByteBuffer, InternalAccess) ----

    /** @return this cursor's current entry as the SPI hands it to binding modules (one object per cursor) */
    CurrentEntry currentEntry() {
        CurrentEntry e = entry;
        if (e == null) {
            e = new Entry(this);
            entry = e;
        }
        return e;
    }

    /** The {@link CurrentEntry} of a cursor: holds it, so scopes made from it keep the cursor reachable. */
    private static final class Entry implements CurrentEntry {
        private final Cursor c;

        Entry(Cursor c) {
            this.c = c;
        }

        @Override
        public long keyAddress() {
            return c.key().addr;
        }

        @Override
        public int keyLength() {
            return c.key().length();
        }

        @Override
        public long valueAddress() {
            return c.value().addr;
        }

        @Override
        public int valueLength() {
            return c.value().length();
        }

        @Override
        public void beforeNextMove(Runnable action) {
            c.checkThread();
            c.moveListener = action;
            c.disarm();
        }

        @Override
        public Runnable moveListener() {
            return c.moveListener;
        }
    }

    // ---- internals ----

    private boolean position(Op op, byte[] k) {
        checkThread();
        checkOpen();
        armed = false;
        fresh = false;
        resumeKey = null;
        if (emptyRange) {
            invalidate();
            exhausted = true;
            return false;
        }
        long kaddr = 0;
        int klen = 0;
        if (k != null) {
            kaddr = page.key(k);
            klen = k.length;
        }
        endRun();
        int max = firstMax == 1 ? host.firstFill() : firstMax;
        runBefore = 0;
        inRun = true;
        return fill(op, kaddr, klen, max);
    }

    /** Reports the run since the last positioning call to the host, once. */
    private void endRun() {
        if (inRun) {
            inRun = false;
            host.runEnded(runBefore + (positioned ? index() + 1 : 0));
        }
    }

    /** Seeks past the current entry in the other direction (direction change at a page edge). */
    private boolean reseek(Op op) {
        int klen = key.len;
        long at = page.keySpace(klen);
        Mem.copy(key.addr, at, klen);
        return fill(op, at, klen, firstMax);
    }

    /** Seeks past the current (key, value) pair: the packed pair "u32 key length, key, value". */
    private boolean reseekPair(Op op) {
        int klen = key.len;
        int vlen = value.len;
        long at = page.pairSpace(klen, vlen);
        Mem.copy(key.addr, at + 4, klen);
        Mem.copy(value.addr, at + 4 + klen, vlen);
        return fill(op, at, 4 + klen + vlen, firstMax);
    }

    private boolean fill(Op op, long kaddr, int klen, int max) {
        if (moveListener != null) {
            moved();
        }
        int n;
        if (!guard.tryEnter()) {
            // closed by another thread since this call began: free what the owner holds, here
            throw closedOnOwner();
        }
        try {
            host.beforeNativeCall();
            try {
                n = calls.cursorFill(handle, op, kaddr, klen, page, max);
            } catch (FerryException e) {
                pageAddr = page.address();  // the page may have grown before the failure
                invalidate();
                throw e;
            }
        } finally {
            host.afterNativeCall();
            guard.exit();
        }
        count = n;
        pointers = page.pointers();
        pageEnd = page.endReached();
        pageAddr = page.address();
        pdir = op.forward ? 1 : -1;
        nextMax = (int) Math.min(Integer.MAX_VALUE, (long) max * growth);
        if (count == 0) {
            invalidate();
            exhausted = true;
            return false;
        }
        idx = 0;
        off = HEADER;
        offs[0] = HEADER;
        exhausted = false;
        positioned = true;
        if (pointers) {
            at = pageAddr + HEADER;
            loadPointers(at);
        } else {
            loadCopy(pageAddr + HEADER);
        }
        arm();
        return true;
    }

    /**
     * The transaction this cursor reads through is about to write, on the cursor's thread: what a
     * page points to may change, and the engine position must be found again. Keeps the current
     * key, unpositions the cursor (its views become invalid); the next {@link #next()} /
     * {@link #prev()} seeks past that key.
     */
    void transactionWrote() {
        if (guard.isClosed() || Thread.currentThread() != owner) {
            return;
        }
        if (positioned) {
            resumeKey = key.toByteArray();
            invalidate();
        } else if (!exhausted) {
            invalidate();
        }
    }

    /** @return the page index of the current entry */
    private int index() {
        return pointers ? (int) ((at - pageAddr - HEADER) / POINTER_ENTRY) : idx;
    }

    /** Steps from page index {@code i} one entry in page order ({@code d} 1) or back (-1). */
    private void step(int i, int d) {
        if (moveListener != null) {
            moved();
        }
        if (pointers) {
            at += d > 0 ? POINTER_ENTRY : -POINTER_ENTRY;
            loadPointers(at);
        } else if (d > 0) {
            // entries are read straight from the page native code filled, without a buffer
            idx = ++i;
            off += (8 + key.len + value.len + 7) & ~7;
            if (i == offs.length) {
                offs = Arrays.copyOf(offs, i * 2);
            }
            offs[i] = off;
            loadCopy(pageAddr + off);
        } else {
            idx = --i;
            off = offs[i];
            loadCopy(pageAddr + off);
        }
    }

    /**
     * Turns the hot path on for the current page when it is a pointer page and no move listener
     * waits (the cursor is positioned on it), off otherwise.
     */
    private void arm() {
        if (pointers && moveListener == null) {
            long last = pageAddr + HEADER + (long) (count - 1) * POINTER_ENTRY;
            fastNext = pdir > 0 ? last : NO_FAST;
            fastPrev = pdir > 0 ? NO_FAST : last;
        } else {
            disarm();
        }
    }

    private void disarm() {
        fastNext = NO_FAST;
        fastPrev = NO_FAST;
    }

    /** Points the views at the pointer entry at {@code e}: key address, key and value lengths, value address. */
    private void loadPointers(long e) {
        long lens = Mem.getLong(e + 8);
        key.set(Mem.getLong(e), keyLength(lens));
        value.set(Mem.getLong(e + 16), valueLength(lens));
    }

    /** Points the views at a copy entry: key length, value length, key bytes, value bytes. */
    private void loadCopy(long e) {
        long lens = Mem.getLong(e);
        int kl = keyLength(lens);
        key.set(e + 8, kl);
        value.set(e + 8 + kl, valueLength(lens));
    }

    /** @return the key length from an entry's {@code [u32 klen][u32 vlen]} pair read as one long */
    private static int keyLength(long lens) {
        return (int) (LITTLE ? lens : lens >>> 32);
    }

    /** @return the value length from an entry's {@code [u32 klen][u32 vlen]} pair read as one long */
    private static int valueLength(long lens) {
        return (int) (LITTLE ? lens >>> 32 : lens);
    }

    /** Runs and clears the move listener (used by bindings that scope views to one entry). */
    private void moved() {
        Runnable r = moveListener;
        moveListener = null;
        if (positioned) {
            arm();
        }
        r.run();
    }

    private boolean unpositionedMove() {
        checkOpen();
        if (exhausted) {
            return false;
        }
        throw new IllegalStateException("cursor is not positioned: call first(), last(), seek() or seekForPrev()");
    }

    private void exhaust() {
        invalidate();
        exhausted = true;
    }

    private void invalidate() {
        if (moveListener != null && Thread.currentThread() == owner) {
            moved();
        }
        positioned = false;
        disarm();
        key.invalidate();
        value.invalidate();
    }

    /** The exception for key()/value() off an entry: closed, or not positioned. */
    private RuntimeException notOnEntry() {
        if (Thread.currentThread() == owner) {
            checkOpen();
        }
        guard.check();
        return new IllegalStateException("cursor is not on an entry");
    }

    private void checkOpen() {
        if (guard.isClosed()) {
            throw closedOnOwner();
        }
    }

    /**
     * The exception for a call on a closed cursor, after freeing what the owner still holds: every
     * path on which the owner learns of a close by another thread releases the native cursor, so
     * the store it pins closes then (not only when a GC finds the cursor).
     */
    private IllegalStateException closedOnOwner() {
        invalidate();
        releaseIfOwner();
        return guard.closed();
    }

    private void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("cursor opened by thread '" + owner.getName() + "' used from thread '"
                    + Thread.currentThread().getName() + "': cursors are confined to their thread");
        }
    }
}
