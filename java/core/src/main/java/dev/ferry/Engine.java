package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * The storage engines Ferry drives. Both come from the official Java artifacts: RocksDB from
 * {@code org.rocksdb:rocksdbjni}, LMDB from {@code org.lmdbjava:native}.
 *
 * <p>Thread safety: immutable.
 */
public enum Engine {
    /** RocksDB (LSM tree): compression, column families, compaction. */
    ROCKSDB,
    /** LMDB (memory-mapped B+tree): zero-copy reads, one writer at a time. */
    LMDB;

    private final int id = Codes.engine(name());

    /**
     * Returns the C ABI's engine id ({@code FERRY_ENGINE_*}).
     *
     * @return the id
     */
    public int id() {
        return id;
    }
}
