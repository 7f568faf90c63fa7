package dev.ferry;

import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.binding.Bindings;

/**
 * A RocksDB rate limiter that any number of RocksDB stores share (RocksDB's {@code GenericRateLimiter},
 * RocksJava's {@code RateLimiter}): the flushes and compactions of all the stores that use it write at
 * most {@link #bytesPerSecond()} bytes per second together, so background writes leave disk bandwidth to
 * reads and foreground writes. Attach it with {@link StoreOptions#rateLimiter(RateLimiter)}.
 *
 * <pre>{@code
 * try (RateLimiter limiter = RateLimiter.create(32L << 20);   // 32 MiB/s for all stores
 *      Store a = Store.open(dirA, StoreOptions.rocksdb().rateLimiter(limiter));
 *      Store b = Store.open(dirB, StoreOptions.rocksdb().rateLimiter(limiter))) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Lifetime: explicit and counted, as {@link BlockCache}'s. An open store holds the limiter until the
 * store closes; {@link #close()} while any holds it throws {@link FerryException.Busy} naming how many,
 * and leaves it open. LMDB has no background writes: LMDB options refuse a limiter.
 *
 * <p>Thread safety: thread-safe; every method may be called from any thread.
 */
public final class RateLimiter extends SharedNative implements AutoCloseable {
    /** RocksDB's default refill period, in microseconds. */
    public static final long DEFAULT_REFILL_PERIOD_MICROS = 100_000;
    /** RocksDB's default fairness. */
    public static final int DEFAULT_FAIRNESS = 10;

    private final long bytesPerSecond;
    private final long refillPeriodMicros;
    private final int fairness;

    private RateLimiter(NativeCalls calls, long handle, long bytesPerSecond, long refillPeriodMicros, int fairness) {
        super(handle, calls.admin()::rateLimiterUsage, calls.admin()::rateLimiterClose);
        this.bytesPerSecond = bytesPerSecond;
        this.refillPeriodMicros = refillPeriodMicros;
        this.fairness = fairness;
    }

    /**
     * A limiter with RocksDB's default refill period (100 ms) and fairness (10), through the process's
     * default binding.
     *
     * @param bytesPerSecond the budget of all its stores' flush and compaction writes, at least 1
     * @return the limiter; close it after the stores that use it
     */
    public static RateLimiter create(long bytesPerSecond) {
        return create(bytesPerSecond, DEFAULT_REFILL_PERIOD_MICROS, DEFAULT_FAIRNESS, null);
    }

    /**
     * A limiter.
     *
     * @param bytesPerSecond the budget of all its stores' flush and compaction writes, at least 1
     * @param refillPeriodMicros how often the budget refills, at least 1 (a shorter period smooths the
     *        writes at some cost in CPU)
     * @param fairness 1 to 100: one request in {@code fairness} of low priority (compactions) goes before
     *        the high-priority ones (flushes)
     * @param binding the binding to call through ("jni" or "ffm"), or null for the process default
     * @return the limiter; close it after the stores that use it
     * @throws IllegalArgumentException for a value out of range
     * @throws FerryException.EngineLoad when rocksdbjni is missing
     */
    public static RateLimiter create(long bytesPerSecond, long refillPeriodMicros, int fairness, String binding) {
        if (bytesPerSecond < 1 || refillPeriodMicros < 1 || fairness < 1 || fairness > 100) {
            throw new IllegalArgumentException("bytesPerSecond=" + bytesPerSecond + " refillPeriodMicros=" + refillPeriodMicros
                    + " fairness=" + fairness + " (at least 1, at least 1, 1..100)");
        }
        NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
        Engines.attach(calls, Engine.ROCKSDB);
        long h = calls.admin().rateLimiterCreate(bytesPerSecond, refillPeriodMicros, fairness);
        return adopt(h, calls.admin()::rateLimiterClose, x -> new RateLimiter(calls, x, bytesPerSecond, refillPeriodMicros, fairness));
    }

    /** @return the budget in bytes per second */
    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** @return the refill period in microseconds */
    public long refillPeriodMicros() {
        return refillPeriodMicros;
    }

    /** @return the fairness */
    public int fairness() {
        return fairness;
    }

    /**
     * Open stores that hold this limiter.
     *
     * @return how many
     * @throws IllegalStateException when closed
     */
    public int openStores() {
        return (int) state()[0];
    }

    /** @return whether {@link #close()} has released the limiter */
    public boolean isClosed() {
        return closedNow();
    }

    /**
     * Releases the limiter. Idempotent.
     *
     * @throws FerryException.Busy while open stores hold it (the message counts them); it stays open
     */
    @Override
    public void close() {
        closeShared();
    }

    @Override
    public String toString() {
        return "RateLimiter[" + bytesPerSecond + " B/s, refill " + refillPeriodMicros + " us, fairness " + fairness
                + (closedNow() ? ", closed" : "") + "]";
    }
}
