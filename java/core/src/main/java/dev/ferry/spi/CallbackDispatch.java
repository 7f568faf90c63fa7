package dev.ferry.spi;

import java.util.function.LongSupplier;

/**
 * The part of a binding's callbacks that both bindings share: libferry's C trampolines (native/src/jni/binding.c)
 * call a static method of the binding's own class through JNI, which hands the call to the binding's
 * {@code CallbackDispatch}; it passes the call to the handler ferry-core installed, and turns anything thrown
 * (the handlers throw nothing, but an {@link Error} such as a stack overflow can) into the failure answer, so
 * that nothing is thrown back into the engine. It also keeps each kind's trampoline address, set up once.
 *
 * <p>Thread safety: thread-safe; the dispatch methods are called from any thread, concurrently.
 */
public final class CallbackDispatch {
    private final String binding;
    private volatile MergeHandler mergeHandler;
    private volatile FilterHandler filterHandler;
    private volatile CompareHandler compareHandler;
    private long mergeTrampoline;
    private long filterTrampoline;
    private long compareTrampoline;

    /**
     * Makes a binding's dispatch.
     *
     * @param binding the binding's name, for messages ("JNI", "FFM")
     */
    public CallbackDispatch(String binding) {
        this.binding = binding;
    }

    /**
     * Installs the merge handler (once: a second, different one is refused) and returns the trampoline.
     *
     * @param handler where merges go
     * @param setUp makes the trampoline the first time: its address, or 0 when libferry cannot
     * @return the trampoline's address
     * @throws IllegalStateException when another handler is installed or the trampoline cannot be set up
     */
    public synchronized long installMerge(MergeHandler handler, LongSupplier setUp) {
        if (mergeHandler != null && mergeHandler != handler) {
            throw new IllegalStateException("the " + binding + " binding has a merge handler already");
        }
        if (mergeTrampoline == 0) {
            mergeTrampoline = trampoline(setUp, "merge");
        }
        mergeHandler = handler;
        return mergeTrampoline;
    }

    /**
     * Installs the compaction filter handler, as {@link #installMerge}.
     *
     * @param handler where filter calls go
     * @param setUp makes the trampoline the first time: its address, or 0 when libferry cannot
     * @return the trampoline's address
     * @throws IllegalStateException when another handler is installed or the trampoline cannot be set up
     */
    public synchronized long installFilter(FilterHandler handler, LongSupplier setUp) {
        if (filterHandler != null && filterHandler != handler) {
            throw new IllegalStateException("the " + binding + " binding has a filter handler already");
        }
        if (filterTrampoline == 0) {
            filterTrampoline = trampoline(setUp, "compaction filter");
        }
        filterHandler = handler;
        return filterTrampoline;
    }

    /**
     * Installs the comparator handler, as {@link #installMerge}.
     *
     * @param handler where comparisons go
     * @param setUp makes the trampoline the first time: its address, or 0 when libferry cannot
     * @return the trampoline's address
     * @throws IllegalStateException when another handler is installed or the trampoline cannot be set up
     */
    public synchronized long installCompare(CompareHandler handler, LongSupplier setUp) {
        if (compareHandler != null && compareHandler != handler) {
            throw new IllegalStateException("the " + binding + " binding has a comparator handler already");
        }
        if (compareTrampoline == 0) {
            compareTrampoline = trampoline(setUp, "comparator");
        }
        compareHandler = handler;
        return compareTrampoline;
    }

    private long trampoline(LongSupplier setUp, String what) {
        long address = setUp.getAsLong();
        if (address == 0) {
            throw new IllegalStateException("libferry could not set up its " + what + " callback");
        }
        return address;
    }

    /**
     * One merge, for the trampoline (see {@link MergeHandler#merge}).
     *
     * @param token the operator's token
     * @param kind 0 full, 1 partial
     * @param key the key
     * @param existing the existing value, or null
     * @param operands the operands, oldest first
     * @return the merged value, or null (a failed merge); never throws
     */
    public byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands) {
        try {
            MergeHandler h = mergeHandler;
            return h == null ? null : h.merge(token, kind, key, existing, operands);
        } catch (Throwable t) { // an Error (stack overflow) must not reach RocksDB
            return null;
        }
    }

    /**
     * One compaction filter call, for the trampoline (see {@link FilterHandler#filter}).
     *
     * @param token the filter's token
     * @param kind BEGIN, ENTRY or END
     * @param arg the flags or the compaction's id
     * @param level ENTRY: the level
     * @param key ENTRY: the key
     * @param value ENTRY: the value
     * @param out ENTRY: where a change puts the new value
     * @return the handler's answer, 0 on a failure; never throws
     */
    public long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out) {
        try {
            FilterHandler h = filterHandler;
            return h == null ? 0 : h.filter(token, kind, arg, level, key, value, out);
        } catch (Throwable t) { // an Error (stack overflow) must not reach RocksDB
            return 0;
        }
    }

    /**
     * One comparison, for the trampoline (see {@link CompareHandler#compare}).
     *
     * @param token the comparator's token
     * @param a the first key
     * @param b the second key
     * @return the order, or {@link CompareHandler#FAILED}; never throws
     */
    public long compare(long token, byte[] a, byte[] b) {
        try {
            CompareHandler h = compareHandler;
            return h == null ? CompareHandler.FAILED : h.compare(token, a, b);
        } catch (Throwable t) { // an Error (stack overflow) must not reach RocksDB
            return CompareHandler.FAILED;
        }
    }
}
