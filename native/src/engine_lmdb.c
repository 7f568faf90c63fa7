/* LMDB engine: liblmdb from org.lmdbjava:native, resolved at run time (see lmdb_api.h).
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

/* ------------------------------------------------------------------ attach */

static ferry_mdb_api mdb;
static atomic_int mdb_attached;
static char *mdb_path;
static plat_lib *mdb_handle;
static pthread_mutex_t mdb_attach_lock = PTHREAD_MUTEX_INITIALIZER;
/* mdb_txn_id (LMDB 0.9.15 and later): resolved apart from the table, NULL when missing (then the default
 * family has no split points) */
static size_t (*mdb_txn_id_fn)(MDB_txn *txn);

/* Find the liblmdb already loaded in this process (lib_path NULL): its file name. */
static const char *loaded_lmdb_path(void)
{
    return plat_global_sym_path("mdb_env_create");
}

/* Resolve every function of the table from handle; names the first missing one. */
static int resolve_mdb(plat_lib *handle, ferry_mdb_api *t, ferry_error *err)
{
#define FERRY_MDB_RESOLVE(ret, name, params)                                                    \
    *(void **)&t->name = plat_lib_sym(handle, #name);                                           \
    if (!t->name) return ferry_fail(err, FERRY_ENOENGINE, 0, "liblmdb lacks symbol %s", #name);
    FERRY_MDB_FUNCS(FERRY_MDB_RESOLVE)
#undef FERRY_MDB_RESOLVE
    return FERRY_OK;
}

/* Attach when already attached: the same object is fine, another one is a duplicate. */
static int attach_again(const char *path, ferry_error *err)
{
    if (strcmp(path, mdb_path) == 0) return FERRY_OK;
    plat_lib *h = plat_lib_find(path);
    if (h) {
        int same = plat_lib_same(h, mdb_handle);
        plat_lib_close(h);
        if (same) return FERRY_OK;
    }
    return ferry_fail(err, FERRY_EDUPENGINE, 0, "liblmdb already attached from %s; refusing a second copy at %s",
                      mdb_path, path);
}

/* Load liblmdb (or find the loaded one) and resolve the mdb_* table, once per process. */
int ferry_lmdb_attach(const char *lib_path, ferry_error *err)
{
    const char *path = lib_path ? lib_path : loaded_lmdb_path();
    if (!path) return ferry_fail(err, FERRY_ENOENGINE, 0, "no liblmdb loaded in this process; pass its path");
    pthread_mutex_lock(&mdb_attach_lock);
    int rc;
    if (atomic_load(&mdb_attached)) {
        rc = attach_again(path, err);
    } else {
        plat_lib *h = plat_lib_open(path);
        ferry_mdb_api t;
        if (!h) {
            rc = ferry_fail(err, FERRY_ENOENGINE, 0, "cannot load liblmdb: %s", plat_lib_error());
        } else if ((rc = resolve_mdb(h, &t, err)) != FERRY_OK) {
            plat_lib_close(h);
        } else if (!(mdb_path = strdup(path))) {
            plat_lib_close(h);
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        } else {
            mdb = t;
            *(void **)&mdb_txn_id_fn = plat_lib_sym(h, "mdb_txn_id");
            mdb_handle = h;
            atomic_store_explicit(&mdb_attached, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&mdb_attach_lock);
    return rc;
}

/* Path of the attached liblmdb. */
int ferry_lmdb_path(char *dst, size_t cap)
{
    if (!atomic_load_explicit(&mdb_attached, memory_order_acquire)) return FERRY_ENOENGINE;
    size_t len = strlen(mdb_path);
    size_t n = len < cap - 1 ? len : cap - 1;
    memcpy(dst, mdb_path, n);
    dst[n] = '\0';
    return (int)len;
}

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
    size_t last_pgno;   /* the environment's last page number when the cursor opened */
    uintptr_t map;      /* address of the map's page 0 once a walk found it, else 0 */
    uintptr_t skip;     /* leaf page the walk leaves to LMDB (it did not pass the checks) */
} lmdb_cursor;

#define LS(s) ((lmdb_store *)(s))
#define DBI(slot) ((MDB_dbi)(uintptr_t)(slot)->handle)

/* ------------------------------------------------------------------ errors */

/* Map an LMDB / system return code to a FERRY_* code. LMDB's own codes are negative; a positive
 * one is the system's (errno, or on Windows mostly a Win32 error code: plat_sys_errno). */
static int map_rc(int rc)
{
    switch (rc > 0 ? plat_sys_errno(rc) : rc) {
    case MDB_NOTFOUND: return FERRY_NOTFOUND;
    case MDB_MAP_FULL: return FERRY_EMAPFULL;
    case MDB_READERS_FULL: return FERRY_EREADERSFULL;
    case MDB_DBS_FULL: return FERRY_EDBSFULL;
    case MDB_BAD_TXN: case MDB_BAD_RSLOT: return FERRY_EBADTXN;
    case MDB_BAD_VALSIZE: return FERRY_EKEYSIZE;
    case MDB_KEYEXIST: return FERRY_EEXISTS;
    case MDB_CORRUPTED: case MDB_PAGE_NOTFOUND: case MDB_INVALID: case MDB_VERSION_MISMATCH:
        return FERRY_ECORRUPTION;
    case EACCES: case EIO: case ENOSPC: case ENOENT: return FERRY_EIO;
    case EINVAL: return FERRY_EENGINEARG;
    case ENOMEM: return FERRY_ENOMEM;
    case EAGAIN: case EBUSY: return FERRY_EBUSY;
    default: return FERRY_EENGINE;
    }
}

/* The text of an LMDB return code (LMDB's mdb_strerror cannot be trusted with a Win32 code). */
static const char *lmdb_strerror(int rc)
{
    return rc > 0 ? plat_sys_error_text(rc) : mdb.mdb_strerror(rc);
}

/* Record an LMDB failure: mapped code, rc as engine_code, "context: lmdb message". */
static int lmdb_fail(ferry_error *err, int rc, const char *what)
{
    return ferry_fail(err, map_rc(rc), rc, "%s: %s", what, lmdb_strerror(rc));
}

/* Keys LMDB accepts: 1..max_key bytes. */
static int check_key(lmdb_store *s, size_t klen, ferry_error *err)
{
    if (klen == 0) return ferry_fail(err, FERRY_EKEYSIZE, 0, "empty key: LMDB does not store zero-length keys");
    if (klen > s->max_key)
        return ferry_fail(err, FERRY_EKEYSIZE, 0, "key of %zu bytes exceeds LMDB's maximum of %zu", klen, s->max_key);
    return FERRY_OK;
}

/* Unsigned lexicographic compare; a proper prefix sorts first (LMDB's default order). */
static inline int key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int txn_mine(lmdb_store *s);

/* ------------------------------------------------------------------ read transactions */

/* This thread's stripe (assigned round-robin on first use). */
static unsigned my_stripe(void)
{
    static atomic_uint next;
    static _Thread_local unsigned mine = UINT_MAX;
    if (mine == UINT_MAX) mine = atomic_fetch_add(&next, 1) % LMDB_STRIPES;
    return mine;
}

/* Read transactions in use (snapshots, cursors, gets): the sum over the stripes. */
static int live_total(lmdb_store *s)
{
    int n = 0;
    for (int i = 0; i < LMDB_STRIPES; i++) n += atomic_load(&s->stripes[i].live);
    return n;
}

/* This thread's stripe of s. Computed once per call and passed on: in the shared library every
 * look-up of the thread-local stripe number is a call into the dynamic linker (__tls_get_addr). */
static inline lmdb_stripe *stripe_of(lmdb_store *s)
{
    return &s->stripes[my_stripe()];
}

/* Count a read transaction as live on stripe st, waiting while the map is being grown
 * (Dekker-style: the grower sets growing then sums live; we bump live then check growing). */
static inline void read_enter_on(lmdb_store *s, lmdb_stripe *st)
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

static void read_enter(lmdb_store *s)
{
    read_enter_on(s, stripe_of(s));
}

/* The read transaction read_enter counted has ended (or never began). */
static void read_exit(lmdb_store *s)
{
    atomic_fetch_sub(&stripe_of(s)->live, 1);
}

/* Abort every kept (reset) transaction: the stripes' and the shared pool's. */
static void pool_drain(lmdb_store *s)
{
    for (int i = 0; i < LMDB_STRIPES; i++) {
        MDB_txn *t = atomic_exchange(&s->stripes[i].txn, NULL);
        if (t) mdb.mdb_txn_abort(t);
    }
    pthread_mutex_lock(&s->pool_lock);
    int n = s->npool;
    MDB_txn *txns[LMDB_POOL_CAP];
    memcpy(txns, s->pool, sizeof(MDB_txn *) * (size_t)n);
    s->npool = 0;
    pthread_mutex_unlock(&s->pool_lock);
    for (int i = 0; i < n; i++) mdb.mdb_txn_abort(txns[i]);
}

/* Start a read transaction: renew *txn when there is one (aborting it when that fails), else
 * begin a new one, freeing the kept transactions' reader slots when the table is full. */
static int read_start(lmdb_store *s, MDB_txn **txn)
{
    if (*txn) {
        if (mdb.mdb_txn_renew(*txn) == MDB_SUCCESS) return MDB_SUCCESS;
        mdb.mdb_txn_abort(*txn);
        *txn = NULL;
    }
    int rc = mdb.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    if (rc == MDB_READERS_FULL) { /* pooled transactions hold reader slots: free them */
        pool_drain(s);
        rc = mdb.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    }
    if (rc != MDB_SUCCESS) *txn = NULL;
    return rc;
}

/* Take a read transaction: this stripe's kept one, else one from the shared pool (renewed),
 * else a new one. The stripe's slot is taken with one atomic exchange: no lock on the way.
 *
 * LMDB 0.9 begins a read transaction by reading the last committed id (mti_txnid), then the
 * meta page of its parity, without checking that the page still holds that id. A reader
 * descheduled between the two while the writer commits twice copies the meta of the second
 * commit, before LMDB published it: its read sees that commit, and a read begun after it (which
 * reads the published id, one lower) sees the state before: a value goes back (found by the
 * contract test readersBesideAWriterSeeOnlyWholeBatches; test_reads_never_go_back in C).
 * A seqlock on the commits closes it: a begin that at most one commit step overlapped read a meta
 * page no commit was writing (the page of id N is rewritten only by commit N+2); otherwise the
 * transaction is reset and begun again, and after LMDB_BEGIN_TRIES overlapped begins, once
 * under wlock, where no commit runs. Readers only read the counter: no shared write. Commits
 * by another process sharing the environment do not step it (docs/usage.md says so). */
static int read_begin_slow(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn, int attempt, MDB_txn **out,
                           ferry_error *err);

/* read_acquire counting on stripe st (this thread's: stripe_of). The common case (the stripe
 * keeps a reset transaction, its renewal overlapped at most one commit step) runs inline; the
 * rest (pool, new transaction, retries, failures) in read_begin_slow. */
static inline int read_acquire_on(lmdb_store *s, lmdb_stripe *st, MDB_txn **out, ferry_error *err)
{
    read_enter_on(s, st);
    MDB_txn *txn = atomic_exchange(&st->txn, NULL);
    if (__builtin_expect(txn != NULL, 1)) {
        unsigned long long before = atomic_load_explicit(&s->commits, memory_order_acquire);
        int rc = mdb.mdb_txn_renew(txn);
        atomic_thread_fence(memory_order_acquire);
        unsigned long long after = atomic_load_explicit(&s->commits, memory_order_relaxed);
        if (__builtin_expect(rc == MDB_SUCCESS && after - before <= 1, 1)) {
            *out = txn;
            return FERRY_OK;
        }
        if (rc == MDB_SUCCESS) {
            mdb.mdb_txn_reset(txn); /* renewed on the next attempt */
        } else {
            mdb.mdb_txn_abort(txn);
            txn = NULL;
        }
        return read_begin_slow(s, st, txn, 1, out, err);
    }
    return read_begin_slow(s, st, NULL, 0, out, err);
}

static int read_acquire(lmdb_store *s, MDB_txn **out, ferry_error *err)
{
    return read_acquire_on(s, stripe_of(s), out, err);
}

/* The rest of read_acquire_on, counted live on st already: txn is NULL or a reset transaction to
 * renew; attempt counts the begins tried so far. */
static __attribute__((noinline)) int read_begin_slow(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn, int attempt,
                                                     MDB_txn **out, ferry_error *err)
{
    if (!txn) {
        pthread_mutex_lock(&s->pool_lock);
        if (s->npool > 0) txn = s->pool[--s->npool];
        pthread_mutex_unlock(&s->pool_lock);
    }
    int rc;
    for (;; attempt++) {
        /* this thread's own write transaction holds wlock: no commit of this process can run */
        int locked = attempt >= LMDB_BEGIN_TRIES && !txn_mine(s);
        if (locked) pthread_mutex_lock(&s->wlock);
        unsigned long long before = atomic_load_explicit(&s->commits, memory_order_acquire);
        rc = read_start(s, &txn);
        atomic_thread_fence(memory_order_acquire);
        unsigned long long after = atomic_load_explicit(&s->commits, memory_order_relaxed);
        if (locked) pthread_mutex_unlock(&s->wlock);
        if (rc != MDB_SUCCESS || after - before <= 1) break;
        mdb.mdb_txn_reset(txn); /* renewed on the next attempt */
    }
    if (rc != MDB_SUCCESS) {
        atomic_fetch_sub(&st->live, 1);
        if (rc == MDB_READERS_FULL)
            return ferry_fail(err, FERRY_EREADERSFULL, rc,
                              "begin read transaction: LMDB's reader table is full: every open snapshot and cursor "
                              "holds a reader slot until it is closed, so unclosed cursors and snapshots fill it; "
                              "close them, or raise StoreOptions.maxReaders (FERRY_OPT_MAX_READERS in the C ABI)");
        return lmdb_fail(err, rc, "begin read transaction");
    }
    *out = txn;
    return FERRY_OK;
}

/* A reset transaction that stripe's slot did not take: into the shared pool, else aborted. */
static __attribute__((noinline)) void read_keep_slow(lmdb_store *s, MDB_txn *txn)
{
    pthread_mutex_lock(&s->pool_lock);
    int pooled = s->npool < LMDB_POOL_CAP;
    if (pooled) s->pool[s->npool++] = txn;
    pthread_mutex_unlock(&s->pool_lock);
    if (!pooled) mdb.mdb_txn_abort(txn);
}

/* Give a read transaction back: reset into stripe st's slot, else the shared pool, else abort
 * it. It stops counting as live only once it is kept or gone (remap drains what is kept). Any
 * stripe may take it: only the sum of the stripes' live counts means anything. */
static inline void read_release_on(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn)
{
    mdb.mdb_txn_reset(txn);
    MDB_txn *none = NULL;
    if (__builtin_expect(!atomic_compare_exchange_strong(&st->txn, &none, txn), 0)) read_keep_slow(s, txn);
    atomic_fetch_sub(&st->live, 1);
}

static void read_release(lmdb_store *s, MDB_txn *txn)
{
    read_release_on(s, stripe_of(s), txn);
}

/* The read transaction for a call: the snapshot's, or a pooled one (*own set). */
static int read_txn(lmdb_store *s, ferry_snapshot *snap, MDB_txn **txn, MDB_txn **own, ferry_error *err)
{
    *own = NULL;
    if (snap) { *txn = ((lmdb_snapshot *)snap)->txn; return FERRY_OK; }
    int rc = read_acquire(s, own, err);
    *txn = *own;
    return rc;
}


/* ------------------------------------------------------------------ the write lock */

static int txn_end_locked(lmdb_store *s, lmdb_txn *t);

/* Does this thread hold the store's open write transaction? */
static int txn_mine(lmdb_store *s)
{
    return atomic_load_explicit(&s->txn_active, memory_order_acquire)
           && pthread_equal(atomic_load_explicit(&s->txn_owner, memory_order_relaxed), pthread_self());
}

/* Take wlock for a write. A write transaction open on this thread would make it wait for itself:
 * refused (FERRY_EBUSY), unless it was abandoned (closed on another thread), which is rolled back
 * here, on its thread. timeout_ms: -1 waits as long as it takes, 0 tries, > 0 waits that long.
 * While waiting, a transaction abandoned on another thread fails the wait (FERRY_EBUSY): only its
 * own thread can end it. */
static int wlock_acquire(lmdb_store *s, int64_t timeout_ms, ferry_error *err)
{
    if (txn_mine(s)) {
        if (!atomic_load(&s->abandoned) || !atomic_load(&s->txn->released))
            return ferry_fail(err, FERRY_EBUSY, 0, "this thread holds an open write transaction on this LMDB store: "
                              "write through the transaction, or commit or close it first (LMDB has one writer; "
                              "waiting here would wait for itself)");
        lmdb_txn *t = s->txn;   /* abandoned: nobody else holds it; roll it back and free it here */
        txn_end_locked(s, t);
        pthread_mutex_destroy(&t->base.lock);
        free(t->parents);
        free(t);
    }
    if (timeout_ms == 0) {
        if (pthread_mutex_trylock(&s->wlock) == 0) return FERRY_OK;
        return ferry_fail(err, FERRY_EBUSY, 0, "the LMDB store's write lock is held (another write transaction or "
                          "write is in progress)");
    }
    int64_t start = plat_now_ms();
    for (;;) {
        int rc = plat_mutex_lock_ms(&s->wlock, 50);
        if (rc == 0) return FERRY_OK;
        if (rc != ETIMEDOUT) return ferry_fail(err, FERRY_EENGINE, rc, "write lock: %s", strerror(rc));
        if (atomic_load(&s->abandoned))
            return ferry_fail(err, FERRY_EBUSY, 0, "an LMDB write transaction of this store was closed (or dropped and "
                              "cleaned) on a thread other than the one that began it: LMDB can end it only on that "
                              "thread, which rolls it back at its next write call on this store; until then, or until "
                              "the store closes, writes fail");
        if (timeout_ms > 0) {
            if (plat_now_ms() - start >= timeout_ms)
                return ferry_fail(err, FERRY_ETIMEDOUT, 0, "the LMDB store's write lock was not free within %lld ms "
                                  "(another write transaction is open)", (long long)timeout_ms);
        }
    }
}

/* ------------------------------------------------------------------ write transactions */

typedef int (*write_fn)(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err);

/* Remap to new_size (0 = adopt the size on disk). Caller holds wlock. New read
 * transactions are held back meanwhile; short ones (gets) get LMDB_DRAIN_MS to finish.
 * Fails with FERRY_EMAPFULL when a read transaction of this store stays live. */
static int remap(lmdb_store *s, size_t new_size, ferry_error *err)
{
    atomic_store(&s->growing, 1);
    int live = live_total(s);
    for (int64_t start = plat_now_ms(); live != 0 && plat_now_ms() - start < LMDB_DRAIN_MS;) {
        plat_sleep_us(250);
        live = live_total(s);
    }
    if (live != 0) {
        atomic_store(&s->growing, 0);
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL,
                          "LMDB map full and auto-grow cannot remap while %d read transaction(s) "
                          "(snapshots, cursors) are open: close them and retry, or raise StoreOptions.mapSize", live);
    }
    pool_drain(s);
    int rc = mdb.mdb_env_set_mapsize(s->env, new_size);
    atomic_store(&s->growing, 0);
    return rc ? lmdb_fail(err, rc, "grow LMDB map") : FERRY_OK;
}

/* Handle MDB_MAP_FULL: grow by step << attempt when auto-grow is on. Caller holds wlock. */
static int grow_map(lmdb_store *s, int attempt, ferry_error *err)
{
    MDB_envinfo info;
    mdb.mdb_env_info(s->env, &info);
    if (s->grow_step <= 0)
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL,
                          "LMDB map full (map size %zu bytes): raise StoreOptions.mapSize or enable "
                          "StoreOptions.autoGrow (FERRY_OPT_MAP_SIZE, FERRY_OPT_AUTO_GROW in the C ABI)",
                          info.me_mapsize);
    size_t inc = (size_t)s->grow_step << (attempt < LMDB_MAX_GROW_SHIFT ? attempt : LMDB_MAX_GROW_SHIFT);
    if (info.me_mapsize > SIZE_MAX - inc)
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL, "LMDB map full: cannot grow past %zu bytes", info.me_mapsize);
    return remap(s, info.me_mapsize + inc, err);
}

