package dev.ferry.bench.dbbench;

/**
 * The 64-bit Mersenne Twister (MT19937-64, the parameters of C++'s {@code std::mt19937_64}),
 * which db_bench's per-thread {@code Random64} wraps: with the same seed, the same key sequence
 * for fillrandom, overwrite, readrandom and the other random benchmarks. Written from the
 * published algorithm (Matsumoto and Nishimura).
 *
 * <p>Thread safety: not thread-safe; one per benchmark thread.
 */
public final class Mt64 {
    private static final int N = 312;
    private static final int M = 156;
    private static final long MATRIX_A = 0xB5026F5AA96619E9L;
    private static final long UPPER = 0xFFFFFFFF80000000L;
    private static final long LOWER = 0x7FFFFFFFL;
    private final long[] mt = new long[N];
    private int index;

    /**
     * Seeds the generator like {@code std::mt19937_64(seed)}.
     *
     * @param seed the seed (unsigned)
     */
    public Mt64(long seed) {
        mt[0] = seed;
        for (int i = 1; i < N; i++) {
            mt[i] = 6364136223846793005L * (mt[i - 1] ^ (mt[i - 1] >>> 62)) + i;
        }
        index = N;
    }

    /** @return the next 64 random bits (read as unsigned) */
    public long next() {
        if (index >= N) {
            twist();
        }
        long x = mt[index++];
        x ^= (x >>> 29) & 0x5555555555555555L;
        x ^= (x << 17) & 0x71D67FFFEDA60000L;
        x ^= (x << 37) & 0xFFF7EEE000000000L;
        x ^= x >>> 43;
        return x;
    }

    /**
     * Returns {@code next() % n} with both read as unsigned, as db_bench's {@code rand.Next() % n}.
     *
     * @param n the bound, positive
     * @return a value in [0, n)
     */
    public long nextMod(long n) {
        return Long.remainderUnsigned(next(), n);
    }

    private void twist() {
        for (int i = 0; i < N; i++) {
            long y = (mt[i] & UPPER) | (mt[(i + 1) % N] & LOWER);
            long v = mt[(i + M) % N] ^ (y >>> 1);
            if ((y & 1) != 0) {
                v ^= MATRIX_A;
            }
            mt[i] = v;
        }
        index = 0;
    }
}
