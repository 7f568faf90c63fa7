/* RocksDB engine: writes (put, merge, delete, range delete, batches). */
#include "engine.h"

/* Write options for FERRY_WRITE_SYNC / NO_WAL (ferry.c refused the LMDB-only flags): the store's
 * own when neither is set, else a copy made for this call (release with wopts_release). */
static rocksdb_writeoptions_t *wopts_for(ferry_store *s, uint32_t flags)
{
    if (!(flags & (FERRY_WRITE_SYNC | FERRY_WRITE_NO_WAL))) return STORE(s)->wopts;
    rocksdb_writeoptions_t *wo = RDB.writeoptions_create();
    if (!wo) return NULL;
    RDB.writeoptions_disable_WAL(wo, (flags & FERRY_WRITE_NO_WAL) || STORE(s)->wal_off);
    RDB.writeoptions_set_sync(wo, (flags & FERRY_WRITE_SYNC) || STORE(s)->sync_on);
    return wo;
}

static void wopts_release(ferry_store *s, rocksdb_writeoptions_t *wo)
{
    if (wo && wo != STORE(s)->wopts) RDB.writeoptions_destroy(wo);
}

/* Store put: the store's write options, or with FERRY_WRITE_SYNC / NO_WAL options made for this call. */
int rdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                   size_t vlen, uint32_t flags, ferry_error *err)
{
    if (!flags) {
        int rc = rdb_write_enter(s, cf, err);
        if (rc) return rc;
        rc = rdb_put_core(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, val, vlen, err);
        rdb_write_exit(s);
        return rdb_cmp_after(rc, err);
    }
    rocksdb_writeoptions_t *wo = wopts_for(s, flags);
    if (!wo) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = rdb_write_enter(s, cf, err);
    if (rc == FERRY_OK) {
        rc = rdb_put_core(STORE(s)->db, wo, CFH(cf), key, klen, val, vlen, err);
        rdb_write_exit(s);
    }
    wopts_release(s, wo);
    return rdb_cmp_after(rc, err);
}

/* Merge one operand into a key. */
int rdb_merge(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *operand,
                     size_t olen, ferry_error *err)
{
    if (!rdb_family_has_merge(s, cf)) return rdb_no_merge_operator(err);
    int rc = rdb_write_enter(s, cf, err);
    if (rc) return rc;
    char *e = NULL;
    RDB.merge_cf(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, operand, olen, &e);
    rdb_write_exit(s);
    return rdb_cmp_after(e ? rdb_error(err, e) : FERRY_OK, err);
}

/* Delete one key. */
int rdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err)
{
    int rc = rdb_write_enter(s, cf, err);
    if (rc) return rc;
    char *e = NULL;
    RDB.delete_cf(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, &e);
    rdb_write_exit(s);
    return rdb_cmp_after(e ? rdb_error(err, e) : FERRY_OK, err);
}

/* The database range deletes go to: the store's, or on a store with transactions the base database
 * under it (TransactionDB and OptimisticTransactionDB refuse range deletes; applied to the base
 * database they bypass the transactions' key locks, as documented). NULL (FERRY_ENOTSUP recorded)
 * when the RocksDB library cannot reach the base database. */
static rocksdb_t *range_db(rdb_store *s, ferry_error *err)
{
    if (!s->txn_mode) return s->db;
    if (!s->base_db)
        ferry_fail(err, FERRY_ENOTSUP, 0, "range deletes on a RocksDB store opened with transactions need "
                   "rocksdb_transactiondb_get_base_db, which %s lacks (rocksdbjni 11.8.1 has it; 7.9.2 does not)", rdb_lib_path);
    return s->base_db;
}

/* Delete [begin, end); ferry.c has already turned an empty range into a no-op. */
int rdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                            const void *end, size_t elen, ferry_error *err)
{
    rocksdb_t *db = range_db(STORE(s), err);
    if (!db) return FERRY_ENOTSUP;
    int rc = rdb_write_enter(s, cf, err);
    if (rc) return rc;
    atomic_fetch_or(&cf->bits, RDB_SLOT_RANGE_DEL);
    char *e = NULL;
    RDB.delete_range_cf(db, STORE(s)->wopts, CFH(cf), begin, blen, end, elen, &e);
    rdb_write_exit(s);
    return rdb_cmp_after(e ? rdb_error(err, e) : FERRY_OK, err);
}

/* A store's family handle by id (ctx: the store). */
static rocksdb_column_family_handle_t *store_cf_of(void *ctx, uint32_t id, const ferry_cf_slot **slot)
{
    *slot = ferry_slot(ctx, id);
    return ferry_slot(ctx, id)->handle;
}

/* Store batch write, write options as for rdb_put: every family it names must still be live under
 * drop_lock. */
int rdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags, ferry_error *err)
{
    (void)count;
    rocksdb_writeoptions_t *wo = wopts_for(s, flags);
    if (!wo) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(s, r.cf);
        if (r.op == FERRY_OP_MERGE && !rdb_family_has_merge(s, slot)) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return rdb_no_merge_operator(err);
        }
        if (atomic_load(&slot->dropped)) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", i, slot->name);
        }
        if (r.op == FERRY_OP_DELETE_RANGE) atomic_fetch_or(&slot->bits, RDB_SLOT_RANGE_DEL);
    }
    rocksdb_t *db = STORE(s)->db;
    if (STORE(s)->txn_mode) {   /* a batch with a range delete goes to the base database (see range_db) */
        int ranges = 0;
        p = ops;
        while (!ranges && ferry_batch_next(&p, end, &r)) ranges = r.op == FERRY_OP_DELETE_RANGE;
        if (ranges && !(db = range_db(STORE(s), err))) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return FERRY_ENOTSUP;
        }
    }
    int rc = rdb_write_core(db, wo, ops, len, store_cf_of, s, err);
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    wopts_release(s, wo);
    return rdb_cmp_after(rc, err);
}

/* Flush the family's memtables and wait. */
int rdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    char *e = NULL;
    RDB.flush_cf(STORE(s)->db, STORE(s)->fopts, CFH(cf), &e);
    return rdb_cmp_after(e ? rdb_error(err, e) : FERRY_OK, err);
}

/* Compact [begin, end); NULL bounds are open. */
int rdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                             const void *end, size_t elen, ferry_error *err)
{
    RDB.compact_range_cf(STORE(s)->db, CFH(cf), begin, begin ? blen : 0, end, end ? elen : 0);
    return rdb_cmp_after(FERRY_OK, err);
}
