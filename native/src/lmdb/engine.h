/* LMDB engine, private to native/src/lmdb: the handles, the mdb_* table and what its sections share.
 * Sections: attach.c (attach, errors), readtxn.c (read transactions), writes.c (the write lock,
 * write transactions, write operations), families.c (and key orders), comparator.c (families ordered by a
 * comparator of the binding's language), reads.c (snapshots, reads, maintenance),
 * cursors.c (cursors and the direct leaf-page walk), split.c (split points), txn.c (user write
 * transactions), open.c (open, close, checkpoints, the ops table).
 *
 * Model:
 * - Column family 0 is LMDB's unnamed main database; other families are named databases
 *   (their names are keys of the main database, so they show up as entries of family 0, as
 *   in plain LMDB).
 * - The environment is always opened with MDB_NOTLS: read transactions are tied to their
 *   MDB_txn object, not to a thread, so one thread may hold many (snapshots, cursors).
 * - Read transactions are recycled through a small pool of reset transactions.
 * - Every write call runs in one write transaction, serialised by wlock. On MDB_MAP_FULL
 *   with auto-grow enabled the map is grown (only while no read transaction of this store
 *   is live, since mdb_env_set_mapsize remaps) and the write is redone.
 * - Zero-length keys cannot exist in LMDB: a NULL cursor bound is open, a non-NULL upper bound of
 *   length 0 (the empty key) makes an empty cursor, as on RocksDB. Range deletes take keys:
 *   [begin, "") is empty (see ferry_range_empty).
 */
#ifndef FERRY_LMDB_ENGINE_H
#define FERRY_LMDB_ENGINE_H

#include "internal.h"
#include "lmdb_api.h"
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

#define LMDB_DEFAULT_MAP_SIZE   ((int64_t)1 << 30)

#define LMDB_DEFAULT_MAX_DBS    64

#define LMDB_DEFAULT_MAX_READERS 126

#define LMDB_POOL_CAP           16

#define LMDB_MAX_GROW_SHIFT     20

#define LMDB_DRAIN_MS           50 /* how long a grow waits for live read transactions */

#define LMDB_BEGIN_TRIES         8 /* read begins overlapped by commits before one is taken under wlock */

#define LMDB_CMP_SLOTS          64 /* families ordered by a ferry_comparator open at once (comparator.c) */

#define LMDB_CMP_DB "ferry.comparators" /* Ferry's database of their comparators' names (comparator.c) */

/* ------------------------------------------------------------------ structs */

/* Per-thread-stripe reader state: threads pick a stripe by thread (my_stripe), so reader threads
 * on different stripes write no common cache line on the read path. */
#define LMDB_STRIPES 16

typedef struct lmdb_stripe {
    atomic_int n;               /* reads of named families in progress (names_enter) */
    atomic_int live;            /* read transactions taken minus given back on this stripe (only the sum counts) */
    _Atomic(MDB_txn *) txn;     /* a reset read transaction kept for this stripe's next read, or NULL */
    char pad[64 - 2 * sizeof(atomic_int) - sizeof(MDB_txn *)];
} __attribute__((aligned(64))) lmdb_stripe;