/* Run fn in one write transaction; commit on success, abort on any failure. With done set,
 * *done becomes 1 after a successful commit, before wlock is released (a family drop marks its
 * slot so: every later write transaction sees it, see family_live). */
static int with_write_txn_then(lmdb_store *s, write_fn fn, void *ctx, atomic_int *done, ferry_error *err)
{
    int rc = wlock_acquire(s, -1, err);
    if (rc) return rc;
    for (int attempt = 0;; attempt++) {
        MDB_txn *txn;
        int mrc = mdb.mdb_txn_begin(s->env, NULL, 0, &txn);
        if (mrc == MDB_MAP_RESIZED) { /* another process grew the map: adopt its size */
            if ((rc = remap(s, 0, err)) != FERRY_OK) break;
            mrc = mdb.mdb_txn_begin(s->env, NULL, 0, &txn);
        }
        if (mrc) { rc = lmdb_fail(err, mrc, "begin write transaction"); break; }
        rc = fn(s, txn, ctx, err);
        if (rc == FERRY_OK) {
            atomic_fetch_add_explicit(&s->commits, 1, memory_order_seq_cst);
            mrc = mdb.mdb_txn_commit(txn);
            atomic_fetch_add_explicit(&s->commits, 1, memory_order_release);
            if (mrc) rc = lmdb_fail(err, mrc, "commit");
            else if (done) atomic_store(done, 1);
        } else {
            mdb.mdb_txn_abort(txn);
        }
        if (rc != FERRY_EMAPFULL) break;
        if ((rc = grow_map(s, attempt, err)) != FERRY_OK) break;
    }
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

static int with_write_txn(lmdb_store *s, write_fn fn, void *ctx, ferry_error *err)
{
    return with_write_txn_then(s, fn, ctx, NULL, err);
}

/* Inside a write transaction (wlock held): is the family still live? ferry.c checked it before
 * the call, but a drop may have committed since, and LMDB gives the dropped family's handle
 * number to the next family created: a write through the old number would land there. */
static int family_live(ferry_cf_slot *slot, ferry_error *err)
{
    if (!atomic_load(&slot->dropped)) return FERRY_OK;
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", slot->name);
}

/* ------------------------------------------------------------------ write ops */

/* Delete [begin, end) of dbi inside txn (begin >= end: nothing). In the main (default)
 * database the records that name other families are not user data: they are skipped, so a
 * range delete over the default family never fails on them or drops a family. */
static int is_family_record(lmdb_store *s, MDB_dbi dbi, const MDB_val *k, const MDB_val *v)
{
    if (dbi != DBI(ferry_slot(&s->base, 0)) || v->mv_size != 48) return 0;
    uint32_t n = atomic_load_explicit(&s->base.cf_count, memory_order_acquire);
    for (uint32_t i = 1; i < n; i++) {
        /* a dropped family's record is gone: a key of that name now is user data */
        const ferry_cf_slot *slot = ferry_slot(&s->base, i);
        if (atomic_load(&slot->dropped)) continue;
        if (strlen(slot->name) == k->mv_size && memcmp(slot->name, k->mv_data, k->mv_size) == 0) return 1;
    }
    return 0;
}

static int range_delete(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const void *begin, size_t blen,
                        const void *end, size_t elen, ferry_error *err)
{
    /* begin >= end (an empty end included) is an empty range: nothing to do. Past this
     * check end is not empty, and an empty begin is the smallest key. */
    if (ferry_range_empty(begin, blen, end, elen)) return FERRY_OK;
    MDB_cursor *cur;
    unsigned dbflags = 0;
    int rc = mdb.mdb_dbi_flags(txn, dbi, &dbflags);
    if (rc) return lmdb_fail(err, rc, "delete_range: database flags");
    /* a DUPSORT key goes with all its values; MDB_NEXT then lands on the next key */
    unsigned delflags = (dbflags & MDB_DUPSORT) ? MDB_NODUPDATA : 0;
    rc = mdb.mdb_cursor_open(txn, dbi, &cur);
    if (rc) return lmdb_fail(err, rc, "delete_range: open cursor");
    MDB_val k = { blen, (void *)begin }, v;
    rc = mdb.mdb_cursor_get(cur, &k, &v, blen ? MDB_SET_RANGE : MDB_FIRST);
    while (rc == MDB_SUCCESS) {
        if (key_cmp(k.mv_data, k.mv_size, end, elen) >= 0) break;
        /* a named family's record: keep it (deleting it would fail and spoil the txn) */
        if (!is_family_record(s, dbi, &k, &v) && (rc = mdb.mdb_cursor_del(cur, delflags)) != MDB_SUCCESS) break;
        rc = mdb.mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    mdb.mdb_cursor_close(cur);
    if (rc == MDB_SUCCESS || rc == MDB_NOTFOUND) return FERRY_OK;
    return lmdb_fail(err, rc, "delete_range");
}

/* A write to the default family failed with MDB_INCOMPATIBLE: the key is a named family's record
 * (LMDB keeps named databases as records of the main database, Ferry's default family). */
static int family_key_fail(lmdb_store *s, MDB_dbi dbi, int rc, const char *what, const MDB_val *k, ferry_error *err)
{
    if (rc != MDB_INCOMPATIBLE || dbi != DBI(ferry_slot(&s->base, 0))) return lmdb_fail(err, rc, what);
    int n = k->mv_size > 200 ? 200 : (int)k->mv_size;
    return ferry_fail(err, FERRY_EINVAL, rc,
                      "%s: the key '%.*s' is the name of a column family: on LMDB a key of the default family cannot "
                      "equal a column family's name (LMDB keeps named databases as records of its main database, "
                      "which is the default family); use another key or keep such keys in a column family",
                      what, n, (const char *)k->mv_data);
}

typedef struct put_ctx {
    ferry_cf_slot *slot;
    const void *a, *b;
    size_t alen, blen;
    uint32_t flags;     /* FERRY_WRITE_* */
} put_ctx;

/* One put of (k, v) into dbi with FERRY_WRITE_* flags, inside txn: DUPSORT value sizes and the
 * LMDB-only flags checked against the database's flags; what is the record's name in messages. */
static int put_one(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v, uint32_t flags,
                   const char *what, ferry_error *err)
{
    unsigned dbflags = 0;
    int rc = mdb.mdb_dbi_flags(txn, dbi, &dbflags);
    if (rc) return lmdb_fail(err, rc, what);
    int dups = (dbflags & MDB_DUPSORT) != 0;
    if (dups && v->mv_size > s->max_key)
        return ferry_fail(err, FERRY_EKEYSIZE, MDB_BAD_VALSIZE,
                          "%s: value of %zu bytes exceeds %zu bytes, LMDB's limit for values of a DUPSORT column family "
                          "(its maximum key size: values of such a family are keys of a sub-database)",
                          what, v->mv_size, s->max_key);
    if (dbflags & MDB_DUPFIXED) {
        /* LMDB takes a value of another size and then reads every value of the key with the
         * first one's size: refuse it */
        MDB_val k2 = *k, first;
        rc = mdb.mdb_get(txn, dbi, &k2, &first);
        if (rc == MDB_SUCCESS && first.mv_size != v->mv_size)
            return ferry_fail(err, FERRY_EKEYSIZE, MDB_BAD_VALSIZE, "%s: value of %zu bytes: the values of a key in a "
                              "DUPFIXED column family all have one size, this key's are %zu bytes",
                              what, v->mv_size, first.mv_size);
        if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return lmdb_fail(err, rc, what);
    }
    if ((flags & FERRY_WRITE_NO_DUP_DATA) && !dups)
        return ferry_fail(err, FERRY_EINVAL, 0, "%s: noDupData needs a DUPSORT column family (use noOverwrite)", what);
    unsigned mflags = 0;
    if (flags & FERRY_WRITE_NO_OVERWRITE) mflags |= MDB_NOOVERWRITE;
    if (flags & FERRY_WRITE_NO_DUP_DATA) mflags |= MDB_NODUPDATA;
    if (flags & FERRY_WRITE_APPEND) mflags |= dups ? MDB_APPENDDUP : MDB_APPEND;
    rc = mdb.mdb_put(txn, dbi, k, v, mflags);
    if (rc == MDB_KEYEXIST && (flags & FERRY_WRITE_APPEND))
        return ferry_fail(err, FERRY_EINVAL, rc, dups ? "%s: append: the value does not sort after the key's last value"
                                                      : "%s: append: the key does not sort after the last key", what);
    if (rc == MDB_KEYEXIST)
        return ferry_fail(err, FERRY_EKEYEXIST, rc, (flags & FERRY_WRITE_NO_OVERWRITE) ? "%s: the key exists (noOverwrite)"
                                                    : "%s: the key and value exist (noDupData)", what);
    return rc ? family_key_fail(s, dbi, rc, what, k, err) : FERRY_OK;
}

/* Write fn: one put. */
static int put_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = family_live(p->slot, err);
    if (frc) return frc;
    MDB_val k = { p->alen, (void *)p->a }, v = { p->blen, (void *)p->b };
    return put_one(s, txn, DBI(p->slot), &k, &v, p->flags, "put", err);
}

/* Write fn: one delete (a missing key is fine). */
static int del_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = family_live(p->slot, err);
    if (frc) return frc;
    MDB_val k = { p->alen, (void *)p->a };
    int rc = mdb.mdb_del(txn, DBI(p->slot), &k, NULL);
    return (rc && rc != MDB_NOTFOUND) ? family_key_fail(s, DBI(p->slot), rc, "delete", &k, err) : FERRY_OK;
}

/* Write fn: one range delete. */
static int range_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = family_live(p->slot, err);
    if (frc) return frc;
    return range_delete(s, txn, DBI(p->slot), p->a, p->alen, p->b, p->blen, err);
}

/* FERRY_WRITE_SYNC: the committed write is synced (the store may run with MDB_NOSYNC). */
static int sync_after(lmdb_store *s, int rc, uint32_t flags, ferry_error *err)
{
    if (rc != FERRY_OK || !(flags & FERRY_WRITE_SYNC)) return rc;
    int mrc = mdb.mdb_env_sync(s->env, 1);
    return mrc ? lmdb_fail(err, mrc, "sync") : FERRY_OK;
}

/* put with FERRY_WRITE_* flags: key checked here, then one write transaction. */
static int lmdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                    size_t vlen, uint32_t flags, ferry_error *err)
{
    int rc = check_key(LS(s), klen, err);
    if (rc) return rc;
    put_ctx p = { cf, key, val, klen, vlen, flags };
    return sync_after(LS(s), with_write_txn(LS(s), put_fn, &p, err), flags, err);
}

/* delete: a missing key is not an error. */
static int lmdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err)
{
    int rc = check_key(LS(s), klen, err);
    if (rc) return rc;
    put_ctx p = { cf, key, NULL, klen, 0, 0 };
    return with_write_txn(LS(s), del_fn, &p, err);
}

/* delete_range: [begin, end) in one write transaction. */
static int lmdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                             const void *end, size_t elen, ferry_error *err)
{
    put_ctx p = { cf, begin, end, blen, elen, 0 };
    return with_write_txn(LS(s), range_fn, &p, err);
}

