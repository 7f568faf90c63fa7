package dev.ferry;

import dev.ferry.internal.Codes;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.binding.Bindings;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RocksDB's PerfContext: per-thread counters of what the calling thread's RocksDB operations did (key
 * comparisons, block reads and their bytes, memtable lookups, and with a timing level the time spent in
 * each step), read by name as RocksDB names them ({@code user_key_comparison_count},
 * {@code block_read_count}, {@code get_from_memtable_time}...). RocksJava's {@code PerfContext}.
 *
 * <pre>{@code
 * PerfContext.setLevel(PerfContext.Level.COUNT);
 * PerfContext.reset();
 * store.get(key);
 * long comparisons = PerfContext.counter("user_key_comparison_count");
 * }</pre>
 *
 * <p>Everything here acts on the calling thread only: set the level, run the operations and read the
 * counters on one thread (RocksDB's background flushes and compactions count in their own threads).
 * The counters are RocksDB's, of every RocksDB store the thread uses; LMDB operations count nothing.
 * Cost: with {@link Level#COUNT} a few increments per operation; the timing levels read the clock
 * around each step (noticeable on short reads). Reading counters builds RocksDB's report of all of them
 * (some microseconds): read them once with {@link #counters()} when several are wanted.
 *
 * <p>Thread safety: every method is safe from any thread and acts on that thread's context.
 */
public final class PerfContext {
    /** What RocksDB counts in the calling thread. */
    public enum Level {
        /** Nothing. */
        DISABLE,
        /** Counters, no timers (RocksDB's default in every thread). */
        COUNT,
        /** Counters and timers, but for mutex waits. */
        TIME_EXCEPT_FOR_MUTEX,
        /** Counters and every timer. */
        TIME;

        private final int value = Codes.perfLevel(name());
    }

    private static volatile NativeCalls calls;

    private PerfContext() {
    }

    private static NativeCalls calls() {
        NativeCalls c = calls;
        if (c == null) {
            synchronized (PerfContext.class) {
                if (calls == null) {
                    NativeCalls n = new NativeCalls(Bindings.defaultBinding());
                    Engines.attach(n, Engine.ROCKSDB);
                    calls = n;
                }
                c = calls;
            }
        }
        return c;
    }

    /**
     * Sets what RocksDB counts in the calling thread.
     *
     * @param level the level
     * @throws FerryException.EngineLoad when rocksdbjni is missing
     */
    public static void setLevel(Level level) {
        calls().admin().perfLevel(level.value);
    }

    /** Zeroes the calling thread's counters. */
    public static void reset() {
        calls().admin().perfReset();
    }

    /**
     * One counter of the calling thread.
     *
     * @param name RocksDB's name of the counter, e.g. {@code block_read_count}
     * @return its value
     * @throws FerryException.NotSupported when the loaded RocksDB has no counter of that name (newer
     *         releases add counters: rocksdbjni 7.9.2 lacks those added since RocksDB 7.9)
     */
    public static long counter(String name) {
        Long v = counters().get(name);
        if (v == null) {
            throw FerryException.of(ErrorCode.NOT_SUPPORTED, 0, "the loaded RocksDB's PerfContext has no counter '" + name
                    + "' (PerfContext.counters() lists those it has; newer RocksDB releases add counters: rocksdbjni 7.9.2"
                    + " lacks those added since RocksDB 7.9)");
        }
        return v;
    }

    /**
     * Every counter of the calling thread, zeros included, in RocksDB's order.
     *
     * @return counter names to values (unmodifiable)
     */
    public static Map<String, Long> counters() {
        String report = calls().admin().perfReport();
        Map<String, Long> m = new LinkedHashMap<>();
        for (String pair : report.split(", ")) {
            int eq = pair.indexOf(" = ");
            if (eq <= 0) {
                continue;
            }
            String value = pair.substring(eq + 3).trim();
            if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
                m.put(pair.substring(0, eq).trim(), Long.parseUnsignedLong(value));
            }
        }
        return Collections.unmodifiableMap(m);
    }
}
