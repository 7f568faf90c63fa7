/* LMDB engine: the write lock, write transactions with auto-grow, and the write operations. */
#include "engine.h"

/* Take wlock for a write. A write transaction open on this thread would make it wait for itself:
 * refused (FERRY_EBUSY), unless it was abandoned (closed on another thread), which is rolled back
 * here, on its thread. timeout_ms: -1 waits as long as it takes, 0 tries, > 0 waits that long.
 * While waiting, a transaction abandoned on another thread fails the wait (FERRY_EBUSY): only its
 * own thread can end it. */
int lmdb_wlock_acquire(lmdb_store *s, int64_t timeout_ms, ferry_error *err)
{
    if (lmdb_txn_mine(s)) {
        if (!atomic_load(&s->abandoned) || !atomic_load(&s->txn->released))
            return ferry_fail(err, FERRY_EBUSY, 0, "this thread holds an open write transaction on this LMDB store: "
                              "write through the transaction, or commit or close it first (LMDB has one writer; "
                              "waiting here would wait for itself)");
        lmdb_txn *t = s->txn;   /* abandoned: nobody else holds it; roll it back and free it here */
        lmdb_txn_end_locked(s, t);
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

/* Remap to new_size (0 = adopt the size on disk). Caller holds wlock. New read
 * transactions are held back meanwhile; short ones (gets) get LMDB_DRAIN_MS to finish.
 * Fails with FERRY_EMAPFULL when a read transaction of this store stays live. */
int lmdb_remap(lmdb_store *s, size_t new_size, ferry_error *err)
{
    atomic_store(&s->growing, 1);
    int live = lmdb_live_total(s);
    for (int64_t start = plat_now_ms(); live != 0 && plat_now_ms() - start < LMDB_DRAIN_MS;) {
        plat_sleep_us(250);
        live = lmdb_live_total(s);
    }
    if (live != 0) {
        atomic_store(&s->growing, 0);
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL,
                          "LMDB map full and auto-grow cannot remap while %d read transaction(s) "
                          "(snapshots, cursors) are open: close them and retry, or raise StoreOptions.mapSize", live);
    }
    lmdb_pool_drain(s);
    int rc = MDB.mdb_env_set_mapsize(s->env, new_size);
    atomic_store(&s->growing, 0);
    return rc ? lmdb_fail(err, rc, "grow LMDB map") : FERRY_OK;
}

/* Handle MDB_MAP_FULL: grow by step << attempt when auto-grow is on. Caller holds wlock. */
int lmdb_grow_map(lmdb_store *s, int attempt, ferry_error *err)
{
    MDB_envinfo info;
    MDB.mdb_env_info(s->env, &info);
    if (s->grow_step <= 0)
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL,
                          "LMDB map full (map size %zu bytes): raise StoreOptions.mapSize or enable "
                          "StoreOptions.autoGrow (FERRY_OPT_MAP_SIZE, FERRY_OPT_AUTO_GROW in the C ABI)",
                          info.me_mapsize);
    size_t inc = (size_t)s->grow_step << (attempt < LMDB_MAX_GROW_SHIFT ? attempt : LMDB_MAX_GROW_SHIFT);
    if (info.me_mapsize > SIZE_MAX - inc)
        return ferry_fail(err, FERRY_EMAPFULL, MDB_MAP_FULL, "LMDB map full: cannot grow past %zu bytes", info.me_mapsize);
    return lmdb_remap(s, info.me_mapsize + inc, err);
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
    return k->mv_size == strlen(LMDB_CMP_DB) && memcmp(k->mv_data, LMDB_CMP_DB, k->mv_size) == 0;   /* Ferry's own */
}

int lmdb_range_delete(lmdb_store *s, MDB_txn *txn, ferry_cf_slot *slot, const void *begin, size_t blen,
                        const void *end, size_t elen, ferry_error *err)
{
    /* begin >= end in the family's order (bytewise: an empty end included) is an empty range: nothing
     * to do. Past this check end is not empty, and an empty begin is the smallest key. */
    if (ferry_range_empty_slot(slot, begin, blen, end, elen)) return FERRY_OK;
    MDB_dbi dbi = DBI(slot);
    const ferry_cf_slot *order = lmdb_order_slot(slot);
    MDB_cursor *cur;
    unsigned dbflags = 0;
    int rc = MDB.mdb_dbi_flags(txn, dbi, &dbflags);
    if (rc) return lmdb_fail(err, rc, "delete_range: database flags");
    /* a DUPSORT key goes with all its values; MDB_NEXT then lands on the next key */
    unsigned delflags = (dbflags & MDB_DUPSORT) ? MDB_NODUPDATA : 0;
    rc = MDB.mdb_cursor_open(txn, dbi, &cur);
    if (rc) return lmdb_fail(err, rc, "delete_range: open cursor");
    MDB_val k = { blen, (void *)begin }, v;
    rc = MDB.mdb_cursor_get(cur, &k, &v, blen ? MDB_SET_RANGE : MDB_FIRST);
    while (rc == MDB_SUCCESS) {
        if ((order ? ferry_slot_cmp(order, k.mv_data, k.mv_size, end, elen) : lmdb_key_cmp(k.mv_data, k.mv_size, end, elen))
            >= 0)
            break;
        /* a named family's record: keep it (deleting it would fail and spoil the txn) */
        if (!is_family_record(s, dbi, &k, &v) && (rc = MDB.mdb_cursor_del(cur, delflags)) != MDB_SUCCESS) break;
        rc = MDB.mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
    MDB.mdb_cursor_close(cur);
    if (rc == MDB_SUCCESS || rc == MDB_NOTFOUND) return FERRY_OK;
    return lmdb_fail(err, rc, "delete_range");
}

/* A write to the default family failed with MDB_INCOMPATIBLE: the key is a named family's record
 * (LMDB keeps named databases as records of the main database, Ferry's default family). */
int lmdb_family_key_fail(lmdb_store *s, MDB_dbi dbi, int rc, const char *what, const MDB_val *k, ferry_error *err)
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
int lmdb_put_one(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, MDB_val *k, MDB_val *v, uint32_t flags,
                   const char *what, ferry_error *err)
{
    unsigned dbflags = 0;
    int rc = MDB.mdb_dbi_flags(txn, dbi, &dbflags);
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
        rc = MDB.mdb_get(txn, dbi, &k2, &first);
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
    rc = MDB.mdb_put(txn, dbi, k, v, mflags);
    if (rc == MDB_KEYEXIST && (flags & FERRY_WRITE_APPEND))
        return ferry_fail(err, FERRY_EINVAL, rc, dups ? "%s: append: the value does not sort after the key's last value"
                                                      : "%s: append: the key does not sort after the last key", what);
    if (rc == MDB_KEYEXIST)
        return ferry_fail(err, FERRY_EKEYEXIST, rc, (flags & FERRY_WRITE_NO_OVERWRITE) ? "%s: the key exists (noOverwrite)"
                                                    : "%s: the key and value exist (noDupData)", what);
    return rc ? lmdb_family_key_fail(s, dbi, rc, what, k, err) : FERRY_OK;
}

/* Write fn: one put. */
static int put_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = lmdb_family_live(p->slot, err);
    if (frc) return frc;
    MDB_val k = { p->alen, (void *)p->a }, v = { p->blen, (void *)p->b };
    return lmdb_put_one(s, txn, DBI(p->slot), &k, &v, p->flags, "put", err);
}

