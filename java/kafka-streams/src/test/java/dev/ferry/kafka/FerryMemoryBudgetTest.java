package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.BlockCache;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One memory budget per application for all its Ferry RocksDB stores ({@code ferry.rocksdb.memory.*}). */
class FerryMemoryBudgetTest {
    @TempDir
    Path tmp;

    private FerryKeyValueStore open(String name, TestContext ctx) {
        FerryKeyValueStore s = (FerryKeyValueStore) FerryStores.persistentKeyValueStore(name).get();
        s.init(ctx, s);
        return s;
    }

    private TestContext ctx(String task) {
        TestContext c = new TestContext(tmp.resolve(task).toFile());
        c.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_TOTAL_BYTES, 64L << 20);
        c.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_MEMTABLE_FRACTION, "0.25");
        return c;
    }

    @Test
    void everyRocksDbStoreOfTheApplicationSharesOneBudgetClosedWithTheLastStore() {
        int before = FerryMemoryBudget.openBudgets();
        List<FerryKeyValueStore> stores = new ArrayList<>();
        for (int task = 0; task < 3; task++) {
            TestContext c = ctx("task" + task);
            for (String name : List.of("a", "b")) {
                stores.add(open(name, c));
            }
        }
        assertEquals(before + 1, FerryMemoryBudget.openBudgets());
        FerryMemoryBudget budget = stores.get(0).budget();
        BlockCache cache = budget.cache;
        for (FerryKeyValueStore s : stores) {
            assertSame(budget, s.budget());
            for (int i = 0; i < 200; i++) {
                s.put(Bytes.wrap(("k" + i).getBytes(StandardCharsets.UTF_8)), new byte[64]);
            }
        }
        assertEquals(64L << 20, cache.capacity());
        assertEquals(6, cache.openStores());
        assertEquals(16L << 20, budget.wbm.bufferSize());
        assertTrue(budget.wbm.memoryUsage() > 0);
        for (FerryKeyValueStore s : stores) {
            s.close();
        }
        assertEquals(before, FerryMemoryBudget.openBudgets());
        assertTrue(cache.isClosed());
        assertTrue(budget.wbm.isClosed());
    }

    @Test
    void withoutTheKeyEachStoreHasItsOwnCacheAndBadValuesAreConfigErrors() {
        try (FerryKeyValueStore s = open("plain", new TestContext(tmp.resolve("plain").toFile()))) {
            assertNull(s.budget());
        }
        TestContext both = ctx("both");
        both.configs.put(FerryStoreConfig.ROCKSDB_BLOCK_CACHE_BYTES, 1L << 20);
        assertThrows(ConfigException.class, () -> open("x", both));
        for (Object bad : List.of("0", "1", "-0.5", "half")) {
            TestContext c = ctx("bad");
            c.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_MEMTABLE_FRACTION, bad);
            assertThrows(ConfigException.class, () -> open("x", c), String.valueOf(bad));
        }
        TestContext zero = ctx("zero");
        zero.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_TOTAL_BYTES, "0");
        assertThrows(ConfigException.class, () -> open("x", zero));
    }

    @Test
    void lmdbStoresIgnoreTheBudget() {
        TestContext c = ctx("lmdb");
        c.configs.put(FerryStoreConfig.LMDB_MAP_SIZE_BYTES, 32L << 20);
        try (FerryKeyValueStore s = (FerryKeyValueStore) FerryStores.lmdbKeyValueStore("l").get()) {
            s.init(c, s);
            assertNull(s.budget());
        }
    }
}
