package dev.ferry.internal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reference count of a native object: its owner holds one reference, each dependent native
 * object (a cursor on a snapshot, a snapshot on a store) holds one more. The release action
 * runs exactly once, when the last reference goes, so a store's engine is never closed under a
 * cursor whose thread may still be reading its pages.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Lifetime {
    private final AtomicInteger refs = new AtomicInteger(1);
    private final Runnable release;

    /**
     * Creates a lifetime holding the owner's reference.
     *
     * @param release frees the native object; runs once
     */
    public Lifetime(Runnable release) {
        this.release = release;
    }

    /** Adds a reference; only while the owner's reference is still held. */
    public void pin() {
        if (refs.getAndIncrement() <= 0) {
            throw new IllegalStateException("native object already released");
        }
    }

    /** @return true once the last reference has gone (the native object was released or is being released) */
    public boolean released() {
        return refs.get() <= 0;
    }

    /** Drops a reference, releasing the native object when it was the last. */
    public void unpin() {
        if (refs.decrementAndGet() == 0) {
            release.run();
        }
    }
}
