package dev.ferry.ffm;

import dev.ferry.Cursor;
import dev.ferry.fuzz.Ctx;
import dev.ferry.fuzz.FuzzExtension;
import dev.ferry.fuzz.OpTable;
import dev.ferry.fuzz.World;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The misuse fuzzer's {@link Segments} operations (loaded in the FFM children): segments taken
 * from cursors of this and other threads, kept, and read after the cursor moved or closed (they
 * must then throw, never show other bytes or crash). Segments.key/value from a thread that does
 * not own the cursor must throw {@link IllegalStateException}; reading a kept segment from
 * another thread may throw {@code WrongThreadException} (its arena is confined).
 *
 * <p>Thread safety: called from every fuzz thread at once (the pool is atomic).
 */
public final class FfmMisuseOps implements FuzzExtension {
    private final AtomicReferenceArray<Held> held = new AtomicReferenceArray<>(32);

    /** A segment and the bytes it showed when taken. */
    private record Held(int id, MemorySegment seg, byte[] expect, World.CurRef cursor) {
        @Override
        public String toString() {
            return "m" + id;
        }
    }

    /** Creates the extension (the child loads it by name). */
    public FfmMisuseOps() {
    }

    @Override
    public void register(OpTable table) {
        table.add("ffm:segment", 40, this::segment, true);
        table.add("ffm:segmentRead", 25, this::segmentRead, true);
    }

    private void segment(Ctx c) {
        World.CurRef r = c.world.cursors.pick(c.rnd);
        if (r == null) {
            return;
        }
        Cursor cur = c.oneIn(40) ? null : r.cursor;
        if (cur == null) {
            c.nullArg("cursor");
        } else if (r.foreign()) {
            c.foreign("Segments of cursor " + r + " of thread '" + r.owner.getName() + "' taken from another thread without IllegalStateException");
        }
        boolean key = c.oneIn(2);
        int id = c.world.nextId();
        boolean own = !r.foreign();
        c.call("m" + id + " = Segments." + (key ? "key(" : "value(") + (cur == null ? "null" : r) + ")", () -> {
            MemorySegment m = key ? Segments.key(cur) : Segments.value(cur);
            if (!m.isReadOnly()) {
                c.wrong("Segments", "segment is writable");
            }
            if (own) {
                byte[] now = m.toArray(ValueLayout.JAVA_BYTE);
                byte[] copy = key ? cur.keyBytes() : cur.valueBytes();
                if (!Arrays.equals(now, copy)) {
                    c.wrong("Segments", "segment shows other bytes than the view's copy");
                }
                held.set(c.rnd.nextInt(held.length()), new Held(id, m, now, r));
            }
        });
    }

    private void segmentRead(Ctx c) {
        Held h = held.get(c.rnd.nextInt(held.length()));
        if (h == null) {
            return;
        }
        if (h.cursor.foreign()) {
            c.foreign(null);
        }
        long size = h.seg.byteSize();
        if (c.oneIn(2)) {
            c.call(h + " read all (" + size + " bytes, of " + h.cursor + ")", () -> {
                byte[] got = h.seg.toArray(ValueLayout.JAVA_BYTE);
                if (!Arrays.equals(got, h.expect)) {
                    c.wrong(h + " read", "a kept segment shows other bytes than when it was taken (it must throw instead)");
                }
            });
        } else {
            int i = c.index((int) size, 1, true);
            c.call(h + ".get(JAVA_BYTE, " + i + ")", () -> {
                byte b = h.seg.get(ValueLayout.JAVA_BYTE, i);
                if (b != h.expect[i]) {
                    c.wrong(h + ".get", "a kept segment shows another byte than when it was taken");
                }
            });
        }
    }

    @Override
    public void foreignRead(Ctx c, World.CurRef r) {
        c.foreign("Segments of cursor " + r + " taken from another thread without IllegalStateException");
        c.quiet(() -> "Segments.value(" + r + ") read [race]", () -> Segments.value(r.cursor).toArray(ValueLayout.JAVA_BYTE));
    }
}
