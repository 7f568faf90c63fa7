/* RocksDB engine, private to native/src/rocksdb: the handles, the C API table and what its sections share.
 * The engine drives the C API exported by librocksdbjni (org.rocksdb:rocksdbjni) through a function
 * table resolved at attach time (attach.c; rocksdb_api.h lists the functions used). Sections: attach.c
 * (attach, errors, handles), open.c (options, open, families, snapshots, the ops table), callback.c (the
 * handles of callbacks of the binding's language), merge.c (merge operators of the binding's language), filter.c (compaction filters of the binding's language), reads.c,
 * writes.c, cursors.c, txn.c (transactions), split.c (split points), admin.c (properties, checkpoints,
 * SST files, backups, shared caches), interop.c (RocksJava's own objects). */
#ifndef FERRY_ROCKSDB_ENGINE_H
#define FERRY_ROCKSDB_ENGINE_H

#include "internal.h"
#include "platform.h"
#include "rocksdb_api.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Handles                                                             */

/* Distinct TTL settings (TTL, timestamp offset) a store holds at most (ttl.c). */
#define RDB_TTL_MAX 127

struct rdb_ttl;

typedef struct rdb_store {
    ferry_store base;
    /* Writes hold it shared, a family drop exclusively: RocksDB fails a write to a dropped
     * family only after its WAL write, and then refuses every later write, so no write may
     * pass the dropped check before a drop and reach RocksDB after it. */
    pthread_rwlock_t drop_lock;
    rocksdb_t *db;
    rocksdb_options_t *opts;          /* DB and family options (kept for cf_create) */
    rocksdb_readoptions_t *ropts;     /* reads without a snapshot */
    rocksdb_writeoptions_t *wopts;
    int wal_off, sync_on;   /* the store's FERRY_OPT_WAL == 0 and FERRY_OPT_SYNC, which wopts holds */
    rocksdb_flushoptions_t *fopts;
    rocksdb_cache_t *cache;
    size_t readahead;                 /* cursors' readahead_size (0: RocksDB's automatic readahead) */
    int has_merge;                    /* the options string set one of the accepted merge operators */
    ferry_merge_operator *java_merge; /* the store's operator when it is a callback's (a reference), or NULL */
    ferry_compaction_filter *java_filter; /* the store's compaction filter (a callback's, a reference), or NULL */
    /* Transactions (FERRY_OPT_TRANSACTIONS): the TransactionDB or OptimisticTransactionDB, and db
     * then points at shell, a rocksdb_t around the same object (see rdb_txndb_shell) */
    int txn_mode;                     /* FERRY_TXN_MODE_* */
    void *txndb;
    rdb_db_shell shell;
    int64_t lock_timeout_ms;          /* FERRY_OPT_TXN_LOCK_TIMEOUT_MS, -1 = RocksDB's default */
    rocksdb_t *base_db;               /* the database under txndb (range deletes), or NULL */
    rocksdb_transactiondb_options_t *tdb_opts;
    /* A read-only store that RocksDB serves in its compacted-DB mode (see open_default_read_only;
     * property "ferry.compacted-read-only") */
    int compacted;
    /* TTL families (FERRY_CFOPT_TTL_MS, ttl.c): their distinct settings, each with its compaction
     * filter, never moved or freed before the store closes (a slot names one in its bits, see
     * rdb_slot_ttl); the TTL clock, -1 for the wall clock */
    pthread_mutex_t ttl_lock;
    struct rdb_ttl *ttl[RDB_TTL_MAX];
    int nttl;
    _Atomic int64_t ttl_clock;
    int ttl_seconds;                  /* FERRY_OPT_TTL_SECONDS: a TTL store (DBWithTTL); -1: a plain one */
    char *secondary;                  /* a secondary instance: its own directory (ferry_store_open_secondary); else NULL */
    struct rdb_cmp *cmps;             /* its families' comparators of the binding's language (comparator.c) */
} rdb_store;

