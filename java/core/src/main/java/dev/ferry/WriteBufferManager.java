package dev.ferry;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;

/**
 * A RocksDB write buffer manager that any number of RocksDB stores share: once the memtables of all
 * the stores that use it reach its buffer size, RocksDB flushes the largest. Charged to a
 * {@link BlockCache}, it also counts those memtables in the cache's usage, so that the cache's capacity
 * bounds table blocks and memtables together (Kafka Streams' "bounded memory" recipe). Attach it with
 * {@link StoreOptions#writeBufferManager(WriteBufferManager)}.
 *
 * <p>RocksDB's C API has it from RocksDB 8.10 on: with an older rocksdbjni (7.9.2 is supported)
 * {@link #create} throws {@link FerryException.NotSupported} naming the version.
 *
 * <p>Lifetime: explicit and counted. An open store holds the manager until the store closes;
 * {@link #close()} while any holds it throws {@link FerryException.Busy} naming how many. The manager
 * holds its cache until the manager closes.
 *
 * <p>Thread safety: thread-safe.
 */
public final class WriteBufferManager extends SharedNative implements AutoCloseable {
    private final long bufferSize;
    private final BlockCache cache;
    private final boolean allowStall;

    private WriteBufferManager(NativeCalls calls, long handle, long bufferSize, BlockCache cache, boolean allowStall) {
        super(handle, calls.admin()::wbmUsage, calls.admin()::wbmClose);
        this.bufferSize = bufferSize;
        this.cache = cache;
        this.allowStall = allowStall;
    }

    /**
     * Creates a manager.
     *
     * @param bufferSizeBytes memtable bytes of all its stores together before RocksDB flushes, at least 1
     * @param chargeTo the cache to count the memtables in, or null (then they are only limited)
     * @param allowStall whether writes stall while the memtables exceed the buffer size (instead of
     *        only flushing)
     * @return the manager; close it after the stores that use it, and before its cache
     * @throws IllegalArgumentException when the size is not positive
     * @throws IllegalStateException when the cache is closed
     * @throws FerryException.NotSupported with a RocksDB older than 8.10 (rocksdbjni 7.9.2)
     */
    public static WriteBufferManager create(long bufferSizeBytes, BlockCache chargeTo, boolean allowStall) {
        return create(bufferSizeBytes, chargeTo, allowStall, null);
    }

    /**
     * Creates a manager through a given binding.
     *
     * @param bufferSizeBytes as {@link #create(long, BlockCache, boolean)}
     * @param chargeTo as {@link #create(long, BlockCache, boolean)}
     * @param allowStall as {@link #create(long, BlockCache, boolean)}
     * @param binding "jni", "ffm" or null (the process default)
     * @return the manager
     */
    public static WriteBufferManager create(long bufferSizeBytes, BlockCache chargeTo, boolean allowStall,
            String binding) {
        if (bufferSizeBytes <= 0) {
            throw new IllegalArgumentException("write buffer size must be positive, got " + bufferSizeBytes);
        }
        NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
        Engines.attach(calls, Engine.ROCKSDB);
        long h = Stores.holding(chargeTo, null, (ch, unused) -> {
            try {
                return calls.admin().wbmCreate(ch, bufferSizeBytes, allowStall);
            } catch (FerryException.NotSupported e) {
                throw FerryException.of(ErrorCode.NOT_SUPPORTED, e.engineCode(), e.getMessage()
                        + " (this process runs RocksDB " + rocksdbVersion() + ")");
            }
        });
        return adopt(h, calls.admin()::wbmClose, x -> new WriteBufferManager(calls, x, bufferSizeBytes, chargeTo, allowStall));
    }

    private static String rocksdbVersion() {
        try {
            return String.valueOf(org.rocksdb.RocksDB.rocksdbVersion());
        } catch (LinkageError | RuntimeException e) {
            return "of unknown version";
        }
    }

    /** @return the buffer size in bytes */
    public long bufferSize() {
        return bufferSize;
    }

    /** @return the cache the memtables are charged to, or null */
    public BlockCache cache() {
        return cache;
    }

    /** @return whether writes stall over the buffer size */
    public boolean allowStall() {
        return allowStall;
    }

    /**
     * Memtable bytes of the stores that use it.
     *
     * @return bytes
     * @throws IllegalStateException when closed
     */
    public long memoryUsage() {
        return state()[0];
    }

    /**
     * Open stores that hold this manager.
     *
     * @return how many
     * @throws IllegalStateException when closed
     */
    public int openStores() {
        return (int) state()[1];
    }

    /** @return whether {@link #close()} has released it */
    public boolean isClosed() {
        return closedNow();
    }

    /**
     * Releases the manager and its hold on its cache. Idempotent.
     *
     * @throws FerryException.Busy while open stores hold it (the message counts them); it stays open
     */
    @Override
    public void close() {
        closeShared();
    }

    @Override
    public String toString() {
        return "WriteBufferManager[" + bufferSize + " bytes" + (cache != null ? ", charged to " + cache : "")
                + (allowStall ? ", stalls" : "") + (closedNow() ? ", closed" : "") + "]";
    }
}
