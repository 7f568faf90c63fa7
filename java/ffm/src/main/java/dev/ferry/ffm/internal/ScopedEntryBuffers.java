package dev.ferry.ffm.internal;

import dev.ferry.Cursor;
import dev.ferry.internal.EntryBuffers;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Not API: the provider behind {@link dev.ferry.View#asByteBuffer()} on Java 22+, found by
 * {@link EntryBuffers#get()}. Buffers are made from the same per-entry segments as
 * {@link dev.ferry.ffm.Segments} ({@link EntrySegments}, which checks that the bytes are the
 * current entry's): zero-copy, read-only, and closed when the cursor moves or closes.
 *
 * <p>Thread safety: stateless; each buffer is confined to the cursor's thread.
 */
public final class ScopedEntryBuffers extends EntryBuffers {
    /** Made by {@link EntryBuffers#get()}. */
    public ScopedEntryBuffers() {
    }

    @Override
    public ByteBuffer readOnly(Object cursor, long addr, int len) {
        if (!(cursor instanceof Cursor c)) {
            throw new IllegalArgumentException("not a cursor: " + Objects.toString(cursor));
        }
        return EntrySegments.segment(c, addr, len).asByteBuffer();
    }
}
