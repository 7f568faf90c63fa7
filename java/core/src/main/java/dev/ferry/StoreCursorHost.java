package dev.ferry;

import dev.ferry.internal.CursorHost;
import dev.ferry.internal.Lifetime;
import dev.ferry.internal.NativeBuffer;
import dev.ferry.spi.NativeBinding;

/** Host of a store's or a snapshot's cursors: the store's page pool, its lifetime pins. */
final class StoreCursorHost implements CursorHost {
    private final Store store;
    private final Snapshot snapshot;
    private final Lifetime parent;

    StoreCursorHost(Store store, Snapshot snapshot, Lifetime parent) {
        this.store = store;
        this.snapshot = snapshot;
        this.parent = parent;
    }

    @Override
    public NativeBinding binding() {
        return store.binding;
    }

    @Override
    public NativeBuffer takePage(int size) {
        return store.takePage(size);
    }

    @Override
    public void returnPage(NativeBuffer page) {
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
    public void closing(View key, int direction) {
        // nothing to hand back
    }

    @Override
    public void forget(Cursor cursor) {
        if (snapshot != null) {
            snapshot.forget(cursor);
        } else {
            store.forget(cursor);
        }
    }

    @Override
    public Runnable release(long handle) {
        NativeBinding b = store.binding;
        Lifetime p = parent;
        return () -> {
            b.cursorClose(handle);
            p.unpin();
        };
    }
}
