package dev.ferry.bench.dbbench;

/**
 * The small multiplicative congruential generator RocksDB's {@code util/random.h} calls
 * {@code Random} (Park and Miller's "minimal standard": seed = seed * 16807 mod 2^31-1), which
 * db_bench's value generator draws from. Same seed, same sequence.
 *
 * <p>Thread safety: not thread-safe.
 */
public final class Lehmer {
    private static final long M = 2147483647L;
    private static final long A = 16807L;
    private long seed;

    /**
     * Seeds the generator as RocksDB does (a seed of 0 or 2^31-1 becomes 1).
     *
     * @param s the seed, an unsigned 32-bit value
     */
    public Lehmer(int s) {
        long v = (s & 0xffffffffL) & M;
        seed = v != 0 ? v : 1;
    }

    /** @return the next value, in [1, 2^31-2] */
    public int next() {
        long product = seed * A;
        long r = (product >>> 31) + (product & M);
        if (r > M) {
            r -= M;
        }
        seed = r;
        return (int) r;
    }

    /**
     * Returns {@code next() % n}.
     *
     * @param n the bound, positive
     * @return a value in [0, n)
     */
    public int uniform(int n) {
        return next() % n;
    }
}
