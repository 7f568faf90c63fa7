/* RocksDB engine: the TTL compaction filter of families with FERRY_CFOPT_TTL_MS, and the check that
 * hides their expired values from reads (rdb_ttl_expired). Plain C: no Java per key. */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifndef _WIN32
#include <sys/time.h>
#endif

/* The wall clock in milliseconds since the epoch. RocksDB's C API is not on Windows (the shim refuses
 * it there), so a second's resolution does there. */
static int64_t wall_ms(void)
{
#ifdef _WIN32
    return (int64_t)time(NULL) * 1000;
#else
    struct timeval tv;   /* gettimeofday: timespec_get is newer than the oldest macOS the library runs on */
    if (gettimeofday(&tv, NULL) != 0) return (int64_t)time(NULL) * 1000;
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
#endif
}

int64_t rdb_ttl_now(const rdb_ttl *t)
{
    int64_t c = atomic_load_explicit(t->clock, memory_order_relaxed);
    return c >= 0 ? c : wall_ms();
}

int rdb_ttl_expired_at(const rdb_ttl *t, const void *val, size_t vlen, int64_t now)
{
    if (vlen < (size_t)t->offset + 8) return 0;  /* no timestamp: kept */
    const uint8_t *p = (const uint8_t *)val + t->offset;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = u << 8 | p[i];
    int64_t ts = (int64_t)u;
    /* expires at ts + ttl, saturating (as Flink's TtlUtils) */
    int64_t at = ts > INT64_MAX - t->ttl_ms ? INT64_MAX : ts + t->ttl_ms;
    return at <= now;
}

static unsigned char ttl_filter(void *st, int level, const char *key, size_t klen, const char *val, size_t vlen,
                                char **new_val, size_t *new_len, unsigned char *changed)
{
    (void)level; (void)key; (void)klen; (void)new_val; (void)new_len;
    *changed = 0;
    const rdb_ttl *t = st;
    return (unsigned char)rdb_ttl_expired_at(t, val, vlen, rdb_ttl_now(t));
}

static const char *ttl_name(void *st)
{
    (void)st;
    return "ferry.TtlCompactionFilter";
}

static void ttl_state_destroy(void *st) { (void)st; }  /* the store frees its settings */

int rdb_ttl_check(const char *name, int64_t ttl_ms, int64_t offset, ferry_error *err)
{
    if (ttl_ms == 0 || ttl_ms < -1)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': TTL of %lld ms (FERRY_CFOPT_TTL_MS: at least 1, "
                          "-1 for none)", name, (long long)ttl_ms);
    if (offset < -1 || offset > FERRY_CFOPT_MAX_TTL_OFFSET)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': timestamp offset %lld outside 0..%d "
                          "(FERRY_CFOPT_TTL_OFFSET)", name, (long long)offset, FERRY_CFOPT_MAX_TTL_OFFSET);
    if (offset != -1 && ttl_ms == -1)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': a timestamp offset without a TTL "
                          "(FERRY_CFOPT_TTL_OFFSET needs FERRY_CFOPT_TTL_MS)", name);
    return FERRY_OK;
}

int rdb_ttl_apply(rdb_store *s, const char *name, rocksdb_options_t *f, int64_t ttl_ms, int64_t offset, int *index,
                  ferry_error *err)
{
    *index = 0;
    if (ttl_ms == -1) return FERRY_OK;
    uint32_t off = offset < 0 ? 0 : (uint32_t)offset;
    int found = 0;
    pthread_mutex_lock(&s->ttl_lock);
    for (int i = 0; i < s->nttl && !found; i++)
        if (s->ttl[i]->ttl_ms == ttl_ms && s->ttl[i]->offset == off) found = i + 1;
    if (!found && s->nttl < RDB_TTL_MAX) {
        rdb_ttl *t = calloc(1, sizeof *t);
        if (t) {
            t->ttl_ms = ttl_ms;
            t->offset = off;
            t->clock = &s->ttl_clock;
            t->filter = RDB.compactionfilter_create(t, ttl_state_destroy, ttl_filter, ttl_name);
        }
        if (!t || !t->filter) {
            free(t);
            pthread_mutex_unlock(&s->ttl_lock);
            return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        }
        s->ttl[s->nttl++] = t;
        found = s->nttl;
    }
    rocksdb_compactionfilter_t *filter = found ? s->ttl[found - 1]->filter : NULL;
    pthread_mutex_unlock(&s->ttl_lock);
    if (!found)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': a store holds at most %d different TTL settings "
                          "(TTL and timestamp offset)", name, RDB_TTL_MAX);
    RDB.options_set_compaction_filter(f, filter);
    *index = found;
    return FERRY_OK;
}

void rdb_ttl_free(rdb_store *s)
{
    for (int i = 0; i < s->nttl; i++) {
        RDB.compactionfilter_destroy(s->ttl[i]->filter);
        free(s->ttl[i]);
    }
    s->nttl = 0;
}

int ferry_rocksdb_ttl_clock(ferry_store *s, int64_t now_ms)
{
    atomic_store(&STORE(s)->ttl_clock, now_ms < 0 ? -1 : now_ms);
    return FERRY_OK;
}

int rdb_ttl_store_check(const char *path, FILE *f, int ttl_open, ferry_error *err)
{
    if (!f) return FERRY_OK;
    char line[1024];
    int ttl_store = 0;
    while (!ttl_store && fgets(line, sizeof line, f))
        ttl_store = strstr(line, "compaction_filter_factory") && strstr(line, "TtlCompactionFilterFactory");
    if (ttl_store && !ttl_open)
        return ferry_fail(err, FERRY_EINVAL, 0, "the RocksDB store at %s is a TTL store (RocksDB's DBWithTTL: its OPTIONS "
                          "file names TtlCompactionFilterFactory), or a checkpoint or backup of one: every value carries a "
                          "4-byte timestamp suffix that a plain open would show; open it as a TTL store "
                          "(StoreOptions.ttlSeconds, FERRY_OPT_TTL_SECONDS)", path);
    if (!ttl_store && ttl_open)
        return ferry_fail(err, FERRY_EINVAL, 0, "the RocksDB store at %s is not a TTL store: its values carry no timestamp "
                          "suffix, and a TTL open (StoreOptions.ttlSeconds, FERRY_OPT_TTL_SECONDS) would read their last "
                          "4 bytes as one; open it without a TTL", path);
    return FERRY_OK;
}
