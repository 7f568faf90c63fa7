/* Internal structures shared by the dispatch layer (ferry.c) and the engines. */
#ifndef FERRY_INTERNAL_H
#define FERRY_INTERNAL_H

#include "ferry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

/* Not exported from libferry. A Windows DLL exports only what is marked dllexport (FERRY_EXPORT),
 * so there the attribute is not needed (and GCC would warn that it is ignored). */
#ifdef _WIN32
#define FERRY_HIDDEN
#else
#define FERRY_HIDDEN __attribute__((visibility("hidden")))
#endif

/* printf-style checking; with mingw-w64 the shim uses its C99 printf (__USE_MINGW_ANSI_STDIO, set
 * in native/CMakeLists.txt: %zu, %lld), which GCC checks as gnu_printf. */
#ifdef __MINGW32__
#define FERRY_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define FERRY_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

/* One column-family slot. Slots are never freed or moved before the store closes, so an id
 * stays a valid index for the store's lifetime and is never given to another family: a dropped
 * family's id keeps failing with FERRY_ECFDROPPED. Ids are handed out in creation order, so an
 * id is also the family's creation sequence number (see ferry_snapshot.cf_limit).
 * handle: rocksdb_column_family_handle_t* or the LMDB dbi cast to a pointer. */
typedef struct ferry_cf_slot {
    void *handle;
    char *name;
    atomic_int dropped;  /* 1: dropped; FERRY_SLOT_BROKEN: its comparator failed (refused until a reopen) */
    atomic_int bits;     /* engine-private (RocksDB: RDB_SLOT_* of the family's own options), but for the
                            key order above FERRY_SLOT_ORDER_SHIFT (see ferry_slot_order) */
    /* FERRY_ORDER_CALLBACK families: the comparator (see ferry_slot_cmp), set before the slot is used */
    int (*cmp)(void *state, const char *a, size_t al, const char *b, size_t bl);
    void *cmp_state;
} ferry_cf_slot;

/* ferry_cf_slot.dropped of a family whose comparator of the binding's language failed. */
#define FERRY_SLOT_BROKEN 2

/* A family's key order (FERRY_ORDER_*) sits in its slot bits from this bit on; engines set it when
 * they add the slot. */
#define FERRY_SLOT_ORDER_SHIFT 16

/* A family's options for ferry_store_open / ferry_cf_create: opts holds FERRY_CFOPT_COUNT values
 * (-1 = the store's), extra is NULL or the family's options string. */
typedef struct ferry_cf_desc {
    char *name;
    int64_t opts[FERRY_CFOPT_COUNT];
    char *extra;
} ferry_cf_desc;

/* The slot table: chunk i holds FERRY_CF_CHUNK0 << i slots and is allocated when the first id
 * in it is handed out. Chunks never move, so readers index slots without a lock while families
 * are created; ids run up to FERRY_CF_ID_LIMIT - 1 (below INT32_MAX, Java's int). */
#define FERRY_CF_CHUNK0_SHIFT 6
#define FERRY_CF_CHUNK0       (1u << FERRY_CF_CHUNK0_SHIFT)
#define FERRY_CF_CHUNKS       25
#define FERRY_CF_ID_LIMIT     (FERRY_CF_CHUNK0 * ((1u << FERRY_CF_CHUNKS) - 1))

typedef struct ferry_engine_ops ferry_engine_ops;

