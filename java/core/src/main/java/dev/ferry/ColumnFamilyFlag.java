package dev.ferry;

import dev.ferry.internal.Codes;
import java.util.EnumSet;
import java.util.Set;

/**
 * Flags of a column family, fixed when it is created with
 * {@link Store#createColumnFamily(String, Set)} and kept with it: a store opened again reads them
 * from the family ({@link ColumnFamily#flags()}). Both are LMDB database flags; on RocksDB asking
 * for any throws {@link FerryException.NotSupported}.
 *
 * <p>Thread safety: immutable.
 */
public enum ColumnFamilyFlag {
    /**
     * LMDB {@code MDB_DUPSORT}: a key holds several values, sorted as unsigned bytes.
     * {@link Store#put(ColumnFamily, byte[], byte[]) put} adds a value (an existing pair stays
     * once), {@link Store#delete(ColumnFamily, byte[]) delete} removes the key with all its
     * values, {@link Store#delete(ColumnFamily, byte[], byte[])} one value, {@code get} returns
     * the smallest value and {@link Store#valueCount(ColumnFamily, byte[])} counts them. Cursors
     * yield every (key, value) pair. A value is limited to LMDB's maximum key size (511 bytes by
     * default): a larger one throws {@link FerryException.InvalidArgument} with
     * {@link ErrorCode#KEY_SIZE}.
     */
    DUPSORT,
    /**
     * LMDB {@code MDB_DUPFIXED}, with {@link #DUPSORT} only: all values of a key have one size,
     * which LMDB stores packed. A value of another size than the key's first throws
     * {@link FerryException.InvalidArgument} with {@link ErrorCode#KEY_SIZE}.
     */
    DUPFIXED;

    /** FERRY_CF_* bit of this flag, from the call layer. */
    private final int bit = Codes.familyFlag(name());

    static int mask(Set<ColumnFamilyFlag> flags) {
        int m = 0;
        for (ColumnFamilyFlag f : flags) {
            m |= f.bit;
        }
        return m;
    }

    static EnumSet<ColumnFamilyFlag> of(int mask) {
        EnumSet<ColumnFamilyFlag> s = EnumSet.noneOf(ColumnFamilyFlag.class);
        for (ColumnFamilyFlag f : values()) {
            if ((mask & f.bit) != 0) {
                s.add(f);
            }
        }
        return s;
    }
}
