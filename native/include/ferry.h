/**
 * @file ferry.h
 * @brief Ferry C ABI: the one contract between Java (JNI and FFM) and the engines.
 *
 * Ferry is a small shim over RocksDB's C API and LMDB, both taken from the binaries that
 * ship in the official Java artifacts (rocksdbjni, lmdbjava's native jar). The shim is
 * compiled against this header and its own declarations of the engine functions it uses
 * (src/rocksdb_api.h, src/lmdb_api.h), with no engine header; those functions are resolved at
 * run time into function-pointer tables.
 *
 * Conventions (in the manner of lmdb.h):
 * - Handles are opaque. Every function returns an int: 0 (FERRY_OK) or a non-negative
 *   count where documented, a negative FERRY_* code otherwise. Outputs come last.
 * - Fallible calls take a ferry_error* as their last parameter (may be NULL). When the
 *   call fails with an engine error, the engine's message and native code are copied
 *   there; no string is ever allocated for the caller to free.
 * - Keys and values are (pointer, length) pairs. Lengths are size_t; a NULL pointer with
 *   length 0 is an empty key/value, and where a bound is optional, NULL means "none".
 * - Column families are small integers: 0 is the default family. The id stays valid for
 *   the store's lifetime and is never given to another family; after a drop it fails with
 *   FERRY_ECFDROPPED.
 * - One function per operation: its flags and options are parameters (0 / NULL for none),
 *   never a numbered twin. Functions are grouped by the handle they act on: library, store,
 *   column family, reads and writes of a store, snapshot, transaction, cursor, backups, SST
 *   writer, RocksJava interop, shared memory (block caches, write buffer managers).
 * - The Java bindings' code for each function (JNI and FFM) is generated from the prototypes
 *   here by native/gen/bindings.py: every function has its doc comment, and its parameters use
 *   the fixed-width types the generator maps. "@ffm critical" in a function's comment makes
 *   the FFM binding call it without a thread-state transition: only for functions that cannot
 *   block, call back or do I/O.
 *
 * Threading: a store and its snapshots may be used from many threads at once (LMDB
 * snapshots are bound to the opening thread unless the store was opened with NOTLS).
 * A cursor is used by one thread at a time. The caller guarantees that no call is in
 * flight on a handle when it is closed (the Java bindings enforce this).
 */
#ifndef FERRY_H
#define FERRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libferry (libferry.so, libferry.dylib, ferry.dll); everything else is hidden. */
#ifdef _WIN32
#define FERRY_EXPORT __declspec(dllexport)
#else
#define FERRY_EXPORT __attribute__((visibility("default")))
#endif

/** ABI version: bumped when a signature or a layout below changes. 5: each operation one function
 *  (ferry_store_open, ferry_cf_create, ferry_get, ferry_multi_get, ferry_put and ferry_write took the
 *  parameters of their numbered twins, which are gone). 6: ferry_cache_usage and ferry_wbm_usage take
 *  a ferry_error, last. 7: FERRY_CFOPT_KEY_ORDER, FERRY_CFOPT_TTL_MS and FERRY_CFOPT_TTL_OFFSET (FERRY_CFOPT_COUNT 7,
 *  FERRY_CFDESC_HEADER 64), ferry_ttl_clock. */
#define FERRY_ABI_VERSION 7

/** @name Engines */
/**@{*/
#define FERRY_ENGINE_ROCKSDB 1
#define FERRY_ENGINE_LMDB    2
/**@}*/

/** @name Return codes (0 = ok; Ferry's own codes live in -1000..-1099) */
/**@{*/
#define FERRY_OK             0
#define FERRY_NOTFOUND      (-1001) /**< key, property, family or store not found (not an error for get) */
#define FERRY_EINVAL        (-1002) /**< bad argument: NULL handle, bad length, bad op */
#define FERRY_ENOMEM        (-1003) /**< allocation failed */
#define FERRY_ETOOSMALL     (-1004) /**< caller's buffer too small; needed size reported */
#define FERRY_ENOENGINE     (-1005) /**< engine library not attached / symbol missing */
#define FERRY_EDUPENGINE    (-1006) /**< two copies of an engine are loaded in this process */
#define FERRY_ENOTSUP       (-1007) /**< not supported by this engine */
#define FERRY_EEXISTS       (-1008) /**< store or family exists (error_if_exists, create) */
#define FERRY_ECFDROPPED    (-1009) /**< column family was dropped */
#define FERRY_ECORRUPTION   (-1010) /**< engine: corruption */
#define FERRY_EIO           (-1011) /**< engine: I/O error */
#define FERRY_EBUSY         (-1012) /**< engine: busy / lock held */
#define FERRY_EINCOMPLETE   (-1013) /**< engine: incomplete */
#define FERRY_ETIMEDOUT     (-1014) /**< engine: timed out */
#define FERRY_EABORTED      (-1015) /**< engine: aborted */
#define FERRY_ETRYAGAIN     (-1016) /**< engine: try again */
#define FERRY_EENGINEARG    (-1017) /**< engine: invalid argument */
#define FERRY_ESHUTDOWN     (-1018) /**< engine: shutdown in progress */
#define FERRY_EMAPFULL      (-1020) /**< LMDB: map full (grow map_size) */
#define FERRY_EREADERSFULL  (-1021) /**< LMDB: reader table full (raise max_readers) */
#define FERRY_EDBSFULL      (-1022) /**< LMDB: too many named databases (raise max_dbs) */
#define FERRY_EBADTXN       (-1023) /**< LMDB: transaction unusable (wrong thread, reset) */
#define FERRY_EKEYSIZE      (-1024) /**< key or value size not accepted by the engine */
#define FERRY_EREADONLY     (-1025) /**< write on a store opened read-only */
#define FERRY_EDIRECTION    (-1026) /**< cursor continued in the other direction */
#define FERRY_EKEYEXIST     (-1030) /**< a write with FERRY_WRITE_NO_OVERWRITE / NO_DUP_DATA found the key
                                         (or key and value) already there; nothing was written */
#define FERRY_ECONFLICT     (-1027) /**< transaction: write conflict (RocksDB: a pessimistic write or lock lost
                                         to another writer, an optimistic commit that found a newer write) */
#define FERRY_EDEADLOCK     (-1028) /**< transaction: RocksDB's deadlock detection chose this transaction */
#define FERRY_EENGINE       (-1099) /**< other engine error (see engine_code/message) */
/**@}*/

/** Capacity of ferry_error.message, including the terminating NUL. */
#define FERRY_ERRMSG_CAP 1016

/** Error details of a failed call. 1024 bytes, 4-byte aligned. */
typedef struct ferry_error {
    int32_t code;                      /**< the FERRY_* code that was returned */
    int32_t engine_code;               /**< engine's own code (RocksDB Status::Code, LMDB rc) or 0 */
    char message[FERRY_ERRMSG_CAP];    /**< NUL-terminated, truncated engine message */
} ferry_error;

typedef struct ferry_store ferry_store;
typedef struct ferry_snapshot ferry_snapshot;
typedef struct ferry_cursor ferry_cursor;

/** @name Open options: an int64_t array indexed by these; -1 = engine default */
/**@{*/
#define FERRY_OPT_CREATE_IF_MISSING  0  /**< bool, default 1 */
#define FERRY_OPT_ERROR_IF_EXISTS    1  /**< bool, default 0 */
#define FERRY_OPT_READ_ONLY          2  /**< bool, default 0 */
#define FERRY_OPT_BLOCK_CACHE_BYTES  3  /**< RocksDB LRU block cache size */
#define FERRY_OPT_COMPRESSION        4  /**< FERRY_COMPRESSION_* */
#define FERRY_OPT_WAL                5  /**< bool: RocksDB write-ahead log, default 1 */
#define FERRY_OPT_SYNC               6  /**< bool, default 0. 1: a write is synced to disk before it returns
                                             (survives an OS crash or power loss). 0: a write reaches the
                                             OS before it returns, unsynced (survives a crash of the process,
                                             not of the OS): RocksDB WriteOptions.sync=false, LMDB MDB_NOSYNC.
                                             LMDB refuses 1 with FERRY_LMDB_NOSYNC (FERRY_EINVAL). */
#define FERRY_OPT_BLOOM_BITS         7  /**< RocksDB bloom filter bits per key, 0 = none */
#define FERRY_OPT_MAX_OPEN_FILES     8  /**< RocksDB max_open_files */
#define FERRY_OPT_MAP_SIZE           9  /**< LMDB map size in bytes */
#define FERRY_OPT_MAX_DBS           10  /**< LMDB max live named databases (dropped ones do not count) */
#define FERRY_OPT_MAX_READERS       11  /**< LMDB max readers */
#define FERRY_OPT_LMDB_FLAGS        12  /**< FERRY_LMDB_* bit mask */
#define FERRY_OPT_AUTO_GROW         13  /**< LMDB: grow the map on MAP_FULL, bytes per step (0 = off) */
#define FERRY_OPT_TRANSACTIONS      14  /**< FERRY_TXN_MODE_*: RocksDB opens a TransactionDB (1) or an
                                             OptimisticTransactionDB (2); default 0, no transactions.
                                             LMDB always has its write transaction and ignores it, and
                                             so does a read-only open (ferry_txn_begin: FERRY_EREADONLY). */
#define FERRY_OPT_TXN_LOCK_TIMEOUT_MS 15 /**< RocksDB pessimistic: default lock wait of a transaction, and of a
                                             plain write, in ms (RocksDB's default: 1000); -1 engine default */
#define FERRY_OPT_STATISTICS        18 /**< RocksDB: bool, default 0. 1: collect statistics (tickers and histograms,
                                             read as the "rocksdb.options-statistics" property); LMDB: FERRY_EINVAL */
#define FERRY_OPT_READAHEAD_BYTES   19 /**< RocksDB: readahead of every cursor's table reads in bytes
                                             (ReadOptions.readahead_size; default -1/0: RocksDB's own automatic
                                             readahead); LMDB: FERRY_EINVAL */
#define FERRY_OPT_BLOCK_CACHE       20 /**< RocksDB: a shared block cache, the ferry_cache* from ferry_cache_create as an
                                             integer (-1 or 0: none). Every family of the store uses it; the store
                                             holds it until it closes (see "Shared memory"). Not with
                                             FERRY_OPT_BLOCK_CACHE_BYTES (FERRY_EINVAL). LMDB: FERRY_EINVAL */
#define FERRY_OPT_WRITE_BUFFER_MANAGER 21 /**< RocksDB: a shared write buffer manager, the ferry_wbm* from
                                             ferry_wbm_create as an integer (-1 or 0: none); held like
                                             FERRY_OPT_BLOCK_CACHE. LMDB: FERRY_EINVAL */
#define FERRY_OPT_CACHE_INDEX_AND_FILTER 22 /**< RocksDB: bool, default 0. 1: index and filter blocks live in the block
                                             cache (charged to it, in its high-priority pool) instead of outside
                                             it, and those of level-0 files stay pinned there
                                             (cache_index_and_filter_blocks, ..._with_high_priority,
                                             pin_l0_filter_and_index_blocks_in_cache). LMDB: FERRY_EINVAL */
#define FERRY_OPT_TTL_SECONDS      23 /**< RocksDB: open a TTL store (RocksDB's DBWithTTL, rocksdb_open_column_families_with_ttl):
                                             every value written gets a 4-byte timestamp suffix, which reads
                                             strip, and compactions drop values older than this many seconds
                                             (reads may still see them until then; 0: never). -1: a plain
                                             store. A TTL store and a plain one cannot be opened as each
                                             other (FERRY_EINVAL, see "TTL stores"). LMDB: FERRY_EINVAL */
#define FERRY_OPT_RATE_LIMITER     24 /**< RocksDB: a shared rate limiter of flush and compaction writes, the ferry_rate_limiter*
                                             from ferry_rate_limiter_create as an int64 (see "RocksDB services"); -1 or 0:
                                             none. LMDB: FERRY_EINVAL */
#define FERRY_OPT_SST_FILE_MANAGER 25 /**< RocksDB: a shared SST file manager, the ferry_sst_manager* from
                                             ferry_sst_manager_create as an int64; -1 or 0: none. LMDB: FERRY_EINVAL */
#define FERRY_OPT_COUNT             26
/**@}*/

/** @name Values of FERRY_OPT_TRANSACTIONS */
/**@{*/
#define FERRY_TXN_MODE_NONE        0
#define FERRY_TXN_MODE_PESSIMISTIC 1
#define FERRY_TXN_MODE_OPTIMISTIC  2
/**@}*/

/** @name Compression values for FERRY_OPT_COMPRESSION */
/**@{*/
#define FERRY_COMPRESSION_NONE   0
#define FERRY_COMPRESSION_SNAPPY 1
#define FERRY_COMPRESSION_LZ4    2
#define FERRY_COMPRESSION_ZSTD   3
/**@}*/

/** @name LMDB flags for FERRY_OPT_LMDB_FLAGS */
/**@{*/
#define FERRY_LMDB_NOSYNC     0x1 /**< implied by FERRY_OPT_SYNC 0; refused with FERRY_OPT_SYNC 1 */
#define FERRY_LMDB_NOMETASYNC 0x2 /**< with FERRY_OPT_SYNC 1: the meta page is synced one commit late */
#define FERRY_LMDB_WRITEMAP   0x4
#define FERRY_LMDB_NORDAHEAD  0x8
#define FERRY_LMDB_NOTLS      0x10
/**@}*/

