/* LMDB engine: attaching liblmdb (from org.lmdbjava:native, resolved at run time, see lmdb_api.h),
 * its errors, and the engine-wide table (ferry_lmdb_lib: attach, path, open; FERRY_ENOTSUP for the rest). */
#include "engine.h"

/* ------------------------------------------------------------------ attach */

FERRY_HIDDEN ferry_mdb_api MDB;

FERRY_HIDDEN atomic_int lmdb_attached;

static char *lmdb_lib_path;

static plat_lib *lmdb_lib;

static pthread_mutex_t lmdb_attach_lock = PTHREAD_MUTEX_INITIALIZER;

/* mdb_txn_id (LMDB 0.9.15 and later): resolved apart from the table, NULL when missing (then the default
 * family has no split points) */
FERRY_HIDDEN size_t (*lmdb_txn_id_fn)(MDB_txn *txn);

/* Find the liblmdb already loaded in this process (lib_path NULL): its file name. */
static const char *loaded_lmdb_path(void)
{
    return plat_global_sym_path("mdb_env_create");
}

/* Resolve every function of the table from handle; names the first missing one. */
static int resolve_mdb(plat_lib *handle, ferry_mdb_api *t, ferry_error *err)
{
#define FERRY_MDB_RESOLVE(ret, name, params)                                                    \
    *(void **)&t->name = plat_lib_sym(handle, #name);                                           \
    if (!t->name) return ferry_fail(err, FERRY_ENOENGINE, 0, "liblmdb lacks symbol %s", #name);
    FERRY_MDB_FUNCS(FERRY_MDB_RESOLVE)
#undef FERRY_MDB_RESOLVE
    return FERRY_OK;
}

/* Attach when already attached: the same object is fine, another one is a duplicate. */
static int attach_again(const char *path, ferry_error *err)
{
    if (strcmp(path, lmdb_lib_path) == 0) return FERRY_OK;
    plat_lib *h = plat_lib_find(path);
    if (h) {
        int same = plat_lib_same(h, lmdb_lib);
        plat_lib_close(h);
        if (same) return FERRY_OK;
    }
    return ferry_fail(err, FERRY_EDUPENGINE, 0, "liblmdb already attached from %s; refusing a second copy at %s",
                      lmdb_lib_path, path);
}

/* Load liblmdb (or find the loaded one) and resolve the mdb_* table, once per process. */
int ferry_lmdb_attach(const char *lib_path, ferry_error *err)
{
    const char *path = lib_path ? lib_path : loaded_lmdb_path();
    if (!path) return ferry_fail(err, FERRY_ENOENGINE, 0, "no liblmdb loaded in this process; pass its path");
    pthread_mutex_lock(&lmdb_attach_lock);
    int rc;
    if (atomic_load(&lmdb_attached)) {
        rc = attach_again(path, err);
    } else {
        plat_lib *h = plat_lib_open(path);
        ferry_mdb_api t;
        if (!h) {
            rc = ferry_fail(err, FERRY_ENOENGINE, 0, "cannot load liblmdb: %s", plat_lib_error());
        } else if ((rc = resolve_mdb(h, &t, err)) != FERRY_OK) {
            plat_lib_close(h);
        } else if (!(lmdb_lib_path = strdup(path))) {
            plat_lib_close(h);
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        } else {
            MDB = t;
            *(void **)&lmdb_txn_id_fn = plat_lib_sym(h, "mdb_txn_id");
            lmdb_lib = h;
            atomic_store_explicit(&lmdb_attached, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&lmdb_attach_lock);
    return rc;
}

/* Path of the attached liblmdb. */
int ferry_lmdb_path(char *dst, size_t cap)
{
    if (!atomic_load_explicit(&lmdb_attached, memory_order_acquire)) return FERRY_ENOENGINE;
    size_t len = strlen(lmdb_lib_path);
    size_t n = len < cap - 1 ? len : cap - 1;
    memcpy(dst, lmdb_lib_path, n);
    dst[n] = '\0';
    return (int)len;
}

/* ------------------------------------------------------------------ errors */

/* Map an LMDB / system return code to a FERRY_* code. LMDB's own codes are negative; a positive
 * one is the system's (errno, or on Windows mostly a Win32 error code: plat_sys_errno). */
int lmdb_map_rc(int rc)
{
    switch (rc > 0 ? plat_sys_errno(rc) : rc) {
    case MDB_NOTFOUND: return FERRY_NOTFOUND;
    case MDB_MAP_FULL: return FERRY_EMAPFULL;
    case MDB_READERS_FULL: return FERRY_EREADERSFULL;
    case MDB_DBS_FULL: return FERRY_EDBSFULL;
    case MDB_BAD_TXN: case MDB_BAD_RSLOT: return FERRY_EBADTXN;
    case MDB_BAD_VALSIZE: return FERRY_EKEYSIZE;
    case MDB_KEYEXIST: return FERRY_EEXISTS;
    case MDB_CORRUPTED: case MDB_PAGE_NOTFOUND: case MDB_INVALID: case MDB_VERSION_MISMATCH:
        return FERRY_ECORRUPTION;
    case EACCES: case EIO: case ENOSPC: case ENOENT: return FERRY_EIO;
    case EINVAL: return FERRY_EENGINEARG;
    case ENOMEM: return FERRY_ENOMEM;
    case EAGAIN: case EBUSY: return FERRY_EBUSY;
    default: return FERRY_EENGINE;
    }
}

/* The text of an LMDB return code (LMDB's mdb_strerror cannot be trusted with a Win32 code). */
const char *lmdb_strerror(int rc)
{
    return rc > 0 ? plat_sys_error_text(rc) : MDB.mdb_strerror(rc);
}

/* Record an LMDB failure: mapped code, rc as engine_code, "context: lmdb message". */
int lmdb_fail(ferry_error *err, int rc, const char *what)
{
    return ferry_fail(err, lmdb_map_rc(rc), rc, "%s: %s", what, lmdb_strerror(rc));
}

/* ------------------------------------------------------------------ */
/* The engine-wide table (internal.h): attach, path and open; LMDB has no backup engine, SST files,
 * shared caches, write buffer managers or RocksJava objects, so those entries answer FERRY_ENOTSUP. */

static int no_backups(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "LMDB has no backup engine: copy the store with ferry_checkpoint "
                      "(Store.checkpoint) instead");
}

static int no_sst(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "SST files are RocksDB's: load LMDB with a write batch instead");
}

static int no_shared(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "LMDB has no block cache or memtables (its reads go through the OS "
                      "page cache): no shared block cache or write buffer manager");
}

static int no_interop(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "RocksJava interop is RocksDB's");
}