typedef struct rdb_txn {
    ferry_txn base;
    rocksdb_transaction_t *t;
    rocksdb_readoptions_t *ropts;     /* reads through the transaction */
    uint32_t *cfs;                    /* families written (commit checks none was dropped) */
    uint32_t ncfs, capcfs;
    /* RocksDB's savepoint stack, one entry per rocksdb_transaction_set_savepoint not yet rolled
     * back: 1 a live savepoint of ferry_txn_set_savepoint, 0 one popped (the C API has no pop) or
     * a batch's own (see rdb_txn_write), which the next rollback steps over */
    uint8_t *sps;
    uint32_t nsps, capsps;
} rdb_txn;

typedef struct rdb_snapshot {
    ferry_snapshot base;
    const rocksdb_snapshot_t *snap;
    rocksdb_readoptions_t *ropts;     /* reads at snap */
} rdb_snapshot;

typedef struct rdb_cursor {
    ferry_cursor base;
    const struct rdb_ttl *ttl;        /* a TTL family's setting: fills skip expired values; NULL: none */
    rocksdb_iterator_t *it;           /* owned, or &borrowed for a wrapped RocksJava iterator */
    rocksdb_readoptions_t *ropts;     /* owned: holds the bound slices (NULL when wrapped) */
    rdb_iter_shell borrowed;          /* wrapped cursors: RocksJava's Iterator*, never destroyed */
    /* transaction cursors check the bounds themselves: a transaction's iterator merges the write
     * batch, whose entries the read options' bounds may not cover */
    int check_bounds;
    const ferry_cf_slot *order;       /* with check_bounds: the family, for its key order (ferry_slot_cmp) */
    const char *lower, *upper;        /* into bounds, NULL = none */
    size_t llen, ulen;
    /* Pointer pages (FERRY_CURSOR_POINTERS, see cursors.c): values point into the blocks and
     * memtable entries the iterator keeps pinned (ReadOptions.pin_data); keys are copied. */
    int pin;
    rocksdb_t *db;                    /* pinning cursors: where a fresh iterator comes from */
    rocksdb_column_family_handle_t *cfh;
    rdb_db_shell dbs;                 /* interop: db and cfh point to these copies of RocksJava's pointers */
    rdb_cf_shell cfs;
    const rocksdb_snapshot_t *own_snap; /* taken at open when the caller gave none; released at close */
    uint64_t pinned;                  /* key and value bytes emitted since the iterator was made */
    uint64_t pin_check;               /* pinned level at which the next fill reads the cache (see cursors.c) */
    uint64_t pin_base;                /* the block cache's pinned usage not this iterator's */
    uint64_t pin_own, pin_seen;       /* this iterator's pinned usage, and pinned, at the last read */
    int pin_based;                    /* pin_base was read for this iterator */
    char *rekey;                      /* where the iterator stood, for its successor (malloc'd) */
    size_t rekey_cap;
    char bounds[];                    /* lower then upper bound bytes */
} rdb_cursor;

/* A pinning cursor opens a fresh iterator at the entry it stands on once its iterator pins this
 * many bytes of the block cache (or has emitted this many key and value bytes), so the blocks it
 * pins stay bounded (see cursors.c). */
#define RDB_PIN_LIMIT ((uint64_t)4 << 20)
/* Emitted bytes between two reads of the block cache's pinned usage, at least (the first read
 * comes with an iterator's first continuing fill). */
#define RDB_PIN_STEP ((uint64_t)64 << 10)

#define STORE(s) ((rdb_store *)(s))

#define CFH(slot) ((rocksdb_column_family_handle_t *)(slot)->handle)

/* Slot bits of a family with options of its own (ferry_cf_slot.bits); a slot without
 * RDB_SLOT_OWN has the store's options. */
#define RDB_SLOT_OWN   0x1

#define RDB_SLOT_MERGE 0x2  /* with RDB_SLOT_OWN: the family has a merge operator */

#define RDB_SLOT_RANGE_DEL 0x4 /* a range delete may sit in the family's memtables (set by range deletes and by an
                                  open that replayed a log into them; never cleared): see rdb_split_points */

