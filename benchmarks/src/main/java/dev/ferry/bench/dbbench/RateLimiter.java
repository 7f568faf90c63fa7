package dev.ferry.bench.dbbench;

/**
 * A byte-rate limiter in the manner of RocksDB's generic rate limiter as db_bench uses it for
 * {@code --benchmark_write_rate_limit}: every 100 ms the budget is refilled with a tenth of the
 * per-second rate, and a request waits until the budget covers it.
 *
 * <p>Thread safety: thread-safe.
 */
final class RateLimiter {
    private static final long PERIOD_NANOS = 100_000_000L;
    private final long perPeriod;
    private long available;
    private long nextRefill;

    /**
     * Makes a limiter.
     *
     * @param bytesPerSecond the rate, above 0
     */
    RateLimiter(long bytesPerSecond) {
        this.perPeriod = Math.max(1, bytesPerSecond / 10);
        this.nextRefill = System.nanoTime();
    }

    /**
     * Takes {@code bytes} from the budget, waiting for refills as needed.
     *
     * @param bytes the request
     */
    synchronized void request(long bytes) {
        long need = bytes;
        for (;;) {
            long now = System.nanoTime();
            if (now >= nextRefill) {
                available = Math.min(available + perPeriod, Math.max(perPeriod, need));
                nextRefill = now + PERIOD_NANOS;
            }
            if (available >= need) {
                available -= need;
                return;
            }
            if (available > 0 && need > perPeriod) {
                need -= available;
                available = 0;
            }
            long wait = nextRefill - now;
            try {
                wait(Math.max(1, wait / 1_000_000), (int) (wait % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
