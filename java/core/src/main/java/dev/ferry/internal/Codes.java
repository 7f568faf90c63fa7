package dev.ferry.internal;

import java.util.Arrays;

/**
 * The C ABI's codes for the API's values: the one place where an option, a flag or a value of
 * {@code dev.ferry} becomes the {@code FERRY_*} code, bit or array slot that ferry.h gives it, and
 * where a code read back (a family's flags, a compaction filter's call) becomes a value again. No
 * class of a public package names {@link Abi} ({@code CallLayerTest}): the API hands its settings
 * here.
 *
 * <ul>
 * <li>The API's enums ({@code Engine}, {@code ErrorCode}, {@code Compression}, {@code KeyOrder},
 *     {@code LmdbFlag}, {@code ColumnFamilyFlag}) take their code by their constant's name
 *     ({@link #engine(String)}...): so this class names no class of {@code dev.ferry}, and those
 *     enums can use it without a circle ({@code LayeringTest} counts it with {@code Abi} as the
 *     bottom layer). An unknown name throws, so an enum constant added without its code fails as
 *     soon as its class loads.</li>
 * <li>Per-call flags come from booleans ({@link #writeFlags}, {@link #readFlags},
 *     {@link #cursorFlags}); open options and family options from the builders {@link StoreRecord}
 *     and {@link FamilyRecord}, which own the {@code FERRY_OPT_*} and {@code FERRY_CFOPT_*}
 *     array layouts.</li>
 * <li>The limits the API checks before a call ({@link #maxBloomBits()}...) are the header's.</li>
 * </ul>
 * Every code here is a constant of {@link Abi}, which {@code AbiTest} checks against ferry.h.
 *
 * <p>Thread safety: static methods are thread-safe; a record builder is not (one thread builds it).
 */
public final class Codes {
    private Codes() {
    }

    private static IllegalArgumentException unknown(String what, String name) {
        return new IllegalArgumentException("no C ABI code for " + what + " " + name + " (dev.ferry.internal.Codes)");
    }

    // ---- the API's enums, by constant name

    /**
     * {@code FERRY_ENGINE_*} of an {@code Engine}.
     *
     * @param name the constant's name
     * @return the engine id
     * @throws IllegalArgumentException for another name
     */
    public static int engine(String name) {
        switch (name) {
            case "ROCKSDB": return Abi.ENGINE_ROCKSDB;
            case "LMDB": return Abi.ENGINE_LMDB;
            default: throw unknown("engine", name);
        }
    }

    /**
     * {@code FERRY_E*} (or {@code FERRY_NOTFOUND}) of an {@code ErrorCode}.
     *
     * @param name the constant's name
     * @return the negative return code
     * @throws IllegalArgumentException for another name
     */
    public static int error(String name) {
        switch (name) {
            case "NOT_FOUND": return Abi.NOTFOUND;
            case "INVALID_ARGUMENT": return Abi.EINVAL;
            case "OUT_OF_MEMORY": return Abi.ENOMEM;
            case "BUFFER_TOO_SMALL": return Abi.ETOOSMALL;
            case "ENGINE_NOT_LOADED": return Abi.ENOENGINE;
            case "DUPLICATE_ENGINE": return Abi.EDUPENGINE;
            case "NOT_SUPPORTED": return Abi.ENOTSUP;
            case "ALREADY_EXISTS": return Abi.EEXISTS;
            case "COLUMN_FAMILY_DROPPED": return Abi.ECFDROPPED;
            case "CORRUPTION": return Abi.ECORRUPTION;
            case "IO_ERROR": return Abi.EIO;
            case "BUSY": return Abi.EBUSY;
            case "INCOMPLETE": return Abi.EINCOMPLETE;
            case "TIMED_OUT": return Abi.ETIMEDOUT;
            case "ABORTED": return Abi.EABORTED;
            case "TRY_AGAIN": return Abi.ETRYAGAIN;
            case "ENGINE_INVALID_ARGUMENT": return Abi.EENGINEARG;
            case "SHUTDOWN": return Abi.ESHUTDOWN;
            case "MAP_FULL": return Abi.EMAPFULL;
            case "READERS_FULL": return Abi.EREADERSFULL;
            case "TOO_MANY_COLUMN_FAMILIES": return Abi.EDBSFULL;
            case "BAD_TRANSACTION": return Abi.EBADTXN;
            case "KEY_SIZE": return Abi.EKEYSIZE;
            case "READ_ONLY": return Abi.EREADONLY;
            case "DIRECTION": return Abi.EDIRECTION;
            case "KEY_EXISTS": return Abi.EKEYEXIST;
            case "CONFLICT": return Abi.ECONFLICT;
            case "DEADLOCK": return Abi.EDEADLOCK;
            case "ENGINE": return Abi.EENGINE;
            default: throw unknown("error code", name);
        }
    }

