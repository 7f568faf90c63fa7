package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * Block compression for RocksDB stores ({@link StoreOptions#compression(Compression)} on LMDB
 * options throws {@link IllegalArgumentException}).
 *
 * <p>Thread safety: immutable.
 */
public enum Compression {
    /** No compression. */
    NONE,
    /** Snappy. */
    SNAPPY,
    /** LZ4. */
    LZ4,
    /** Zstandard. */
    ZSTD;

    /** FERRY_COMPRESSION_* of this compression, from the call layer. */
    private final int value = Codes.compression(name());

    int value() {
        return value;
    }
}
