package dev.ferry.internal;

import java.security.CodeSource;

/**
 * The constants of Ferry's C ABI ({@code native/include/ferry.h}), typed once for all Java code:
 * each {@code FERRY_X} of the header is {@code Abi.X} here with the same value. A unit test
 * ({@code AbiTest}) parses the header and fails on any constant that is missing, extra or
 * different, and {@link #check} refuses a libferry whose {@code ferry_abi_version()} differs
 * from {@link #ABI_VERSION}.
 *
 * <p>Thread safety: constants only.
 */
public final class Abi {
    private Abi() {
    }

    /** Bumped when a signature or a layout of the ABI changes. */
    public static final int ABI_VERSION = 7;

    // ---- engines
    /** RocksDB. */
    public static final int ENGINE_ROCKSDB = 1;
    /** LMDB. */
    public static final int ENGINE_LMDB = 2;

    // ---- return codes
    /** Success. */
    public static final int OK = 0;
    /** Key, property or family not found. */
    public static final int NOTFOUND = -1001;
    /** Bad argument. */
    public static final int EINVAL = -1002;
    /** Allocation failed. */
    public static final int ENOMEM = -1003;
    /** Caller's buffer too small; the size needed is reported. */
    public static final int ETOOSMALL = -1004;
    /** Engine library not attached or a symbol missing. */
    public static final int ENOENGINE = -1005;
    /** Two copies of an engine are loaded. */
    public static final int EDUPENGINE = -1006;
    /** Not supported by this engine. */
    public static final int ENOTSUP = -1007;
    /** Store or family exists. */
    public static final int EEXISTS = -1008;
    /** Column family was dropped. */
    public static final int ECFDROPPED = -1009;
    /** Engine: corruption. */
    public static final int ECORRUPTION = -1010;
    /** Engine: I/O error. */
    public static final int EIO = -1011;
    /** Engine: busy. */
    public static final int EBUSY = -1012;
    /** Engine: incomplete. */
    public static final int EINCOMPLETE = -1013;
    /** Engine: timed out. */
    public static final int ETIMEDOUT = -1014;
    /** Engine: aborted. */
    public static final int EABORTED = -1015;
    /** Engine: try again. */
    public static final int ETRYAGAIN = -1016;
    /** Engine: invalid argument. */
    public static final int EENGINEARG = -1017;
    /** Engine: shutdown in progress. */
    public static final int ESHUTDOWN = -1018;
    /** LMDB: map full. */
    public static final int EMAPFULL = -1020;
    /** LMDB: reader table full. */
    public static final int EREADERSFULL = -1021;
    /** Too many column families. */
    public static final int EDBSFULL = -1022;
    /** LMDB: transaction unusable. */
    public static final int EBADTXN = -1023;
    /** Key or value size not accepted. */
    public static final int EKEYSIZE = -1024;
    /** Write on a read-only store. */
    public static final int EREADONLY = -1025;
    /** Cursor continued in the other direction. */
    public static final int EDIRECTION = -1026;
    /** A no-overwrite / no-dup-data write found the key (or pair): nothing written. */
    public static final int EKEYEXIST = -1030;
    /** Transaction: write conflict. */
    public static final int ECONFLICT = -1027;
    /** Transaction: deadlock. */
    public static final int EDEADLOCK = -1028;
    /** Other engine error. */
    public static final int EENGINE = -1099;

    // ---- ferry_error: i32 code, i32 engine_code, char message[ERRMSG_CAP]
    /** Capacity of ferry_error.message, NUL included. */
    public static final int ERRMSG_CAP = 1016;
    /** Offset of ferry_error.engine_code. */
    public static final int ERROR_ENGINE_CODE = 4;
    /** Offset of ferry_error.message. */
    public static final int ERROR_MESSAGE = 8;
    /** Size of ferry_error. */
    public static final int ERROR_SIZE = ERROR_MESSAGE + ERRMSG_CAP;

