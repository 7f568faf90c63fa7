package dev.ferry;

import dev.ferry.internal.Abi;

/**
 * Block compression for RocksDB stores ({@link StoreOptions#compression(Compression)} on LMDB
 * options throws {@link IllegalArgumentException}).
 *
 * <p>Thread safety: immutable.
 */
public enum Compression {
    /** No compression. */
    NONE(Abi.COMPRESSION_NONE),
    /** Snappy. */
    SNAPPY(Abi.COMPRESSION_SNAPPY),
    /** LZ4. */
    LZ4(Abi.COMPRESSION_LZ4),
    /** Zstandard. */
    ZSTD(Abi.COMPRESSION_ZSTD);

    private final int value;

    Compression(int value) {
        this.value = value;
    }

    int value() {
        return value;
    }
}