typedef struct batch_ctx {
    const uint8_t *ops, *end;
    uint32_t flags;     /* FERRY_WRITE_*, for every PUT record */
} batch_ctx;

/* Write fn: every record of a validated batch; the first failure aborts all. */
static int batch_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    batch_ctx *b = ctx;
    const uint8_t *p = b->ops;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, b->end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(&s->base, r.cf);
        if (atomic_load(&slot->dropped))
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", i, slot->name);
        MDB_dbi dbi = DBI(slot);
        MDB_val k = { r.alen, (void *)r.a }, v = { r.blen, (void *)r.b };
        int rc = MDB_SUCCESS;
        if (r.op == FERRY_OP_PUT) {
            char what[64];
            snprintf(what, sizeof what, "batch record %u", i);
            int frc = put_one(s, txn, dbi, &k, &v, b->flags, what, err);
            if (frc) return frc;
        } else if (r.op == FERRY_OP_DELETE) {
            rc = mdb.mdb_del(txn, dbi, &k, NULL);
        } else if (r.op == FERRY_OP_DELETE_VALUE) {
            unsigned dbflags = 0;
            if ((rc = mdb.mdb_dbi_flags(txn, dbi, &dbflags)) != MDB_SUCCESS) return lmdb_fail(err, rc, "database flags");
            if (!(dbflags & MDB_DUPSORT))
                return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: deleting one value of a key needs a DUPSORT "
                                  "column family ('%s' is not one): delete the key", i, slot->name);
            /* a value over the size limit was never stored */
            if (r.blen <= s->max_key) rc = mdb.mdb_del(txn, dbi, &k, &v);
        } else {
            int frc = range_delete(s, txn, dbi, r.a, r.alen, r.b, r.blen, err);
            if (frc) return frc;
        }
        if (rc && rc != MDB_NOTFOUND) {
            char what[64];
            snprintf(what, sizeof what, "batch record %u", i);
            return family_key_fail(s, dbi, rc, what, &k, err);
        }
    }
    return FERRY_OK;
}

/* write with FERRY_WRITE_* flags: key sizes checked up front, then every record in one transaction. */
static int lmdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
                      ferry_error *err)
{
    (void)count;
    /* check every key first: a bad record must not start the transaction */
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        if (r.op == FERRY_OP_MERGE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: merge is not supported by LMDB, which has no "
                              "merge operators: read, combine and put instead", i);
        if (r.op == FERRY_OP_DELETE_RANGE) continue;
        if (r.alen == 0)
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "batch record %u: empty key: LMDB does not store zero-length keys", i);
        if (r.alen > LS(s)->max_key)
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "batch record %u: key of %u bytes exceeds LMDB's maximum of %zu",
                              i, r.alen, LS(s)->max_key);
    }
    batch_ctx b = { ops, end, flags };
    return sync_after(LS(s), with_write_txn(LS(s), batch_fn, &b, err), flags, err);
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
static inline int is_default_cf(lmdb_store *s, ferry_cf_slot *cf)
{
    return cf == atomic_load_explicit(&s->base.cf_chunks[0], memory_order_relaxed);
}

/* names_enter counting on stripe st (this thread's). */
static inline lmdb_stripe *names_enter_on(lmdb_store *s, lmdb_stripe *st, ferry_cf_slot *cf)
{
    if (is_default_cf(s, cf)) return NULL;
    for (;;) {
        atomic_fetch_add(&st->n, 1);
        if (!atomic_load(&s->dropping)) return st;
        atomic_fetch_sub(&st->n, 1);
        while (atomic_load(&s->dropping)) plat_yield();
    }
}

static lmdb_stripe *names_enter(lmdb_store *s, ferry_cf_slot *cf)
{
    return is_default_cf(s, cf) ? NULL : names_enter_on(s, stripe_of(s), cf);
}

static void names_exit(lmdb_stripe *st)
{
    if (st) atomic_fetch_sub(&st->n, 1);
}

/* Called by a drop (under cf_lock, before it takes wlock) before mdb_drop closes a handle;
 * names_allow once the slot is marked. Readers spin meanwhile (a drop is rare; it may wait for
 * its commit's sync). */
static void names_block(lmdb_store *s)
{
    atomic_store(&s->dropping, 1);
    for (int i = 0; i < LMDB_STRIPES; i++)
        while (atomic_load(&s->stripes[i].n) != 0) plat_yield();
}

static void names_allow(lmdb_store *s)
{
    atomic_store(&s->dropping, 0);
}

typedef struct cf_ctx {
    const char *name;
    MDB_dbi dbi;
    int closed;   /* a drop: mdb_drop closed the handle in some attempt */
    unsigned dbflags; /* create: MDB_DUPSORT / MDB_DUPFIXED */
} cf_ctx;

/* Write fn: create (or open) a named database. */
static int cf_create_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    if (!s->families_listed) {
        /* families not listed at open (see list_families) may exist without a slot: creating one
         * would open it with its data */
        MDB_dbi probe;
        int prc = mdb.mdb_dbi_open(txn, c->name, 0, &probe);
        if (prc == MDB_SUCCESS)
            return ferry_fail(err, FERRY_EEXISTS, 0, "column family '%s' already exists", c->name);
        if (prc != MDB_NOTFOUND && prc != MDB_INCOMPATIBLE && prc != MDB_DBS_FULL)
            return lmdb_fail(err, prc, "create column family");
    }
    int rc = mdb.mdb_dbi_open(txn, c->name, MDB_CREATE | c->dbflags, &c->dbi);
    if (rc == MDB_DBS_FULL) /* ferry_cf_create counts live families first: not expected */
        return ferry_fail(err, FERRY_EDBSFULL, rc, "cannot create '%s': LMDB has no free database handle "
                          "(maxColumnFamilies, FERRY_OPT_MAX_DBS)", c->name);
    if (rc == MDB_INCOMPATIBLE)
        return ferry_fail(err, FERRY_EEXISTS, rc, "cannot create '%s': a key of that name exists in the default family", c->name);
    return rc ? lmdb_fail(err, rc, "create column family") : FERRY_OK;
}

/* Write fn: delete a named database and close its handle. The handle is looked up by name in
 * each attempt: when an earlier attempt's commit failed (map full, then grown), its mdb_drop had
 * already closed the handle the slot records. */
static int cf_drop_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    MDB_dbi dbi;
    int rc = mdb.mdb_dbi_open(txn, c->name, 0, &dbi);
    if (rc) return lmdb_fail(err, rc, "drop column family: open");
    rc = mdb.mdb_drop(txn, dbi, 1);
    if (rc) return lmdb_fail(err, rc, "drop column family");
    c->closed = 1;
    return FERRY_OK;
}

/* Write fn: open a family's handle by name (after a drop that closed it did not commit). */
static int cf_reopen_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    int rc = mdb.mdb_dbi_open(txn, c->name, 0, &c->dbi);
    return rc ? lmdb_fail(err, rc, "reopen column family") : FERRY_OK;
}

/* cf_create: a named database, created in a write transaction. Its name becomes a key of
 * the main database, so it must fit LMDB's key size. */
static int dropped_since(ferry_cf_slot *cf, ferry_error *err);

static int lmdb_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, const char *extra,
                          void **handle_out, int *bits_out, ferry_error *err)
{
    (void)opts, (void)extra, (void)bits_out;   /* ferry.c refused options: they are RocksDB's */
    size_t n = strlen(name);
    if (n > LS(s)->max_key)
        return ferry_fail(err, FERRY_EINVAL, 0,
                          "column family name of %zu bytes is too long: LMDB keeps family names as keys of the "
                          "default family, at most %zu bytes", n, LS(s)->max_key);
    cf_ctx c = { name, 0, 0, 0 };
    if (flags & FERRY_CF_DUPSORT) c.dbflags |= MDB_DUPSORT;
    if (flags & FERRY_CF_DUPFIXED) c.dbflags |= MDB_DUPFIXED;
    int rc = with_write_txn(LS(s), cf_create_fn, &c, err);
    if (rc == FERRY_OK) *handle_out = (void *)(uintptr_t)c.dbi;
    return rc;
}

/* cf_flags: the flags LMDB keeps with the database, read in a read transaction. */
static int lmdb_cf_flags(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err)
{
    MDB_txn *txn;
    int rc = read_acquire(LS(s), &txn, err);
    if (rc) return rc;
    unsigned dbflags = 0;
    int mrc = mdb.mdb_dbi_flags(txn, DBI(cf), &dbflags);
    read_release(LS(s), txn);
    if (mrc) return lmdb_fail(err, mrc, "column family flags");
    int drc = dropped_since(cf, err);
    if (drc) return drc;
    *out = ((dbflags & MDB_DUPSORT) ? FERRY_CF_DUPSORT : 0) | ((dbflags & MDB_DUPFIXED) ? FERRY_CF_DUPFIXED : 0);
    return FERRY_OK;
}

/* cf_drop: mdb_drop(del=1) deletes the database and closes its handle; the slot is marked
 * dropped at the commit, under wlock (see family_live). Reads of named families wait from
 * before mdb_drop frees the name until the slot is marked (see names_enter), so a racing read
 * sees either the live family or "dropped". When the drop fails after LMDB closed the handle,
 * the family still exists: its handle is opened again (readers are still held off, so the slot
 * can take the new number). */
static int lmdb_cf_drop(ferry_store *s, ferry_cf_slot *slot, ferry_error *err)
{
    cf_ctx c = { slot->name, DBI(slot), 0, 0 };
    names_block(LS(s));
    int rc = with_write_txn_then(LS(s), cf_drop_fn, &c, &slot->dropped, err);
    if (rc != FERRY_OK && c.closed) {
        cf_ctx r = { slot->name, 0, 0, 0 };
        ferry_error e2;
        if (with_write_txn(LS(s), cf_reopen_fn, &r, &e2) == FERRY_OK) slot->handle = (void *)(uintptr_t)r.dbi;
        else atomic_store(&slot->dropped, 1); /* unreachable now: refuse it rather than read a closed handle */
    }
    names_allow(LS(s));
    return rc;
}

/* ------------------------------------------------------------------ snapshots and reads */

static int lmdb_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
{
    lmdb_snapshot *snap = malloc(sizeof *snap);
    if (!snap) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = read_acquire(LS(s), &snap->txn, err);
    if (rc) { free(snap); return rc; }
    snap->base.store = s;
    snap->base.txn = NULL;
    *out = &snap->base;
    return FERRY_OK;
}

/* snapshot_close: the read transaction goes back to the pool. */
static int lmdb_snapshot_close(ferry_snapshot *snap)
{
    lmdb_snapshot *ls = (lmdb_snapshot *)snap;
    read_release(LS(snap->store), ls->txn);
    free(ls);
    return FERRY_OK;
}

/* After a read through a family's handle number: was the family dropped meanwhile? ferry.c
 * checked it before the call, but a drop and a create may have committed since, and LMDB gives
 * the dropped database's number to the new one: a read transaction begun after that reads the
 * new family through the old id. The drop marks the slot before any later create commits, so
 * checking after the read catches it; the result is then discarded. */
static int dropped_since(ferry_cf_slot *cf, ferry_error *err)
{
    if (!atomic_load(&cf->dropped)) return FERRY_OK;
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", cf->name);
}

/* One mdb_get; keys LMDB cannot hold are simply absent. */
static inline int get_one(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const void *key, size_t klen, MDB_val *v)
{
    if (klen == 0 || klen > s->max_key) return MDB_NOTFOUND;
    MDB_val k = { klen, (void *)key };
    return mdb.mdb_get(txn, dbi, &k, v);
}

/* get: copies min(vlen, cap) bytes, reports the full length. Without a snapshot, the thread's
 * stripe is looked up once for the read transaction's acquire and release and the named-family
 * count. */
static int lmdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                    uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    (void)flags;   /* no block cache, no checksums */
    lmdb_store *ls = LS(s);
    lmdb_stripe *st = NULL;
    MDB_txn *txn;
    int rc;
    if (snap) {
        txn = ((lmdb_snapshot *)snap)->txn;
    } else {
        st = stripe_of(ls);
        rc = read_acquire_on(ls, st, &txn, err);
        if (rc) return rc;
    }
    MDB_val v;
    int mrc;
    if (is_default_cf(ls, cf)) {   /* never dropped: no name look-up to guard */
        mrc = get_one(ls, txn, DBI(cf), key, klen, &v);
    } else {
        lmdb_stripe *names = names_enter_on(ls, st ? st : stripe_of(ls), cf);
        mrc = get_one(ls, txn, DBI(cf), key, klen, &v);
        names_exit(names);
    }
    if (__builtin_expect(mrc == MDB_SUCCESS, 1)) {
        *vlen_out = v.mv_size;
        if (cap) memcpy(dst, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
        rc = FERRY_OK;
    } else if (mrc == MDB_NOTFOUND) {
        rc = FERRY_NOTFOUND;
    } else {
        rc = lmdb_fail(err, mrc, "get");
    }
    int drc = dropped_since(cf, err);
    if (st) read_release_on(ls, st, txn);
    return drc ? drc : rc;
}

/* multi_get: one read view for all keys; stops at the first value that does not fit. */
/* Values of key through cur (a cursor of dbi in txn, closed here): MDB_SET then mdb_cursor_count in
 * a DUPSORT family, 1 for a present key otherwise; *out is left alone unless it succeeds. Returns
 * the LMDB code (MDB_NOTFOUND: absent). */
static int count_values(MDB_txn *txn, MDB_dbi dbi, MDB_cursor *cur, const void *key, size_t klen, uint64_t *out)
{
    unsigned dbflags = 0;
    MDB_val k = { klen, (void *)key }, v;
    int mrc = mdb.mdb_dbi_flags(txn, dbi, &dbflags);
    if (mrc == MDB_SUCCESS) mrc = mdb.mdb_cursor_get(cur, &k, &v, MDB_SET);
    size_t n = 1;
    if (mrc == MDB_SUCCESS && (dbflags & MDB_DUPSORT)) mrc = mdb.mdb_cursor_count(cur, &n);
    if (mrc == MDB_SUCCESS) *out = n;
    mdb.mdb_cursor_close(cur);
    return mrc;
}

/* value_count: count_values in a read transaction (the snapshot's or one of its own). */
static int lmdb_value_count(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                            uint64_t *out, ferry_error *err)
{
    *out = 0;
    if (klen == 0 || klen > LS(s)->max_key) return FERRY_OK; /* LMDB holds no such key */
    MDB_txn *txn, *own;
    int rc = read_txn(LS(s), snap, &txn, &own, err);
    if (rc) return rc;
    lmdb_stripe *names = names_enter(LS(s), cf);
    MDB_cursor *cur;
    int mrc = mdb.mdb_cursor_open(txn, DBI(cf), &cur);
    names_exit(names);
    if (mrc == MDB_SUCCESS) mrc = count_values(txn, DBI(cf), cur, key, klen, out);
    rc = (mrc == MDB_SUCCESS || mrc == MDB_NOTFOUND) ? FERRY_OK : lmdb_fail(err, mrc, "value count");
    int drc = dropped_since(cf, err);
    if (own) read_release(LS(s), own);
    if (drc) *out = 0;
    return drc ? drc : rc;
}

