/* LMDB engine: user write transactions and their savepoints (nested transactions). */
#include "engine.h"

/* ------------------------------------------------------------------ user write transactions */

#define LTXN(tb) ((lmdb_txn *)(tb))

/* The transaction ended in LMDB (committed, aborted or failed): grow the map when a write found it
 * full (auto-grow; nothing is open now, so the remap can run), then let other writers in. */
void lmdb_txn_release(lmdb_store *s, lmdb_txn *t)
{
    if (t->map_full && s->grow_step > 0) {
        ferry_error e;
        lmdb_grow_map(s, 0, &e);
    }
    s->txn = NULL;
    atomic_store(&s->abandoned, 0);
    atomic_store_explicit(&s->txn_active, 0, memory_order_release);
    pthread_mutex_unlock(&s->wlock);
}

int lmdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
{
    lmdb_store *ls = LS(s);
    lmdb_txn *t = calloc(1, sizeof *t);
    if (!t) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (lmdb_txn_mine(ls) && !atomic_load(&ls->abandoned)) {
        free(t);
        return ferry_fail(err, FERRY_EBUSY, 0, "this thread already holds an open write transaction on this LMDB store "
                          "(LMDB has one writer: commit or close it first)");
    }
    int rc = lmdb_wlock_acquire(ls, timeout_ms, err);
    if (rc) { free(t); return rc; }
    MDB_txn *txn = NULL;
    int mrc = MDB.mdb_txn_begin(ls->env, NULL, 0, &txn);
    if (mrc == MDB_MAP_RESIZED) { /* another process grew the map: adopt its size */
        rc = lmdb_remap(ls, 0, err);
        mrc = rc ? MDB_SUCCESS : MDB.mdb_txn_begin(ls->env, NULL, 0, &txn);
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

int lmdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst, size_t cap,
                        size_t *vlen_out, int for_update, ferry_error *err)
{
    MDB_val v;
    unsigned mark = lmdb_cmp_mark();
    int mrc = lmdb_get_one(LS(tb->view.store), LTXN(tb)->txn, DBI(cf), key, klen, &v);
    if (mrc == MDB_NOTFOUND) return lmdb_cmp_after(mark, FERRY_NOTFOUND, err);
    if (mrc) return lmdb_fail(err, mrc, "get");
    *vlen_out = v.mv_size;
    if (cap) memcpy(dst, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
    return lmdb_cmp_after(mark, FERRY_OK, err);
}

/* value_count through the write transaction (its writes included). No drop can run meanwhile: a
 * drop is a write, which waits for this transaction. */
int lmdb_txn_value_count(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, uint64_t *out,
                                ferry_error *err)
{
    *out = 0;
    if (klen == 0 || klen > LS(tb->view.store)->max_key) return FERRY_OK; /* LMDB holds no such key */
    MDB_txn *txn = LTXN(tb)->txn;
    MDB_cursor *cur;
    unsigned mark = lmdb_cmp_mark();
    int mrc = MDB.mdb_cursor_open(txn, DBI(cf), &cur);
    if (mrc == MDB_SUCCESS) mrc = lmdb_count_values(txn, DBI(cf), cur, key, klen, out);
    return lmdb_cmp_after(mark, (mrc == MDB_SUCCESS || mrc == MDB_NOTFOUND) ? FERRY_OK : lmdb_fail(err, mrc, "value count"),
                          err);
}

/* Records in the write transaction. Failures before anything was applied that LMDB takes in its
 * stride (a key LMDB cannot hold, a family's name as a key of the default family) leave the
 * transaction usable; any other failure, or one after a record of this call was applied, fails it
 * (LMDB cannot undo part of a transaction). */
int lmdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err)
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
    unsigned mark = lmdb_cmp_mark();   /* a failed comparison fails the transaction: it is never committed */
    for (i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(&s->base, r.cf);
        if ((rc = lmdb_family_live(slot, err)) != FERRY_OK) break;
        MDB_dbi dbi = DBI(slot);
        MDB_val k = { r.alen, (void *)r.a }, v = { r.blen, (void *)r.b };
        int mrc = MDB_SUCCESS;
        if (r.op == FERRY_OP_PUT) {
            /* as a store put: DUPSORT value sizes and DUPFIXED's one size per key are checked */
            char what[64];
            snprintf(what, sizeof what, count > 1 ? "batch record %u" : "write", i);
            if ((rc = lmdb_put_one(s, t->txn, dbi, &k, &v, 0, what, err)) != FERRY_OK) {
                if (rc == FERRY_EMAPFULL) t->map_full = 1;
                break;
            }
        } else if (r.op == FERRY_OP_DELETE) {
            mrc = MDB.mdb_del(t->txn, dbi, &k, NULL);
        } else if (r.op == FERRY_OP_DELETE_VALUE) {
            unsigned dbflags = 0;
            if ((mrc = MDB.mdb_dbi_flags(t->txn, dbi, &dbflags)) == MDB_SUCCESS && !(dbflags & MDB_DUPSORT)) {
                rc = ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: deleting one value of a key needs a DUPSORT "
                                "column family ('%s' is not one): delete the key", i, slot->name);
                break;
            }
            /* a value over the size limit was never stored */
            if (mrc == MDB_SUCCESS && r.blen <= s->max_key) mrc = MDB.mdb_del(t->txn, dbi, &k, &v);
        } else if ((rc = lmdb_range_delete(s, t->txn, slot, r.a, r.alen, r.b, r.blen, err)) != FERRY_OK) {
            break;
        }
        if (mrc && mrc != MDB_NOTFOUND) {
            if (mrc == MDB_MAP_FULL) t->map_full = 1;
            char what[64];
            snprintf(what, sizeof what, count > 1 ? "batch record %u" : "write", i);
            rc = lmdb_family_key_fail(s, dbi, mrc, what, &k, err);
            break;
        }
    }
    rc = lmdb_cmp_after(mark, rc, err);
    if (rc != FERRY_OK && (i > 0 || (rc != FERRY_EINVAL && rc != FERRY_ECFDROPPED && rc != FERRY_EKEYSIZE)))
        tb->state = FERRY_TXN_FAILED;
    if (rc == FERRY_EMAPFULL)
        ferry_fail(err, rc, MDB_MAP_FULL, "LMDB map full inside a write transaction: the transaction failed (close it)%s",
                   s->grow_step > 0 ? "; the map grows when it closes, so running it again can succeed"
                                    : "; raise StoreOptions.mapSize or enable StoreOptions.autoGrow");
    return rc;
}

int lmdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen, const void *upper,
                                size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    lmdb_cursor *c = calloc(1, sizeof *c + llen + ulen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int mrc = MDB.mdb_cursor_open(LTXN(tb)->txn, DBI(cf), &c->cur);
    if (mrc) { free(c); return lmdb_fail(err, mrc, "open cursor"); }
    c->dbi = DBI(cf);
    c->depth = LTXN(tb)->depth;
    lmdb_cursor_set_range(c, cf, lower, llen, upper, ulen, flags);
    c->walk = 0;   /* the transaction's dirty pages live outside the map: never walked */
    c->rc = MDB_NOTFOUND;
    c->base.store = tb->view.store;
    *out = &c->base;
    return FERRY_OK;
}

void lmdb_txn_cursor_kill(ferry_cursor *fc)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->cur) MDB.mdb_cursor_close(c->cur);
    c->cur = NULL;
}

int lmdb_txn_commit(ferry_txn *tb, ferry_error *err)
{
    lmdb_store *s = LS(tb->view.store);
    lmdb_txn *t = LTXN(tb);
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_seq_cst);
    int mrc = MDB.mdb_txn_commit(t->root);   /* ends the transaction (nested ones first), also when it fails */
    atomic_fetch_add_explicit(&s->commits, 1, memory_order_release);
    t->ended = 1;
    if (mrc == MDB_MAP_FULL) t->map_full = 1;
    lmdb_txn_release(s, t);
    return mrc ? lmdb_fail(err, mrc, "commit") : FERRY_OK;
}

void lmdb_txn_abandon(ferry_txn *tb)
{
    lmdb_store *s = LS(tb->view.store);
    if (s->txn == LTXN(tb) && !LTXN(tb)->ended) atomic_store(&s->abandoned, 1);
}

int lmdb_txn_close(ferry_txn *tb)
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
        lmdb_txn_end_locked(s, t);
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
        if (MDB.mdb_cursor_open(t->txn, c->dbi, &c->cur) != MDB_SUCCESS) {
            c->cur = NULL;
            fc->dead = 1;
        }
    }
}

/* Savepoints as nested write transactions (see ferry.h). */
int lmdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err)
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
        int mrc = MDB.mdb_txn_begin(s->env, t->txn, 0, &child);
        if (mrc) return lmdb_fail(err, mrc, "set savepoint (begin a nested transaction)");
        t->parents[t->depth++] = t->txn;
        t->txn = child;
        return FERRY_OK;
    }
    if (op == FERRY_SP_ROLLBACK) {
        MDB.mdb_txn_abort(t->txn);
        savepoint_ended(t);
        return FERRY_OK;
    }
    int mrc = MDB.mdb_txn_commit(t->txn);   /* into its parent; on failure LMDB aborted it */
    savepoint_ended(t);
    if (mrc == MDB_MAP_FULL) t->map_full = 1;
    if (mrc) {
        tb->state = FERRY_TXN_FAILED;
        return lmdb_fail(err, mrc, "pop savepoint (commit a nested transaction into its parent): the transaction "
                         "lost its writes since the savepoint and failed (close it)");
    }
    return FERRY_OK;
}
