package dev.ferry;

/**
 * LMDB environment flags (ignored by RocksDB).
 *
 * <p>Thread safety: immutable.
 */
public enum LmdbFlag {
    /** Do not fsync on commit: fastest, a crash may lose the last transactions. */
    NOSYNC(0x1),
    /** fsync data but not the meta page on commit. */
    NOMETASYNC(0x2),
    /** Write through a writable map: faster writes, stray pointers can corrupt the map. */
    WRITEMAP(0x4),
    /** Turn off OS read-ahead: helps random reads when the map exceeds RAM. */
    NORDAHEAD(0x8),
    /**
     * Let snapshots and cursors move between threads (used by one thread at a time). Without it
     * Ferry binds each LMDB snapshot and cursor to the thread that opened it.
     */
    NOTLS(0x10);

    private final int bit;

    LmdbFlag(int bit) {
        this.bit = bit;
    }

    int bit() {
        return bit;
    }
}