static int lmdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n, const void *keys,
                          uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    (void)flags;   /* as lmdb_get */
    MDB_txn *txn, *own;
    int rc = read_txn(LS(s), snap, &txn, &own, err);
    if (rc) return rc;
    const uint8_t *p = keys;
    uint8_t *out = dst;
    size_t used = 0;
    uint32_t i;
    lmdb_stripe *names = names_enter(LS(s), cf);
    for (i = 0; i < n; i++) {
        uint32_t kl;
        memcpy(&kl, p, 4);
        MDB_val v;
        int mrc = get_one(LS(s), txn, DBI(cf), p + 4, kl, &v);
        p += 4 + (size_t)kl;
        if (mrc == MDB_NOTFOUND) { lens_out[i] = -1; continue; }
        if (mrc) { rc = lmdb_fail(err, mrc, "multi_get"); break; }
        if (v.mv_size > cap - used) {
            if (i == 0) {
                lens_out[0] = (int64_t)v.mv_size;
                rc = ferry_fail(err, FERRY_ETOOSMALL, 0, "multi_get: first value of %zu bytes exceeds the %zu-byte buffer",
                                v.mv_size, cap);
            }
            break;
        }
        if (v.mv_size) memcpy(out + used, v.mv_data, v.mv_size);
        used += v.mv_size;
        lens_out[i] = (int64_t)v.mv_size;
    }
    names_exit(names);
    int drc = dropped_since(cf, err);
    if (own) read_release(LS(s), own);
    return drc ? drc : rc ? rc : (int)i;
}

/* ------------------------------------------------------------------ maintenance */

static int lmdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    if (s->read_only) return FERRY_OK; /* nothing written, nothing to sync */
    int rc = mdb.mdb_env_sync(LS(s)->env, 1);
    return rc ? lmdb_fail(err, rc, "sync") : FERRY_OK;
}

/* LMDB has no compaction: pages are reused in place. */
static int lmdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                              const void *end, size_t elen, ferry_error *err)
{
    return FERRY_OK;
}

/* mdb_stat of one family in a fresh read view. */
static int family_stat(lmdb_store *s, ferry_cf_slot *cf, MDB_stat *st, ferry_error *err)
{
    MDB_txn *txn;
    int rc = read_acquire(s, &txn, err);
    if (rc) return rc;
    lmdb_stripe *names = names_enter(s, cf);
    int mrc = mdb.mdb_stat(txn, DBI(cf), st);
    names_exit(names);
    int drc = dropped_since(cf, err);
    read_release(s, txn);
    return drc ? drc : mrc ? lmdb_fail(err, mrc, "stat") : FERRY_OK;
}

/* property: "lmdb.stat" (this family) and "lmdb.info" (environment) as text. */
static int lmdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                         size_t *len_out, ferry_error *err)
{
    char buf[512];
    int n;
    if (strcmp(name, "lmdb.stat") == 0) {
        MDB_stat st;
        int rc = family_stat(LS(s), cf, &st, err);
        if (rc) return rc;
        n = snprintf(buf, sizeof buf,
                     "entries=%zu depth=%u page_size=%u branch_pages=%zu leaf_pages=%zu overflow_pages=%zu",
                     st.ms_entries, st.ms_depth, st.ms_psize, st.ms_branch_pages, st.ms_leaf_pages,
                     st.ms_overflow_pages);
    } else if (strcmp(name, "lmdb.info") == 0) {
        MDB_envinfo in;
        int rc = mdb.mdb_env_info(LS(s)->env, &in);
        if (rc) return lmdb_fail(err, rc, "env info");
        n = snprintf(buf, sizeof buf, "map_size=%zu last_pgno=%zu last_txnid=%zu max_readers=%u num_readers=%u",
                     in.me_mapsize, in.me_last_pgno, in.me_last_txnid, in.me_maxreaders, in.me_numreaders);
    } else {
        return ferry_fail(err, FERRY_NOTFOUND, 0, "unknown LMDB property '%s'", name);
    }
    size_t len = (size_t)n;
    *len_out = len;
    size_t c = len < cap - 1 ? len : cap - 1;
    memcpy(dst, buf, c);
    dst[c] = '\0';
    return FERRY_OK;
}

/* property_int: entry count, depth, page size, map size, max key size, max readers, pages walked. */
static int lmdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                             ferry_error *err)
{
    int entries = strcmp(name, "ferry.estimate-num-keys") == 0 || strcmp(name, "lmdb.entries") == 0;
    int depth = strcmp(name, "lmdb.depth") == 0, psize = strcmp(name, "lmdb.page-size") == 0;
    if (entries || depth || psize) {
        MDB_stat st;
        int rc = family_stat(LS(s), cf, &st, err);
        if (rc) return rc;
        *out = entries ? st.ms_entries : depth ? st.ms_depth : st.ms_psize;
        return FERRY_OK;
    }
    if (strcmp(name, "lmdb.max-key-size") == 0) { *out = LS(s)->max_key; return FERRY_OK; }
    if (strcmp(name, "lmdb.families-listed") == 0) {
        pthread_mutex_lock(&s->cf_lock);
        *out = (uint64_t)LS(s)->families_listed;
        pthread_mutex_unlock(&s->cf_lock);
        return FERRY_OK;
    }
    if (strcmp(name, "lmdb.walked-pages") == 0) {
        *out = atomic_load_explicit(&LS(s)->walked, memory_order_relaxed);
        return FERRY_OK;
    }
    int map = strcmp(name, "lmdb.map-size") == 0;
    if (map || strcmp(name, "lmdb.max-readers") == 0) {
        MDB_envinfo in;
        int rc = mdb.mdb_env_info(LS(s)->env, &in);
        if (rc) return lmdb_fail(err, rc, "env info");
        *out = map ? in.me_mapsize : in.me_maxreaders;
        return FERRY_OK;
    }
    return ferry_fail(err, FERRY_NOTFOUND, 0, "unknown LMDB property '%s'", name);
}

/* ------------------------------------------------------------------ cursors */

/* Copy a cursor's bounds into the memory allocated after it (calloc(sizeof *c + llen + ulen)) and
 * set its range and pointer-mode fields; shared by store, snapshot and transaction cursors. */
static void cursor_set_range(lmdb_cursor *c, const void *lower, size_t llen, const void *upper, size_t ulen,
                             uint32_t flags)
{
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

static int lmdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                            size_t llen, const void *upper, size_t ulen, uint32_t flags,
                            ferry_cursor **out, ferry_error *err)
{
    lmdb_cursor *c = calloc(1, sizeof *c + llen + ulen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    MDB_txn *txn;
    int rc = read_txn(LS(s), snap, &txn, &c->own_txn, err);
    if (rc) { free(c); return rc; }
    lmdb_stripe *names = names_enter(LS(s), cf);
    int mrc = mdb.mdb_cursor_open(txn, DBI(cf), &c->cur);
    names_exit(names);
    /* the cursor keeps the family's tree as of this transaction from here on */
    int drc = dropped_since(cf, err);
    if (mrc || drc) {
        if (!mrc) mdb.mdb_cursor_close(c->cur);
        if (c->own_txn) read_release(LS(s), c->own_txn);
        free(c);
        return drc ? drc : lmdb_fail(err, mrc, "open cursor");
    }
    cursor_set_range(c, lower, llen, upper, ulen, flags);
    MDB_envinfo info;
    /* a leaf page found by masking an address lies in the OS page holding it, so reading its
     * header never leaves mapped memory */
    size_t os_page = plat_page_size();
    unsigned dbflags = 0;
    if (mdb.mdb_dbi_flags(txn, DBI(cf), &dbflags) == MDB_SUCCESS) c->dups = (dbflags & MDB_DUPSORT) != 0;
    /* a DUPSORT family's values live in sub-pages and sub-trees the walk does not read: LMDB steps */
    c->walk = !(flags & FERRY_CURSOR_ENGINE_STEPS) && !c->dups && LS(s)->psize && os_page > 0
              && LS(s)->psize <= os_page && mdb.mdb_env_info(LS(s)->env, &info) == 0;
    if (c->walk) c->last_pgno = info.me_last_pgno;
    c->rc = MDB_NOTFOUND;
    c->base.store = s;
    c->base.dir = 0;
    *out = &c->base;
    return FERRY_OK;
}

/* cursor_close: close the MDB_cursor, release an own read transaction. */
static int lmdb_cursor_close(ferry_cursor *fc)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->cur) mdb.mdb_cursor_close(c->cur);   /* NULL: killed with its transaction */
    if (c->own_txn) read_release(LS(fc->store), c->own_txn);
    free(c);
    return FERRY_OK;
}

/* Move to the first key >= key (len 0: the first key). */
static int seek_ge(lmdb_cursor *c, const void *key, size_t len, MDB_val *k, MDB_val *v)
{
    k->mv_size = len;
    k->mv_data = (void *)key;
    return mdb.mdb_cursor_get(c->cur, k, v, len ? MDB_SET_RANGE : MDB_FIRST);
}

/* Move to the first key > key (past every value of an equal key). */
static int seek_gt(lmdb_cursor *c, const void *key, size_t len, MDB_val *k, MDB_val *v)
{
    int rc = seek_ge(c, key, len, k, v);
    if (rc == MDB_SUCCESS && len && key_cmp(k->mv_data, k->mv_size, key, len) == 0)
        rc = mdb.mdb_cursor_get(c->cur, k, v, MDB_NEXT_NODUP);
    return rc;
}

/* Move to the last key < key (or <= key when inclusive); len 0: the last key overall when
 * exclusive with no bound, else nothing. */
static int seek_back(lmdb_cursor *c, const void *key, size_t len, int inclusive, MDB_val *k, MDB_val *v)
{
    if (len == 0) return MDB_NOTFOUND; /* no key sorts before the empty key */
    k->mv_size = len;
    k->mv_data = (void *)key;
    int rc = mdb.mdb_cursor_get(c->cur, k, v, MDB_SET_RANGE);
    if (rc == MDB_NOTFOUND) return mdb.mdb_cursor_get(c->cur, k, v, MDB_LAST);
    if (rc) return rc;
    /* MDB_SET_RANGE lands on a key's first value; MDB_PREV from there on the last value of the
     * key before (LMDB's MDB_PREV and MDB_LAST land on last values too) */
    if (inclusive && key_cmp(k->mv_data, k->mv_size, key, len) == 0)
        return c->dups ? mdb.mdb_cursor_get(c->cur, k, v, MDB_LAST_DUP) : MDB_SUCCESS;
    return mdb.mdb_cursor_get(c->cur, k, v, MDB_PREV);
}

/* Move to the last entry in range ([.., upper)). */
static int seek_last(lmdb_cursor *c, MDB_val *k, MDB_val *v)
{
    if (c->ulen) return seek_back(c, c->upper, c->ulen, 0, k, v);
    return mdb.mdb_cursor_get(c->cur, k, v, MDB_LAST);
}

/* FERRY_SEEK_PAIR_GT / _LT: the entry after (before) the pair (key, val), in a DUPSORT family. */
static int seek_pair(lmdb_cursor *c, int gt, const void *key, size_t klen, const void *val, size_t vlen, MDB_val *k,
                     MDB_val *v)
{
    if (!c->dups) return gt ? seek_gt(c, key, klen, k, v) : seek_back(c, key, klen, 0, k, v);
    k->mv_size = klen;
    k->mv_data = (void *)key;
    v->mv_size = vlen;
    v->mv_data = (void *)val;
    /* the key's first value >= val, if any */
    int rc = klen ? mdb.mdb_cursor_get(c->cur, k, v, MDB_GET_BOTH_RANGE) : MDB_NOTFOUND;
    if (rc == MDB_SUCCESS) {
        if (!gt) return mdb.mdb_cursor_get(c->cur, k, v, MDB_PREV);
        if (key_cmp(v->mv_data, v->mv_size, val, vlen) > 0) return MDB_SUCCESS;
        return mdb.mdb_cursor_get(c->cur, k, v, MDB_NEXT);
    }
    if (rc != MDB_NOTFOUND) return rc;
    /* every value of the key sorts before val (or the key is absent) */
    return gt ? seek_gt(c, key, klen, k, v) : seek_back(c, key, klen, 1, k, v);
}

/* Position for op, with seek keys clamped to the bounds. Returns the LMDB rc. */
static int position(lmdb_cursor *c, int op, const void *key, size_t klen, MDB_val *k, MDB_val *v)
{
    switch (op) {
    case FERRY_FIRST:
        return seek_ge(c, c->lower, c->llen, k, v);
    case FERRY_LAST:
        return seek_last(c, k, v);
    case FERRY_SEEK_GE:
    case FERRY_SEEK_GT:
        if (c->llen && key_cmp(key, klen, c->lower, c->llen) < 0) return seek_ge(c, c->lower, c->llen, k, v);
        return op == FERRY_SEEK_GE ? seek_ge(c, key, klen, k, v) : seek_gt(c, key, klen, k, v);
    case FERRY_SEEK_LE:
        if (c->ulen && key_cmp(key, klen, c->upper, c->ulen) >= 0) return seek_last(c, k, v);
        return seek_back(c, key, klen, 1, k, v);
    case FERRY_SEEK_LT:
        if (c->ulen && key_cmp(key, klen, c->upper, c->ulen) > 0) return seek_last(c, k, v);
        return seek_back(c, key, klen, 0, k, v);
    case FERRY_SEEK_PAIR_GT:
    case FERRY_SEEK_PAIR_LT: { /* ferry.c checked the packing */
        uint32_t kl;
        memcpy(&kl, key, 4);
        const uint8_t *pk = (const uint8_t *)key + 4, *pv = pk + kl;
        size_t vl = klen - 4 - kl;
        if (op == FERRY_SEEK_PAIR_GT) {
            if (c->llen && key_cmp(pk, kl, c->lower, c->llen) < 0) return seek_ge(c, c->lower, c->llen, k, v);
            return seek_pair(c, 1, pk, kl, pv, vl, k, v);
        }
        if (c->ulen && key_cmp(pk, kl, c->upper, c->ulen) >= 0) return seek_last(c, k, v);
        return seek_pair(c, 0, pk, kl, pv, vl, k, v);
    }
    default: /* FERRY_NEXT / FERRY_PREV: the pending entry */
        *k = c->k;
        *v = c->v;
        return c->rc;
    }
}

/* Copy-mode entry; one memcpy when the value follows the key (an LMDB leaf node). */
static inline int emit_node(uint8_t *page, size_t cap, size_t *used, MDB_val k, MDB_val v)
{
    if ((uint8_t *)k.mv_data + k.mv_size != v.mv_data)
        return ferry_page_emit_copy(page, cap, used, k.mv_data, k.mv_size, v.mv_data, v.mv_size);
    size_t need = ferry_copy_entry_size(k.mv_size, v.mv_size);
    if (need > cap - *used) return 0;
    uint8_t *p = page + *used;
    uint32_t kl = (uint32_t)k.mv_size, vl = (uint32_t)v.mv_size;
    memcpy(p, &kl, 4);
    memcpy(p + 4, &vl, 4);
    memcpy(p + 8, k.mv_data, k.mv_size + v.mv_size);
    *used += need;
    return 1;
}

/* Bytes ahead of the current key the fill prefetches: about four 100-byte entries. Measured with
 * Ferry's fill in the floor's process, 1M x 100 B: fill alone 0.97-1.03x the floor without, 0.84-0.94x
 * with (384-768 bytes did about as well; 800-byte entries neither gain nor lose). */
#define LMDB_PREFETCH_AHEAD 512

/* Entries (key + value bytes) below this size also get the next leaf page prefetched: its header
 * line, the pointer line after it, and NEXT_LEAF_LINES lines around the spot where its first entry is
 * expected. With it the fill alone ran 25% faster forward on 100-byte entries, and 5-8% slower in
 * reverse on 800-byte entries, hence the limit (docs/design.md). */
#define LMDB_NEXT_LEAF_ENTRY_MAX 256
#define LMDB_NEXT_LEAF_LINES 8

/* Called for each emitted entry. When it opens a new leaf page that lies right after the previous
 * one in the map (in the direction of the walk), as leaf pages of data loaded in key order do, guess
 * that the page after it follows the same way: load its header and the lines around the offset at
 * which this page's first entry lay, a page's worth of entries before they are needed. A wrong guess
 * loads lines nobody reads; a prefetch never faults. */
