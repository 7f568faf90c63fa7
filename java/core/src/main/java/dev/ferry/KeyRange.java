package dev.ferry;

import java.util.Arrays;
import java.util.Objects;

/**
 * A range of keys in unsigned lexicographic byte order, with inclusive or exclusive bounds, or
 * a prefix. Every range is reduced to a half-open interval {@code [lower, upper)} that the
 * engine enforces natively (RocksDB iterate bounds, a C comparison for LMDB): an exclusive
 * lower bound {@code k} becomes {@code k + 0x00}, an inclusive upper bound {@code k} becomes
 * {@code k + 0x00}, a prefix {@code p} becomes {@code [p, successor(p))}. On a column family in
 * {@link KeyOrder#REVERSE_BYTEWISE} order the bounds {@code [lower, upper)} are read in that order;
 * only ranges without derived bounds ({@link #all()}, {@link #atLeast}, {@link #lessThan},
 * {@link #closedOpen}) are accepted there.
 *
 * <p>Thread safety: immutable.
 */
public final class KeyRange {
    private static final KeyRange ALL = new KeyRange(null, null, false);

    private final byte[] lower;
    private final byte[] upper;
    /** A bound was derived in bytewise order (a successor key, a prefix's end): no bound of another order. */
    private final boolean derived;

    private KeyRange(byte[] lower, byte[] upper) {
        this(lower, upper, true);
    }

    private KeyRange(byte[] lower, byte[] upper, boolean derived) {
        this.lower = lower;
        this.upper = upper;
        this.derived = derived;
    }

    /** @return the range of all keys */
    public static KeyRange all() {
        return ALL;
    }

    /**
     * Keys {@code >= from}.
     *
     * @param from inclusive lower bound
     * @return the range
     */
    public static KeyRange atLeast(byte[] from) {
        return new KeyRange(copy(from), null, false);
    }

    /**
     * Keys {@code > from}.
     *
     * @param from exclusive lower bound
     * @return the range
     */
    public static KeyRange greaterThan(byte[] from) {
        return new KeyRange(successorKey(from), null);
    }

    /**
     * Keys {@code <= to}.
     *
     * @param to inclusive upper bound
     * @return the range
     */
    public static KeyRange atMost(byte[] to) {
        return new KeyRange(null, successorKey(to));
    }

    /**
     * Keys {@code < to}.
     *
     * @param to exclusive upper bound
     * @return the range
     */
    public static KeyRange lessThan(byte[] to) {
        return new KeyRange(null, copy(to), false);
    }

    /**
     * Keys in {@code [from, to]}.
     *
     * @param from inclusive lower bound
     * @param to inclusive upper bound
     * @return the range
     */
    public static KeyRange closed(byte[] from, byte[] to) {
        return new KeyRange(copy(from), successorKey(to));
    }

    /**
     * Keys in {@code [from, to)}.
     *
     * @param from inclusive lower bound
     * @param to exclusive upper bound
     * @return the range
     */
    public static KeyRange closedOpen(byte[] from, byte[] to) {
        return new KeyRange(copy(from), copy(to), false);
    }

    /**
     * Keys in {@code (from, to]}.
     *
     * @param from exclusive lower bound
     * @param to inclusive upper bound
     * @return the range
     */
    public static KeyRange openClosed(byte[] from, byte[] to) {
        return new KeyRange(successorKey(from), successorKey(to));
    }

    /**
     * Keys in {@code (from, to)}.
     *
     * @param from exclusive lower bound
     * @param to exclusive upper bound
     * @return the range
     */
    public static KeyRange open(byte[] from, byte[] to) {
        return new KeyRange(successorKey(from), copy(to));
    }

    /**
     * Keys starting with {@code prefix}. An empty prefix is {@link #all()}.
     *
     * @param prefix the prefix
     * @return the range
     */
    public static KeyRange prefix(byte[] prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.length == 0) {
            return ALL;
        }
        return new KeyRange(prefix.clone(), prefixEnd(prefix));
    }

    /** @return a copy of the inclusive lower bound, or null when unbounded */
    public byte[] lower() {
        return lower == null ? null : lower.clone();
    }

    /** @return a copy of the exclusive upper bound, or null when unbounded */
    public byte[] upper() {
        return upper == null ? null : upper.clone();
    }

    byte[] lowerRef() {
        return lower;
    }

    byte[] upperRef() {
        return upper;
    }

    /** @return true when no key can lie in the range */
    public boolean isEmpty() {
        return upper != null && (upper.length == 0 || (lower != null && Arrays.compareUnsigned(lower, upper) >= 0));
    }

    /**
     * Whether the range holds no key of a family in {@code order} (in reverse order, its lower bound
     * must be above its upper bound bytewise), for cursors; throws when its bounds were derived in
     * bytewise order and the family is in reverse order.
     */
    boolean isEmptyIn(KeyOrder order) {
        if (order != KeyOrder.REVERSE_BYTEWISE && order != KeyOrder.JAVA) {
            return isEmpty();
        }
        if (derived) {
            throw new IllegalArgumentException("the range " + this + " has a bound derived in bytewise order (greaterThan, "
                    + "atMost, closed, openClosed, open, prefix): a " + order + " family takes ranges made with all, "
                    + "atLeast, lessThan or closedOpen, whose bounds are read in the family's order");
        }
        if (order == KeyOrder.JAVA) {
            return false; // the engine finds nothing in a range its comparator says is empty
        }
        return upper != null && lower != null && Arrays.compareUnsigned(lower, upper) <= 0;
    }

    /**
     * Tells whether a key lies in the range.
     *
     * @param key the key
     * @return true when {@code lower <= key < upper}
     */
    public boolean contains(byte[] key) {
        Objects.requireNonNull(key, "key");
        return (lower == null || Arrays.compareUnsigned(key, lower) >= 0)
                && (upper == null || Arrays.compareUnsigned(key, upper) < 0);
    }

    /** Smallest key greater than {@code k}: {@code k + 0x00}. */
    private static byte[] successorKey(byte[] k) {
        Objects.requireNonNull(k, "key");
        return Arrays.copyOf(k, k.length + 1);
    }

    /** Smallest key greater than every key with prefix {@code p}, or null when none (all 0xFF). */
    private static byte[] prefixEnd(byte[] p) {
        for (int i = p.length - 1; i >= 0; i--) {
            if (p[i] != (byte) 0xFF) {
                byte[] r = Arrays.copyOf(p, i + 1);
                r[i]++;
                return r;
            }
        }
        return null;
    }

    private static byte[] copy(byte[] k) {
        return Objects.requireNonNull(k, "key").clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyRange && Arrays.equals(lower, ((KeyRange) o).lower) && Arrays.equals(upper, ((KeyRange) o).upper);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(lower) + Arrays.hashCode(upper);
    }

    @Override
    public String toString() {
        return "[" + (lower == null ? "-inf" : View.hex(lower, 0, lower.length)) + ", "
                + (upper == null ? "+inf" : View.hex(upper, 0, upper.length)) + ")";
    }
}
