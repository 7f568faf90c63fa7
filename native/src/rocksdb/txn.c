/* RocksDB engine: transactions (TransactionDB, OptimisticTransactionDB) and savepoints. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Transactions                                                        */

#define TXN(tb) ((rdb_txn *)(tb))

/* A RocksDB error inside a transaction: Busy is a conflict (or, with the Deadlock subcode, a
 * deadlock), TryAgain an optimistic commit that could not check for conflicts (retryable too);
 * the rest as rdb_error (a lock wait over its timeout is TimedOut: FERRY_ETIMEDOUT). */
static int txn_error(ferry_error *err, char *e)
{
    int conflict = e && strncmp(e, "Resource busy", 13) == 0;
    int again = e && strncmp(e, "Operation failed. Try again", 27) == 0;
    if (!conflict && !again) return rdb_error(err, e);
    int code = conflict && strstr(e, "Deadlock") ? FERRY_EDEADLOCK : FERRY_ECONFLICT;
    ferry_fail(err, code, conflict ? 11 : 13, "%s", e);
    RDB.free(e);
    return code;
}

int rdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
{
    rdb_store *rs = STORE(s);
    if (!rs->txn_mode)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "this RocksDB store was opened without transactions: open it with "
                          "StoreOptions.transactions(PESSIMISTIC or OPTIMISTIC) (FERRY_OPT_TRANSACTIONS)");
    rdb_txn *t = calloc(1, sizeof *t);
    if (!t) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    t->ropts = RDB.readoptions_create();
    if (rs->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        rocksdb_transaction_options_t *to = RDB.transaction_options_create();
        RDB.transaction_options_set_deadlock_detect(to, 1);
        if (timeout_ms >= 0) RDB.transaction_options_set_lock_timeout(to, timeout_ms);
        t->t = RDB.transaction_begin(rs->txndb, rs->wopts, to, NULL);
        RDB.transaction_options_destroy(to);
    } else {
        rocksdb_optimistictransaction_options_t *to = RDB.optimistictransaction_options_create();
        t->t = RDB.optimistictransaction_begin(rs->txndb, rs->wopts, to, NULL);
        RDB.optimistictransaction_options_destroy(to);
    }
    if (!t->t) {
        RDB.readoptions_destroy(t->ropts);
        free(t);
        return ferry_fail(err, FERRY_ENOMEM, 0, "cannot begin a transaction");
    }
    t->base.view.cf_limit = UINT32_MAX;   /* families created later are read as they are now */
    *out = &t->base;
    return FERRY_OK;
}

static int txn_get_in(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst, size_t cap,
                       size_t *vlen_out, int for_update, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    char *e = NULL;
    if (!for_update) {
        rocksdb_pinnableslice_t *v = RDB.transaction_get_pinned_cf(t->t, t->ropts, CFH(cf), key, klen, &e);
        if (e) return txn_error(err, e);
        if (!v) return FERRY_NOTFOUND;
        size_t vlen;
        const char *val = RDB.pinnableslice_value(v, &vlen);
        const rdb_ttl *ttl = rdb_slot_ttl(tb->view.store, cf);
        if (ttl && rdb_ttl_expired_at(ttl, val, vlen, rdb_ttl_now(ttl))) {
            RDB.pinnableslice_destroy(v);
            return FERRY_NOTFOUND;
        }
        if (cap) memcpy(dst, val, vlen < cap ? vlen : cap);
        *vlen_out = vlen;
        RDB.pinnableslice_destroy(v);
        return FERRY_OK;
    }
    /* a lock in a family's lock map: the family must stay live meanwhile (see drop_lock) */
    int rc = rdb_write_enter(tb->view.store, cf, err);
    if (rc) return rc;
    size_t vlen = 0;
    char *v = RDB.transaction_get_for_update_cf(t->t, t->ropts, CFH(cf), key, klen, &vlen, 1, &e);
    rdb_write_exit(tb->view.store);
    if (e) return txn_error(err, e);
    if (!v) return FERRY_NOTFOUND;
    const rdb_ttl *ttl = rdb_slot_ttl(tb->view.store, cf);
    if (ttl && rdb_ttl_expired_at(ttl, v, vlen, rdb_ttl_now(ttl))) { /* locked all the same, as for a missing key */
        RDB.free(v);
        return FERRY_NOTFOUND;
    }
    if (cap) memcpy(dst, v, vlen < cap ? vlen : cap);
    *vlen_out = vlen;
    RDB.free(v);
    return FERRY_OK;
}