static inline __attribute__((always_inline)) void
prefetch_next_leaf(uintptr_t *leaf, uintptr_t key, uintptr_t psize, const int fwd)
{
    uintptr_t pg = key & ~(psize - 1);
    if (pg == *leaf) return;
    uintptr_t prev = *leaf;
    *leaf = pg;
    if (pg != (fwd ? prev + psize : prev - psize)) return;
    uintptr_t np = fwd ? pg + psize : pg - psize;
    uintptr_t at = np + (key - pg);
    __builtin_prefetch((const void *)np);
    __builtin_prefetch((const void *)(np + 64));
    /* the walk goes down the page forward (nodes lie in descending key order), up it in reverse;
     * one line on the other side covers the node header before the key */
    for (int l = -1; l < LMDB_NEXT_LEAF_LINES - 1; l++)
        __builtin_prefetch((const void *)(fwd ? at - 64 * (intptr_t)l : at + 64 * (intptr_t)l));
}

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
/* Entries a fill must still be allowed to emit for a walk to pay for its checks and the final
 * MDB_SET_KEY; below it (a cursor reading a few entries after a seek) LMDB steps. */
#define LMDB_WALK_MIN 16
/* Entries (key + value bytes) from this size on are not walked: a 4 KiB page holds fewer than 16,
 * so the walk saves few steps, and merely trying it (a call and the page-header checks per page,
 * which then failed on LMDB_WALK_MIN_NODES) made 1M x 800 B scans 10-20% slower, forward and
 * reverse, in Java and in an ad-hoc C program, for a reason we did not find. */
#define LMDB_WALK_ENTRY_MAX 256
/* Nodes a page must have left, from the entry on, for the walk to read it. */
#define LMDB_WALK_MIN_NODES 8

static inline unsigned rd16(const uint8_t *p)
{
    uint16_t x;
    memcpy(&x, p, 2);
    return x;
}

/* Node j of leaf page pg as key and value, or 0 when it is not a plain node lying inside the page. */
static inline int leaf_node(const uint8_t *pg, unsigned j, unsigned upper, uintptr_t psize, MDB_val *k, MDB_val *v)
{
    unsigned off = rd16(pg + LMDB_PAGE_HDR + 2 * j);
    if (off < upper || off > psize - LMDB_NODE_HDR) return 0;
    const uint8_t *n = pg + off;
    uint32_t dsz; /* LMDB's mn_lo, mn_hi: in that order on little-endian machines only */
    memcpy(&dsz, n, 4);
    size_t vsize = dsz;
    unsigned nflags = rd16(n + 4), ksize = rd16(n + 6);
    if (nflags || off + LMDB_NODE_HDR + ksize + vsize > psize) return 0;
    k->mv_data = (void *)(n + LMDB_NODE_HDR);
    k->mv_size = ksize;
    v->mv_data = (void *)(n + LMDB_NODE_HDR + ksize);
    v->mv_size = vsize;
    return 1;
}

/* Index of the entry (k, v) LMDB returned in the leaf page pg holding it, with the page's node count
 * and upper bound, or -1 when pg does not pass the checks above. *map caches page 0 of the map. */
static int leaf_index(const uint8_t *pg, uintptr_t psize, size_t last_pgno, uintptr_t *map, MDB_val k,
                      MDB_val v, int fwd, unsigned *nkeys, unsigned *upper)
{
    uint64_t pgno;
    memcpy(&pgno, pg, 8);
    unsigned flags = rd16(pg + 10), lower = rd16(pg + 12), up = rd16(pg + 14);
    if ((flags & (LMDB_P_BRANCH | LMDB_P_LEAF | LMDB_P_OVERFLOW | LMDB_P_META | LMDB_P_LEAF2 | LMDB_P_SUBP)) != LMDB_P_LEAF)
        return -1;
    if (lower <= LMDB_PAGE_HDR || lower > up || up > psize) return -1;
    unsigned n = (lower - LMDB_PAGE_HDR) / 2;
    if (n < LMDB_WALK_MIN_NODES) return -1;
    uintptr_t off = (uintptr_t)k.mv_data - LMDB_NODE_HDR - (uintptr_t)pg;
    /* a walk enters a page at its first node (its last in reverse); a seek or a resumed fill may not */
    unsigned i = fwd ? 0 : n - 1;
    if (rd16(pg + LMDB_PAGE_HDR + 2 * i) != off) {
        for (i = 0; i < n && rd16(pg + LMDB_PAGE_HDR + 2 * i) != off; i++) {}
        if (i == n || (fwd ? n - i : i + 1) < LMDB_WALK_MIN_NODES) return -1;
    }
    MDB_val nk, nv;
    if (!leaf_node(pg, i, up, psize, &nk, &nv) || nk.mv_data != k.mv_data || nk.mv_size != k.mv_size
        || nv.mv_data != v.mv_data || nv.mv_size != v.mv_size)
        return -1;
    if (pgno > last_pgno || pgno * psize > (uintptr_t)pg) return -1;
    uintptr_t base = (uintptr_t)pg - (uintptr_t)pgno * psize;
    if (*map != base) {
        const uint8_t *meta = (const uint8_t *)base;
        uint32_t magic, version;
        memcpy(&magic, meta + LMDB_PAGE_HDR, 4);
        memcpy(&version, meta + LMDB_PAGE_HDR + 4, 4);
        if (*map || !(rd16(meta + 10) & LMDB_P_META) || magic != LMDB_MAGIC || version != LMDB_DATA_VERSION) return -1;
        *map = base;
    }
    *nkeys = n;
    *upper = up;
    return (int)i;
}

/* Stand LMDB's cursor on (k, v), a node of the leaf page it stands in (MDB_SET_KEY, answered
 * without a tree search). LMDB not finding the node where the walk read it is reported as corruption. */
static int stand_on(MDB_cursor *cur, MDB_val k, MDB_val v)
{
    MDB_val sk = k, sv = { 0, NULL };
    int rc = mdb.mdb_cursor_get(cur, &sk, &sv, MDB_SET_KEY);
    if (rc == MDB_NOTFOUND || (rc == MDB_SUCCESS && (sk.mv_data != k.mv_data || sv.mv_data != v.mv_data)))
        rc = MDB_CORRUPTED;
    return rc;
}

/* After emitting (k, v): start loading what the fill reads next. LMDB adds a leaf page's nodes from
 * the page's end downwards and rebuilds both halves in key order when it splits a page, so the nodes
 * of the next few keys usually lie just below this one (above it in reverse). A prefetch never
 * faults, wherever the address lands. */
static inline __attribute__((always_inline)) void
prefetch_ahead(MDB_val k, MDB_val v, uintptr_t *leaf, uintptr_t psize, const int fwd)
{
    __builtin_prefetch((const void *)(fwd ? (uintptr_t)k.mv_data - LMDB_PREFETCH_AHEAD
                                          : (uintptr_t)k.mv_data + LMDB_PREFETCH_AHEAD));
    if (psize && k.mv_size + v.mv_size < LMDB_NEXT_LEAF_ENTRY_MAX)
        prefetch_next_leaf(leaf, (uintptr_t)k.mv_data, psize, fwd);
}

/* What every entry of a fill goes through, walked or stepped: the range's end, the entry limit and
 * the page's room, then the emit, the count and the prefetches. Returns 0 when the fill stops before
 * (k, v): flags get FERRY_PAGE_END at the range's end, *full is set when the page had no room. */
static inline __attribute__((always_inline)) int
emit_entry(MDB_val k, MDB_val v, const uint8_t *bound, size_t blen, uint8_t *page, size_t cap, uint32_t max,
           size_t *used, size_t *span, uint32_t *count, uint32_t *flags, int *full, uintptr_t *leaf,
           uintptr_t psize, const int ptr, const int fwd)
{
    if (blen) {
        int cmp = key_cmp(k.mv_data, k.mv_size, bound, blen);
        if (fwd ? cmp >= 0 : cmp < 0) { *flags |= FERRY_PAGE_END; return 0; }
    }
    if (*count == max) return 0;
    if (!(ptr ? ferry_page_emit_ptr(page, cap, used, k.mv_data, k.mv_size, v.mv_data, v.mv_size)
              : emit_node(page, cap, used, k, v))) {
        *full = 1;
        return 0;
    }
    ++*count;
    if (ptr) *span += k.mv_size + v.mv_size;
    prefetch_ahead(k, v, leaf, psize, fwd);
    return 1;
}

/* Whether the walk may pay for itself from (k, v) on, with `left` entries the fill may still emit. */
static inline int walk_worth(MDB_val k, MDB_val v, uint32_t left)
{
    return left >= LMDB_WALK_MIN && k.mv_size + v.mv_size < LMDB_WALK_ENTRY_MAX;
}

/* The fill's state, handed to walk_page and back. */
typedef struct fill_state {
    MDB_val k, v;       /* the pending entry */
    int mrc;            /* result of the move onto it */
    size_t used, span;
    uint32_t count, flags;
    int full;
    uintptr_t leaf;
} fill_state;

enum { WALK_NONE, WALK_STOP, WALK_ON };

/* Emit the pending entry and the nodes after it in its leaf page straight from the page (see
 * "Direct leaf-page walk"). Returns WALK_NONE when the page does not pass the checks (nothing
 * emitted; LMDB steps through it), WALK_STOP when the fill must end with LMDB's cursor on the
 * pending entry, WALK_ON when LMDB took the step off the page (or a move failed: st->mrc). Not
 * inlined: it runs once per leaf page, and fill_loop's LMDB-step loop stays as small as before. */
static __attribute__((noinline)) int
walk_page(lmdb_cursor *c, fill_state *st, uint8_t *page, size_t cap, uint32_t max, const int ptr, const int fwd)
{
    const uintptr_t psize = LS(c->base.store)->psize;
    const uint8_t *bound = fwd ? c->upper : c->lower;
    const size_t blen = fwd ? c->ulen : c->llen;
    const uint8_t *pg = (const uint8_t *)((uintptr_t)st->k.mv_data & ~(psize - 1));
    unsigned n, upper;
    int j = leaf_index(pg, psize, c->last_pgno, &c->map, st->k, st->v, fwd, &n, &upper);
    if (j < 0) {
        c->skip = (uintptr_t)pg;
        return WALK_NONE;
    }
    atomic_fetch_add_explicit(&LS(c->base.store)->walked, 1, memory_order_relaxed);
    const int at = j, end = fwd ? (int)n : -1;
    MDB_val k = st->k, v = st->v;
    size_t used = st->used, span = st->span;
    uint32_t count = st->count;
    uint32_t flags = st->flags;
    int full = st->full;
    uintptr_t leaf = st->leaf;
    int stop = 1;
    for (;;) {
        if (!emit_entry(k, v, bound, blen, page, cap, max, &used, &span, &count, &flags, &full, &leaf, psize, ptr, fwd))
            break;
        int nj = fwd ? j + 1 : j - 1;
        if (nj == end || !leaf_node(pg, (unsigned)nj, upper, psize, &k, &v)) {
            /* leave the page through LMDB from node j (k, v): at its edge, or before a node LMDB
             * must read, and then LMDB also steps through the rest of this page */
            if (nj != end) c->skip = (uintptr_t)pg;
            stop = 0;
            break;
        }
        j = nj;
        if (ptr && span >= FERRY_PTR_SPAN) break;
    }
    st->used = used;
    st->span = span;
    st->count = count;
    st->flags = flags;
    st->full = full;
    st->leaf = leaf;
    int mrc = j == at ? MDB_SUCCESS : stand_on(c->cur, k, v);
    if (mrc == MDB_SUCCESS && !stop) mrc = mdb.mdb_cursor_get(c->cur, &k, &v, fwd ? MDB_NEXT : MDB_PREV);
    st->k = k;
    st->v = v;
    st->mrc = mrc;
    return stop && mrc == MDB_SUCCESS ? WALK_STOP : WALK_ON;
}

/* The fill loop, specialised per mode, direction and walk (ptr, fwd, walk are constants at each call). */
static inline __attribute__((always_inline)) int
fill_loop(lmdb_cursor *c, int mrc, MDB_val k, MDB_val v, uint8_t *page, size_t cap, uint32_t max,
          const int ptr, const int fwd, const int walk, ferry_error *err)
{
    MDB_cursor *cur = c->cur;
    int (*const next)(MDB_cursor *, MDB_val *, MDB_val *, int) = mdb.mdb_cursor_get;
    const uint8_t *bound = fwd ? c->upper : c->lower;
    const size_t blen = fwd ? c->ulen : c->llen;
    const int step = fwd ? MDB_NEXT : MDB_PREV;
    size_t used = FERRY_PAGE_HEADER;
    uint32_t count = 0, flags = ptr ? FERRY_PAGE_POINTERS : 0;
    int full = 0;
    size_t span = 0; /* bytes of the map the page points to so far */
    const uintptr_t psize = LS(c->base.store)->psize;
    uintptr_t leaf = c->leaf;
    for (;;) {
        if (mrc != MDB_SUCCESS) {
            if (mrc == MDB_NOTFOUND) { flags |= FERRY_PAGE_END; break; }
            c->rc = mrc;
            return lmdb_fail(err, mrc, "cursor move");
        }
        if (walk && walk_worth(k, v, max - count) && ((uintptr_t)k.mv_data & ~(psize - 1)) != c->skip) {
            fill_state st = { k, v, mrc, used, span, count, flags, full, leaf };
            int r = walk_page(c, &st, page, cap, max, ptr, fwd);
            if (r != WALK_NONE) {
                k = st.k;
                v = st.v;
                mrc = st.mrc;
                used = st.used;
                span = st.span;
                count = st.count;
                flags = st.flags;
                full = st.full;
                leaf = st.leaf;
                if (r == WALK_STOP) break;
                if (ptr && span >= FERRY_PTR_SPAN) break;
                continue;
            }
        }
        if (!emit_entry(k, v, bound, blen, page, cap, max, &used, &span, &count, &flags, &full, &leaf, psize, ptr, fwd))
            break;
        mrc = next(cur, &k, &v, step);
        /* the cursor already stands on the next entry, which the next fill emits first */
        if (ptr && span >= FERRY_PTR_SPAN) break;
    }
    c->rc = mrc;
    c->k = k;
    c->v = v;
    c->leaf = leaf;
    if (full && count == 0) {
        size_t need = ptr ? ferry_ptr_entry_need(k.mv_size, v.mv_size)
                          : FERRY_PAGE_HEADER + ferry_copy_entry_size(k.mv_size, v.mv_size);
        ferry_page_header(page, 0, flags, need);
        return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry of %zu-byte key and %zu-byte value needs a %zu-byte page",
                          k.mv_size, v.mv_size, need);
    }
    ferry_page_header(page, count, flags, used);
    return (int)count;
}

/* cursor_fill: position for op, then the loop specialised for mode and direction. */
static int lmdb_cursor_fill(ferry_cursor *fc, int op, const void *key, size_t klen, uint8_t *page,
                            size_t cap, uint32_t max_entries, ferry_error *err)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->empty) {
        ferry_page_header(page, 0, FERRY_PAGE_END | (c->pointers ? FERRY_PAGE_POINTERS : 0), FERRY_PAGE_HEADER);
        return 0;
    }
    MDB_val k = { 0, NULL }, v = { 0, NULL };
    int mrc = position(c, op, key, klen, &k, &v);
    int fwd = op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT || op == FERRY_NEXT
              || op == FERRY_SEEK_PAIR_GT;
    /* the first entry decides whether this fill may walk: a store of large entries then runs the
     * same loop as before the walk existed */
    int walk = c->walk && mrc == MDB_SUCCESS && walk_worth(k, v, max_entries);