static int lmdb_backups_open(const char *dir, ferry_backups **out, ferry_error *err)
{
    (void)dir; (void)out;
    return no_backups(err);
}

static int lmdb_backups_close(ferry_backups *b)
{
    (void)b;
    return FERRY_ENOTSUP;
}

static int lmdb_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err)
{
    (void)b; (void)s; (void)id_out;
    return no_backups(err);
}

static int lmdb_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err)
{
    (void)b; (void)dst; (void)cap; (void)count_out;
    return no_backups(err);
}

static int lmdb_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err)
{
    (void)b; (void)id; (void)db_dir;
    return no_backups(err);
}

static int lmdb_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err)
{
    (void)b; (void)keep;
    return no_backups(err);
}

static int lmdb_sst_open(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err)
{
    (void)path; (void)extra; (void)out;
    return no_sst(err);
}

static int lmdb_sst_add(ferry_sst_writer *w, int op, const void *key, size_t klen, const void *val, size_t vlen,
                        ferry_error *err)
{
    (void)w; (void)op; (void)key; (void)klen; (void)val; (void)vlen;
    return no_sst(err);
}

static int lmdb_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err)
{
    (void)w; (void)size_out;
    return no_sst(err);
}

static int lmdb_sst_close(ferry_sst_writer *w)
{
    (void)w;
    return FERRY_ENOTSUP;
}