/** @name Cursor open flags */
/**@{*/
#define FERRY_CURSOR_POINTERS      0x1 /**< fill pages in pointer mode where the engine pins data (LMDB: read
                                             transactions; RocksDB: store cursors, see "Page layout") */
#define FERRY_CURSOR_NO_FILL_CACHE 0x2 /**< RocksDB: do not fill the block cache */
#define FERRY_CURSOR_ENGINE_STEPS  0x4 /**< LMDB: step through every entry with mdb_cursor_get (no direct leaf-page walk) */
#define FERRY_CURSOR_NO_VERIFY_CHECKSUMS 0x20 /**< RocksDB: do not verify block checksums of what the cursor reads
                                                   (LMDB keeps no checksums: no effect) */
#define FERRY_CURSOR_ASYNC_IO      0x40 /**< RocksDB: prefetch table blocks asynchronously (ReadOptions.async_io);
                                             FERRY_ENOTSUP on a RocksDB without it (7.9.2). LMDB: no effect */
#define FERRY_CURSOR_AUTO_PREFIX   0x80 /**< RocksDB: ReadOptions.auto_prefix_mode: seeks use the family's prefix
                                             bloom filters wherever that cannot change the total-order answer
                                             (same-prefix seeks below the upper bound); FERRY_ENOTSUP on a RocksDB
                                             without rocksdb_readoptions_set_auto_prefix_mode. LMDB: no effect */
/**@}*/

/** @name Cursor fill ops: where to go before filling */
/**@{*/
#define FERRY_FIRST   1 /**< first entry in range, then forward */
#define FERRY_LAST    2 /**< last entry in range, then reverse */
#define FERRY_SEEK_GE 3 /**< first entry >= key, forward */
#define FERRY_SEEK_GT 4 /**< first entry > key, forward */
#define FERRY_SEEK_LE 5 /**< last entry <= key, reverse */
#define FERRY_SEEK_LT 6 /**< last entry < key, reverse */
#define FERRY_NEXT    7 /**< continue forward where the previous forward fill stopped */
#define FERRY_PREV    8 /**< continue in reverse where the previous reverse fill stopped */
#define FERRY_CURRENT_FWD 9  /**< RocksDB: start at the entry the engine iterator stands on, then forward
                                  (a wrapped RocksJava iterator: where RocksJava left it) */
#define FERRY_CURRENT_REV 10 /**< RocksDB: start at the entry the engine iterator stands on, then reverse */
#define FERRY_SEEK_PAIR_GT 11 /**< LMDB: first entry > (key, value), forward; key/klen hold the packed pair
                                   "u32 key length; key bytes; value bytes" (a DUPSORT family's cursor changing
                                   direction inside a key's values). Without DUPSORT: as FERRY_SEEK_GT on the key */
#define FERRY_SEEK_PAIR_LT 12 /**< LMDB: last entry < (key, value), reverse; key as for FERRY_SEEK_PAIR_GT */
/**@}*/

/** @name Page layout (all integers native-endian)
 * Header (16 bytes): u32 count; u32 flags; u64 used (bytes incl. header), or on
 * FERRY_ETOOSMALL the page size needed for the next entry alone.
 * Copy entry: u32 klen; u32 vlen; key bytes; value bytes; padded to 8 bytes.
 * Pointer entry (24 bytes): u64 key address; u32 klen; u32 vlen; u64 value address.
 * A pointer page carries keys and values of at most FERRY_ENTRY_MAX bytes (what a Java view
 * addresses); for a larger entry the fill stops before it and, when it comes first, fails with
 * FERRY_ETOOSMALL reporting the size a copy page would need.
 * RocksDB pointer pages (store cursors opened with FERRY_CURSOR_POINTERS; not transactions, not
 * families with a merge operator or with blob files, which fill copy pages): values point where
 * the cursor's iterator read them, which it keeps pinned (ReadOptions.pin_data) until the cursor
 * closes or opens a fresh iterator; keys are copied to the page's end (growing down; "used" counts
 * the entries only) and the entries point there. Once a cursor has returned 4 MiB of keys and
 * values it opens a fresh iterator at its position (at the next fill, after positioning), so what
 * it pins stays near that plus the blocks of the entries it stepped over. A cursor opened without
 * a snapshot takes one for this. The addresses stay valid until the cursor's next fill or close.
 */
/**@{*/
#define FERRY_PAGE_HEADER    16
#define FERRY_PTR_ENTRY      24  /**< bytes of one pointer entry */
#define FERRY_PAGE_END       0x1 /**< no entry follows the last one in this direction */
#define FERRY_PAGE_POINTERS  0x2 /**< entries are pointer entries */
#define FERRY_PAGE_MIN       64  /**< smallest page accepted */
#define FERRY_PTR_SPAN       (128 * 1024) /**< data bytes a pointer page points to, at most (past one entry) */
#define FERRY_ENTRY_MAX      0x7fffffff   /**< largest key or value a pointer entry carries (2 GiB - 1) */
/**@}*/

/** @name Write-batch records, packed back to back (no padding, native-endian)
 * u32 op; u32 cf; u32 alen; u32 blen; a bytes; b bytes.
 * PUT: a = key, b = value. MERGE: a = key, b = operand. DELETE: a = key, blen = 0. DELETE_RANGE: a = begin (incl), b = end (excl),
 * both keys; a record with begin >= end in unsigned byte order (blen = 0 included) is skipped, as
 * by ferry_delete_range.
 */
/**@{*/
#define FERRY_OP_PUT          1
#define FERRY_OP_DELETE       2
#define FERRY_OP_DELETE_RANGE 3
#define FERRY_OP_DELETE_VALUE 5 /**< LMDB DUPSORT families: a = key, b = value; deletes that one
                                     (key, value) pair (absent: not an error). Other families:
                                     FERRY_EINVAL; RocksDB: FERRY_ENOTSUP (nothing applied) */
#define FERRY_OP_MERGE        7 /**< a = key, b = merge operand: RocksDB stores with a merge operator only
                                     (else the batch fails with FERRY_ENOTSUP, nothing applied) */
#define FERRY_OP_HEADER       16
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Library: version, messages, engines (no handle) */
/**@{*/
/** @brief Return FERRY_ABI_VERSION of the loaded library. @ffm critical */
FERRY_EXPORT int ferry_abi_version(void);

/** @brief Static message for a FERRY_* code ("unknown" for others). Never NULL. @ffm critical */
FERRY_EXPORT const char *ferry_strerror(int rc);

/** @brief Does nothing: the floor for per-call overhead measurements. @return 0 */
FERRY_EXPORT int ferry_noop(void);

/**
 * @brief Attach an engine library: resolve its functions into Ferry's table.
 * @param[in] engine FERRY_ENGINE_ROCKSDB or FERRY_ENGINE_LMDB.
 * @param[in] lib_path NULL: find the copy already loaded in this process (RocksDB, loaded by
 *            RocksJava); else a path to dlopen (LMDB; standalone C programs).
 * @param[out] err details on failure.
 * @note Thread-safe; idempotent when the same copy is attached again.
 * @return FERRY_OK, FERRY_ENOENGINE (not loaded, or a symbol missing),
 *         FERRY_EDUPENGINE (two copies loaded, or a different copy already attached).
 */
FERRY_EXPORT int ferry_engine_attach(int engine, const char *lib_path, ferry_error *err);

/**
 * @brief Path of the attached engine object.
 * @param[out] dst receives the NUL-terminated path (truncated to cap).
 * @return length of the path, FERRY_ENOENGINE if not attached.
 */
FERRY_EXPORT int ferry_engine_path(int engine, char *dst, size_t cap);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Stores (ferry_store): open, close, maintenance, properties */
/**@{*/
/**
 * @brief Open (or create) a store.
 * @param[in] engine FERRY_ENGINE_*; must be attached.
 * @param[in] path directory (RocksDB) or environment directory (LMDB), NUL-terminated UTF-8.
 * @param[in] opts int64 options indexed by FERRY_OPT_*; -1 = default. May be NULL.
 * @param[in] nopts number of entries in opts (fewer than FERRY_OPT_COUNT is fine).
 * @param[in] extra RocksDB options string applied last ("k=v;k=v"), or NULL. A comparator other
 *            than leveldb.BytewiseComparator and a table_factory other than BlockBasedTable are
 *            refused with FERRY_EINVAL (Ferry orders keys as unsigned bytes and needs range deletes).
 * @param[in] cfs the families' own options: ncfs records (see FERRY_CFDESC_HEADER and "Column
 *            families"), back to back; NULL when ncfs is 0. A record may name "default". Records
 *            naming families that do not exist are checked and otherwise ignored (create those with
 *            ferry_cf_create).
 * @param[in] cfs_len bytes at cfs: exactly the records.
 * @param[in] ncfs number of records; 0: every family has the store's options.
 * @param[out] out the store.
 * @note RocksDB: every existing column family is opened; ids follow the on-disk order
 *       with "default" as 0.
 * @note A directory holding the other engine's files (RocksDB: CURRENT, IDENTITY, MANIFEST-*,
 *       OPTIONS-*; LMDB: data.mdb, lock.mdb) is refused with FERRY_EINVAL naming the engine found:
 *       opening it would create a second store beside the first.
 * @return FERRY_OK, FERRY_EINVAL (bad options, an LMDB map size that cannot be mapped, the other
 *         engine's store at path; malformed family records, a name given twice, a family option
 *         out of range), FERRY_ENOTSUP (LMDB with a family option set), FERRY_EBUSY (RocksDB or LMDB
 *         store already open and locked), FERRY_NOTFOUND (no store at path and
 *         FERRY_OPT_CREATE_IF_MISSING off, or read-only: the same on both engines), FERRY_EEXISTS,
 *         engine codes.
 */
FERRY_EXPORT int ferry_store_open(int engine, const char *path, const int64_t *opts, uint32_t nopts,
                                  const char *extra, const void *cfs, size_t cfs_len, uint32_t ncfs,
                                  ferry_store **out, ferry_error *err);

/** @brief Close a store and free everything it owns. NULL is ignored.
 * @return FERRY_OK; FERRY_EBUSY for an LMDB store whose write transaction is open on another
 *         thread: only that thread can release LMDB's write lock, so the environment (and the
 *         handle) stay open until the process exits; do not open the path again in this process. */
FERRY_EXPORT int ferry_store_close(ferry_store *s);

/** @brief Flush memtables to synced table files (RocksDB) / sync the map to disk (LMDB): writes
 *  acknowledged before it returns survive an OS crash or power loss, whatever FERRY_OPT_SYNC. */
FERRY_EXPORT int ferry_flush(ferry_store *s, uint32_t cf, ferry_error *err);

/** @brief Compact [begin, end); NULL bounds are open. LMDB: FERRY_OK, nothing to do. */
FERRY_EXPORT int ferry_compact_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen,
                                     const void *end, size_t elen, ferry_error *err);

/**
 * @brief A store property as text (e.g. "rocksdb.stats", "lmdb.stat").
 * @param[out] dst NUL-terminated value truncated to cap; @param[out] len_out full length.
 * @return FERRY_OK, FERRY_NOTFOUND (unknown property).
 */
FERRY_EXPORT int ferry_property(ferry_store *s, uint32_t cf, const char *name, char *dst, size_t cap,
                                size_t *len_out, ferry_error *err);

/**
 * @brief A numeric store property. "ferry.estimate-num-keys" works on every engine.
 * @return FERRY_OK, FERRY_NOTFOUND.
 */
FERRY_EXPORT int ferry_property_int(ferry_store *s, uint32_t cf, const char *name, uint64_t *out,
                                    ferry_error *err);

/* Checkpoints: a checkpoint is a consistent point-in-time copy of a store in a new directory, which
 * opens as a store of the same engine with every column family. */
#define FERRY_CHECKPOINT_COMPACT 0x1 /**< LMDB: copy with MDB_CP_COMPACT (free pages left out, pages
                                          renumbered); RocksDB refuses it with FERRY_EINVAL */
#define FERRY_CHECKPOINT_NO_SYNC 0x2 /**< skip the fsync of the checkpoint's files and directories
                                          (see ferry_checkpoint): for a copy that is read or uploaded
                                          and then deleted, and is not needed after a power cut */