#define FILL(ptr, fwd, walk) fill_loop(c, mrc, k, v, page, cap, max_entries, ptr, fwd, walk, err)
    if (walk) {
        if (c->pointers) return fwd ? FILL(1, 1, 1) : FILL(1, 0, 1);
        return fwd ? FILL(0, 1, 1) : FILL(0, 0, 1);
    }
    if (c->pointers) return fwd ? FILL(1, 1, 0) : FILL(1, 0, 0);
    return fwd ? FILL(0, 1, 0) : FILL(0, 0, 0);
#undef FILL
}


/* ------------------------------------------------------------------ split points
 *
 * ferry_split_points reads the family's B+tree straight from the map, in the file format the leaf-page
 * walk above reads, from the root down: a branch page's node j holds the key from which child j's
 * subtree starts (node 0's key is not used: the subtree starts where the page's does) and the child's
 * page number (u16 lo and u16 hi as one native u32, then u16 flags as bits 32-47 of a 64-bit page
 * number). The root comes from the family's record (a named family: its MDB_db record in the main
 * database, read with mdb_get; the default family: the MDB_db of the meta page whose transaction id is
 * the read transaction's), and is used only when that record agrees with mdb_stat on every count.
 * Each page read must carry its own page number, the expected kind (branch or leaf) and a sane header,
 * and lie at or below the environment's last page; any page that does not makes the answer empty
 * (the caller then splits by sampling), never a read outside the map.
 *
 * The descent stops at the leaf pages' parents, or at the first level of more than
 * LMDB_SPLIT_LEVEL_PAGES pages in the range. Each child of the last level read is a candidate; its
 * weight is its page's node count (entries of a leaf, children of a branch page), read from the header
 * of every page when there are at most LMDB_SPLIT_SAMPLES of them, else of every k-th page, the pages
 * between taking the count of the last one read. */
#define LMDB_SPLIT_LEVEL_PAGES 2048
#define LMDB_SPLIT_SAMPLES 4096
#define LMDB_DB_SIZE 48        /* MDB_db: u32 pad; u16 flags; u16 depth; branch, leaf, overflow pages; entries; root */
#define LMDB_META_DBS 24       /* MDB_meta: u32 magic; u32 version; void *address; size_t mapsize; MDB_db dbs[2] */
#define LMDB_META_TXNID 128    /* ... pgno_t last_pg; txnid_t txnid */


typedef struct lmdb_tree {
    uintptr_t map, psize;
    size_t last_pgno;
    uint64_t root;
    unsigned depth;
} lmdb_tree;

static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Does the MDB_db record at db agree with st? Sets the root. */
static int db_matches(const uint8_t *db, const MDB_stat *st, lmdb_tree *t)
{
    if (rd16(db + 6) != st->ms_depth || rd64(db + 8) != st->ms_branch_pages || rd64(db + 16) != st->ms_leaf_pages
        || rd64(db + 24) != st->ms_overflow_pages || rd64(db + 32) != st->ms_entries)
        return 0;
    t->root = rd64(db + 40);
    t->depth = st->ms_depth;
    return 1;
}

/* The family's tree as txn sees it: 1 and *t set, 0 when it cannot be read this way (nothing to say),
 * or a FERRY_* error. */
static int tree_of(lmdb_store *s, MDB_txn *txn, ferry_cf_slot *cf, lmdb_tree *t, ferry_error *err)
{
    size_t os_page = plat_page_size();
    if (sizeof(size_t) != 8 || !s->psize || os_page == 0 || s->psize > os_page) return 0;
    MDB_dbi dbi = DBI(cf);
    unsigned dbflags = 0;
    int mrc = mdb.mdb_dbi_flags(txn, dbi, &dbflags);
    if (mrc) return lmdb_fail(err, mrc, "family flags");
    if (dbflags & MDB_DUPSORT) return 0;   /* entries live in sub-trees: node counts are keys */
    MDB_stat st;
    if ((mrc = mdb.mdb_stat(txn, dbi, &st)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "family stat");
    if (st.ms_depth < 2 || st.ms_psize != s->psize) return 0;   /* a single page: sampling does better */
    MDB_envinfo info;
    if ((mrc = mdb.mdb_env_info(s->env, &info)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "env info");
    t->psize = s->psize;
    t->last_pgno = info.me_last_pgno;
    /* the map's address: the leaf page holding the first key, less its page number's worth of pages;
     * page 0 there must be a meta page (as the walk checks) */
    MDB_cursor *cur;
    if ((mrc = mdb.mdb_cursor_open(txn, dbi, &cur)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "open cursor");
    MDB_val k, v;
    mrc = mdb.mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    mdb.mdb_cursor_close(cur);
    if (mrc == MDB_NOTFOUND) return 0;
    if (mrc) return lmdb_fail(err, mrc, "first key");
    const uint8_t *pg = (const uint8_t *)((uintptr_t)k.mv_data & ~(s->psize - 1));
    uint64_t pgno = rd64(pg);
    if (pgno < 2 || pgno > t->last_pgno || (uintptr_t)pgno * s->psize > (uintptr_t)pg) return 0;
    t->map = (uintptr_t)pg - (uintptr_t)pgno * s->psize;
    const uint8_t *meta0 = (const uint8_t *)t->map;
    uint32_t magic, version;
    memcpy(&magic, meta0 + LMDB_PAGE_HDR, 4);
    memcpy(&version, meta0 + LMDB_PAGE_HDR + 4, 4);
    if (!(rd16(meta0 + 10) & LMDB_P_META) || magic != LMDB_MAGIC || version != LMDB_DATA_VERSION) return 0;
    if (!is_default_cf(s, cf)) {
        MDB_val name = { strlen(cf->name), cf->name }, rec;
        mrc = mdb.mdb_get(txn, DBI(ferry_slot(&s->base, 0)), &name, &rec);
        if (mrc == MDB_NOTFOUND || (mrc == MDB_SUCCESS && rec.mv_size != LMDB_DB_SIZE)) return 0;
        if (mrc) return lmdb_fail(err, mrc, "family record");
        return db_matches(rec.mv_data, &st, t);
    }
    /* the default family is the main database, whose record is in the meta pages: the one of this
     * transaction, checked not to be rewritten while it was read (a writer two commits later reuses it) */
    if (!mdb_txn_id_fn) return 0;
    size_t id = mdb_txn_id_fn(txn);
    for (int m = 0; m < 2; m++) {
        const uint8_t *meta = (const uint8_t *)t->map + (uintptr_t)m * s->psize + LMDB_PAGE_HDR;
        if (__atomic_load_n((const uint64_t *)(const void *)(meta + LMDB_META_TXNID), __ATOMIC_ACQUIRE) != id) continue;
        uint8_t db[LMDB_DB_SIZE];
        memcpy(db, meta + LMDB_META_DBS + LMDB_DB_SIZE, LMDB_DB_SIZE);   /* mm_dbs[MAIN_DBI] */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n((const uint64_t *)(const void *)(meta + LMDB_META_TXNID), __ATOMIC_ACQUIRE) != id) return 0;
        return db_matches(db, &st, t);
    }
    return 0;
}

/* Page pgno of the tree, checked (see above): its node count and upper bound, or NULL. */
static const uint8_t *tree_page(const lmdb_tree *t, uint64_t pgno, unsigned kind, unsigned *nkeys, unsigned *upper)
{
    if (pgno < 2 || pgno > t->last_pgno) return NULL;   /* pages 0 and 1 are the meta pages */
    const uint8_t *pg = (const uint8_t *)(t->map + (uintptr_t)pgno * t->psize);
    unsigned flags = rd16(pg + 10), lower = rd16(pg + 12), up = rd16(pg + 14);
    if (rd64(pg) != pgno
        || (flags & (LMDB_P_BRANCH | LMDB_P_LEAF | LMDB_P_OVERFLOW | LMDB_P_META | LMDB_P_LEAF2 | LMDB_P_SUBP)) != kind
        || lower < LMDB_PAGE_HDR + 2 || lower > up || up > t->psize)
        return NULL;
    *nkeys = (lower - LMDB_PAGE_HDR) / 2;
    *upper = up;
    return pg;
}

/* Node j of branch page pg: its key and child page number; 0 when it does not lie inside the page. */
static int branch_node(const lmdb_tree *t, const uint8_t *pg, unsigned j, unsigned upper, const uint8_t **key,
                       size_t *klen, uint64_t *child)
{
    unsigned off = rd16(pg + LMDB_PAGE_HDR + 2 * j);
    if (off < upper || off > t->psize - LMDB_NODE_HDR) return 0;
    const uint8_t *n = pg + off;
    uint32_t lohi;
    memcpy(&lohi, n, 4);
    unsigned ksize = rd16(n + 6);
    if (off + LMDB_NODE_HDR + ksize > t->psize) return 0;
    *child = (uint64_t)lohi | ((uint64_t)rd16(n + 4) << 32);
    *key = n + LMDB_NODE_HDR;
    *klen = ksize;
    return 1;
}

/* One entry of a level: a subtree's page, and the key it starts from (NULL: the range's start). */
typedef struct tree_ref {
    const uint8_t *key;
    size_t klen;
    uint64_t pgno;
} tree_ref;

static int level_push(tree_ref **v, size_t *n, size_t *cap, const uint8_t *key, size_t klen, uint64_t pgno)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        tree_ref *nv = realloc(*v, c * sizeof *nv);
        if (!nv) return 0;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = (tree_ref){ key, klen, pgno };
    return 1;
}

/* The candidates of the tree t within [lower, upper), packed into dst; 0 records when a page fails its
 * checks. Runs inside the read transaction that keeps the pages. */
static int tree_split_points(const lmdb_tree *t, const void *lower, size_t llen, const void *upper, size_t ulen,
                             uint32_t max, void *dst, size_t cap, size_t *len_out, ferry_error *err)
{
    tree_ref *level = NULL, *next = NULL;
    size_t n = 0, ncap = 0, nn = 0, nncap = 0;
    ferry_split_cand *cand = NULL;
    int rc = 0;
    if (!level_push(&level, &n, &ncap, NULL, 0, t->root)) goto oom;
    unsigned d = 0;
    for (; d + 1 < t->depth && n <= LMDB_SPLIT_LEVEL_PAGES; d++) {
        nn = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned nkeys, up;
            const uint8_t *pg = tree_page(t, level[i].pgno, LMDB_P_BRANCH, &nkeys, &up);
            if (!pg) goto empty;
            const uint8_t *k0, *k1 = NULL;
            size_t l0, l1 = 0;
            uint64_t c0, c1 = 0;
            if (!branch_node(t, pg, 0, up, &k0, &l0, &c0)) goto empty;
            k0 = level[i].key;
            l0 = level[i].klen;
            for (unsigned j = 0; j < nkeys; j++) {
                /* child j covers [k0, k1): k1 the next node's key, after the last node the next subtree's */
                if (j + 1 < nkeys) {
                    if (!branch_node(t, pg, j + 1, up, &k1, &l1, &c1)) goto empty;
                } else if (i + 1 < n) {
                    k1 = level[i + 1].key;
                    l1 = level[i + 1].klen;
                } else {
                    k1 = NULL;
                }
                int after_lower = !lower || !k1 || key_cmp(k1, l1, lower, llen) > 0;
                if (upper && k0 && key_cmp(k0, l0, upper, ulen) >= 0) break;
                if (after_lower && !level_push(&next, &nn, &nncap, k0, l0, c0)) goto oom;
                k0 = k1;
                l0 = l1;
                c0 = c1;
            }
        }
        tree_ref *tmp = level;
        level = next;
        next = tmp;
        size_t tc = ncap;
        ncap = nncap;
        nncap = tc;
        n = nn;
        if (n == 0) goto empty;
    }
    /* the last level: leaf pages (d == depth - 1) or branch pages; weigh by node counts */
    unsigned kind = d + 1 == t->depth ? LMDB_P_LEAF : LMDB_P_BRANCH;
    cand = malloc(n * sizeof *cand);
    if (!cand) goto oom;
    size_t stride = (n + LMDB_SPLIT_SAMPLES - 1) / LMDB_SPLIT_SAMPLES;
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % stride == 0) {
            unsigned nkeys, up;
            if (!tree_page(t, level[i].pgno, kind, &nkeys, &up)) goto empty;
            w = nkeys;
        }
        cand[i] = (ferry_split_cand){ level[i].key, level[i].klen, w };
    }
    rc = ferry_split_pack(cand, n, max, dst, cap, len_out);
    goto done;
oom:
    rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    goto done;
empty:
    *len_out = 0;
    rc = 0;
done:
    free(cand);
    free(level);
    free(next);
    return rc;
}

static int lmdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower, size_t llen,
                             const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                             ferry_error *err)
{
    lmdb_store *s = LS(fs);
    MDB_txn *txn, *own;
    int rc = read_txn(s, snap, &txn, &own, err);
    if (rc) return rc;
    lmdb_stripe *names = names_enter(s, cf);
    lmdb_tree t = { 0 };
    rc = tree_of(s, txn, cf, &t, err);
    if (rc == 1) rc = tree_split_points(&t, lower, llen, upper, ulen, max, dst, cap, len_out, err);
    names_exit(names);
    int drc = dropped_since(cf, err);
    if (own) read_release(s, own);
    if (drc) return drc;
    return rc;
}

/* ------------------------------------------------------------------ user write transactions */

#define LTXN(tb) ((lmdb_txn *)(tb))

/* The transaction ended in LMDB (committed, aborted or failed): grow the map when a write found it
 * full (auto-grow; nothing is open now, so the remap can run), then let other writers in. */
static void txn_release(lmdb_store *s, lmdb_txn *t)
{
    if (t->map_full && s->grow_step > 0) {
        ferry_error e;
        grow_map(s, 0, &e);
    }
    s->txn = NULL;
    atomic_store(&s->abandoned, 0);
    atomic_store_explicit(&s->txn_active, 0, memory_order_release);
    pthread_mutex_unlock(&s->wlock);
}

/* Roll back t unless it ended (on its own thread, its cursors closed). */
static int txn_end_locked(lmdb_store *s, lmdb_txn *t)
{
    if (!t->ended) {
        mdb.mdb_txn_abort(t->root);
        t->ended = 1;
        txn_release(s, t);
    }
    return FERRY_OK;
}

static int lmdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
{
    lmdb_store *ls = LS(s);
    lmdb_txn *t = calloc(1, sizeof *t);
    if (!t) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (txn_mine(ls) && !atomic_load(&ls->abandoned)) {
        free(t);
        return ferry_fail(err, FERRY_EBUSY, 0, "this thread already holds an open write transaction on this LMDB store "
                          "(LMDB has one writer: commit or close it first)");
    }
    int rc = wlock_acquire(ls, timeout_ms, err);
    if (rc) { free(t); return rc; }
    MDB_txn *txn = NULL;
    int mrc = mdb.mdb_txn_begin(ls->env, NULL, 0, &txn);
    if (mrc == MDB_MAP_RESIZED) { /* another process grew the map: adopt its size */
        rc = remap(ls, 0, err);
        mrc = rc ? MDB_SUCCESS : mdb.mdb_txn_begin(ls->env, NULL, 0, &txn);
    }
    if (rc || mrc) {
        pthread_mutex_unlock(&ls->wlock);
        free(t);
        return rc ? rc : lmdb_fail(err, mrc, "begin write transaction");
    }
    t->txn = t->root = txn;
    t->base.view.cf_limit = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    ls->txn = t;
    atomic_store(&ls->abandoned, 0);
    atomic_store_explicit(&ls->txn_owner, pthread_self(), memory_order_relaxed);
    atomic_store_explicit(&ls->txn_active, 1, memory_order_release);
    *out = &t->base;
    return FERRY_OK;
}

