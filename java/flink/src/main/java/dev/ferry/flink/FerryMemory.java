package dev.ferry.flink;

import dev.ferry.BlockCache;
import dev.ferry.WriteBufferManager;

/**
 * The native memory of the RocksDB stores of one slot: a block cache of the slot's memory size, and
 * a write buffer manager charged to it, so that the cache's capacity bounds tables and memtables
 * together, as Flink's RocksDB backend bounds its own. Shared by every keyed backend of the slot
 * through Flink's memory manager, which closes it when the last one releases it.
 *
 * <p>Thread safety: thread-safe (Ferry's cache and manager are).
 */
final class FerryMemory implements AutoCloseable {
    final BlockCache cache;
    final WriteBufferManager writeBuffers;

    FerryMemory(long bytes, double writeBufferRatio, String binding) {
        long size = Math.max(bytes, 1L << 20);
        BlockCache.Builder b = BlockCache.builder(size).highPriorityPoolRatio(0.1);
        if (binding != null) {
            b.binding(binding);
        }
        this.cache = b.build();
        try {
            this.writeBuffers = WriteBufferManager.create(Math.max(1, (long) (size * writeBufferRatio)), cache, false);
        } catch (RuntimeException e) {
            cache.close();
            throw e;
        }
    }

    @Override
    public void close() {
        writeBuffers.close();
        cache.close();
    }
}