/* TTL families: one setting (ttl.c). */
typedef struct rdb_ttl {
    int64_t ttl_ms;
    uint32_t offset;                  /* of the value's big-endian int64 timestamp in ms */
    _Atomic int64_t *clock;           /* the store's ttl_clock */
    rocksdb_compactionfilter_t *filter;
} rdb_ttl;

/* A slot's TTL setting: index + 1 in its bits from this bit (0: none). */
#define RDB_SLOT_TTL_SHIFT 24

static inline const rdb_ttl *rdb_slot_ttl(ferry_store *s, const ferry_cf_slot *slot)
{
    int i = (atomic_load_explicit((atomic_int *)&slot->bits, memory_order_relaxed) >> RDB_SLOT_TTL_SHIFT) & 0x7f;
    return i ? STORE(s)->ttl[i - 1] : NULL;
}

FERRY_HIDDEN int rdb_ttl_check(const char *name, int64_t ttl_ms, int64_t offset, ferry_error *err);
/* Give f the compaction filter of (ttl_ms, offset) (none for ttl_ms -1); *index: for the slot bits. */
FERRY_HIDDEN int rdb_ttl_apply(rdb_store *s, const char *name, rocksdb_options_t *f, int64_t ttl_ms, int64_t offset,
                               int *index, ferry_error *err);
FERRY_HIDDEN void rdb_ttl_free(rdb_store *s);
/* A TTL store opened plain or a plain store opened as a TTL one (ttl_open), by its newest OPTIONS file f
 * (rdb_latest_options, read from its start; NULL: none):
 * FERRY_EINVAL; a store without one (new) passes. */
FERRY_HIDDEN int rdb_ttl_store_check(const char *path, FILE *f, int ttl_open, ferry_error *err);
FERRY_HIDDEN int64_t rdb_ttl_now(const rdb_ttl *t);
FERRY_HIDDEN int rdb_ttl_expired_at(const rdb_ttl *t, const void *val, size_t vlen, int64_t now);

/* The family handle of a batch record's cf id, and its slot in *slot (left NULL: a family in bytewise order). */
typedef rocksdb_column_family_handle_t *(*cf_of_fn)(void *ctx, uint32_t id, const ferry_cf_slot **slot);

#define RJ_READY(err) \
    do { if (!atomic_load_explicit(&rdb_ready, memory_order_acquire)) \
        return ferry_fail((err), FERRY_ENOENGINE, 0, "RocksDB engine not attached"); } while (0)