    /**
     * {@code FERRY_COMPRESSION_*} of a {@code Compression}.
     *
     * @param name the constant's name
     * @return the compression code
     * @throws IllegalArgumentException for another name
     */
    public static int compression(String name) {
        switch (name) {
            case "NONE": return Abi.COMPRESSION_NONE;
            case "SNAPPY": return Abi.COMPRESSION_SNAPPY;
            case "LZ4": return Abi.COMPRESSION_LZ4;
            case "ZSTD": return Abi.COMPRESSION_ZSTD;
            default: throw unknown("compression", name);
        }
    }

    /**
     * {@code FERRY_PERF_*} of a {@code PerfContext.Level}.
     *
     * @param name the constant's name
     * @return the level's code
     * @throws IllegalArgumentException for another name
     */
    public static int perfLevel(String name) {
        switch (name) {
            case "DISABLE": return Abi.PERF_DISABLE;
            case "COUNT": return Abi.PERF_COUNT;
            case "TIME_EXCEPT_FOR_MUTEX": return Abi.PERF_TIME_EXCEPT_FOR_MUTEX;
            case "TIME": return Abi.PERF_TIME;
            default: throw unknown("perf level", name);
        }
    }

    /**
     * {@code FERRY_ORDER_*} of a {@code KeyOrder}.
     *
     * @param name the constant's name
     * @return the order code
     * @throws IllegalArgumentException for another name
     */
    public static int keyOrder(String name) {
        switch (name) {
            case "BYTEWISE": return Abi.ORDER_BYTEWISE;
            case "REVERSE_BYTEWISE": return Abi.ORDER_REVERSE;
            case "UINT64_BIG_ENDIAN": return Abi.ORDER_U64_BE;
            case "JAVA": return Abi.ORDER_CALLBACK;
            default: throw unknown("key order", name);
        }
    }

    /**
     * {@code FERRY_LMDB_*} bit of an {@code LmdbFlag}.
     *
     * @param name the constant's name
     * @return the bit
     * @throws IllegalArgumentException for another name
     */
    public static int lmdbFlag(String name) {
        switch (name) {
            case "NOSYNC": return Abi.LMDB_NOSYNC;
            case "NOMETASYNC": return Abi.LMDB_NOMETASYNC;
            case "WRITEMAP": return Abi.LMDB_WRITEMAP;
            case "NORDAHEAD": return Abi.LMDB_NORDAHEAD;
            case "NOTLS": return Abi.LMDB_NOTLS;
            default: throw unknown("LMDB flag", name);
        }
    }

    /**
     * {@code FERRY_CF_*} bit of a {@code ColumnFamilyFlag}.
     *
     * @param name the constant's name
     * @return the bit
     * @throws IllegalArgumentException for another name
     */
    public static int familyFlag(String name) {
        switch (name) {
            case "DUPSORT": return Abi.CF_DUPSORT;
            case "DUPFIXED": return Abi.CF_DUPFIXED;
            default: throw unknown("column family flag", name);
        }
    }

    // ---- a family's flag word (ferry_cf_create's flags, ferry_cf_flags)

