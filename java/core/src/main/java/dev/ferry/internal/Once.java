package dev.ferry.internal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A native release that runs at most once, whoever asks first: the owner's {@code close()}, a
 * constructor's failure path, or a {@link java.lang.ref.Cleaner} after the owner became
 * unreachable. Sharing one {@code Once} between them makes a double free impossible by
 * construction (a cursor whose construction failed after its cleaner was registered used to be
 * released by both the failure path and the cleaner).
 *
 * <p>Thread safety: thread-safe.
 */
public final class Once implements Runnable {
    private final AtomicReference<Runnable> action;

    /**
     * Wraps an action.
     *
     * @param action the release; must not reference the object it releases (a cleaner would
     *        then never run)
     */
    public Once(Runnable action) {
        this.action = new AtomicReference<>(action);
    }

    /** Runs the action unless it already ran (or is running on another thread). */
    @Override
    public void run() {
        Runnable a = action.getAndSet(null);
        if (a != null) {
            a.run();
        }
    }

    /** @return true once the action has been taken to run */
    public boolean done() {
        return action.get() == null;
    }
}
