package dev.ferry.kafka;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Kafka's bounded-memory recipe for its built-in RocksDB store (Kafka's docs, "Managing RocksDB memory";
 * docs/kafka-streams.md "Bounded memory"), written here for the tests and the benchmarks' KafkaMemoryBench:
 * one LRU cache of {@code kafka.recipe.total.bytes} (system property, default 64 MiB) with a 0.1
 * high-priority pool, a write buffer manager of half of it charged to the cache, index and filter blocks in
 * the cache with high priority. Shared by every store of the process and never closed, as in the recipe.
 */
public final class KafkaBoundedMemoryRecipe implements RocksDBConfigSetter {
    /** The cache's capacity in bytes. */
    public static final long TOTAL = Long.getLong("kafka.recipe.total.bytes", 64L << 20);
    static final Cache CACHE = new LRUCache(TOTAL, -1, false, 0.1);
    static final WriteBufferManager WBM = new WriteBufferManager(TOTAL / 2, CACHE);

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        BlockBasedTableConfig t = (BlockBasedTableConfig) options.tableFormatConfig();
        t.setBlockCache(CACHE);
        t.setCacheIndexAndFilterBlocks(true);
        t.setCacheIndexAndFilterBlocksWithHighPriority(true);
        t.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(WBM);
        options.setTableFormatConfig(t);
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache and the manager are shared by every store: not closed here
    }
}