    /**
     * The key order a family's flag word names.
     *
     * @param familyFlags the word ({@code FERRY_CF_*} and {@code FERRY_CF_ORDER_*} bits)
     * @return its {@code FERRY_ORDER_*} code ({@code BYTEWISE} when no order bit is set)
     */
    public static int keyOrderOfFlags(int familyFlags) {
        if ((familyFlags & Abi.CF_ORDER_CALLBACK) != 0) {
            return Abi.ORDER_CALLBACK;
        }
        if ((familyFlags & Abi.CF_ORDER_REVERSE) != 0) {
            return Abi.ORDER_REVERSE;
        }
        return (familyFlags & Abi.CF_ORDER_U64_BE) != 0 ? Abi.ORDER_U64_BE : Abi.ORDER_BYTEWISE;
    }

    /**
     * The flag-word bit of a key order.
     *
     * @param order a {@code FERRY_ORDER_*} code
     * @return its {@code FERRY_CF_ORDER_*} bit, 0 for bytewise
     */
    public static int keyOrderFlag(int order) {
        return order == Abi.ORDER_REVERSE ? Abi.CF_ORDER_REVERSE : order == Abi.ORDER_U64_BE ? Abi.CF_ORDER_U64_BE
                : order == Abi.ORDER_CALLBACK ? Abi.CF_ORDER_CALLBACK : 0;
    }

    // ---- per-call flags

    /**
     * The {@code FERRY_WRITE_*} flags of a write.
     *
     * @param sync sync before returning
     * @param noWal RocksDB: no write-ahead log
     * @param noOverwrite LMDB: do not overwrite an existing key
     * @param noDupData LMDB: do not add an existing (key, value) pair
     * @param append LMDB: append at the end
     * @return the flags
     */
    public static int writeFlags(boolean sync, boolean noWal, boolean noOverwrite, boolean noDupData, boolean append) {
        return (sync ? Abi.WRITE_SYNC : 0) | (noWal ? Abi.WRITE_NO_WAL : 0) | (noOverwrite ? Abi.WRITE_NO_OVERWRITE : 0)
                | (noDupData ? Abi.WRITE_NO_DUP_DATA : 0) | (append ? Abi.WRITE_APPEND : 0);
    }

    /**
     * The {@code FERRY_CURSOR_*} flags of a point read (gets take the cursors' read flags).
     *
     * @param fillCache RocksDB: fill the block cache
     * @param verifyChecksums RocksDB: verify block checksums
     * @return the flags
     */
    public static int readFlags(boolean fillCache, boolean verifyChecksums) {
        return (fillCache ? 0 : Abi.CURSOR_NO_FILL_CACHE) | (verifyChecksums ? 0 : Abi.CURSOR_NO_VERIFY_CHECKSUMS);
    }

    /**
     * The {@code FERRY_CURSOR_*} flags of a cursor.
     *
     * @param pointers pointer pages where the engine pins data
     * @param fillCache RocksDB: fill the block cache
     * @param pageWalk LMDB: the direct leaf-page walk
     * @param verifyChecksums RocksDB: verify block checksums
     * @param asyncIo RocksDB: asynchronous prefetch
     * @param autoPrefix RocksDB: auto prefix mode
     * @return the flags
     */
    public static int cursorFlags(boolean pointers, boolean fillCache, boolean pageWalk, boolean verifyChecksums,
            boolean asyncIo, boolean autoPrefix) {
        return (pointers ? Abi.CURSOR_POINTERS : 0) | readFlags(fillCache, verifyChecksums)
                | (pageWalk ? 0 : Abi.CURSOR_ENGINE_STEPS) | (asyncIo ? Abi.CURSOR_ASYNC_IO : 0)
                | (autoPrefix ? Abi.CURSOR_AUTO_PREFIX : 0);
    }

    // ---- limits the API checks before a call

    /** @return the largest bloom filter bits per key of a family ({@code FERRY_CFOPT_MAX_BLOOM_BITS}) */
    public static int maxBloomBits() {
        return Abi.CFOPT_MAX_BLOOM_BITS;
    }

    /** @return the largest table block size of a family ({@code FERRY_CFOPT_MAX_BLOCK_SIZE}) */
    public static int maxBlockSize() {
        return Abi.CFOPT_MAX_BLOCK_SIZE;
    }

