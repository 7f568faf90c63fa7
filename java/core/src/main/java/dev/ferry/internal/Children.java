package dev.ferry.internal;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The open children of a store or snapshot (cursors, snapshots), held weakly: closing the
 * parent closes every child still reachable, while a child the application dropped without
 * closing becomes unreachable, is released by its {@link java.lang.ref.Cleaner}, and leaves this
 * set on the next {@link #add}. (Holding children strongly kept every leaked cursor alive until
 * the store closed: memory grew without bound and LMDB ran out of reader slots.)
 *
 * <p>Thread safety: thread-safe.
 */
public final class Children {
    private final ReferenceQueue<AutoCloseable> queue = new ReferenceQueue<>();
    private final Set<Reference<? extends AutoCloseable>> refs = ConcurrentHashMap.newKeySet();

    /**
     * Tracks a child.
     *
     * @param child the child
     * @return its token for {@link #remove}
     */
    public Object add(AutoCloseable child) {
        expunge();
        WeakReference<AutoCloseable> r = new WeakReference<>(child, queue);
        refs.add(r);
        return r;
    }

    /**
     * Stops tracking a child (it was closed).
     *
     * @param token the token {@link #add} returned, or null
     */
    public void remove(Object token) {
        if (token != null) {
            refs.remove(token);
        }
    }

    /** @return the number of children tracked (unreachable ones not yet expunged included) */
    public int size() {
        expunge();
        return refs.size();
    }

    /**
     * Closes every child still reachable and forgets them all.
     *
     * @return the first failure, or null
     */
    public RuntimeException closeAll() {
        RuntimeException failure = null;
        for (Reference<? extends AutoCloseable> r : refs) {
            AutoCloseable c = r.get();
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                // keep closing the others; report the first failure
                if (failure == null) {
                    failure = e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
                }
            }
        }
        refs.clear();
        expunge();
        return failure;
    }

    /**
     * Runs an action on every child still reachable.
     *
     * @param action the action
     */
    public void forEach(Consumer<AutoCloseable> action) {
        for (Reference<? extends AutoCloseable> r : refs) {
            AutoCloseable c = r.get();
            if (c != null) {
                action.accept(c);
            }
        }
    }

    private void expunge() {
        for (Reference<?> r; (r = queue.poll()) != null;) {
            refs.remove(r);
        }
    }
}
