package dev.ferry.bench.dbbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.CompactionOptionsFIFO;
import org.rocksdb.CompressionType;
import org.rocksdb.HyperClockCache;
import org.rocksdb.IndexShorteningMode;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Statistics;

/**
 * The RocksDB options db_bench's flags stand for, set the same way for every API: as a RocksDB
 * options string for Ferry ({@code StoreOptions.rocksdbOptions}), and through RocksJava's setters
 * for RocksJava. Besides the flags, db_bench sets {@code create_missing_column_families=true}
 * and FIFO options of its own; they are set here too, so that the OPTIONS file RocksDB writes
 * into the database directory is the same as C++ db_bench's for the same flags (the tests
 * compare them; only db_bench's internal event listener differs).
 *
 * <p>The block cache: db_bench makes a {@code hyper_clock_cache} by default. Ferry's options string
 * can only make an LRU cache, so with a Ferry API this tool uses an LRU cache of the same size and
 * shard bits and says so ({@link #cacheNote}); pass {@code --cache_type=lru_cache} to both tools
 * for the same cache. RocksJava makes the cache asked for.
 *
 * <p>Thread safety: immutable.
 */
public final class EngineOptions {
    private final Flags f;

    /**
     * Reads the flags.
     *
     * @param flags the flags
     * @throws Flags.FlagError on a value RocksDB does not take
     */
    public EngineOptions(Flags flags) {
        this.f = flags;
        compressionName(flags.str("compression_type"));
        cacheType();
        long m = flags.int64("index_shortening_mode");
        if (m < 0 || m > 2) {
            throw new Flags.FlagError("Unknown key shortening mode " + m + " (--index_shortening_mode takes 0, 1 or 2)");
        }
    }

    /** @return the cache type asked for: lru_cache or one of the hyper clock caches */
    public String cacheType() {
        String t = f.str("cache_type");
        return switch (t) {
            case "lru_cache", "hyper_clock_cache", "auto_hyper_clock_cache", "fixed_hyper_clock_cache" -> t;
            default -> throw new Flags.FlagError("Cache type not supported: --cache_type=" + t
                    + " (lru_cache, hyper_clock_cache, auto_hyper_clock_cache, fixed_hyper_clock_cache)");
        };
    }

    /** @return true when there is a block cache (db_bench: --cache_size above 0) */
    public boolean hasCache() {
        return f.int64("cache_size") > 0;
    }

    /**
     * Describes the block cache an API gets.
     *
     * @param ferry true for the Ferry APIs
     * @return e.g. "lru_cache 33554432 bytes, num_shard_bits -1"
     */
    public String cacheNote(boolean ferry) {
        if (!hasCache()) {
            return "none (--cache_size=" + f.int64("cache_size") + ")";
        }
        String t = ferry ? "lru_cache" : cacheType();
        String s = t + " " + f.int64("cache_size") + " bytes, num_shard_bits " + f.int32("cache_numshardbits");
        if (ferry && !cacheType().equals("lru_cache")) {
            s += " (asked " + cacheType() + ": Ferry's options string makes only LRU caches; pass --cache_type=lru_cache to C++ db_bench for the same cache)";
        }
        return s;
    }

    /** @return the cache type an API really gets */
    public String effectiveCacheType(boolean ferry) {
        return !hasCache() ? "none" : ferry ? "lru_cache" : cacheType();
    }