/* services.c: the engine-wide table's RocksDB services (see ferry_engine_lib) */
FERRY_HIDDEN int ferry_rocksdb_latest_sequence(ferry_store *s, uint64_t *out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_cf_engine_id(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_wal_open(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_wal_next(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out,
                                        ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_wal_close(ferry_wal *w);
FERRY_HIDDEN int ferry_rocksdb_limiter_create(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness,
                                              void **out, ferry_error *err);
FERRY_HIDDEN void ferry_rocksdb_limiter_destroy(void *l);
FERRY_HIDDEN int ferry_rocksdb_sfm_create(uint64_t max_allowed_space, int64_t delete_rate, void **out, ferry_error *err);
FERRY_HIDDEN void ferry_rocksdb_sfm_destroy(void *m);
FERRY_HIDDEN void ferry_rocksdb_sfm_usage(void *m, uint64_t *total_size, int *reached);
FERRY_HIDDEN int ferry_rocksdb_perf_level(int32_t level, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_perf_reset(ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_perf_report(void *dst, size_t cap, size_t *len_out, ferry_error *err);
/* a store's rate limiter and SST file manager (FERRY_OPT_RATE_LIMITER, FERRY_OPT_SST_FILE_MANAGER) into s->opts */
FERRY_HIDDEN int rdb_services_configure(rdb_store *s, const int64_t *opts, ferry_error *err);

/* attach.c */
extern FERRY_HIDDEN rocksdb_api RDB;
extern FERRY_HIDDEN plat_lib *rdb_lib;
extern FERRY_HIDDEN char *rdb_lib_path;
extern FERRY_HIDDEN atomic_int rdb_ready;
extern FERRY_HIDDEN rocksdb_readoptions_t *rdb_rj_ropts;
extern FERRY_HIDDEN rocksdb_writeoptions_t *rdb_rj_wopts;
FERRY_HIDDEN int rdb_error(ferry_error *err, char *msg);
FERRY_HIDDEN void rdb_store_free(rdb_store *s);
FERRY_HIDDEN int rdb_close(ferry_store *s);
FERRY_HIDDEN int rdb_open_error(const char *path, char *e, ferry_error *err);
/* Key orders (order.c): check a FERRY_CFOPT_KEY_ORDER value; set a family's comparator in *f (which
 * may be replaced by a new options object); the ferry_cf_flags op; an open error, worded for a family
 * opened in another order than its own. */
FERRY_HIDDEN int rdb_order_check(const char *name, int64_t order, ferry_error *err);
FERRY_HIDDEN int rdb_order_apply(rocksdb_options_t **f, int64_t order, ferry_error *err);
FERRY_HIDDEN int rdb_cf_flags(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err);
FERRY_HIDDEN int rdb_order_error(const char *path, char *e, ferry_error *err);

/* open.c */
FERRY_HIDDEN int rdb_check_extra(const char *extra, int family, ferry_error *err);
FERRY_HIDDEN int rdb_check_merge(const char *extra, int *has, ferry_merge_operator **cb, ferry_error *err);

/* callback.c: the handle of a callback of the binding's language, whatever its kind; an options string
 * names one by its kind's prefix and the handle's address in decimal (rdb_cb_token). */
typedef enum { RDB_CB_MERGE, RDB_CB_FILTER, RDB_CB_COMPARATOR, RDB_CB_KINDS } rdb_cb_kind;

typedef struct rdb_cb {
    rdb_cb_kind kind;
    int64_t token;                    /* passed to every call of fn */
    void *fn;                         /* the binding's function: a ferry_merge_fn, ferry_filter_fn, ferry_compare_fn */
    atomic_int refs;                  /* the handle's own (until closed) + one per user (RocksDB's objects, options) */
    struct rdb_cb *next;              /* registry of open handles */
    char name[FERRY_MERGE_NAME_MAX + 1];
} rdb_cb;

/* ferry.h's handle types are the shared one under their own names. */
struct ferry_merge_operator { rdb_cb cb; };
struct ferry_compaction_filter { rdb_cb cb; };
struct ferry_comparator { rdb_cb cb; };

/* Register a callback (FERRY_EINVAL for a name outside the rules, naming the kind). */
FERRY_HIDDEN int rdb_cb_create(rdb_cb_kind kind, const char *name, int64_t token, void *callback, rdb_cb **out,
                               ferry_error *err);
/* Unregister: later tokens do not find it; it lives on while referenced. NULL and unknown handles ignored. */
FERRY_HIDDEN void rdb_cb_close(rdb_cb *cb);
FERRY_HIDDEN void rdb_cb_ref(rdb_cb *cb);
FERRY_HIDDEN void rdb_cb_unref(rdb_cb *cb);
/* The open handle of this kind whose options-string value is v (vn bytes), with a reference for the
 * caller, or NULL (*is_token says whether v is a token of this kind at all). */
FERRY_HIDDEN rdb_cb *rdb_cb_token(rdb_cb_kind kind, const char *v, size_t vn, int *is_token);

/* Options strings (callback.c): the next "key=value" pair of p ([k, k + kn), [v, v + vn), trimmed; NULL at the
 * end); whether a key is name; the compaction filter of the binding's language a string names (a reference in
 * *out, or NULL; FERRY_EINVAL for a closed one); a copy without the pairs naming callbacks (free it). */
FERRY_HIDDEN const char *rdb_next_option(const char *p, const char **k, size_t *kn, const char **v, size_t *vn);
FERRY_HIDDEN int rdb_key_is(const char *k, size_t kn, const char *name);
FERRY_HIDDEN int rdb_check_filter(const char *extra, ferry_compaction_filter **out, ferry_error *err);
FERRY_HIDDEN char *rdb_without_callbacks(const char *extra);

/* comparator.c: comparators of the binding's language; a family's options string names one as
 * "comparator=" RDB_COMPARATOR_TOKEN "<handle address in decimal>". rdb_cmp_apply gives f the comparator
 * the family's string names (*order_out FERRY_ORDER_CALLBACK; else order), kept by the store until
 * rdb_cmp_free; rdb_cmp_bind ties it to the family's slot once added (FERRY_EABORTED when it failed while
 * the store opened). rdb_cmp_after: rc, or FERRY_EABORTED when a comparator failed on this thread during
 * the call (see comparator.c). */
#define RDB_COMPARATOR_TOKEN "ferry.comparator."
typedef struct rdb_cmp rdb_cmp;
FERRY_HIDDEN int rdb_cmp_apply(struct rdb_store *s, const char *family, const char *extra, int64_t order,
                               rocksdb_options_t *f, int64_t *order_out, ferry_error *err);
FERRY_HIDDEN int rdb_cmp_bind(ferry_store *s, uint32_t id, ferry_error *err);
FERRY_HIDDEN void rdb_cmp_free(struct rdb_store *s);
FERRY_HIDDEN int rdb_cmp_failed_here(ferry_error *err);
extern FERRY_HIDDEN atomic_int rdb_cmp_failures;
static inline int rdb_cmp_after(int rc, ferry_error *err)
{
    if (__builtin_expect(atomic_load_explicit(&rdb_cmp_failures, memory_order_relaxed) == 0, 1)) return rc;
    return rdb_cmp_failed_here(err) ? FERRY_EABORTED : rc;
}

/* merge.c: merge operators of the binding's language; an options string names one as
 * "merge_operator=" RDB_MERGE_TOKEN "<handle address in decimal>" */
#define RDB_MERGE_TOKEN "ferry.callback."
static inline ferry_merge_operator *rdb_merge_token(const char *v, size_t vn, int *is_token)
{
    return (ferry_merge_operator *)rdb_cb_token(RDB_CB_MERGE, v, vn, is_token);
}
static inline void rdb_merge_release(ferry_merge_operator *m)
{
    if (m) rdb_cb_unref(&m->cb);
}
static inline const char *rdb_merge_name(const ferry_merge_operator *m)
{
    return m->cb.name;
}
FERRY_HIDDEN rocksdb_mergeoperator_t *rdb_merge_operator(ferry_merge_operator *m);

/* A callback's result buffer (ferry_merge_value_alloc): merge.c, filter.c. */
struct ferry_merge_value {
    char *data;
    size_t len;
};

/* filter.c: compaction filters of the binding's language; an options string names one as
 * "compaction_filter_factory=" RDB_FILTER_TOKEN "<handle address in decimal>" */
#define RDB_FILTER_TOKEN "ferry.filter."
static inline ferry_compaction_filter *rdb_filter_token(const char *v, size_t vn, int *is_token)
{
    return (ferry_compaction_filter *)rdb_cb_token(RDB_CB_FILTER, v, vn, is_token);
}
static inline void rdb_filter_release(ferry_compaction_filter *f)
{
    if (f) rdb_cb_unref(&f->cb);
}
FERRY_HIDDEN rocksdb_compactionfilterfactory_t *rdb_filter_factory(ferry_compaction_filter *f);
extern FERRY_HIDDEN const ferry_engine_ops rdb_ops;

/* reads.c */
/* ttl: a TTL family's setting (expired values are not found), or NULL */
FERRY_HIDDEN int rdb_get_core(const struct rdb_ttl *ttl, rocksdb_t *db, const rocksdb_readoptions_t *ro,
                              rocksdb_column_family_handle_t *cf, const void *key, size_t klen, void *dst,
                              size_t cap, size_t *vlen_out, ferry_error *err);
FERRY_HIDDEN int rdb_multi_get_core(const struct rdb_ttl *ttl, rocksdb_t *db, const rocksdb_readoptions_t *ro,
                                    rocksdb_column_family_handle_t *cf, uint32_t n, const void *keys,
                                    void *dst, size_t cap, int64_t *lens_out, ferry_error *err);
FERRY_HIDDEN int rdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key,
                         size_t klen, uint32_t flags, void *dst, size_t cap, size_t *vlen_out,
                         ferry_error *err);
FERRY_HIDDEN int rdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n,
                               const void *keys, uint32_t flags, void *dst, size_t cap, int64_t *lens_out,
                               ferry_error *err);

/* writes.c */
FERRY_HIDDEN int rdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                         size_t vlen, uint32_t flags, ferry_error *err);
FERRY_HIDDEN int rdb_merge(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen,
                           const void *operand, size_t olen, ferry_error *err);
FERRY_HIDDEN int rdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err);
FERRY_HIDDEN int rdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                                  const void *end, size_t elen, ferry_error *err);
FERRY_HIDDEN int rdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
                           ferry_error *err);
