package dev.ferry.kafka;

import dev.ferry.BlockCache;
import dev.ferry.FerryException;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBufferManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One memory budget shared by every Ferry RocksDB store of a Kafka Streams application in this process
 * ({@link FerryStoreConfig#ROCKSDB_MEMORY_TOTAL_BYTES}): one {@link BlockCache} of the total capacity and
 * one {@link WriteBufferManager} of the memtable share charged to it (stalling writes with
 * {@link FerryStoreConfig#ROCKSDB_MEMORY_WRITE_STALL}), as Kafka's bounded-memory recipe
 * builds for its built-in store with a {@code RocksDBConfigSetter}. Budgets are kept in a process-wide
 * registry keyed by {@code application.id} and the settings, counted per store, and closed when the
 * last store that uses one closes.
 *
 * <p>A closed store can still hold the cache and the manager natively: a cursor that another thread
 * owns keeps the store's engine open until that thread next uses the cursor, closes it or drops it
 * (dev.ferry.Store#close), and until then closing the manager or the cache throws
 * {@link FerryException.Busy}. The budget then stays in the registry, with no store counted, and is
 * closed once its last native holder is gone: when such an iterator is closed or next used
 * ({@link #closePending()}), at the next acquire or release of any budget, and by a daemon retry every
 * {@link #RETRY_MILLIS} ms meanwhile. A store that opens in the meantime takes the same budget, so an
 * application never has two budgets of the same settings alive at once.
 *
 * <p>Thread safety: thread-safe (stream threads open and close stores concurrently).
 */
final class FerryMemoryBudget {
    /** How often a budget whose close was refused as busy is tried again. */
    static final long RETRY_MILLIS = 1000;
    private static final Map<String, FerryMemoryBudget> BUDGETS = new HashMap<>();
    /** Retries the closes of budgets still held natively; its thread ends when idle. Guarded by BUDGETS. */
    private static ScheduledThreadPoolExecutor retries;
    /** A retry is scheduled. Guarded by BUDGETS. */
    private static boolean retryScheduled;

    private final String key;
    final BlockCache cache;
    /** The manager; replaced only if it closed while the cache stayed busy. Written under BUDGETS. */
    volatile WriteBufferManager wbm;
    /** Open stores counted on this budget. Guarded by BUDGETS. */
    private int stores;

    private FerryMemoryBudget(String key, BlockCache cache, WriteBufferManager wbm) {
        this.key = key;
        this.cache = cache;
        this.wbm = wbm;
    }

    /**
     * Takes a hold on the application's budget, creating it for the first store (or reusing the one
     * whose close waits for its native holders).
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
            closePendingLocked();
            FerryMemoryBudget budget = BUDGETS.get(key);
            if (budget == null) {
                BlockCache cache = BlockCache.builder(total).highPriorityPoolRatio(b.indexFilterFraction()).build();
                WriteBufferManager wbm;
                try {
                    wbm = newManager(b, cache);
                } catch (RuntimeException e) {
                    cache.close();
                    throw e;
                }
                budget = new FerryMemoryBudget(key, cache, wbm);
                BUDGETS.put(key, budget);
            } else if (budget.wbm.isClosed()) { // its close freed the manager, the cache was still held
                budget.wbm = newManager(b, budget.cache);
            }
            budget.stores++;
            return budget;
        }
    }

    private static WriteBufferManager newManager(FerryStoreConfig.Budget b, BlockCache cache) {
        return WriteBufferManager.create(Math.max(1, (long) (b.totalBytes() * b.memtableFraction())), cache, b.writeStall());
    }

    /** Makes a store's options use this budget. */
    void apply(StoreOptions o) {
        o.blockCache(cache).writeBufferManager(wbm).cacheIndexAndFilterBlocks(true);
    }

    /**
     * Drops a store's hold (after the store closed, or failed to); the last one closes the budget, at
     * once or, while a closed store's engine still holds it, later (see the class comment). Never throws.
     */
    void release() {
        synchronized (BUDGETS) {
            if (stores > 0) {
                stores--;
            }
            closePendingLocked();
        }
    }

    /**
     * Closes the budgets that no store counts any more and that nothing holds natively now. Called
     * when something that may have held one lets go (an iterator of a closed store), and by the retry.
     */
    static void closePending() {
        synchronized (BUDGETS) {
            closePendingLocked();
        }
    }

    private static void closePendingLocked() {
        boolean busy = false;
        for (FerryMemoryBudget b : new ArrayList<>(BUDGETS.values())) {
            if (b.stores == 0 && !b.tryClose()) {
                busy = true;
            }
        }
        if (busy && !retryScheduled) {
            if (retries == null) {
                retries = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "ferry-memory-budget-close");
                    t.setDaemon(true);
                    return t;
                });
                retries.setKeepAliveTime(RETRY_MILLIS * 5, TimeUnit.MILLISECONDS);
                retries.allowCoreThreadTimeOut(true);
            }
            retryScheduled = true;
            retries.schedule(FerryMemoryBudget::retry, RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private static void retry() {
        synchronized (BUDGETS) {
            retryScheduled = false;
            closePendingLocked();
        }
    }

    /** Closes the manager, then the cache; false (the budget stays registered) while either is held. Under BUDGETS. */
    private boolean tryClose() {
        try {
            wbm.close(); // idempotent: done already if only the cache was busy last time
            cache.close();
        } catch (FerryException.Busy e) {
            return false; // a closed store whose engine another thread's cursor keeps open
        }
        BUDGETS.remove(key, this);
        return true;
    }

    /** @return the budgets open in this process, counting those waiting for their native holders (tests) */
    static int openBudgets() {
        synchronized (BUDGETS) {
            return BUDGETS.size();
        }
    }

    /** @return the stores counted on this budget (tests) */
    int stores() {
        synchronized (BUDGETS) {
            return stores;
        }
    }

    @Override
    public String toString() {
        return "FerryMemoryBudget[" + key + ", " + stores + " stores]";
    }
}