typedef struct lmdb_store {
    ferry_store base;
    MDB_env *env;
    size_t max_key;
    uintptr_t psize;              /* LMDB page size when a power of two, else 0 (no next-page prefetch) */
    int64_t grow_step;            /* bytes per auto-grow step, 0 = off */
    pthread_mutex_t wlock;        /* one write transaction at a time; held while growing */
    atomic_int growing;           /* set while the map is being remapped */
    atomic_ullong walked;         /* leaf pages cursor fills have read directly ("lmdb.walked-pages") */
    atomic_int dropping;          /* a family drop is waiting for the stripes' named-family readers, or closing a handle */
    int families_listed;          /* every family on disk has a slot (see list_families; under cf_lock) */
    /* Commit steps: +1 before each mdb_txn_commit, +1 after it (odd while one runs). A read
     * transaction begun while two steps passed may hold a meta page LMDB had not published
     * (see read_acquire); such a begin is retried. */
    _Alignas(64) atomic_ullong commits;
    char commits_pad[64 - sizeof(atomic_ullong)];
    lmdb_stripe stripes[LMDB_STRIPES]; /* read transactions live, kept, and named-family readers */
    pthread_mutex_t pool_lock;    /* the shared pool, for transactions no stripe slot takes */
    int npool;
    MDB_txn *pool[LMDB_POOL_CAP]; /* reset read transactions */
    /* The open user write transaction (ferry_txn_begin), which holds wlock from begin to end:
     * txn_owner is the thread that began it (set before txn_active), txn its handle (owner only),
     * abandoned set when it was closed on another thread (see ferry_txn_close). */
    _Alignas(64) atomic_int txn_active;
    _Atomic(pthread_t) txn_owner;
    struct lmdb_txn *txn;
    atomic_int abandoned;
    int writemap;                 /* opened with MDB_WRITEMAP: no nested transactions (savepoints) */
    /* The key orders the open asked for (FERRY_CFOPT_KEY_ORDER of its family records), other than
     * bytewise: a family found on disk is checked against these (see lmdb_order_found). */
    char **want_names;
    int *want_orders;
    ferry_comparator **want_cmps; /* FERRY_ORDER_CALLBACK: the comparator (a reference), else NULL */
    uint32_t nwant;
} lmdb_store;

typedef struct lmdb_txn {
    ferry_txn base;
    MDB_txn *txn;       /* the innermost: root, or the newest savepoint's nested transaction */
    MDB_txn *root;      /* the transaction itself: its commit and abort end the nested ones too */
    MDB_txn **parents;  /* parents[i]: the parent of savepoint i's nested transaction */
    uint32_t depth, cap; /* savepoints (nested transactions) open, and parents' capacity */
    int ended;          /* committed or failed in LMDB: txn is gone, wlock released */
    atomic_int released; /* ferry_txn_close ran on another thread: its beginning thread may end it */
    int map_full;       /* a write hit MDB_MAP_FULL: grow when it ends (auto-grow) */
} lmdb_txn;

typedef struct lmdb_snapshot {
    ferry_snapshot base;
    MDB_txn *txn;
} lmdb_snapshot;

typedef struct lmdb_cursor {
    ferry_cursor base;
    MDB_cursor *cur;
    MDB_txn *own_txn;   /* the cursor's own read txn when opened without a snapshot */
    MDB_dbi dbi;        /* a transaction's cursor: its family, and the savepoint depth it was */
    uint32_t depth;     /* opened at (see lmdb_txn_savepoint) */
    int pointers;
    int rc;             /* result of the last move: the pending entry is valid when 0 */
    MDB_val k, v;       /* pending entry: the next one to emit */
    const uint8_t *lower, *upper;
    size_t llen, ulen;  /* 0 = no bound */
    int empty;          /* an upper bound of the empty key: [lower, "") holds nothing */
    uintptr_t leaf;     /* leaf page of the last emitted entry (next-page prefetch), 0 = none */
    int walk;           /* read leaf pages directly (see "Direct leaf-page walk") */
    int dups;           /* the family is DUPSORT: seeks land on a key's first or last value */
    const ferry_cf_slot *order; /* a family in another order than bytewise: its slot (ferry_slot_cmp), else NULL */
    size_t last_pgno;   /* the environment's last page number when the cursor opened */
    uintptr_t map;      /* address of the map's page 0 once a walk found it, else 0 */
    uintptr_t skip;     /* leaf page the walk leaves to LMDB (it did not pass the checks) */
} lmdb_cursor;

#define LS(s) ((lmdb_store *)(s))

#define DBI(slot) ((MDB_dbi)(uintptr_t)(slot)->handle)

/* ------------------------------------------------------------------ write transactions */

typedef int (*write_fn)(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err);