FERRY_HIDDEN int rdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err);
FERRY_HIDDEN int rdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                                   const void *end, size_t elen, ferry_error *err);

/* admin.c */
FERRY_HIDDEN int rdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                              size_t *len_out, ferry_error *err);
FERRY_HIDDEN int rdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                                  ferry_error *err);
FERRY_HIDDEN int rdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err);
FERRY_HIDDEN int rdb_ingest(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n,
                            uint32_t flags, ferry_error *err);

/* cursors.c */
FERRY_HIDDEN int rdb_cursor_create_in(ferry_store *owner, rocksdb_t *db, rocksdb_transaction_t *txn,
                                      rocksdb_column_family_handle_t *cf, const rocksdb_snapshot_t *snap,
                                      const void *lower, size_t llen, const void *upper, size_t ulen,
                                      uint32_t flags, size_t readahead, ferry_cursor **out, ferry_error *err);
FERRY_HIDDEN int rdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                                 size_t llen, const void *upper, size_t ulen, uint32_t flags,
                                 ferry_cursor **out, ferry_error *err);
FERRY_HIDDEN int rdb_cursor_close(ferry_cursor *cb);
FERRY_HIDDEN int rdb_cursor_fill(ferry_cursor *cb, int op, const void *key, size_t klen, uint8_t *page,
                                 size_t cap, uint32_t max_entries, ferry_error *err);