/**
 * @brief Write a consistent point-in-time copy of the store into a new directory.
 * @param[in] dir the directory to create, NUL-terminated UTF-8; it must not exist (its parent must).
 * @param[in] flags 0, FERRY_CHECKPOINT_COMPACT (LMDB only), FERRY_CHECKPOINT_NO_SYNC.
 * @note RocksDB: rocksdb_checkpoint_create after a flush of every family: table files are hard
 *       links where dir is on the same file system (else copies), the WAL and MANIFEST are copied.
 *       The state is that of one point in time across all families while the write-ahead log is on
 *       (with it off, each family holds what its flush captured). LMDB: mdb_env_copy2 into
 *       dir/data.mdb, a copy of one read transaction; with FERRY_CHECKPOINT_COMPACT writers of this
 *       store wait until the copy is done.
 * @note Durability: the call returns after an fsync of every file and directory of dir, and of the
 *       directories above it, so the checkpoint survives a power cut. FERRY_CHECKPOINT_NO_SYNC
 *       leaves that out (the engine's own syncs remain): the checkpoint is complete for this and
 *       other processes at once, but a power cut may lose or truncate its files.
 * @note Thread-safe; reads and writes go on meanwhile.
 * @return FERRY_OK, FERRY_EINVAL (empty dir, unknown flags, COMPACT on RocksDB), FERRY_EEXISTS (dir
 *         exists), FERRY_ENOTSUP (a RocksDB store opened read-only: RocksDB would copy it without
 *         the writes still in its log; or a RocksDB library without checkpoints), FERRY_EREADERSFULL,
 *         engine codes (e.g. FERRY_EIO: the parent directory is missing or not searchable). A failed
 *         LMDB copy removes what it created.
 */
FERRY_EXPORT int ferry_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Column families (a ferry_store and a family id)
 * Families are small integers: 0 is the default family (see the conventions above).
 *
 * Flags and duplicate keys (LMDB):
 * An LMDB family created with FERRY_CF_DUPSORT keeps several values per key, sorted as unsigned
 * bytes: a put adds a value (putting a (key, value) pair that exists changes nothing), a delete of
 * the key removes all its values, FERRY_OP_DELETE_VALUE one of them, a get returns the smallest.
 * Cursor fills yield every (key, value) pair, key then value order (reverse: both reversed); the
 * seek ops work on keys: SEEK_GE/SEEK_GT land on the first value of a key, SEEK_LE/SEEK_LT on the
 * last value of a key (SEEK_GT skips every value of an equal key). Values of a DUPSORT family are
 * limited to the engine's key size (511 bytes by default): a larger one fails with FERRY_EKEYSIZE.
 * Flags are stored with the family: a store opened again uses the stored ones
 * (ferry_cf_flags). RocksDB has no duplicate keys: any flag gives FERRY_ENOTSUP.
 *
 * Per-family options (RocksDB):
 * A RocksDB family can have table and column-family options of its own: an int64_t array indexed
 * by FERRY_CFOPT_* (-1 = the store's setting, as given at open) and an options string of the
 * family's own ("merge_operator=uint64add"; checked like ferry_store_open's extra: a comparator, a
 * table factory or a merge operator Ferry does not accept gives FERRY_EINVAL; applied after the
 * array). A family without options of its own has the store's.
 *
 * RocksDB needs a family's options at every open: ferry_store_open takes them per family name
 * (FERRY_CFDESC_* records). Ferry does not read them back from the OPTIONS-* file; a family opened
 * without its options has the store's, except that an open which would leave a family without the
 * merge operator its last open had fails with FERRY_EINVAL (its merge operands would be
 * unreadable). Table files written with other compression, block size or filters stay readable.
 *
 * LMDB has none of these settings: any option set (not -1) or a non-empty options string gives
 * FERRY_ENOTSUP; an array of -1 and an empty string are accepted.
 */
/**@{*/
#define FERRY_CF_DUPSORT  0x1 /**< LMDB MDB_DUPSORT: several sorted values per key */
#define FERRY_CF_DUPFIXED 0x2 /**< LMDB MDB_DUPFIXED (with DUPSORT only): a key's values all have one size
                                   (a value of another size fails with FERRY_EKEYSIZE) */
/* A cursor changing direction inside a key's values seeks with FERRY_SEEK_PAIR_GT / FERRY_SEEK_PAIR_LT. */

#define FERRY_CFOPT_COMPRESSION  0  /**< FERRY_COMPRESSION_* */
#define FERRY_CFOPT_BLOOM_BITS   1  /**< bloom filter bits per key, 0..FERRY_CFOPT_MAX_BLOOM_BITS, 0 = no filter */
#define FERRY_CFOPT_BLOCK_SIZE   2  /**< table block size in bytes, 1..FERRY_CFOPT_MAX_BLOCK_SIZE (RocksDB's default 4096) */
#define FERRY_CFOPT_PREFIX_LEN   3  /**< fixed-length prefix extractor: prefix bytes 1..FERRY_CFOPT_MAX_PREFIX_LEN, 0 = none. Bloom
                                         filters then also hold the prefixes; cursors still seek in total
                                         order (Ferry's ranges are exact) */
#define FERRY_CFOPT_KEY_ORDER    4  /**< the family's key order, FERRY_ORDER_* (see "Key order" below); -1: bytewise */
#define FERRY_CFOPT_TTL_MS       5  /**< time to live of the family's values in ms, at least 1 (see "TTL" below); -1: none */
#define FERRY_CFOPT_TTL_OFFSET   6  /**< byte offset of a value's timestamp, 0..FERRY_CFOPT_MAX_TTL_OFFSET; -1: 0 */
#define FERRY_CFOPT_COUNT        7

#define FERRY_CFOPT_MAX_BLOOM_BITS 100        /**< largest FERRY_CFOPT_BLOOM_BITS */
#define FERRY_CFOPT_MAX_BLOCK_SIZE 1073741824 /**< largest FERRY_CFOPT_BLOCK_SIZE (2^30) */
#define FERRY_CFOPT_MAX_PREFIX_LEN 4096       /**< largest FERRY_CFOPT_PREFIX_LEN */
#define FERRY_CFOPT_MAX_TTL_OFFSET 65536      /**< largest FERRY_CFOPT_TTL_OFFSET */

/** Size of a family record's header for ferry_store_open: uint32_t name length, uint32_t options
 *  string length, int64_t opts[FERRY_CFOPT_COUNT], all native-endian and unaligned, followed by the
 *  name's bytes and the options string's bytes (no NUL terminators). */
#define FERRY_CFDESC_HEADER      64

/** @name Key order (RocksDB: native comparators, per family)
 * A RocksDB family orders its keys by one of these comparators, chosen when it is created
 * (FERRY_CFOPT_KEY_ORDER) and given again at every open: RocksDB records the comparator's name and
 * refuses an open with another one (FERRY_EENGINEARG, the message names both). The comparators run
 * inside the engine: no call leaves native code per comparison.
 * - FERRY_ORDER_BYTEWISE: unsigned bytes, then length (RocksDB's leveldb.BytewiseComparator), the default.
 * - FERRY_ORDER_REVERSE: the reverse of bytewise (RocksDB's built-in rocksdb.ReverseBytewiseComparator,
 *   RocksJava's BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR). Every bound is taken in this order: a
 *   cursor's [lower, upper) holds the keys k with lower >= k > upper in bytewise terms, FERRY_FIRST is
 *   the bytewise-largest key, a range delete [begin, end) with begin <= end bytewise is empty (skipped).
 *   ferry_split_points answers 0 records (no split), ferry_ingest refuses the family (FERRY_ENOTSUP:
 *   ferry_sst_* write bytewise files).
 * - FERRY_ORDER_U64_BE: keys are unsigned 64-bit integers, 8 bytes big-endian, in numeric order
 *   (ferry.Uint64BigEndianComparator, a comparator of the shim): the same order as bytewise for 8-byte
 *   keys, with the key length checked: a put or merge of a key of another length fails with
 *   FERRY_EKEYSIZE before RocksDB sees it (a delete or a read of one finds nothing). Its name keeps a
 *   store written as integers from being opened bytewise. ferry_ingest refuses it as for REVERSE.
 * ferry_cf_flags reports a family's order as FERRY_CF_ORDER_* bits.
 * LMDB takes FERRY_ORDER_BYTEWISE, _REVERSE and _U64_BE (FERRY_CFOPT_KEY_ORDER is its one FERRY_CFOPT_*;
 * not with FERRY_CF_DUPSORT: FERRY_ENOTSUP). The order is kept in the family's LMDB database flags
 * (MDB_REVERSEDUP, MDB_INTEGERDUP: flags LMDB reads only for DUPSORT databases) and set with
 * mdb_set_compare whenever the shim opens the family's handle (REVERSE: a comparison of the shim, not
 * LMDB's MDB_REVERSEKEY, which compares from the keys' ends; U64_BE: LMDB's bytewise comparison and the
 * key length check). A family found in another order than its record at ferry_store_open gives (none:
 * bytewise) fails with FERRY_EINVAL naming both, at the open or at the lookup that finds it. Other LMDB
 * programs opening such a family must set the same comparison themselves.
 */
/**@{*/
#define FERRY_ORDER_BYTEWISE 0
#define FERRY_ORDER_REVERSE  1
#define FERRY_ORDER_U64_BE   2
#define FERRY_CF_ORDER_REVERSE 0x100 /**< ferry_cf_flags: the family is in FERRY_ORDER_REVERSE */
#define FERRY_CF_ORDER_U64_BE  0x200 /**< ferry_cf_flags: the family is in FERRY_ORDER_U64_BE */
/**@}*/

/* TTL stores (RocksDB's DBWithTTL, FERRY_OPT_TTL_SECONDS).
 * A TTL store keeps a 4-byte timestamp after every value on disk. Ferry's reads and writes, checkpoints,
 * backups and the RocksJava interop calls (on a RocksJava TtlDB too: the C API reaches its virtual
 * methods) all go through the TTL layer and never show the suffix; what would bypass it is refused:
 * - a plain open (without FERRY_OPT_TTL_SECONDS) of a store whose newest OPTIONS file names RocksDB's
 *   TtlCompactionFilterFactory (a TTL store, or its checkpoint, backup or a RocksJava TtlDB's store):
 *   FERRY_EINVAL naming FERRY_OPT_TTL_SECONDS;
 * - a TTL open of an existing store whose OPTIONS file does not (its values have no suffix): FERRY_EINVAL;
 * - ferry_ingest into a TTL store (SST files hold values without the suffix): FERRY_ENOTSUP;
 * - a TTL store with transactions (FERRY_EINVAL) or read-only (FERRY_ENOTSUP: RocksDB's C API opens TTL
 *   stores read-write only).
 */

/** @name TTL (RocksDB: a compaction filter of the shim, per family)
 * A RocksDB family created with FERRY_CFOPT_TTL_MS keeps values that carry their write time: a
 * big-endian signed int64 of milliseconds since the epoch at byte FERRY_CFOPT_TTL_OFFSET of the value
 * (the writer puts it there; Apache Flink's TTL state has it at offset 0 for value state and 1 for
 * map state). A value is expired once timestamp + TTL <= now (the sum saturates). Expired values are
 * - dropped by compactions (a compaction filter of the shim, "ferry.TtlCompactionFilter": plain C, no
 *   call per key leaves native code), and
 * - hidden from reads until then: ferry_get and a transaction's get answer FERRY_NOTFOUND,
 *   ferry_multi_get -1, cursor fills skip them (value counts follow ferry_get).
 * A value shorter than offset + 8 bytes has no timestamp and never expires; merge operands are not
 * filtered. "now" is the store's TTL clock: the wall clock, or a time set with ferry_ttl_clock (tests).
 * Like every family option it is given again at every open (a family opened without it keeps its
 * values, expired ones included, and shows them). LMDB: FERRY_ENOTSUP, as for every FERRY_CFOPT_*.
 */
/**@{*/
/**
 * @brief Set the store's TTL clock: the "now" of its TTL families' compaction filters and reads.
 * @param[in] now_ms milliseconds since the epoch; a negative value: the wall clock again (the default).
 * @note Thread-safe; takes effect for compactions and reads that start after it.
 * @return FERRY_OK, FERRY_EINVAL (NULL store), FERRY_ENOTSUP (LMDB).
 */
FERRY_EXPORT int ferry_ttl_clock(ferry_store *s, int64_t now_ms, ferry_error *err);
/**@}*/

/** @name Secondary instances (RocksDB)
 * A secondary instance reads a RocksDB store that another store (the primary, in this process or
 * another) has open for writing: it opens the primary's files without its lock, keeps its own logs in a
 * directory of its own, and sees the primary's writes as of its open, then as of each ferry_catch_up.
 * It is read-only (writes: FERRY_EREADONLY); families the primary creates after the secondary opened
 * are seen after a new open only (RocksDB's rule).
 */
/**@{*/
/**
 * @brief Open a secondary instance of the RocksDB store at path (rocksdb_open_as_secondary_column_families).
 * @param[in] secondary_path a directory of the instance's own (its info logs), NUL-terminated; not path.
 * @param[in] opts, nopts, extra, cfs, cfs_len, ncfs as for ferry_store_open (the families' options must
 *            match the primary's, merge operators and key orders included). FERRY_OPT_TRANSACTIONS,
 *            FERRY_OPT_TTL_SECONDS and FERRY_OPT_READ_ONLY: FERRY_EINVAL (a secondary is read-only anyway).
 * @param[out] out the store, read-only; close with ferry_store_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_NOTFOUND (no store at path), FERRY_ENOENGINE, FERRY_ENOTSUP (a
 *         RocksDB without secondary instances), engine codes.
 */
FERRY_EXPORT int ferry_store_open_secondary(const char *path, const char *secondary_path, const int64_t *opts,
                                            uint32_t nopts, const char *extra, const void *cfs, size_t cfs_len,
                                            uint32_t ncfs, ferry_store **out, ferry_error *err);

/**
 * @brief Bring a secondary instance up to date with its primary (rocksdb_try_catch_up_with_primary): reads
 *        after the call see what the primary had written (its memtables replayed from its logs, its new
 *        table files). A snapshot of a secondary does not keep its view across a catch-up: RocksDB reads a
 *        secondary instance at its latest state, whatever the snapshot.
 * @note Thread-safe; reads may run meanwhile.
 * @return FERRY_OK, FERRY_EINVAL (NULL, or not a secondary instance), FERRY_ENOTSUP (LMDB), engine codes.
 */
FERRY_EXPORT int ferry_catch_up(ferry_store *s, ferry_error *err);
/**@}*/

/** @brief Number of column-family ids handed out since the store opened (dropped ones included):
 *  the ids are 0..*out-1. @ffm critical (a lock-free read of the store's family table) */
FERRY_EXPORT int ferry_cf_count(ferry_store *s, uint32_t *out);

/**
 * @brief Name of a column family.
 * @param[out] dst NUL-terminated name, truncated to cap.
 * @param[out] len_out full length of the name.
 * @return FERRY_OK, FERRY_EINVAL (bad id), FERRY_ECFDROPPED.
 * @ffm critical (a lock-free read of the store's family table)
 */
FERRY_EXPORT int ferry_cf_name(ferry_store *s, uint32_t cf, char *dst, size_t cap, size_t *len_out);

/**
 * @brief Create a column family, with FERRY_CF_* flags (LMDB) or options of its own (RocksDB).
 * @param[in] name non-empty, NUL-terminated; LMDB: at most the engine's key size (511 bytes),
 *            since LMDB keeps family names as keys of the default family.
 * @param[in] flags 0 or FERRY_CF_* bits (LMDB only).
 * @param[in] opts int64 options indexed by FERRY_CFOPT_*; -1 = the store's. May be NULL (nopts 0).
 * @param[in] nopts entries in opts, at most FERRY_CFOPT_COUNT.
 * @param[in] extra the family's RocksDB options string, or NULL.
 * @param[out] id_out its id: ids are handed out in creation order and never reused while the
 *             store is open (a dropped family's id keeps failing with FERRY_ECFDROPPED).
 * @note Only live families count toward a limit: LMDB allows FERRY_OPT_MAX_DBS besides the
 *       default one; RocksDB has none.
 * @note The options are not remembered by Ferry: pass them again to ferry_store_open.
 * @return FERRY_OK, FERRY_EINVAL (bad name, unknown flags, DUPFIXED without DUPSORT, an option out
 *         of range, nopts too large, a bad options string), FERRY_EEXISTS, FERRY_EDBSFULL
 *         (live-family limit), FERRY_EREADONLY, FERRY_ENOTSUP (any flag on RocksDB, any option set on
 *         LMDB, flags with options), engine codes.
 */
FERRY_EXPORT int ferry_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts,
                                 uint32_t nopts, const char *extra, uint32_t *id_out, ferry_error *err);

