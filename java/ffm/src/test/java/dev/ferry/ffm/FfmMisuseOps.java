package dev.ferry.ffm;

import dev.ferry.Cursor;
import dev.ferry.Store;
import dev.ferry.fuzz.Ctx;
import dev.ferry.fuzz.FuzzExtension;
import dev.ferry.fuzz.OpTable;
import dev.ferry.fuzz.World;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The misuse fuzzer's {@link Segments} operations (loaded in the FFM children): segments taken
 * from cursors of this and other threads, kept, and read after the cursor moved or closed (they
 * must then throw, never show other bytes or crash). Segments.key/value from a thread that does
 * not own the cursor must throw {@link IllegalStateException}; reading a kept segment from
 * another thread may throw {@code WrongThreadException} (its arena is confined). Direct buffers
 * over arena memory go into puts and gets with the arena closed before or during the call.
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
        table.add("ffm:arenaBuffer", 10, this::arenaBuffer, true);
    }

    /**
     * Direct buffers over arena memory as put values and get targets: of a closed arena (must
     * throw), or of a shared arena another thread closes while the call runs (may throw, must not
     * crash: the native heap was corrupted when large values and targets went to native code by
     * address; Ferry now copies them through the buffer's API).
     */
    private void arenaBuffer(Ctx c) throws InterruptedException {
        World.StoreRef s = c.liveStore();
        if (s == null) {
            return;
        }
        Store st = s.store;
        boolean race = c.oneIn(2);
        int size = race ? (128 << 10) + c.rnd.nextInt(2 << 20) : 1 + c.rnd.nextInt(64 << 10);
        Arena arena = Arena.ofShared();
        MemorySegment seg;
        try {
            seg = arena.allocate(size);
        } catch (OutOfMemoryError e) {
            arena.close();
            return;
        }
        ByteBuffer buf = seg.asByteBuffer();
        byte[] key = {0x42, (byte) c.rnd.nextInt(4)};
        boolean put = c.oneIn(2);
        if (!race) {
            arena.close();
            c.mustThrow("a buffer of a closed arena accepted");
            c.call(s + (put ? ".put(" : ".get(") + Ctx.hex(key) + ", buffer of a closed arena, " + size + " bytes)", () -> {
                if (put) {
                    st.put(st.defaultColumnFamily(), ByteBuffer.wrap(key), buf);
                } else {
                    st.get(st.defaultColumnFamily(), ByteBuffer.wrap(key), buf);
                }
            });
            return;
        }
        if (!put) {
            // a value as large as the buffer, so the get writes all of it
            byte[] big = new byte[size];
            c.call(s + ".put(" + Ctx.hex(key) + ", " + size + " bytes)", () -> st.put(key, big));
        }
        int delay = c.rnd.nextInt(300);
        Thread closer = new Thread(() -> {
            long until = System.nanoTime() + delay * 1000L;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            arena.close(); // may race the call below: the JDK lets a shared arena close at any time
        }, "fuzz-T" + c.tid + "-arena-closer");
        c.note("race: another thread closes a shared arena after ~" + delay + " us while " + s + (put ? ".put" : ".get") + " uses a "
                + size + "-byte buffer of it");
        closer.start();
        c.call(s + (put ? ".put(" : ".get(") + Ctx.hex(key) + ", arena buffer, " + size + " bytes) racing the arena's close", () -> {
            if (put) {
                st.put(st.defaultColumnFamily(), ByteBuffer.wrap(key), buf);
            } else {
                st.get(st.defaultColumnFamily(), ByteBuffer.wrap(key), buf);
            }
        });
        // on JDK 25 a thread whose access loses the race with a shared arena's close sometimes
        // comes back interrupted (plain JDK behaviour, seen without Ferry): not the fuzzed call's doing
        Thread.interrupted();
        closer.join();
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