/* rdb_txn_get: through rdb_cmp_after (a comparator of the binding's language may fail during it). */
int rdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst,
                size_t cap, size_t *vlen_out, int for_update, ferry_error *err)
{
    return rdb_cmp_after(txn_get_in(tb, cf, key, klen, dst, cap, vlen_out, for_update, err), err);
}

/* Remember that the transaction wrote family id (its commit checks the family is still live). */
static int txn_touch(rdb_txn *t, uint32_t id)
{
    for (uint32_t i = 0; i < t->ncfs; i++)
        if (t->cfs[i] == id) return FERRY_OK;
    if (t->ncfs == t->capcfs) {
        uint32_t cap = t->capcfs ? t->capcfs * 2 : 4;
        uint32_t *n = realloc(t->cfs, cap * sizeof *n);
        if (!n) return FERRY_ENOMEM;
        t->cfs = n;
        t->capcfs = cap;
    }
    t->cfs[t->ncfs++] = id;
    return FERRY_OK;
}

/* Set a RocksDB savepoint and push its entry (live: 1); non-zero when out of memory (nothing set). */
static int sp_push(rdb_txn *t, uint8_t live)
{
    if (t->nsps == t->capsps) {
        uint32_t cap = t->capsps ? t->capsps * 2 : 8;
        uint8_t *n = realloc(t->sps, cap);
        if (!n) return FERRY_ENOMEM;
        t->sps = n;
        t->capsps = cap;
    }
    RDB.transaction_set_savepoint(t->t);
    t->sps[t->nsps++] = live;
    return FERRY_OK;
}

static int txn_write_in(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    ferry_store *s = tb->view.store;
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        if (r.op == FERRY_OP_DELETE_RANGE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: RocksDB transactions have no range delete "
                              "(delete the keys one by one, or use Store.deleteRange outside the transaction)", i);
        if (r.op == FERRY_OP_DELETE_VALUE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: deleting one value of a key needs an LMDB "
                              "DUPSORT column family: RocksDB keeps one value per key (delete the key)", i);
        if (r.op == FERRY_OP_MERGE && !rdb_family_has_merge(s, ferry_slot(s, r.cf))) return rdb_no_merge_operator(err);
        if (r.op == FERRY_OP_MERGE && !RDB.transaction_merge_cf)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: %s has no merge inside transactions "
                              "(rocksdb_transaction_merge_cf)", i, rdb_lib_path);
    }
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    int rc = FERRY_OK;
    p = ops;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(s, r.cf);
        if (atomic_load(&slot->dropped)) {
            rc = ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", i, slot->name);
            break;
        }
        if (txn_touch(t, r.cf)) { rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory"); break; }
    }
    /* a batch of several records gets a savepoint of its own, left popped (0) once applied */
    if (!rc && count > 1 && sp_push(t, 0)) rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (rc) {
        pthread_rwlock_unlock(&STORE(s)->drop_lock);
        return rc;
    }
    p = ops;
    char *e = NULL;
    while (!e && ferry_batch_next(&p, end, &r)) {
        rocksdb_column_family_handle_t *cf = ferry_slot(s, r.cf)->handle;
        if (r.op == FERRY_OP_PUT) RDB.transaction_put_cf(t->t, cf, (const char *)r.a, r.alen, (const char *)r.b, r.blen, &e);
        else if (r.op == FERRY_OP_MERGE)
            RDB.transaction_merge_cf(t->t, cf, (const char *)r.a, r.alen, (const char *)r.b, r.blen, &e);
        else RDB.transaction_delete_cf(t->t, cf, (const char *)r.a, r.alen, &e);
    }
    if (e) {
        rc = txn_error(err, e);
        if (count > 1) {   /* undo the records this call applied: the batch is all or nothing */
            char *e2 = NULL;
            RDB.transaction_rollback_to_savepoint(t->t, &e2);
            t->nsps--;
            if (e2) {
                RDB.free(e2);
                tb->state = FERRY_TXN_FAILED;
            }
        }
    }
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return rc;
}