    // ---- open options: indices of the int64 array
    /** bool, default 1. */
    public static final int OPT_CREATE_IF_MISSING = 0;
    /** bool, default 0. */
    public static final int OPT_ERROR_IF_EXISTS = 1;
    /** bool, default 0. */
    public static final int OPT_READ_ONLY = 2;
    /** RocksDB block cache bytes. */
    public static final int OPT_BLOCK_CACHE_BYTES = 3;
    /** COMPRESSION_*. */
    public static final int OPT_COMPRESSION = 4;
    /** bool: RocksDB write-ahead log. */
    public static final int OPT_WAL = 5;
    /** bool: sync every write. */
    public static final int OPT_SYNC = 6;
    /** RocksDB bloom bits per key. */
    public static final int OPT_BLOOM_BITS = 7;
    /** RocksDB max_open_files. */
    public static final int OPT_MAX_OPEN_FILES = 8;
    /** LMDB map size. */
    public static final int OPT_MAP_SIZE = 9;
    /** LMDB max named databases. */
    public static final int OPT_MAX_DBS = 10;
    /** LMDB max readers. */
    public static final int OPT_MAX_READERS = 11;
    /** LMDB_* bit mask. */
    public static final int OPT_LMDB_FLAGS = 12;
    /** LMDB auto-grow step. */
    public static final int OPT_AUTO_GROW = 13;
    /** TXN_MODE_*: RocksDB transactions. */
    public static final int OPT_TRANSACTIONS = 14;
    /** RocksDB pessimistic lock timeout in ms. */
    public static final int OPT_TXN_LOCK_TIMEOUT_MS = 15;

    /** RocksDB statistics on (bool). */
    public static final int OPT_STATISTICS = 18;
    /** RocksDB cursors' readahead in bytes. */
    public static final int OPT_READAHEAD_BYTES = 19;
    /** RocksDB: a shared block cache (ferry_cache* as an integer, 0 = none). */
    public static final int OPT_BLOCK_CACHE = 20;
    /** RocksDB: a shared write buffer manager (ferry_wbm* as an integer, 0 = none). */
    public static final int OPT_WRITE_BUFFER_MANAGER = 21;
    /** RocksDB: index and filter blocks in the block cache, high priority, level 0 pinned (bool). */
    public static final int OPT_CACHE_INDEX_AND_FILTER = 22;
    /** RocksDB: a TTL store (DBWithTTL) with this TTL in seconds; -1 = a plain store. */
    public static final int OPT_TTL_SECONDS = 23;
    /** RocksDB: a shared rate limiter (ferry_rate_limiter* as an integer, 0 = none). */
    public static final int OPT_RATE_LIMITER = 24;
    /** RocksDB: a shared SST file manager (ferry_sst_manager* as an integer, 0 = none). */
    public static final int OPT_SST_FILE_MANAGER = 25;
    /** Number of OPT_* entries. */
    public static final int OPT_COUNT = 26;

    /** PerfContext level: count nothing. */
    public static final int PERF_DISABLE = 1;
    /** PerfContext level: counters, no timers (RocksDB's default in every thread). */
    public static final int PERF_COUNT = 2;
    /** PerfContext level: counters and timers, but mutex waits. */
    public static final int PERF_TIME_EXCEPT_FOR_MUTEX = 3;
    /** PerfContext level: counters and every timer. */
    public static final int PERF_TIME = 4;

    // ---- transaction modes (OPT_TRANSACTIONS)
    /** No transactions. */
    public static final int TXN_MODE_NONE = 0;
    /** RocksDB TransactionDB. */
    public static final int TXN_MODE_PESSIMISTIC = 1;
    /** RocksDB OptimisticTransactionDB. */
    public static final int TXN_MODE_OPTIMISTIC = 2;

    // ---- compression values
    /** None. */
    public static final int COMPRESSION_NONE = 0;
    /** Snappy. */
    public static final int COMPRESSION_SNAPPY = 1;
    /** LZ4. */
    public static final int COMPRESSION_LZ4 = 2;
    /** Zstandard. */
    public static final int COMPRESSION_ZSTD = 3;

    // ---- LMDB flags
    /** MDB_NOSYNC. */
    public static final int LMDB_NOSYNC = 0x1;
    /** MDB_NOMETASYNC. */
    public static final int LMDB_NOMETASYNC = 0x2;
    /** MDB_WRITEMAP. */
    public static final int LMDB_WRITEMAP = 0x4;
    /** MDB_NORDAHEAD. */
    public static final int LMDB_NORDAHEAD = 0x8;
    /** MDB_NOTLS. */
    public static final int LMDB_NOTLS = 0x10;
    /** An LMDB store whose default family holds more records than this lists its other families when asked. */
    public static final int LMDB_FAMILY_SCAN_MAX = 1000;

    // ---- cursor open flags
    /** Pointer pages where the engine pins data. */
    public static final int CURSOR_POINTERS = 0x1;
    /** RocksDB: do not fill the block cache. */
    public static final int CURSOR_NO_FILL_CACHE = 0x2;
    /** LMDB: no direct leaf-page walk. */
    public static final int CURSOR_ENGINE_STEPS = 0x4;
    /** RocksDB: do not verify block checksums. */
    public static final int CURSOR_NO_VERIFY_CHECKSUMS = 0x20;
    /** RocksDB: asynchronous prefetch (async_io). */
    public static final int CURSOR_ASYNC_IO = 0x40;
    public static final int CURSOR_AUTO_PREFIX = 0x80;

