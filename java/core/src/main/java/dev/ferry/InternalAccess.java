package dev.ferry;

import dev.ferry.internal.CursorHost;
import dev.ferry.internal.Once;
import dev.ferry.spi.CurrentEntry;
import java.nio.ByteBuffer;

/**
 * Not API: the one door through which Ferry's other packages ({@code dev.ferry.rocksjava}, the
 * FFM module's public {@code Segments}) and the adapters of {@code dev.ferry} ({@link AgronaViews})
 * reach package-private parts of {@code dev.ferry}: building a cursor over a host other than a
 * store, a batch's encoded records, a cursor's current entry and a view by address. {@link #get()}
 * hands the instance only to classes of Ferry's own modules; applications get
 * {@link IllegalCallerException}. The FFM module's internals take what they need through the SPI
 * ({@code dev.ferry.spi.CurrentEntry}), not through this class.
 *
 * <p>It lives in {@code dev.ferry}, not in {@code dev.ferry.internal}, because its methods name
 * {@code dev.ferry}'s classes: declared in the internal package it would make that package depend
 * on this one. No installation step: the instance exists when this class does.
 *
 * <p>Thread safety: thread-safe; the cursor methods must run on the cursor's thread.
 */
public final class InternalAccess {
    private static final InternalAccess INSTANCE = new InternalAccess();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private InternalAccess() {
    }

    /**
     * Returns the access point to a class of Ferry's own modules: on the module path a class of
     * {@code dev.ferry} or {@code dev.ferry.ffm}; on the class path (where modules cannot tell)
     * a class of a {@code dev.ferry} package loaded by ferry-core's class loader.
     *
     * @return the access point
     * @throws IllegalCallerException for any other caller
     */
    public static InternalAccess get() {
        Class<?> caller = WALKER.getCallerClass();
        Module own = InternalAccess.class.getModule();
        Module module = caller.getModule();
        String pkg = caller.getPackageName();
        boolean ferry = own.isNamed()
                ? module == own || module.isNamed() && module.getName().equals("dev.ferry.ffm")
                : !module.isNamed() && caller.getClassLoader() == InternalAccess.class.getClassLoader()
                        && (pkg.equals("dev.ferry") || pkg.startsWith("dev.ferry."));
        if (!ferry) {
            throw new IllegalCallerException("dev.ferry.InternalAccess is Ferry's own: not for " + caller.getName());
        }
        return INSTANCE;
    }

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
    public Cursor newCursor(CursorHost host, long handle, Once release, KeyRange range, int pageSize, boolean armed) {
        return new Cursor(host, handle, release, range, pageSize, false, armed);
    }

    /**
     * The encoded records of a batch.
     *
     * @param batch the batch
     * @return its buffer, position = length in bytes
     */
    public ByteBuffer encoded(WriteBatch batch) {
        return batch.encoded();
    }

    /**
     * Tells whether a batch names column families of a store (not only the default family).
     *
     * @param batch the batch
     * @return true when it does
     */
    public boolean namesFamilies(WriteBatch batch) {
        return batch.familiesOf() != null;
    }

    /**
     * The current entry of a cursor as the SPI carries it ({@code dev.ferry.ffm.Segments} takes a
     * cursor and works on this): one object per cursor, which keeps the cursor reachable.
     *
     * @param c the cursor
     * @return its current entry
     */
    public CurrentEntry currentEntry(Cursor c) {
        return c.currentEntry();
    }

    /**
     * Address of a view's first byte, unchecked: call {@link View#length()} first, which checks
     * that the view is valid on this thread.
     *
     * @param v the view
     * @return the address
     */
    public long address(View v) {
        return v.addr;
    }
}
