package dev.ferry.kafka;

import dev.ferry.BlockCache;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBufferManager;
import java.util.HashMap;
import java.util.Map;

/**
 * One memory budget shared by every Ferry RocksDB store of a Kafka Streams application in this process
 * ({@link FerryStoreConfig#ROCKSDB_MEMORY_TOTAL_BYTES}): one {@link BlockCache} of the total capacity and
 * one {@link WriteBufferManager} of the memtable share charged to it (stalling writes with
 * {@link FerryStoreConfig#ROCKSDB_MEMORY_WRITE_STALL}), as Kafka's bounded-memory recipe
 * builds for its built-in store with a {@code RocksDBConfigSetter}. Budgets are kept in a process-wide
 * registry keyed by {@code application.id} and the settings, counted per store, and closed when the
 * last store that uses one closes.
 *
 * <p>Thread safety: thread-safe (stream threads open and close stores concurrently).
 */
final class FerryMemoryBudget {
    private static final Map<String, FerryMemoryBudget> BUDGETS = new HashMap<>();

    private final String key;
    final BlockCache cache;
    final WriteBufferManager wbm;
    private int stores;

    private FerryMemoryBudget(String key, BlockCache cache, WriteBufferManager wbm) {
        this.key = key;
        this.cache = cache;
        this.wbm = wbm;
    }

    /**
     * Takes a hold on the application's budget, creating it for the first store.
     *
     * @param applicationId the application's id
     * @param configs the application's configuration
     * @return the budget, or null when none is configured
     */
    static FerryMemoryBudget acquire(String applicationId, Map<String, Object> configs) {
        FerryStoreConfig.Budget b = FerryStoreConfig.budget(configs);
        if (b == null) {
            return null;
        }
        long total = b.totalBytes();
        String key = applicationId + "|" + total + "|" + b.memtableFraction() + "|" + b.indexFilterFraction() + "|" + b.writeStall();
        synchronized (BUDGETS) {
            FerryMemoryBudget budget = BUDGETS.get(key);
            if (budget == null) {
                BlockCache cache = BlockCache.builder(total).highPriorityPoolRatio(b.indexFilterFraction()).build();
                WriteBufferManager wbm;
                try {
                    wbm = WriteBufferManager.create(Math.max(1, (long) (total * b.memtableFraction())), cache, b.writeStall());
                } catch (RuntimeException e) {
                    cache.close();
                    throw e;
                }
                budget = new FerryMemoryBudget(key, cache, wbm);
                BUDGETS.put(key, budget);
            }
            budget.stores++;
            return budget;
        }
    }

    /** Makes a store's options use this budget. */
    void apply(StoreOptions o) {
        o.blockCache(cache).writeBufferManager(wbm).cacheIndexAndFilterBlocks(true);
    }

    /** Drops a store's hold (after the store closed); the last one closes the budget. */
    void release() {
        synchronized (BUDGETS) {
            if (--stores > 0) {
                return;
            }
            BUDGETS.remove(key);
            wbm.close();
            cache.close();
        }
    }

    /** @return the budgets open in this process (tests) */
    static int openBudgets() {
        synchronized (BUDGETS) {
            return BUDGETS.size();
        }
    }

    @Override
    public String toString() {
        return "FerryMemoryBudget[" + key + ", " + stores + " stores]";
    }
}