/* ------------------------------------------------------------------ direct leaf-page walk
 *
 * Stepping with mdb_cursor_get costs a call and LMDB's checks per entry. In a read transaction
 * every page a cursor returns data from is a page of the memory map that no one changes while the
 * transaction lives, so the fill can read the rest of a leaf page itself, from LMDB's data file
 * format (version 1, the format of every LMDB 0.9 release; mdb.c documents it):
 *   page:  u64 page number, u16 pad, u16 flags, u16 lower, u16 upper, u16 ptrs[(lower - 16) / 2];
 *          ptrs[i] is the offset of node i within the page, nodes in key order;
 *   node:  u16 size low, u16 size high (the other way round on a big-endian machine: together the
 *          value size as one native u32), u16 flags, u16 key size, key bytes, value bytes;
 *   page 0 of the map is a meta page: header, then u32 magic 0xBEEFC0DE, u32 version 1.
 * Only plain nodes are read (flags 0: no overflow value, sub-database or duplicates); LMDB steps
 * over anything else. A page is read only when the entry LMDB returned is the node this code finds
 * at its place in that page, the page's number places a version-1 meta page at the map's start,
 * and every offset and size stays inside the page. Before the fill returns, LMDB's cursor is stood
 * on the entry the next fill starts from (MDB_SET_KEY on a key of the current page, which LMDB
 * answers without a tree search), so every other operation sees the cursor where it expects it.
 * FERRY_CURSOR_ENGINE_STEPS turns the walk off. */
#define LMDB_PAGE_HDR 16

#define LMDB_NODE_HDR 8

#define LMDB_P_BRANCH 0x01

#define LMDB_P_LEAF 0x02

#define LMDB_P_OVERFLOW 0x04

#define LMDB_P_META 0x08

#define LMDB_P_LEAF2 0x20

#define LMDB_P_SUBP 0x40

#define LMDB_MAGIC 0xBEEFC0DEu

#define LMDB_DATA_VERSION 1

/* attach.c */
extern FERRY_HIDDEN ferry_mdb_api MDB;
extern FERRY_HIDDEN atomic_int lmdb_attached;
extern FERRY_HIDDEN size_t (*lmdb_txn_id_fn)(MDB_txn *txn);
FERRY_HIDDEN int lmdb_map_rc(int rc);
FERRY_HIDDEN const char *lmdb_strerror(int rc);
FERRY_HIDDEN int lmdb_fail(ferry_error *err, int rc, const char *what);

/* readtxn.c */
FERRY_HIDDEN void lmdb_pool_drain(lmdb_store *s);
FERRY_HIDDEN __attribute__((noinline)) int lmdb_read_begin_slow(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn,
                           int attempt, MDB_txn **out, ferry_error *err);
FERRY_HIDDEN __attribute__((noinline)) void lmdb_read_keep_slow(lmdb_store *s, MDB_txn *txn);

/* writes.c */
FERRY_HIDDEN int lmdb_wlock_acquire(lmdb_store *s, int64_t timeout_ms, ferry_error *err);
FERRY_HIDDEN int lmdb_remap(lmdb_store *s, size_t new_size, ferry_error *err);
FERRY_HIDDEN int lmdb_grow_map(lmdb_store *s, int attempt, ferry_error *err);
FERRY_HIDDEN int lmdb_range_delete(lmdb_store *s, MDB_txn *txn, ferry_cf_slot *slot, const void *begin, size_t blen,
                                   const void *end, size_t elen, ferry_error *err);
FERRY_HIDDEN int lmdb_family_key_fail(lmdb_store *s, MDB_dbi dbi, int rc, const char *what, const MDB_val *k,
                                      ferry_error *err);
FERRY_HIDDEN int lmdb_put_one(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v,
                              uint32_t flags, const char *what, ferry_error *err);
