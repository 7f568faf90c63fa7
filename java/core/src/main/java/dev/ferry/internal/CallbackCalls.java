package dev.ferry.internal;

import static dev.ferry.internal.NativeCalls.check;

import dev.ferry.FerryException;
import dev.ferry.spi.CompareHandler;
import dev.ferry.spi.FilterHandler;
import dev.ferry.spi.MergeHandler;
import dev.ferry.spi.NativeBinding;

/**
 * The call layer's calls that register callbacks written in Java with the engine,
 * {@link NativeCalls#callbacks()}: merge operators, compaction filters and comparators. The conventions are {@link NativeCalls}'s
 * (handles are {@code long}s, a failure throws the engine's {@link FerryException}).
 *
 * <p>Thread safety: thread-safe (scratch memory is per thread).
 */
public final class CallbackCalls {
    private final NativeBinding b;

    CallbackCalls(NativeBinding binding) {
        this.b = binding;
    }

    /**
     * {@code ferry_merge_operator_create} with the binding's callback ({@link NativeBinding#mergeCallback}).
     *
     * @param name the operator's name (no NUL)
     * @param token passed to the handler with each merge
     * @param handler where the merges go
     * @return the handle
     */
    public long mergeOperatorCreate(byte[] name, long token, MergeHandler handler) {
        long callback = b.mergeCallback(handler);
        Scratch s = Scratch.get(b);
        check(s, b.mergeOperatorCreate(s.cString(name), token, callback, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_merge_operator_close}.
     *
     * @param op the handle
     */
    public void mergeOperatorClose(long op) {
        b.mergeOperatorClose(op);
    }

    /**
     * {@code ferry_compaction_filter_create} with the binding's callback ({@link NativeBinding#filterCallback}).
     *
     * @param name the filter's name (no NUL)
     * @param token passed to the handler with each call
     * @param handler where the calls go
     * @return the handle
     */
    public long compactionFilterCreate(byte[] name, long token, FilterHandler handler) {
        long callback = b.filterCallback(handler);
        Scratch s = Scratch.get(b);
        check(s, b.compactionFilterCreate(s.cString(name), token, callback, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_compaction_filter_close}.
     *
     * @param filter the handle
     */
    public void compactionFilterClose(long filter) {
        b.compactionFilterClose(filter);
    }

    /**
     * {@code ferry_comparator_create} with the binding's callback ({@link NativeBinding#compareCallback}).
     *
     * @param name the comparator's name (no NUL)
     * @param token passed to the handler with each comparison
     * @param handler where the comparisons go
     * @return the handle
     */
    public long comparatorCreate(byte[] name, long token, CompareHandler handler) {
        long callback = b.compareCallback(handler);
        Scratch s = Scratch.get(b);
        check(s, b.comparatorCreate(s.cString(name), token, callback, s.out(0), s.err()));
        return s.outLong(0);
    }

    /**
     * {@code ferry_comparator_close}.
     *
     * @param comparator the handle
     */
    public void comparatorClose(long comparator) {
        b.comparatorClose(comparator);
    }
}
