/* LMDB engine: snapshots, point reads, and maintenance calls (flush, compaction, properties). */
#include "engine.h"

/* ------------------------------------------------------------------ snapshots and reads */

int lmdb_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
{
    lmdb_snapshot *snap = malloc(sizeof *snap);
    if (!snap) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = lmdb_read_acquire(LS(s), &snap->txn, err);
    if (rc) { free(snap); return rc; }
    snap->base.store = s;
    snap->base.txn = NULL;
    *out = &snap->base;
    return FERRY_OK;
}

/* snapshot_close: the read transaction goes back to the pool. */
int lmdb_snapshot_close(ferry_snapshot *snap)
{
    lmdb_snapshot *ls = (lmdb_snapshot *)snap;
    lmdb_read_release(LS(snap->store), ls->txn);
    free(ls);
    return FERRY_OK;
}

/* get: copies min(vlen, cap) bytes, reports the full length. Without a snapshot, the thread's
 * stripe is looked up once for the read transaction's acquire and release and the named-family
 * count. */
int lmdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                    uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    (void)flags;   /* no block cache, no checksums */
    lmdb_store *ls = LS(s);
    lmdb_stripe *st = NULL;
    unsigned mark = lmdb_cmp_mark();
    MDB_txn *txn;
    int rc;
    if (snap) {
        txn = ((lmdb_snapshot *)snap)->txn;
    } else {
        st = lmdb_stripe_of(ls);
        rc = lmdb_read_acquire_on(ls, st, &txn, err);
        if (rc) return rc;
    }
    MDB_val v;
    int mrc;
    if (lmdb_is_default_cf(ls, cf)) {   /* never dropped: no name look-up to guard */
        mrc = lmdb_get_one(ls, txn, DBI(cf), key, klen, &v);
    } else {
        lmdb_stripe *names = lmdb_names_enter_on(ls, st ? st : lmdb_stripe_of(ls), cf);
        mrc = lmdb_get_one(ls, txn, DBI(cf), key, klen, &v);
        lmdb_names_exit(names);
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
    int drc = lmdb_dropped_since(cf, err);
    if (st) lmdb_read_release_on(ls, st, txn);
    return lmdb_cmp_after(mark, drc ? drc : rc, err);
}

/* multi_get: one read view for all keys; stops at the first value that does not fit. */
/* Values of key through cur (a cursor of dbi in txn, closed here): MDB_SET then mdb_cursor_count in
 * a DUPSORT family, 1 for a present key otherwise; *out is left alone unless it succeeds. Returns
 * the LMDB code (MDB_NOTFOUND: absent). */
int lmdb_count_values(MDB_txn *txn, MDB_dbi dbi, MDB_cursor *cur, const void *key, size_t klen, uint64_t *out)
{
    unsigned dbflags = 0;
    MDB_val k = { klen, (void *)key }, v;
    int mrc = MDB.mdb_dbi_flags(txn, dbi, &dbflags);
    if (mrc == MDB_SUCCESS) mrc = MDB.mdb_cursor_get(cur, &k, &v, MDB_SET);
    size_t n = 1;
    if (mrc == MDB_SUCCESS && (dbflags & MDB_DUPSORT)) mrc = MDB.mdb_cursor_count(cur, &n);
    if (mrc == MDB_SUCCESS) *out = n;
    MDB.mdb_cursor_close(cur);
    return mrc;
}

/* value_count: count_values in a read transaction (the snapshot's or one of its own). */
int lmdb_value_count(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                            uint64_t *out, ferry_error *err)
{
    *out = 0;
    if (klen == 0 || klen > LS(s)->max_key) return FERRY_OK; /* LMDB holds no such key */
    MDB_txn *txn, *own;
    unsigned mark = lmdb_cmp_mark();
    int rc = lmdb_read_txn(LS(s), snap, &txn, &own, err);
    if (rc) return rc;
    lmdb_stripe *names = lmdb_names_enter(LS(s), cf);
    MDB_cursor *cur;
    int mrc = MDB.mdb_cursor_open(txn, DBI(cf), &cur);
    lmdb_names_exit(names);
    if (mrc == MDB_SUCCESS) mrc = lmdb_count_values(txn, DBI(cf), cur, key, klen, out);
    rc = (mrc == MDB_SUCCESS || mrc == MDB_NOTFOUND) ? FERRY_OK : lmdb_fail(err, mrc, "value count");
    int drc = lmdb_dropped_since(cf, err);
    if (own) lmdb_read_release(LS(s), own);
    if (drc) *out = 0;
    return lmdb_cmp_after(mark, drc ? drc : rc, err);
}

int lmdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n, const void *keys,
                          uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    (void)flags;   /* as lmdb_get */
    MDB_txn *txn, *own;
    unsigned mark = lmdb_cmp_mark();
    int rc = lmdb_read_txn(LS(s), snap, &txn, &own, err);
    if (rc) return rc;
    const uint8_t *p = keys;
    uint8_t *out = dst;
    size_t used = 0;
    uint32_t i;
    lmdb_stripe *names = lmdb_names_enter(LS(s), cf);
    for (i = 0; i < n; i++) {
        uint32_t kl;
        memcpy(&kl, p, 4);
        MDB_val v;
        int mrc = lmdb_get_one(LS(s), txn, DBI(cf), p + 4, kl, &v);
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
    lmdb_names_exit(names);
    int drc = lmdb_dropped_since(cf, err);
    if (own) lmdb_read_release(LS(s), own);
    return lmdb_cmp_after(mark, drc ? drc : rc ? rc : (int)i, err);
}

/* ------------------------------------------------------------------ maintenance */

int lmdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    if (s->read_only) return FERRY_OK; /* nothing written, nothing to sync */
    int rc = MDB.mdb_env_sync(LS(s)->env, 1);
    return rc ? lmdb_fail(err, rc, "sync") : FERRY_OK;
}

/* LMDB has no compaction: pages are reused in place. */
int lmdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                              const void *end, size_t elen, ferry_error *err)
{
    return FERRY_OK;
}

/* mdb_stat of one family in a fresh read view. */
static int family_stat(lmdb_store *s, ferry_cf_slot *cf, MDB_stat *st, ferry_error *err)
{
    MDB_txn *txn;
    int rc = lmdb_read_acquire(s, &txn, err);
    if (rc) return rc;
    lmdb_stripe *names = lmdb_names_enter(s, cf);
    int mrc = MDB.mdb_stat(txn, DBI(cf), st);
    lmdb_names_exit(names);
    int drc = lmdb_dropped_since(cf, err);
    lmdb_read_release(s, txn);
    return drc ? drc : mrc ? lmdb_fail(err, mrc, "stat") : FERRY_OK;
}

/* property: "lmdb.stat" (this family) and "lmdb.info" (environment) as text. */
int lmdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
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
        int rc = MDB.mdb_env_info(LS(s)->env, &in);
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
int lmdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
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
        int rc = MDB.mdb_env_info(LS(s)->env, &in);
        if (rc) return lmdb_fail(err, rc, "env info");
        *out = map ? in.me_mapsize : in.me_maxreaders;
        return FERRY_OK;
    }
    return ferry_fail(err, FERRY_NOTFOUND, 0, "unknown LMDB property '%s'", name);
}
