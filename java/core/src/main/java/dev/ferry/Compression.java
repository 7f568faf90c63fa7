package dev.ferry;

/**
 * Block compression for RocksDB stores (ignored by LMDB).
 *
 * <p>Thread safety: immutable.
 */
public enum Compression {
    /** No compression. */
    NONE(0),
    /** Snappy. */
    SNAPPY(1),
    /** LZ4. */
    LZ4(2),
    /** Zstandard. */
    ZSTD(3);

    private final int value;

    Compression(int value) {
        this.value = value;
    }

    int value() {
        return value;
    }
}