    // ---- cursor fill ops
    /** First entry, forward. */
    public static final int FIRST = 1;
    /** Last entry, reverse. */
    public static final int LAST = 2;
    /** First entry {@code >=} key. */
    public static final int SEEK_GE = 3;
    /** First entry {@code >} key. */
    public static final int SEEK_GT = 4;
    /** Last entry {@code <=} key. */
    public static final int SEEK_LE = 5;
    /** Last entry {@code <} key. */
    public static final int SEEK_LT = 6;
    /** Continue forward. */
    public static final int NEXT = 7;
    /** Continue in reverse. */
    public static final int PREV = 8;
    /** RocksDB: from the iterator's entry, forward. */
    public static final int CURRENT_FWD = 9;
    /** RocksDB: from the iterator's entry, reverse. */
    public static final int CURRENT_REV = 10;
    /** LMDB: first entry after a packed (key, value) pair, forward. */
    public static final int SEEK_PAIR_GT = 11;
    /** LMDB: last entry before a packed (key, value) pair, reverse. */
    public static final int SEEK_PAIR_LT = 12;

    // ---- page layout
    /** Page header bytes: u32 count, u32 flags, u64 used. */
    public static final int PAGE_HEADER = 16;
    /** Bytes of one pointer entry. */
    public static final int PTR_ENTRY = 24;
    /** Page flag: no entry follows in this direction. */
    public static final int PAGE_END = 0x1;
    /** Page flag: pointer entries. */
    public static final int PAGE_POINTERS = 0x2;
    /** Smallest page accepted. */
    public static final int PAGE_MIN = 64;
    /** Data bytes a pointer page points to, at most. */
    public static final int PTR_SPAN = 128 * 1024;
    /** Largest key or value a pointer entry carries. */
    public static final int ENTRY_MAX = 0x7fffffff;

    // ---- write-batch records
    /** Put. */
    public static final int OP_PUT = 1;
    /** Delete. */
    public static final int OP_DELETE = 2;
    /** Delete range. */
    public static final int OP_DELETE_RANGE = 3;
    /** Delete one (key, value) pair of an LMDB DUPSORT family. */
    public static final int OP_DELETE_VALUE = 5;
    /** Merge (RocksDB stores with a merge operator). */
    public static final int OP_MERGE = 7;
    /** Record header bytes: u32 op, u32 cf, u32 alen, u32 blen. */
    public static final int OP_HEADER = 16;

    // ---- split points (ferry_split_points)
    /** Record header bytes: u64 weight, u32 key length. */
    public static final int SPLIT_HEADER = 12;

    // ---- column-family flags
    /** LMDB MDB_DUPSORT. */
    public static final int CF_DUPSORT = 0x1;
    /** LMDB MDB_DUPFIXED (with DUPSORT). */
    public static final int CF_DUPFIXED = 0x2;

    // ---- per-column-family options (RocksDB): an int64 array for ferry_cf_create / ferry_store_open
    /** COMPRESSION_*. */
    public static final int CFOPT_COMPRESSION = 0;
    /** Bloom filter bits per key, 0..100, 0 = none. */
    public static final int CFOPT_BLOOM_BITS = 1;
    /** Table block size in bytes. */
    public static final int CFOPT_BLOCK_SIZE = 2;
    /** Fixed prefix extractor length, 0 = none. */
    public static final int CFOPT_PREFIX_LEN = 3;
    /** The family's key order, ORDER_*. */
    public static final int CFOPT_KEY_ORDER = 4;
    /** Time to live of the family's values in ms. */
    public static final int CFOPT_TTL_MS = 5;
    /** Byte offset of a value's big-endian ms timestamp. */
    public static final int CFOPT_TTL_OFFSET = 6;
    /** Number of CFOPT_* entries. */
    public static final int CFOPT_COUNT = 7;
    /** Largest CFOPT_BLOOM_BITS. */
    public static final int CFOPT_MAX_BLOOM_BITS = 100;
    /** Largest CFOPT_BLOCK_SIZE (2^30). */
    public static final int CFOPT_MAX_BLOCK_SIZE = 1073741824;
    /** Largest CFOPT_PREFIX_LEN. */
    public static final int CFOPT_MAX_PREFIX_LEN = 4096;
    /** Header bytes of a ferry_store_open family record: u32 name length, u32 options length, CFOPT_COUNT int64. */
    public static final int CFDESC_HEADER = 64;
    /** Largest CFOPT_TTL_OFFSET. */
    public static final int CFOPT_MAX_TTL_OFFSET = 65536;

