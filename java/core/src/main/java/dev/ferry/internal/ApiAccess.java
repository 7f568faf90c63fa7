package dev.ferry.internal;

import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;

/**
 * Reaches package-private parts of {@code dev.ferry} from Ferry's other packages (the RocksJava
 * interop) without making them public API. {@code dev.ferry} installs the hooks when
 * {@link Cursor} initialises. Not for applications.
 *
 * <p>Thread safety: thread-safe.
 */
public final class ApiAccess {
    private static volatile Hooks hooks;

    private ApiAccess() {
    }

    /** The package-private operations. */
    public interface Hooks {
        /**
         * Creates a cursor over a native cursor handle owned by a host other than a store.
         *
         * @param host the host
         * @param handle the native cursor
         * @param release frees {@code handle} once ({@code host.release(handle)} in a {@link Once});
         *        the caller runs it when this method throws
         * @param range the range the native cursor was opened on (for the empty check)
         * @param pageSize page size in bytes
         * @param armed true when the first {@code next()}/{@code prev()} starts at the engine
         *        iterator's current entry (a wrapped RocksJava iterator)
         * @return the cursor
         */
        Cursor newCursor(CursorHost host, long handle, Once release, KeyRange range, int pageSize, boolean armed);

        /**
         * The encoded records of a batch.
         *
         * @param batch the batch
         * @return its buffer, position = length in bytes
         */
        ByteBuffer encoded(WriteBatch batch);

        /**
         * Tells whether a batch names column families of a store (not only the default family).
         *
         * @param batch the batch
         * @return true when it does
         */
        boolean namesFamilies(WriteBatch batch);
    }

    /**
     * Installs the hooks; only {@code dev.ferry} calls this, once.
     *
     * @param h the hooks
     */
    public static synchronized void install(Hooks h) {
        if (hooks == null) {
            hooks = h;
        }
    }

    /** @return the hooks, initialising {@code dev.ferry} on first use */
    public static Hooks hooks() {
        Hooks h = hooks;
        if (h == null) {
            try {
                Class.forName(Cursor.class.getName(), true, ApiAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            h = hooks;
        }
        return h;
    }
}
