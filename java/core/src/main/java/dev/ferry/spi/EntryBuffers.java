package dev.ferry.spi;

import java.nio.ByteBuffer;

/**
 * Zero-copy buffers over a cursor's current entry whose every access is checked against the
 * entry's lifetime: supplied by the FFM module through {@link BindingProvider#entryBuffers()} on
 * Java 22+, where a buffer can be backed by a memory segment of a per-entry arena. Without it
 * {@code View.asByteBuffer()} copies: a raw direct buffer over engine memory would outlive the
 * memory and crash the JVM when read after a close.
 *
 * <p>Thread safety: implementations are stateless; the buffers they return are confined to the
 * cursor's thread.
 */
public interface EntryBuffers {

    /**
     * Returns a read-only buffer over {@code [addr, addr + len)}, which must lie inside the
     * current key or value, valid until the cursor's next move or close; accesses after that
     * throw {@link IllegalStateException}.
     *
     * @param entry the cursor's current entry (kept reachable as long as the buffer is)
     * @param addr the first byte
     * @param len the length, at least 1
     * @return the buffer
     * @throws IllegalArgumentException when the bytes are not the current entry's
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    ByteBuffer readOnly(CurrentEntry entry, long addr, int len);
}
