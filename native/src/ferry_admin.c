/* The C ABI's shared block caches and write buffer managers (their registry), checkpoints, backups,
 * SST files and their ingestion: argument checks, then the engine through its tables (a store's ops, or
 * the engine-wide ferry_engine_lib: RocksDB's for the functions that name no store); ferry.c has the
 * rest of the ABI. */
#include "dispatch.h"
#include "platform.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Shared block caches and write buffer managers: the registry of live ones (a store open checks
 * its handles against it) and their hold counts, all under g_shared_lock. */

struct ferry_cache {
    void *engine;           /* rocksdb_cache_t* */
    int rj_made;            /* made by RocksJava's constructor (see ferry_engine_lib.cache_create) */
    uint32_t stores, wbms;  /* holders */
    ferry_cache *next;
};

struct ferry_wbm {
    void *engine;           /* rocksdb_write_buffer_manager_t* */
    ferry_cache *cache;     /* held, or NULL */
    uint32_t stores;
    ferry_wbm *next;
};

static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static ferry_cache *g_caches;
static ferry_wbm *g_wbms;

/* Under g_shared_lock: is c / w a live object of this library? */
static int cache_live(const ferry_cache *c)
{
    for (ferry_cache *p = g_caches; p; p = p->next)
        if (p == c) return 1;
    return 0;
}

static int wbm_live(const ferry_wbm *w)
{
    for (ferry_wbm *p = g_wbms; p; p = p->next)
        if (p == w) return 1;
    return 0;
}

/* Check the store options' shared objects, take a hold on each and put their engine pointers
 * into o for the engine. */
int ferry_shared_acquire(int engine, int64_t *o, ferry_cache **c_out, ferry_wbm **w_out, ferry_error *err)
{
    int64_t cv = o[FERRY_OPT_BLOCK_CACHE], wv = o[FERRY_OPT_WRITE_BUFFER_MANAGER];
    int64_t cif = o[FERRY_OPT_CACHE_INDEX_AND_FILTER];
    int has_c = cv != -1 && cv != 0, has_w = wv != -1 && wv != 0;
    *c_out = NULL;
    *w_out = NULL;
    if (engine == FERRY_ENGINE_LMDB) {
        if (has_c || has_w || (cif != -1 && cif != 0))
            return ferry_fail(err, FERRY_EINVAL, 0, "%s is RocksDB's: LMDB has no block cache or memtables (its reads "
                              "go through the OS page cache), so an LMDB store takes no shared block cache, write "
                              "buffer manager or index/filter caching", has_c ? "a shared block cache" :
                              has_w ? "a write buffer manager" : "caching index and filter blocks");
        return FERRY_OK;
    }
    if (!has_c && !has_w) {
        o[FERRY_OPT_BLOCK_CACHE] = o[FERRY_OPT_WRITE_BUFFER_MANAGER] = -1;
        return FERRY_OK;
    }
    if (has_c && o[FERRY_OPT_BLOCK_CACHE_BYTES] != -1)
        return ferry_fail(err, FERRY_EINVAL, 0, "a store takes a shared block cache (FERRY_OPT_BLOCK_CACHE) or a block "
                          "cache size of its own (FERRY_OPT_BLOCK_CACHE_BYTES), not both");
    ferry_cache *c = has_c ? (ferry_cache *)(intptr_t)cv : NULL;
    ferry_wbm *w = has_w ? (ferry_wbm *)(intptr_t)wv : NULL;
    pthread_mutex_lock(&g_shared_lock);
    int rc = FERRY_OK;
    if (c && !cache_live(c))
        rc = ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_BLOCK_CACHE is not an open block cache (closed, or not "
                        "made by ferry_cache_create)");
    else if (w && !wbm_live(w))
        rc = ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_WRITE_BUFFER_MANAGER is not an open write buffer manager "
                        "(closed, or not made by ferry_wbm_create)");
    if (rc == FERRY_OK) {
        if (c) c->stores++;
        if (w) w->stores++;
    }
    pthread_mutex_unlock(&g_shared_lock);
    if (rc) return rc;
    o[FERRY_OPT_BLOCK_CACHE] = c ? (int64_t)(intptr_t)c->engine : -1;
    o[FERRY_OPT_WRITE_BUFFER_MANAGER] = w ? (int64_t)(intptr_t)w->engine : -1;
    *c_out = c;
    *w_out = w;
    return FERRY_OK;
}

