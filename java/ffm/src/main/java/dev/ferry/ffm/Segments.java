package dev.ferry.ffm;

import dev.ferry.Cursor;
import dev.ferry.InternalAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * Zero-copy {@link MemorySegment} views of a cursor's current key and value (FFM binding, Java
 * 22+). Each segment is read-only and scoped to the current entry: after the cursor moves,
 * refills, runs off its range or closes, using the segment throws {@link IllegalStateException}
 * instead of reading memory that may have been reused or unmapped.
 *
 * <pre>{@code
 * for (boolean ok = c.first(); ok; ok = c.next()) {
 *     MemorySegment v = Segments.value(c);
 *     long x = v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
 * }
 * }</pre>
 *
 * <p>The scope is a confined arena per entry, made only when a segment is asked for; the
 * cursor's {@link dev.ferry.View}s remain the allocation-free fast path. Works on cursors of
 * either binding (the memory is the same); segments point into the cursor's page (copy mode) or
 * into LMDB's map (pointer pages).
 *
 * <p>Thread safety: the cursor's thread only (confined arenas enforce it too).
 */
public final class Segments {
    private static final InternalAccess ACCESS = InternalAccess.get();

    private Segments() {
    }

    /**
     * The current key as a read-only segment valid until the cursor's next move.
     *
     * @param c a positioned cursor
     * @return the segment
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    public static MemorySegment key(Cursor c) {
        long addr = ACCESS.keyAddress(c);
        return segment(c, addr, ACCESS.keyLength(c));
    }

    /**
     * The current value as a read-only segment valid until the cursor's next move.
     *
     * @param c a positioned cursor
     * @return the segment
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    public static MemorySegment value(Cursor c) {
        long addr = ACCESS.valueAddress(c);
        return segment(c, addr, ACCESS.valueLength(c));
    }

    /**
     * A read-only segment over {@code [addr, addr + len)} of the cursor's current entry, in the
     * entry's arena. The arena's close action refers to the cursor, so the cursor, and the page or
     * read transaction it holds, stays reachable as long as any segment (or buffer made from one)
     * is: a segment kept after the cursor was dropped cannot read memory a cleaner freed.
     */
    @SuppressWarnings("restricted") // the cursor guarantees [addr, addr + len) while the scope is open
    static MemorySegment segment(Cursor c, long addr, int len) {
        return MemorySegment.ofAddress(addr).reinterpret(len, scope(c), unused -> Reference.reachabilityFence(c)).asReadOnly();
    }

    private static Arena scope(Cursor c) {
        if (ACCESS.moveListener(c) instanceof EntryScope s) {
            return s.arena;
        }
        EntryScope s = new EntryScope(Arena.ofConfined());
        ACCESS.beforeNextMove(c, s);
        return s.arena;
    }

    /** Closes the entry's arena when the cursor moves on. */
    private record EntryScope(Arena arena) implements Runnable {
        @Override
        public void run() {
            arena.close();
        }
    }
}