/**
 * LMDB keeps its named databases (Ferry's column families) as records of the main database, which
 * is Ferry's default family, so finding them all means reading every key of the default family. An
 * LMDB store whose default family holds at most this many records lists its families at open; a
 * larger one gives a slot at open to the default family alone, and to the others when they are
 * asked for: by name (ferry_cf_find) or all at once (ferry_cf_list_all). A snapshot, transaction
 * or cursor reads only families that had a slot when it began (as for families created later).
 * The store property "lmdb.families-listed" is 1 once every family has one. RocksDB stores list
 * their families at open from their MANIFEST, whatever their size.
 */
#define FERRY_LMDB_FAMILY_SCAN_MAX 1000

/**
 * @brief Find an existing column family by name, giving it a slot when it has none yet (an LMDB
 *        family not listed at open, see FERRY_LMDB_FAMILY_SCAN_MAX).
 * @param[in] name non-empty, NUL-terminated.
 * @param[out] id_out the family's id.
 * @note Ids are handed out in the order families get their slots; families created by another
 *       process after the store opened are found too (LMDB).
 * @return FERRY_OK, FERRY_NOTFOUND (no live family of that name), FERRY_EINVAL, FERRY_EDBSFULL (the
 *         live-family limit, FERRY_OPT_MAX_DBS, is reached), engine codes.
 */
FERRY_EXPORT int ferry_cf_find(ferry_store *s, const char *name, uint32_t *id_out, ferry_error *err);

/**
 * @brief Give every existing column family a slot (LMDB: reads the default family's keys once, when
 *        open did not); ferry_cf_count and ferry_cf_name then enumerate them all.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EDBSFULL (more families than FERRY_OPT_MAX_DBS allows), engine codes.
 */
FERRY_EXPORT int ferry_cf_list_all(ferry_store *s, ferry_error *err);

/** @brief Drop a column family (not the default one). @return FERRY_OK, FERRY_EINVAL, FERRY_ECFDROPPED, engine codes. */
FERRY_EXPORT int ferry_cf_drop(ferry_store *s, uint32_t cf, ferry_error *err);

/**
 * @brief The FERRY_CF_* flags a family was created with (LMDB; 0 for the default family) and its
 *        FERRY_CF_ORDER_* bits (0 for bytewise).
 * @return FERRY_OK, FERRY_EINVAL (bad id), FERRY_ECFDROPPED.
 */
FERRY_EXPORT int ferry_cf_flags(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Reads (a ferry_store, and a view: NULL for the latest state, a snapshot, or FERRY_TXN_VIEW(txn)) */
/**@{*/
/* Read flags of ferry_get and ferry_multi_get: FERRY_CURSOR_NO_FILL_CACHE and
 * FERRY_CURSOR_NO_VERIFY_CHECKSUMS (RocksDB: the blocks read do not enter the block cache; their
 * checksums are not verified). LMDB, which has neither a block cache nor checksums, and reads
 * through a transaction's view ignore them. Other bits: FERRY_EINVAL. */

/**
 * @brief Point read, copying the value into the caller's buffer.
 * @param[in] snap snapshot, FERRY_TXN_VIEW(txn), or NULL for the latest state.
 * @param[in] flags 0 or read flags (see above).
 * @param[out] dst receives min(vlen, cap) bytes of the value.
 * @param[out] vlen_out the value's full length: if > cap the value was truncated.
 * @return FERRY_OK, FERRY_NOTFOUND, FERRY_EINVAL (also: a family created after snap; unknown flags),
 *         FERRY_ECFDROPPED (also: dropped during the call), engine codes.
 */
FERRY_EXPORT int ferry_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
                           uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err);

/**
 * @brief Read many keys in one call.
 * @param[in] keys n records "u32 klen; key bytes" packed back to back, keys_len bytes in all.
 * @param[in] flags 0 or read flags, as for ferry_get.
 * @param[out] dst values of found keys, packed back to back in key order.
 * @param[out] lens_out per key: value length, or -1 when not found.
 * @return the number k of keys answered (1..n); values of keys k..n-1 did not fit and
 *         must be asked again. FERRY_ETOOSMALL when even the first value does not fit:
 *         lens_out[0] then holds its length.
 */
FERRY_EXPORT int ferry_multi_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, uint32_t n,
                                 const void *keys, size_t keys_len, uint32_t flags, void *dst, size_t cap,
                                 int64_t *lens_out, ferry_error *err);

/**
 * @brief Number of values of a key: its duplicates in a DUPSORT family, else 1 when present.
 * @param[in] snap snapshot, FERRY_TXN_VIEW(txn), or NULL for the latest state.
 * @param[out] out 0 when the key is absent.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ECFDROPPED, engine codes.
 */
FERRY_EXPORT int ferry_value_count(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
                                   uint64_t *out, ferry_error *err);

/** Bytes of a split record's header (ferry_split_points): u64 weight; u32 key length; then the key's bytes. */
#define FERRY_SPLIT_HEADER 12

/**
 * @brief Where the engine's own structure says a range's data lies: boundary candidates with the
 *        share of the range's data that follows each, for cutting the range into pieces of similar
 *        size (the Java layer's split). Nothing is read entry by entry.
 *        - LMDB: the keys of the family's B+tree pages, read from the memory map down from the
 *          root as far as 2048 pages per level allow (for 1M entries: down to the leaf pages'
 *          separators); a weight counts entries (the node counts of sampled leaf pages, else one
 *          per subtree of the level reached). DUPSORT families and trees of one page give 0 records.
 *        - RocksDB: the range's first and last keys, the key ranges of the family's live table files
 *          (rocksdb_livefiles), and pieces between them halved (by key value) until each holds at most
 *          2 / max of the range's data, weighed in bytes with rocksdb_approximate_sizes_cf (table
 *          files; with rocksdb_approximate_sizes_cf_with_flags, RocksDB 8.x and later, the memtables
 *          too).
 * @param[in] snap snapshot or NULL (the latest state). A transaction's view: FERRY_EINVAL. RocksDB
 *            weighs the store's current files and memtables whatever the snapshot.
 * @param[in] lower inclusive lower bound or NULL; @param[in] upper exclusive upper bound or NULL (as
 *            for ferry_cursor_open).
 * @param[in] max the most records wanted (at least 1); neighbouring pieces are merged to keep within it.
 * @param[out] dst records packed back to back, native-endian and unaligned: u64 weight; u32 klen; key
 *             bytes (FERRY_SPLIT_HEADER + klen bytes each). Record 0 has klen 0 and stands for the
 *             range's start; record i > 0 carries a key strictly inside the range, greater than record
 *             i - 1's. A record's weight estimates the data from its key (record 0: the range's start)
 *             up to the next record's key (the last: to the range's end), in the engine's unit
 *             (LMDB entries, RocksDB bytes): only ratios between the weights of one answer mean
 *             anything. Keys need not exist in the store. Records that do not fit in cap are merged
 *             into their neighbours.
 * @param[in] cap bytes at dst (at least FERRY_SPLIT_HEADER).
 * @param[out] len_out bytes written.
 * @note Thread-safe as reads are. Costs no more than a few thousand page or index reads.
 * @return the number of records (0: the engine has nothing to say about this range, e.g. a tree of one
 *         page, data only in a memtable RocksDB cannot weigh), FERRY_EINVAL (bad arguments, cap below
 *         FERRY_SPLIT_HEADER, max 0, a transaction's view, a family created after snap),
 *         FERRY_ECFDROPPED, FERRY_ENOTSUP (a RocksDB library without rocksdb_livefiles or
 *         rocksdb_approximate_sizes_cf; one without rocksdb_approximate_sizes_cf_with_flags while a
 *         memtable of the family holds entries: the message names the version), engine codes.
 */
FERRY_EXPORT int ferry_split_points(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
                                    const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap,
                                    size_t *len_out, ferry_error *err);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Writes (a ferry_store) */
/**@{*/
/* Per-write flags of ferry_put and ferry_write: */
#define FERRY_WRITE_SYNC         0x1  /**< sync before returning, whatever FERRY_OPT_SYNC (RocksDB WriteOptions.sync;
                                           LMDB: the commit is followed by mdb_env_sync) */
#define FERRY_WRITE_NO_WAL       0x2  /**< RocksDB: skip the write-ahead log for this write (lost on a crash
                                           until flushed); LMDB has no log: ignored */
#define FERRY_WRITE_NO_OVERWRITE 0x4  /**< LMDB MDB_NOOVERWRITE: the key must be absent (DUPSORT: have no
                                           value at all), else FERRY_EKEYEXIST; RocksDB: FERRY_ENOTSUP */
#define FERRY_WRITE_NO_DUP_DATA  0x8  /**< LMDB MDB_NODUPDATA, DUPSORT families only (else FERRY_EINVAL): the
                                           (key, value) pair must be absent, else FERRY_EKEYEXIST; RocksDB:
                                           FERRY_ENOTSUP */