    /**
     * Maps db_bench's compression name to RocksDB's option value.
     *
     * @param name e.g. "snappy"
     * @return e.g. "kSnappyCompression"
     */
    static String compressionName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "none" -> "kNoCompression";
            case "snappy" -> "kSnappyCompression";
            case "zlib" -> "kZlibCompression";
            case "bzip2" -> "kBZip2Compression";
            case "lz4" -> "kLZ4Compression";
            case "lz4hc" -> "kLZ4HCCompression";
            case "xpress" -> "kXpressCompression";
            case "zstd" -> "kZSTD";
            default -> throw new Flags.FlagError("Cannot parse compression type '" + name + "'");
        };
    }

    /**
     * Names a compression as db_bench's header does.
     *
     * @param name db_bench's flag value, e.g. "snappy"
     * @return e.g. "Snappy"
     */
    static String compressionLabel(String name) {
        return switch (compressionName(name)) {
            case "kNoCompression" -> "NoCompression";
            case "kSnappyCompression" -> "Snappy";
            case "kZlibCompression" -> "Zlib";
            case "kBZip2Compression" -> "BZip2";
            case "kLZ4Compression" -> "LZ4";
            case "kLZ4HCCompression" -> "LZ4HC";
            case "kXpressCompression" -> "Xpress";
            default -> "ZSTD";
        };
    }

    private static CompressionType compressionType(String name) {
        return switch (compressionName(name)) {
            case "kNoCompression" -> CompressionType.NO_COMPRESSION;
            case "kSnappyCompression" -> CompressionType.SNAPPY_COMPRESSION;
            case "kZlibCompression" -> CompressionType.ZLIB_COMPRESSION;
            case "kBZip2Compression" -> CompressionType.BZLIB2_COMPRESSION;
            case "kLZ4Compression" -> CompressionType.LZ4_COMPRESSION;
            case "kLZ4HCCompression" -> CompressionType.LZ4HC_COMPRESSION;
            case "kXpressCompression" -> CompressionType.XPRESS_COMPRESSION;
            default -> CompressionType.ZSTD_COMPRESSION;
        };
    }

    private static final String[] SHORTENING = {"kNoShortening", "kShortenSeparators", "kShortenSeparatorsAndSuccessor"};

    private String u64(String name) {
        return Long.toUnsignedString(f.int64(name));
    }

    /**
     * The options string for Ferry: every option the flags set, db_bench's own fixed settings, the
     * block-based table options with an LRU block cache, and statistics when asked.
     *
     * @return the string
     */
    public String rocksdbOptionsString() {
        List<String> o = new ArrayList<>();
        o.add("create_missing_column_families=true");
        o.add("max_open_files=" + f.int32("open_files"));
        o.add("table_cache_numshardbits=" + f.int32("table_cache_numshardbits"));
        o.add("delayed_write_rate=" + u64("delayed_write_rate"));
        o.add("dump_malloc_stats=" + f.bool("dump_malloc_stats"));
        o.add("enable_pipelined_write=" + f.bool("enable_pipelined_write"));
        o.add("allow_concurrent_memtable_write=" + f.bool("allow_concurrent_memtable_write"));
        o.add("max_background_jobs=" + f.int32("max_background_jobs"));
        o.add("max_background_compactions=" + f.int32("max_background_compactions"));
        o.add("max_background_flushes=" + f.int32("max_background_flushes"));
        o.add("bytes_per_sync=" + u64("bytes_per_sync"));
        o.add("wal_bytes_per_sync=" + u64("wal_bytes_per_sync"));
        o.add("use_direct_reads=" + f.bool("use_direct_reads"));
        o.add("write_buffer_size=" + f.int64("write_buffer_size"));
        o.add("max_write_buffer_number=" + f.int32("max_write_buffer_number"));
        o.add("min_write_buffer_number_to_merge=" + f.int32("min_write_buffer_number_to_merge"));
        o.add("target_file_size_base=" + f.int64("target_file_size_base"));
        o.add("target_file_size_multiplier=" + f.int32("target_file_size_multiplier"));
        o.add("max_bytes_for_level_base=" + u64("max_bytes_for_level_base"));
        o.add("max_bytes_for_level_multiplier=" + f.dbl("max_bytes_for_level_multiplier"));
        o.add("level_compaction_dynamic_level_bytes=" + f.bool("level_compaction_dynamic_level_bytes"));
        o.add("num_levels=" + f.int32("num_levels"));
        o.add("level0_file_num_compaction_trigger=" + f.int32("level0_file_num_compaction_trigger"));
        o.add("level0_slowdown_writes_trigger=" + f.int32("level0_slowdown_writes_trigger"));
        o.add("level0_stop_writes_trigger=" + f.int32("level0_stop_writes_trigger"));
        o.add("disable_auto_compactions=" + f.bool("disable_auto_compactions"));
        o.add("hard_pending_compaction_bytes_limit=" + u64("hard_pending_compaction_bytes_limit"));
        o.add("soft_pending_compaction_bytes_limit=" + u64("soft_pending_compaction_bytes_limit"));
        o.add("compression=" + compressionName(f.str("compression_type")));
        o.add("compaction_options_fifo={allow_compaction=true;max_table_files_size=0}");
        List<String> t = new ArrayList<>();
        t.add("block_size=" + f.int32("block_size"));
        t.add("cache_index_and_filter_blocks=" + f.bool("cache_index_and_filter_blocks"));
        t.add("pin_top_level_index_and_filter=" + f.bool("pin_top_level_index_and_filter"));
        t.add("index_shortening=" + SHORTENING[(int) f.int64("index_shortening_mode")]);
        t.add("uniform_cv_threshold=" + f.dbl("uniform_cv_threshold"));
        int bloom = f.int32("bloom_bits");
        if (bloom == 0) {
            t.add("filter_policy=nullptr");
        } else if (bloom > 0) {
            t.add("filter_policy=bloomfilter:" + bloom + ":false");
        }
        if (hasCache()) {
            t.add("no_block_cache=false");
            t.add("block_cache={capacity=" + f.int64("cache_size") + ";num_shard_bits=" + f.int32("cache_numshardbits") + "}");
        } else {
            t.add("no_block_cache=true");
        }
        o.add("block_based_table_factory={" + String.join(";", t) + "}");
        if (f.bool("statistics")) {
            o.add("statistics=BasicStatistics");
        }
        return String.join(";", o);
    }

    /** RocksJava options and the native objects to close after the database. */
    public static final class RocksJava implements AutoCloseable {
        /** The options. */
        public final Options options;
        /** Statistics, or null. */
        public final Statistics statistics;
        private final List<AutoCloseable> owned;

        RocksJava(Options options, Statistics statistics, List<AutoCloseable> owned) {
            this.options = options;
            this.statistics = statistics;
            this.owned = owned;
        }

        @Override
        public void close() {
            options.close();
            for (AutoCloseable c : owned) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /**
     * RocksJava's options for the flags, set through its setters as a RocksJava user would.
     *
     * @param createIfMissing whether to create the database
     * @return the options and what to close with them
     */
    public RocksJava rocksJava(boolean createIfMissing) {
        org.rocksdb.RocksDB.loadLibrary();
        List<AutoCloseable> owned = new ArrayList<>();
        Options o = new Options();
        o.setCreateIfMissing(createIfMissing);
        o.setCreateMissingColumnFamilies(true);
        o.setMaxOpenFiles(f.int32("open_files"));
        o.setTableCacheNumshardbits(f.int32("table_cache_numshardbits"));
        o.setDelayedWriteRate(f.int64("delayed_write_rate"));
        o.setDumpMallocStats(f.bool("dump_malloc_stats"));
        o.setEnablePipelinedWrite(f.bool("enable_pipelined_write"));
        o.setAllowConcurrentMemtableWrite(f.bool("allow_concurrent_memtable_write"));
        o.setMaxBackgroundJobs(f.int32("max_background_jobs"));
        setDeprecated(o, f.int32("max_background_compactions"), f.int32("max_background_flushes"));
        o.setBytesPerSync(f.int64("bytes_per_sync"));
        o.setWalBytesPerSync(f.int64("wal_bytes_per_sync"));
        o.setUseDirectReads(f.bool("use_direct_reads"));
        o.setWriteBufferSize(f.int64("write_buffer_size"));
        o.setMaxWriteBufferNumber(f.int32("max_write_buffer_number"));
        o.setMinWriteBufferNumberToMerge(f.int32("min_write_buffer_number_to_merge"));
        o.setTargetFileSizeBase(f.int64("target_file_size_base"));
        o.setTargetFileSizeMultiplier(f.int32("target_file_size_multiplier"));
        o.setMaxBytesForLevelBase(f.int64("max_bytes_for_level_base"));
        o.setMaxBytesForLevelMultiplier(f.dbl("max_bytes_for_level_multiplier"));
        o.setLevelCompactionDynamicLevelBytes(f.bool("level_compaction_dynamic_level_bytes"));
        o.setNumLevels(f.int32("num_levels"));
        o.setLevel0FileNumCompactionTrigger(f.int32("level0_file_num_compaction_trigger"));
        o.setLevel0SlowdownWritesTrigger(f.int32("level0_slowdown_writes_trigger"));
        o.setLevel0StopWritesTrigger(f.int32("level0_stop_writes_trigger"));
        o.setDisableAutoCompactions(f.bool("disable_auto_compactions"));
        o.setHardPendingCompactionBytesLimit(f.int64("hard_pending_compaction_bytes_limit"));
        o.setSoftPendingCompactionBytesLimit(f.int64("soft_pending_compaction_bytes_limit"));
        o.setCompressionType(compressionType(f.str("compression_type")));
        CompactionOptionsFIFO fifo = new CompactionOptionsFIFO().setAllowCompaction(true).setMaxTableFilesSize(0);
        owned.add(fifo);
        o.setCompactionOptionsFIFO(fifo);

        BlockBasedTableConfig t = new BlockBasedTableConfig();
        t.setBlockSize(f.int32("block_size"));
        t.setCacheIndexAndFilterBlocks(f.bool("cache_index_and_filter_blocks"));
        t.setPinTopLevelIndexAndFilter(f.bool("pin_top_level_index_and_filter"));
        t.setIndexShortening(IndexShorteningMode.values()[(int) f.int64("index_shortening_mode")]);
        // RocksJava's BlockBasedTableConfig starts at 0.2, C++'s BlockBasedTableOptions at -1
        t.setUniformCvThreshold(f.dbl("uniform_cv_threshold"));
        int bloom = f.int32("bloom_bits");
        if (bloom > 0) {
            BloomFilter filter = new BloomFilter(bloom, false);
            owned.add(filter);
            t.setFilterPolicy(filter);
        }
        if (hasCache()) {
            Cache cache;
            long size = f.int64("cache_size");
            int bits = f.int32("cache_numshardbits");
            switch (cacheType()) {
                case "lru_cache" -> cache = new LRUCache(size, bits);
                case "fixed_hyper_clock_cache" -> cache = new HyperClockCache(size, f.int32("block_size"), bits, false);
                default -> cache = new HyperClockCache(size, 0, bits, false);
            }
            owned.add(cache);
            t.setBlockCache(cache);
        } else {
            t.setNoBlockCache(true);
        }
        o.setTableFormatConfig(t);
        Statistics stats = null;
        if (f.bool("statistics")) {
            stats = new Statistics();
            owned.add(stats);
            o.setStatistics(stats);
        }
        return new RocksJava(o, stats, owned);
    }

    @SuppressWarnings("deprecation")
    private static void setDeprecated(Options o, int compactions, int flushes) {
        o.setMaxBackgroundCompactions(compactions);
        o.setMaxBackgroundFlushes(flushes);
    }
}
