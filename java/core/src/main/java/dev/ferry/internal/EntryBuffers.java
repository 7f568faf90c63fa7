package dev.ferry.internal;

import java.nio.ByteBuffer;

/**
 * Zero-copy buffers over a cursor's current entry whose every access is checked against the
 * entry's lifetime: provided by the FFM module ({@code dev.ferry.ffm}) on Java 22+, where a
 * buffer can be backed by a memory segment of a per-entry arena. Without it
 * ({@link #get()} returns null) {@link dev.ferry.View#asByteBuffer()} copies: a raw direct buffer
 * over engine memory would outlive the memory and crash the JVM when read after a close.
 *
 * <p>Thread safety: implementations are stateless; the buffers they return are confined to the
 * cursor's thread.
 */
public abstract class EntryBuffers {
    private static final String IMPL = "dev.ferry.ffm.internal.ScopedEntryBuffers";
    private static final EntryBuffers INSTANCE = load();

    /** For the implementation in {@code dev.ferry.ffm}. */
    protected EntryBuffers() {
    }

    /** @return the provider, or null when scoped buffers are not available (Java 17-21, no ferry-ffm) */
    public static EntryBuffers get() {
        return INSTANCE;
    }

    /**
     * A read-only buffer over {@code [addr, addr + len)} of the cursor's current entry, valid until
     * the cursor's next move or close; accesses after that throw {@link IllegalStateException}.
     *
     * @param cursor the cursor ({@code dev.ferry.Cursor}; kept reachable as long as the buffer is)
     * @param addr the first byte
     * @param len the length, at least 1
     * @return the buffer
     */
    public abstract ByteBuffer readOnly(Object cursor, long addr, int len);

    private static EntryBuffers load() {
        if (Runtime.version().feature() < 22) {
            return null;
        }
        try {
            Class<?> k = Class.forName(IMPL, true, EntryBuffers.class.getClassLoader());
            return (EntryBuffers) k.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }
}
