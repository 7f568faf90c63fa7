package dev.ferry;

/**
 * An error reported by Ferry's native shim or by an engine. Carries Ferry's {@link ErrorCode},
 * the engine's own code (RocksDB {@code Status::Code}, LMDB return code, or 0) and the engine's
 * message. Subclasses name the cases callers commonly handle.
 *
 * <p>A missing key is not an error. Calls on closed objects throw {@link IllegalStateException};
 * bad Java arguments throw {@link NullPointerException}, {@link IllegalArgumentException} or
 * {@link IndexOutOfBoundsException} before any native call.
 *
 * <p>Thread safety: immutable.
 */
public class FerryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final int engineCode;

    /**
     * Creates an exception.
     *
     * @param code Ferry's code
     * @param engineCode the engine's code, or 0
     * @param message the message
     */
    public FerryException(ErrorCode code, int engineCode, String message) {
        super(message);
        this.code = code;
        this.engineCode = engineCode;
    }

    /**
     * Returns Ferry's error code.
     *
     * @return the code
     */
    public ErrorCode code() {
        return code;
    }

    /**
     * Returns the engine's own error code, or 0 when the error did not come from the engine.
     *
     * @return the engine code
     */
    public int engineCode() {
        return engineCode;
    }

    /**
     * Builds the most specific exception for a code.
     *
     * @param code Ferry's code
     * @param engineCode the engine's code
     * @param message the message
     * @return the exception (not thrown)
     */
    public static FerryException of(ErrorCode code, int engineCode, String message) {
        switch (code) {
            case NOT_FOUND: return new NotFound(code, engineCode, message);
            case CORRUPTION: return new Corruption(code, engineCode, message);
            case IO_ERROR: return new IOError(code, engineCode, message);
            case BUSY: return new Busy(code, engineCode, message);
            case INVALID_ARGUMENT:
            case ENGINE_INVALID_ARGUMENT:
            case KEY_SIZE:
                return new InvalidArgument(code, engineCode, message);
            case NOT_SUPPORTED: return new NotSupported(code, engineCode, message);
            case ALREADY_EXISTS: return new AlreadyExists(code, engineCode, message);
            case MAP_FULL: return new MapFull(code, engineCode, message);
            case READERS_FULL: return new ReadersFull(code, engineCode, message);
            case COLUMN_FAMILY_DROPPED: return new ColumnFamilyDropped(code, engineCode, message);
            case READ_ONLY: return new ReadOnly(code, engineCode, message);
            case KEY_EXISTS: return new KeyExists(code, engineCode, message);
            case CONFLICT: return new Conflict(code, engineCode, message);
            case DEADLOCK: return new Deadlock(code, engineCode, message);
            case TIMED_OUT: return new TimedOut(code, engineCode, message);
            case ENGINE_NOT_LOADED:
            case DUPLICATE_ENGINE:
                return new EngineLoad(code, engineCode, message);
            default: return new FerryException(code, engineCode, message);
        }
    }

    /**
     * The store does not exist and {@link StoreOptions#createIfMissing(boolean) createIfMissing}
     * is off (or it was opened read-only); the message names the path. Same on every engine. Also
     * from {@link Transaction#rollbackToSavePoint()} and {@link Transaction#popSavePoint()} when the
     * transaction has no savepoint (RocksDB's NotFound).
     */
    public static final class NotFound extends FerryException {
        private static final long serialVersionUID = 1L;
        NotFound(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The engine found corrupt data. */
    public static final class Corruption extends FerryException {
        private static final long serialVersionUID = 1L;
        Corruption(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The engine hit an I/O error (also: permission denied). */
    public static final class IOError extends FerryException {
        private static final long serialVersionUID = 1L;
        IOError(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The engine is busy, e.g. the store's lock is held by another process. */
    public static final class Busy extends FerryException {
        private static final long serialVersionUID = 1L;
        Busy(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** An argument or option was rejected by the shim or the engine (also key-size limits). */
    public static final class InvalidArgument extends FerryException {
        private static final long serialVersionUID = 1L;
        InvalidArgument(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The engine does not support the operation. */
    public static final class NotSupported extends FerryException {
        private static final long serialVersionUID = 1L;
        NotSupported(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /**
     * A batch written with {@link WriteOptions#noOverwrite(boolean) noOverwrite} or
     * {@link WriteOptions#noDupData(boolean) noDupData} met a key (or key and value) that exists:
     * nothing of the batch was written; the message names the record. (A single put with these
     * options returns {@code false} instead.)
     */
    public static final class KeyExists extends FerryException {
        private static final long serialVersionUID = 1L;
        KeyExists(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The store (with errorIfExists) or column family already exists. */
    public static final class AlreadyExists extends FerryException {
        private static final long serialVersionUID = 1L;
        AlreadyExists(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** LMDB's map is full: raise {@code StoreOptions.mapSize} or enable auto-grow. */
    public static final class MapFull extends FerryException {
        private static final long serialVersionUID = 1L;
        MapFull(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** LMDB's reader table is full: raise {@code StoreOptions.maxReaders} or close snapshots. */
    public static final class ReadersFull extends FerryException {
        private static final long serialVersionUID = 1L;
        ReadersFull(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** The column family was dropped. */
    public static final class ColumnFamilyDropped extends FerryException {
        private static final long serialVersionUID = 1L;
        ColumnFamilyDropped(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** A write was attempted on a store opened read-only. */
    public static final class ReadOnly extends FerryException {
        private static final long serialVersionUID = 1L;
        ReadOnly(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** An engine library could not be found, loaded, or was loaded twice. */
    public static final class EngineLoad extends FerryException {
        private static final long serialVersionUID = 1L;
        EngineLoad(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /**
     * A transaction lost a write conflict: on a pessimistic RocksDB store another transaction
     * wrote the key first, on an optimistic one the commit found that a key the transaction wrote
     * or read for update was written after the transaction first touched it. The transaction's
     * writes are not committed; run it again ({@link Store#inTransaction} does).
     */
    public static final class Conflict extends FerryException {
        private static final long serialVersionUID = 1L;
        Conflict(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /** RocksDB's deadlock detection chose this (pessimistic) transaction; run it again. */
    public static final class Deadlock extends FerryException {
        private static final long serialVersionUID = 1L;
        Deadlock(ErrorCode c, int e, String m) { super(c, e, m); }
    }

    /**
     * A wait ran out: a RocksDB key lock (pessimistic transactions, and plain writes on such a
     * store) or the LMDB write lock ({@link Store#beginTransaction(long)}) was not granted in time.
     */
    public static final class TimedOut extends FerryException {
        private static final long serialVersionUID = 1L;
        TimedOut(ErrorCode c, int e, String m) { super(c, e, m); }
    }
}