/* Base of every engine's store struct (engines embed it as their first member). */
struct ferry_store {
    const ferry_engine_ops *ops;
    int engine;
    int read_only;
    _Atomic(ferry_cf_slot *) cf_chunks[FERRY_CF_CHUNKS]; /* see FERRY_CF_CHUNK0 */
    atomic_uint cf_count;       /* ids handed out; published with release after a slot is filled */
    uint32_t cf_named;          /* live families other than the default one (under cf_lock) */
    uint32_t cf_named_max;      /* limit on cf_named (LMDB max dbs); UINT32_MAX = none */
    pthread_mutex_t cf_lock;    /* serialises create/drop */
    ferry_cache *shared_cache;  /* FERRY_OPT_BLOCK_CACHE held while open (ferry.c), or NULL */
    ferry_wbm *shared_wbm;      /* FERRY_OPT_WRITE_BUFFER_MANAGER held while open, or NULL */
    ferry_rate_limiter *shared_limiter; /* FERRY_OPT_RATE_LIMITER held while open (ferry_services.c), or NULL */
    ferry_sst_manager *shared_sfm;      /* FERRY_OPT_SST_FILE_MANAGER held while open, or NULL */
};

struct ferry_snapshot {
    ferry_store *store;
    ferry_txn *txn;     /* non-NULL: this "snapshot" is a transaction's read view (see ferry_txn) */
    uint32_t cf_limit;  /* cf_count before the engine's snapshot was taken: families with a
                           higher id were created after it (or concurrently) and are refused */
};

struct ferry_cursor {
    ferry_store *store;
    int dir; /* 0 = not positioned, 1 = forward, -1 = reverse */
    /* cursors of a transaction (under txn->lock): the list of its open cursors, the transaction's
     * write count at the last positioning fill, and dead once the transaction released the
     * engine side (it ended, or closed with the cursor still open) */
    ferry_txn *txn;
    ferry_cursor *tnext, *tprev;
    uint64_t seen_writes;
    int dead;
};

/* Base of an engine's WAL iterator (ferry_wal_open): the store it reads. */
struct ferry_wal {
    ferry_store *store;
};

/* Transaction states. */
#define FERRY_TXN_ACTIVE    0
#define FERRY_TXN_COMMITTED 1
#define FERRY_TXN_FAILED    2   /* a failure ended it or left it unusable: only close remains */

/* Base of every engine's transaction struct. view comes first: FERRY_TXN_VIEW(txn) is the read
 * view (view.txn points back here). lock serialises every call on the transaction and its
 * cursors (a cleaner may close a leaked cursor on another thread while the owner writes). */
struct ferry_txn {
    ferry_snapshot view;
    pthread_mutex_t lock;
    pthread_t owner;            /* the thread that began it (LMDB calls must come from it) */
    int state;                  /* FERRY_TXN_* */
    uint64_t writes;            /* write calls so far (cursors re-position after one) */
    ferry_cursor *cursors;      /* open cursors */
    uint32_t savepoints;        /* savepoints set and not yet rolled back or popped */
};

/* The savepoint operations of txn_savepoint (engine ops). */
#define FERRY_SP_SET      0
#define FERRY_SP_ROLLBACK 1
#define FERRY_SP_POP      2

/* Engine entry points, one per operation (its flags and options are parameters, as in ferry.h).
 * Arguments are already checked by ferry.c: handles non-NULL, cf a live slot, pointers non-NULL
 * where a length is non-zero, page large enough, flags known and meant for this engine. */
