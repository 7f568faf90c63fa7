package dev.ferry.ffm.internal;

import dev.ferry.spi.CurrentEntry;
import dev.ferry.spi.EntryBuffers;
import java.nio.ByteBuffer;

/**
 * Not API: the buffers behind {@code View.asByteBuffer()} on Java 22+, supplied to ferry-core by
 * {@link FfmBindingProvider#entryBuffers()}. Buffers are made from the same per-entry segments as
 * {@link dev.ferry.ffm.Segments} ({@link EntrySegments}, which checks that the bytes are the
 * current entry's): zero-copy, read-only, and closed when the cursor moves or closes.
 *
 * <p>Thread safety: stateless; each buffer is confined to the cursor's thread.
 */
public final class ScopedEntryBuffers implements EntryBuffers {
    /** The one instance. */
    static final ScopedEntryBuffers INSTANCE = new ScopedEntryBuffers();

    /** Made once, for {@link FfmBindingProvider}; public for the module's tests. */
    public ScopedEntryBuffers() {
    }

    @Override
    public ByteBuffer readOnly(CurrentEntry entry, long addr, int len) {
        return EntrySegments.segment(entry, addr, len).asByteBuffer();
    }
}