static int lmdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst, size_t cap,
                        size_t *vlen_out, int for_update, ferry_error *err)
{
    MDB_val v;
    int mrc = get_one(LS(tb->view.store), LTXN(tb)->txn, DBI(cf), key, klen, &v);
    if (mrc == MDB_NOTFOUND) return FERRY_NOTFOUND;
    if (mrc) return lmdb_fail(err, mrc, "get");
    *vlen_out = v.mv_size;
    if (cap) memcpy(dst, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
    return FERRY_OK;
}

/* value_count through the write transaction (its writes included). No drop can run meanwhile: a
 * drop is a write, which waits for this transaction. */
static int lmdb_txn_value_count(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, uint64_t *out,
                                ferry_error *err)
{
    *out = 0;
    if (klen == 0 || klen > LS(tb->view.store)->max_key) return FERRY_OK; /* LMDB holds no such key */
    MDB_txn *txn = LTXN(tb)->txn;
    MDB_cursor *cur;
    int mrc = mdb.mdb_cursor_open(txn, DBI(cf), &cur);
    if (mrc == MDB_SUCCESS) mrc = count_values(txn, DBI(cf), cur, key, klen, out);
    return (mrc == MDB_SUCCESS || mrc == MDB_NOTFOUND) ? FERRY_OK : lmdb_fail(err, mrc, "value count");
}

/* Records in the write transaction. Failures before anything was applied that LMDB takes in its
 * stride (a key LMDB cannot hold, a family's name as a key of the default family) leave the
 * transaction usable; any other failure, or one after a record of this call was applied, fails it
 * (LMDB cannot undo part of a transaction). */
static int lmdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err)
{
    lmdb_store *s = LS(tb->view.store);
    lmdb_txn *t = LTXN(tb);
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        if (r.op == FERRY_OP_MERGE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: merge is not supported by LMDB, which has no "
                              "merge operators: read, combine and put instead", i);
        if (r.op == FERRY_OP_DELETE_RANGE) continue;
        if (r.alen == 0 || r.alen > s->max_key)
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "batch record %u: key of %u bytes: LMDB keys are 1 to %zu bytes",
                              i, r.alen, s->max_key);
    }
    p = ops;
    int rc = FERRY_OK;
    uint32_t i;
    for (i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(&s->base, r.cf);
        if ((rc = family_live(slot, err)) != FERRY_OK) break;
        MDB_dbi dbi = DBI(slot);
        MDB_val k = { r.alen, (void *)r.a }, v = { r.blen, (void *)r.b };
        int mrc = MDB_SUCCESS;
        if (r.op == FERRY_OP_PUT) {
            /* as a store put: DUPSORT value sizes and DUPFIXED's one size per key are checked */
            char what[64];
            snprintf(what, sizeof what, count > 1 ? "batch record %u" : "write", i);
            if ((rc = put_one(s, t->txn, dbi, &k, &v, 0, what, err)) != FERRY_OK) {
                if (rc == FERRY_EMAPFULL) t->map_full = 1;
                break;
            }
        } else if (r.op == FERRY_OP_DELETE) {
            mrc = mdb.mdb_del(t->txn, dbi, &k, NULL);
        } else if (r.op == FERRY_OP_DELETE_VALUE) {
            unsigned dbflags = 0;
            if ((mrc = mdb.mdb_dbi_flags(t->txn, dbi, &dbflags)) == MDB_SUCCESS && !(dbflags & MDB_DUPSORT)) {
                rc = ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: deleting one value of a key needs a DUPSORT "
                                "column family ('%s' is not one): delete the key", i, slot->name);
                break;
            }
            /* a value over the size limit was never stored */
            if (mrc == MDB_SUCCESS && r.blen <= s->max_key) mrc = mdb.mdb_del(t->txn, dbi, &k, &v);
        } else if ((rc = range_delete(s, t->txn, dbi, r.a, r.alen, r.b, r.blen, err)) != FERRY_OK) {
            break;
        }
        if (mrc && mrc != MDB_NOTFOUND) {
            if (mrc == MDB_MAP_FULL) t->map_full = 1;
            char what[64];
            snprintf(what, sizeof what, count > 1 ? "batch record %u" : "write", i);
            rc = family_key_fail(s, dbi, mrc, what, &k, err);
            break;
        }
    }
    if (rc != FERRY_OK && (i > 0 || (rc != FERRY_EINVAL && rc != FERRY_ECFDROPPED && rc != FERRY_EKEYSIZE)))
        tb->state = FERRY_TXN_FAILED;
    if (rc == FERRY_EMAPFULL)
        ferry_fail(err, rc, MDB_MAP_FULL, "LMDB map full inside a write transaction: the transaction failed (close it)%s",
                   s->grow_step > 0 ? "; the map grows when it closes, so running it again can succeed"
                                    : "; raise StoreOptions.mapSize or enable StoreOptions.autoGrow");
    return rc;
}

static int lmdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen, const void *upper,
                                size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    lmdb_cursor *c = calloc(1, sizeof *c + llen + ulen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int mrc = mdb.mdb_cursor_open(LTXN(tb)->txn, DBI(cf), &c->cur);
    if (mrc) { free(c); return lmdb_fail(err, mrc, "open cursor"); }
    c->dbi = DBI(cf);
    c->depth = LTXN(tb)->depth;
    cursor_set_range(c, lower, llen, upper, ulen, flags);
    c->walk = 0;   /* the transaction's dirty pages live outside the map: never walked */
    c->rc = MDB_NOTFOUND;
    c->base.store = tb->view.store;
    *out = &c->base;
    return FERRY_OK;
}

static void lmdb_txn_cursor_kill(ferry_cursor *fc)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->cur) mdb.mdb_cursor_close(c->cur);
    c->cur = NULL;
}

static int lmdb_txn_commit(ferry_txn *tb, ferry_error *err)
{
    lmdb_store *s = LS(tb->view.store);
    lmdb_txn *t = LTXN(tb);
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_seq_cst);
    int mrc = mdb.mdb_txn_commit(t->root);   /* ends the transaction (nested ones first), also when it fails */
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_release);
    t->ended = 1;
    if (mrc == MDB_MAP_FULL) t->map_full = 1;
    txn_release(s, t);
    return mrc ? lmdb_fail(err, mrc, "commit") : FERRY_OK;
}

static void lmdb_txn_abandon(ferry_txn *tb)
{
    lmdb_store *s = LS(tb->view.store);
    if (s->txn == LTXN(tb) && !LTXN(tb)->ended) atomic_store(&s->abandoned, 1);
}

static int lmdb_txn_close(ferry_txn *tb)
{
    lmdb_store *s = LS(tb->view.store);
    lmdb_txn *t = LTXN(tb);
    if (!t->ended) {
        if (!pthread_equal(tb->owner, pthread_self())) {
            /* LMDB's write lock is the beginning thread's: only it can end the transaction */
            atomic_store(&t->released, 1);
            atomic_store(&s->abandoned, 1);
            return FERRY_EBADTXN;
        }
        txn_end_locked(s, t);
    }
    pthread_mutex_destroy(&tb->lock);
    free(t->parents);
    free(t);
    return FERRY_OK;
}

/* The nested transaction of the newest savepoint ended (LMDB freed the cursors opened in it):
 * its parent becomes the innermost, and the transaction's cursors opened in it are opened again
 * there, not positioned (ferry.c counted the call as a write). A cursor that cannot be opened
 * again is left dead. */
static void savepoint_ended(lmdb_txn *t)
{
    uint32_t gone = t->depth--;
    t->txn = t->parents[t->depth];
    for (ferry_cursor *fc = t->base.cursors; fc; fc = fc->tnext) {
        lmdb_cursor *c = (lmdb_cursor *)fc;
        if (fc->dead || c->depth != gone) continue;
        c->cur = NULL;
        c->rc = MDB_NOTFOUND;
        c->leaf = 0;
        c->depth = t->depth;
        if (mdb.mdb_cursor_open(t->txn, c->dbi, &c->cur) != MDB_SUCCESS) {
            c->cur = NULL;
            fc->dead = 1;
        }
    }
}

/* Savepoints as nested write transactions (see ferry.h). */
static int lmdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err)
{
    lmdb_store *s = LS(tb->view.store);
    lmdb_txn *t = LTXN(tb);
    if (op == FERRY_SP_SET) {
        if (s->writemap)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "savepoints on LMDB are nested transactions, which LMDB does not "
                              "have with LmdbFlag.WRITEMAP (FERRY_LMDB_WRITEMAP): open the store without it");
        if (t->depth == t->cap) {
            uint32_t cap = t->cap ? t->cap * 2 : 4;
            MDB_txn **n = realloc(t->parents, cap * sizeof *n);
            if (!n) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            t->parents = n;
            t->cap = cap;
        }
        MDB_txn *child = NULL;
        int mrc = mdb.mdb_txn_begin(s->env, t->txn, 0, &child);
        if (mrc) return lmdb_fail(err, mrc, "set savepoint (begin a nested transaction)");
        t->parents[t->depth++] = t->txn;
        t->txn = child;
        return FERRY_OK;
    }
    if (op == FERRY_SP_ROLLBACK) {
        mdb.mdb_txn_abort(t->txn);
        savepoint_ended(t);
        return FERRY_OK;
    }
    int mrc = mdb.mdb_txn_commit(t->txn);   /* into its parent; on failure LMDB aborted it */
    savepoint_ended(t);
    if (mrc == MDB_MAP_FULL) t->map_full = 1;
    if (mrc) {
        tb->state = FERRY_TXN_FAILED;
        return lmdb_fail(err, mrc, "pop savepoint (commit a nested transaction into its parent): the transaction "
                         "lost its writes since the savepoint and failed (close it)");
    }
    return FERRY_OK;
}

/* ------------------------------------------------------------------ open / close */

static int lmdb_close(ferry_store *s)
{
    lmdb_store *ls = LS(s);
    lmdb_txn *t = ls->txn;
    if (t && !t->ended) {
        if (!txn_mine(ls)) {
            /* LMDB's write lock is a robust mutex in the lock file, on the list of mutexes the
             * beginning thread holds; only that thread can release it. Closing the environment
             * here would unmap it under that thread, whose next lock of any robust mutex then
             * writes into the unmapped page (a crash found by the misuse fuzzer). The
             * environment, its lock and this store stay as they are until the process exits:
             * FERRY_EBUSY tells the caller the path is still open in this process. */
            return FERRY_EBUSY;
        }
        int released = atomic_load(&ls->abandoned) && atomic_load(&t->released);
        txn_end_locked(ls, t);
        if (released) {   /* closed on another thread earlier: its handle is gone, free it here */
            pthread_mutex_destroy(&t->base.lock);
            free(t->parents);
            free(t);
        }
    }
    pool_drain(ls);
    mdb.mdb_env_close(ls->env);
    ferry_store_base_free(s);
    pthread_mutex_destroy(&ls->wlock);
    pthread_mutex_destroy(&ls->pool_lock);
    plat_aligned_free(ls);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ checkpoint */

/* Copy the environment into dir/data.mdb with mdb_env_copy2, creating dir first. The copy reads
 * through its own read transaction, counted as live so that an auto-grow does not remap under it.
 * A plain copy begins that transaction under LMDB's writer mutex; a compacting copy begins it
 * unguarded, so it runs under wlock: no commit overlaps its begin (see read_acquire), and writers
 * of this store wait until it is done. A failed copy removes what it created. */
static int lmdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
{
    lmdb_store *ls = LS(s);
    int e = plat_mkdir(dir);
    if (e != 0) {
        if (e == EEXIST)
            return ferry_fail(err, FERRY_EEXISTS, e, "checkpoint directory %s exists: a checkpoint is written into a "
                              "new directory", dir);
        return ferry_fail(err, FERRY_EIO, e, "cannot create checkpoint directory %s: %s", dir, strerror(e));
    }
    int compact = (flags & FERRY_CHECKPOINT_COMPACT) != 0;
    /* Both copies take LMDB's writer mutex (a plain one while it starts): wait for an open write
     * transaction through wlock (refused on its own thread, which would wait for itself, and when
     * it was abandoned); a plain copy lets writers in again at once. */
    int wrc = wlock_acquire(ls, -1, err);
    if (wrc) { plat_rmdir(dir); return wrc; }
    if (!compact) pthread_mutex_unlock(&ls->wlock);
    read_enter(ls);
    int mrc = mdb.mdb_env_copy2(ls->env, dir, compact ? MDB_CP_COMPACT : 0);
    if (mrc == MDB_READERS_FULL) { /* kept read transactions hold reader slots: free them */
        pool_drain(ls);
        mrc = mdb.mdb_env_copy2(ls->env, dir, compact ? MDB_CP_COMPACT : 0);
    }
    read_exit(ls);
    if (compact) pthread_mutex_unlock(&ls->wlock);
    if (mrc == MDB_SUCCESS) return FERRY_OK;
    size_t n = strlen(dir);
    char *data = malloc(n + 16);
    if (data) {
        snprintf(data, n + 16, "%s/data.mdb", dir);
        plat_unlink(data);
        free(data);
    }
    plat_rmdir(dir);
    if (mrc == MDB_READERS_FULL)
        return ferry_fail(err, FERRY_EREADERSFULL, mrc, "checkpoint %s: LMDB's reader table is full (a copy needs a "
                          "reader slot: close snapshots and cursors, or raise StoreOptions.maxReaders)", dir);
    return ferry_fail(err, map_rc(mrc), mrc, "checkpoint %s: %s", dir, lmdb_strerror(mrc));
}

static int lmdb_cf_find(ferry_store *fs, const char *name, void **handle_out, ferry_error *err);
static int lmdb_cf_list_all(ferry_store *fs, ferry_error *err);

static const ferry_engine_ops lmdb_ops = {
    .close = lmdb_close,
    .flush = lmdb_flush,
    .compact_range = lmdb_compact_range,
    .property = lmdb_property,
    .property_int = lmdb_property_int,
    .checkpoint = lmdb_checkpoint,
    .cf_create = lmdb_cf_create,
    .cf_drop = lmdb_cf_drop,
    .cf_flags = lmdb_cf_flags,
    .cf_find = lmdb_cf_find,
    .cf_list_all = lmdb_cf_list_all,
    .get = lmdb_get,
    .multi_get = lmdb_multi_get,
    .value_count = lmdb_value_count,
    .split_points = lmdb_split_points,
    .put = lmdb_put,
    .del = lmdb_del,
    .delete_range = lmdb_delete_range,
    .write = lmdb_write,
    .snapshot_open = lmdb_snapshot_open,
    .snapshot_close = lmdb_snapshot_close,
    .cursor_open = lmdb_cursor_open,
    .cursor_close = lmdb_cursor_close,
    .cursor_fill = lmdb_cursor_fill,
    .txn_begin = lmdb_txn_begin,
    .txn_get = lmdb_txn_get,
    .txn_value_count = lmdb_txn_value_count,
    .txn_write = lmdb_txn_write,
    .txn_cursor_open = lmdb_txn_cursor_open,
    .txn_cursor_kill = lmdb_txn_cursor_kill,
    .txn_commit = lmdb_txn_commit,
    .txn_close = lmdb_txn_close,
    .txn_abandon = lmdb_txn_abandon,
    .txn_savepoint = lmdb_txn_savepoint,
};

/* mkdir -p path: each prefix ending before a separator, and path itself, that is not a directory
 * yet (a Windows drive "C:" or a root is one already). A prefix that can be neither seen nor made
 * (a Windows \\server of a UNC path) is passed over; when path is no directory in the end, the
 * first failure says why. */
static int make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p) return ENOMEM;
    int first = 0;
    for (char *q = p + 1;; q++) {
        if (!plat_is_sep(*q) && *q != '\0') continue;
        char c = *q;
        *q = '\0';
        if (!plat_is_sep(q[-1]) && plat_stat(p, NULL) != PLAT_DIR) {
            int e = plat_mkdir(p);
            if (e != 0 && e != EEXIST && !first) first = e;
        }
        *q = c;
        if (c == '\0') break;
    }
    free(p);
    return plat_stat(path, NULL) == PLAT_DIR ? 0 : first ? first : ENOTDIR;
}