static int lmdb_cache_create(uint64_t capacity, int strict, int64_t high_pri_ppm, void **out, int *rj_made,
                             ferry_error *err)
{
    (void)capacity; (void)strict; (void)high_pri_ppm; (void)out; (void)rj_made;
    return no_shared(err);
}

static void lmdb_cache_destroy(void *c, int rj_made)
{
    (void)c; (void)rj_made;
}

static void lmdb_cache_usage(void *c, uint64_t *usage, uint64_t *pinned)
{
    (void)c;
    *usage = 0;
    *pinned = 0;
}

static int lmdb_wbm_create(void *cache, uint64_t size, int allow_stall, void **out, ferry_error *err)
{
    (void)cache; (void)size; (void)allow_stall; (void)out;
    return no_shared(err);
}

static void lmdb_wbm_destroy(void *w)
{
    (void)w;
}

static uint64_t lmdb_wbm_usage(void *w)
{
    (void)w;
    return 0;
}

static int lmdb_rj_cursor_owned(const ferry_cursor *c)
{
    (void)c;
    return 0;
}

static int lmdb_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
                               const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    (void)db; (void)cf; (void)snapshot; (void)lower; (void)llen; (void)upper; (void)ulen; (void)flags; (void)out;
    return no_interop(err);
}

static int lmdb_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err)
{
    (void)iterator; (void)out;
    return no_interop(err);
}

static int lmdb_rj_cursor_forget(ferry_cursor *c)
{
    (void)c;
    return FERRY_ENOTSUP;
}

static int lmdb_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst, size_t cap,
                       size_t *vlen_out, ferry_error *err)
{
    (void)db; (void)cf; (void)snapshot; (void)key; (void)klen; (void)dst; (void)cap; (void)vlen_out;
    return no_interop(err);
}

static int lmdb_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys, size_t keys_len,
                             void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    (void)db; (void)cf; (void)snapshot; (void)n; (void)keys; (void)keys_len; (void)dst; (void)cap; (void)lens_out;
    return no_interop(err);
}

static int lmdb_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
                       ferry_error *err)
{
    (void)db; (void)cf; (void)key; (void)klen; (void)val; (void)vlen;
    return no_interop(err);
}

static int lmdb_rj_write(void *db, void *const *cfs, const void *ops, size_t len, ferry_error *err)
{
    (void)db; (void)cfs; (void)ops; (void)len;
    return no_interop(err);
}

static int lmdb_open_secondary(const char *path, const char *secondary, const int64_t *opts, const char *extra,
                               const ferry_cf_desc *cfs, uint32_t ncfs, ferry_store **out, ferry_error *err)
{
    (void)path; (void)secondary; (void)opts; (void)extra; (void)cfs; (void)ncfs; (void)out;
    return ferry_fail(err, FERRY_ENOTSUP, 0, "secondary instances are RocksDB's: an LMDB store sees every commit of "
                      "another process at its next read transaction");
}

static int lmdb_catch_up(ferry_store *s, ferry_error *err)
{
    (void)s;
    return ferry_fail(err, FERRY_ENOTSUP, 0, "secondary instances are RocksDB's: an LMDB store sees every commit of "
                      "another process at its next read transaction");
}

static int lmdb_ttl_clock(ferry_store *s, int64_t now_ms, ferry_error *err)
{
    (void)s; (void)now_ms;
    return ferry_fail(err, FERRY_ENOTSUP, 0, "TTL families are RocksDB's: LMDB has no compaction filter");
}

/* RocksDB services (ferry.h "RocksDB services"): LMDB has no sequence numbers and no write-ahead log */
static int no_wal(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "LMDB has no write-ahead log and no sequence numbers: a commit writes the "
                      "B+tree pages in place (RocksDB's WAL iterator has no LMDB counterpart)");
}

static int lmdb_latest_sequence(ferry_store *s, uint64_t *out, ferry_error *err)
{
    (void)s; (void)out;
    return no_wal(err);
}

static int lmdb_cf_engine_id(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err)
{
    (void)s; (void)cf; (void)out;
    return no_wal(err);
}

static int lmdb_wal_open(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err)
{
    (void)s; (void)since; (void)out;
    return no_wal(err);
}

