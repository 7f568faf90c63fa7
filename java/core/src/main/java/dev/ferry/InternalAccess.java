package dev.ferry;

import dev.ferry.internal.CursorHost;
import dev.ferry.internal.Once;
import java.nio.ByteBuffer;

/**
 * Not API: the one door through which Ferry's other packages ({@code dev.ferry.rocksjava},
 * {@code dev.ferry.ffm}) and the adapters of {@code dev.ferry} ({@link AgronaViews}) reach
 * package-private parts of {@code dev.ferry}: building a cursor over a host other than a store, a
 * batch's encoded records, a cursor's current entry and a view by address. {@link #get()} hands
 * the instance only to classes of Ferry's packages; applications get {@link IllegalCallerException}.
 *
 * <p>It lives in {@code dev.ferry}, not in {@code dev.ferry.internal}, because its methods name
 * {@code dev.ferry}'s classes: declared in the internal package it would make that package depend
 * on this one, and this one on it (the import circle that {@code ApiAccess} and
 * {@code CursorAccess}, installed from {@link Cursor}'s static initializer, used to make). No
 * installation step: the instance exists when this class does.
 *
 * <p>Thread safety: thread-safe; the cursor methods must run on the cursor's thread.
 */
public final class InternalAccess {
    private static final InternalAccess INSTANCE = new InternalAccess();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private InternalAccess() {
    }

    /**
     * Returns the access point to a class of Ferry's own packages.
     *
     * @return the access point
     * @throws IllegalCallerException when the caller is not in {@code dev.ferry} or a {@code dev.ferry.*} package
     */
    public static InternalAccess get() {
        Class<?> caller = WALKER.getCallerClass();
        String pkg = caller.getPackageName();
        if (!pkg.equals("dev.ferry") && !pkg.startsWith("dev.ferry.")) {
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
     * Address of the current key's first byte.
     *
     * @param c a positioned cursor
     * @return the address
     * @throws IllegalStateException when the cursor is not on an entry, closed or on another thread
     */
    public long keyAddress(Cursor c) {
        return c.key().addr;
    }

    /**
     * Length of the current key.
     *
     * @param c a positioned cursor
     * @return the length
     */
    public int keyLength(Cursor c) {
        return c.key().length();
    }

    /**
     * Address of the current value's first byte.
     *
     * @param c a positioned cursor
     * @return the address
     * @throws IllegalStateException when the cursor is not on an entry, closed or on another thread
     */
    public long valueAddress(Cursor c) {
        return c.value().addr;
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

    /**
     * Length of the current value.
     *
     * @param c a positioned cursor
     * @return the length
     */
    public int valueLength(Cursor c) {
        return c.value().length();
    }

    /**
     * Registers an action run once, on the cursor's thread, before its next move, refill,
     * unpositioning or close (replacing an earlier registration).
     *
     * @param c the cursor
     * @param action the action
     */
    public void beforeNextMove(Cursor c, Runnable action) {
        c.beforeNextMove(action);
    }

    /**
     * The action registered with {@link #beforeNextMove} and not yet run. Production code uses it:
     * the FFM binding's {@code Segments} finds the current entry's arena this way, so the key and
     * value segments of one entry share one arena.
     *
     * @param c the cursor
     * @return the registered action, or null
     */
    public Runnable moveListener(Cursor c) {
        return c.moveListener();
    }
}
