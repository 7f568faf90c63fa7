package dev.ferry.internal;

import dev.ferry.Cursor;

/**
 * Internal access to a cursor's current entry for bindings that offer their own views (the FFM
 * binding's scoped {@code MemorySegment}s). Not for applications.
 *
 * <p>Thread safety: methods must be called on the cursor's thread.
 */
public abstract class CursorAccess {
    private static volatile CursorAccess instance;

    /**
     * Installs the implementation (called once by {@link Cursor}).
     *
     * @param access the implementation
     */
    public static void install(CursorAccess access) {
        instance = access;
    }

    /**
     * Returns the implementation.
     *
     * @return the accessor
     */
    public static CursorAccess get() {
        CursorAccess a = instance;
        if (a == null) {
            try {
                Class.forName(Cursor.class.getName(), true, Cursor.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            a = instance;
        }
        return a;
    }

    /**
     * Address of the current key's first byte.
     *
     * @param c a positioned cursor
     * @return the address
     */
    public abstract long keyAddress(Cursor c);

    /**
     * Length of the current key.
     *
     * @param c a positioned cursor
     * @return the length
     */
    public abstract int keyLength(Cursor c);

    /**
     * Address of the current value's first byte.
     *
     * @param c a positioned cursor
     * @return the address
     */
    public abstract long valueAddress(Cursor c);

    /**
     * Length of the current value.
     *
     * @param c a positioned cursor
     * @return the length
     */
    public abstract int valueLength(Cursor c);

    /**
     * Registers an action run once, on the cursor's thread, before its next move, refill,
     * unpositioning or close (replacing an earlier registration).
     *
     * @param c the cursor
     * @param action the action
     */
    public abstract void beforeNextMove(Cursor c, Runnable action);

    /**
     * Tells whether a listener is registered (for tests and assertions).
     *
     * @param c the cursor
     * @return the registered action or null
     */
    public abstract Runnable listener(Cursor c);
}
