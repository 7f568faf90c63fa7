package dev.ferry.internal;

import java.util.function.Supplier;

/**
 * What a cursor ({@code dev.ferry.Cursor}) needs from whatever opened it: the binding, page memory, a check before
 * each native call, bookkeeping at close and the native release. A store or snapshot is one host;
 * the RocksJava interop ({@code dev.ferry.rocksjava}) is another, whose cursors live on
 * RocksJava's objects instead of a {@code Store}.
 *
 * <p>Thread safety: {@link #forget} and {@link #release} may run on any thread; the other methods
 * run on the cursor's thread.
 */
public interface CursorHost {
    /** @return the call layer the cursor calls through */
    NativeCalls calls();

    /**
     * Lends a page: a pooled one that {@link CursorPage#fits} the size ({@link CursorPage#reset}), or a new one.
     *
     * @param pageSize its capacity for entries, in bytes
     * @return the page
     */
    CursorPage takePage(int pageSize);

    /**
     * Takes a page back (it may be pooled or dropped); the cursor does not use it after.
     *
     * @param page the page, or null
     */
    void returnPage(CursorPage page);

    /**
     * Runs before every native call on the cursor's handle, inside the cursor's guard.
     *
     * @throws IllegalStateException when the objects the cursor reads through are closed
     */
    void beforeNativeCall();

    /** Runs after every native call on the cursor's handle (also when it threw). */
    void afterNativeCall();

    /**
     * Runs once at close on the cursor's own thread, before the cursor lets go of its position.
     *
     * @param key copies the current key, or null when the cursor is not on an entry
     * @param direction 1 when the cursor was moving forward, -1 in reverse
     */
    void closing(Supplier<byte[]> key, int direction);

    /**
     * The cursor was closed (on any thread): drop it from the host's bookkeeping.
     */
    void forget();

    /**
     * The size of the first page after a positioning call (a seek, first, last).
     *
     * @return entries, at least 1
     */
    default int firstFill() {
        return 1;
    }

    /**
     * A cursor's run ended (at its next positioning call or its close): it stood on
     * {@code entries} entries since the positioning call. Feeds {@link #firstFill}.
     *
     * @param entries the run's length
     */
    default void runEnded(int entries) {
        // no hint kept
    }

    /**
     * Builds the native release of a cursor handle, run exactly once (by the owning thread after
     * close, or by a cleaner); it must not reference the cursor.
     *
     * @param handle the native cursor
     * @return the release action
     */
    Runnable release(long handle);
}