/* admin.c */
FERRY_HIDDEN int rdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                              size_t *len_out, ferry_error *err);
FERRY_HIDDEN int rdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                                  ferry_error *err);
FERRY_HIDDEN int rdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err);
FERRY_HIDDEN int rdb_ingest(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n,
                            uint32_t flags, ferry_error *err);

/* txn.c */
FERRY_HIDDEN int rdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out,
                               ferry_error *err);
FERRY_HIDDEN int rdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst,
                             size_t cap, size_t *vlen_out, int for_update, ferry_error *err);
FERRY_HIDDEN int rdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err);
FERRY_HIDDEN int rdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen,
                                     const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
                                     ferry_error *err);
FERRY_HIDDEN void rdb_txn_cursor_kill(ferry_cursor *cb);
FERRY_HIDDEN int rdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err);
FERRY_HIDDEN int rdb_txn_commit(ferry_txn *tb, ferry_error *err);
FERRY_HIDDEN int rdb_txn_close(ferry_txn *tb);

/* split.c */
FERRY_HIDDEN int rdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                                  size_t llen, const void *upper, size_t ulen, uint32_t max, void *dst,
                                  size_t cap, size_t *len_out, ferry_error *err);


/* admin.c */
FERRY_HIDDEN int rdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                              size_t *len_out, ferry_error *err);
FERRY_HIDDEN int rdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                                  ferry_error *err);
FERRY_HIDDEN int rdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err);
FERRY_HIDDEN int rdb_ingest(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n,
                            uint32_t flags, ferry_error *err);

