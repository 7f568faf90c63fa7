package dev.ferry.kafka;

import dev.ferry.Compression;
import dev.ferry.Engine;
import dev.ferry.LmdbFlag;
import dev.ferry.StoreOptions;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The Kafka Streams configuration keys Ferry's state stores read, and the options they open with.
 * Every key is optional; values may be strings (as in a properties file) or numbers. A bad value
 * throws Kafka's {@link ConfigException} when the store opens.
 *
 * <p>Defaults follow Kafka Streams' built-in RocksDB store where it makes a choice: no compression, a
 * bloom filter of 10 bits per key, a 50 MiB block cache. Unlike the built-in store, the write-ahead
 * log stays on (not synced per write): it keeps the entries and the committed changelog offsets
 * the store holds beside them in one order, so a commit needs no flush (its offsets' write is synced). LMDB stores open with a 1 GiB map that grows by
 * 1 GiB when full, and {@link LmdbFlag#NOTLS} so a thread may hold several iterators at once.
 */
public final class FerryStoreConfig {
    /** A class (or its name) implementing {@link FerryStoreOptionsSetter}, applied last. */
    public static final String OPTIONS_SETTER = "ferry.store.options.setter";
    /** RocksDB: block cache size in bytes, per store (default 50 MiB, as Kafka's built-in store). */
    public static final String ROCKSDB_BLOCK_CACHE_BYTES = "ferry.rocksdb.block.cache.bytes";
    /** RocksDB: block compression, one of NONE, SNAPPY, LZ4, ZSTD (default NONE, as Kafka's built-in store). */
    public static final String ROCKSDB_COMPRESSION = "ferry.rocksdb.compression";
    /** RocksDB: bloom filter bits per key, 0 for none (default 10). */
    public static final String ROCKSDB_BLOOM_BITS_PER_KEY = "ferry.rocksdb.bloom.bits.per.key";
    /** RocksDB: any further RocksDB options as a string, {@code "k=v;k2=v2"} ({@link StoreOptions#rocksdbOptions}). */
    public static final String ROCKSDB_OPTIONS = "ferry.rocksdb.options";
    /** LMDB: initial map size in bytes (default 1 GiB). */
    public static final String LMDB_MAP_SIZE_BYTES = "ferry.lmdb.map.size.bytes";
    /** LMDB: growth step in bytes when the map is full, 0 to fail with MapFull instead (default 1 GiB). */
    public static final String LMDB_AUTO_GROW_BYTES = "ferry.lmdb.auto.grow.bytes";
    /**
     * RocksDB: one memory budget in bytes for all the Ferry RocksDB stores of this Kafka Streams application
     * in this process (keyed by {@code application.id}): they share one block cache of this capacity and a
     * write buffer manager charged to it, and hold their index and filter blocks in the cache, so table
     * blocks, memtables, index and filter blocks stay within it; the stores then compact as the built-in
     * store does (universal compaction, unless {@link #ROCKSDB_OPTIONS} sets {@code compaction_style}). Off by
     * default (each store then has its own {@link #ROCKSDB_BLOCK_CACHE_BYTES} cache and memtables); not with
     * {@link #ROCKSDB_BLOCK_CACHE_BYTES}.
     */
    public static final String ROCKSDB_MEMORY_TOTAL_BYTES = "ferry.rocksdb.memory.total.bytes";
    /** RocksDB, with {@link #ROCKSDB_MEMORY_TOTAL_BYTES}: the share of the budget for memtables, above 0 and below 1 (default 0.5). */
    public static final String ROCKSDB_MEMORY_MEMTABLE_FRACTION = "ferry.rocksdb.memory.memtable.fraction";
    /**
     * RocksDB, with {@link #ROCKSDB_MEMORY_TOTAL_BYTES}: the share of the budget's cache kept for index and filter
     * blocks (its high-priority pool), 0 to 1 (default 0.1).
     */
    public static final String ROCKSDB_MEMORY_INDEX_FILTER_FRACTION = "ferry.rocksdb.memory.index.filter.fraction";
    /**
     * RocksDB, with {@link #ROCKSDB_MEMORY_TOTAL_BYTES}: whether the shared write buffer manager stalls writes
     * while the memtables together exceed the memtable share (RocksDB's {@code allow_stall}). Only {@code false}
     * (the default, as Kafka's bounded-memory recipe) is accepted; {@code true} is refused with a
     * {@link ConfigException}: RocksDB ends such a stall only when memory is freed, and it flushes only the store
     * being written, so one stream thread that writes to several stores of one budget (as every Kafka Streams
     * thread does) can stall in one store forever while another store's memtable holds the memory
     * (FerryMemoryBudgetTest hung this way under load). It was also measured to bring no lower peak
     * (docs/kafka-streams.md, "Bounded memory").
     */
    public static final String ROCKSDB_MEMORY_WRITE_STALL = "ferry.rocksdb.memory.write.stall";
    /** The engine of the DSL's stores under {@link FerryDslStoreSuppliers}: {@code rocksdb} (default) or {@code lmdb}. */
    public static final String DSL_ENGINE = "ferry.dsl.engine";
    /**
     * Key-value stores, both engines: how many bytes of restored records (keys, values and about 64
     * bytes each) a store buffers on the heap before it writes them sorted by key in one write;
     * 0 writes each restore batch at once (default 32 MiB on LMDB and on RocksDB with
     * {@link #ROCKSDB_RESTORE_TABLE_FILES}, else 8 MiB; docs/kafka-streams.md "Restoration").
     */
    public static final String RESTORE_BUFFER_BYTES = "ferry.restore.buffer.bytes";
    /**
     * Key-value stores, both engines: the heap the restore buffers ({@link #RESTORE_BUFFER_BYTES}) of all
     * Ferry stores in this JVM may hold together. A store whose restore batch takes the total to this
     * writes its buffer at once, so many stores restoring side by side (a rebalance, a restart) stay
     * within it (plus one batch each). Default: 128 MiB or an eighth of the maximum heap, whichever is
     * smaller; 0 = no bound beyond each store's own.
     */
    public static final String RESTORE_BUFFER_TOTAL_BYTES = "ferry.restore.buffer.total.bytes";
    /**
     * RocksDB key-value stores: write each buffer of restored records ({@link #RESTORE_BUFFER_BYTES})
     * as table files and ingest them (default true), instead of writing it into the memtable without
     * the write-ahead log and flushing before the next commit (false; docs/kafka-streams.md "Restoration").
     */
    public static final String ROCKSDB_RESTORE_TABLE_FILES = "ferry.rocksdb.restore.table.files";
    /**
     * LMDB key-value stores: write each full buffer of restored records ({@link #RESTORE_BUFFER_BYTES})
     * to a file beside the store as a sorted run, and merge the runs into the store in key order when
     * the store is next used (a flush or commit, a read, the end of the restore), so that a restore
     * copies each page of the tree once instead of once per buffer; true (default) or false (each
     * buffer is one write transaction). The runs take about as much disk as the records they hold,
     * until the merge.
     */
    public static final String LMDB_RESTORE_RUNS = "ferry.lmdb.restore.runs";
    /**
     * Key-value, window, session and versioned stores, both engines: when a store opens and finds no Ferry
     * store of its own but Kafka's built-in RocksDB store of the same name in the task's directory
     * ({@code <task>/rocksdb/<name>}; window and session stores: {@code <task>/<name>}), it imports that store's
     * entries and committed changelog offsets, so Kafka Streams restores only what the changelog holds beyond
     * them (default true; docs/kafka-streams.md "Switching from the built-in store").
     * On by default: without it a switch restores every store whole, and a {@code .checkpoint} file of
     * Kafka before 4.3 would hand the new, empty store the old store's offsets.
     */
    public static final String IMPORT_BUILT_IN = "ferry.import.builtin";
    /**
     * With {@link #IMPORT_BUILT_IN}: delete the built-in store's directory once its import is complete
     * (default false: it stays, so that going back to the built-in store restores only the changelog's tail).
     */
    public static final String IMPORT_BUILT_IN_DELETE = "ferry.import.builtin.delete";

    /**
     * RocksDB options of every store under the memory budget ({@link #ROCKSDB_MEMORY_TOTAL_BYTES}), before
     * {@link #ROCKSDB_OPTIONS}: universal compaction, the built-in store's (which Kafka's bounded-memory
     * recipe runs on). Measured with 60 stores writing 2 GiB (docs/kafka-streams.md "Measured: memory"):
     * level compaction rewrites each store's data several times more, and the allocator keeps much of
     * what those compactions free (100-250 MiB beyond the budget against 50-120 with universal compaction).
     */
    static final String BUDGET_ROCKSDB_OPTIONS = "compaction_style=kCompactionStyleUniversal";

    static final long DEFAULT_BLOCK_CACHE = 50L << 20;
    static final int DEFAULT_BLOOM_BITS = 10;
    static final long DEFAULT_MAP_SIZE = 1L << 30;
    static final long DEFAULT_AUTO_GROW = 1L << 30;
    static final double DEFAULT_MEMTABLE_FRACTION = 0.5;
    static final double DEFAULT_INDEX_FILTER_FRACTION = 0.1;
    static final long DEFAULT_RESTORE_BUFFER = 8L << 20;
    /**
     * The restore buffer of an LMDB store and of a RocksDB store that writes it as table files. RocksDB:
     * each buffer becomes a sorted run of level 0 (about 20 MB of 100-byte records, as the built-in
     * store's 16 MiB memtables), so a long restore leaves fewer files for compaction to merge. LMDB: each
     * buffer is one write transaction, which copies every leaf page it touches (with random keys, most of
     * the tree), so fewer, larger buffers copy the tree fewer times.
     */
    static final long DEFAULT_RESTORE_BUFFER_LARGE = 32L << 20;

    /** {@link #RESTORE_BUFFER_TOTAL_BYTES}' default: 128 MiB, at most an eighth of the maximum heap. */
    static final long DEFAULT_RESTORE_BUFFER_TOTAL = Math.min(128L << 20, Runtime.getRuntime().maxMemory() / 8);

    private FerryStoreConfig() {
    }

    /**
     * Builds the options a store opens with: the defaults above, then the {@code ferry.*} keys, then
     * the {@link #OPTIONS_SETTER}.
     *
     * @param engine the store's engine
     * @param storeName the store's name, passed to the setter
     * @param configs the application's configuration
     * @return the options
     * @throws ConfigException on a value that cannot be used
     */
    public static StoreOptions options(Engine engine, String storeName, Map<String, Object> configs) {
        StoreOptions o = StoreOptions.of(engine);
        if (engine == Engine.ROCKSDB) {
            if (configs.get(ROCKSDB_MEMORY_TOTAL_BYTES) == null) {
                o.blockCacheSize(longValue(configs, ROCKSDB_BLOCK_CACHE_BYTES, DEFAULT_BLOCK_CACHE));
            } else if (configs.get(ROCKSDB_BLOCK_CACHE_BYTES) != null) {
                throw new ConfigException(ROCKSDB_BLOCK_CACHE_BYTES, configs.get(ROCKSDB_BLOCK_CACHE_BYTES), "a store has a "
                        + "block cache of its own or shares the budget " + ROCKSDB_MEMORY_TOTAL_BYTES + ", not both");
            }
            o.bloomBitsPerKey((int) longValue(configs, ROCKSDB_BLOOM_BITS_PER_KEY, DEFAULT_BLOOM_BITS));
            Object c = configs.get(ROCKSDB_COMPRESSION);
            o.compression(c == null ? Compression.NONE : compression(c));
            // with the budget: the built-in store's compaction style (see BUDGET_ROCKSDB_OPTIONS); the
            // application's options string comes after it, so a compaction_style there wins
            Object extra = configs.get(ROCKSDB_OPTIONS);
            String rocksdb = configs.get(ROCKSDB_MEMORY_TOTAL_BYTES) == null ? null : BUDGET_ROCKSDB_OPTIONS;
            if (extra != null) {
                rocksdb = rocksdb == null ? extra.toString() : rocksdb + ";" + extra;
            }
            if (rocksdb != null) {
                o.rocksdbOptions(rocksdb);
            }
            // Kafka's RocksDB metrics at DEBUG read them, as the built-in store's (FerryStoreMetrics)
            o.statistics(FerryStoreMetrics.statisticsWanted(configs));
        } else {
            o.mapSize(longValue(configs, LMDB_MAP_SIZE_BYTES, DEFAULT_MAP_SIZE));
            o.autoGrow(longValue(configs, LMDB_AUTO_GROW_BYTES, DEFAULT_AUTO_GROW));
            o.lmdbFlags(EnumSet.of(LmdbFlag.NOTLS));
        }
        Object setter = configs.get(OPTIONS_SETTER);
        if (setter != null) {
            setter(setter).setOptions(storeName, o, configs);
        }
        return o;
    }

    /**
     * @param configs the application's configuration
     * @return {@link #RESTORE_BUFFER_TOTAL_BYTES}, or its default
     * @throws ConfigException when it is not a whole number of at least 0
     */
    static long restoreBufferTotalBytes(Map<String, Object> configs) {
        return longValue(configs, RESTORE_BUFFER_TOTAL_BYTES, DEFAULT_RESTORE_BUFFER_TOTAL);
    }

    /**
     * @param configs the application's configuration
     * @param large whether the store's default is the large buffer (LMDB; RocksDB writing table files)
     * @return {@link #RESTORE_BUFFER_BYTES}, or its default
     * @throws ConfigException on a value that cannot be used
     */
    static long restoreBufferBytes(Map<String, Object> configs, boolean large) {
        return longValue(configs, RESTORE_BUFFER_BYTES, large ? DEFAULT_RESTORE_BUFFER_LARGE : DEFAULT_RESTORE_BUFFER);
    }

    /**
     * @param configs the application's configuration
     * @return {@link #ROCKSDB_RESTORE_TABLE_FILES}, or its default (true)
     * @throws ConfigException on a value that is neither true nor false
     */
    static boolean restoreTableFiles(Map<String, Object> configs) {
        return booleanValue(configs, ROCKSDB_RESTORE_TABLE_FILES, true);
    }

    /**
     * @param configs the application's configuration
     * @return {@link #LMDB_RESTORE_RUNS}, or its default (true)
     * @throws ConfigException on a value that is neither true nor false
     */
    static boolean lmdbRestoreRuns(Map<String, Object> configs) {
        return booleanValue(configs, LMDB_RESTORE_RUNS, true);
    }

    /**
     * @param configs the application's configuration
     * @return {@link #IMPORT_BUILT_IN}, or its default (true)
     * @throws ConfigException on a value that is neither true nor false
     */
    static boolean importBuiltIn(Map<String, Object> configs) {
        return booleanValue(configs, IMPORT_BUILT_IN, true);
    }

    /**
     * @param configs the application's configuration
     * @return {@link #IMPORT_BUILT_IN_DELETE}, or its default (false)
     * @throws ConfigException on a value that is neither true nor false
     */
    static boolean importBuiltInDelete(Map<String, Object> configs) {
        return booleanValue(configs, IMPORT_BUILT_IN_DELETE, false);
    }

    private static boolean booleanValue(Map<String, Object> configs, String key, boolean dflt) {
        Object v = configs.get(key);
        if (v == null) {
            return dflt;
        }
        String t = v.toString().trim();
        if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(t);
        }
        throw new ConfigException(key, v, "expected true or false");
    }

    private static Compression compression(Object v) {
        try {
            return Compression.valueOf(v.toString().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(ROCKSDB_COMPRESSION, v, "expected one of NONE, SNAPPY, LZ4, ZSTD");
        }
    }

    private static long longValue(Map<String, Object> configs, String key, long dflt) {
        Object v = configs.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        if (v instanceof Number) {
            n = ((Number) v).longValue();
        } else {
            try {
                n = Long.parseLong(v.toString().trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(key, v, "expected a whole number");
            }
        }
        if (n < 0) {
            throw new ConfigException(key, v, "must not be negative");
        }
        return n;
    }

    /**
     * The memory budget's settings ({@link #ROCKSDB_MEMORY_TOTAL_BYTES} and the keys beside it).
     *
     * @param totalBytes the budget
     * @param memtableFraction the memtables' share
     * @param indexFilterFraction the cache's high-priority pool
     * @param writeStall whether the write buffer manager stalls writes
     */
    record Budget(long totalBytes, double memtableFraction, double indexFilterFraction, boolean writeStall) {
    }

    /**
     * The memory budget's settings, or null when {@link #ROCKSDB_MEMORY_TOTAL_BYTES} is not set.
     *
     * @param configs the application's configuration
     * @return the settings, or null
     */
    static Budget budget(Map<String, Object> configs) {
        if (configs.get(ROCKSDB_MEMORY_TOTAL_BYTES) == null) {
            return null;
        }
        long total = longValue(configs, ROCKSDB_MEMORY_TOTAL_BYTES, 0);
        if (total <= 0) {
            throw new ConfigException(ROCKSDB_MEMORY_TOTAL_BYTES, configs.get(ROCKSDB_MEMORY_TOTAL_BYTES), "must be positive");
        }
        double mem = fraction(configs, ROCKSDB_MEMORY_MEMTABLE_FRACTION, DEFAULT_MEMTABLE_FRACTION);
        if (mem <= 0 || mem >= 1) {
            throw new ConfigException(ROCKSDB_MEMORY_MEMTABLE_FRACTION, configs.get(ROCKSDB_MEMORY_MEMTABLE_FRACTION),
                    "must be above 0 and below 1");
        }
        double idx = fraction(configs, ROCKSDB_MEMORY_INDEX_FILTER_FRACTION, DEFAULT_INDEX_FILTER_FRACTION);
        if (booleanValue(configs, ROCKSDB_MEMORY_WRITE_STALL, false)) {
            throw new ConfigException(ROCKSDB_MEMORY_WRITE_STALL, configs.get(ROCKSDB_MEMORY_WRITE_STALL),
                    "a stalling write buffer manager shared by the stores of one stream thread can stall it forever "
                    + "(RocksDB flushes only the store being written); leave it false");
        }
        return new Budget(total, mem, idx, false);
    }

    private static double fraction(Map<String, Object> configs, String key, double dflt) {
        Object v = configs.get(key);
        if (v == null) {
            return dflt;
        }
        double d;
        try {
            d = v instanceof Number ? ((Number) v).doubleValue() : Double.parseDouble(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key, v, "expected a number from 0 to 1");
        }
        if (!(d >= 0 && d <= 1)) {
            throw new ConfigException(key, v, "expected a number from 0 to 1");
        }
        return d;
    }

    private static FerryStoreOptionsSetter setter(Object v) {
        Class<?> c;
        if (v instanceof Class) {
            c = (Class<?>) v;
        } else {
            try {
                c = Class.forName(v.toString().trim(), true, FerryStoreConfig.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new ConfigException(OPTIONS_SETTER, v, "class not found");
            }
        }
        if (!FerryStoreOptionsSetter.class.isAssignableFrom(c)) {
            throw new ConfigException(OPTIONS_SETTER, v, "does not implement " + FerryStoreOptionsSetter.class.getName());
        }
        try {
            return (FerryStoreOptionsSetter) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(OPTIONS_SETTER, v, "cannot be instantiated with a public no-argument constructor: " + e);
        }
    }
}
