package dev.ferry;

import java.util.List;

/**
 * A merge operator written in Java (RocksDB only): combines the operands given to
 * {@link Store#merge(ColumnFamily, byte[], byte[])} and {@link WriteBatch#merge(ColumnFamily, byte[], byte[])}
 * with the key's value when RocksDB reads, flushes or compacts the key. Give it to a store with
 * {@link StoreOptions#javaMergeOperator(JavaMergeOperator)} or to one family with
 * {@link ColumnFamilyOptions#javaMergeOperator(JavaMergeOperator)}, next to RocksDB's built-in {@link MergeOperator}s.
 *
 * <p>RocksDB calls it from the thread that reads the key (gets, multi-gets, cursors) and from its own flush
 * and compaction threads. Every array it receives is a copy, its own to keep; the results must not change
 * afterwards. An exception from {@link #fullMerge} fails the merge: the read that needed it throws
 * {@link FerryException.Corruption} whose cause is that exception. A compaction that meets it keeps the value
 * and operands as they are. A flush that meets it fails with that cause, and RocksDB then refuses writes (with
 * the same cause) until the store is closed and opened again: reads go on, nothing written is lost (the
 * write-ahead log still holds it), and the reopened store, given a fixed operator, merges it. An exception from {@link #partialMerge} counts as
 * "cannot" (RocksDB keeps the operands for a full merge later). The operator must not call its own store (nor
 * its snapshots, cursors or transactions): a call of the store from inside a merge throws
 * {@link IllegalStateException}.
 *
 * <p>RocksDB records {@link #name()} in the store's OPTIONS file: open the store again with an operator of the
 * same name and meaning. An open that gives a family whose last open had a Java operator another operator
 * (another name, a built-in, none) fails with {@link FerryException.InvalidArgument}, and so does one that
 * gives a family a Java operator of another name than its last open's.
 *
 * <p>Thread safety: implementations must be thread-safe (RocksDB calls them concurrently) and should be
 * stateless and quick: a compaction waits for every merge it needs.
 */
public interface JavaMergeOperator {

    /**
     * Returns the operator's name, which RocksDB records with the store: 1 to 128 letters, digits, '_', '.'
     * or '-', not starting with {@code "ferry."}; the same at every call.
     *
     * @return the name
     */
    String name();

    /**
     * Combines a key's value with its operands.
     *
     * @param key the key
     * @param existingValue the key's value, or null when it has none (never written, or deleted)
     * @param operands the operands, oldest first (at least one), an unmodifiable list
     * @return the key's new value (not null)
     */
    byte[] fullMerge(byte[] key, byte[] existingValue, List<byte[]> operands);

    /**
     * Combines two consecutive operands into one, when that can be done without the key's value (a sum of
     * counts, a concatenation). The default cannot: RocksDB then keeps both for {@link #fullMerge}.
     *
     * @param key the key
     * @param left the older operand
     * @param right the newer operand
     * @return an operand that stands for both, or null when they cannot be combined
     */
    default byte[] partialMerge(byte[] key, byte[] left, byte[] right) {
        return null;
    }
}
