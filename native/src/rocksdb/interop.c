/* RocksDB engine: RocksJava interop, the same cores over RocksJava's own objects. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* RocksJava interop: the same cores over RocksJava's objects          */

/* Owner of interop cursors: carries the engine's vtable (cursor_fill/close touch no store
 * state), so ferry_cursor_fill/close dispatch as for store cursors. Never handed out. */
static ferry_store rj_owner = { .ops = &rdb_ops, .engine = FERRY_ENGINE_ROCKSDB };

/* Shells around RocksJava's pointers, valid for one call. */
#define RJ_SHELLS(db, cf) \
    rdb_db_shell dbs_ = { (db) }; \
    rdb_cf_shell cfs_ = { (cf), 0 }; \
    rocksdb_t *rdb_ = (rocksdb_t *)&dbs_; \
    rocksdb_column_family_handle_t *rcf_ = (rocksdb_column_family_handle_t *)&cfs_

/* Read options for one interop read: the shared defaults, or fresh ones at a snapshot. */
static rocksdb_readoptions_t *rj_read_opts(const void *snapshot)
{
    if (!snapshot) return rdb_rj_ropts;
    rdb_snapshot_shell sn = { snapshot };
    rocksdb_readoptions_t *ro = RDB.readoptions_create();
    RDB.readoptions_set_snapshot(ro, (const rocksdb_snapshot_t *)&sn);   /* copies sn.rep */
    return ro;
}

static void rj_read_done(rocksdb_readoptions_t *ro)
{
    if (ro != rdb_rj_ropts) RDB.readoptions_destroy(ro);
}

int ferry_rocksdb_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
                                 const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
                                 ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rdb_snapshot_shell sn = { snapshot };
    /* copy pages: whether a RocksJava family has a merge operator (whose results an iterator
     * hands out of its own buffer) cannot be read from its handles */
    flags &= ~(uint32_t)FERRY_CURSOR_POINTERS;
    return rdb_cursor_create(&rj_owner, rdb_, rcf_, snapshot ? (const rocksdb_snapshot_t *)&sn : NULL, lower, llen,
                         upper, ulen, flags, 0, out, err);
}

int ferry_rocksdb_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err)
{
    RJ_READY(err);
    rdb_cursor *c = calloc(1, sizeof *c);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    c->base.store = &rj_owner;
    c->borrowed.rep = iterator;
    c->it = (rocksdb_iterator_t *)&c->borrowed;
    *out = &c->base;
    return FERRY_OK;
}

int ferry_rocksdb_rj_cursor_owned(const ferry_cursor *c)
{
    return c->store == &rj_owner;
}

/* c is an interop cursor (ferry_rocksdb_rj_cursor_owned; rocksjava.c closes the others). */
int ferry_rocksdb_rj_cursor_forget(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (c->ropts) RDB.readoptions_destroy(c->ropts);   /* the iterator (leaked) is never used again */
    free(c);
    return FERRY_OK;
}

int ferry_rocksdb_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst,
                         size_t cap, size_t *vlen_out, ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rocksdb_readoptions_t *ro = rj_read_opts(snapshot);
    int rc = rdb_get_core(NULL, rdb_, ro, rcf_, key, klen, dst, cap, vlen_out, err);
    rj_read_done(ro);
    return rc;
}

int ferry_rocksdb_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
                               size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rocksdb_readoptions_t *ro = rj_read_opts(snapshot);
    int rc = rdb_multi_get_core(NULL, rdb_, ro, rcf_, n, keys, dst, cap, lens_out, err);
    rj_read_done(ro);
    return rc;
}

int ferry_rocksdb_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
                         ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    return rdb_put_core(rdb_, rdb_rj_wopts, rcf_, key, klen, val, vlen, err);
}

/* Interop batch families: one shell re-pointed per record (the C API reads it during the call). */
typedef struct rj_families {
    void *const *cfs;
    rdb_cf_shell shell;
} rj_families;

static rocksdb_column_family_handle_t *rj_cf_of(void *ctx, uint32_t id, const ferry_cf_slot **slot)
{
    (void)slot; /* Ferry cannot see a RocksJava family's comparator: bytewise assumed (see ferry_rj_write) */
    rj_families *f = ctx;
    f->shell.rep = f->cfs[id];
    return (rocksdb_column_family_handle_t *)&f->shell;
}

int ferry_rocksdb_rj_write(void *db, void *const *cfs, const void *ops, size_t len, ferry_error *err)
{
    RJ_READY(err);
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++)
        if (r.op == FERRY_OP_MERGE)
            return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: merge records are not accepted on a RocksJava "
                              "database (Ferry cannot see whether it has a merge operator): use RocksJava's merge", i);
    rdb_db_shell dbs = { db };
    rj_families f = { cfs, { NULL, 0 } };   /* record ids were checked against the array's length */
    return rdb_write_core((rocksdb_t *)&dbs, rdb_rj_wopts, ops, len, rj_cf_of, &f, err);
}