struct ferry_engine_ops {
    /* ---- store */
    int (*close)(ferry_store *s);
    int (*flush)(ferry_store *s, ferry_cf_slot *cf, ferry_error *err);
    int (*compact_range)(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                         const void *end, size_t elen, ferry_error *err);
    int (*property)(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                    size_t *len_out, ferry_error *err);
    int (*property_int)(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                        ferry_error *err);
    /* dir non-empty and not existing when checked; flags are known FERRY_CHECKPOINT_* bits */
    int (*checkpoint)(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err);
    /* NULL: no ingestion (FERRY_ENOTSUP); paths already split, flags known */
    int (*ingest)(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n, uint32_t flags,
                  ferry_error *err);
    /* ---- column families */
    /* flags: FERRY_CF_* (LMDB only); opts: NULL when the family has no options of its own, else
     * FERRY_CFOPT_COUNT values (some not -1) or a non-empty extra (RocksDB only). *bits_out becomes
     * the slot's bits (left 0 when there is nothing to record). */
    int (*cf_create)(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, const char *extra,
                     void **handle_out, int *bits_out, ferry_error *err);
    int (*cf_drop)(ferry_store *s, ferry_cf_slot *slot, ferry_error *err);
    /* a family cf_create made got its slot (id), under cf_lock; an error fails the create. NULL: nothing to do */
    int (*cf_added)(ferry_store *s, uint32_t id, ferry_error *err);
    /* the family's FERRY_CF_* flags; NULL: always 0 */
    int (*cf_flags)(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err);
    /* Families not given a slot at open (LMDB, see FERRY_LMDB_FAMILY_SCAN_MAX), under cf_lock.
     * cf_find: the handle and slot bits (its key order) of an existing family that has no live slot
     * (FERRY_NOTFOUND when there is none); cf_list_all: a slot for every family that has none. NULL:
     * every family got its slot at open. */
    int (*cf_find)(ferry_store *s, const char *name, void **handle_out, int *bits_out, ferry_error *err);
    int (*cf_list_all)(ferry_store *s, ferry_error *err);
    /* ---- reads */
    /* snap is NULL or a snapshot (never a transaction's view: ferry.c reads those through txn_get);
     * flags: FERRY_CURSOR_NO_FILL_CACHE / NO_VERIFY_CHECKSUMS, which an engine may ignore */
    int (*get)(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
               uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err);
    /* keys already validated (n records) */
    int (*multi_get)(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n, const void *keys,
                     uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err);
    /* number of values of key (snap never a transaction's view: see txn_value_count); NULL: 0 or 1
     * through get */
    int (*value_count)(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                       uint64_t *out, ferry_error *err);
    /* ferry_split_points (snap NULL or a snapshot, never a transaction's view; bounds as for cursor_open,
     * the range not empty; max >= 1, cap >= FERRY_SPLIT_HEADER); NULL: FERRY_ENOTSUP. Engines pack their
     * candidates with ferry_split_pack. */
    int (*split_points)(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower, size_t llen,
                        const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                        ferry_error *err);
    /* ---- writes */
    /* flags: FERRY_WRITE_*, checked against the engine by ferry.c */
    int (*put)(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
               size_t vlen, uint32_t flags, ferry_error *err);
    /* NULL: the engine has no merge operators (FERRY_ENOTSUP) */
    int (*merge)(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *operand,
                 size_t olen, ferry_error *err);
    int (*del)(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err);
    int (*delete_range)(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                        const void *end, size_t elen, ferry_error *err);
    /* ops already validated by ferry_batch_validate, count >= 1; flags as for put */
    int (*write)(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags, ferry_error *err);
    /* ---- snapshots */
    int (*snapshot_open)(ferry_store *s, ferry_snapshot **out, ferry_error *err);
    int (*snapshot_close)(ferry_snapshot *snap);
    /* ---- cursors */
    int (*cursor_open)(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                       size_t llen, const void *upper, size_t ulen, uint32_t flags,
                       ferry_cursor **out, ferry_error *err);
    int (*cursor_close)(ferry_cursor *c);
    /* op and direction already checked against c->dir; page cap >= FERRY_PAGE_MIN;
     * FERRY_CURRENT_* reach RocksDB cursors only */
    int (*cursor_fill)(ferry_cursor *c, int op, const void *key, size_t klen, uint8_t *page,
                       size_t cap, uint32_t max_entries, ferry_error *err);
    /* ---- transactions */
    /* Transactions: ferry.c holds t->lock around every call but txn_begin, checked the state
     * (ACTIVE) and, for LMDB, the thread. txn_begin fills the engine part and view.store;
     * ferry.c initialises the rest. */
    int (*txn_begin)(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err);
    int (*txn_get)(ferry_txn *t, ferry_cf_slot *cf, const void *key, size_t klen, void *dst, size_t cap,
                   size_t *vlen_out, int for_update, ferry_error *err);
    /* ferry_value_count through the transaction; NULL: 0 or 1 through txn_get */
    int (*txn_value_count)(ferry_txn *t, ferry_cf_slot *cf, const void *key, size_t klen, uint64_t *out,
                           ferry_error *err);
    /* records validated; count >= 1 */
    int (*txn_write)(ferry_txn *t, const void *ops, size_t len, uint32_t count, ferry_error *err);
    int (*txn_cursor_open)(ferry_txn *t, ferry_cf_slot *cf, const void *lower, size_t llen, const void *upper,
                           size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err);
    /* release a cursor's engine side (iterator / MDB cursor) and keep the struct (dead cursor) */
    void (*txn_cursor_kill)(ferry_cursor *c);
    /* cursors already killed; sets nothing in t->state (ferry.c does) */
    int (*txn_commit)(ferry_txn *t, ferry_error *err);
    /* roll back when not ended and free the engine part and t (cursors already killed). Without
     * t->lock held. Returns FERRY_EBADTXN when it could only abandon it (LMDB, another thread). */
    int (*txn_close)(ferry_txn *t);
    /* see ferry_txn_abandon; any thread, without t->lock; NULL = nothing to do */
    void (*txn_abandon)(ferry_txn *t);
    /* FERRY_SP_*: set a savepoint, roll back to or pop the most recent one (ferry.c checked that
     * there is one, and counted the call as a write). On a failure that leaves the transaction
     * unusable the engine sets t->state to FERRY_TXN_FAILED. */
    int (*txn_savepoint)(ferry_txn *t, int op, ferry_error *err);
};