static int lmdb_wal_next(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out, ferry_error *err)
{
    (void)w; (void)dst; (void)cap; (void)seq_out; (void)len_out;
    return no_wal(err);
}

static int lmdb_wal_close(ferry_wal *w)
{
    (void)w;
    return FERRY_OK;
}

static int lmdb_limiter_create(int64_t bytes_per_sec, int64_t refill_period_us, int32_t fairness, void **out,
                               ferry_error *err)
{
    (void)bytes_per_sec; (void)refill_period_us; (void)fairness; (void)out;
    return ferry_fail(err, FERRY_ENOTSUP, 0, "rate limiters are RocksDB's: LMDB has no flushes or compactions");
}

static void lmdb_destroy_nothing(void *p)
{
    (void)p;
}

static int lmdb_sfm_create(uint64_t max_allowed_space, int64_t delete_rate, void **out, ferry_error *err)
{
    (void)max_allowed_space; (void)delete_rate; (void)out;
    return ferry_fail(err, FERRY_ENOTSUP, 0, "SST file managers are RocksDB's: LMDB has no table files");
}

static void lmdb_sfm_usage(void *m, uint64_t *total_size, int *reached)
{
    (void)m;
    *total_size = 0;
    *reached = 0;
}

static int no_perf(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "PerfContext is RocksDB's: LMDB keeps no per-thread counters");
}

static int lmdb_perf_level(int32_t level, ferry_error *err)
{
    (void)level;
    return no_perf(err);
}

static int lmdb_perf_reset(ferry_error *err)
{
    return no_perf(err);
}

static int lmdb_perf_report(void *dst, size_t cap, size_t *len_out, ferry_error *err)
{
    (void)dst; (void)cap; (void)len_out;
    return no_perf(err);
}

const ferry_engine_lib ferry_lmdb_lib = {
    .attach = ferry_lmdb_attach,
    .path = ferry_lmdb_path,
    .open = ferry_lmdb_open,
    .open_secondary = lmdb_open_secondary,
    .catch_up = lmdb_catch_up,
    .ttl_clock = lmdb_ttl_clock,
    .backups_open = lmdb_backups_open,
    .backups_close = lmdb_backups_close,
    .backups_create = lmdb_backups_create,
    .backups_list = lmdb_backups_list,
    .backups_restore = lmdb_backups_restore,
    .backups_purge = lmdb_backups_purge,
    .sst_open = lmdb_sst_open,
    .sst_add = lmdb_sst_add,
    .sst_finish = lmdb_sst_finish,
    .sst_close = lmdb_sst_close,
    .cache_create = lmdb_cache_create,
    .cache_destroy = lmdb_cache_destroy,
    .cache_usage = lmdb_cache_usage,
    .wbm_create = lmdb_wbm_create,
    .wbm_destroy = lmdb_wbm_destroy,
    .wbm_usage = lmdb_wbm_usage,
    .rj_cursor_owned = lmdb_rj_cursor_owned,
    .rj_cursor_open = lmdb_rj_cursor_open,
    .rj_cursor_wrap = lmdb_rj_cursor_wrap,
    .rj_cursor_forget = lmdb_rj_cursor_forget,
    .rj_get = lmdb_rj_get,
    .rj_multi_get = lmdb_rj_multi_get,
    .rj_put = lmdb_rj_put,
    .rj_write = lmdb_rj_write,
    .latest_sequence = lmdb_latest_sequence,
    .cf_engine_id = lmdb_cf_engine_id,
    .wal_open = lmdb_wal_open,
    .wal_next = lmdb_wal_next,
    .wal_close = lmdb_wal_close,
    .limiter_create = lmdb_limiter_create,
    .limiter_destroy = lmdb_destroy_nothing,
    .sfm_create = lmdb_sfm_create,
    .sfm_destroy = lmdb_destroy_nothing,
    .sfm_usage = lmdb_sfm_usage,
    .perf_level = lmdb_perf_level,
    .perf_reset = lmdb_perf_reset,
    .perf_report = lmdb_perf_report,
};