FERRY_HIDDEN int lmdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                          size_t vlen, uint32_t flags, ferry_error *err);
FERRY_HIDDEN int lmdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err);
FERRY_HIDDEN int lmdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                                   const void *end, size_t elen, ferry_error *err);
FERRY_HIDDEN int lmdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
                            ferry_error *err);

/* comparator.c: comparators of the binding's language. A call that may compare keys of such a family
 * takes a mark first and passes its result through lmdb_cmp_after, which fails it with FERRY_EABORTED
 * when a comparison failed on this thread meanwhile (two relaxed loads while none ever failed). */
extern FERRY_HIDDEN atomic_uint lmdb_cmp_failures;
FERRY_HIDDEN unsigned lmdb_cmp_count(void);
FERRY_HIDDEN int lmdb_cmp_changed(unsigned mark, int rc, ferry_error *err);
/* Give handle dbi of s the table function of comparator c (NULL: the one it has) in txn. */
FERRY_HIDDEN int lmdb_cmp_bind(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const char *name, ferry_comparator *c,
                               ferry_error *err);
FERRY_HIDDEN int lmdb_cmp_added(ferry_store *fs, uint32_t id, ferry_error *err);
FERRY_HIDDEN void lmdb_cmp_release(lmdb_store *s);
/* LMDB_CMP_DB's record of family: put cmp_name; or delete it (del); or read it into name_out
 * (FERRY_MERGE_NAME_MAX + 1 bytes; FERRY_NOTFOUND when there is none). */
FERRY_HIDDEN int lmdb_cmp_record(MDB_txn *txn, const char *family, const char *cmp_name, int del, char *name_out,
                                 ferry_error *err);

static inline unsigned lmdb_cmp_mark(void)
{
    return atomic_load_explicit(&lmdb_cmp_failures, memory_order_relaxed) ? lmdb_cmp_count() : 0;
}

static inline int lmdb_cmp_after(unsigned mark, int rc, ferry_error *err)
{
    if (__builtin_expect(atomic_load_explicit(&lmdb_cmp_failures, memory_order_relaxed) == 0, 1)) return rc;
    return lmdb_cmp_changed(mark, rc, err);
}

/* families.c */
FERRY_HIDDEN int lmdb_dbi_order(MDB_txn *txn, MDB_dbi dbi, const char *name, int *order_out, ferry_error *err);
FERRY_HIDDEN int lmdb_order_found(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const char *name, int *bits_out,
                                  ferry_error *err);
FERRY_HIDDEN lmdb_stripe *lmdb_names_enter(lmdb_store *s, ferry_cf_slot *cf);
FERRY_HIDDEN int lmdb_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts,
                                const char *extra, void **handle_out, int *bits_out, ferry_error *err);
FERRY_HIDDEN int lmdb_cf_flags(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err);
FERRY_HIDDEN int lmdb_cf_drop(ferry_store *s, ferry_cf_slot *slot, ferry_error *err);

/* reads.c */
FERRY_HIDDEN int lmdb_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err);
FERRY_HIDDEN int lmdb_snapshot_close(ferry_snapshot *snap);
FERRY_HIDDEN int lmdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key,
                          size_t klen, uint32_t flags, void *dst, size_t cap, size_t *vlen_out,
                          ferry_error *err);
FERRY_HIDDEN int lmdb_count_values(MDB_txn *txn, MDB_dbi dbi, MDB_cursor *cur, const void *key, size_t klen,
                                   uint64_t *out);
FERRY_HIDDEN int lmdb_value_count(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key,
                                  size_t klen, uint64_t *out, ferry_error *err);
FERRY_HIDDEN int lmdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n,
                                const void *keys, uint32_t flags, void *dst, size_t cap, int64_t *lens_out,
                                ferry_error *err);
FERRY_HIDDEN int lmdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err);
FERRY_HIDDEN int lmdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                                    const void *end, size_t elen, ferry_error *err);
FERRY_HIDDEN int lmdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                               size_t *len_out, ferry_error *err);
FERRY_HIDDEN int lmdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                                   ferry_error *err);

