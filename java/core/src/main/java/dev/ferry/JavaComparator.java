package dev.ferry;

import java.util.Comparator;
import java.util.Objects;

/**
 * A key order written in Java for one column family ({@link ColumnFamilyOptions#javaComparator}), on RocksDB
 * and LMDB: the engine orders the family's keys with {@link #compare}, so cursors, {@link KeyRange}s, range
 * deletes and seeks follow it, and {@link ColumnFamily#keyOrder()} reports {@link KeyOrder#JAVA}. It costs a call into
 * Java, with a copy of both keys, for every comparison RocksDB makes: tens per write and per seek, several per
 * cursor step, and every key of a flush or compaction (docs/benchmarks.md has the measured cost). Prefer a
 * native order ({@link KeyOrder}), or keys encoded so that their bytes sort as wanted, where one fits.
 *
 * <p>RocksDB records {@link #name()} with the family: open the family again with a comparator of the same
 * name and the same order. Opening it without one, or with another name (or another {@link KeyOrder}),
 * fails with {@link FerryException.InvalidArgument}, never in a wrong order.
 *
 * <p>A comparator that throws: RocksDB cannot fail a comparison, so Ferry stops using the family. The call
 * that needed the comparison throws {@link FerryException} ({@link ErrorCode#ABORTED}) whose cause is the
 * comparator's exception, and every later call on the family (and every batch naming it) throws
 * {@link FerryException} ({@link ErrorCode#ABORTED}) until the store is closed and opened again. RocksDB's
 * own threads go on comparing the family's keys (flushes, compactions): Ferry asks a failed comparison
 * again, up to four times, so a failure that passes leaves the order whole; a pair that fails every time
 * is answered "equal" (see docs/usage.md). A comparator that calls its own store (or its snapshots, cursors, transactions)
 * gets {@link IllegalStateException}; closing the store waits for comparisons in flight.
 *
 * <p>LMDB: the same, with what LMDB allows (docs/usage.md, "Key orders on LMDB"): at most 64 such families
 * open at once in the process ({@link FerryException.NotSupported} past that), none with
 * {@link ColumnFamilyFlag#DUPSORT}; a comparator that throws fails the call that needed it with
 * {@link ErrorCode#ABORTED} (a write in which it happened is not committed) and the family until the
 * store is reopened, without asking again (LMDB compares on the calling thread only).
 *
 * <p>Thread safety: implementations must be thread-safe (RocksDB calls them concurrently), stateless,
 * quick, and a total order that never changes.
 */
public interface JavaComparator {

    /**
     * Returns the comparator's name, which RocksDB records with the family: 1 to 128 letters, digits, '_',
     * '.' or '-', not starting with {@code "ferry."}, {@code "leveldb."} or {@code "rocksdb."}; the same at
     * every call.
     *
     * @return the name
     */
    String name();

    /**
     * Compares two keys.
     *
     * @param a the first key (a copy, the comparator's to keep)
     * @param b the second key (a copy)
     * @return a negative number, 0 or a positive number as {@code a} sorts before, with or after {@code b}
     */
    int compare(byte[] a, byte[] b);

    /**
     * Makes a comparator of a name and a {@link Comparator} over keys.
     *
     * @param name the name (see {@link #name()})
     * @param order the order
     * @return the comparator
     */
    static JavaComparator of(String name, Comparator<byte[]> order) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(order, "order");
        return new JavaComparator() {
            @Override public String name() {
                return name;
            }

            @Override public int compare(byte[] a, byte[] b) {
                return order.compare(a, b);
            }

            @Override public String toString() {
                return "JavaComparator[" + name + "]";
            }
        };
    }
}
