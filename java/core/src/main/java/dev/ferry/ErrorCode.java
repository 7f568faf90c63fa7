package dev.ferry;

import dev.ferry.internal.Abi;

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
    NOT_FOUND(Abi.NOTFOUND),
    /** Bad argument caught by the shim. */
    INVALID_ARGUMENT(Abi.EINVAL),
    /** Native allocation failed. */
    OUT_OF_MEMORY(Abi.ENOMEM),
    /** A caller buffer was too small (handled internally; reaching users is a bug). */
    BUFFER_TOO_SMALL(Abi.ETOOSMALL),
    /** The engine library is not loaded or lacks a function. */
    ENGINE_NOT_LOADED(Abi.ENOENGINE),
    /** Two copies of an engine library are loaded in this process. */
    DUPLICATE_ENGINE(Abi.EDUPENGINE),
    /** The engine does not support the operation. */
    NOT_SUPPORTED(Abi.ENOTSUP),
    /** The store or column family already exists. */
    ALREADY_EXISTS(Abi.EEXISTS),
    /** The column family was dropped. */
    COLUMN_FAMILY_DROPPED(Abi.ECFDROPPED),
    /** The engine found corrupt data. */
    CORRUPTION(Abi.ECORRUPTION),
    /** The engine hit an I/O error. */
    IO_ERROR(Abi.EIO),
    /** The engine is busy (a lock is held, e.g. the store is open in another process). */
    BUSY(Abi.EBUSY),
    /** The engine could not complete the operation. */
    INCOMPLETE(Abi.EINCOMPLETE),
    /** The engine timed out. */
    TIMED_OUT(Abi.ETIMEDOUT),
    /** The engine aborted the operation. */
    ABORTED(Abi.EABORTED),
    /** The engine asks to try again. */
    TRY_AGAIN(Abi.ETRYAGAIN),
    /** The engine rejected an argument or option. */
    ENGINE_INVALID_ARGUMENT(Abi.EENGINEARG),
    /** The engine is shutting down. */
    SHUTDOWN(Abi.ESHUTDOWN),
    /** LMDB: the map is full. */
    MAP_FULL(Abi.EMAPFULL),
    /** LMDB: the reader table is full. */
    READERS_FULL(Abi.EREADERSFULL),
    /** Too many column families (LMDB: named databases). */
    TOO_MANY_COLUMN_FAMILIES(Abi.EDBSFULL),
    /** LMDB: the transaction cannot be used here. */
    BAD_TRANSACTION(Abi.EBADTXN),
    /** The key or value size is not accepted by the engine. */
    KEY_SIZE(Abi.EKEYSIZE),
    /** The store was opened read-only. */
    READ_ONLY(Abi.EREADONLY),
    /** A cursor was continued in the other direction. */
    DIRECTION(Abi.EDIRECTION),
    /**
     * A write with {@link WriteOptions#noOverwrite(boolean) noOverwrite} or
     * {@link WriteOptions#noDupData(boolean) noDupData} found the key (or key and value) already
     * there; nothing was written.
     */
    KEY_EXISTS(Abi.EKEYEXIST),
    /** A transaction lost a write conflict (RocksDB: another writer holds or changed the key; an
     * optimistic commit found a newer write). Retry the transaction. */
    CONFLICT(Abi.ECONFLICT),
    /** RocksDB's deadlock detection chose this transaction. Retry the transaction. */
    DEADLOCK(Abi.EDEADLOCK),
    /** Any other engine error. */
    ENGINE(Abi.EENGINE);

    private final int rc;

    ErrorCode(int rc) {
        this.rc = rc;
    }

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