    // ---- key orders (CFOPT_KEY_ORDER) and their ferry_cf_flags bits
    /** Unsigned bytes, then length. */
    public static final int ORDER_BYTEWISE = 0;
    /** RocksDB's reverse bytewise comparator. */
    public static final int ORDER_REVERSE = 1;
    /** 8-byte big-endian unsigned integers. */
    public static final int ORDER_U64_BE = 2;
    /** ferry_cf_flags: the family is in ORDER_REVERSE. */
    public static final int CF_ORDER_REVERSE = 0x100;
    /** ferry_cf_flags: the family is in ORDER_U64_BE. */
    public static final int CF_ORDER_U64_BE = 0x200;
    /** A family ordered by a comparator of the binding's language (ferry_comparator_create). */
    public static final int ORDER_CALLBACK = 3;
    /** ferry_cf_flags: the family is in ORDER_CALLBACK. */
    public static final int CF_ORDER_CALLBACK = 0x400;

    // ---- per-write flags (ferry_put, ferry_write)
    /** Sync before returning. */
    public static final int WRITE_SYNC = 0x1;
    /** RocksDB: no write-ahead log for this write. */
    public static final int WRITE_NO_WAL = 0x2;
    /** LMDB MDB_NOOVERWRITE. */
    public static final int WRITE_NO_OVERWRITE = 0x4;
    /** LMDB MDB_NODUPDATA. */
    public static final int WRITE_NO_DUP_DATA = 0x8;
    /** LMDB MDB_APPEND / MDB_APPENDDUP. */
    public static final int WRITE_APPEND = 0x10;

    // ---- checkpoints and backups
    /** LMDB: compacting copy (MDB_CP_COMPACT). */
    public static final int CHECKPOINT_COMPACT = 0x1;
    /** No fsync of the checkpoint's files and directories. */
    public static final int CHECKPOINT_NO_SYNC = 0x2;
    /** Bytes of one backup record: u32 id, u32 files, i64 timestamp, u64 size. */
    public static final int BACKUP_INFO_SIZE = 24;

    // ---- SST ingestion
    /** Move (hard-link) ingested files instead of copying them. */
    public static final int INGEST_MOVE = 0x1;

    // ---- shared memory (RocksDB)
    /** Block cache flag: strict capacity limit. */
    public static final int CACHE_STRICT_CAPACITY = 0x1;
    /** Write buffer manager flag: stall writes over the buffer size. */
    public static final int WBM_ALLOW_STALL = 0x1;

    // ---- callbacks of the binding's language (RocksDB)
    /** Longest name of a merge operator or compaction filter written in Java. */
    public static final int MERGE_NAME_MAX = 128;
    /** Compaction filter call: a compaction starts. */
    public static final int FILTER_BEGIN = 0;
    /** Compaction filter call: one entry. */
    public static final int FILTER_ENTRY = 1;
    /** Compaction filter call: a compaction ended. */
    public static final int FILTER_END = 2;
    /** Compaction filter BEGIN bit: a full compaction. */
    public static final int FILTER_FULL = 1;
    /** Compaction filter BEGIN bit: a manual compaction. */
    public static final int FILTER_MANUAL = 2;
    /** Compaction filter answer: keep the entry. */
    public static final int FILTER_KEEP = 0;
    /** Compaction filter answer: remove the entry. */
    public static final int FILTER_REMOVE = 1;
    /** Compaction filter answer: change the value. */
    public static final int FILTER_CHANGE = 2;

    /**
     * Refuses a libferry built for another ABI than these classes: calling it would pass arguments
     * the library reads differently (a crash or a wrong answer, not an error).
     *
     * @param loaded what the library's {@code ferry_abi_version()} returned
     * @param library where the library was loaded from
     * @throws LinkageError naming both sides when they differ
     */
    public static void check(int loaded, Object library) {
        if (loaded != ABI_VERSION) {
            throw new LinkageError("libferry at " + library + " implements Ferry's C ABI version " + loaded + ", but "
                    + codeSource() + " was built for version " + ABI_VERSION
                    + ": the jar and the native library come from different Ferry builds (check -D"
                    + NativeLibrary.LIB_PROPERTY + " and stale copies of ferry-core on the class path)");
        }
    }

    private static String codeSource() {
        try {
            CodeSource cs = Abi.class.getProtectionDomain().getCodeSource();
            return cs == null || cs.getLocation() == null ? "dev.ferry (ferry-core)" : "ferry-core at " + cs.getLocation();
        } catch (SecurityException e) {
            return "dev.ferry (ferry-core)";
        }
    }
}