    /** @return the longest fixed prefix of a family ({@code FERRY_CFOPT_MAX_PREFIX_LEN}) */
    public static int maxPrefixLength() {
        return Abi.CFOPT_MAX_PREFIX_LEN;
    }

    /** @return the largest offset of a TTL timestamp in a value ({@code FERRY_CFOPT_MAX_TTL_OFFSET}) */
    public static int maxTtlOffset() {
        return Abi.CFOPT_MAX_TTL_OFFSET;
    }

    /** @return the longest name of a merge operator or compaction filter written in Java ({@code FERRY_MERGE_NAME_MAX}) */
    public static int maxCallbackName() {
        return Abi.MERGE_NAME_MAX;
    }

    // ---- the compaction filter's calls (ferry_filter_fn)

    /**
     * @param kind the call's kind
     * @return whether it is a compaction's start ({@code FERRY_FILTER_BEGIN})
     */
    public static boolean filterBegins(int kind) {
        return kind == Abi.FILTER_BEGIN;
    }

    /**
     * @param kind the call's kind
     * @return whether it asks about one entry ({@code FERRY_FILTER_ENTRY}); else it ends a compaction
     */
    public static boolean filterEntry(int kind) {
        return kind == Abi.FILTER_ENTRY;
    }

    /**
     * @param beginArg the argument of a {@code FERRY_FILTER_BEGIN} call
     * @return whether the compaction reads all of the family's files
     */
    public static boolean fullCompaction(long beginArg) {
        return (beginArg & Abi.FILTER_FULL) != 0;
    }

    /**
     * @param beginArg the argument of a {@code FERRY_FILTER_BEGIN} call
     * @return whether the compaction was asked for
     */
    public static boolean manualCompaction(long beginArg) {
        return (beginArg & Abi.FILTER_MANUAL) != 0;
    }

    /**
     * The answer to an entry.
     *
     * @param remove remove the entry
     * @param change change its value (when not removed)
     * @return {@code FERRY_FILTER_REMOVE}, {@code _CHANGE} or {@code _KEEP}
     */
    public static int filterAnswer(boolean remove, boolean change) {
        return remove ? Abi.FILTER_REMOVE : change ? Abi.FILTER_CHANGE : Abi.FILTER_KEEP;
    }

    // ---- admin flags

    /**
     * @param compact LMDB: a compacting copy
     * @param sync fsync the checkpoint's files and directories before returning
     * @return the {@code FERRY_CHECKPOINT_*} flags
     */
    static int checkpointFlags(boolean compact, boolean sync) {
        return (compact ? Abi.CHECKPOINT_COMPACT : 0) | (sync ? 0 : Abi.CHECKPOINT_NO_SYNC);
    }

    /**
     * @param move hard-link the files instead of copying them
     * @return the {@code FERRY_INGEST_*} flags
     */
    static int ingestFlags(boolean move) {
        return move ? Abi.INGEST_MOVE : 0;
    }

    /**
     * @param strict a strict capacity limit
     * @return the {@code FERRY_CACHE_*} flags
     */
    static int cacheFlags(boolean strict) {
        return strict ? Abi.CACHE_STRICT_CAPACITY : 0;
    }

    /**
     * @param allowStall stall writes over the buffer size
     * @return the {@code FERRY_WBM_*} flags
     */
    static int wbmFlags(boolean allowStall) {
        return allowStall ? Abi.WBM_ALLOW_STALL : 0;
    }

    /**
     * The {@code FERRY_OPT_*} array of {@code ferry_store_open}: every slot starts at -1 (the engine's
     * default) but the three booleans of the open itself, which start at the header's defaults.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class StoreRecord {
        private final long[] o = new long[Abi.OPT_COUNT];

        /** Creates a record of defaults. */
        public StoreRecord() {
            Arrays.fill(o, -1);
            o[Abi.OPT_CREATE_IF_MISSING] = 1;
            o[Abi.OPT_ERROR_IF_EXISTS] = 0;
            o[Abi.OPT_READ_ONLY] = 0;
        }

        private StoreRecord bool(int slot, boolean on) {
            o[slot] = on ? 1 : 0;
            return this;
        }