/* Write fn: one delete (a missing key is fine). */
static int del_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = lmdb_family_live(p->slot, err);
    if (frc) return frc;
    MDB_val k = { p->alen, (void *)p->a };
    int rc = MDB.mdb_del(txn, DBI(p->slot), &k, NULL);
    return (rc && rc != MDB_NOTFOUND) ? lmdb_family_key_fail(s, DBI(p->slot), rc, "delete", &k, err) : FERRY_OK;
}

/* Write fn: one range delete. */
static int range_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    put_ctx *p = ctx;
    int frc = lmdb_family_live(p->slot, err);
    if (frc) return frc;
    return lmdb_range_delete(s, txn, p->slot, p->a, p->alen, p->b, p->blen, err);
}

/* FERRY_WRITE_SYNC: the committed write is synced (the store may run with MDB_NOSYNC). */
static int sync_after(lmdb_store *s, int rc, uint32_t flags, ferry_error *err)
{
    if (rc != FERRY_OK || !(flags & FERRY_WRITE_SYNC)) return rc;
    int mrc = MDB.mdb_env_sync(s->env, 1);
    return mrc ? lmdb_fail(err, mrc, "sync") : FERRY_OK;
}

/* put with FERRY_WRITE_* flags: key checked here, then one write transaction. */
int lmdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                    size_t vlen, uint32_t flags, ferry_error *err)
{
    int rc = lmdb_check_key(LS(s), klen, err);
    if (rc) return rc;
    put_ctx p = { cf, key, val, klen, vlen, flags };
    return sync_after(LS(s), lmdb_with_write_txn(LS(s), put_fn, &p, err), flags, err);
}

/* delete: a missing key is not an error. */
int lmdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err)
{
    int rc = lmdb_check_key(LS(s), klen, err);
    if (rc) return rc;
    put_ctx p = { cf, key, NULL, klen, 0, 0 };
    return lmdb_with_write_txn(LS(s), del_fn, &p, err);
}

/* delete_range: [begin, end) in one write transaction. */
int lmdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                             const void *end, size_t elen, ferry_error *err)
{
    put_ctx p = { cf, begin, end, blen, elen, 0 };
    return lmdb_with_write_txn(LS(s), range_fn, &p, err);
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
            int frc = lmdb_put_one(s, txn, dbi, &k, &v, b->flags, what, err);
            if (frc) return frc;
        } else if (r.op == FERRY_OP_DELETE) {
            rc = MDB.mdb_del(txn, dbi, &k, NULL);
        } else if (r.op == FERRY_OP_DELETE_VALUE) {
            unsigned dbflags = 0;
            if ((rc = MDB.mdb_dbi_flags(txn, dbi, &dbflags)) != MDB_SUCCESS) return lmdb_fail(err, rc, "database flags");
            if (!(dbflags & MDB_DUPSORT))
                return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: deleting one value of a key needs a DUPSORT "
                                  "column family ('%s' is not one): delete the key", i, slot->name);
            /* a value over the size limit was never stored */
            if (r.blen <= s->max_key) rc = MDB.mdb_del(txn, dbi, &k, &v);
        } else {
            int frc = lmdb_range_delete(s, txn, slot, r.a, r.alen, r.b, r.blen, err);
            if (frc) return frc;
        }
        if (rc && rc != MDB_NOTFOUND) {
            char what[64];
            snprintf(what, sizeof what, "batch record %u", i);
            return lmdb_family_key_fail(s, dbi, rc, what, &k, err);
        }
    }
    return FERRY_OK;
}

/* write with FERRY_WRITE_* flags: key sizes checked up front, then every record in one transaction. */
int lmdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
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
    return sync_after(LS(s), lmdb_with_write_txn(LS(s), batch_fn, &b, err), flags, err);
}