/* cursors.c */
FERRY_HIDDEN int lmdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                                  size_t llen, const void *upper, size_t ulen, uint32_t flags,
                                  ferry_cursor **out, ferry_error *err);
FERRY_HIDDEN int lmdb_cursor_close(ferry_cursor *fc);
FERRY_HIDDEN int lmdb_cursor_fill(ferry_cursor *fc, int op, const void *key, size_t klen, uint8_t *page,
                                  size_t cap, uint32_t max_entries, ferry_error *err);

/* split.c */
FERRY_HIDDEN int lmdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf,
                                   const void *lower, size_t llen, const void *upper, size_t ulen,
                                   uint32_t max, void *dst, size_t cap, size_t *len_out, ferry_error *err);

/* txn.c */
FERRY_HIDDEN void lmdb_txn_release(lmdb_store *s, lmdb_txn *t);
FERRY_HIDDEN int lmdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out,
                                ferry_error *err);
FERRY_HIDDEN int lmdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst,
                              size_t cap, size_t *vlen_out, int for_update, ferry_error *err);
FERRY_HIDDEN int lmdb_txn_value_count(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen,
                                      uint64_t *out, ferry_error *err);
FERRY_HIDDEN int lmdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err);
FERRY_HIDDEN int lmdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen,
                                      const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
                                      ferry_error *err);
FERRY_HIDDEN void lmdb_txn_cursor_kill(ferry_cursor *fc);
FERRY_HIDDEN int lmdb_txn_commit(ferry_txn *tb, ferry_error *err);
FERRY_HIDDEN void lmdb_txn_abandon(ferry_txn *tb);
FERRY_HIDDEN int lmdb_txn_close(ferry_txn *tb);
FERRY_HIDDEN int lmdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err);

/* Keys LMDB accepts: 1..max_key bytes. */
static inline int lmdb_check_key(lmdb_store *s, size_t klen, ferry_error *err)
{
    if (klen == 0) return ferry_fail(err, FERRY_EKEYSIZE, 0, "empty key: LMDB does not store zero-length keys");
    if (klen > s->max_key)
        return ferry_fail(err, FERRY_EKEYSIZE, 0, "key of %zu bytes exceeds LMDB's maximum of %zu", klen, s->max_key);
    return FERRY_OK;
}

/* Unsigned lexicographic compare; a proper prefix sorts first (LMDB's default order). */
static inline int lmdb_key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* Two keys in a cursor's family's order: bytewise unless the family has another (c->order). */
static inline int lmdb_cursor_cmp(const lmdb_cursor *c, const void *a, size_t al, const void *b, size_t bl)
{
    return c->order ? ferry_slot_cmp(c->order, a, al, b, bl) : lmdb_key_cmp(a, al, b, bl);
}

/* The slot a cursor over cf compares bounds through, or NULL for bytewise (and UINT64_BIG_ENDIAN, the
 * bytewise order of 8-byte keys). */
static inline const ferry_cf_slot *lmdb_order_slot(const ferry_cf_slot *cf)
{
    int order = ferry_slot_order(cf);
    return order == FERRY_ORDER_BYTEWISE || order == FERRY_ORDER_U64_BE ? NULL : cf;
}

/* ------------------------------------------------------------------ read transactions */

/* This thread's stripe (assigned round-robin on first use). */
static inline unsigned lmdb_my_stripe(void)
{
    static atomic_uint next;
    static _Thread_local unsigned mine = UINT_MAX;
    if (mine == UINT_MAX) mine = atomic_fetch_add(&next, 1) % LMDB_STRIPES;
    return mine;
}

/* Read transactions in use (snapshots, cursors, gets): the sum over the stripes. */
static inline int lmdb_live_total(lmdb_store *s)
{
    int n = 0;
    for (int i = 0; i < LMDB_STRIPES; i++) n += atomic_load(&s->stripes[i].live);
    return n;
}