/* ---- engine-wide entry points: one table per engine (rocksdb/attach.c, lmdb/attach.c) ----
 * What the ABI layer (ferry.c, ferry_admin.c, rocksjava.c) needs from an engine besides a store's ops:
 * attaching the engine library, opening a store, and the objects that belong to no store (backup
 * engines, SST file writers, shared block caches and write buffer managers) or to RocksJava (interop).
 * Arguments are checked by the ABI layer first, as for the ops. Every entry is set: an engine without
 * the facility answers FERRY_ENOTSUP with a message saying what to use instead (its void entries do
 * nothing, and rj_cursor_owned answers 0). The ABI functions without an engine argument (backups,
 * SST files, caches, write buffer managers, interop) are RocksDB's: they use ferry_rocksdb_lib. */
typedef struct ferry_engine_lib {
    /* ---- the engine library */
    int (*attach)(const char *lib_path, ferry_error *err);
    int (*path)(char *dst, size_t cap);
    /* opts: FERRY_OPT_COUNT values; cfs: ncfs family records (RocksDB opens them; LMDB takes none: ferry.c
     * refused records with options, and the others name families LMDB opens by name when asked) */
    int (*open)(const char *path, const int64_t *opts, const char *extra, const ferry_cf_desc *cfs, uint32_t ncfs,
                ferry_store **out, ferry_error *err);
    /* a secondary instance of the store at path, kept in the directory secondary (ferry_store_open_secondary) */
    int (*open_secondary)(const char *path, const char *secondary, const int64_t *opts, const char *extra,
                          const ferry_cf_desc *cfs, uint32_t ncfs, ferry_store **out, ferry_error *err);
    /* a secondary instance catches up with its primary (ferry_catch_up) */
    int (*catch_up)(ferry_store *s, ferry_error *err);
    /* the clock of a store's TTL families, in ms (ferry_ttl_clock; < 0: the system clock again) */
    int (*ttl_clock)(ferry_store *s, int64_t now_ms, ferry_error *err);
    /* ---- backup engines */
    int (*backups_open)(const char *dir, ferry_backups **out, ferry_error *err);
    int (*backups_close)(ferry_backups *b);
    /* s is a store of this engine (ferry_backups_create picks the table by s->engine) */
    int (*backups_create)(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err);
    int (*backups_list)(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err);
    int (*backups_restore)(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err);
    int (*backups_purge)(ferry_backups *b, uint32_t keep, ferry_error *err);
    /* ---- SST files */
    int (*sst_open)(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err);
    /* op: FERRY_OP_PUT, FERRY_OP_MERGE or FERRY_OP_DELETE */
    int (*sst_add)(ferry_sst_writer *w, int op, const void *key, size_t klen, const void *val, size_t vlen,
                   ferry_error *err);
    int (*sst_finish)(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err);
    int (*sst_close)(ferry_sst_writer *w);
    /* ---- shared block caches and write buffer managers (the registry and checks are ferry_admin.c's) */
    /* *out: the engine's cache; *rj_made: made by RocksJava's constructor (high_pri_ppm >= 0) */
    int (*cache_create)(uint64_t capacity, int strict, int64_t high_pri_ppm, void **out, int *rj_made,
                        ferry_error *err);
    void (*cache_destroy)(void *c, int rj_made);
    void (*cache_usage)(void *c, uint64_t *usage, uint64_t *pinned);
    /* cache: the engine's cache or NULL; *out: the engine's write buffer manager */
    int (*wbm_create)(void *cache, uint64_t size, int allow_stall, void **out, ferry_error *err);
    void (*wbm_destroy)(void *w);
    uint64_t (*wbm_usage)(void *w);
    /* ---- RocksJava interop (the handles are RocksJava's) */
    /* whether c is an interop cursor (rj_cursor_open or _wrap): only those may be forgotten */
    int (*rj_cursor_owned)(const ferry_cursor *c);
    int (*rj_cursor_open)(void *db, void *cf, const void *snapshot, const void *lower, size_t llen, const void *upper,
                          size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err);
    int (*rj_cursor_wrap)(void *iterator, ferry_cursor **out, ferry_error *err);
    int (*rj_cursor_forget)(ferry_cursor *c);
    int (*rj_get)(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst, size_t cap,
                  size_t *vlen_out, ferry_error *err);
    int (*rj_multi_get)(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys, size_t keys_len,
                        void *dst, size_t cap, int64_t *lens_out, ferry_error *err);
    int (*rj_put)(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err);
    int (*rj_write)(void *db, void *const *cfs, const void *ops, size_t len, ferry_error *err);
    /* ---- RocksDB services (ferry_services.c): the WAL, rate limiters, SST file managers, PerfContext */
    int (*latest_sequence)(ferry_store *s, uint64_t *out, ferry_error *err);
    int (*cf_engine_id)(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err);
    int (*wal_open)(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err);
    /* w was made by this engine's wal_open */
    int (*wal_next)(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out, ferry_error *err);
    int (*wal_close)(ferry_wal *w);
    /* *out: the engine's rate limiter / SST file manager (values checked by ferry_services.c) */
    int (*limiter_create)(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness, void **out,
                          ferry_error *err);
    void (*limiter_destroy)(void *l);
    int (*sfm_create)(uint64_t max_allowed_space, int64_t delete_rate, void **out, ferry_error *err);
    void (*sfm_destroy)(void *m);
    void (*sfm_usage)(void *m, uint64_t *total_size, int *reached);
    /* the calling thread's PerfContext (level checked by ferry_services.c) */
    int (*perf_level)(int32_t level, ferry_error *err);
    int (*perf_reset)(ferry_error *err);
    int (*perf_report)(void *dst, size_t cap, size_t *len_out, ferry_error *err);
} ferry_engine_lib;