/* Drop a store's holds (either may be NULL). */
void ferry_shared_release(ferry_cache *c, ferry_wbm *w)
{
    if (!c && !w) return;
    pthread_mutex_lock(&g_shared_lock);
    if (c) c->stores--;
    if (w) w->stores--;
    pthread_mutex_unlock(&g_shared_lock);
}

int ferry_cache_create(uint64_t capacity, uint32_t flags, int64_t high_pri_ppm, ferry_cache **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    if (capacity == 0 || capacity > (uint64_t)INT64_MAX)
        return ferry_fail(err, FERRY_EINVAL, 0, "block cache capacity %llu outside 1..2^63-1",
                          (unsigned long long)capacity);
    if (flags & ~(uint32_t)FERRY_CACHE_STRICT_CAPACITY)
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown block cache flags 0x%x", flags);
    if (high_pri_ppm < -1 || high_pri_ppm > 1000000)
        return ferry_fail(err, FERRY_EINVAL, 0, "high-priority pool share %lld ppm outside 0..1000000 (-1: default)",
                          (long long)high_pri_ppm);
    ferry_cache *c = calloc(1, sizeof *c);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = ferry_rocksdb_lib.cache_create(capacity, (flags & FERRY_CACHE_STRICT_CAPACITY) != 0, high_pri_ppm,
                                        &c->engine, &c->rj_made, err);
    if (rc) {
        free(c);
        return rc;
    }
    pthread_mutex_lock(&g_shared_lock);
    c->next = g_caches;
    g_caches = c;
    pthread_mutex_unlock(&g_shared_lock);
    *out = c;
    return FERRY_OK;
}

int ferry_cache_usage(ferry_cache *c, uint64_t *usage_out, uint64_t *pinned_out, uint32_t *stores_out,
                      uint32_t *wbms_out, ferry_error *err)
{
    CHECK_E(c != NULL, err, "block cache is NULL");
    uint64_t u = 0, p = 0;
    pthread_mutex_lock(&g_shared_lock);
    int live = cache_live(c);
    if (live) {
        ferry_rocksdb_lib.cache_usage(c->engine, &u, &p);
        if (stores_out) *stores_out = c->stores;
        if (wbms_out) *wbms_out = c->wbms;
    }
    pthread_mutex_unlock(&g_shared_lock);
    if (!live)
        return ferry_fail(err, FERRY_EINVAL, 0, "not an open block cache (closed, or not made by ferry_cache_create)");
    if (usage_out) *usage_out = u;
    if (pinned_out) *pinned_out = p;
    return FERRY_OK;
}

int ferry_cache_close(ferry_cache *c, ferry_error *err)
{
    if (!c) return FERRY_OK;
    pthread_mutex_lock(&g_shared_lock);
    if (!cache_live(c)) {
        pthread_mutex_unlock(&g_shared_lock);
        return ferry_fail(err, FERRY_EINVAL, 0, "not an open block cache");
    }
    if (c->stores || c->wbms) {
        uint32_t n = c->stores, m = c->wbms;
        pthread_mutex_unlock(&g_shared_lock);
        return ferry_fail(err, FERRY_EBUSY, 0, "the block cache is in use by %u open store%s and %u write buffer "
                          "manager%s: close those first", n, n == 1 ? "" : "s", m, m == 1 ? "" : "s");
    }
    for (ferry_cache **pp = &g_caches; *pp; pp = &(*pp)->next)
        if (*pp == c) { *pp = c->next; break; }
    pthread_mutex_unlock(&g_shared_lock);
    ferry_rocksdb_lib.cache_destroy(c->engine, c->rj_made);
    free(c);
    return FERRY_OK;
}