/* Are the transaction functions all there? */
static inline int rdb_has_txn(void)
{
#define RDB_PRESENT(name, ret, params) && RDB.name != NULL
    return 1 RDB_API_TXN_FUNCS(RDB_PRESENT);
#undef RDB_PRESENT
}

/* Read options for a snapshot or the store's defaults. */
static inline const rocksdb_readoptions_t *rdb_read_opts(ferry_store *s, ferry_snapshot *snap)
{
    return snap ? ((rdb_snapshot *)snap)->ropts : STORE(s)->ropts;
}

/* Whether merges into the family can work: it, or the store it inherits from, has an operator. */
static inline int rdb_family_has_merge(ferry_store *s, ferry_cf_slot *slot)
{
    int bits = atomic_load_explicit(&slot->bits, memory_order_relaxed);
    return bits & RDB_SLOT_OWN ? (bits & RDB_SLOT_MERGE) != 0 : STORE(s)->has_merge;
}

/* ------------------------------------------------------------------ */
/* Writes                                                              */

/* Write one key. */
static inline int rdb_put_core(rocksdb_t *db, const rocksdb_writeoptions_t *wo, rocksdb_column_family_handle_t *cf,
                    const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err)
{
    char *e = NULL;
    RDB.put_cf(db, wo, cf, key, klen, val, vlen, &e);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* Take drop_lock shared and check the family is still live; on failure the lock is not held. */
static inline int rdb_write_enter(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    int dropped = atomic_load(&cf->dropped);
    if (!dropped) return FERRY_OK;
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    if (dropped == FERRY_SLOT_BROKEN)   /* its comparator failed, maybe on this thread a moment ago */
        return rdb_cmp_failed_here(err) ? FERRY_EABORTED : ferry_fail(err, FERRY_EABORTED, 0, "column family '%s': "
                                          "its comparator failed: the family refuses every call until the store is "
                                          "reopened", cf->name);
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", cf->name);
}

static inline void rdb_write_exit(ferry_store *s)
{
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
}

/* A merge without an operator: RocksDB refuses a single merge itself, but a merge in a write
 * batch only after its WAL write; say it in Ferry's words before either. */
static inline int rdb_no_merge_operator(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "this store has no merge operator: open it with "
                      "StoreOptions.mergeOperator(...) (options string: merge_operator=uint64add)");
}

/* Translate validated records into one RocksDB write batch and apply it. */
static inline int rdb_write_core(rocksdb_t *db, const rocksdb_writeoptions_t *wo, const void *ops, size_t len,
                      cf_of_fn cf_of, void *ctx, ferry_error *err)
{
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++)
        if (r.op == FERRY_OP_DELETE_VALUE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: deleting one value of a key needs an LMDB "
                              "DUPSORT column family: RocksDB keeps one value per key (delete the key)", i);
    rocksdb_writebatch_t *b = RDB.writebatch_create();
    p = ops;
    while (ferry_batch_next(&p, end, &r)) {
        const ferry_cf_slot *slot = NULL;
        rocksdb_column_family_handle_t *h = cf_of(ctx, r.cf, &slot);
        const char *a = (const char *)r.a, *bb = (const char *)r.b;
        /* an empty range is a no-op: RocksDB would fail it after the WAL write (see ferry_range_empty) */
        if (r.op == FERRY_OP_DELETE_RANGE && (slot ? ferry_range_empty_slot(slot, a, r.alen, bb, r.blen)
                                                   : ferry_range_empty(a, r.alen, bb, r.blen))) continue;
        switch (r.op) {
        case FERRY_OP_PUT: RDB.writebatch_put_cf(b, h, a, r.alen, bb, r.blen); break;
        case FERRY_OP_MERGE: RDB.writebatch_merge_cf(b, h, a, r.alen, bb, r.blen); break;
        case FERRY_OP_DELETE: RDB.writebatch_delete_cf(b, h, a, r.alen); break;
        default: RDB.writebatch_delete_range_cf(b, h, a, r.alen, bb, r.blen); break;
        }
    }
    char *e = NULL;
    RDB.write(db, wo, b, &e);
    RDB.writebatch_destroy(b);
    return e ? rdb_error(err, e) : FERRY_OK;
}

