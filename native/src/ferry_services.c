/* The C ABI's RocksDB services (ferry.h "RocksDB services"): the write-ahead log, rate limiters, SST file
 * managers and PerfContext. Argument checks, then the engine through its engine-wide table (the store's
 * engine, or RocksDB's for the functions that name no store). */
#include "dispatch.h"
#include <stdint.h>
#include <stdlib.h>

int ferry_latest_sequence(ferry_store *s, uint64_t *out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->latest_sequence(s, out, err);
}

int ferry_cf_engine_id(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    SLOT(s, cf, err);
    return lib->cf_engine_id(s, slot, out, err);
}

int ferry_wal_open(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->wal_open(s, since, out, err);
}

int ferry_wal_next(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out, ferry_error *err)
{
    CHECK_E(w != NULL, err, "WAL iterator is NULL");
    CHECK_E(BYTES_OK(dst, cap), err, "dst is NULL");
    CHECK_E(seq_out != NULL && len_out != NULL, err, "seq_out or len_out is NULL");
    return ferry_engine_lib_of(w->store->engine)->wal_next(w, dst, cap, seq_out, len_out, err);
}

int ferry_wal_close(ferry_wal *w)
{
    return w ? ferry_engine_lib_of(w->store->engine)->wal_close(w) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Rate limiters and SST file managers: the registry of live ones (a store open checks its handles
 * against it) and their hold counts, all under g_svc_lock, as ferry_admin.c keeps block caches. */

struct ferry_rate_limiter {
    void *engine;               /* rocksdb_ratelimiter_t* */
    uint32_t stores;
    ferry_rate_limiter *next;
};

struct ferry_sst_manager {
    void *engine;               /* rocksdb_sst_file_manager_t* */
    uint32_t stores;
    ferry_sst_manager *next;
};

static pthread_mutex_t g_svc_lock = PTHREAD_MUTEX_INITIALIZER;
static ferry_rate_limiter *g_limiters;
static ferry_sst_manager *g_managers;

static int limiter_live(const ferry_rate_limiter *l)
{
    for (ferry_rate_limiter *p = g_limiters; p; p = p->next)
        if (p == l) return 1;
    return 0;
}

static int manager_live(const ferry_sst_manager *m)
{
    for (ferry_sst_manager *p = g_managers; p; p = p->next)
        if (p == m) return 1;
    return 0;
}

int ferry_services_acquire(int engine, int64_t *o, ferry_rate_limiter **l_out, ferry_sst_manager **m_out,
                           ferry_error *err)
{
    int64_t lv = o[FERRY_OPT_RATE_LIMITER], mv = o[FERRY_OPT_SST_FILE_MANAGER];
    int has_l = lv != -1 && lv != 0, has_m = mv != -1 && mv != 0;
    *l_out = NULL;
    *m_out = NULL;
    o[FERRY_OPT_RATE_LIMITER] = o[FERRY_OPT_SST_FILE_MANAGER] = -1;
    if (!has_l && !has_m) return FERRY_OK;
    if (engine != FERRY_ENGINE_ROCKSDB)
        return ferry_fail(err, FERRY_EINVAL, 0, "%s is RocksDB's: LMDB has no flushes, compactions or table files",
                          has_l ? "a rate limiter" : "an SST file manager");
    ferry_rate_limiter *l = has_l ? (ferry_rate_limiter *)(intptr_t)lv : NULL;
    ferry_sst_manager *m = has_m ? (ferry_sst_manager *)(intptr_t)mv : NULL;
    int rc = FERRY_OK;
    pthread_mutex_lock(&g_svc_lock);
    if (l && !limiter_live(l))
        rc = ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_RATE_LIMITER is not an open rate limiter (closed, or not made "
                        "by ferry_rate_limiter_create)");
    else if (m && !manager_live(m))
        rc = ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_SST_FILE_MANAGER is not an open SST file manager (closed, or "
                        "not made by ferry_sst_manager_create)");
    if (rc == FERRY_OK) {
        if (l) l->stores++;
        if (m) m->stores++;
    }
    pthread_mutex_unlock(&g_svc_lock);
    if (rc) return rc;
    o[FERRY_OPT_RATE_LIMITER] = l ? (int64_t)(intptr_t)l->engine : -1;
    o[FERRY_OPT_SST_FILE_MANAGER] = m ? (int64_t)(intptr_t)m->engine : -1;
    *l_out = l;
    *m_out = m;
    return FERRY_OK;
}

void ferry_services_release(ferry_rate_limiter *l, ferry_sst_manager *m)
{
    if (!l && !m) return;
    pthread_mutex_lock(&g_svc_lock);
    if (l) l->stores--;
    if (m) m->stores--;
    pthread_mutex_unlock(&g_svc_lock);
}

int ferry_rate_limiter_create(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness,
                              ferry_rate_limiter **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    if (bytes_per_sec < 1 || refill_period_us < 1 || fairness < 1 || fairness > 100)
        return ferry_fail(err, FERRY_EINVAL, 0, "rate limiter: %lld bytes/s, refill period %lld us, fairness %d: want at "
                          "least 1 byte/s, a refill period of at least 1 us and a fairness of 1..100",
                          (long long)bytes_per_sec, (long long)refill_period_us, (int)fairness);
    ferry_rate_limiter *l = calloc(1, sizeof *l);
    if (!l) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = ferry_rocksdb_lib.limiter_create(bytes_per_sec, refill_period_us, fairness, &l->engine, err);
    if (rc) {
        free(l);
        return rc;
    }
    pthread_mutex_lock(&g_svc_lock);
    l->next = g_limiters;
    g_limiters = l;
    pthread_mutex_unlock(&g_svc_lock);
    *out = l;
    return FERRY_OK;
}

int ferry_rate_limiter_usage(ferry_rate_limiter *l, uint32_t *stores_out, ferry_error *err)
{
    CHECK_E(l != NULL, err, "rate limiter is NULL");
    pthread_mutex_lock(&g_svc_lock);
    int live = limiter_live(l);
    if (live && stores_out) *stores_out = l->stores;
    pthread_mutex_unlock(&g_svc_lock);
    return live ? FERRY_OK : ferry_fail(err, FERRY_EINVAL, 0, "not an open rate limiter (closed, or not made by "
                                        "ferry_rate_limiter_create)");
}

int ferry_rate_limiter_close(ferry_rate_limiter *l, ferry_error *err)
{
    if (!l) return FERRY_OK;
    pthread_mutex_lock(&g_svc_lock);
    ferry_rate_limiter **pp = &g_limiters;
    while (*pp && *pp != l) pp = &(*pp)->next;
    int rc = FERRY_OK;
    if (!*pp)
        rc = ferry_fail(err, FERRY_EINVAL, 0, "not an open rate limiter (closed, or not made by ferry_rate_limiter_create)");
    else if (l->stores)
        rc = ferry_fail(err, FERRY_EBUSY, 0, "rate limiter held by %u open store(s): close them first", l->stores);
    else
        *pp = l->next;
    pthread_mutex_unlock(&g_svc_lock);
    if (rc) return rc;
    ferry_rocksdb_lib.limiter_destroy(l->engine);
    free(l);
    return FERRY_OK;
}

int ferry_sst_manager_create(uint64_t max_allowed_space, int64_t delete_rate, ferry_sst_manager **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    if (max_allowed_space > (uint64_t)INT64_MAX || delete_rate < 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "SST file manager: max allowed space %llu (0..2^63-1), delete rate %lld "
                          "(at least 0)", (unsigned long long)max_allowed_space, (long long)delete_rate);
    ferry_sst_manager *m = calloc(1, sizeof *m);
    if (!m) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = ferry_rocksdb_lib.sfm_create(max_allowed_space, delete_rate, &m->engine, err);
    if (rc) {
        free(m);
        return rc;
    }
    pthread_mutex_lock(&g_svc_lock);
    m->next = g_managers;
    g_managers = m;
    pthread_mutex_unlock(&g_svc_lock);
    *out = m;
    return FERRY_OK;
}

int ferry_sst_manager_usage(ferry_sst_manager *m, uint64_t *total_size_out, uint32_t *reached_out, uint32_t *stores_out,
                            ferry_error *err)
{
    CHECK_E(m != NULL, err, "SST file manager is NULL");
    pthread_mutex_lock(&g_svc_lock);
    int live = manager_live(m);
    if (live) {
        uint64_t size = 0;
        int reached = 0;
        ferry_rocksdb_lib.sfm_usage(m->engine, &size, &reached);
        if (total_size_out) *total_size_out = size;
        if (reached_out) *reached_out = (uint32_t)reached;
        if (stores_out) *stores_out = m->stores;
    }
    pthread_mutex_unlock(&g_svc_lock);
    return live ? FERRY_OK : ferry_fail(err, FERRY_EINVAL, 0, "not an open SST file manager (closed, or not made by "
                                        "ferry_sst_manager_create)");
}

int ferry_sst_manager_close(ferry_sst_manager *m, ferry_error *err)
{
    if (!m) return FERRY_OK;
    pthread_mutex_lock(&g_svc_lock);
    ferry_sst_manager **pp = &g_managers;
    while (*pp && *pp != m) pp = &(*pp)->next;
    int rc = FERRY_OK;
    if (!*pp)
        rc = ferry_fail(err, FERRY_EINVAL, 0, "not an open SST file manager (closed, or not made by "
                        "ferry_sst_manager_create)");
    else if (m->stores)
        rc = ferry_fail(err, FERRY_EBUSY, 0, "SST file manager held by %u open store(s): close them first", m->stores);
    else
        *pp = m->next;
    pthread_mutex_unlock(&g_svc_lock);
    if (rc) return rc;
    ferry_rocksdb_lib.sfm_destroy(m->engine);
    free(m);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* PerfContext: the calling thread's, RocksDB's (no store) */

int ferry_perf_level(int32_t level, ferry_error *err)
{
    if (level < FERRY_PERF_DISABLE || level > FERRY_PERF_TIME)
        return ferry_fail(err, FERRY_EINVAL, 0, "PerfContext level %d outside FERRY_PERF_DISABLE..FERRY_PERF_TIME (1..4)",
                          (int)level);
    return ferry_rocksdb_lib.perf_level(level, err);
}

int ferry_perf_reset(ferry_error *err)
{
    return ferry_rocksdb_lib.perf_reset(err);
}

int ferry_perf_report(void *dst, size_t cap, size_t *len_out, ferry_error *err)
{
    CHECK_E(BYTES_OK(dst, cap), err, "dst is NULL");
    CHECK_E(len_out != NULL, err, "len_out is NULL");
    return ferry_rocksdb_lib.perf_report(dst, cap, len_out, err);
}