int ferry_wbm_create(ferry_cache *cache, uint64_t buffer_size, uint32_t flags, ferry_wbm **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    if (buffer_size == 0 || buffer_size > (uint64_t)INT64_MAX)
        return ferry_fail(err, FERRY_EINVAL, 0, "write buffer size %llu outside 1..2^63-1",
                          (unsigned long long)buffer_size);
    if (flags & ~(uint32_t)FERRY_WBM_ALLOW_STALL)
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown write buffer manager flags 0x%x", flags);
    ferry_wbm *w = calloc(1, sizeof *w);
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    pthread_mutex_lock(&g_shared_lock);
    int rc = FERRY_OK;
    if (cache && !cache_live(cache))
        rc = ferry_fail(err, FERRY_EINVAL, 0, "not an open block cache (closed, or not made by ferry_cache_create)");
    /* created under the lock: the cache cannot be closed meanwhile */
    if (rc == FERRY_OK)
        rc = ferry_rocksdb_lib.wbm_create(cache ? cache->engine : NULL, buffer_size, (flags & FERRY_WBM_ALLOW_STALL) != 0,
                                      &w->engine, err);
    if (rc == FERRY_OK) {
        w->cache = cache;
        if (cache) cache->wbms++;
        w->next = g_wbms;
        g_wbms = w;
    }
    pthread_mutex_unlock(&g_shared_lock);
    if (rc) {
        free(w);
        return rc;
    }
    *out = w;
    return FERRY_OK;
}

int ferry_wbm_usage(ferry_wbm *w, uint64_t *usage_out, uint32_t *stores_out, ferry_error *err)
{
    CHECK_E(w != NULL, err, "write buffer manager is NULL");
    pthread_mutex_lock(&g_shared_lock);
    int live = wbm_live(w);
    if (live) {
        if (usage_out) *usage_out = ferry_rocksdb_lib.wbm_usage(w->engine);
        if (stores_out) *stores_out = w->stores;
    }
    pthread_mutex_unlock(&g_shared_lock);
    if (!live)
        return ferry_fail(err, FERRY_EINVAL, 0,
                          "not an open write buffer manager (closed, or not made by ferry_wbm_create)");
    return FERRY_OK;
}

int ferry_wbm_close(ferry_wbm *w, ferry_error *err)
{
    if (!w) return FERRY_OK;
    pthread_mutex_lock(&g_shared_lock);
    if (!wbm_live(w)) {
        pthread_mutex_unlock(&g_shared_lock);
        return ferry_fail(err, FERRY_EINVAL, 0, "not an open write buffer manager");
    }
    if (w->stores) {
        uint32_t n = w->stores;
        pthread_mutex_unlock(&g_shared_lock);
        return ferry_fail(err, FERRY_EBUSY, 0, "the write buffer manager is in use by %u open store%s: close those "
                          "first", n, n == 1 ? "" : "s");
    }
    for (ferry_wbm **pp = &g_wbms; *pp; pp = &(*pp)->next)
        if (*pp == w) { *pp = w->next; break; }
    if (w->cache) w->cache->wbms--;
    pthread_mutex_unlock(&g_shared_lock);
    ferry_rocksdb_lib.wbm_destroy(w->engine);
    free(w);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Checkpoints and backups                                             */

int ferry_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(dir != NULL && dir[0] != '\0', err, "checkpoint directory is empty");
    if (flags & ~(uint32_t)(FERRY_CHECKPOINT_COMPACT | FERRY_CHECKPOINT_NO_SYNC))
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown checkpoint flags 0x%x", flags);
    int e = 0;
    if (plat_stat(dir, &e))
        return ferry_fail(err, FERRY_EEXISTS, 0, "checkpoint directory %s exists: a checkpoint is written into a new "
                          "directory", dir);
    if (e != ENOENT)
        return ferry_fail(err, FERRY_EIO, e, "checkpoint directory %s: %s", dir, strerror(e));
    int rc = s->ops->checkpoint(s, dir, flags & FERRY_CHECKPOINT_COMPACT, err);
    return rc == FERRY_OK && !(flags & FERRY_CHECKPOINT_NO_SYNC) ? ferry_sync_tree(dir, err) : rc;
}

