package dev.ferry.spi;

/**
 * A cursor's current entry as ferry-core hands it to a binding module: where its key and value
 * lie, and a hook run before the cursor moves on. The FFM module makes its scoped segments and
 * buffers ({@link EntryBuffers}) from it, so it needs no class of the API. Implemented by
 * ferry-core only, one object per cursor; the object keeps its cursor reachable.
 *
 * <p>Thread safety: the cursor's thread only; the address and length methods check it.
 */
public interface CurrentEntry {

    /**
     * Returns the address of the current key's first byte.
     *
     * @return the address
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    long keyAddress();

    /**
     * Returns the length of the current key.
     *
     * @return the length
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    int keyLength();

    /**
     * Returns the address of the current value's first byte.
     *
     * @return the address
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    long valueAddress();

    /**
     * Returns the length of the current value.
     *
     * @return the length
     * @throws IllegalStateException when the cursor is not on an entry, closed or used from another thread
     */
    int valueLength();

    /**
     * Registers an action run once, on the cursor's thread, before its next move, refill,
     * unpositioning or close (replacing an earlier registration).
     *
     * @param action the action
     * @throws IllegalStateException when used from another thread
     */
    void beforeNextMove(Runnable action);

    /**
     * Returns the action registered with {@link #beforeNextMove} and not yet run: the key and
     * value segments of one entry share one scope this way.
     *
     * @return the action, or null
     */
    Runnable moveListener();
}
