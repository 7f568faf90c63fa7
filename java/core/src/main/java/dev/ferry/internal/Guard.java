package dev.ferry.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Lifecycle of a native handle: counts calls in flight and lets {@link #close()} wait for
 * them, so a concurrent close never frees memory a native call is using.
 *
 * <p>State: bit 0 = closed, the rest = 2 x calls in flight. {@link #enter()} fails once closed.
 * Code holding the guard must not call user code (so close never waits on itself).
 *
 * <p>Thread safety: thread-safe.
 */
public final class Guard {
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Guard.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String what;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    /**
     * Creates an open guard.
     *
     * @param what the guarded object's name for messages, e.g. "cursor"
     */
    public Guard(String what) {
        this.what = what;
    }

    /**
     * Registers a call in flight.
     *
     * @throws IllegalStateException when closed
     */
    public void enter() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if ((s & 1) != 0) {
                throw closed();
            }
            if (STATE.weakCompareAndSet(this, s, s + 2)) {
                return;
            }
        }
    }

    /**
     * Registers a call in flight unless closed.
     *
     * @return true when registered (pair with {@link #exit()}), false when closed
     */
    public boolean tryEnter() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if ((s & 1) != 0) {
                return false;
            }
            if (STATE.weakCompareAndSet(this, s, s + 2)) {
                return true;
            }
        }
    }

    /** Ends a call registered by {@link #enter()} or {@link #tryEnter()}. */
    public void exit() {
        STATE.getAndAdd(this, -2);
    }

    /**
     * Tells whether close has begun.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return ((int) STATE.getVolatile(this) & 1) != 0;
    }

    /**
     * Throws when closed.
     *
     * @throws IllegalStateException when closed
     */
    public void check() {
        if (isClosed()) {
            throw closed();
        }
    }

    /**
     * Marks closed and waits until no call is in flight.
     *
     * @return true for the call that closed it, false when it was closed already
     */
    public boolean close() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if ((s & 1) != 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s | 1)) {
                break;
            }
        }
        int spins = 0;
        while ((int) STATE.getVolatile(this) != 1) {
            if (++spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return true;
    }

    /**
     * Builds the exception for a call on a closed object.
     *
     * @return the exception
     */
    public IllegalStateException closed() {
        return new IllegalStateException(what + " is closed");
    }
}