/* Does dir exist with entries other than . and ..? */
static int dir_has_files(const char *dir)
{
    int e = 0;
    plat_dir *d = plat_dir_open(dir, &e);
    if (!d) return e != ENOENT;   /* a file, or unreadable: not a place to restore into */
    int found = 0;
    for (const char *n; !found && (n = plat_dir_next(d)) != NULL;)
        found = strcmp(n, ".") != 0 && strcmp(n, "..") != 0;
    plat_dir_close(d);
    return found;
}

int ferry_backups_open(const char *dir, ferry_backups **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    CHECK_E(dir != NULL && dir[0] != '\0', err, "backup directory is empty");
    return ferry_rocksdb_lib.backups_open(dir, out, err);
}

int ferry_backups_close(ferry_backups *b)
{
    return b ? ferry_rocksdb_lib.backups_close(b) : FERRY_OK;
}

int ferry_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err)
{
    CHECK_E(b != NULL && s != NULL && id_out != NULL, err, "backups, store or id_out is NULL");
    return ferry_engine_lib_of(s->engine)->backups_create(b, s, id_out, err);
}

int ferry_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err)
{
    CHECK_E(b != NULL && count_out != NULL, err, "backups or count_out is NULL");
    CHECK_E(BYTES_OK(dst, cap), err, "NULL buffer with a length");
    return ferry_rocksdb_lib.backups_list(b, dst, cap, count_out, err);
}

int ferry_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err)
{
    CHECK_E(b != NULL, err, "backups is NULL");
    CHECK_E(db_dir != NULL && db_dir[0] != '\0', err, "database directory is empty");
    if (dir_has_files(db_dir))
        return ferry_fail(err, FERRY_EEXISTS, 0, "%s holds files: a backup is restored into a missing or empty "
                          "directory (restoring replaces the files of a database there)", db_dir);
    return ferry_rocksdb_lib.backups_restore(b, id, db_dir, err);
}

int ferry_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err)
{
    CHECK_E(b != NULL, err, "backups is NULL");
    return ferry_rocksdb_lib.backups_purge(b, keep, err);
}

/* ------------------------------------------------------------------ SST files */

int ferry_sst_open(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err)
{
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    CHECK_E(path != NULL && path[0] != '\0', err, "path is empty");
    return ferry_rocksdb_lib.sst_open(path, extra, out, err);
}

