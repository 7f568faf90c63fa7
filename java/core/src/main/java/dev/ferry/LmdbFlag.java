package dev.ferry;

import dev.ferry.internal.Abi;

/**
 * LMDB environment flags (ignored by RocksDB).
 *
 * <p>Thread safety: immutable.
 */
public enum LmdbFlag {
    /** Do not fsync on commit: fastest, a crash may lose the last transactions. */
    NOSYNC(Abi.LMDB_NOSYNC),
    /** fsync data but not the meta page on commit. */
    NOMETASYNC(Abi.LMDB_NOMETASYNC),
    /** Write through a writable map: faster writes, stray pointers can corrupt the map. */
    WRITEMAP(Abi.LMDB_WRITEMAP),
    /** Turn off OS read-ahead: helps random reads when the map exceeds RAM. */
    NORDAHEAD(Abi.LMDB_NORDAHEAD),
    /**
     * Let snapshots and cursors move between threads (used by one thread at a time). Without it
     * Ferry binds each LMDB snapshot and cursor to the thread that opened it.
     */
    NOTLS(Abi.LMDB_NOTLS);

    private final int bit;

    LmdbFlag(int bit) {
        this.bit = bit;
    }

    int bit() {
        return bit;
    }
}