static inline int rdb_cursor_create(ferry_store *owner, rocksdb_t *db, rocksdb_column_family_handle_t *cf,
                         const rocksdb_snapshot_t *snap, const void *lower, size_t llen, const void *upper,
                         size_t ulen, uint32_t flags, size_t readahead, ferry_cursor **out, ferry_error *err)
{
    return rdb_cursor_create_in(owner, db, NULL, cf, snap, lower, llen, upper, ulen, flags, readahead, out, err);
}

/* ------------------------------------------------------------------ */
/* The engine-wide entry points: ferry_rocksdb_lib's (attach.c), the ABI layer's way in (internal.h) */

FERRY_HIDDEN int ferry_rocksdb_attach(const char *lib_path, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_path(char *dst, size_t cap);
/* secondary: NULL, or the directory of a secondary instance of the store at path (ferry_store_open_secondary) */
FERRY_HIDDEN int ferry_rocksdb_open(const char *path, const char *secondary, const int64_t *opts, const char *extra,
                                    const ferry_cf_desc *cfs, uint32_t ncfs, ferry_store **out, ferry_error *err);
/* secondary instances (open.c) and the TTL clock (ttl.c) */
FERRY_HIDDEN int ferry_rocksdb_catch_up(ferry_store *s, ferry_error *err);
/* the store's newest OPTIONS file, opened for reading, or NULL (open.c) */
FERRY_HIDDEN int rdb_latest_options(const char *path, FILE **out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_ttl_clock(ferry_store *s, int64_t now_ms);
/* backups, SST files, shared caches and write buffer managers (admin.c) */
FERRY_HIDDEN int ferry_rocksdb_backups_open(const char *dir, ferry_backups **out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_backups_close(ferry_backups *b);
FERRY_HIDDEN int ferry_rocksdb_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out,
                                            ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_sst_open(const char *path, const char *extra, ferry_sst_writer **out,
                                        ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_sst_add(ferry_sst_writer *w, int op, const void *key, size_t klen, const void *val,
                                       size_t vlen, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_sst_close(ferry_sst_writer *w);
FERRY_HIDDEN int ferry_rocksdb_cache_create(uint64_t capacity, int strict, int64_t high_pri_ppm, void **out,
                                            int *rj_made, ferry_error *err);
FERRY_HIDDEN void ferry_rocksdb_cache_destroy(void *c, int rj_made);
FERRY_HIDDEN void ferry_rocksdb_cache_usage(void *c, uint64_t *usage, uint64_t *pinned);
FERRY_HIDDEN int ferry_rocksdb_wbm_create(void *cache, uint64_t size, int allow_stall, void **out, ferry_error *err);
FERRY_HIDDEN void ferry_rocksdb_wbm_destroy(void *w);
FERRY_HIDDEN uint64_t ferry_rocksdb_wbm_usage(void *w);
/* RocksJava interop (interop.c) */
FERRY_HIDDEN int ferry_rocksdb_rj_cursor_owned(const ferry_cursor *c);
FERRY_HIDDEN int ferry_rocksdb_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower,
                                              size_t llen, const void *upper, size_t ulen, uint32_t flags,
                                              ferry_cursor **out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_rj_cursor_forget(ferry_cursor *c);
FERRY_HIDDEN int ferry_rocksdb_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen,
                                      void *dst, size_t cap, size_t *vlen_out, ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
                                            size_t keys_len, void *dst, size_t cap, int64_t *lens_out,
                                            ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
                                      ferry_error *err);
FERRY_HIDDEN int ferry_rocksdb_rj_write(void *db, void *const *cfs, const void *ops, size_t len, ferry_error *err);

#endif /* FERRY_ROCKSDB_ENGINE_H */
