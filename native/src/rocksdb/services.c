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

/* ---- rate limiters and SST file managers (the registry and checks are ferry_services.c's) ---- */

/* An SST file manager and the environment wrapper it was made on (RocksDB keeps the Env* it names). */
typedef struct rdb_sfm {
    rocksdb_sst_file_manager_t *m;
    rocksdb_env_t *env;
} rdb_sfm;

int ferry_rocksdb_limiter_create(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness, void **out,
                                 ferry_error *err)
{
    RJ_READY(err);
    NEED(ratelimiter_create, err);
    NEED(options_set_ratelimiter, err);
    *out = RDB.ratelimiter_create(bytes_per_sec, refill_period_us, fairness);
    return *out ? FERRY_OK : ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
}

void ferry_rocksdb_limiter_destroy(void *l)
{
    RDB.ratelimiter_destroy(l);
}

int ferry_rocksdb_sfm_create(uint64_t max_allowed_space, int64_t delete_rate, void **out, ferry_error *err)
{
    RJ_READY(err);
    if (!RDB.sst_file_manager_create || !RDB.options_set_sst_file_manager || !RDB.create_default_env)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no SST file managers in its C API (rocksdb_sst_file_manager_* "
                          "and rocksdb_options_set_sst_file_manager are newer than rocksdbjni 10.1.3; 11.8.1 has them)",
                          rdb_lib_path);
    rdb_sfm *f = calloc(1, sizeof *f);
    if (!f || !(f->env = RDB.create_default_env())) {
        free(f);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    if (!(f->m = RDB.sst_file_manager_create(f->env))) {
        RDB.env_destroy(f->env);
        free(f);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    RDB.sst_file_manager_set_max_allowed_space_usage(f->m, max_allowed_space);
    RDB.sst_file_manager_set_delete_rate_bytes_per_second(f->m, delete_rate);
    *out = f;
    return FERRY_OK;
}

void ferry_rocksdb_sfm_destroy(void *p)
{
    rdb_sfm *f = p;
    RDB.sst_file_manager_destroy(f->m);
    RDB.env_destroy(f->env);
    free(f);
}

void ferry_rocksdb_sfm_usage(void *p, uint64_t *total_size, int *reached)
{
    rdb_sfm *f = p;
    *total_size = RDB.sst_file_manager_get_total_size(f->m);
    *reached = RDB.sst_file_manager_is_max_allowed_space_reached(f->m) != 0;
}

int rdb_services_configure(rdb_store *s, const int64_t *opts, ferry_error *err)
{
    int64_t l = ferry_opt(opts, FERRY_OPT_RATE_LIMITER, -1), m = ferry_opt(opts, FERRY_OPT_SST_FILE_MANAGER, -1);
    if (l != -1 && l != 0) RDB.options_set_ratelimiter(s->opts, (rocksdb_ratelimiter_t *)(intptr_t)l);
    if (m != -1 && m != 0) RDB.options_set_sst_file_manager(s->opts, ((rdb_sfm *)(intptr_t)m)->m);
    (void)err;
    return FERRY_OK;
}

/* ---- PerfContext: the calling thread's (RocksDB keeps the context and its level per thread) ---- */

static int perf_ready(ferry_error *err)
{
    RJ_READY(err);
    if (!RDB.set_perf_level || !RDB.perfcontext_create || !RDB.perfcontext_reset || !RDB.perfcontext_report
        || !RDB.perfcontext_destroy)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no PerfContext in its C API (rocksdb_set_perf_level, "
                          "rocksdb_perfcontext_*)", rdb_lib_path);
    return FERRY_OK;
}

int ferry_rocksdb_perf_level(int32_t level, ferry_error *err)
{
    int rc = perf_ready(err);
    if (rc) return rc;
    RDB.set_perf_level(level);
    return FERRY_OK;
}

int ferry_rocksdb_perf_reset(ferry_error *err)
{
    int rc = perf_ready(err);
    if (rc) return rc;
    rocksdb_perfcontext_t *p = RDB.perfcontext_create();
    if (!p) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    RDB.perfcontext_reset(p);
    RDB.perfcontext_destroy(p);
    return FERRY_OK;
}

int ferry_rocksdb_perf_report(void *dst, size_t cap, size_t *len_out, ferry_error *err)
{
    int rc = perf_ready(err);
    if (rc) return rc;
    rocksdb_perfcontext_t *p = RDB.perfcontext_create();
    if (!p) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    char *text = RDB.perfcontext_report(p, 0);
    RDB.perfcontext_destroy(p);
    if (!text) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    size_t n = strlen(text);
    *len_out = n;
    if (n > cap) rc = ferry_fail(err, FERRY_ETOOSMALL, 0, "PerfContext report of %zu bytes, buffer of %zu", n, cap);
    else memcpy(dst, text, n);
    RDB.free(text);
    return rc;
}
