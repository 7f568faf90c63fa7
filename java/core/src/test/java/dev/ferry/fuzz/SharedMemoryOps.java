package dev.ferry.fuzz;

import dev.ferry.BlockCache;
import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBufferManager;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The shared memory objects, {@link BlockCache} and {@link WriteBufferManager}: a life cycle with its
 * answers checked (what was asked is what the getters say, a store holding them counts, closing one
 * in use is refused and leaves it usable, everything after close throws), and one cache per fuzz
 * world that every fuzz thread opens stores with, reads and closes at random, so closes race opens.

 * On LMDB the options refuse them. ({@code StoreOps.optionsMisuse} passes bad sizes and ratios and closed
 * objects.)
 *
 * <p>Thread safety: both classes are thread-safe; the per-world cache is shared on purpose.
 */
final class SharedMemoryOps {
    /** The cache all fuzz threads of one world share (replaced once closed). */
    private static final Map<World, BlockCache> SHARED = Collections.synchronizedMap(new WeakHashMap<>());

    private SharedMemoryOps() {
    }

    static void register(MisuseFuzz f, OpTable t) {
        t.add("sharedMemoryLife", 2, SharedMemoryOps::life, false);
        t.add("sharedCacheRace", 2, SharedMemoryOps::race, false);
    }

    private static void life(Ctx c) {
        long cap = (1L << 20) * (1 + c.rnd.nextInt(8));
        boolean strict = c.rnd.nextBoolean();
        BlockCache[] k = new BlockCache[1];
        if (!c.call("BlockCache.builder(" + cap + ").strictCapacityLimit(" + strict + ")", () -> k[0] = BlockCache.builder(cap)
                .strictCapacityLimit(strict).binding(c.world.binding).build())) {
            return;
        }
        BlockCache cache = k[0];
        c.call("BlockCache getters", () -> {
            if (cache.capacity() != cap || cache.strictCapacityLimit() != strict || cache.isClosed() || cache.openStores() != 0
                    || cache.usage() < 0 || cache.pinnedUsage() < 0 || !(cache.highPriorityPoolRatio() >= 0)) {
                c.wrong("BlockCache getters", cache + ": capacity " + cache.capacity() + " strict " + cache.strictCapacityLimit()
                        + " closed " + cache.isClosed() + " stores " + cache.openStores() + " usage " + cache.usage()
                        + " ratio " + cache.highPriorityPoolRatio() + " (asked " + cap + ", " + strict + ")");
            }
        });
        long size = (1L << 20) * (1 + c.rnd.nextInt(4));
        boolean stall = c.rnd.nextBoolean();
        WriteBufferManager[] w = new WriteBufferManager[1];
        if (c.oneIn(3)) {
            // the no-binding form: the default binding's manager, charged to nothing
            c.call("WriteBufferManager.create(" + size + ", null, " + stall + ")", () -> {
                try (WriteBufferManager m = WriteBufferManager.create(size, null, stall)) {
                    if (m.cache() != null || m.bufferSize() != size || m.allowStall() != stall) {
                        c.wrong("WriteBufferManager getters", m + " answers another size, cache or stall");
                    }
                }
            });
        }
        boolean haveWbm = c.call("WriteBufferManager.create(" + size + ", cache, " + stall + ")",
                () -> w[0] = WriteBufferManager.create(size, cache, stall, c.world.binding));
        WriteBufferManager wbm = w[0];
        if (haveWbm) {
            c.call("WriteBufferManager getters", () -> {
                if (wbm.bufferSize() != size || wbm.cache() != cache || wbm.allowStall() != stall || wbm.isClosed()
                        || wbm.openStores() != 0 || wbm.memoryUsage() < 0) {
                    c.wrong("WriteBufferManager getters", wbm + ": size " + wbm.bufferSize() + " stall " + wbm.allowStall()
                            + " stores " + wbm.openStores() + " (asked " + size + ", " + stall + ")");
                }
            });
            c.mustThrow("closing a cache a write buffer manager charges to");
            c.call("BlockCache.close while a manager charges to it", cache::close);
        }
        StoreOptions o = StoreOptions.of(c.world.engine).binding(c.world.binding);
        if (c.world.engine == Engine.LMDB) {
            c.mustThrow("StoreOptions.lmdb().blockCache");
            c.call("StoreOptions.lmdb().blockCache(cache)", () -> o.blockCache(cache));
            if (wbm != null) {
                c.mustThrow("StoreOptions.lmdb().writeBufferManager");
                c.call("StoreOptions.lmdb().writeBufferManager(wbm)", () -> o.writeBufferManager(wbm));
            }
        } else {
            o.blockCache(cache);
            if (wbm != null) {
                o.writeBufferManager(wbm);
            }
            if (o.blockCache() != cache || o.writeBufferManager() != wbm) {
                c.wrong("StoreOptions.blockCache()/writeBufferManager()", "the options answer other objects than were set");
            }
        }
        Path dir = c.world.root.resolve("shared-life-" + c.world.nextId());
        Store[] st = new Store[1];
        if (c.world.engine == Engine.ROCKSDB && c.call("Store.open(" + dir.getFileName() + ", shared cache" + (wbm != null ? " and manager)" : ")"),
                () -> st[0] = Store.open(dir, o))) {
            Store s = st[0];
            byte[] key = "shared".getBytes(StandardCharsets.UTF_8);
            byte[] val = c.rnd.nextBoolean() ? new byte[1 + c.rnd.nextInt(300)] : new byte[] {7};
            c.call("put/get on a shared-cache store", () -> {
                s.put(key, val);
                if (!Arrays.equals(s.get(key), val)) {
                    c.wrong("get on a shared-cache store", "the value just put came back different");
                }
                if (cache.openStores() != 1 || (wbm != null && wbm.openStores() != 1)) {
                    c.wrong("openStores", "one open store, counted " + cache.openStores() + (wbm != null ? "/" + wbm.openStores() : ""));
                }
            });
            c.mustThrow("closing a cache an open store holds");
            c.call("BlockCache.close while a store holds it", cache::close);
            if (wbm != null) {
                c.mustThrow("closing a write buffer manager an open store holds");
                c.call("WriteBufferManager.close while a store holds it", wbm::close);
            }
            c.call("Store.close", s::close);
            c.call("openStores after the store closed", () -> {
                if (cache.openStores() != 0 || (wbm != null && wbm.openStores() != 0)) {
                    c.wrong("openStores", "the store closed, counted " + cache.openStores());
                }
            });
        }
        if (wbm != null) {
            c.call("WriteBufferManager.close", wbm::close);
            c.call("WriteBufferManager.close again", wbm::close);
            c.closed("write buffer manager").call("WriteBufferManager.memoryUsage after close", wbm::memoryUsage);
            c.closed("write buffer manager").call("WriteBufferManager.openStores after close", wbm::openStores);
            if (!wbm.isClosed()) {
                c.wrong("WriteBufferManager.isClosed", "false after close");
            }
        }
        c.call("BlockCache.close", cache::close);
        c.closed("block cache").call("BlockCache.usage after close", cache::usage);
        c.closed("block cache").call("BlockCache.pinnedUsage after close", cache::pinnedUsage);
        c.closed("block cache").call("BlockCache.openStores after close", cache::openStores);
        if (!cache.isClosed()) {
            c.wrong("BlockCache.isClosed", "false after close");
        }
        if (c.world.engine == Engine.ROCKSDB) {
            c.closed("block cache").call("Store.open with a closed cache", () -> Store.open(
                    c.world.root.resolve("shared-closed-" + c.world.nextId()),
                    StoreOptions.of(Engine.ROCKSDB).binding(c.world.binding).blockCache(cache)).close());
        }
    }

