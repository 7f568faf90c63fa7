package dev.ferry;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * The life cycle that {@link BlockCache} and {@link WriteBufferManager} share: a native object that
 * any number of stores hold, closed explicitly and refused ({@link FerryException.Busy}) while held.
 *
 * <ul>
 *   <li>Store opens and manager creations hold {@link #use()} shared while they pass the handle
 *       ({@link #openHandle()}) to native code; {@link #closeShared()} takes it exclusively, so a
 *       close never frees the object under a call that is handing it over.</li>
 *   <li>The native side counts its holders and refuses to free a held object: the free throws
 *       {@code Busy} and the object stays open.</li>
 *   <li>A {@link Cleaner} frees an object that became unreachable without a close (the backstop);
 *       the {@code released} flag keeps the close and the cleaner from freeing it twice. The
 *       cleaner's action captures the handle and the free function, never the object.</li>
 * </ul>
 *
 * <p>Thread safety: thread-safe.
 */
abstract class SharedNative {
    private final long handle;
    private final LongFunction<long[]> usage;
    private final LongConsumer free;
    private final Cleaner.Cleanable cleanable;
    private final ReentrantReadWriteLock use = new ReentrantReadWriteLock();
    /** Set once the native object is freed (by close or the cleaner), so that neither frees it twice. */
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile boolean closed;

    /**
     * @param handle the native object, owned from here on
     * @param usage reads the object's state (a native call on the handle)
     * @param free frees the object, throwing {@link FerryException.Busy} while stores hold it
     */
    SharedNative(long handle, LongFunction<long[]> usage, LongConsumer free) {
        this.handle = handle;
        this.usage = usage;
        this.free = free;
        this.cleanable = StoreCore.CLEANER.register(this, release(handle, free, released));
    }

    /**
     * Makes the Java object of a native object just created, freeing the native one when that fails, so that a
     * failed construction leaks nothing (the create methods of every subclass).
     *
     * @param handle the new native object
     * @param free frees it
     * @param make the subclass's constructor call
     * @param <T> the subclass
     * @return the object, owning the handle
     */
    static <T extends SharedNative> T adopt(long handle, LongConsumer free, LongFunction<T> make) {
        try {
            return make.apply(handle);
        } catch (RuntimeException | Error e) {
            free.accept(handle);
            throw e;
        }
    }

    /** The cleaner's action: captures the parameters, not the object; it cannot free one a store holds (Busy). */
    private static Runnable release(long handle, LongConsumer free, AtomicBoolean released) {
        return () -> {
            try {
                if (!released.get()) {
                    free.accept(handle);
                    released.set(true);
                }
            } catch (RuntimeException ignored) {
                // held by a store that outlived this object's last reference: left to the process
            }
        };
    }

    /**
     * @return the object's state as the native side reports it
     * @throws IllegalStateException when closed
     */
    final long[] state() {
        use.readLock().lock();
        try {
            check();
            return usage.apply(handle);
        } finally {
            use.readLock().unlock();
        }
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /** @return whether {@link #closeShared()} has released the object */
    final boolean closedNow() {
        return closed;
    }

    /** The lock that store opens hold shared while they pass the handle to native code (see Stores.holding). */
    final ReentrantReadWriteLock use() {
        return use;
    }

    /** @return the native handle, after checking this is open (under {@link #use()}) */
    final long openHandle() {
        check();
        return handle;
    }

    /**
     * Frees the object. Idempotent.
     *
     * @throws FerryException.Busy while stores (or managers) hold it; it stays open
     */
    final void closeShared() {
        use.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            free.accept(handle);   // throws Busy while held
            released.set(true);
            closed = true;
            cleanable.clean();     // finds it released: frees nothing
        } finally {
            use.writeLock().unlock();
        }
    }
}