/* rdb_txn_write: through rdb_cmp_after (a comparator of the binding's language may fail during it). */
int rdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err)
{
    return rdb_cmp_after(txn_write_in(tb, ops, len, count, err), err);
}

int rdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen, const void *upper,
                               size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    int rc = rdb_cursor_create_in(tb->view.store, NULL, TXN(tb)->t, CFH(cf), NULL, lower, llen, upper, ulen, flags,
                                  STORE(tb->view.store)->readahead, out, err);
    if (rc == FERRY_OK) {
        ((rdb_cursor *)*out)->order = cf;
        ((rdb_cursor *)*out)->ttl = rdb_slot_ttl(tb->view.store, cf);
    }
    return rc;
}

void rdb_txn_cursor_kill(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (c->it) RDB.iter_destroy(c->it);
    c->it = NULL;
}

/* Savepoints (see rdb_txn.sps). A rollback rolls RocksDB back over the popped entries on top, then
 * the live one; a pop marks the live one on top popped. */
int rdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    if (op == FERRY_SP_SET) return sp_push(t, 1) ? ferry_fail(err, FERRY_ENOMEM, 0, "out of memory") : FERRY_OK;
    if (op == FERRY_SP_POP) {
        uint32_t i = t->nsps;
        while (i > 0 && !t->sps[i - 1]) i--;
        if (i > 0) t->sps[i - 1] = 0;   /* ferry.c counted a live one: always found */
        return FERRY_OK;
    }
    while (t->nsps > 0) {
        int live = t->sps[--t->nsps];
        char *e = NULL;
        RDB.transaction_rollback_to_savepoint(t->t, &e);
        if (e) {
            tb->state = FERRY_TXN_FAILED;
            return txn_error(err, e);
        }
        if (live) break;
    }
    return FERRY_OK;
}

/* Commit under drop_lock, after checking no family the transaction wrote was dropped: RocksDB would
 * fail that write after its WAL write and then refuse every later one (see drop_lock). */
static int txn_commit_in(ferry_txn *tb, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    ferry_store *s = tb->view.store;
    char *e = NULL;
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    for (uint32_t i = 0; i < t->ncfs; i++) {
        ferry_cf_slot *slot = ferry_slot(s, t->cfs[i]);
        if (atomic_load(&slot->dropped)) {
            RDB.transaction_rollback(t->t, &e);
            if (e) RDB.free(e);
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped: the transaction wrote it, "
                              "nothing was committed", slot->name);
        }
    }
    RDB.transaction_commit(t->t, &e);
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return e ? txn_error(err, e) : FERRY_OK;
}

/* rdb_txn_commit: through rdb_cmp_after (a comparator of the binding's language may fail during it). */
int rdb_txn_commit(ferry_txn *tb, ferry_error *err)
{
    return rdb_cmp_after(txn_commit_in(tb, err), err);
}

int rdb_txn_close(ferry_txn *tb)
{
    rdb_txn *t = TXN(tb);
    RDB.transaction_destroy(t->t);   /* rolls back what was not committed */
    RDB.readoptions_destroy(t->ropts);
    free(t->cfs);
    free(t->sps);
    pthread_mutex_destroy(&tb->lock);
    free(t);
    return FERRY_OK;
}
