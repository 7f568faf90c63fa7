package dev.ferry.spi;

/**
 * Where a binding hands the comparisons that RocksDB asks of a comparator written in Java (see
 * {@code ferry_comparator_create} in ferry.h): ferry-core implements it once and gives it to
 * {@link NativeBinding#compareCallback(CompareHandler)}; the binding's callback copies RocksDB's keys (valid
 * during the call only) into arrays and calls it.
 *
 * <p>Thread safety: called from any thread (readers, writers, RocksDB's flush and compaction threads),
 * concurrently.
 */
public interface CompareHandler {

    /** What {@link #compare} answers for a comparator that failed. */
    long FAILED = Long.MIN_VALUE;

    /**
     * Compares two keys. Never throws: a failure is remembered by the implementation and reported as
     * {@link #FAILED}.
     *
     * @param token the comparator's token, as registered
     * @param a the first key
     * @param b the second key
     * @return a negative number, 0 or a positive number as {@code a} sorts before, with or after {@code b}
     *         (in {@code int} range), or {@link #FAILED}
     */
    long compare(long token, byte[] a, byte[] b);
}