#define FERRY_WRITE_APPEND       0x10 /**< LMDB MDB_APPEND: every key sorts after the family's last key
                                           (DUPSORT: MDB_APPENDDUP, every value after its key's last value);
                                           one that does not fails with FERRY_EINVAL (nothing written);
                                           RocksDB: FERRY_ENOTSUP */

/**
 * @brief Write one key.
 * @param[in] flags 0 or FERRY_WRITE_* bits.
 * @return FERRY_OK, FERRY_EKEYEXIST (NO_OVERWRITE / NO_DUP_DATA: not written), FERRY_EINVAL (unknown
 *         flags, NO_DUP_DATA on a family without DUPSORT, APPEND out of order, SYNC with NO_WAL on
 *         RocksDB), FERRY_EREADONLY, FERRY_ENOTSUP (an LMDB-only flag on RocksDB), engine codes.
 */
FERRY_EXPORT int ferry_put(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *val,
                           size_t vlen, uint32_t flags, ferry_error *err);

/**
 * @brief Merge an operand into a key with the store's merge operator (RocksDB).
 * @param[in] operand the operand, olen bytes; its format is the operator's (uint64add: 8 bytes,
 *            little-endian; stringappend: any bytes, joined with the delimiter, ',' by default).
 * @note The merge operator is set at open through the options string ("merge_operator=uint64add").
 *       Ferry accepts RocksDB's built-in operators put, uint64add, max, bytesxor and stringappend
 *       (by name or as {id=stringappend;delimiter=X}); other names fail the open with FERRY_EINVAL
 *       (RocksDB would ignore an unknown name silently, and its sortlist operator aborts the process
 *       on an operand that is not a list of integers).
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EREADONLY, FERRY_ECFDROPPED, FERRY_ENOTSUP (LMDB, which has
 *         no merge operators; a RocksDB store opened without a merge operator), engine codes.
 */
FERRY_EXPORT int ferry_merge(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *operand,
                             size_t olen, ferry_error *err);

/* ------------------------------------------------------------------ */
/** @name Merge operators of the binding's language (RocksDB)
 * A merge operator whose code lives in the caller (Java): ferry_merge_operator_create registers a
 * callback and a token; the options string then names it as "merge_operator=ferry.callback.<N>", N
 * the handle's address in decimal (ferry_store_open's extra, a family's options string, ferry_cf_create).
 * Only handles made here and not yet closed are accepted (FERRY_EINVAL otherwise). RocksDB records the
 * operator's name in the store's OPTIONS file; an open that gives a family another operator than the
 * Java operator of its last open (another name, a built-in or none), or a Java operator to a family
 * whose last open had a built-in one, fails with FERRY_EINVAL naming both.
 *
 * RocksDB calls the callback from the thread that reads (get, multi-get, cursor fills) and from its
 * own flush and compaction threads. kind 0 is a full merge: existing is the key's value (elen bytes)
 * or NULL with elen -1 when the key has none, and the operands come oldest first; kind 1 is a partial
 * merge of n >= 2 operands into one (no existing value). The callback puts the result in out with
 * ferry_merge_value_alloc and returns 1, or returns 0: a failed full merge (RocksDB fails the read
 * with FERRY_ECORRUPTION, "Could not perform merge", or fails the flush or compaction), or a partial
 * merge it cannot do (RocksDB keeps the operands). key, existing and the operands are valid during
 * the call only. The callback must not call this library on the same store.
 * Threading: create and close from any thread; the callback runs on any thread, concurrently.
 */
/**@{*/
typedef struct ferry_merge_operator ferry_merge_operator;
typedef struct ferry_merge_value ferry_merge_value;

/** A merge callback (see above); returns 1 with the result set, or 0. */
typedef int32_t (*ferry_merge_fn)(int64_t token, int32_t kind, const void *key, size_t klen, const void *existing,
                                  int64_t elen, int32_t n, const void *const *ops, const size_t *op_lens,
                                  ferry_merge_value *out);

#define FERRY_MERGE_NAME_MAX 128 /**< longest merge operator name: letters, digits, '_', '.', '-' */

/**
 * @brief Register a merge operator implemented by a callback.
 * @param[in] name the name RocksDB records (1..FERRY_MERGE_NAME_MAX of [A-Za-z0-9_.-], not starting
 *            with "ferry."), copied.
 * @param[in] token passed to every call of callback.
 * @param[in] callback a ferry_merge_fn (a binding's C function or upcall stub), as an address.
 * @param[out] out the handle; give it to stores through their options strings; release with
 *             ferry_merge_operator_close.
 * @return FERRY_OK, FERRY_EINVAL (NULL arguments, a name outside the rules), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_merge_operator_create(const char *name, int64_t token, void *callback,
                                             ferry_merge_operator **out, ferry_error *err);

/**
 * @brief Release a merge operator: later opens refuse it; stores open with it keep it (and call
 *        its callback) until they close. NULL and handles not made by ferry_merge_operator_create
 *        (or closed already) are ignored.
 * @return FERRY_OK.
 */
FERRY_EXPORT int ferry_merge_operator_close(ferry_merge_operator *m);

/**
 * @brief Inside a merge callback: the buffer for the result, len bytes, that RocksDB takes and frees.
 * @param[in] v the callback's out argument; a second call replaces the first buffer.
 * @return the buffer to fill, or NULL (out of memory, or v NULL).
 */
FERRY_EXPORT void *ferry_merge_value_alloc(ferry_merge_value *v, size_t len);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Compaction filters of the binding's language (RocksDB)
 * A compaction filter whose code lives in the caller (Java): ferry_compaction_filter_create registers
 * a callback and a token; the options string then names it as
 * "compaction_filter_factory=ferry.filter.<N>", N the handle's address in decimal (ferry_store_open's
 * extra, a family's options string, ferry_cf_create). Only handles made here and not yet closed are
 * accepted (FERRY_EINVAL otherwise).
 *
 * RocksDB asks for one filter per compaction (not for flushes), on its compaction threads. The
 * callback is called with kind FERRY_FILTER_BEGIN when a compaction starts (arg: FERRY_FILTER_FULL,
 * FERRY_FILTER_MANUAL bits; returns the compaction's id, > 0, or 0 to keep every entry of it), with
 * FERRY_FILTER_ENTRY for each value the compaction writes (arg: the id; level, key and value, valid
 * during the call only; returns FERRY_FILTER_KEEP, FERRY_FILTER_REMOVE, or FERRY_FILTER_CHANGE with
 * the new value put in out with ferry_merge_value_alloc), and with FERRY_FILTER_END when the
 * compaction's filter is destroyed (arg: the id; out NULL). Merge operands and deletions are not
 * filtered. The callback must not call this library on the same store; anything but
 * FERRY_FILTER_REMOVE or FERRY_FILTER_CHANGE keeps the entry.
 * Threading: create and close from any thread; the callback runs on RocksDB's compaction threads,
 * concurrently for different compactions, one thread at a time per compaction.
 */
/**@{*/
typedef struct ferry_compaction_filter ferry_compaction_filter;

/** A compaction filter callback (see above). */
typedef int64_t (*ferry_filter_fn)(int64_t token, int32_t kind, int64_t arg, int32_t level, const void *key,
                                   size_t klen, const void *value, size_t vlen, ferry_merge_value *out);

#define FERRY_FILTER_BEGIN 0  /**< a compaction starts: arg holds FERRY_FILTER_FULL / _MANUAL bits */
#define FERRY_FILTER_ENTRY 1  /**< one entry of the compaction whose id is arg */
#define FERRY_FILTER_END 2    /**< the compaction whose id is arg ended */
#define FERRY_FILTER_FULL 1   /**< BEGIN: a compaction of all the family's files */
#define FERRY_FILTER_MANUAL 2 /**< BEGIN: a compaction asked for by ferry_compact_range */
#define FERRY_FILTER_KEEP 0   /**< ENTRY: keep the entry */
#define FERRY_FILTER_REMOVE 1 /**< ENTRY: drop the entry */
#define FERRY_FILTER_CHANGE 2 /**< ENTRY: replace the value with out's */

/**
 * @brief Register a compaction filter implemented by a callback.
 * @param[in] name the filter's name (1..FERRY_MERGE_NAME_MAX of [A-Za-z0-9_.-], not starting with
 *            "ferry."), copied.
 * @param[in] token passed to every call of callback.
 * @param[in] callback a ferry_filter_fn (a binding's C function), as an address.
 * @param[out] out the handle; give it to stores through their options strings; release with
 *             ferry_compaction_filter_close.
 * @return FERRY_OK, FERRY_EINVAL (NULL arguments, a name outside the rules), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_compaction_filter_create(const char *name, int64_t token, void *callback,
                                                ferry_compaction_filter **out, ferry_error *err);

/**
 * @brief Release a compaction filter: later opens refuse it; stores open with it keep it (and call its
 *        callback) until they close. NULL and handles not made by ferry_compaction_filter_create (or
 *        closed already) are ignored.
 * @return FERRY_OK.
 */
FERRY_EXPORT int ferry_compaction_filter_close(ferry_compaction_filter *f);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Comparators of the binding's language (RocksDB, LMDB)
 * A key order whose code lives in the caller (Java): ferry_comparator_create registers a callback and a
 * token; a family's options string (a family record's of ferry_store_open, ferry_cf_create's) then names
 * it as "comparator=ferry.comparator.<N>", N the handle's address in decimal. Only handles made here and
 * not yet closed are accepted (FERRY_EINVAL otherwise), and not with a FERRY_CFOPT_KEY_ORDER other than
 * bytewise. RocksDB records the comparator's name: opening the family with another comparator (another
 * name, bytewise, none) fails with FERRY_EENGINEARG naming both, never in a wrong order.
 *
 * RocksDB calls the callback from every thread that reads or writes the family (gets, writes, cursor
 * moves) and from its flush and compaction threads, concurrently. It returns a negative number, 0 or a
 * positive number as a sorts before, equal to or after b (alen and blen bytes, valid during the call
 * only), and must be a total order that never changes. A callback that fails sets *failed to 1 (its
 * result is then ignored): RocksDB cannot fail a comparison, and its files and compaction picker need
 * one order for the life of the store, so the comparison is asked again, up to 4 times in all, and a pair
 * that fails every time is answered 0 ("equal", which never contradicts the callback's order; a flush or
 * compaction that meets such a pair can keep only one of the two keys). The call that needed it fails
 * with FERRY_EABORTED, and every later call naming the family (and every batch holding it) fails with
 * FERRY_EABORTED until the store is reopened (the writes stay in the write-ahead log). The family is
 * reported by ferry_cf_flags with
 * FERRY_CF_ORDER_CALLBACK. Cursors, range deletes and bounds follow the comparator's order; split points
 * answer 0 records; ferry_ingest refuses the family. The callback must not call this library on the
 * same store.
 * LMDB: the same options string (no other family option, not with FERRY_CF_DUPSORT). The shim gives LMDB
 * one of a fixed table of 64 comparison functions (LMDB's takes no context): at most 64 such families are
 * open at once in the process (their stores open), FERRY_ENOTSUP past that. The order is kept in the
 * family's database flags and the comparator's name in a database of the shim's own, "ferry.comparators"
 * (a record of the default family, as every family's name, but no family): an open with another
 * comparator, a key order or none fails with FERRY_EINVAL naming both. LMDB calls the callback on the
 * calling thread only. A failed comparison is answered 0 once; the call that needed it fails with
 * FERRY_EABORTED, a write in which it happened is aborted (a transaction's commit refused), and the
 * family fails every later call with FERRY_EABORTED until the store is reopened.
 * Threading: create and close from any thread; the callback runs on any thread, concurrently.
 */
/**@{*/
typedef struct ferry_comparator ferry_comparator;

/** A comparator callback (see above): the order of a and b; sets *failed to 1 when it cannot answer. */
typedef int32_t (*ferry_compare_fn)(int64_t token, const void *a, size_t alen, const void *b, size_t blen,
                                    int32_t *failed);

#define FERRY_ORDER_CALLBACK    3     /**< ferry_cf_flags: a family ordered by a comparator of the binding's language */
#define FERRY_CF_ORDER_CALLBACK 0x400 /**< ferry_cf_flags: the family is ordered by a ferry_comparator */

/**
 * @brief Register a comparator implemented by a callback.
 * @param[in] name the name RocksDB records (1..FERRY_MERGE_NAME_MAX of [A-Za-z0-9_.-], not starting with
 *            "ferry.", "leveldb." or "rocksdb."), copied.
 * @param[in] token passed to every call of callback.
 * @param[in] callback a ferry_compare_fn (a binding's C function), as an address.
 * @param[out] out the handle; give it to families through their options strings; release with
 *             ferry_comparator_close.
 * @return FERRY_OK, FERRY_EINVAL (NULL arguments, a name outside the rules), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_comparator_create(const char *name, int64_t token, void *callback, ferry_comparator **out,
                                         ferry_error *err);

/**
 * @brief Release a comparator: later opens refuse it; stores open with it keep it (and call its callback)
 *        until they close. NULL and handles not made by ferry_comparator_create (or closed already) are
 *        ignored.
 * @return FERRY_OK.
 */
FERRY_EXPORT int ferry_comparator_close(ferry_comparator *c);
/**@}*/

/** @brief Delete one key (a missing key is not an error). */
FERRY_EXPORT int ferry_delete(ferry_store *s, uint32_t cf, const void *key, size_t klen, ferry_error *err);

/**
 * @brief Delete every key in [begin, end).
 * @param[in] begin,end keys compared as unsigned bytes; a length of 0 is the empty key (the
 *            smallest), whatever the pointer: there is no open bound.
 * @note An empty range (begin >= end, e.g. elen == 0) is a no-op on every engine and never
 *       reaches the engine (RocksDB fails begin > end only after its WAL write, and then
 *       refuses every later write until reopened).
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EREADONLY, FERRY_ECFDROPPED, engine codes.
 */
FERRY_EXPORT int ferry_delete_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen,
                                    const void *end, size_t elen, ferry_error *err);

/**
 * @brief Apply a batch of records (see FERRY_OP_*) atomically.
 * @param[in] ops the packed records, len bytes, count records.
 * @param[in] flags 0 or FERRY_WRITE_* bits, applying to every PUT record.
 * @note A family dropped by another thread meanwhile fails the whole batch with FERRY_ECFDROPPED;
 *       a write never lands in a family created after the drop.
 * @return FERRY_OK, FERRY_EINVAL (malformed records; nothing applied), FERRY_ECFDROPPED, and as
 *         ferry_put for the flags; on FERRY_EKEYEXIST nothing of the batch was applied and the
 *         message names the record. Engine codes.
 */
FERRY_EXPORT int ferry_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
                             ferry_error *err);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Snapshots (ferry_snapshot) */
/**@{*/
/**
 * @brief Open a consistent read view (RocksDB snapshot, LMDB read transaction).
 * @note The view covers the families that exist when it is taken. Reads and cursors through it
 *       on a family created later (or concurrently) fail with FERRY_EINVAL ("column family 'b'
 *       was created after this snapshot"): LMDB gives a dropped database's handle number to the
 *       next one, so the old read transaction would read another family's data. A family
 *       dropped since fails with FERRY_ECFDROPPED.
 */
FERRY_EXPORT int ferry_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err);

/** @brief Release a snapshot. Cursors opened on it must be closed first. NULL is ignored.
 *  @return FERRY_OK; FERRY_EINVAL for FERRY_TXN_VIEW(txn), which is no snapshot (ferry_txn_close ends it). */
FERRY_EXPORT int ferry_snapshot_close(ferry_snapshot *snap);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Write transactions
 * A write transaction with read-your-writes, on both engines:
 * - LMDB: its one write transaction (MDB_txn without MDB_RDONLY). One writer at a time per store:
 *   ferry_txn_begin waits for the write lock (timeout_ms), and every other write of the store
 *   (ferry_put, ferry_write, family create/drop, a compacting checkpoint) waits while a
 *   transaction is open. LMDB binds a write transaction to the thread that began it (its write
 *   lock is a mutex): every ferry_txn_* call and every read or cursor through it on another thread
 *   fails with FERRY_EBADTXN. A store write (ferry_put, ...) on the thread that holds the
 *   transaction would wait for itself: it fails with FERRY_EBUSY instead (write through the
 *   transaction). Reads see the transaction's writes; isolation is serializable (one writer).
 * - RocksDB: a store opened with FERRY_OPT_TRANSACTIONS. Pessimistic (TransactionDB): writes and
 *   ferry_txn_get_for_update lock their keys; a lock not granted within the timeout gives
 *   FERRY_ETIMEDOUT, a deadlock FERRY_EDEADLOCK (deadlock detection is on). Optimistic
 *   (OptimisticTransactionDB): nothing is locked; ferry_txn_commit fails with FERRY_ECONFLICT when
 *   a key the transaction wrote or read for update was written by someone else after the
 *   transaction first touched it. Reads see the latest committed state plus the transaction's own
 *   writes (no snapshot is set). ferry_txn_begin on a store opened without transactions fails with
 *   FERRY_ENOTSUP, and so does one on a RocksDB library without the transaction C API.
 *   A ferry_txn may be used from any thread, one call at a time.
 *
 * Reads through a transaction: pass FERRY_TXN_VIEW(txn) as the snap argument of ferry_get,
 * ferry_multi_get, ferry_value_count and ferry_cursor_open. A cursor of a transaction sees the writes the
 * transaction made before each positioning call (RocksDB: the transaction's iterator over its
 * write batch and the database; LMDB: a cursor of the write transaction). After a write through
 * the transaction, FERRY_NEXT/FERRY_PREV on its cursors fail with FERRY_EINVAL until they are
 * positioned again (seek past the last key read): what a pointer page pointed to may have moved.
 * LMDB pointer pages point into the transaction's pages: valid until its next write or its end.
 * Cursors are closed before their transaction (ferry_txn_close releases the engine side of any
 * left open; such a cursor then only fails, and ferry_cursor_close frees it), and transactions
 * before their store, as snapshots (the Java bindings enforce both).
 *
 * A transaction ends with ferry_txn_commit or ferry_txn_close (without a commit: rollback); any
 * call after the commit fails with FERRY_EBADTXN (commit twice included), and ferry_txn_close
 * always frees the handle. A write that fails leaves the transaction usable on RocksDB (a batch
 * is undone as a whole through a savepoint); on LMDB an engine failure such as FERRY_EMAPFULL
 * fails the transaction (then every call gives FERRY_EBADTXN: close it; with auto-grow the map
 * grows when it closes, so running it again can succeed), and so does a failed batch of more than
 * one record.
 */
/**@{*/
typedef struct ferry_txn ferry_txn;

/** The transaction as the snap argument of ferry_get, ferry_multi_get, ferry_value_count and ferry_cursor_open. */
#define FERRY_TXN_VIEW(txn) ((ferry_snapshot *)(txn))

/**
 * @brief Begin a write transaction.
 * @param[in] flags 0 (reserved).
 * @param[in] timeout_ms LMDB: how long to wait for the store's write lock: -1 as long as it takes
 *            (but a transaction abandoned on another thread, see ferry_txn_close, fails the wait
 *            with FERRY_EBUSY), 0 do not wait (FERRY_EBUSY when it is held), > 0 at most that many
 *            ms (then FERRY_ETIMEDOUT). RocksDB pessimistic: the transaction's lock timeout for each
 *            key (-1: FERRY_OPT_TXN_LOCK_TIMEOUT_MS), optimistic: ignored.
 * @param[out] out the transaction.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EREADONLY, FERRY_ENOTSUP (a RocksDB store opened without
 *         FERRY_OPT_TRANSACTIONS), FERRY_EBUSY (LMDB: this thread already holds the store's
 *         transaction; or timeout_ms 0 and another thread holds it), FERRY_ETIMEDOUT, engine codes.
 */
FERRY_EXPORT int ferry_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out,
                                 ferry_error *err);