FERRY_HIDDEN extern const ferry_engine_lib ferry_rocksdb_lib;
FERRY_HIDDEN extern const ferry_engine_lib ferry_lmdb_lib;

/* The engine-wide table of an engine id (FERRY_ENGINE_*), or NULL for an unknown id. */
static inline const ferry_engine_lib *ferry_engine_lib_of(int engine)
{
    return engine == FERRY_ENGINE_ROCKSDB ? &ferry_rocksdb_lib : engine == FERRY_ENGINE_LMDB ? &ferry_lmdb_lib : NULL;
}

/* ---- shared helpers (util.c) ---- */

/* Record an error: sets err->code/engine_code/message (printf-style) when err != NULL.
 * Returns code, so callers can `return ferry_fail(err, FERRY_EINVAL, 0, "...")`. */
FERRY_HIDDEN int ferry_fail(ferry_error *err, int code, int engine_code, const char *fmt, ...)
    FERRY_PRINTF(4, 5) __attribute__((cold));

/* Initialise the base store fields and the first chunk of slots; named_max limits the live
 * families besides the default one (UINT32_MAX: no limit). Returns FERRY_OK/ENOMEM. */
FERRY_HIDDEN int ferry_store_base_init(ferry_store *s, const ferry_engine_ops *ops, int engine,
                                       uint32_t named_max);
