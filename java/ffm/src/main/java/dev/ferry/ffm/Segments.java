package dev.ferry.ffm;

import dev.ferry.Cursor;
import dev.ferry.InternalAccess;
import dev.ferry.ffm.internal.EntrySegments;
import dev.ferry.spi.CurrentEntry;
import java.lang.foreign.MemorySegment;

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
        CurrentEntry e = ACCESS.currentEntry(c);
        return EntrySegments.segment(e, e.keyAddress(), e.keyLength());
    }

    /**
     * The current value as a read-only segment valid until the cursor's next move.
     *
     * @param c a positioned cursor
     * @return the segment
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    public static MemorySegment value(Cursor c) {
        CurrentEntry e = ACCESS.currentEntry(c);
        return EntrySegments.segment(e, e.valueAddress(), e.valueLength());
    }
}