        private StoreRecord onOrDefault(int slot, boolean on) {
            o[slot] = on ? 1 : -1;
            return this;
        }

        private StoreRecord set(int slot, long v) {
            o[slot] = v;
            return this;
        }

        /**
         * @param on create the store when missing
         * @return this
         */
        public StoreRecord createIfMissing(boolean on) {
            return bool(Abi.OPT_CREATE_IF_MISSING, on);
        }

        /**
         * @param on fail when the store exists
         * @return this
         */
        public StoreRecord errorIfExists(boolean on) {
            return bool(Abi.OPT_ERROR_IF_EXISTS, on);
        }

        /**
         * @param on open read-only
         * @return this
         */
        public StoreRecord readOnly(boolean on) {
            return bool(Abi.OPT_READ_ONLY, on);
        }

        /**
         * @param bytes RocksDB's block cache size, -1 = default
         * @return this
         */
        public StoreRecord blockCacheBytes(long bytes) {
            return set(Abi.OPT_BLOCK_CACHE_BYTES, bytes);
        }

        /**
         * @param compression a {@code FERRY_COMPRESSION_*} code, -1 = default
         * @return this
         */
        public StoreRecord compression(int compression) {
            return set(Abi.OPT_COMPRESSION, compression);
        }

        /**
         * @param wal RocksDB's write-ahead log on or off, null = default
         * @return this
         */
        public StoreRecord wal(Boolean wal) {
            return set(Abi.OPT_WAL, wal == null ? -1 : wal ? 1 : 0);
        }

        /**
         * @param on sync every write
         * @return this
         */
        public StoreRecord syncWrites(boolean on) {
            return bool(Abi.OPT_SYNC, on);
        }

        /**
         * @param bits RocksDB bloom bits per key, -1 = default
         * @return this
         */
        public StoreRecord bloomBits(long bits) {
            return set(Abi.OPT_BLOOM_BITS, bits);
        }

        /**
         * @param n RocksDB's max_open_files, -1 = default
         * @return this
         */
        public StoreRecord maxOpenFiles(long n) {
            return set(Abi.OPT_MAX_OPEN_FILES, n);
        }

        /**
         * @param bytes LMDB's map size, -1 = default
         * @return this
         */
        public StoreRecord mapSize(long bytes) {
            return set(Abi.OPT_MAP_SIZE, bytes);
        }

        /**
         * @param n LMDB's named databases, -1 = default
         * @return this
         */
        public StoreRecord maxColumnFamilies(long n) {
            return set(Abi.OPT_MAX_DBS, n);
        }

        /**
         * @param n LMDB's readers, -1 = default
         * @return this
         */
        public StoreRecord maxReaders(long n) {
            return set(Abi.OPT_MAX_READERS, n);
        }

        /**
         * @param bits {@code FERRY_LMDB_*} bits ({@link #lmdbFlag(String)})
         * @return this
         */
        public StoreRecord lmdbFlags(int bits) {
            return set(Abi.OPT_LMDB_FLAGS, bits);
        }

        /**
         * @param bytes LMDB's auto-grow step, -1 = default
         * @return this
         */
        public StoreRecord autoGrowStep(long bytes) {
            return set(Abi.OPT_AUTO_GROW, bytes);
        }

        /**
         * @param on RocksDB statistics (off = default)
         * @return this
         */
        public StoreRecord statistics(boolean on) {
            return onOrDefault(Abi.OPT_STATISTICS, on);
        }

        /**
         * @param seconds a TTL store's TTL in seconds, -1 = a plain store
         * @return this
         */
        public StoreRecord ttlSeconds(long seconds) {
            return set(Abi.OPT_TTL_SECONDS, seconds);
        }

        /**
         * @param bytes RocksDB cursors' readahead, -1 = default
         * @return this
         */
        public StoreRecord readaheadBytes(long bytes) {
            return set(Abi.OPT_READAHEAD_BYTES, bytes);
        }

