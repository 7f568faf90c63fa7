package dev.ferry;

/**
 * Ferry's error codes, one per {@code FERRY_E*} code of the C ABI.
 *
 * <p>Thread safety: immutable.
 */
public enum ErrorCode {
    /** Bad argument caught by the shim. */
    INVALID_ARGUMENT(-1002),
    /** Native allocation failed. */
    OUT_OF_MEMORY(-1003),
    /** A caller buffer was too small (handled internally; reaching users is a bug). */
    BUFFER_TOO_SMALL(-1004),
    /** The engine library is not loaded or lacks a function. */
    ENGINE_NOT_LOADED(-1005),
    /** Two copies of an engine library are loaded in this process. */
    DUPLICATE_ENGINE(-1006),
    /** The engine does not support the operation. */
    NOT_SUPPORTED(-1007),
    /** The store or column family already exists. */
    ALREADY_EXISTS(-1008),
    /** The column family was dropped. */
    COLUMN_FAMILY_DROPPED(-1009),
    /** The engine found corrupt data. */
    CORRUPTION(-1010),
    /** The engine hit an I/O error. */
    IO_ERROR(-1011),
    /** The engine is busy (a lock is held, e.g. the store is open in another process). */
    BUSY(-1012),
    /** The engine could not complete the operation. */
    INCOMPLETE(-1013),
    /** The engine timed out. */
    TIMED_OUT(-1014),
    /** The engine aborted the operation. */
    ABORTED(-1015),
    /** The engine asks to try again. */
    TRY_AGAIN(-1016),
    /** The engine rejected an argument or option. */
    ENGINE_INVALID_ARGUMENT(-1017),
    /** The engine is shutting down. */
    SHUTDOWN(-1018),
    /** LMDB: the map is full. */
    MAP_FULL(-1020),
    /** LMDB: the reader table is full. */
    READERS_FULL(-1021),
    /** Too many column families (LMDB: named databases). */
    TOO_MANY_COLUMN_FAMILIES(-1022),
    /** LMDB: the transaction cannot be used here. */
    BAD_TRANSACTION(-1023),
    /** The key or value size is not accepted by the engine. */
    KEY_SIZE(-1024),
    /** The store was opened read-only. */
    READ_ONLY(-1025),
    /** A cursor was continued in the other direction. */
    DIRECTION(-1026),
    /** Any other engine error. */
    ENGINE(-1099);

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