int ferry_sst_put(ferry_sst_writer *w, const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err)
{
    CHECK_E(w != NULL, err, "writer is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(val, vlen), err, "NULL buffer with a length");
    return ferry_rocksdb_lib.sst_add(w, FERRY_OP_PUT, key, klen, val, vlen, err);
}

int ferry_sst_merge(ferry_sst_writer *w, const void *key, size_t klen, const void *operand, size_t olen,
                    ferry_error *err)
{
    CHECK_E(w != NULL, err, "writer is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(operand, olen), err, "NULL buffer with a length");
    return ferry_rocksdb_lib.sst_add(w, FERRY_OP_MERGE, key, klen, operand, olen, err);
}

int ferry_sst_delete(ferry_sst_writer *w, const void *key, size_t klen, ferry_error *err)
{
    CHECK_E(w != NULL, err, "writer is NULL");
    CHECK_E(BYTES_OK(key, klen), err, "NULL key with a length");
    return ferry_rocksdb_lib.sst_add(w, FERRY_OP_DELETE, key, klen, NULL, 0, err);
}

int ferry_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err)
{
    CHECK_E(w != NULL, err, "writer is NULL");
    return ferry_rocksdb_lib.sst_finish(w, size_out, err);
}

int ferry_sst_close(ferry_sst_writer *w)
{
    return w ? ferry_rocksdb_lib.sst_close(w) : FERRY_OK;
}

int ferry_store_open_secondary(const char *path, const char *secondary_path, const int64_t *opts, uint32_t nopts,
                               const char *extra, const void *cfs, size_t cfs_len, uint32_t ncfs, ferry_store **out,
                               ferry_error *err)
{
    CHECK_E(path != NULL && path[0] != '\0', err, "path is empty");
    CHECK_E(secondary_path != NULL && secondary_path[0] != '\0', err, "secondary path is empty");
    CHECK_E(out != NULL, err, "out is NULL");
    CHECK_E(opts != NULL || nopts == 0, err, "opts is NULL");
    *out = NULL;
    CHECK_E(strcmp(path, secondary_path) != 0, err, "the secondary path is the store's own directory");
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = i < (int)nopts ? opts[i] : -1;
    if (o[FERRY_OPT_TRANSACTIONS] > 0 || o[FERRY_OPT_TTL_SECONDS] != -1 || (o[FERRY_OPT_READ_ONLY] != -1 && o[FERRY_OPT_READ_ONLY] != 0))
        return ferry_fail(err, FERRY_EINVAL, 0, "a secondary instance has no transactions and no TTL store, and is "
                          "read-only by nature (FERRY_OPT_TRANSACTIONS, FERRY_OPT_TTL_SECONDS, FERRY_OPT_READ_ONLY)");
    ferry_cf_desc *d;
    int rc = cf_descs_parse(cfs, cfs_len, ncfs, &d, err);
    if (rc) return rc;
    ferry_cache *sc = NULL;
    ferry_wbm *sw = NULL;
    ferry_rate_limiter *sl = NULL;
    ferry_sst_manager *sm = NULL;
    if ((rc = ferry_shared_acquire(FERRY_ENGINE_ROCKSDB, o, &sc, &sw, err)) == FERRY_OK
        && (rc = ferry_services_acquire(FERRY_ENGINE_ROCKSDB, o, &sl, &sm, err)) != FERRY_OK)
        ferry_shared_release(sc, sw);
    if (rc == FERRY_OK) {
        rc = ferry_rocksdb_lib.open_secondary(path, secondary_path, o, extra, d, ncfs, out, err);
        if (rc == FERRY_OK) {
            (*out)->shared_cache = sc;
            (*out)->shared_wbm = sw;
            (*out)->shared_limiter = sl;
            (*out)->shared_sfm = sm;
        } else {
            ferry_shared_release(sc, sw);
            ferry_services_release(sl, sm);
        }
    }
    cf_descs_free(d, ncfs);
    return rc;
}

int ferry_catch_up(ferry_store *s, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->catch_up(s, err);
}

int ferry_ttl_clock(ferry_store *s, int64_t now_ms, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->ttl_clock(s, now_ms, err);
}

int ferry_ingest(ferry_store *s, uint32_t cf, const char *paths, size_t len, uint32_t n, uint32_t flags,
                 ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(paths != NULL && len > 0 && n > 0, err, "no files to ingest");
    CHECK_E((flags & ~(uint32_t)FERRY_INGEST_MOVE) == 0, err, "unknown ingest flags");
    if (!s->ops->ingest)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "SST ingestion is not supported by LMDB: load the entries with a "
                          "write batch instead");
    WRITABLE(s, err);
    SLOT(s, cf, err);
    if (ferry_slot_order(slot) != FERRY_ORDER_BYTEWISE)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "column family '%s' does not order its keys bytewise (FERRY_CFOPT_KEY_ORDER):"
                          " SST files are written in bytewise order, which RocksDB refuses to ingest into it; write "
                          "the entries with a write batch instead", slot->name);
    /* n NUL-terminated, non-empty paths filling exactly len bytes */
    const char **list = malloc(n * sizeof *list);
    if (!list) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *p = off < len ? memchr(paths + off, '\0', len - off) : NULL;
        if (!p || p == paths + off) {
            free(list);
            return ferry_fail(err, FERRY_EINVAL, 0, "ingest: path %u is %s", i, p ? "empty" : "missing or not terminated");
        }
        list[i] = paths + off;
        off = (size_t)(p - paths) + 1;
    }
    if (off != len) {
        free(list);
        return ferry_fail(err, FERRY_EINVAL, 0, "ingest: %zu bytes follow the %u paths", len - off, n);
    }
    int rc = s->ops->ingest(s, slot, list, n, flags, err);
    free(list);
    return rc;
}