/* This thread's stripe of s. Computed once per call and passed on: in the shared library every
 * look-up of the thread-local stripe number is a call into the dynamic linker (__tls_get_addr). */
static inline lmdb_stripe *lmdb_stripe_of(lmdb_store *s)
{
    return &s->stripes[lmdb_my_stripe()];
}

/* Count a read transaction as live on stripe st, waiting while the map is being grown
 * (Dekker-style: the grower sets growing then sums live; we bump live then check growing). */
static inline void lmdb_read_enter_on(lmdb_store *s, lmdb_stripe *st)
{
    for (;;) {
        atomic_fetch_add(&st->live, 1);
        if (__builtin_expect(!atomic_load(&s->growing), 1)) return;
        atomic_fetch_sub(&st->live, 1);
        /* wait for the grower (it holds wlock until done) without taking wlock: a write
         * transaction may hold that for long after the grow */
        while (atomic_load(&s->growing)) plat_sleep_us(100);
    }
}

static inline void lmdb_read_enter(lmdb_store *s)
{
    lmdb_read_enter_on(s, lmdb_stripe_of(s));
}

/* The read transaction read_enter counted has ended (or never began). */
static inline void lmdb_read_exit(lmdb_store *s)
{
    atomic_fetch_sub(&lmdb_stripe_of(s)->live, 1);
}

/* read_acquire counting on stripe st (this thread's: stripe_of). The common case (the stripe
 * keeps a reset transaction, its renewal overlapped at most one commit step) runs inline; the
 * rest (pool, new transaction, retries, failures) in read_begin_slow. */
static inline int lmdb_read_acquire_on(lmdb_store *s, lmdb_stripe *st, MDB_txn **out, ferry_error *err)
{
    lmdb_read_enter_on(s, st);
    MDB_txn *txn = atomic_exchange(&st->txn, NULL);
    if (__builtin_expect(txn != NULL, 1)) {
        unsigned long long before = atomic_load_explicit(&s->commits, memory_order_acquire);
        int rc = MDB.mdb_txn_renew(txn);
        atomic_thread_fence(memory_order_acquire);
        unsigned long long after = atomic_load_explicit(&s->commits, memory_order_relaxed);
        if (__builtin_expect(rc == MDB_SUCCESS && after - before <= 1, 1)) {
            *out = txn;
            return FERRY_OK;
        }
        if (rc == MDB_SUCCESS) {
            MDB.mdb_txn_reset(txn); /* renewed on the next attempt */
        } else {
            MDB.mdb_txn_abort(txn);
            txn = NULL;
        }
        return lmdb_read_begin_slow(s, st, txn, 1, out, err);
    }
    return lmdb_read_begin_slow(s, st, NULL, 0, out, err);
}

static inline int lmdb_read_acquire(lmdb_store *s, MDB_txn **out, ferry_error *err)
{
    return lmdb_read_acquire_on(s, lmdb_stripe_of(s), out, err);
}

/* Give a read transaction back: reset into stripe st's slot, else the shared pool, else abort
 * it. It stops counting as live only once it is kept or gone (remap drains what is kept). Any
 * stripe may take it: only the sum of the stripes' live counts means anything. */
static inline void lmdb_read_release_on(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn)
{
    MDB.mdb_txn_reset(txn);
    MDB_txn *none = NULL;
    if (__builtin_expect(!atomic_compare_exchange_strong(&st->txn, &none, txn), 0)) lmdb_read_keep_slow(s, txn);
    atomic_fetch_sub(&st->live, 1);
}

static inline void lmdb_read_release(lmdb_store *s, MDB_txn *txn)
{
    lmdb_read_release_on(s, lmdb_stripe_of(s), txn);
}

/* The read transaction for a call: the snapshot's, or a pooled one (*own set). */
static inline int lmdb_read_txn(lmdb_store *s, ferry_snapshot *snap, MDB_txn **txn, MDB_txn **own, ferry_error *err)
{
    *own = NULL;
    if (snap) { *txn = ((lmdb_snapshot *)snap)->txn; return FERRY_OK; }
    int rc = lmdb_read_acquire(s, own, err);
    *txn = *own;
    return rc;
}