/**
 * @brief Apply batch records (FERRY_OP_*, validated as for ferry_write) inside the transaction.
 * @note FERRY_OP_DELETE_RANGE: LMDB only (RocksDB transactions have no range delete: FERRY_ENOTSUP,
 *       nothing applied).
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EBADTXN, FERRY_ENOTSUP, FERRY_ECFDROPPED, FERRY_ETIMEDOUT,
 *         FERRY_EDEADLOCK, FERRY_ECONFLICT, engine codes.
 */
FERRY_EXPORT int ferry_txn_write(ferry_txn *txn, const void *ops, size_t len, uint32_t count, ferry_error *err);

/**
 * @brief Read a key for update (as ferry_get through the transaction). RocksDB pessimistic: locks
 *        the key exclusively until the transaction ends; optimistic: the commit fails with
 *        FERRY_ECONFLICT when another writer wrote the key after this read; LMDB: a plain read (the
 *        write transaction already excludes every other writer).
 * @return FERRY_OK, FERRY_NOTFOUND, FERRY_EBADTXN, FERRY_ETIMEDOUT, FERRY_EDEADLOCK, FERRY_ECONFLICT,
 *         engine codes.
 */
FERRY_EXPORT int ferry_txn_get_for_update(ferry_txn *txn, uint32_t cf, const void *key, size_t klen, void *dst,
                                          size_t cap, size_t *vlen_out, ferry_error *err);

/**
 * @brief Commit. The transaction is over whatever the result (on failure its writes are gone);
 *        free it with ferry_txn_close.
 * @return FERRY_OK, FERRY_EBADTXN (already committed, failed or on the wrong thread),
 *         FERRY_ECONFLICT (optimistic), FERRY_ECFDROPPED (a family it wrote was dropped; nothing
 *         committed), FERRY_EMAPFULL, engine codes.
 */
FERRY_EXPORT int ferry_txn_commit(ferry_txn *txn, ferry_error *err);

/**
 * @brief Roll back (unless committed) and free the transaction. NULL is ignored.
 * @note LMDB on a thread other than the one that began it: LMDB cannot end the transaction there.
 *       It is abandoned instead: the store's other writers fail with FERRY_EBUSY rather than wait
 *       for it, the beginning thread's next write call on the store rolls it back, and
 *       ferry_store_close frees it. Returns FERRY_EBADTXN then; the handle is gone either way.
 * @return FERRY_OK, FERRY_EBADTXN (see the note).
 */
FERRY_EXPORT int ferry_txn_close(ferry_txn *txn);

/**
 * @brief Say that the transaction will not be ended soon by the thread that began it (it was
 *        closed on another thread, but its cursors are still out). LMDB: the store's writers that
 *        wait for it, and later ones, fail with FERRY_EBUSY instead of waiting; the beginning
 *        thread's own writes keep failing with FERRY_EBUSY until ferry_txn_close. The handle stays
 *        valid: close it with ferry_txn_close. RocksDB: nothing to do. NULL is ignored.
 * @return FERRY_OK
 */
FERRY_EXPORT int ferry_txn_abandon(ferry_txn *txn);

/*
 * Savepoints: a stack of marks in the transaction. ferry_txn_rollback_to_savepoint undoes the
 * transaction's writes since the most recent savepoint and removes it; ferry_txn_pop_savepoint
 * removes it and keeps the writes (they then belong to the savepoint below, if any). Both fail with
 * FERRY_NOTFOUND when the transaction has no savepoint (nothing changes). A rollback or a pop
 * counts as a write for the transaction's cursors (FERRY_NEXT/FERRY_PREV fail with FERRY_EINVAL
 * until they are positioned again) and for pointer pages; setting one does not.
 * - RocksDB: Transaction::SetSavePoint and RollbackToSavePoint (rocksdb_transaction_set_savepoint,
 *   rocksdb_transaction_rollback_to_savepoint, in every rocksdbjni with the transaction C API).
 *   Pessimistic: a rollback also releases the locks taken since the savepoint. The C API has no
 *   pop: Ferry marks the savepoint popped and steps over it at the next rollback, so RocksDB keeps
 *   a small record of each popped savepoint until the transaction ends.
 * - LMDB: each savepoint is a nested write transaction (mdb_txn_begin with the innermost as
 *   parent), and reads, writes and new cursors go through the innermost one. Rollback aborts it,
 *   pop commits it into its parent. Cursors opened since the savepoint move to the parent (they
 *   are then not positioned). LMDB has no nested transactions with FERRY_LMDB_WRITEMAP:
 *   ferry_txn_set_savepoint then fails with FERRY_ENOTSUP. A failed transaction (FERRY_EBADTXN)
 *   stays failed: rolling back to a savepoint does not revive it.
 */

/**
 * @brief Set a savepoint: push a mark that ferry_txn_rollback_to_savepoint can roll back to.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EBADTXN, FERRY_ENOMEM, FERRY_ENOTSUP (LMDB with
 *         FERRY_LMDB_WRITEMAP), engine codes.
 */
FERRY_EXPORT int ferry_txn_set_savepoint(ferry_txn *txn, ferry_error *err);

/**
 * @brief Undo the transaction's writes since the most recent savepoint, and remove that savepoint.
 * @return FERRY_OK, FERRY_NOTFOUND (no savepoint), FERRY_EINVAL, FERRY_EBADTXN, engine codes (the
 *         transaction then failed: close it).
 */
FERRY_EXPORT int ferry_txn_rollback_to_savepoint(ferry_txn *txn, ferry_error *err);

/**
 * @brief Remove the most recent savepoint and keep the writes made since it.
 * @return FERRY_OK, FERRY_NOTFOUND (no savepoint), FERRY_EINVAL, FERRY_EBADTXN, engine codes (the
 *         transaction then failed: close it).
 */
FERRY_EXPORT int ferry_txn_pop_savepoint(ferry_txn *txn, ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Cursors (ferry_cursor): ranges filled page by page; flags, ops and page layout above */
/**@{*/
/**
 * @brief Open a cursor over [lower, upper) of one family.
 * @param[in] snap snapshot, FERRY_TXN_VIEW(txn), or NULL (the cursor then reads an implicit snapshot taken now).
 * @param[in] lower inclusive lower bound or NULL; @param[in] upper exclusive upper bound or NULL.
 *            The bounds are copied. A non-NULL bound of length 0 is the empty key (the smallest):
 *            an upper bound of "" gives an empty cursor on every engine.
 * @param[in] flags FERRY_CURSOR_*.
 * @note One thread at a time.
 */
FERRY_EXPORT int ferry_cursor_open(ferry_store *s, ferry_snapshot *snap, uint32_t cf,
                                   const void *lower, size_t llen, const void *upper, size_t ulen,
                                   uint32_t flags, ferry_cursor **out, ferry_error *err);

/** @brief Close a cursor. NULL is ignored. */
FERRY_EXPORT int ferry_cursor_close(ferry_cursor *c);

/**
 * @brief Position the cursor (op) and write entries into a caller-owned page until it is
 *        full, max_entries were written, or the range ends.
 * @param[in] op FERRY_FIRST..FERRY_CURRENT_REV; key/klen used by the SEEK ops only.
 *            FERRY_CURRENT_FWD/REV: RocksDB cursors only (FERRY_ENOTSUP on LMDB).
 * @param[out] page page memory (see "Page layout"), cap bytes, at least FERRY_PAGE_MIN.
 * @param[in] max_entries upper bound on entries (>= 1).
 * @note A pointer page also ends once the keys and values it points to add up to
 *       FERRY_PTR_SPAN bytes, so the data is still in the CPU's cache when the caller
 *       reads it (count > 0, FERRY_PAGE_END clear: fill again to continue).
 * @note After a fill the engine stands on the next entry to emit, so FERRY_NEXT/PREV
 *       continue without skipping; continuing in the other direction gives
 *       FERRY_EDIRECTION (seek with the current key instead).
 * @return count written (>= 0; 0 with FERRY_PAGE_END when the range is exhausted),
 *         FERRY_ETOOSMALL when the next entry alone does not fit (header.used = size
 *         needed; the position is kept: retry FERRY_NEXT/PREV with a bigger page),
 *         FERRY_EINVAL, engine codes.
 */
FERRY_EXPORT int ferry_cursor_fill(ferry_cursor *c, int op, const void *key, size_t klen,
                                   void *page, size_t cap, uint32_t max_entries, ferry_error *err);

/**@}*/

/* ------------------------------------------------------------------ */
/** @name Backups (RocksDB)
 * RocksDB's backup engine over a backup directory: incremental backups (table files shared
 * between backups), listed, restored and purged by id. Backup ids start at 1 and grow. LMDB has no
 * backup engine: ferry_backups_create on an LMDB store fails with FERRY_ENOTSUP (use
 * ferry_checkpoint). Engines without the backup C API (custom builds) give FERRY_ENOTSUP.
 * Threading: a ferry_backups may be used from many threads; its calls run one at a time.
 */
/**@{*/
typedef struct ferry_backups ferry_backups;

/** Bytes of one backup record written by ferry_backups_list: u32 id; u32 number of files;
 *  i64 timestamp (seconds since the epoch); u64 size in bytes; native-endian. */
#define FERRY_BACKUP_INFO_SIZE 24

/**
 * @brief Open (creating it when missing) a RocksDB backup directory.
 * @param[in] dir the backup directory, NUL-terminated UTF-8.
 * @param[out] out the handle; release with ferry_backups_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE (RocksDB not attached), FERRY_ENOTSUP, engine codes.
 */
FERRY_EXPORT int ferry_backups_open(const char *dir, ferry_backups **out, ferry_error *err);

/** @brief Close a backup directory handle. NULL is ignored. @return FERRY_OK */
FERRY_EXPORT int ferry_backups_close(ferry_backups *b);

/**
 * @brief Back up a RocksDB store (its memtables flushed first), as a new backup.
 * @param[out] id_out the new backup's id.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOTSUP (an LMDB store: use ferry_checkpoint; a store opened
 *         read-only, as for ferry_checkpoint), engine codes.
 */
FERRY_EXPORT int ferry_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err);

