package dev.ferry;

import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import dev.ferry.internal.NativeCalls;

/**
 * A RocksDB LRU block cache that any number of RocksDB stores share, so that one capacity bounds the
 * table blocks they all read (and, through a {@link WriteBufferManager} charged to it, their memtables
 * too). Attach it with {@link StoreOptions#blockCache(BlockCache)}; put index and filter blocks in it
 * with {@link StoreOptions#cacheIndexAndFilterBlocks(boolean)} (they then go to its high-priority pool).
 *
 * <pre>{@code
 * try (BlockCache cache = BlockCache.builder(512L << 20).highPriorityPoolRatio(0.1).build();
 *      WriteBufferManager wbm = WriteBufferManager.create(128L << 20, cache, false);
 *      Store a = Store.open(dirA, StoreOptions.rocksdb().blockCache(cache).writeBufferManager(wbm));
 *      Store b = Store.open(dirB, StoreOptions.rocksdb().blockCache(cache).writeBufferManager(wbm))) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Lifetime: explicit and counted. An open store holds the cache until the store closes, and so does
 * an open write buffer manager charged to it; {@link #close()} while any holds it throws
 * {@link FerryException.Busy} naming how many, and leaves the cache open. LMDB has no block cache: an
 * LMDB store takes none ({@link StoreOptions#blockCache(BlockCache)} refuses LMDB options).
 *
 * <p>Thread safety: thread-safe; every method may be called from any thread.
 */
public final class BlockCache extends SharedNative implements AutoCloseable {
    private final long capacity;
    private final boolean strict;
    private final double highPriorityPoolRatio;

    private BlockCache(NativeCalls calls, long handle, long capacity, boolean strict, double ratio) {
        super(handle, calls.admin()::cacheUsage, calls.admin()::cacheClose);
        this.capacity = capacity;
        this.strict = strict;
        this.highPriorityPoolRatio = ratio;
    }

    /**
     * Starts a cache of the given capacity.
     *
     * @param capacityBytes the capacity in bytes, at least 1
     * @return a builder
     * @throws IllegalArgumentException when the capacity is not positive
     */
    public static Builder builder(long capacityBytes) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("block cache capacity must be positive, got " + capacityBytes);
        }
        return new Builder(capacityBytes);
    }

    /**
     * A cache with RocksDB's defaults (no strict limit, half the capacity for high-priority blocks).
     *
     * @param capacityBytes the capacity in bytes, at least 1
     * @return the cache
     */
    public static BlockCache lru(long capacityBytes) {
        return builder(capacityBytes).build();
    }

    /** Settings of a new {@link BlockCache}. Not thread-safe. */
    public static final class Builder {
        private final long capacity;
        private boolean strict;
        private double ratio = -1;
        private String binding;

        private Builder(long capacity) {
            this.capacity = capacity;
        }

        /**
         * Whether the cache refuses inserts beyond its capacity (reads then go uncached) instead of
         * growing past it (RocksDB's {@code strict_capacity_limit}; default false).
         *
         * @param v on or off
         * @return this
         */
        public Builder strictCapacityLimit(boolean v) {
            this.strict = v;
            return this;
        }

        /**
         * Share of the capacity reserved for high-priority blocks: index and filter blocks of stores
         * opened with {@link StoreOptions#cacheIndexAndFilterBlocks(boolean)} (default: RocksDB's, 0.5).
         *
         * @param ratio 0.0 to 1.0
         * @return this
         * @throws IllegalArgumentException outside 0..1
         */
        public Builder highPriorityPoolRatio(double ratio) {
            if (!(ratio >= 0.0 && ratio <= 1.0)) {
                throw new IllegalArgumentException("highPriorityPoolRatio must be in 0..1, got " + ratio);
            }
            this.ratio = ratio;
            return this;
        }

        /**
         * The binding to call through ("jni" or "ffm"; default: the process default).
         *
         * @param name the binding
         * @return this
         */
        public Builder binding(String name) {
            this.binding = name;
            return this;
        }

        /**
         * Creates the cache.
         *
         * @return the cache; close it after the stores that use it
         * @throws FerryException.EngineLoad when rocksdbjni is missing
         * @throws FerryException.NotSupported when the RocksDB library cannot set the high-priority ratio
         */
        public BlockCache build() {
            NativeCalls calls = new NativeCalls(binding == null ? Bindings.defaultBinding() : Bindings.byName(binding));
            Engines.attach(calls, Engine.ROCKSDB);
            long ppm = ratio < 0 ? -1 : Math.round(ratio * 1_000_000);
            long h = calls.admin().cacheCreate(capacity, strict, ppm);
            double r = ratio < 0 ? 0.5 : ratio;
            return adopt(h, calls.admin()::cacheClose, x -> new BlockCache(calls, x, capacity, strict, r));
        }
    }

    /** @return the capacity in bytes */
    public long capacity() {
        return capacity;
    }

    /** @return whether the capacity is a strict limit */
    public boolean strictCapacityLimit() {
        return strict;
    }

    /** @return the share of the capacity for high-priority blocks */
    public double highPriorityPoolRatio() {
        return highPriorityPoolRatio;
    }

    /**
     * Bytes in the cache: blocks, plus the memtables that write buffer managers charge to it.
     *
     * @return bytes in use
     * @throws IllegalStateException when closed
     */
    public long usage() {
        return state()[0];
    }

    /**
     * Bytes of entries in use (pinned) by readers and stores.
     *
     * @return pinned bytes
     * @throws IllegalStateException when closed
     */
    public long pinnedUsage() {
        return state()[1];
    }

    /**
     * Open stores that hold this cache.
     *
     * @return how many
     * @throws IllegalStateException when closed
     */
    public int openStores() {
        return (int) state()[2];
    }

    /** @return whether {@link #close()} has released the cache */
    public boolean isClosed() {
        return closedNow();
    }

    /**
     * Releases the cache. Idempotent.
     *
     * @throws FerryException.Busy while open stores or write buffer managers hold it (the message counts
     *         them); the cache stays open
     */
    @Override
    public void close() {
        closeShared();
    }

    @Override
    public String toString() {
        return "BlockCache[" + capacity + " bytes" + (strict ? ", strict" : "") + ", high-priority "
                + highPriorityPoolRatio + (closedNow() ? ", closed" : "") + "]";
    }
}