/* Append a slot (copies name) with its engine bits, set before the slot is published; id_out may
 * be NULL. Caller holds cf_lock or is opening. Returns FERRY_OK, ENOMEM, EDBSFULL when the ids are
 * used up. Does not check cf_named_max (ferry_cf_create does). */
FERRY_HIDDEN int ferry_store_add_cf(ferry_store *s, const char *name, void *handle, int bits, uint32_t *id_out);
/* Free the slot names and the table. Engines free the handles first. */
FERRY_HIDDEN void ferry_store_base_free(ferry_store *s);
/* fsync path's directory and every directory above it (after a read-write open). */
FERRY_HIDDEN int ferry_sync_store_dirs(const char *path, ferry_error *err);
/* Make a directory tree durable: fsync every file and directory under dir, dir itself and every
 * directory above it. For checkpoints, backups and restores. */
FERRY_HIDDEN int ferry_sync_tree(const char *dir, ferry_error *err);

/* The slot of id; id must be below an acquire-load of cf_count. */
static inline ferry_cf_slot *ferry_slot(const ferry_store *s, uint32_t id)
{
    uint32_t x = id + FERRY_CF_CHUNK0;
    unsigned c = (unsigned)(31 - __builtin_clz(x)) - FERRY_CF_CHUNK0_SHIFT;
    ferry_cf_slot *chunk = atomic_load_explicit((_Atomic(ferry_cf_slot *) *)&s->cf_chunks[c], memory_order_acquire);
    return &chunk[x - (FERRY_CF_CHUNK0 << c)];
}
/* Find a live slot by name; returns its id or -1. */
FERRY_HIDDEN int ferry_store_find_cf(ferry_store *s, const char *name);

/* A boundary candidate of ferry_split_points: a key and the weight of the data from it to the next
 * candidate. Candidate 0 stands for the range's start (its key is not written). */
typedef struct ferry_split_cand {
    const uint8_t *key;
    size_t klen;
    uint64_t weight;
} ferry_split_cand;
/* Pack n candidates (keys strictly increasing after candidate 0) into FERRY_SPLIT_HEADER records at dst:
 * neighbours are merged (weights summed, the first key kept) until at most max records fit in cap.
 * Returns the number of records (n == 0: 0) and sets *len_out. */
FERRY_HIDDEN int ferry_split_pack(const ferry_split_cand *c, size_t n, uint32_t max, void *dst, size_t cap,
                                  size_t *len_out);

/* FERRY_EKEYSIZE for a key that is not 8 bytes in a FERRY_ORDER_U64_BE family. */
FERRY_HIDDEN int ferry_u64_key_fail(const ferry_cf_slot *slot, size_t klen, ferry_error *err) __attribute__((cold));

/* Check n packed multi-get key records ("u32 klen; key") against keys_len. */
FERRY_HIDDEN int ferry_keys_validate(uint32_t n, const void *keys, size_t keys_len, ferry_error *err);
/* Check batch records (FERRY_OP_*) before any is applied: ops, lengths, cf ids < ncf, and with
 * a store s, that no named family was dropped; seen records == count. */
