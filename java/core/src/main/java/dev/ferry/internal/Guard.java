package dev.ferry.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Lifecycle of a native handle: counts calls in flight and lets {@link #close()} wait for
 * them, so a concurrent close never frees memory a native call is using.
 *
 * <p>The count is striped: a guard shared by many threads (a store, a snapshot) keeps one counter
 * per stripe, each on its own cache line, and a thread always counts in the stripe its id picks,
 * so readers on different threads do not write a common cache line on every call (the count used
 * to be one word that every call of every thread incremented). {@link #close()} raises the closed
 * flag, then waits until every stripe is zero. A call increments its stripe, then reads the flag;
 * close writes the flag, then reads the stripes: both are volatile accesses, so one of the two
 * sees the other (either the call backs out, or close waits for it).
 *
 * <p>Code holding the guard must not call user code (so close never waits on itself). The one
 * exception, merge operators written in Java that RocksDB calls during a read: their store's guard
 * {@link #refuseCallbacks() refuses} calls from them.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Guard {
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle CLOSED;
    /** ints between two stripes: 64 bytes, one cache line. */
    private static final int SPACING = 16;
    /** Stripes of a guard shared between threads. */
    private static final int SHARED_STRIPES = sharedStripes();

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Guard.class, "closed", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String what;
    /** Calls in flight per stripe, at index {@code stripe * SPACING} (a stripe may go negative when
     * a call exits on another stripe than it entered, which a thread never does; only the sum counts). */
    private final int[] cells;
    private final int mask;
    @SuppressWarnings("unused") // accessed through CLOSED
    private volatile int closed;
    /** Calls from a callback of this guard's store are refused ({@link Callbacks}). */
    private volatile boolean callbacks;

    /**
     * Creates an open guard for an object used by one thread at a time (one stripe).
     *
     * @param what the guarded object's name for messages, e.g. "cursor"
     */
    public Guard(String what) {
        this(what, false);
    }

    /**
     * Creates an open guard.
     *
     * @param what the guarded object's name for messages, e.g. "store"
     * @param shared true for objects many threads call at once: one stripe per few cores
     */
    public Guard(String what, boolean shared) {
        this.what = what;
        int stripes = shared ? SHARED_STRIPES : 1;
        this.cells = new int[stripes * SPACING];
        this.mask = stripes - 1;
    }

    private int index() {
        if (mask == 0) {
            return 0;
        }
        @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() is the same number
        long id = Thread.currentThread().getId();
        return ((int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask) * SPACING;
    }

    /**
     * Registers a call in flight.
     *
     * @throws IllegalStateException when closed
     */
    public void enter() {
        if (!tryEnter()) {
            throw closed();
        }
    }

    /**
     * Registers a call in flight unless closed.
     *
     * @return true when registered (pair with {@link #exit()}), false when closed
     */
    public boolean tryEnter() {
        if (callbacks && Callbacks.inCallbackOf(this)) {
            throw reentered();
        }
        int i = index();
        CELLS.getAndAdd(cells, i, 1);
        if ((int) CLOSED.getVolatile(this) != 0) {
            CELLS.getAndAdd(cells, i, -1);
            return false;
        }
        return true;
    }

    /** Ends a call registered by {@link #enter()} or {@link #tryEnter()}, on the same thread. */
    public void exit() {
        CELLS.getAndAdd(cells, index(), -1);
    }

    /**
     * Tells whether close has begun.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return (int) CLOSED.getVolatile(this) != 0;
    }

    /**
     * Throws when closed.
     *
     * @throws IllegalStateException when closed
     */
    public void check() {
        if (isClosed()) {
            throw closed();
        }
    }

    /**
     * Marks closed and waits until no call is in flight.
     *
     * @return true for the call that closed it, false when it was closed already
     */
    public boolean close() {
        refuseCallback();
        if (!CLOSED.compareAndSet(this, 0, 1)) {
            return false;
        }
        int spins = 0;
        while (inFlight() != 0) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return true;
    }

    private int inFlight() {
        int n = 0;
        for (int i = 0; i < cells.length; i += SPACING) {
            n += (int) CELLS.getVolatile(cells, i);
        }
        return n;
    }

    /**
     * Makes {@link #enter()}, {@link #tryEnter()} and {@link #close()} throw {@link IllegalStateException}
     * when called from a callback of this guard's store (see {@link Callbacks#enter}).
     */
    public void refuseCallbacks() {
        callbacks = true;
    }

    /**
     * Throws {@link IllegalStateException} when called from a callback of this guard's store (after
     * {@link #refuseCallbacks()}), whether or not the guard is closed: a callback's close of its own
     * store is refused the same way before, during and after the store's close.
     */
    public void refuseCallback() {
        if (callbacks && Callbacks.inCallbackOf(this)) {
            throw reentered();
        }
    }

    private IllegalStateException reentered() {
        return new IllegalStateException("a merge operator of this " + what + " called the " + what + ": a merge "
                + "operator runs inside the store's reads, flushes and compactions and must not use its own store");
    }

    /**
     * Builds the exception for a call on a closed object.
     *
     * @return the exception
     */
    public IllegalStateException closed() {
        return new IllegalStateException(what + " is closed");
    }

    private static int sharedStripes() {
        int want = Math.min(64, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
        return Integer.highestOneBit(want - 1) << 1;
    }
}