/* Check the directory and data.mdb against create_if_missing / error_if_exists / read_only. */
static int prepare_dir(const char *path, int create, int error_if_exists, int read_only, ferry_error *err)
{
    int kind = plat_stat(path, NULL);
    if (!kind) {
        if (!create || read_only)
            return ferry_fail(err, FERRY_NOTFOUND, ENOENT, "no LMDB store at %s: directory does not exist%s", path,
                              read_only ? " (read-only open)"
                                        : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
        int rc = make_dirs(path);
        if (rc) return ferry_fail(err, FERRY_EIO, rc, "cannot create directory %s: %s", path, strerror(rc));
        return FERRY_OK;
    }
    if (kind != PLAT_DIR) return ferry_fail(err, FERRY_EIO, ENOTDIR, "%s is not a directory", path);
    size_t n = strlen(path);
    char *data = malloc(n + 16);
    if (!data) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    snprintf(data, n + 16, "%s/data.mdb", path);
    int exists = plat_stat(data, NULL) != 0;
    free(data);
    if (exists && error_if_exists) return ferry_fail(err, FERRY_EEXISTS, 0, "LMDB store %s already exists", path);
    if (!exists && (!create || read_only))
        return ferry_fail(err, FERRY_NOTFOUND, ENOENT, "no LMDB store at %s: data.mdb missing%s", path,
                          read_only ? " (read-only open)" : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
    return FERRY_OK;
}

/* Add a slot for every named database found as a record of the main database (Ferry's default
 * family) that has none yet: the whole default family is read, key by key. */
static int scan_families(lmdb_store *s, MDB_txn *txn, MDB_dbi main_dbi, ferry_error *err)
{
    MDB_cursor *cur = NULL;
    char name[512];
    int rc = mdb.mdb_cursor_open(txn, main_dbi, &cur);
    if (rc) return lmdb_fail(err, rc, "list column families");
    MDB_val k, v;
    for (rc = mdb.mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == MDB_SUCCESS;
         rc = mdb.mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        /* a sub-database record holds an MDB_db (u32 pad, u16 flags, u16 depth, 5 size_t):
         * skip other values cheaply */
        if (v.mv_size != 8 + 5 * sizeof(size_t)) continue;
        if (k.mv_size >= sizeof name || memchr(k.mv_data, 0, k.mv_size)) continue;
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        if (ferry_store_find_cf(&s->base, name) >= 0) continue; /* looked up already */
        MDB_dbi dbi;
        int orc = mdb.mdb_dbi_open(txn, name, 0, &dbi);
        if (orc == MDB_NOTFOUND || orc == MDB_INCOMPATIBLE) continue; /* a plain record */
        if (orc == MDB_SUCCESS && s->base.cf_named >= s->base.cf_named_max) orc = MDB_DBS_FULL;
        if (orc == MDB_DBS_FULL) {
            mdb.mdb_cursor_close(cur);
            return ferry_fail(err, FERRY_EDBSFULL, orc,
                              "the store holds more column families than maxColumnFamilies (%u): raise it "
                              "(FERRY_OPT_MAX_DBS in the C ABI)", s->base.cf_named_max);
        }
        if (orc) break;
        if (ferry_store_add_cf(&s->base, name, (void *)(uintptr_t)dbi, 0, NULL) != FERRY_OK) {
            mdb.mdb_cursor_close(cur);
            return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        }
    }
    mdb.mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? FERRY_OK : lmdb_fail(err, rc, "list column families");
}

/* At open: add the default family and, when the default family holds at most
 * FERRY_LMDB_FAMILY_SCAN_MAX records, every named database (LMDB keeps them as records of the main
 * database, so finding them all means reading every key of the default family: a store that keeps
 * its data in the default family would pay that at every open, in time and, with a cold page
 * cache, in reads of every leaf page). Otherwise the named families are found when asked for:
 * by name (lmdb_cf_find) or all at once (lmdb_cf_list_all). */
static int list_families(lmdb_store *s, ferry_error *err)
{
    MDB_txn *txn;
    int rc = mdb.mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) return lmdb_fail(err, rc, "begin read transaction");
    MDB_dbi main_dbi;
    MDB_stat st;
    if ((rc = mdb.mdb_dbi_open(txn, NULL, 0, &main_dbi)) != MDB_SUCCESS
        || (rc = mdb.mdb_stat(txn, main_dbi, &st)) != MDB_SUCCESS) {
        mdb.mdb_txn_abort(txn);
        return lmdb_fail(err, rc, "list column families");
    }
    if (ferry_store_add_cf(&s->base, "default", (void *)(uintptr_t)main_dbi, 0, NULL) != FERRY_OK) {
        mdb.mdb_txn_abort(txn);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    if (st.ms_entries <= FERRY_LMDB_FAMILY_SCAN_MAX) {
        int frc = scan_families(s, txn, main_dbi, err);
        if (frc) {
            mdb.mdb_txn_abort(txn);
            return frc;
        }
        s->families_listed = 1;
    }
    if ((rc = mdb.mdb_txn_commit(txn)) != MDB_SUCCESS) return lmdb_fail(err, rc, "list column families");
    return FERRY_OK;
}

/* A read transaction of its own for the family lookups after open (mdb_dbi_open in it, then a
 * commit, which keeps the handles for every later transaction), counted as live so that a grow
 * waits for it (see read_enter); lookup_end ends it either way. */
static int lookup_begin(lmdb_store *s, MDB_txn **txn, ferry_error *err)
{
    read_enter(s);
    int rc = mdb.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    if (rc == MDB_READERS_FULL) { /* pooled transactions hold reader slots: free them */
        pool_drain(s);
        rc = mdb.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    }
    if (rc) {
        read_exit(s);
        return lmdb_fail(err, rc, "look up column families: begin read transaction");
    }
    return FERRY_OK;
}

static int lookup_end(lmdb_store *s, MDB_txn *txn, int commit, ferry_error *err)
{
    int rc = commit ? mdb.mdb_txn_commit(txn) : (mdb.mdb_txn_abort(txn), MDB_SUCCESS);
    read_exit(s);
    return rc ? lmdb_fail(err, rc, "look up column families") : FERRY_OK;
}

/* cf_find (under cf_lock, the name has no live slot): open the named database if there is one. */
static int lmdb_cf_find(ferry_store *fs, const char *name, void **handle_out, ferry_error *err)
{
    lmdb_store *s = LS(fs);
    if (s->families_listed || strlen(name) > s->max_key)
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no column family '%s'", name);
    MDB_txn *txn;
    int rc = lookup_begin(s, &txn, err);
    if (rc) return rc;
    MDB_dbi dbi;
    int mrc = mdb.mdb_dbi_open(txn, name, 0, &dbi);
    if (mrc == MDB_NOTFOUND || mrc == MDB_INCOMPATIBLE) {
        lookup_end(s, txn, 0, err);
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no column family '%s'", name);
    }
    if (mrc == MDB_DBS_FULL) {
        lookup_end(s, txn, 0, err);
        return ferry_fail(err, FERRY_EDBSFULL, mrc, "cannot look up column family '%s': LMDB has no free database "
                          "handle (maxColumnFamilies, FERRY_OPT_MAX_DBS)", name);
    }
    if (mrc) {
        lookup_end(s, txn, 0, err);
        return lmdb_fail(err, mrc, "look up column family");
    }
    rc = lookup_end(s, txn, 1, err);
    if (rc) return rc;
    *handle_out = (void *)(uintptr_t)dbi;
    return FERRY_OK;
}

/* cf_list_all (under cf_lock): a slot for every family on disk, once. */
static int lmdb_cf_list_all(ferry_store *fs, ferry_error *err)
{
    lmdb_store *s = LS(fs);
    if (s->families_listed) return FERRY_OK;
    MDB_txn *txn;
    int rc = lookup_begin(s, &txn, err);
    if (rc) return rc;
    rc = scan_families(s, txn, DBI(ferry_slot(&s->base, 0)), err);
    int erc = lookup_end(s, txn, rc == FERRY_OK, err);
    if (rc == FERRY_OK) rc = erc;
    if (rc == FERRY_OK) s->families_listed = 1;
    return rc;
}

/* Environment flags from the options. FERRY_OPT_SYNC means what it means on RocksDB:
 * - 1: every commit is synced to disk before it returns (LMDB's default); FERRY_LMDB_NOSYNC
 *   contradicts it and is refused at open, FERRY_LMDB_NOMETASYNC stays an explicit relaxation
 *   (data synced per commit, the meta page one commit later: an OS crash may undo the last one).
 * - 0 or -1 (the default): MDB_NOSYNC. A commit hands its pages to the OS (write(), or the
 *   shared map with MDB_WRITEMAP) and returns without fsync: it survives a crash of the process,
 *   not of the OS or a power loss, which may undo the last commits (without MDB_WRITEMAP, on a
 *   file system that keeps write order, never the store's integrity). ferry_flush syncs.
 * MDB_NOTLS is always set (see the file comment). */
static unsigned int env_flags(int64_t f, int64_t sync, int read_only)
{
    unsigned int flags = MDB_NOTLS;
    if (f & FERRY_LMDB_NOSYNC) flags |= MDB_NOSYNC;
    if (f & FERRY_LMDB_NOMETASYNC) flags |= MDB_NOMETASYNC;
    if (f & FERRY_LMDB_WRITEMAP) flags |= MDB_WRITEMAP;
    if (f & FERRY_LMDB_NORDAHEAD) flags |= MDB_NORDAHEAD;
    if (sync != 1) flags |= MDB_NOSYNC;
    if (read_only) flags |= MDB_RDONLY;
    return flags;
}

/* Open an LMDB environment as a Ferry store (options: see ferry.h and env_flags). */
int ferry_lmdb_open(const char *path, const int64_t *opts, const char *extra, ferry_store **out,
                    ferry_error *err)
{
    if (!atomic_load_explicit(&mdb_attached, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "LMDB engine not attached (call ferry_engine_attach first)");
    int64_t map_size = ferry_opt(opts, FERRY_OPT_MAP_SIZE, LMDB_DEFAULT_MAP_SIZE);
    int64_t max_dbs = ferry_opt(opts, FERRY_OPT_MAX_DBS, LMDB_DEFAULT_MAX_DBS);
    int64_t max_readers = ferry_opt(opts, FERRY_OPT_MAX_READERS, LMDB_DEFAULT_MAX_READERS);
    int64_t lflags = ferry_opt(opts, FERRY_OPT_LMDB_FLAGS, 0);
    int64_t grow = ferry_opt(opts, FERRY_OPT_AUTO_GROW, 0);
    int read_only = ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0;
    int create = ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0;
    int excl = ferry_opt(opts, FERRY_OPT_ERROR_IF_EXISTS, 0) != 0;
    if (map_size <= 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "map size (mapSize, FERRY_OPT_MAP_SIZE) must be positive, got %lld",
                          (long long)map_size);
    if (max_dbs < 0 || max_dbs > 32765)
        return ferry_fail(err, FERRY_EINVAL, 0, "maxColumnFamilies (FERRY_OPT_MAX_DBS) must be 0..32765, got %lld",
                          (long long)max_dbs);
    if (max_readers <= 0 || max_readers > 1 << 20)
        return ferry_fail(err, FERRY_EINVAL, 0, "maxReaders (FERRY_OPT_MAX_READERS) must be 1..%d, got %lld", 1 << 20,
                          (long long)max_readers);
    if (lflags < 0 || (lflags & ~(int64_t)0x1f))
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown LMDB flags 0x%llx", (long long)lflags);
    if (grow < 0) return ferry_fail(err, FERRY_EINVAL, 0, "auto-grow step must be >= 0, got %lld", (long long)grow);
    if (ferry_opt(opts, FERRY_OPT_READAHEAD_BYTES, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "readahead size (FERRY_OPT_READAHEAD_BYTES) is a RocksDB option: LMDB "
                          "reads through the OS page cache (LmdbFlag.NORDAHEAD turns the OS readahead off)");
    if (ferry_opt(opts, FERRY_OPT_STATISTICS, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "statistics (FERRY_OPT_STATISTICS) are a RocksDB option: LMDB's counters "
                          "are read with the lmdb.stat and lmdb.info properties");
    if (ferry_opt(opts, FERRY_OPT_SYNC, 0) == 1 && (lflags & FERRY_LMDB_NOSYNC))
        return ferry_fail(err, FERRY_EINVAL, 0, "syncWrites(true) syncs every commit, LmdbFlag.NOSYNC none: choose one "
                          "(FERRY_OPT_SYNC 1 with FERRY_LMDB_NOSYNC in the C ABI)");

    int rc = prepare_dir(path, create, excl, read_only, err);
    if (rc) return rc;

    /* the stripes are cache-line aligned: so is the store */
    size_t bytes = (sizeof(lmdb_store) + 63) & ~(size_t)63;
    lmdb_store *s = plat_aligned_alloc(64, bytes);
    if (!s) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memset(s, 0, bytes);
    if (ferry_store_base_init(&s->base, &lmdb_ops, FERRY_ENGINE_LMDB, (uint32_t)max_dbs) != FERRY_OK) {
        plat_aligned_free(s);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    s->base.read_only = read_only;
    s->grow_step = read_only ? 0 : grow;
    s->writemap = (lflags & FERRY_LMDB_WRITEMAP) != 0;
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->pool_lock, NULL);
    atomic_init(&s->growing, 0);

    const char *step = "create environment";
    int mrc = mdb.mdb_env_create(&s->env);
    if (mrc == 0) { step = "set map size"; mrc = mdb.mdb_env_set_mapsize(s->env, (size_t)map_size); }
    /* one handle more than families: listing the families at open probes records of the default
     * family that may only look like one, and mdb_dbi_open reports a full table before it finds
     * that a record is not a database (Ferry enforces the family limit itself) */
    if (mrc == 0) { step = "set max dbs"; mrc = mdb.mdb_env_set_maxdbs(s->env, (MDB_dbi)max_dbs + 1); }
    if (mrc == 0) { step = "set max readers"; mrc = mdb.mdb_env_set_maxreaders(s->env, (unsigned int)max_readers); }
    if (mrc == 0) {
        step = "open environment";
        mrc = mdb.mdb_env_open(s->env, path, env_flags(lflags, ferry_opt(opts, FERRY_OPT_SYNC, -1), read_only), 0644);
    }
    if (mrc > 0 && plat_sys_errno(mrc) == ENOMEM && strcmp(step, "open environment") == 0) {
        /* the map is reserved as address space at open: a size the process cannot map */
        rc = ferry_fail(err, FERRY_EINVAL, mrc,
                        "cannot map %s: the map size of %lld bytes (mapSize, FERRY_OPT_MAP_SIZE) does not fit "
                        "in this process's address space (%s): choose a smaller map size", path,
                        (long long)map_size, lmdb_strerror(mrc));
    } else if (mrc) {
        rc = ferry_fail(err, map_rc(mrc), mrc, "%s %s: %s", step, path, lmdb_strerror(mrc));
    }
    if (mrc) {
        if (s->env) mdb.mdb_env_close(s->env);
        s->env = NULL;
        ferry_store_base_free(&s->base);
        pthread_mutex_destroy(&s->wlock);
        pthread_mutex_destroy(&s->pool_lock);
        plat_aligned_free(s);
        return rc;
    }
    s->max_key = (size_t)mdb.mdb_env_get_maxkeysize(s->env);
    MDB_stat est;
    if (mdb.mdb_env_stat(s->env, &est) == 0 && est.ms_psize >= 256 && (est.ms_psize & (est.ms_psize - 1)) == 0)
        s->psize = est.ms_psize;
    if ((rc = list_families(s, err)) != FERRY_OK) {
        lmdb_close(&s->base);
        return rc;
    }
    *out = &s->base;
    return FERRY_OK;
}
