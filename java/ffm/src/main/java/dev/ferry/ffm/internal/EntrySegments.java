package dev.ferry.ffm.internal;

import dev.ferry.spi.CurrentEntry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Not API: the per-entry segments behind {@link dev.ferry.ffm.Segments} and
 * {@link ScopedEntryBuffers}. A segment is made only over bytes of the cursor's current key or
 * value, checked here, so that no caller (this package is not exported, but on the class path
 * every public class can be reached) can turn an address into readable memory. The cursor comes
 * as ferry-core's SPI type {@link CurrentEntry}: this package names no class of the API.
 *
 * <p>Thread safety: the cursor's thread only (the entry's accessors check it; the arenas are
 * confined).
 */
public final class EntrySegments {

    private EntrySegments() {
    }

    /**
     * A read-only segment over {@code [addr, addr + len)}, which must lie inside the cursor's
     * current key or value, in the entry's arena. The arena's close action refers to the entry,
     * which holds the cursor, so the cursor, and the page or read transaction it holds, stays
     * reachable as long as any segment (or buffer made from one) is: a segment kept after the
     * cursor was dropped cannot read memory a cleaner freed.
     *
     * @param e the cursor's current entry, used on the cursor's thread
     * @param addr the first byte
     * @param len the length
     * @return the segment, closed when the cursor moves or closes
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     * @throws IllegalArgumentException when the bytes are not the current entry's
     */
    @SuppressWarnings("restricted") // the cursor guarantees [addr, addr + len) while the scope is open: checked below
    public static MemorySegment segment(CurrentEntry e, long addr, int len) {
        Objects.requireNonNull(e, "entry");
        if (!within(addr, len, e.keyAddress(), e.keyLength())
                && !within(addr, len, e.valueAddress(), e.valueLength())) {
            throw new IllegalArgumentException("[" + addr + ", +" + len + ") is not inside the cursor's current key or value");
        }
        return MemorySegment.ofAddress(addr).reinterpret(len, scope(e), unused -> Reference.reachabilityFence(e)).asReadOnly();
    }

    private static boolean within(long addr, int len, long start, int length) {
        return len >= 0 && addr >= start && len <= length && addr - start <= length - len;
    }

    private static Arena scope(CurrentEntry e) {
        if (e.moveListener() instanceof EntryScope s) {
            return s.arena;
        }
        EntryScope s = new EntryScope(Arena.ofConfined());
        e.beforeNextMove(s);
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
