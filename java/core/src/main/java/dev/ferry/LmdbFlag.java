package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * LMDB environment flags ({@link StoreOptions#lmdbFlags(java.util.EnumSet)} on RocksDB options
 * throws {@link IllegalArgumentException}).
 *
 * <p>Thread safety: immutable.
 */
public enum LmdbFlag {
    /**
     * Do not fsync on commit: what {@link StoreOptions#syncWrites(boolean) syncWrites(false)}, the
     * default, already sets (a commit survives a process crash, an OS crash may lose the last
     * ones). With {@code syncWrites(true)} the open throws {@link FerryException.InvalidArgument}.
     */
    NOSYNC,
    /**
     * With {@code syncWrites(true)}: fsync the data on commit and the meta page one commit later
     * (an OS crash may lose the last commit, never the store's integrity).
     */
    NOMETASYNC,
    /** Write through a writable map: faster writes, stray pointers can corrupt the map. */
    WRITEMAP,
    /** Turn off OS read-ahead: helps random reads when the map exceeds RAM. */
    NORDAHEAD,
    /**
     * Let snapshots and cursors move between threads (used by one thread at a time). Without it
     * Ferry binds each LMDB snapshot and cursor to the thread that opened it.
     */
    NOTLS;

    /** FERRY_LMDB_* bit of this flag, from the call layer. */
    private final int bit = Codes.lmdbFlag(name());

    int bit() {
        return bit;
    }
}
