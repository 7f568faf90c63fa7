package dev.ferry;

import dev.ferry.internal.Callbacks;
import dev.ferry.internal.Guard;
import dev.ferry.internal.NativeCalls;
import dev.ferry.spi.MergeHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The merge operators written in Java of one store: each {@link JavaMergeOperator} the store's options
 * name is registered with the engine once per store ({@code ferry_merge_operator_create}) under a token,
 * and named in the options strings by its handle; the registrations end after the store's native close
 * (which waits for RocksDB's flushes and compactions, and so for their merges). The bindings hand every
 * merge to {@link #HANDLER}, which finds the operator by its token, marks the store's guard as in a
 * callback on this thread (so the operator cannot call its own store: {@link Guard#refuseCallbacks()}),
 * and turns an exception into a failed merge whose exception the failed call carries as its cause
 * ({@link Callbacks#failed}).
 *
 * <p>Thread safety: thread-safe.
 */
final class JavaMerges {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");
    private static final Map<Long, Registered> TOKENS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);
    /** The one handler the bindings call. */
    static final MergeHandler HANDLER = JavaMerges::merge;

    private record Registered(JavaMergeOperator op, String name, JavaMerges owner) {
    }

    private final NativeCalls calls;
    private final Map<JavaMergeOperator, String> values = new IdentityHashMap<>();
    private final List<Long> handles = new ArrayList<>();
    private final List<Long> tokens = new ArrayList<>();
    private volatile Guard guard;
    private volatile long store;
    private boolean closed;

    JavaMerges(NativeCalls calls) {
        this.calls = calls;
    }

    /**
     * Checks an operator's name: 1 to 128 of letters, digits, '_', '.', '-', not starting with "ferry.".
     *
     * @return the name
     * @throws IllegalArgumentException when it breaks the rules
     */
    static String checkName(JavaMergeOperator op) {
        Objects.requireNonNull(op, "mergeOperator");
        String name = op.name();
        if (name == null || !NAME.matcher(name).matches() || name.startsWith("ferry.")) {
            throw new IllegalArgumentException("JavaMergeOperator.name() is '" + name + "': 1 to 128 letters, digits, "
                    + "'_', '.' or '-', not starting with \"ferry.\" (RocksDB records it in the store's OPTIONS file)");
        }
        return name;
    }

    /**
     * Registers {@code op} for this store (once) and returns the options-string value that names it.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    synchronized String value(JavaMergeOperator op) {
        String v = values.get(op);
        if (v != null) {
            return v;
        }
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
        String name = checkName(op);
        long token = NEXT.getAndIncrement();
        TOKENS.put(token, new Registered(op, name, this));
        long handle;
        try {
            handle = calls.callbacks().mergeOperatorCreate(name.getBytes(StandardCharsets.UTF_8), token, HANDLER);
        } catch (RuntimeException | Error e) {
            TOKENS.remove(token);
            throw e;
        }
        handles.add(handle);
        tokens.add(token);
        v = "ferry.callback." + Long.toUnsignedString(handle);
        values.put(op, v);
        Guard g = guard;
        if (g != null) {
            g.refuseCallbacks();
        }
        return v;
    }

    /** The store opened: its guard refuses calls from its operators; its failures are kept under its handle. */
    void attach(Guard storeGuard, long handle) {
        synchronized (this) {
            guard = storeGuard;
            store = handle;
            if (!values.isEmpty()) {
                storeGuard.refuseCallbacks();
            }
        }
    }

    /** Ends the registrations: after the store's native close, or a failed open. Idempotent. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Callbacks.forget(store);
        for (long h : handles) {
            calls.callbacks().mergeOperatorClose(h);
        }
        for (long t : tokens) {
            TOKENS.remove(t);
        }
    }

    private static byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands) {
        Registered r = TOKENS.get(token);
        if (r == null) {
            return null;
        }
        Guard before = Callbacks.enter(r.owner.guard);
        try {
            if (kind == 0) {
                byte[] v = r.op.fullMerge(key, existing, Collections.unmodifiableList(Arrays.asList(operands)));
                if (v == null) {
                    throw new NullPointerException("merge operator " + r.name + ": fullMerge returned null");
                }
                return v;
            }
            byte[] acc = operands.length == 0 ? null : operands[0];
            for (int i = 1; acc != null && i < operands.length; i++) {
                acc = r.op.partialMerge(key, acc, operands[i]);
            }
            return acc;
        } catch (Throwable t) {
            if (kind == 0) {
                Callbacks.failed(t);
                Callbacks.failedIn(r.owner.store, t);
            }
            return null;
        } finally {
            Callbacks.exit(before);
        }
    }
}