/**
 * @brief List the backups, oldest first.
 * @param[out] dst receives min(count, cap / FERRY_BACKUP_INFO_SIZE) records.
 * @param[out] count_out the number of backups.
 * @return FERRY_OK, FERRY_EINVAL.
 */
FERRY_EXPORT int ferry_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err);

/**
 * @brief Restore a backup into a database directory.
 * @param[in] id the backup's id, or 0 for the latest backup.
 * @param[in] db_dir the directory to restore into: missing or empty (restoring replaces the files
 *            of a database there, so Ferry refuses a directory that holds any), and its parent must exist.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_EEXISTS (db_dir holds files), FERRY_NOTFOUND (no such
 *         backup, or no backup at all), engine codes.
 */
FERRY_EXPORT int ferry_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err);

/**
 * @brief Delete all backups but the newest keep ones.
 * @param[in] keep backups to keep (0 deletes every backup).
 * @return FERRY_OK, FERRY_EINVAL, engine codes.
 */
FERRY_EXPORT int ferry_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name SST files and ingestion (RocksDB)
 * A ferry_sst_writer writes one sorted table file (RocksDB's SstFileWriter) that ferry_ingest
 * adds to a family of an open store as a whole, without going through the memtable and WAL.
 * Entries are added in strictly increasing unsigned byte order of their keys (each key once);
 * the shim checks the order itself and refuses a key that is not greater than the previous
 * one with FERRY_EINVAL, before RocksDB sees it. RocksDB libraries without the SstFileWriter C
 * API give FERRY_ENOTSUP. Threading: one thread at a time per writer.
 */
/**@{*/
typedef struct ferry_sst_writer ferry_sst_writer;

#define FERRY_INGEST_MOVE 0x1 /**< move (hard-link) the files into the store instead of copying them */

/**
 * @brief Create a writer for a new SST file (an existing file at path is replaced).
 * @param[in] path the file, NUL-terminated UTF-8.
 * @param[in] extra RocksDB options string for the table format (compression, block size...) or
 *            NULL; checked as by ferry_store_open.
 * @param[out] out the writer; release with ferry_sst_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE (RocksDB not attached), FERRY_ENOTSUP, engine codes.
 */
FERRY_EXPORT int ferry_sst_open(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err);

/** @brief Add a key and value. @return FERRY_OK, FERRY_EINVAL (key not above the previous one; finished
 *  writer), engine codes. */
FERRY_EXPORT int ferry_sst_put(ferry_sst_writer *w, const void *key, size_t klen, const void *val, size_t vlen,
                               ferry_error *err);

/** @brief Add a merge operand (the store ingesting the file needs a merge operator to read it).
 *  @return as ferry_sst_put. */
FERRY_EXPORT int ferry_sst_merge(ferry_sst_writer *w, const void *key, size_t klen, const void *operand,
                                 size_t olen, ferry_error *err);

/** @brief Add a deletion of a key (hides older versions once ingested). @return as ferry_sst_put. */
FERRY_EXPORT int ferry_sst_delete(ferry_sst_writer *w, const void *key, size_t klen, ferry_error *err);

/**
 * @brief Finish the file: write its index and footer and close it. The writer takes no entry after.
 * @param[out] size_out the file's size in bytes (may be NULL).
 * @return FERRY_OK, FERRY_EINVAL (already finished; no entry added: RocksDB writes no empty file),
 *         engine codes.
 */
FERRY_EXPORT int ferry_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err);

/** @brief Release a writer; an unfinished file is left incomplete (delete it). NULL is ignored. @return FERRY_OK */
FERRY_EXPORT int ferry_sst_close(ferry_sst_writer *w);

/**
 * @brief Ingest SST files into a family: their entries become visible at once, newer than every
 *        entry already in the store.
 * @param[in] paths n NUL-terminated paths packed back to back in len bytes.
 * @param[in] flags 0 or FERRY_INGEST_MOVE.
 * @note The files' key ranges must not overlap one another. Files written by RocksJava's
 *       SstFileWriter are accepted as well as ferry_sst_* ones.
 * @return FERRY_OK, FERRY_EINVAL (malformed paths, unknown flags), FERRY_EREADONLY,
 *         FERRY_ECFDROPPED, FERRY_ENOTSUP (LMDB; a RocksDB library without ingestion), engine codes
 *         (e.g. FERRY_EIO: a file is missing; FERRY_EENGINEARG: overlapping files).
 */
FERRY_EXPORT int ferry_ingest(ferry_store *s, uint32_t cf, const char *paths, size_t len, uint32_t n, uint32_t flags,
                              ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name RocksJava interop
 * Ferry's page-based cursors and point calls over the objects a RocksJava (org.rocksdb)
 * application already holds. The handles are the values of RocksJava's getNativeHandle():
 * - db: RocksDB.getNativeHandle(), a rocksdb::DB*;
 * - cf: ColumnFamilyHandle.getNativeHandle(), a rocksdb::ColumnFamilyHandle*. Required: for
 *   the default family pass RocksDB.getDefaultColumnFamily().getNativeHandle();
 * - snapshot: Snapshot.getNativeHandle(), a const rocksdb::Snapshot*, or NULL for the latest state;
 * - iterator: RocksIterator.getNativeHandle(), a rocksdb::Iterator*.
 * RocksDB's C API wraps exactly these pointers (rocksdb_t, rocksdb_column_family_handle_t,
 * rocksdb_snapshot_t, rocksdb_iterator_t hold the C++ pointer as their first member), so the
 * shim builds such wrappers around them and drives the engine through the attached C API
 * (ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, ...) first). Ferry never passes RocksJava's
 * ReadOptions or WriteOptions to the C API (rocksdb_readoptions_t is a larger struct): reads use
 * Ferry's own default read options (a snapshot and bounds set on Ferry's own copy), writes
 * Ferry's default write options (WAL on, no sync).
 *
 * Lifetimes: the caller keeps every RocksJava object open for the whole call, and the DB open
 * until an opened interop cursor is closed (or forgotten, see ferry_rj_cursor_forget). The shim
 * cannot tell a closed RocksJava object from an open one: the Java layer checks before each call.
 * Threading: as RocksDB's (a DB from many threads, an iterator from one at a time).
 */
/**@{*/

/**
 * @brief Open a cursor over [lower, upper) of a RocksJava database's family, with Ferry's own
 *        read options and iterator.
 * @param[in] db rocksdb::DB*; @param[in] cf rocksdb::ColumnFamilyHandle* (not NULL).
 * @param[in] snapshot const rocksdb::Snapshot* or NULL (an implicit snapshot taken now). The
 *            snapshot is read at open only.
 * @param[in] lower inclusive lower bound or NULL; @param[in] upper exclusive upper bound or NULL.
 *            Copied. The bounds assume the family's comparator orders them below/above the keys.
 * @param[in] flags FERRY_CURSOR_NO_FILL_CACHE or 0 (pages are copies: FERRY_CURSOR_POINTERS is
 *            accepted and ignored, since whether the family has a merge operator is unknown).
 * @param[out] out the cursor: fill with ferry_cursor_fill, release with ferry_cursor_close while
 *             the DB is open, or ferry_rj_cursor_forget once it is closed.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE (RocksDB not attached), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
                                      const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
                                      ferry_error *err);

/**
 * @brief A cursor that drives an existing RocksJava iterator without owning it.
 * @param[in] iterator rocksdb::Iterator* (RocksIterator.getNativeHandle()).
 * @param[out] out the cursor. Its first fill may use FERRY_CURRENT_FWD / FERRY_CURRENT_REV to
 *             start at the entry the iterator stands on; FIRST/LAST/SEEK_* move the iterator
 *             within its own read options (its bounds, snapshot). After a fill the iterator
 *             stands on the next entry to emit. ferry_cursor_close frees only Ferry's memory:
 *             the iterator stays usable by RocksJava.
 * @note The iterator must outlive the cursor's fills; one thread at a time drives both.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE, FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err);

/**
 * @brief Free an interop cursor's own memory without destroying its engine iterator: for a
 *        cursor from ferry_rj_cursor_open whose DB RocksJava has already closed (destroying an
 *        iterator after its DB is unsafe; RocksJava leaks its iterators the same way). Any other
 *        cursor is closed as by ferry_cursor_close. NULL is ignored.
 * @return FERRY_OK
 */
FERRY_EXPORT int ferry_rj_cursor_forget(ferry_cursor *c);

/**
 * @brief Point read on a RocksJava database, copying the value into the caller's buffer
 *        (as ferry_get).
 * @param[in] snapshot const rocksdb::Snapshot* or NULL.
 * @return FERRY_OK, FERRY_NOTFOUND, FERRY_EINVAL, FERRY_ENOENGINE, engine codes.
 */
FERRY_EXPORT int ferry_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen,
                              void *dst, size_t cap, size_t *vlen_out, ferry_error *err);

/**
 * @brief Many point reads on a RocksJava database in one call (records and results as
 *        ferry_multi_get).
 * @return keys answered (1..n), FERRY_ETOOSMALL, FERRY_EINVAL, FERRY_ENOENGINE, engine codes.
 */
FERRY_EXPORT int ferry_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
                                    size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err);

/** @brief Write one key to a RocksJava database. @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE, engine codes. */
FERRY_EXPORT int ferry_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
                              ferry_error *err);

/**
 * @brief Apply Ferry batch records (FERRY_OP_*) atomically to a RocksJava database.
 * @param[in] cfs rocksdb::ColumnFamilyHandle* per family id: a record's cf field indexes this
 *            array (ncfs entries, each non-NULL).
 * @note DELETE_RANGE records with begin >= end in unsigned byte order are skipped (this assumes
 *       the families use RocksDB's default bytewise comparator, as Ferry's cursors do). The
 *       caller keeps the families from being dropped during the call: RocksDB fails a write to a
 *       dropped family after its WAL write and then refuses every later write.
 * @return FERRY_OK, FERRY_EINVAL (malformed records, a cf id >= ncfs, a FERRY_OP_MERGE record:
 *         Ferry cannot see whether the database has a merge operator; nothing applied),
 *         FERRY_ENOENGINE, engine codes.
 */
