package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * The order of a column family's keys ({@link ColumnFamilyOptions#keyOrder(KeyOrder)}): one of the
 * comparators that run inside the engine, so that no comparison crosses into Java, or {@link #JAVA}
 * for a family ordered by a {@link JavaComparator}.
 *
 * <p>RocksDB records a family's comparator by name and refuses to open the family with another one:
 * give the same order at every open ({@link StoreOptions#columnFamily(String, ColumnFamilyOptions)}),
 * or the open fails with {@link FerryException.InvalidArgument} ({@link ErrorCode#ENGINE_INVALID_ARGUMENT})
 * naming both comparators. LMDB takes {@link #BYTEWISE}, {@link #REVERSE_BYTEWISE} and
 * {@link #UINT64_BIG_ENDIAN} for families without duplicate keys: Ferry records the order with the
 * family's database and sets LMDB's comparison ({@code mdb_set_compare}) whenever it opens the family;
 * an open that gives the family another order fails with {@link FerryException.InvalidArgument}
 * ({@link ErrorCode#INVALID_ARGUMENT}) naming both. A {@link JavaComparator} works there too (see its
 * class comment for LMDB's limits).
 *
 * <p>Thread safety: immutable.
 */
public enum KeyOrder {
    /** Unsigned bytes, then length (RocksDB's {@code leveldb.BytewiseComparator}): every family's default. */
    BYTEWISE,
    /**
     * The reverse of {@link #BYTEWISE} (RocksDB's built-in {@code rocksdb.ReverseBytewiseComparator},
     * RocksJava's {@code BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR}, so either library opens the
     * other's store). A cursor's first entry is the bytewise-largest key. A {@link KeyRange}'s bounds
     * are taken in this order: {@code KeyRange.closedOpen(from, to)} holds the keys from {@code from}
     * down to, but not including, {@code to}; build ranges with {@link KeyRange#all()},
     * {@link KeyRange#atLeast}, {@link KeyRange#lessThan} and {@link KeyRange#closedOpen}, since the
     * other factories derive bounds in bytewise order (a cursor over one of those throws
     * {@link IllegalArgumentException}). A range delete {@code [begin, end)} needs {@code begin} above
     * {@code end} bytewise (else it deletes nothing). Such a family is never split for parallel scans
     * (one range) and takes no SST ingestion ({@link FerryException.NotSupported}).
     */
    REVERSE_BYTEWISE,
    /**
     * Keys are unsigned 64-bit integers, 8 bytes big-endian, in numeric order: a comparator of Ferry's
     * native library ({@code ferry.Uint64BigEndianComparator}). The order is the same as bytewise for
     * 8-byte keys; what it adds is the check: a put or merge of a key of another length throws
     * {@link FerryException.InvalidArgument} ({@link ErrorCode#KEY_SIZE}) before anything is written, and the
     * comparator's name keeps the store from being opened bytewise by mistake. RocksJava cannot open
     * such a store (it has no comparator of that name). No SST ingestion.
     */
    UINT64_BIG_ENDIAN,
    /**
     * The family's keys are ordered by a {@link JavaComparator} ({@link ColumnFamilyOptions#javaComparator}):
     * reported by {@link ColumnFamily#keyOrder()}, never set with {@link ColumnFamilyOptions#keyOrder(KeyOrder)}.
     * A {@link KeyRange}'s bounds are taken in the comparator's order, so build ranges with
     * {@link KeyRange#all()}, {@link KeyRange#atLeast}, {@link KeyRange#lessThan} and {@link KeyRange#closedOpen}
     * (the others derive bounds in bytewise order: a cursor over one of those throws
     * {@link IllegalArgumentException}). A range delete {@code [begin, end)} deletes nothing unless {@code begin}
     * sorts before {@code end}. Never split for parallel scans; no SST ingestion.
     */
    JAVA;

    /** FERRY_ORDER_* of this order, from the call layer. */
    private final int value = Codes.keyOrder(name());

    int value() {
        return value;
    }

    /** @return the order of a family's native flags (FERRY_CF_ORDER_* bits) */
    static KeyOrder ofFlags(int flags) {
        int order = Codes.keyOrderOfFlags(flags);
        for (KeyOrder o : values()) {
            if (o.value == order) {
                return o;
            }
        }
        return BYTEWISE;
    }

    /** @return the FERRY_CF_ORDER_* bit of this order (0 for bytewise) */
    int flag() {
        return Codes.keyOrderFlag(value);
    }
}