/* Does this thread hold the store's open write transaction? */
static inline int lmdb_txn_mine(lmdb_store *s)
{
    return atomic_load_explicit(&s->txn_active, memory_order_acquire)
           && pthread_equal(atomic_load_explicit(&s->txn_owner, memory_order_relaxed), pthread_self());
}

/* Run fn in one write transaction; commit on success, abort on any failure. With done set,
 * *done becomes 1 after a successful commit, before wlock is released (a family drop marks its
 * slot so: every later write transaction sees it, see family_live). */
static inline int lmdb_with_write_txn_then(lmdb_store *s, write_fn fn, void *ctx, atomic_int *done, ferry_error *err)
{
    int rc = lmdb_wlock_acquire(s, -1, err);
    if (rc) return rc;
    for (int attempt = 0;; attempt++) {
        MDB_txn *txn;
        int mrc = MDB.mdb_txn_begin(s->env, NULL, 0, &txn);
        if (mrc == MDB_MAP_RESIZED) { /* another process grew the map: adopt its size */
            if ((rc = lmdb_remap(s, 0, err)) != FERRY_OK) break;
            mrc = MDB.mdb_txn_begin(s->env, NULL, 0, &txn);
        }
        if (mrc) { rc = lmdb_fail(err, mrc, "begin write transaction"); break; }
        unsigned mark = lmdb_cmp_mark();
        rc = lmdb_cmp_after(mark, fn(s, txn, ctx, err), err);   /* a failed comparison: never committed */
        if (rc == FERRY_OK) {
            atomic_fetch_add_explicit(&s->commits, 1, memory_order_seq_cst);
            mrc = MDB.mdb_txn_commit(txn);
            atomic_fetch_add_explicit(&s->commits, 1, memory_order_release);
            if (mrc) rc = lmdb_fail(err, mrc, "commit");
            else if (done) atomic_store(done, 1);
        } else {
            MDB.mdb_txn_abort(txn);
        }
        if (rc != FERRY_EMAPFULL) break;
        if ((rc = lmdb_grow_map(s, attempt, err)) != FERRY_OK) break;
    }
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

static inline int lmdb_with_write_txn(lmdb_store *s, write_fn fn, void *ctx, ferry_error *err)
{
    return lmdb_with_write_txn_then(s, fn, ctx, NULL, err);
}

/* Inside a write transaction (wlock held): is the family still live? ferry.c checked it before
 * the call, but a drop may have committed since, and LMDB gives the dropped family's handle
 * number to the next family created: a write through the old number would land there. */
static inline int lmdb_family_live(ferry_cf_slot *slot, ferry_error *err)
{
    int dropped = atomic_load(&slot->dropped);
    if (!dropped) return FERRY_OK;
    if (dropped == FERRY_SLOT_BROKEN)   /* its comparator failed meanwhile (a range delete's bounds, another thread) */
        return ferry_fail(err, FERRY_EABORTED, 0, "column family '%s': its comparator failed: the family refuses "
                          "every call until the store is reopened (see ferry_comparator_create)", slot->name);
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", slot->name);
}

/* ------------------------------------------------------------------ families */

/* The first use of a named family's handle in a read transaction makes LMDB look the family's
 * record up by name, through the environment's copy of the name (mdb_page_search, DB_STALE). A
 * drop frees that copy (mdb_drop closes the handle), so a read racing a drop could read freed
 * memory. Reads of named families count themselves in their thread's stripe (stripes[].n)
 * (two atomic adds on a line no other reader thread writes, in the common case); a drop raises
 * `dropping`, waits for every stripe to empty, drops, and lowers it; readers that meet a drop
 * wait it out. The default family is never dropped and pays nothing. */

/* Is cf the default family's slot (id 0: the first slot of the first chunk, which never moves)? */
static inline int lmdb_is_default_cf(lmdb_store *s, ferry_cf_slot *cf)
{
    return cf == atomic_load_explicit(&s->base.cf_chunks[0], memory_order_relaxed);
}

/* names_enter counting on stripe st (this thread's). */
static inline lmdb_stripe *lmdb_names_enter_on(lmdb_store *s, lmdb_stripe *st, ferry_cf_slot *cf)
{
    if (lmdb_is_default_cf(s, cf)) return NULL;
    for (;;) {
        atomic_fetch_add(&st->n, 1);
        if (!atomic_load(&s->dropping)) return st;
        atomic_fetch_sub(&st->n, 1);
        while (atomic_load(&s->dropping)) plat_yield();
    }
}

static inline void lmdb_names_exit(lmdb_stripe *st)
{
    if (st) atomic_fetch_sub(&st->n, 1);
}

/* After a read through a family's handle number: was the family dropped meanwhile? ferry.c
 * checked it before the call, but a drop and a create may have committed since, and LMDB gives
 * the dropped database's number to the new one: a read transaction begun after that reads the
 * new family through the old id. The drop marks the slot before any later create commits, so
 * checking after the read catches it; the result is then discarded. */
static inline int lmdb_dropped_since(ferry_cf_slot *cf, ferry_error *err)
{
    if (!atomic_load(&cf->dropped)) return FERRY_OK;
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", cf->name);
}

/* One mdb_get; keys LMDB cannot hold are simply absent. */
static inline int lmdb_get_one(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen, MDB_val *v)
{
    if (klen == 0 || klen > s->max_key) return MDB_NOTFOUND;
    MDB_val k = { klen, (void *)key };
    return MDB.mdb_get(txn, dbi, &k, v);
}

/* ------------------------------------------------------------------ cursors */

/* Copy a cursor's bounds into the memory allocated after it (calloc(sizeof *c + llen + ulen)) and
 * set its range and pointer-mode fields; shared by store, snapshot and transaction cursors. */
static inline void lmdb_cursor_set_range(lmdb_cursor *c, const ferry_cf_slot *cf, const void *lower, size_t llen,
                                         const void *upper, size_t ulen, uint32_t flags)
{
    c->order = lmdb_order_slot(cf);
    uint8_t *mem = (uint8_t *)(c + 1);
    if (llen) memcpy(mem, lower, llen);
    if (ulen) memcpy(mem + llen, upper, ulen);
    c->lower = mem;
    c->llen = llen;
    c->upper = mem + llen;
    c->ulen = ulen;
    /* the empty key is the smallest: nothing lies below it (as on RocksDB); a zero length
     * means "no bound" only for a NULL bound */
    c->empty = upper != NULL && ulen == 0;
    c->pointers = (flags & FERRY_CURSOR_POINTERS) != 0;
}

static inline unsigned lmdb_rd16(const uint8_t *p)
{
    uint16_t x;
    memcpy(&x, p, 2);
    return x;
}

/* Roll back t unless it ended (on its own thread, its cursors closed). */
static inline int lmdb_txn_end_locked(lmdb_store *s, lmdb_txn *t)
{
    if (!t->ended) {
        MDB.mdb_txn_abort(t->root);
        t->ended = 1;
        lmdb_txn_release(s, t);
    }
    return FERRY_OK;
}

/* The engine-wide entry points: ferry_lmdb_lib's (attach.c), the ABI layer's way in (internal.h). */
FERRY_HIDDEN int ferry_lmdb_attach(const char *lib_path, ferry_error *err);
FERRY_HIDDEN int ferry_lmdb_path(char *dst, size_t cap);
/* cfs: not used (see ferry_engine_lib.open) */
FERRY_HIDDEN int ferry_lmdb_open(const char *path, const int64_t *opts, const char *extra, const ferry_cf_desc *cfs,
                                 uint32_t ncfs, ferry_store **out, ferry_error *err);

#endif /* FERRY_LMDB_ENGINE_H */
