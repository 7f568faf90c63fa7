package dev.ferry.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-thread state of callbacks from the engine into user code (merge operators written in Java):
 * the guard of the store whose callback runs on this thread, so that a call of that store from the
 * callback fails instead of waiting for itself ({@link Guard#refuseCallbacks()}), and the exception
 * of the last failed callback, which the failed call's exception then carries as its cause. A callback
 * that fails on RocksDB's own flush or compaction threads fails a call of another thread (the flush, a
 * write refused after RocksDB's background error): the store's last callback failure, kept per store
 * handle ({@link #failedIn}), is that call's cause.
 *
 * <p>Thread safety: per thread.
 */
public final class Callbacks {
    private static final ThreadLocal<Guard> RUNNING = new ThreadLocal<>();
    private static final ThreadLocal<Throwable> FAILURE = new ThreadLocal<>();
    /** Per store handle: the last exception of its callbacks, for calls failing on other threads. */
    private static final Map<Long, Throwable> STORES = new ConcurrentHashMap<>();

    private Callbacks() {
    }

    /**
     * Marks a callback of the store of {@code guard} as running on this thread.
     *
     * @param guard the store's guard, or null when unknown
     * @return what to give {@link #exit} when the callback ends
     */
    public static Guard enter(Guard guard) {
        Guard before = RUNNING.get();
        RUNNING.set(guard);
        return before;
    }

    /**
     * Ends a callback.
     *
     * @param before what {@link #enter} returned
     */
    public static void exit(Guard before) {
        if (before == null) {
            RUNNING.remove();
        } else {
            RUNNING.set(before);
        }
    }

    /** @return whether a callback of the store of {@code guard} runs on this thread */
    static boolean inCallbackOf(Guard guard) {
        return RUNNING.get() == guard;
    }

    /**
     * Remembers why a callback failed, for the call that needed it (on this thread).
     *
     * @param t the callback's exception
     */
    public static void failed(Throwable t) {
        FAILURE.set(t);
    }

    /** @return the exception of the last failed callback on this thread, cleared, or null */
    public static Throwable takeFailure() {
        Throwable t = FAILURE.get();
        if (t != null) {
            FAILURE.remove();
        }
        return t;
    }

    /**
     * Remembers why a callback of a store failed, for calls of that store on other threads.
     *
     * @param store the store's handle (0: unknown, ignored)
     * @param t the callback's exception
     */
    public static void failedIn(long store, Throwable t) {
        if (store != 0) {
            STORES.put(store, t);
        }
    }

    /**
     * Forgets a store's callback failures (it closed).
     *
     * @param store the store's handle
     */
    public static void forget(long store) {
        STORES.remove(store);
    }

    /**
     * The cause of a failed store call: a callback's exception on this thread, else the store's last
     * callback failure, else null.
     *
     * @param store the store's handle
     * @return the exception, or null
     */
    static Throwable causeFor(long store) {
        Throwable t = takeFailure();
        return t != null ? t : STORES.get(store);
    }
}
