/* RocksDB services (ferry.h "RocksDB services"): the write-ahead log read back as write batches
 * (GetUpdatesSince), rate limiters, SST file managers and PerfContext. Arguments are checked by
 * ferry_services.c. */
#include "engine.h"
#include <stdlib.h>
#include <string.h>

typedef struct rdb_wal {
    ferry_wal base;
    rocksdb_wal_iterator_t *it;  /* NULL: an iterator that ends at once (since beyond the latest write) */
    rocksdb_writebatch_t *cur;   /* the batch under the iterator, taken out of it once; NULL: not yet */
    uint64_t cur_seq;
} rdb_wal;

/* The missing symbol's message, or FERRY_OK when the engine has the function. */
#define NEED(fn, err) \
    do { if (!RDB.fn) return ferry_fail((err), FERRY_ENOTSUP, 0, "%s has no rocksdb_" #fn, rdb_lib_path); } while (0)

int ferry_rocksdb_latest_sequence(ferry_store *fs, uint64_t *out, ferry_error *err)
{
    NEED(get_latest_sequence_number, err);
    *out = RDB.get_latest_sequence_number(STORE(fs)->db);
    return FERRY_OK;
}

int ferry_rocksdb_cf_engine_id(ferry_store *fs, ferry_cf_slot *cf, uint32_t *out, ferry_error *err)
{
    (void)fs;
    NEED(column_family_handle_get_id, err);
    *out = RDB.column_family_handle_get_id(cf->handle);
    return FERRY_OK;
}

static void wal_free(rdb_wal *w)
{
    if (w->cur) RDB.writebatch_destroy(w->cur);
    if (w->it) RDB.wal_iter_destroy(w->it);
    free(w);
}

/* Take the batch under the iterator into w->cur (when there is one): FERRY_OK, FERRY_NOTFOUND at the
 * end, or the iterator's error. */
static int wal_load(rdb_wal *w, ferry_error *err)
{
    if (w->cur) return FERRY_OK;
    if (!w->it) return FERRY_NOTFOUND;
    if (!RDB.wal_iter_valid(w->it)) {
        char *e = NULL;
        RDB.wal_iter_status(w->it, &e);
        return e ? rdb_error(err, e) : FERRY_NOTFOUND;
    }
    w->cur = RDB.wal_iter_get_batch(w->it, &w->cur_seq);
    return w->cur ? FERRY_OK : ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
}

int ferry_rocksdb_wal_open(ferry_store *fs, uint64_t since, ferry_wal **out, ferry_error *err)
{
    rdb_store *s = STORE(fs);
    NEED(get_updates_since, err);
    NEED(get_latest_sequence_number, err);
    if (s->ttl_seconds >= 0)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "a TTL store's WAL holds its values with RocksDB's timestamp suffix: "
                          "it is not read back through ferry_wal_open");
    if (s->wal_off)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "the store was opened without a write-ahead log (FERRY_OPT_WAL 0): "
                          "its writes are not in a WAL to read back");
    rdb_wal *w = calloc(1, sizeof *w);
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    w->base.store = fs;
    uint64_t first = since < 1 ? 1 : since;
    uint64_t latest = RDB.get_latest_sequence_number(s->db);
    if (first > latest) {   /* nothing written at or after since yet: RocksDB would answer NotFound */
        *out = &w->base;
        return FERRY_OK;
    }
    char *e = NULL;
    w->it = RDB.get_updates_since(s->db, first, NULL, &e);
    if (e) {
        if (w->it) RDB.wal_iter_destroy(w->it);
        w->it = NULL;
        wal_free(w);
        return rdb_error(err, e);
    }
    int rc = wal_load(w, err);
    if (rc == FERRY_NOTFOUND) {
        wal_free(w);
        return ferry_fail(err, FERRY_NOTFOUND, 0, "sequence number %llu is no longer in the WAL (latest %llu): its WAL "
                          "files went after a flush (keep them with WAL_ttl_seconds or WAL_size_limit_MB)",
                          (unsigned long long)first, (unsigned long long)latest);
    }
    if (rc == FERRY_OK && w->cur_seq > first) {
        uint64_t there = w->cur_seq;
        wal_free(w);
        return ferry_fail(err, FERRY_NOTFOUND, 0, "sequence number %llu is no longer in the WAL: the first one still "
                          "there is %llu (its older WAL files went after a flush; keep them with WAL_ttl_seconds or "
                          "WAL_size_limit_MB)", (unsigned long long)first, (unsigned long long)there);
    }
    if (rc) {
        wal_free(w);
        return rc;
    }
    *out = &w->base;
    return FERRY_OK;
}

int ferry_rocksdb_wal_next(ferry_wal *fw, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out, ferry_error *err)
{
    rdb_wal *w = (rdb_wal *)fw;
    int rc = wal_load(w, err);
    if (rc) return rc;
    size_t len = 0;
    const char *data = RDB.writebatch_data(w->cur, &len);
    *seq_out = w->cur_seq;
    *len_out = len;
    if (len > cap) return ferry_fail(err, FERRY_ETOOSMALL, 0, "write batch of %zu bytes, buffer of %zu", len, cap);
    memcpy(dst, data, len);
    RDB.writebatch_destroy(w->cur);
    w->cur = NULL;
    RDB.wal_iter_next(w->it);
    return FERRY_OK;
}

int ferry_rocksdb_wal_close(ferry_wal *fw)
{
    wal_free((rdb_wal *)fw);
    return FERRY_OK;
}