        /**
         * RocksDB's transactions; LMDB takes none (its write transactions need no mode).
         *
         * @param pessimistic a TransactionDB
         * @param optimistic an OptimisticTransactionDB (when not pessimistic)
         * @return this
         */
        public StoreRecord transactions(boolean pessimistic, boolean optimistic) {
            return set(Abi.OPT_TRANSACTIONS, pessimistic ? Abi.TXN_MODE_PESSIMISTIC
                    : optimistic ? Abi.TXN_MODE_OPTIMISTIC : Abi.TXN_MODE_NONE);
        }

        /**
         * @param millis a pessimistic transaction's lock timeout, -1 = default
         * @return this
         */
        public StoreRecord lockTimeoutMillis(long millis) {
            return set(Abi.OPT_TXN_LOCK_TIMEOUT_MS, millis);
        }

        /**
         * @param on index and filter blocks in the block cache (off = default)
         * @return this
         */
        public StoreRecord cacheIndexAndFilterBlocks(boolean on) {
            return onOrDefault(Abi.OPT_CACHE_INDEX_AND_FILTER, on);
        }

        /**
         * @param cache a shared block cache's handle, 0 = none
         * @return this
         */
        public StoreRecord blockCache(long cache) {
            return set(Abi.OPT_BLOCK_CACHE, cache);
        }

        /**
         * @param wbm a shared write buffer manager's handle, 0 = none
         * @return this
         */
        public StoreRecord writeBufferManager(long wbm) {
            return set(Abi.OPT_WRITE_BUFFER_MANAGER, wbm);
        }

        /**
         * @param limiter a shared rate limiter's handle, 0 = none
         * @return this
         */
        public StoreRecord rateLimiter(long limiter) {
            return set(Abi.OPT_RATE_LIMITER, limiter);
        }

        /**
         * @param manager a shared SST file manager's handle, 0 = none
         * @return this
         */
        public StoreRecord sstFileManager(long manager) {
            return set(Abi.OPT_SST_FILE_MANAGER, manager);
        }

        /** @return the array ({@code FERRY_OPT_COUNT} slots), this record's own */
        public long[] array() {
            return o;
        }
    }

    /**
     * The {@code FERRY_CFOPT_*} array of a RocksDB family ({@code ferry_cf_create}, the family records of
     * {@code ferry_store_open}); every slot starts at -1 (unset: the store's option).
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class FamilyRecord {
        private final long[] o = new long[Abi.CFOPT_COUNT];

        /** Creates a record of unset slots. */
        public FamilyRecord() {
            Arrays.fill(o, -1);
        }

        /**
         * @param compression a {@code FERRY_COMPRESSION_*} code, -1 = unset
         * @return this
         */
        public FamilyRecord compression(int compression) {
            o[Abi.CFOPT_COMPRESSION] = compression;
            return this;
        }

        /**
         * @param bits bloom bits per key, -1 = unset
         * @return this
         */
        public FamilyRecord bloomBits(long bits) {
            o[Abi.CFOPT_BLOOM_BITS] = bits;
            return this;
        }

        /**
         * @param bytes table block size, -1 = unset
         * @return this
         */
        public FamilyRecord blockSize(long bytes) {
            o[Abi.CFOPT_BLOCK_SIZE] = bytes;
            return this;
        }

        /**
         * @param bytes fixed prefix length, -1 = unset
         * @return this
         */
        public FamilyRecord prefixLength(long bytes) {
            o[Abi.CFOPT_PREFIX_LEN] = bytes;
            return this;
        }

        /**
         * @param order a {@code FERRY_ORDER_*} code, -1 = unset
         * @return this
         */
        public FamilyRecord keyOrder(int order) {
            o[Abi.CFOPT_KEY_ORDER] = order;
            return this;
        }

        /**
         * @param millis the values' time to live, -1 = none
         * @param offset the byte offset of a value's timestamp, -1 = unset
         * @return this
         */
        public FamilyRecord ttl(long millis, long offset) {
            o[Abi.CFOPT_TTL_MS] = millis;
            o[Abi.CFOPT_TTL_OFFSET] = offset;
            return this;
        }

        /** @return the array ({@code FERRY_CFOPT_COUNT} slots), this record's own */
        public long[] array() {
            return o;
        }
    }
}