FERRY_EXPORT int ferry_rj_write(void *db, void *const *cfs, uint32_t ncfs, const void *ops, size_t len,
                                uint32_t count, ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name Shared memory (RocksDB): block caches and write buffer managers
 * One LRU block cache and one write buffer manager can bound the native memory of any number of
 * RocksDB stores: a store attaches them at open (FERRY_OPT_BLOCK_CACHE,
 * FERRY_OPT_WRITE_BUFFER_MANAGER) and every family of the store uses them. A write buffer manager
 * charged to a cache counts the stores' memtables in the cache's usage, so the cache's capacity
 * bounds table blocks and memtables together (with FERRY_OPT_CACHE_INDEX_AND_FILTER, index and
 * filter blocks too).
 *
 * Lifetimes are explicit and counted: a store open on a cache or a write buffer manager holds it
 * until the store closes, and a write buffer manager holds its cache until it closes.
 * ferry_cache_close and ferry_wbm_close refuse with FERRY_EBUSY while anything holds the object
 * (the message says how many stores and managers), and leave it open. Store opens check that the
 * handle is a live object of this library (FERRY_EINVAL otherwise). LMDB has no block cache or
 * memtable: an LMDB store opened with either option fails with FERRY_EINVAL.
 * Threading: every function here may be called from any thread at any time; they serialise on
 * one lock of their own.
 */
/**@{*/
typedef struct ferry_cache ferry_cache;
typedef struct ferry_wbm ferry_wbm;

#define FERRY_CACHE_STRICT_CAPACITY 0x1 /**< the cache refuses an insert beyond its capacity (reads then go
                                             uncached; RocksDB's strict_capacity_limit) instead of growing past it */
#define FERRY_WBM_ALLOW_STALL       0x1 /**< writes stall while the memtables exceed the manager's buffer size
                                             (RocksDB's allow_stall), instead of only triggering flushes */

/**
 * @brief Create an LRU block cache.
 * @param[in] capacity bytes (at least 1).
 * @param[in] flags 0 or FERRY_CACHE_STRICT_CAPACITY.
 * @param[in] high_pri_ppm share of the capacity reserved for high-priority blocks (index and filter
 *            blocks with FERRY_OPT_CACHE_INDEX_AND_FILTER) in parts per million, 0..1000000; -1: RocksDB's
 *            default (500000, half). RocksDB's C API cannot set it: other values are set through
 *            RocksJava's own LRUCache constructor in the same library (FERRY_ENOTSUP without it).
 * @param[out] out the cache; release with ferry_cache_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE (RocksDB not attached), FERRY_ENOTSUP, FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_cache_create(uint64_t capacity, uint32_t flags, int64_t high_pri_ppm, ferry_cache **out,
                                    ferry_error *err);

/**
 * @brief A cache's state: bytes in use (blocks, and memtables charged by write buffer managers), bytes
 *        pinned, and how many stores and write buffer managers hold it. Any output may be NULL.
 * @return FERRY_OK, FERRY_EINVAL (NULL, or a cache that is closed or was not made by ferry_cache_create;
 *         the outputs are then left as they were, and the message says so).
 */
FERRY_EXPORT int ferry_cache_usage(ferry_cache *c, uint64_t *usage_out, uint64_t *pinned_out, uint32_t *stores_out,
                                   uint32_t *wbms_out, ferry_error *err);

/**
 * @brief Release a cache that nothing holds. NULL is ignored.
 * @return FERRY_OK; FERRY_EBUSY when open stores or write buffer managers hold it (nothing released;
 *         the message counts them).
 */
FERRY_EXPORT int ferry_cache_close(ferry_cache *c, ferry_error *err);

/**
 * @brief Create a write buffer manager: the stores that use it flush memtables once their memtables
 *        together reach buffer_size bytes.
 * @param[in] cache the cache to charge the memtables to (held until ferry_wbm_close), or NULL.
 * @param[in] buffer_size bytes (at least 1).
 * @param[in] flags 0 or FERRY_WBM_ALLOW_STALL.
 * @param[out] out the manager; release with ferry_wbm_close.
 * @return FERRY_OK, FERRY_EINVAL (a cache that is not open), FERRY_ENOENGINE, FERRY_ENOTSUP (a RocksDB
 *         without rocksdb_write_buffer_manager_* and rocksdb_options_set_write_buffer_manager: before
 *         RocksDB 8.10, such as rocksdbjni 7.9.2), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_wbm_create(ferry_cache *cache, uint64_t buffer_size, uint32_t flags, ferry_wbm **out,
                                  ferry_error *err);

/**
 * @brief A manager's state: memtable bytes it counts, and how many stores hold it. Any output may be NULL.
 * @return FERRY_OK, FERRY_EINVAL (NULL, or a manager that is closed or was not made by ferry_wbm_create;
 *         the outputs are then left as they were, and the message says so).
 */
FERRY_EXPORT int ferry_wbm_usage(ferry_wbm *w, uint64_t *usage_out, uint32_t *stores_out, ferry_error *err);

/**
 * @brief Release a write buffer manager that no store holds (and its hold on its cache). NULL is ignored.
 * @return FERRY_OK; FERRY_EBUSY when open stores hold it (nothing released; the message counts them).
 */
FERRY_EXPORT int ferry_wbm_close(ferry_wbm *w, ferry_error *err);
/**@}*/

/* ------------------------------------------------------------------ */
/** @name RocksDB services: the write-ahead log, rate limiters, SST file managers, PerfContext
 * The rest of RocksDB's C API that RocksJava users rely on. LMDB has none of these: its functions
 * answer FERRY_ENOTSUP with a message saying why, and an LMDB store opened with one of their
 * options fails with FERRY_EINVAL.
 *
 * The write-ahead log (WAL): every write to a RocksDB store gets a sequence number (a batch of n
 * operations takes n consecutive ones) and goes to the WAL first. ferry_wal_open reads the batches
 * written since a sequence number back from the WAL files that RocksDB still keeps: a WAL file
 * goes once its memtables are flushed, unless the store's options string keeps it archived
 * (WAL_ttl_seconds, WAL_size_limit_MB). Each batch comes as RocksDB's own write batch (its "rep"):
 * a 12-byte header (sequence number, fixed64; operation count, fixed32; little-endian) and the
 * records, each a type byte, for the types of a column family other than the default one a varint32
 * family id (RocksDB's, see ferry_cf_engine_id), and varint32-length-prefixed key and value slices.
 * Threading: a ferry_wal is used by one thread at a time; close it before its store.
 */
/**@{*/
typedef struct ferry_wal ferry_wal;

/**
 * @brief The sequence number of the store's latest write (0 before the first one).
 * @param[out] out the sequence number.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOTSUP (LMDB: no sequence numbers).
 */
FERRY_EXPORT int ferry_latest_sequence(ferry_store *s, uint64_t *out, ferry_error *err);

/**
 * @brief The id RocksDB gives a column family (the id write batches and the WAL carry).
 * @param[in] cf a live family of the store.
 * @param[out] out RocksDB's id (the default family: 0).
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ECFDROPPED, FERRY_ENOTSUP (LMDB).
 */
FERRY_EXPORT int ferry_cf_engine_id(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err);

/**
 * @brief Open an iterator over the write batches of the WAL from the one holding sequence number
 *        since (RocksDB's GetUpdatesSince).
 * @param[in] since the first sequence number wanted (0 and 1: from the first write). Greater than
 *            the latest sequence number: an iterator that ends at once.
 * @param[out] out the iterator; release with ferry_wal_close, before the store closes.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_NOTFOUND (sequence number since is no longer in the WAL: its
 *         files went after a flush; the message names the first sequence number still there),
 *         FERRY_ENOTSUP (LMDB; a TTL store, whose values carry RocksDB's timestamp suffix in the WAL; a
 *         store opened with FERRY_OPT_WAL 0), engine codes (a read-only or secondary store: RocksDB's).
 */
FERRY_EXPORT int ferry_wal_open(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err);

/**
 * @brief Copy the iterator's next write batch (its rep, see above) into dst and move past it.
 * @param[out] dst where the batch goes (cap bytes).
 * @param[out] seq_out the batch's first sequence number.
 * @param[out] len_out the batch's size in bytes, also when it did not fit.
 * @return FERRY_OK; FERRY_NOTFOUND at the end (batches written after it are read by a new iterator);
 *         FERRY_ETOOSMALL (the batch is larger than cap: nothing copied, the iterator stays; call again
 *         with *len_out bytes); FERRY_EINVAL; engine codes (a WAL read failed).
 */
FERRY_EXPORT int ferry_wal_next(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out,
                                ferry_error *err);

/**
 * @brief Release a WAL iterator. NULL is ignored.
 * @return FERRY_OK.
 */
FERRY_EXPORT int ferry_wal_close(ferry_wal *w);

/* Rate limiters and SST file managers are shared like block caches (see "Shared memory"): a store
 * attaches them at open (FERRY_OPT_RATE_LIMITER, FERRY_OPT_SST_FILE_MANAGER) and holds them until it
 * closes; their close refuses with FERRY_EBUSY while a store holds them; a store open checks that the
 * handle is a live object of this library (FERRY_EINVAL otherwise). Threading: any thread. */
typedef struct ferry_rate_limiter ferry_rate_limiter;
typedef struct ferry_sst_manager ferry_sst_manager;

/**
 * @brief Create a rate limiter (RocksDB's GenericRateLimiter): the flushes and compactions of the
 *        stores that use it write at most bytes_per_sec bytes per second together.
 * @param[in] bytes_per_sec at least 1.
 * @param[in] refill_period_us how often the budget refills, in microseconds, at least 1 (RocksDB's
 *            default 100000).
 * @param[in] fairness 1..100 (RocksDB's default 10): one request in fairness of low priority goes before
 *            the high-priority ones.
 * @param[out] out the limiter; release with ferry_rate_limiter_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE, FERRY_ENOTSUP, FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_rate_limiter_create(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness,
                                           ferry_rate_limiter **out, ferry_error *err);

/**
 * @brief How many open stores hold the limiter.
 * @return FERRY_OK, FERRY_EINVAL (NULL, closed, or not made by ferry_rate_limiter_create).
 */
FERRY_EXPORT int ferry_rate_limiter_usage(ferry_rate_limiter *l, uint32_t *stores_out, ferry_error *err);

/**
 * @brief Release a limiter that no store holds. NULL is ignored.
 * @return FERRY_OK; FERRY_EBUSY when open stores hold it (nothing released; the message counts them).
 */
FERRY_EXPORT int ferry_rate_limiter_close(ferry_rate_limiter *l, ferry_error *err);

/**
 * @brief Create an SST file manager (RocksDB's SstFileManager, on the default environment): it tracks
 *        the table and blob files of the stores that use it, stops their writes once the files
 *        reach max_allowed_space, and deletes obsolete files at a bounded rate.
 * @param[in] max_allowed_space bytes, 0: no limit. Reaching it fails writes with an I/O error
 *            ("Max allowed space was reached") until files are deleted.
 * @param[in] delete_rate bytes per second at which obsolete files are deleted, 0: at once.
 * @param[out] out the manager; release with ferry_sst_manager_close.
 * @return FERRY_OK, FERRY_EINVAL, FERRY_ENOENGINE, FERRY_ENOTSUP (rocksdb_sst_file_manager_* missing: newer
 *         than rocksdbjni 10.1.3, present in 11.8.1), FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_sst_manager_create(uint64_t max_allowed_space, int64_t delete_rate, ferry_sst_manager **out,
                                          ferry_error *err);

/**
 * @brief An SST file manager's state. Any output may be NULL.
 * @param[out] total_size_out bytes of the files it tracks.
 * @param[out] reached_out 1 when they reached the maximum allowed space, else 0.
 * @param[out] stores_out how many open stores hold it.
 * @return FERRY_OK, FERRY_EINVAL (NULL, closed, or not made by ferry_sst_manager_create).
 */
FERRY_EXPORT int ferry_sst_manager_usage(ferry_sst_manager *m, uint64_t *total_size_out, uint32_t *reached_out,
                                         uint32_t *stores_out, ferry_error *err);

/**
 * @brief Release an SST file manager that no store holds. NULL is ignored.
 * @return FERRY_OK; FERRY_EBUSY when open stores hold it (nothing released; the message counts them).
 */
FERRY_EXPORT int ferry_sst_manager_close(ferry_sst_manager *m, ferry_error *err);

/* PerfContext: RocksDB's per-thread counters of what this thread's operations did (key comparisons,
 * block reads, time spent in memtables...). Every function acts on the calling thread's context and
 * level only: set the level, run the operations, read the counters, on one thread. */

#define FERRY_PERF_DISABLE               1 /**< count nothing */
#define FERRY_PERF_COUNT                 2 /**< counters, no timers (RocksDB's default in every thread) */
#define FERRY_PERF_TIME_EXCEPT_FOR_MUTEX 3 /**< counters and timers, but mutex waits */
#define FERRY_PERF_TIME                  4 /**< counters and every timer */

/**
 * @brief Set the calling thread's PerfContext level (rocksdb_set_perf_level).
 * @param[in] level FERRY_PERF_*.
 * @return FERRY_OK, FERRY_EINVAL (another level), FERRY_ENOENGINE (RocksDB not attached), FERRY_ENOTSUP.
 */
FERRY_EXPORT int ferry_perf_level(int32_t level, ferry_error *err);

/**
 * @brief Zero the calling thread's PerfContext counters.
 * @return FERRY_OK, FERRY_ENOENGINE, FERRY_ENOTSUP.
 */
FERRY_EXPORT int ferry_perf_reset(ferry_error *err);

/**
 * @brief The calling thread's PerfContext counters as RocksDB reports them ("name = value" pairs
 *        separated by ", ", every counter the library has, zeros included; PerfContext::ToString).
 * @param[out] dst the text, not NUL-terminated (cap bytes).
 * @param[out] len_out its length, also when it did not fit.
 * @return FERRY_OK, FERRY_ETOOSMALL (nothing copied; call again with *len_out bytes), FERRY_EINVAL,
 *         FERRY_ENOENGINE, FERRY_ENOTSUP, FERRY_ENOMEM.
 */
FERRY_EXPORT int ferry_perf_report(void *dst, size_t cap, size_t *len_out, ferry_error *err);
/**@}*/

#ifdef __cplusplus
}
#endif
#endif /* FERRY_H */
