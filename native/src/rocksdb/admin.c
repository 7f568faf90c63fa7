/* RocksDB engine: flush, compaction, properties, checkpoints, SST files and ingestion, the backup
 * engine, shared block caches and write buffer managers. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Properties                                                          */

/* A text property, truncated to cap. */
int rdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                        size_t *len_out, ferry_error *err)
{
    char *v = RDB.property_value_cf(STORE(s)->db, CFH(cf), name);
    if (!v) return ferry_fail(err, FERRY_NOTFOUND, 0, "no property '%s'", name);
    size_t len = strlen(v);
    size_t c = len < cap - 1 ? len : cap - 1;
    memcpy(dst, v, c);
    dst[c] = '\0';
    *len_out = len;
    RDB.free(v);
    return FERRY_OK;
}

/* A numeric property; "ferry.estimate-num-keys" is RocksDB's estimate. */
int rdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                            ferry_error *err)
{
    if (strcmp(name, "ferry.compacted-read-only") == 0) {
        *out = (uint64_t)STORE(s)->compacted;
        return FERRY_OK;
    }
    const char *rname = strcmp(name, "ferry.estimate-num-keys") == 0 ? "rocksdb.estimate-num-keys" : name;
    if (RDB.property_int_cf(STORE(s)->db, CFH(cf), rname, out) != 0)
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no integer property '%s'", name);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Checkpoints                                                         */

/* RocksDB copies a read-only database without the writes its log replayed into memory (it can
 * neither flush them nor copies that log): such a copy would silently lack them, so it is refused. */
static int read_only_copy(ferry_error *err, const char *what)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "a %s of a RocksDB store opened read-only is not supported: RocksDB would "
                      "leave out the writes still in its log; open the store writable", what);
}

/* A checkpoint with every family flushed first (log_size_for_flush 0): table files hard-linked
 * where the file system allows, the live WAL and MANIFEST copied, all at one sequence number. */
int rdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
{
    if (flags & FERRY_CHECKPOINT_COMPACT)
        return ferry_fail(err, FERRY_EINVAL, 0, "FERRY_CHECKPOINT_COMPACT is an LMDB option (MDB_CP_COMPACT): a RocksDB "
                          "checkpoint hard-links its table files and has nothing to compact");
    if (s->read_only) return read_only_copy(err, "checkpoint");
    if (!RDB.checkpoint_object_create || !RDB.checkpoint_create || !RDB.checkpoint_object_destroy)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no checkpoints (rocksdb_checkpoint_create missing)", rdb_lib_path);
    char *e = NULL;
    rocksdb_checkpoint_t *cp = RDB.checkpoint_object_create(STORE(s)->db, &e);
    if (e) return rdb_error(err, e);
    RDB.checkpoint_create(cp, dir, 0, &e);
    RDB.checkpoint_object_destroy(cp);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* SST files and ingestion                                             */

/* Are the SstFileWriter and ingestion functions all there? */
static int rdb_has_sst(void)
{
#define RDB_PRESENT_SST(name, ret, params) && RDB.name != NULL
    return 1 RDB_API_SST_FUNCS(RDB_PRESENT_SST);
#undef RDB_PRESENT_SST
}

struct ferry_sst_writer {
    rocksdb_sstfilewriter_t *w;
    rocksdb_envoptions_t *env;
    rocksdb_options_t *opts;
    int finished;
    uint64_t entries;
    uint8_t *last;                    /* previous key (entries > 0) */
    size_t last_len, last_cap;
};

int ferry_rocksdb_sst_open(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err)
{
    if (!atomic_load_explicit(&rdb_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    if (!rdb_has_sst()) return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no SstFileWriter C API", rdb_lib_path);
    int has_merge;
    if (extra && (rdb_check_extra(extra, 0, err) || rdb_check_merge(extra, &has_merge, NULL, err))) return FERRY_EINVAL;
    ferry_sst_writer *w = calloc(1, sizeof *w);
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    w->opts = RDB.options_create();
    char *e = NULL;
    if (extra && extra[0]) {
        rocksdb_options_t *merged = RDB.options_create();
        RDB.get_options_from_string(w->opts, extra, merged, &e);
        RDB.options_destroy(w->opts);
        w->opts = merged;
        if (e) { ferry_rocksdb_sst_close(w); return rdb_error(err, e); }
    }
    w->env = RDB.envoptions_create();
    w->w = RDB.sstfilewriter_create(w->env, w->opts);
    RDB.sstfilewriter_open(w->w, path, &e);
    if (e) { ferry_rocksdb_sst_close(w); return rdb_error(err, e); }
    *out = w;
    return FERRY_OK;
}

int ferry_rocksdb_sst_add(ferry_sst_writer *w, int op, const void *key, size_t klen, const void *val, size_t vlen,
                          ferry_error *err)
{
    if (w->finished) return ferry_fail(err, FERRY_EINVAL, 0, "SST file writer is finished: it takes no more entries");
    /* keys strictly increasing: refuse key <= last, i.e. [last, key) empty */
    if (w->entries > 0 && ferry_range_empty(w->last, w->last_len, key, klen)) {
        return ferry_fail(err, FERRY_EINVAL, 0, "SST file entry %llu: keys must be added in strictly increasing "
                          "unsigned byte order, and this key (%zu bytes) is not greater than the previous one (%zu bytes)",
                          (unsigned long long)w->entries, klen, w->last_len);
    }
    if (klen > w->last_cap) {
        size_t cap = klen < 64 ? 64 : klen;
        uint8_t *n = realloc(w->last, cap);
        if (!n) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        w->last = n;
        w->last_cap = cap;
    }
    char *e = NULL;
    const char *k = key, *v = val;
    switch (op) {
    case FERRY_OP_PUT: RDB.sstfilewriter_put(w->w, k, klen, v, vlen, &e); break;
    case FERRY_OP_MERGE: RDB.sstfilewriter_merge(w->w, k, klen, v, vlen, &e); break;
    default: RDB.sstfilewriter_delete(w->w, k, klen, &e); break;
    }
    if (e) return rdb_error(err, e);
    if (klen) memcpy(w->last, key, klen);
    w->last_len = klen;
    w->entries++;
    return FERRY_OK;
}

int ferry_rocksdb_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err)
{
    if (w->finished) return ferry_fail(err, FERRY_EINVAL, 0, "SST file writer is already finished");
    if (w->entries == 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "SST file has no entries: RocksDB writes no empty table file");
    char *e = NULL;
    RDB.sstfilewriter_finish(w->w, &e);
    if (e) return rdb_error(err, e);
    w->finished = 1;
    if (size_out) {
        uint64_t size = 0;
        RDB.sstfilewriter_file_size(w->w, &size);
        *size_out = size;
    }
    return FERRY_OK;
}

int ferry_rocksdb_sst_close(ferry_sst_writer *w)
{
    if (w->w) RDB.sstfilewriter_destroy(w->w);
    if (w->env) RDB.envoptions_destroy(w->env);
    if (w->opts) RDB.options_destroy(w->opts);
    free(w->last);
    free(w);
    return FERRY_OK;
}

/* Ingest files into a family under drop_lock (a write). */
int rdb_ingest(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n, uint32_t flags,
                      ferry_error *err)
{
    if (!rdb_has_sst()) return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no external file ingestion C API", rdb_lib_path);
    if (STORE(s)->ttl_seconds >= 0)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "a TTL store (FERRY_OPT_TTL_SECONDS) takes no SST files: their values "
                          "lack the 4-byte timestamp suffix every value of the store carries; write the entries instead");
    int rc = rdb_write_enter(s, cf, err);
    if (rc) return rc;
    rocksdb_ingestexternalfileoptions_t *o = RDB.ingestexternalfileoptions_create();
    RDB.ingestexternalfileoptions_set_move_files(o, (flags & FERRY_INGEST_MOVE) != 0);
    char *e = NULL;
    RDB.ingest_external_file_cf(STORE(s)->db, CFH(cf), paths, n, o, &e);
    RDB.ingestexternalfileoptions_destroy(o);
    rdb_write_exit(s);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Backup engine                                                       */

struct ferry_backups {
    rocksdb_backup_engine_t *be;
    pthread_mutex_t lock;             /* one call at a time on the engine */
    char *dir;                        /* the backup directory, synced after each change */
};

/* Are the backup engine's functions all there? */
static int rdb_has_backups(void)
{
#define RDB_PRESENT(name, ret, params) && RDB.name != NULL
    return 1 RDB_API_UTILITY_FUNCS(RDB_PRESENT);
#undef RDB_PRESENT
}

int ferry_rocksdb_backups_open(const char *dir, ferry_backups **out, ferry_error *err)
{
    RJ_READY(err);
    if (!rdb_has_backups())
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no backup engine (rocksdb_backup_engine_* missing)", rdb_lib_path);
    ferry_backups *b = calloc(1, sizeof *b);
    if (!b) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    rocksdb_options_t *o = RDB.options_create();   /* only its Env (the default one) is used */
    char *e = NULL;
    b->be = RDB.backup_engine_open(o, dir, &e);
    RDB.options_destroy(o);
    if (e || !b->be) {
        if (b->be) RDB.backup_engine_close(b->be);
        free(b);
        return e ? rdb_error(err, e) : ferry_fail(err, FERRY_EENGINE, 0, "cannot open backup directory %s", dir);
    }
    b->dir = strdup(dir);
    int rc = b->dir ? ferry_sync_tree(dir, err) : ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (rc) {
        RDB.backup_engine_close(b->be);
        free(b->dir);
        free(b);
        return rc;
    }
    pthread_mutex_init(&b->lock, NULL);
    *out = b;
    return FERRY_OK;
}

int ferry_rocksdb_backups_close(ferry_backups *b)
{
    RDB.backup_engine_close(b->be);
    pthread_mutex_destroy(&b->lock);
    free(b->dir);
    free(b);
    return FERRY_OK;
}

/* The highest backup id, 0 when there is none. Caller holds b->lock. */
static uint32_t latest_id(ferry_backups *b)
{
    const rocksdb_backup_engine_info_t *info = RDB.backup_engine_get_backup_info(b->be);
    uint32_t id = 0;
    int n = RDB.backup_engine_info_count(info);
    for (int i = 0; i < n; i++) {
        uint32_t x = RDB.backup_engine_info_backup_id(info, i);
        if (x > id) id = x;
    }
    RDB.backup_engine_info_destroy(info);
    return id;
}

int ferry_rocksdb_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err)
{
    if (s->read_only) return read_only_copy(err, "backup");
    char *e = NULL;
    pthread_mutex_lock(&b->lock);
    RDB.backup_engine_create_new_backup_flush(b->be, STORE(s)->db, 1, &e);
    int rc = e ? rdb_error(err, e) : FERRY_OK;
    if (rc == FERRY_OK) *id_out = latest_id(b);
    if (rc == FERRY_OK) rc = ferry_sync_tree(b->dir, err); /* the new backup's names */
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int ferry_rocksdb_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err)
{
    pthread_mutex_lock(&b->lock);
    const rocksdb_backup_engine_info_t *info = RDB.backup_engine_get_backup_info(b->be);
    int n = RDB.backup_engine_info_count(info);
    if (n < 0) n = 0;
    uint8_t *p = dst;
    for (int i = 0; i < n && (size_t)(i + 1) * FERRY_BACKUP_INFO_SIZE <= cap; i++, p += FERRY_BACKUP_INFO_SIZE) {
        uint32_t id = RDB.backup_engine_info_backup_id(info, i);
        uint32_t files = RDB.backup_engine_info_number_files(info, i);
        int64_t ts = RDB.backup_engine_info_timestamp(info, i);
        uint64_t size = RDB.backup_engine_info_size(info, i);
        memcpy(p, &id, 4);
        memcpy(p + 4, &files, 4);
        memcpy(p + 8, &ts, 8);
        memcpy(p + 16, &size, 8);
    }
    RDB.backup_engine_info_destroy(info);
    pthread_mutex_unlock(&b->lock);
    *count_out = (uint32_t)n;
    return FERRY_OK;
}

int ferry_rocksdb_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err)
{
    char *e = NULL;
    int rc = FERRY_OK;
    pthread_mutex_lock(&b->lock);
    uint32_t latest = latest_id(b);
    if (latest == 0) {
        rc = ferry_fail(err, FERRY_NOTFOUND, 0, "no backup to restore: the backup directory holds none");
    } else {
        rocksdb_restore_options_t *o = RDB.restore_options_create();
        if (id == 0) RDB.backup_engine_restore_db_from_latest_backup(b->be, db_dir, db_dir, o, &e);
        else RDB.backup_engine_restore_db_from_backup(b->be, db_dir, db_dir, o, id, &e);
        RDB.restore_options_destroy(o);
        if (e) rc = rdb_error(err, e);
        else rc = ferry_sync_tree(db_dir, err); /* the restored store's files and names */
    }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int ferry_rocksdb_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err)
{
    char *e = NULL;
    pthread_mutex_lock(&b->lock);
    RDB.backup_engine_purge_old_backups(b->be, keep, &e);
    pthread_mutex_unlock(&b->lock);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Shared block caches and write buffer managers (ferry.c keeps the registry and the counts)      */

/* RocksJava's LRUCache constructor and destructor (org.rocksdb.LRUCache, the same in rocksdbjni 7.9.2
 * to 11.8.1): they make and free a std::shared_ptr<Cache> on the heap, which is exactly the layout
 * of the C API's rocksdb_cache_t (a struct holding one std::shared_ptr<Cache>, db/c.cc), so the C
 * API's table options take such a cache as their own. Neither uses its JNIEnv or class argument.
 * The C API has no setter for the high-priority pool ratio; this is the one way to set it. */
typedef int64_t (*rj_new_lru_fn)(void *env, void *cls, int64_t capacity, int32_t shard_bits, unsigned char strict,
                                 double high_pri, double low_pri);

typedef void (*rj_dispose_fn)(void *env, void *obj, int64_t handle);

static int rj_lru_fns(rj_new_lru_fn *mk, rj_dispose_fn *rm)
{
    void *a = plat_lib_sym(rdb_lib, "Java_org_rocksdb_LRUCache_newLRUCache");
    void *b = plat_lib_sym(rdb_lib, "Java_org_rocksdb_LRUCache_disposeInternalJni"); /* 9.x and later */
    if (!b) b = plat_lib_sym(rdb_lib, "Java_org_rocksdb_LRUCache_disposeInternal");
    if (!a || !b) return 0;
    memcpy(mk, &a, sizeof a);
    memcpy(rm, &b, sizeof b);
    return 1;
}

int ferry_rocksdb_cache_create(uint64_t capacity, int strict, int64_t high_pri_ppm, void **out, int *rj_made,
                               ferry_error *err)
{
    if (!atomic_load_explicit(&rdb_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    *rj_made = 0;
    rocksdb_cache_t *c = NULL;
    if (high_pri_ppm >= 0) {
        rj_new_lru_fn mk;
        rj_dispose_fn rm;
        if (!rj_lru_fns(&mk, &rm))
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s cannot set a block cache's high-priority pool ratio (RocksDB's C "
                              "API has no setter and RocksJava's LRUCache constructor is missing): leave it at RocksDB's "
                              "default, 0.5", rdb_lib_path);
        int64_t h = mk(NULL, NULL, (int64_t)capacity, -1, (unsigned char)(strict != 0), (double)high_pri_ppm / 1e6, 0.0);
        c = (rocksdb_cache_t *)(intptr_t)h;
        *rj_made = 1;
    } else if (strict) {
        if (!RDB.cache_create_lru_with_strict_capacity_limit)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no rocksdb_cache_create_lru_with_strict_capacity_limit", rdb_lib_path);
        c = RDB.cache_create_lru_with_strict_capacity_limit((size_t)capacity);
    } else {
        c = RDB.cache_create_lru((size_t)capacity);
    }
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory creating a block cache");
    *out = c;
    return FERRY_OK;
}

void ferry_rocksdb_cache_destroy(void *c, int rj_made)
{
    rj_new_lru_fn mk;
    rj_dispose_fn rm;
    if (rj_made && rj_lru_fns(&mk, &rm)) rm(NULL, NULL, (int64_t)(intptr_t)c);
    else RDB.cache_destroy(c);
}

void ferry_rocksdb_cache_usage(void *c, uint64_t *usage, uint64_t *pinned)
{
    *usage = RDB.cache_get_usage ? (uint64_t)RDB.cache_get_usage(c) : 0;
    *pinned = RDB.cache_get_pinned_usage ? (uint64_t)RDB.cache_get_pinned_usage(c) : 0;
}

int ferry_rocksdb_wbm_create(void *cache, uint64_t size, int allow_stall, void **out, ferry_error *err)
{
    if (!atomic_load_explicit(&rdb_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    if (!RDB.write_buffer_manager_create_with_cache || !RDB.write_buffer_manager_create || !RDB.write_buffer_manager_destroy
        || !RDB.write_buffer_manager_memory_usage || !RDB.options_set_write_buffer_manager)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no write buffer manager in its C API "
                          "(rocksdb_write_buffer_manager_create_with_cache, rocksdb_options_set_write_buffer_manager: "
                          "RocksDB 8.10 and later; rocksdbjni 7.9.2 lacks them)", rdb_lib_path);
    rocksdb_write_buffer_manager_t *w = cache
        ? RDB.write_buffer_manager_create_with_cache((size_t)size, cache, (unsigned char)(allow_stall != 0))
        : RDB.write_buffer_manager_create((size_t)size, (unsigned char)(allow_stall != 0));
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory creating a write buffer manager");
    *out = w;
    return FERRY_OK;
}

void ferry_rocksdb_wbm_destroy(void *w)
{
    RDB.write_buffer_manager_destroy(w);
}

uint64_t ferry_rocksdb_wbm_usage(void *w)
{
    return (uint64_t)RDB.write_buffer_manager_memory_usage(w);
}
