package dev.ferry;

import dev.ferry.internal.Callbacks;
import dev.ferry.internal.Codes;
import dev.ferry.internal.Guard;
import dev.ferry.internal.NativeCalls;
import dev.ferry.spi.CompareHandler;
import dev.ferry.spi.FilterHandler;
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
 * The callbacks written in Java of one store: each {@link JavaMergeOperator},
 * {@link JavaCompactionFilter.Factory} and {@link JavaComparator} the store's options name is registered with the engine once per store
 * ({@code ferry_merge_operator_create}, {@code ferry_compaction_filter_create}) under a token, and named in the
 * options strings by its handle; the registrations end after the store's native close (which waits for
 * RocksDB's flushes and compactions, and so for their callbacks). The bindings hand every merge to
 * {@link #HANDLER} and every filter call to {@link #FILTER_HANDLER}, which find the callback by its token,
 * mark the store's guard as in a callback on this thread (so the callback cannot call its own store:
 * {@link Guard#refuseCallbacks()}), and turn an exception into a failed merge whose exception the failed call
 * carries as its cause ({@link Callbacks#failed}), or into a kept entry reported to the filter's factory.
 *
 * <p>Thread safety: thread-safe.
 */
final class JavaCallbacks {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1," + Codes.maxCallbackName() + "}");
    private static final Map<Long, Registered> TOKENS = new ConcurrentHashMap<>();
    private static final Map<Long, RegisteredFilter> FILTER_TOKENS = new ConcurrentHashMap<>();
    private static final Map<Long, RegisteredComparator> COMPARATOR_TOKENS = new ConcurrentHashMap<>();
    /** The filters of the compactions running, by id. */
    private static final Map<Long, JavaCompactionFilter> COMPACTIONS = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);
    /** The one merge handler the bindings call. */
    static final MergeHandler HANDLER = JavaCallbacks::merge;
    /** The one compaction filter handler the bindings call. */
    static final FilterHandler FILTER_HANDLER = JavaCallbacks::filter;
    /** The one comparator handler the bindings call. */
    static final CompareHandler COMPARE_HANDLER = JavaCallbacks::compare;

    private record Registered(JavaMergeOperator op, String name, JavaCallbacks owner) {
    }

    private record RegisteredFilter(JavaCompactionFilter.Factory factory, JavaCallbacks owner) {
    }

    private record RegisteredComparator(JavaComparator comparator, JavaCallbacks owner) {
    }

    private final NativeCalls calls;
    private final Map<Object, String> values = new IdentityHashMap<>();
    private final List<Long> handles = new ArrayList<>();
    private final List<Long> filterHandles = new ArrayList<>();
    private final List<Long> comparatorHandles = new ArrayList<>();
    private final List<Long> tokens = new ArrayList<>();
    private volatile Guard guard;
    private volatile long store;
    private boolean closed;

    JavaCallbacks(NativeCalls calls) {
        this.calls = calls;
    }

    /**
     * Checks a callback's name: 1 to 128 of letters, digits, '_', '.', '-', not starting with "ferry.".
     *
     * @return the name
     * @throws IllegalArgumentException when it breaks the rules
     */
    static String checkName(JavaMergeOperator op) {
        Objects.requireNonNull(op, "mergeOperator");
        return checkName(op.name(), "JavaMergeOperator");
    }

    /**
     * Checks a compaction filter factory's name, as {@link #checkName(JavaMergeOperator)}.
     *
     * @return the name
     * @throws IllegalArgumentException when it breaks the rules
     */
    static String checkName(JavaCompactionFilter.Factory factory) {
        Objects.requireNonNull(factory, "compactionFilter");
        return checkName(factory.name(), "JavaCompactionFilter.Factory");
    }

    /**
     * Checks a comparator's name: as {@link #checkName(JavaMergeOperator)}, and not starting with "leveldb." or
     * "rocksdb." (RocksDB's own comparators).
     *
     * @return the name
     * @throws IllegalArgumentException when it breaks the rules
     */
    static String checkName(JavaComparator comparator) {
        Objects.requireNonNull(comparator, "comparator");
        String name = checkName(comparator.name(), "JavaComparator");
        if (name.startsWith("leveldb.") || name.startsWith("rocksdb.")) {
            throw new IllegalArgumentException("JavaComparator.name() is '" + name + "': not starting with \"leveldb.\" "
                    + "or \"rocksdb.\" (RocksDB's own comparators: a store would be taken for one of theirs)");
        }
        return name;
    }

    private static String checkName(String name, String what) {
        if (name == null || !NAME.matcher(name).matches() || name.startsWith("ferry.")) {
            throw new IllegalArgumentException(what + ".name() is '" + name + "': 1 to 128 letters, digits, "
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
        return registered(op, "ferry.callback." + Long.toUnsignedString(handle));
    }

    /**
     * Registers {@code factory} for this store (once) and returns the options-string value that names it.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    synchronized String value(JavaCompactionFilter.Factory factory) {
        String v = values.get(factory);
        if (v != null) {
            return v;
        }
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
        String name = checkName(factory);
        long token = NEXT.getAndIncrement();
        FILTER_TOKENS.put(token, new RegisteredFilter(factory, this));
        long handle;
        try {
            handle = calls.callbacks().compactionFilterCreate(name.getBytes(StandardCharsets.UTF_8), token,
                    FILTER_HANDLER);
        } catch (RuntimeException | Error e) {
            FILTER_TOKENS.remove(token);
            throw e;
        }
        filterHandles.add(handle);
        tokens.add(token);
        return registered(factory, "ferry.filter." + Long.toUnsignedString(handle));
    }

    /**
     * Registers {@code comparator} for this store (once) and returns the options-string value that names it.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    synchronized String value(JavaComparator comparator) {
        String v = values.get(comparator);
        if (v != null) {
            return v;
        }
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
        String name = checkName(comparator);
        long token = NEXT.getAndIncrement();
        COMPARATOR_TOKENS.put(token, new RegisteredComparator(comparator, this));
        long handle;
        try {
            handle = calls.callbacks().comparatorCreate(name.getBytes(StandardCharsets.UTF_8), token, COMPARE_HANDLER);
        } catch (RuntimeException | Error e) {
            COMPARATOR_TOKENS.remove(token);
            throw e;
        }
        comparatorHandles.add(handle);
        tokens.add(token);
        return registered(comparator, "ferry.comparator." + Long.toUnsignedString(handle));
    }

    private String registered(Object callback, String v) {
        values.put(callback, v);
        Guard g = guard;
        if (g != null) {
            g.refuseCallbacks();
        }
        return v;
    }

    /** The store opened: its guard refuses calls from its callbacks; its failures are kept under its handle. */
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
        for (long h : filterHandles) {
            calls.callbacks().compactionFilterClose(h);
        }
        for (long h : comparatorHandles) {
            calls.callbacks().comparatorClose(h);
        }
        for (long t : tokens) {
            TOKENS.remove(t);
            FILTER_TOKENS.remove(t);
            COMPARATOR_TOKENS.remove(t);
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

    private static long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out) {
        RegisteredFilter r = FILTER_TOKENS.get(token);
        if (r == null) {
            return 0;
        }
        Guard before = Callbacks.enter(r.owner.guard);
        try {
            if (Codes.filterBegins(kind)) {
                JavaCompactionFilter f = r.factory.create(new JavaCompactionFilter.Context(
                        Codes.fullCompaction(arg), Codes.manualCompaction(arg)));
                if (f == null) {
                    throw new NullPointerException("compaction filter factory " + r.factory.name() + ": create returned null");
                }
                long id = NEXT.getAndIncrement();
                COMPACTIONS.put(id, f);
                return id;
            }
            if (!Codes.filterEntry(kind)) {
                COMPACTIONS.remove(arg);
                return 0;
            }
            JavaCompactionFilter f = COMPACTIONS.get(arg);
            if (f == null) {
                return 0;
            }
            JavaCompactionFilter.Decision d = f.filter(level, key, value);
            if (d == null) {
                throw new NullPointerException("compaction filter " + r.factory.name() + ": filter returned null");
            }
            boolean change = !d.removes() && d.value() != null;
            if (change) {
                out[0] = d.value();
            }
            return Codes.filterAnswer(d.removes(), change);
        } catch (Throwable t) {
            try {
                r.factory.failed(t);
            } catch (Throwable ignored) { // the report must not fail the compaction
            }
            return 0;
        } finally {
            Callbacks.exit(before);
        }
    }

    private static long compare(long token, byte[] a, byte[] b) {
        RegisteredComparator r = COMPARATOR_TOKENS.get(token);
        if (r == null) {
            return CompareHandler.FAILED;
        }
        Guard before = Callbacks.enter(r.owner.guard);
        try {
            return r.comparator.compare(a, b);
        } catch (Throwable t) {
            Callbacks.failed(t);
            Callbacks.failedIn(r.owner.store, t);
            return CompareHandler.FAILED;
        } finally {
            Callbacks.exit(before);
        }
    }
}