FERRY_HIDDEN int ferry_batch_validate(const void *ops, size_t len, uint32_t count, uint32_t ncf,
                                      const ferry_store *s, ferry_error *err);

/* Option value or fallback when absent/-1. */
static inline int64_t ferry_opt(const int64_t *opts, int idx, int64_t dflt)
{
    return (opts && opts[idx] != -1) ? opts[idx] : dflt;
}

/* Is [begin, end) empty in unsigned byte order, i.e. begin >= end? The bounds are keys: an
 * empty end (whatever its pointer) is the empty key, the smallest, so [x, "") is always empty.
 * Range deletes of an empty range are no-ops: the shim never hands one to an engine (RocksDB
 * rejects begin > end only after writing its WAL, and then fails every later write). */
static inline int ferry_range_empty(const void *begin, size_t blen, const void *end, size_t elen)
{
    size_t n = blen < elen ? blen : elen;
    int c = n ? memcmp(begin, end, n) : 0;
    return c > 0 || (c == 0 && blen >= elen);
}

/* The FERRY_ORDER_* of a family's keys. */
static inline int ferry_slot_order(const ferry_cf_slot *slot)
{
    return (atomic_load_explicit((atomic_int *)&slot->bits, memory_order_relaxed) >> FERRY_SLOT_ORDER_SHIFT) & 0xff;
}

/* Is [begin, end) empty in a family's key order? In reverse order begin must be above end bytewise; in a
 * comparator's, below end (the comparator is called: it may fail, see ferry_comparator_create). */
static inline int ferry_range_empty_slot(const ferry_cf_slot *slot, const void *begin, size_t blen, const void *end,
                                         size_t elen)
{
    int order = ferry_slot_order(slot);
    if (order == FERRY_ORDER_CALLBACK && slot->cmp) return slot->cmp(slot->cmp_state, begin, blen, end, elen) >= 0;
    return order == FERRY_ORDER_REVERSE ? ferry_range_empty(end, elen, begin, blen)
                                        : ferry_range_empty(begin, blen, end, elen);
}

/* The order of two keys in a family's key order. */
static inline int ferry_slot_cmp(const ferry_cf_slot *slot, const void *a, size_t al, const void *b, size_t bl)
{
    int order = ferry_slot_order(slot);
    if (order == FERRY_ORDER_CALLBACK && slot->cmp) return slot->cmp(slot->cmp_state, a, al, b, bl);
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    c = c ? c : (al > bl) - (al < bl);
    return order == FERRY_ORDER_REVERSE ? -c : c;
}

/* Comparators for LMDB: the ferry_comparator handles live in rocksdb/comparator.c (callback.c's registry).
 * ferry_cmp_named: the comparator a family's options string names, with a reference for the caller (NULL
 * when it names none; FERRY_ENOTSUP when it sets anything else, FERRY_EINVAL for a closed one);
 * ferry_cmp_call: one comparison (*failed set when the callback could not answer). */
FERRY_HIDDEN int ferry_cmp_named(const char *family, const char *extra, ferry_comparator **out, ferry_error *err);
FERRY_HIDDEN const char *ferry_cmp_name(const ferry_comparator *c);
FERRY_HIDDEN int32_t ferry_cmp_call(const ferry_comparator *c, const void *a, size_t al, const void *b, size_t bl,
                                    int32_t *failed);
FERRY_HIDDEN void ferry_cmp_ref(ferry_comparator *c);
FERRY_HIDDEN void ferry_cmp_unref(ferry_comparator *c);

/* Copy-mode page writing, shared by the engines. */

/* Bytes of one copy entry: its u32 lengths, the key and the value, padded to 8 bytes. */
static inline size_t ferry_copy_entry_size(size_t klen, size_t vlen)
{
    return (8 + klen + vlen + 7) & ~(size_t)7;
}

