package dev.ferry;

import dev.ferry.internal.Children;
import dev.ferry.internal.CursorHost;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.CursorPage;
import dev.ferry.internal.NativeCalls;
import java.util.function.Supplier;

/**
 * Host of one cursor of a store or a snapshot: the store's page pool, the parent's lifetime pin
 * and the cursor's (weak) entry in the parent's children.
 */
final class StoreCursorHost implements CursorHost {
    private final StoreCore store;
    private final Lifetime parent;
    private final Children siblings;
    /** The cursor's token in {@link #siblings}, set once it is constructed. */
    private volatile Object token;

    StoreCursorHost(StoreCore store, Children siblings, Lifetime parent) {
        this.store = store;
        this.parent = parent;
        this.siblings = siblings;
    }

    /** Tracks the cursor (weakly), so closing the store or snapshot closes it. */
    void track(Cursor cursor) {
        token = siblings.add(cursor);
    }

    @Override
    public NativeCalls calls() {
        return store.calls;
    }

    @Override
    public int firstFill() {
        return store.seekRuns.firstFill();
    }

    @Override
    public void runEnded(int entries) {
        store.seekRuns.ended(entries);
    }

    @Override
    public CursorPage takePage(int pageSize) {
        return store.takePage(pageSize);
    }

    @Override
    public void returnPage(CursorPage page) {
        store.returnPage(page);
    }

    @Override
    public void beforeNativeCall() {
        // the cursor's guard and the parent's lifetime pin keep the store open
    }

    @Override
    public void afterNativeCall() {
        // nothing: the store is reachable through this host
    }

    @Override
    public void closing(Supplier<byte[]> key, int direction) {
        // nothing to hand back
    }

    @Override
    public void forget() {
        siblings.remove(token);
    }

    @Override
    public Runnable release(long handle) {
        NativeCalls calls = store.calls;
        Lifetime p = parent;
        return () -> {
            calls.cursorClose(handle);
            p.unpin();
        };
    }
}
