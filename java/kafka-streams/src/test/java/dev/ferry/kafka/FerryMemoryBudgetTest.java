package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.BlockCache;
import dev.ferry.Engine;
import dev.ferry.Store;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
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

    /**
     * The last store closes while another thread holds an iterator of it: the store's close frees
     * that cursor only on its own thread, so the store's engine still holds the cache and the manager.
     * The close does not throw; the budget stays registered (no second one for a store opened
     * meanwhile, which shares it) and closes once the iterator's thread lets the cursor go.
     */
    @Test
    void theLastStoreClosingWhileAnotherThreadHoldsAnIteratorClosesTheBudgetOnceTheIteratorGoes() throws Exception {
        int before = FerryMemoryBudget.openBudgets();
        TestContext c = ctx("held");
        FerryKeyValueStore s = open("a", c);
        for (int i = 0; i < 100; i++) {
            s.put(Bytes.wrap(("k" + i).getBytes(StandardCharsets.UTF_8)), new byte[64]);
        }
        FerryMemoryBudget budget = s.budget();
        BlockCache cache = budget.cache;
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            KeyValueIterator<Bytes, byte[]> it = reader.submit(() -> {
                KeyValueIterator<Bytes, byte[]> i = s.all();
                assertTrue(i.hasNext());
                return i;
            }).get(30, TimeUnit.SECONDS);
            s.close(); // the reader's cursor keeps the engine, and so the budget, held
            assertFalse(s.isOpen());
            assertEquals(0, budget.stores());
            assertEquals(before + 1, FerryMemoryBudget.openBudgets(), "the budget waits for the engine to let go");
            assertFalse(cache.isClosed());
            FerryKeyValueStore t = open("b", c);
            assertSame(budget, t.budget(), "a store opened meanwhile shares the budget: never two at once");
            assertEquals(before + 1, FerryMemoryBudget.openBudgets());
            t.close();
            assertFalse(cache.isClosed(), "still held by the first store's engine");
            reader.submit(() -> {
                assertThrows(InvalidStateStoreException.class, it::hasNext);
                it.close();
            }).get(30, TimeUnit.SECONDS);
            assertEquals(before, FerryMemoryBudget.openBudgets());
            assertTrue(budget.wbm.isClosed());
            assertTrue(cache.isClosed());
        } finally {
            reader.shutdownNow();
        }
    }

    /** A store whose close fails still lets go of the budget: it closes with the last store. */
    @Test
    void aStoreWhoseCloseFailsStillReleasesTheBudget() {
        int before = FerryMemoryBudget.openBudgets();
        TestContext c = ctx("failing");
        FerryKeyValueStore s = new FerryKeyValueStore("f", Engine.ROCKSDB) {
            @Override
            void closeStore(Store st) {
                super.closeStore(st);
                throw new IllegalStateException("close failed");
            }
        };
        s.init(c, s);
        FerryMemoryBudget budget = s.budget();
        assertEquals(before + 1, FerryMemoryBudget.openBudgets());
        IllegalStateException e = assertThrows(IllegalStateException.class, s::close);
        assertEquals("close failed", e.getMessage());
        assertFalse(s.isOpen());
        assertEquals(before, FerryMemoryBudget.openBudgets(), "released though the close failed");
        assertTrue(budget.cache.isClosed());
        assertTrue(budget.wbm.isClosed());
        s.close(); // idempotent: nothing more to release
    }

    /**
     * {@link FerryStoreConfig#ROCKSDB_MEMORY_WRITE_STALL} = true is refused: a stalling shared write buffer
     * manager stalled one thread writing two stores forever (RocksDB flushes only the store being written; this
     * test's earlier form, which wrote four times the memtable share alternately into two stores, hung in a
     * put under load). false, the default, opens and never stalls.
     */
    @Test
    void writeStallIsRefusedBecauseOneThreadWritingTwoStoresCanStallForever() {
        TestContext c = ctx("stall");
        c.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_TOTAL_BYTES, 16L << 20);
        c.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_WRITE_STALL, "true");
        ConfigException e = assertThrows(ConfigException.class, () -> open("a", c));
        assertTrue(e.getMessage().contains(FerryStoreConfig.ROCKSDB_MEMORY_WRITE_STALL), e.getMessage());
        TestContext off = ctx("no-stall");
        off.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_TOTAL_BYTES, 16L << 20);
        off.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_WRITE_STALL, "false");
        try (FerryKeyValueStore p = open("p", off)) {
            assertFalse(p.budget().wbm.allowStall(), "the default does not stall, as Kafka's recipe");
        }
        TestContext bad = ctx("bad-stall");
        bad.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_WRITE_STALL, "yes");
        assertThrows(ConfigException.class, () -> open("x", bad));
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

    /** The compaction style of the store's data family, from the last RocksDB OPTIONS file it wrote. */
    private String compactionStyle(TestContext ctx, String name) throws java.io.IOException {
        Path dir = ctx.stateDir().toPath().resolve("ferry").resolve(name);
        Path options;
        try (var files = java.nio.file.Files.list(dir)) {
            options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
                    .max(java.util.Comparator.comparing(Path::toString)).orElseThrow();
        }
        String text = java.nio.file.Files.readString(options);
        String data = text.substring(text.indexOf("[CFOptions \"data\"]"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("compaction_style=(\\w+)").matcher(data);
        assertTrue(m.find(), "compaction_style in " + options);
        return m.group(1);
    }

    /**
     * Under the budget the stores compact as the built-in store does (universal compaction: it rewrites
     * less, so the allocator keeps less of what compactions free); the application's options string wins.
     */
    @Test
    void underTheBudgetStoresCompactAsTheBuiltInStoreUnlessTheOptionsStringSaysOtherwise() throws Exception {
        TestContext budget = ctx("universal");
        try (FerryKeyValueStore s = open("u", budget)) {
            assertEquals("kCompactionStyleUniversal", compactionStyle(budget, "u"));
        }
        TestContext level = ctx("level");
        level.configs.put(FerryStoreConfig.ROCKSDB_OPTIONS, "compaction_style=kCompactionStyleLevel;write_buffer_size=1048576");
        try (FerryKeyValueStore s = open("l", level)) {
            assertEquals("kCompactionStyleLevel", compactionStyle(level, "l"));
        }
        TestContext plain = new TestContext(tmp.resolve("plain-style").toFile());
        try (FerryKeyValueStore s = open("p", plain)) {
            assertEquals("kCompactionStyleLevel", compactionStyle(plain, "p"), "without the budget: RocksDB's default");
        }
    }

    /**
     * A store written under the budget (universal compaction) opens without it (level compaction) and
     * again with it, its table files read each time: switching the budget on or off keeps the data.
     */
    @Test
    void aStoreOpensWithAndWithoutTheBudgetAndKeepsItsData() {
        TestContext with = ctx("switch");
        TestContext without = new TestContext(tmp.resolve("switch").toFile());
        int round = 0;
        for (TestContext c : List.of(with, without, with)) {
            round++;
            try (FerryKeyValueStore s = open("s", c)) {
                for (int i = 0; i < 300; i++) {
                    s.put(Bytes.wrap(("r" + round + "-k" + i).getBytes(StandardCharsets.UTF_8)), new byte[500]);
                }
                s.flush(); // to table files
                for (int r = 1; r <= round; r++) {
                    for (int i = 0; i < 300; i += 37) {
                        assertEquals(500, s.get(Bytes.wrap(("r" + r + "-k" + i).getBytes(StandardCharsets.UTF_8))).length,
                                "round " + round + " reads round " + r);
                    }
                }
                assertEquals(300L * round, countAll(s), "every entry of every round");
            }
        }
    }

    private static long countAll(FerryKeyValueStore s) {
        long n = 0;
        try (var it = s.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    /**
     * With a shared cache every store's block cache metrics report the one cache, whole (Kafka's
     * recorder reads a cache its segments share once, and knows nothing of other stores): the built-in
     * stores with Kafka's recipe and Ferry's stores with the budget alike. A dashboard summing
     * {@code block-cache-usage} over stores counts the shared cache once per store, on both.
     */
    @Test
    void withTheBudgetEveryStoreReportsTheSharedCacheAsBuiltInStoresWithKafkasRecipeDo() {
        List<AutoCloseable> open = new ArrayList<>();
        List<StreamsMetricsImpl> ferryMetrics = new ArrayList<>();
        List<StreamsMetricsImpl> builtInMetrics = new ArrayList<>();
        try {
            for (int task = 0; task < 2; task++) {
                TestContext f = ctx("ferry" + task);
                FerryKeyValueStore kv = open("kv", f);
                open.add(kv);
                for (int i = 0; i < 100; i++) {
                    kv.put(Bytes.wrap(("k" + i).getBytes(StandardCharsets.UTF_8)), new byte[64]);
                }
                ferryMetrics.add((StreamsMetricsImpl) f.metrics());
                TestContext b = new TestContext(tmp.resolve("builtin" + task).toFile());
                b.configs.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, KafkaBoundedMemoryRecipe.class);
                @SuppressWarnings("unchecked")
                KeyValueStore<Bytes, byte[]> s = (KeyValueStore<Bytes, byte[]>) Stores.persistentKeyValueStore("kv").get();
                s.init(b, s);
                open.add(s::close);
                builtInMetrics.add((StreamsMetricsImpl) b.metrics());
            }
            BlockCache cache = ((FerryKeyValueStore) open.get(0)).budget().cache;
            for (int i = 0; i < 2; i++) {
                Map<String, Object> ferry = FerryStoreMetricsTest.values(ferryMetrics.get(i).metrics(), "kv");
                Map<String, Object> builtIn = FerryStoreMetricsTest.values(builtInMetrics.get(i).metrics(), "kv");
                assertEquals(BigInteger.valueOf(KafkaBoundedMemoryRecipe.TOTAL), builtIn.get("block-cache-capacity"), "built-in store " + i);
                assertEquals(BigInteger.valueOf(cache.capacity()), ferry.get("block-cache-capacity"), "Ferry store " + i);
                // nothing writes between the two reads: the memtables the manager charges, the same on both stores
                long usage = cache.usage();
                assertTrue(usage > 0, "the write buffer manager charges the memtables to the cache");
                assertEquals(BigInteger.valueOf(usage), ferry.get("block-cache-usage"), "Ferry store " + i + " reports the shared cache");
            }
        } finally {
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }
        }
    }
}
