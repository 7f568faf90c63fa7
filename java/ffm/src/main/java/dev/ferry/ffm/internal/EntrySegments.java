package dev.ferry.ffm.internal;

import dev.ferry.Cursor;
import dev.ferry.InternalAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Not API: the per-entry segments behind {@link dev.ferry.ffm.Segments} and
 * {@link ScopedEntryBuffers}. A segment is made only over bytes of the cursor's current key or
 * value, checked here, so that no caller (this package is not exported, but on the class path
 * every public class can be reached) can turn an address into readable memory.
 *
 * <p>Thread safety: the cursor's thread only (the cursor's accessors check it; the arenas are
 * confined).
 */
public final class EntrySegments {
    private static final InternalAccess ACCESS = InternalAccess.get();

    private EntrySegments() {
    }

    /**
     * A read-only segment over {@code [addr, addr + len)}, which must lie inside the cursor's
     * current key or value, in the entry's arena. The arena's close action refers to the cursor,
     * so the cursor, and the page or read transaction it holds, stays reachable as long as any
     * segment (or buffer made from one) is: a segment kept after the cursor was dropped cannot
     * read memory a cleaner freed.
     *
     * @param c the cursor, positioned, used on its own thread
     * @param addr the first byte
     * @param len the length
     * @return the segment, closed when the cursor moves or closes
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     * @throws IllegalArgumentException when the bytes are not the current entry's
     */
    @SuppressWarnings("restricted") // the cursor guarantees [addr, addr + len) while the scope is open: checked below
    public static MemorySegment segment(Cursor c, long addr, int len) {
        Objects.requireNonNull(c, "cursor");
        if (!within(addr, len, ACCESS.keyAddress(c), ACCESS.keyLength(c))
                && !within(addr, len, ACCESS.valueAddress(c), ACCESS.valueLength(c))) {
            throw new IllegalArgumentException("[" + addr + ", +" + len + ") is not inside the cursor's current key or value");
        }
        return MemorySegment.ofAddress(addr).reinterpret(len, scope(c), unused -> Reference.reachabilityFence(c)).asReadOnly();
    }

    private static boolean within(long addr, int len, long start, int length) {
        return len >= 0 && addr >= start && len <= length && addr - start <= length - len;
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