/* Append a copy entry at *used. Returns 1 when the entry was written, 0 when it does not fit
 * (used unchanged). */
static inline int ferry_page_emit_copy(uint8_t *page, size_t cap, size_t *used, const void *k,
                                       size_t klen, const void *v, size_t vlen)
{
    size_t need = ferry_copy_entry_size(klen, vlen);
    if (need > cap - *used) return 0;
    uint8_t *p = page + *used;
    uint32_t kl = (uint32_t)klen, vl = (uint32_t)vlen;
    memcpy(p, &kl, 4);
    memcpy(p + 4, &vl, 4);
    if (klen) memcpy(p + 8, k, klen);
    if (vlen) memcpy(p + 8 + klen, v, vlen);
    *used += need;
    return 1;
}

/* Page bytes a pointer fill needs to emit this entry alone: a pointer entry, or for a key or
 * value over FERRY_ENTRY_MAX (which no pointer entry carries) the copy page it would take. */
static inline size_t ferry_ptr_entry_need(size_t klen, size_t vlen)
{
    if (klen > FERRY_ENTRY_MAX || vlen > FERRY_ENTRY_MAX)
        return FERRY_PAGE_HEADER + ferry_copy_entry_size(klen, vlen);
    return FERRY_PAGE_HEADER + FERRY_PTR_ENTRY;
}

/* Pointer-mode page writing. Returns 1 when the entry was written, 0 when it does not fit or
 * is larger than a pointer entry carries (used unchanged). */
static inline int ferry_page_emit_ptr(uint8_t *page, size_t cap, size_t *used, const void *k,
                                      size_t klen, const void *v, size_t vlen)
{
    if (FERRY_PTR_ENTRY > cap - *used || klen > FERRY_ENTRY_MAX || vlen > FERRY_ENTRY_MAX) return 0;
    uint8_t *p = page + *used;
    uint64_t ka = (uint64_t)(uintptr_t)k, va = (uint64_t)(uintptr_t)v;
    uint32_t kl = (uint32_t)klen, vl = (uint32_t)vlen;
    memcpy(p, &ka, 8);
    memcpy(p + 8, &kl, 4);
    memcpy(p + 12, &vl, 4);
    memcpy(p + 16, &va, 8);
    *used += FERRY_PTR_ENTRY;
    /* The caller reads this entry later, after the whole page is filled: start loading the
     * value's first and last cache lines now (the engine has just read the node that holds
     * the key), so that read finds them in cache instead of waiting on memory one entry at a
     * time. Lines in between are left to the hardware prefetcher. */
    if (vlen) {
        __builtin_prefetch(v);
        __builtin_prefetch((const uint8_t *)v + vlen - 1);
    }
    return 1;
}

/* Write the page header. */
static inline void ferry_page_header(uint8_t *page, uint32_t count, uint32_t flags, uint64_t used)
{
    memcpy(page, &count, 4);
    memcpy(page + 4, &flags, 4);
    memcpy(page + 8, &used, 8);
}

/* Read a batch record header at p (no alignment assumed). */
typedef struct ferry_batch_rec {
    uint32_t op, cf, alen, blen;
    const uint8_t *a, *b;
} ferry_batch_rec;

/* Walk records: returns 1 and fills rec while records remain, 0 at the end.
 * Only call on a batch that passed ferry_batch_validate. */
static inline int ferry_batch_next(const uint8_t **p, const uint8_t *end, ferry_batch_rec *rec)
{
    if (*p >= end) return 0;
    memcpy(&rec->op, *p, 4);
    memcpy(&rec->cf, *p + 4, 4);
    memcpy(&rec->alen, *p + 8, 4);
    memcpy(&rec->blen, *p + 12, 4);
    rec->a = *p + FERRY_OP_HEADER;
    rec->b = rec->a + rec->alen;
    *p = rec->b + rec->blen;
    return 1;
}

#endif /* FERRY_INTERNAL_H */