    /** Any thread: open a store on the world's cache, read it, or close it, racing the others. */
    private static void race(Ctx c) {
        BlockCache cache;
        synchronized (SHARED) {
            cache = SHARED.get(c.world);
            if (cache == null || cache.isClosed()) {
                BlockCache[] k = new BlockCache[1];
                if (!c.call("BlockCache.lru(4M) shared", () -> k[0] = c.oneIn(4)
                        ? BlockCache.lru(4 << 20) : BlockCache.builder(4 << 20).binding(c.world.binding).build())) {
                    return;
                }
                cache = k[0];
                SHARED.put(c.world, cache);
            }
        }
        BlockCache k = cache;
        switch (c.rnd.nextInt(3)) {
            case 0 -> c.call("shared BlockCache.usage/openStores", () -> {
                if (k.usage() < 0 || k.openStores() < 0) {
                    c.wrong("BlockCache.usage", "negative");
                }
            });
            case 1 -> c.call("shared BlockCache.close (may be busy)", k::close);
            default -> {
                if (c.world.engine == Engine.LMDB) {
                    c.mustThrow("an LMDB store opened with a block cache");
                }
                c.call("Store.open with the shared cache, put, close", () -> {
                    try (Store s = Store.open(c.world.root.resolve("shared-race-" + c.world.nextId()),
                            StoreOptions.of(c.world.engine).binding(c.world.binding).blockCache(k))) {
                        s.put(new byte[] {1}, new byte[] {2});
                        if (k.openStores() < 1) {
                            c.wrong("BlockCache.openStores", "0 while a store holding it is open");
                        }
                    }
                });
            }
        }
    }
}
