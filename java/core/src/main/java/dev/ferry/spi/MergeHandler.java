package dev.ferry.spi;

/**
 * Where a binding hands the merges that RocksDB asks of a merge operator written in Java (see
 * {@code ferry_merge_operator_create} in ferry.h): ferry-core implements it once and gives it to
 * {@link NativeBinding#mergeCallback(MergeHandler)}; the binding's callback copies RocksDB's bytes
 * (valid during the call only) into arrays and calls it.
 *
 * <p>Thread safety: called from any thread (readers, RocksDB's flush and compaction threads), concurrently.
 */
public interface MergeHandler {

    /**
     * Performs one merge. Never throws: a failure is remembered by the implementation and reported as null.
     *
     * @param token the operator's token, as registered
     * @param kind 0 for a full merge, 1 for a partial merge
     * @param key the key
     * @param existing the key's value (full merges), or null when it has none
     * @param operands the operands, oldest first
     * @return the merged value, or null for a failed full merge or a partial merge that cannot be done
     */
    byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands);
}
