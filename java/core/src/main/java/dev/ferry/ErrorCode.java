package dev.ferry;

import dev.ferry.internal.Codes;

/**
 * Ferry's error codes, one per {@code FERRY_E*} code of the C ABI.
 *
 * <p>Thread safety: immutable.
 */
public enum ErrorCode {
    /**
     * Something the call needs does not exist: a store opened without
     * {@link StoreOptions#createIfMissing(boolean) createIfMissing} (or read-only) that is not
     * there. A missing key is not an error.
     */
    NOT_FOUND,
    /** Bad argument caught by the shim. */
    INVALID_ARGUMENT,
    /** Native allocation failed. */
    OUT_OF_MEMORY,
    /** A caller buffer was too small (handled internally; reaching users is a bug). */
    BUFFER_TOO_SMALL,
    /** The engine library is not loaded or lacks a function. */
    ENGINE_NOT_LOADED,
    /** Two copies of an engine library are loaded in this process. */
    DUPLICATE_ENGINE,
    /** The engine does not support the operation. */
    NOT_SUPPORTED,
    /** The store or column family already exists. */
    ALREADY_EXISTS,
    /** The column family was dropped. */
    COLUMN_FAMILY_DROPPED,
    /** The engine found corrupt data. */
    CORRUPTION,
    /** The engine hit an I/O error. */
    IO_ERROR,
    /** The engine is busy (a lock is held, e.g. the store is open in another process). */
    BUSY,
    /** The engine could not complete the operation. */
    INCOMPLETE,
    /** The engine timed out. */
    TIMED_OUT,
    /** The engine aborted the operation. */
    ABORTED,
    /** The engine asks to try again. */
    TRY_AGAIN,
    /** The engine rejected an argument or option. */
    ENGINE_INVALID_ARGUMENT,
    /** The engine is shutting down. */
    SHUTDOWN,
    /** LMDB: the map is full. */
    MAP_FULL,
    /** LMDB: the reader table is full. */
    READERS_FULL,
    /** Too many column families (LMDB: named databases). */
    TOO_MANY_COLUMN_FAMILIES,
    /** LMDB: the transaction cannot be used here. */
    BAD_TRANSACTION,
    /** The key or value size is not accepted by the engine. */
    KEY_SIZE,
    /** The store was opened read-only. */
    READ_ONLY,
    /** A cursor was continued in the other direction. */
    DIRECTION,
    /**
     * A write with {@link WriteOptions#noOverwrite(boolean) noOverwrite} or
     * {@link WriteOptions#noDupData(boolean) noDupData} found the key (or key and value) already
     * there; nothing was written.
     */
    KEY_EXISTS,
    /** A transaction lost a write conflict (RocksDB: another writer holds or changed the key; an
     * optimistic commit found a newer write). Retry the transaction. */
    CONFLICT,
    /** RocksDB's deadlock detection chose this transaction. Retry the transaction. */
    DEADLOCK,
    /** Any other engine error. */
    ENGINE;

    /** FERRY_E* of this error, from the call layer. */
    private final int rc = Codes.error(name());

    /**
     * Returns the C ABI's return code for this error.
     *
     * @return the negative {@code FERRY_E*} value
     */
    public int rc() {
        return rc;
    }

    /**
     * Maps a C ABI return code to an error code.
     *
     * @param rc a negative return code
     * @return the matching code, {@link #ENGINE} for unknown codes
     */
    public static ErrorCode of(int rc) {
        for (ErrorCode c : values()) {
            if (c.rc == rc) {
                return c;
            }
        }
        return ENGINE;
    }
}
