package dev.ferry;

import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;
import dev.ferry.internal.binding.Bindings;

/**
 * A RocksDB SST file manager that any number of RocksDB stores share (RocksDB's {@code SstFileManager},
 * RocksJava's {@code SstFileManager}): it tracks the table and blob files of the stores that use it
 * ({@link #totalSize()}), fails their flushes and compactions, and then their writes, once those files
 * reach {@link #maxAllowedSpace()}, and deletes obsolete files at a bounded rate. Attach it with
 * {@link StoreOptions#sstFileManager(SstFileManager)}.
 *
 * <p>RocksDB's C API has it from releases newer than rocksdbjni 10.1.3 (11.8.1 has it): with an older
 * rocksdbjni (7.9.2 is supported) {@link #create} throws {@link FerryException.NotSupported} saying so.
 *
 * <p>Lifetime: explicit and counted, as {@link BlockCache}'s. An open store holds the manager until the
 * store closes; {@link #close()} while any holds it throws {@link FerryException.Busy} naming how many,
 * and leaves it open. LMDB options refuse a manager.
 *
 * <p>Thread safety: thread-safe; every method may be called from any thread.
 */
public final class SstFileManager extends SharedNative implements AutoCloseable {
    private final long maxAllowedSpace;
    private final long deleteRate;

    private SstFileManager(NativeCalls calls, long handle, long maxAllowedSpace, long deleteRate) {
        super(handle, calls.admin()::sstManagerUsage, calls.admin()::sstManagerClose);
        this.maxAllowedSpace = maxAllowedSpace;
        this.deleteRate = deleteRate;
    }

    /**
     * A manager.
     *
     * @param maxAllowedSpace bytes the stores' table and blob files may take together, 0 for no limit
     * @param deleteRateBytesPerSecond bytes per second at which obsolete files are deleted, 0 for at once
     * @param binding the binding to call through ("jni" or "ffm"), or null for the process default
     * @return the manager; close it after the stores that use it
     * @throws IllegalArgumentException for a negative value
     * @throws FerryException.NotSupported when the RocksDB library has no SST file managers in its C API
     * @throws FerryException.EngineLoad when rocksdbjni is missing
     */
    public static SstFileManager create(long maxAllowedSpace, long deleteRateBytesPerSecond, String binding) {
        if (maxAllowedSpace < 0 || deleteRateBytesPerSecond < 0) {
            throw new IllegalArgumentException("maxAllowedSpace=" + maxAllowedSpace + " deleteRateBytesPerSecond="
                    + deleteRateBytesPerSecond + " (both at least 0)");
        }
        NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
        Engines.attach(calls, Engine.ROCKSDB);
        long h = calls.admin().sstManagerCreate(maxAllowedSpace, deleteRateBytesPerSecond);
        return adopt(h, calls.admin()::sstManagerClose, x -> new SstFileManager(calls, x, maxAllowedSpace, deleteRateBytesPerSecond));
    }

    /** @return the space the files may take, 0 for no limit */
    public long maxAllowedSpace() {
        return maxAllowedSpace;
    }

    /** @return the delete rate in bytes per second, 0 for at once */
    public long deleteRateBytesPerSecond() {
        return deleteRate;
    }

    /**
     * Bytes of the table and blob files the manager tracks (of every store that uses it).
     *
     * @return bytes
     * @throws IllegalStateException when closed
     */
    public long totalSize() {
        return state()[0];
    }

    /**
     * Whether the files reached {@link #maxAllowedSpace()}.
     *
     * @return true when they did
     * @throws IllegalStateException when closed
     */
    public boolean isMaxAllowedSpaceReached() {
        return state()[1] != 0;
    }

    /**
     * Open stores that hold this manager.
     *
     * @return how many
     * @throws IllegalStateException when closed
     */
    public int openStores() {
        return (int) state()[2];
    }

    /** @return whether {@link #close()} has released the manager */
    public boolean isClosed() {
        return closedNow();
    }

    /**
     * Releases the manager. Idempotent.
     *
     * @throws FerryException.Busy while open stores hold it (the message counts them); it stays open
     */
    @Override
    public void close() {
        closeShared();
    }

    @Override
    public String toString() {
        return "SstFileManager[max " + maxAllowedSpace + " B, delete " + deleteRate + " B/s" + (closedNow() ? ", closed" : "") + "]";
    }
}
