/* LMDB engine: read transactions (per-stripe reuse, the pool, the commit-step check). */
#include "engine.h"

/* Abort every kept (reset) transaction: the stripes' and the shared pool's. */
void lmdb_pool_drain(lmdb_store *s)
{
    for (int i = 0; i < LMDB_STRIPES; i++) {
        MDB_txn *t = atomic_exchange(&s->stripes[i].txn, NULL);
        if (t) MDB.mdb_txn_abort(t);
    }
    pthread_mutex_lock(&s->pool_lock);
    int n = s->npool;
    MDB_txn *txns[LMDB_POOL_CAP];
    memcpy(txns, s->pool, sizeof(MDB_txn *) * (size_t)n);
    s->npool = 0;
    pthread_mutex_unlock(&s->pool_lock);
    for (int i = 0; i < n; i++) MDB.mdb_txn_abort(txns[i]);
}

/* Start a read transaction: renew *txn when there is one (aborting it when that fails), else
 * begin a new one, freeing the kept transactions' reader slots when the table is full. */
static int read_start(lmdb_store *s, MDB_txn **txn)
{
    if (*txn) {
        if (MDB.mdb_txn_renew(*txn) == MDB_SUCCESS) return MDB_SUCCESS;
        MDB.mdb_txn_abort(*txn);
        *txn = NULL;
    }
    int rc = MDB.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    if (rc == MDB_READERS_FULL) { /* pooled transactions hold reader slots: free them */
        lmdb_pool_drain(s);
        rc = MDB.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    }
    if (rc != MDB_SUCCESS) *txn = NULL;
    return rc;
}

/* The rest of read_acquire_on, counted live on st already: txn is NULL or a reset transaction to
 * renew; attempt counts the begins tried so far. */
__attribute__((noinline)) int lmdb_read_begin_slow(lmdb_store *s, lmdb_stripe *st, MDB_txn *txn, int attempt,
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
        int locked = attempt >= LMDB_BEGIN_TRIES && !lmdb_txn_mine(s);
        if (locked) pthread_mutex_lock(&s->wlock);
        unsigned long long before = atomic_load_explicit(&s->commits, memory_order_acquire);
        rc = read_start(s, &txn);
        atomic_thread_fence(memory_order_acquire);
        unsigned long long after = atomic_load_explicit(&s->commits, memory_order_relaxed);
        if (locked) pthread_mutex_unlock(&s->wlock);
        if (rc != MDB_SUCCESS || after - before <= 1) break;
        MDB.mdb_txn_reset(txn); /* renewed on the next attempt */
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
__attribute__((noinline)) void lmdb_read_keep_slow(lmdb_store *s, MDB_txn *txn)
{
    pthread_mutex_lock(&s->pool_lock);
    int pooled = s->npool < LMDB_POOL_CAP;
    if (pooled) s->pool[s->npool++] = txn;
    pthread_mutex_unlock(&s->pool_lock);
    if (!pooled) MDB.mdb_txn_abort(txn);
}
