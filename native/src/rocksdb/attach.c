/* RocksDB engine: attaching to the loaded librocksdbjni, errors, handles, and the engine-wide table
 * (ferry_rocksdb_lib) through which the ABI layer reaches attach, open and the objects of no store. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Engine table and attach                                             */

FERRY_HIDDEN rocksdb_api RDB;                /* written once under g_lock, before g_ready is set */

FERRY_HIDDEN plat_lib *rdb_lib;           /* reference to the attached object (never closed) */

FERRY_HIDDEN char *rdb_lib_path;                 /* its path */

FERRY_HIDDEN atomic_int rdb_ready;

FERRY_HIDDEN rocksdb_readoptions_t *rdb_rj_ropts;   /* interop reads without a snapshot (read-only after attach) */

FERRY_HIDDEN rocksdb_writeoptions_t *rdb_rj_wopts;  /* interop writes: WAL on, no sync */

static pthread_mutex_t rdb_attach_lock = PTHREAD_MUTEX_INITIALIZER;

/* A function every RocksJava library exports: it tells RocksJava's library among the loaded ones. */
#define RJ_MARKER "Java_org_rocksdb_RocksDB_closeDatabase"

/* RocksJava's library at path has no C API (rocksdbjni's Windows library is built without it). */
static int no_c_api(const char *path, ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "the rocksdbjni library %s exports no RocksDB C API (no rocksdb_* "
                      "functions, only RocksJava's Java_* functions; rocksdbjni's Windows library is built that way), "
                      "so Ferry's RocksDB engine is not available with it: on Windows use LMDB (Engine.LMDB)", path);
}

/* Find the one loaded object that itself defines RocksDB's C API. On FERRY_OK *h_out is a new
 * reference (the caller keeps or closes it) and *name_out a malloc'd path. */
static int find_loaded(plat_lib **h_out, char **name_out, ferry_error *err)
{
    char **names;
    size_t n;
    if (plat_loaded_names(&names, &n) != FERRY_OK)
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory listing objects");
    plat_lib *found = NULL;
    size_t found_i = 0;
    int rc = FERRY_OK;
    for (size_t i = 0; i < n && rc == FERRY_OK; i++) {
        plat_lib *h = plat_lib_find(names[i]);
        if (!h) continue;
        if (!plat_lib_defines(h, "rocksdb_open") || (found && plat_lib_same(h, found))) { plat_lib_close(h); continue; }
        if (found) {
            rc = ferry_fail(err, FERRY_EDUPENGINE, 0, "two RocksDB engines are loaded: %s and %s",
                            names[found_i], names[i]);
            plat_lib_close(h);
            break;
        }
        found = h;
        found_i = i;
    }
    for (size_t i = 0; i < n && rc == FERRY_OK && !found; i++) {  /* RocksJava's library without the C API? */
        plat_lib *h = plat_lib_find(names[i]);
        if (!h) continue;
        if (plat_lib_defines(h, RJ_MARKER)) rc = no_c_api(names[i], err);
        plat_lib_close(h);
    }
    if (rc == FERRY_OK && !found)
        rc = ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not loaded: call RocksDB.loadLibrary() first");
    if (rc == FERRY_OK) {
        *h_out = found;
        *name_out = names[found_i];
        names[found_i] = NULL;   /* ownership moved to the caller */
    } else if (found) {
        plat_lib_close(found);
    }
    plat_free_names(names, n);
    return rc;
}

/* Resolve the table from h and publish it. Closes h on failure. */
static int bind_engine(plat_lib *h, const char *path, ferry_error *err)
{
    rocksdb_api t;
    void *p;
#define RDB_RESOLVE(name, ret, params) \
    if (!(p = plat_lib_sym(h, "rocksdb_" #name))) { \
        plat_lib_close(h); \
        return ferry_fail(err, FERRY_ENOENGINE, 0, "%s does not export rocksdb_" #name, path); \
    } \
    memcpy(&t.name, &p, sizeof p);
    RDB_API_FUNCS(RDB_RESOLVE)
#undef RDB_RESOLVE
#define RDB_RESOLVE_OPTIONAL(name, ret, params) \
    p = plat_lib_sym(h, "rocksdb_" #name); \
    memcpy(&t.name, &p, sizeof p);
    RDB_API_OPTIONAL_FUNCS(RDB_RESOLVE_OPTIONAL)
#undef RDB_RESOLVE_OPTIONAL
    char *copy = strdup(path);
    if (!copy) { plat_lib_close(h); return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory"); }
    RDB = t;
    rdb_rj_ropts = RDB.readoptions_create();
    rdb_rj_wopts = RDB.writeoptions_create();
    rdb_lib = h;
    rdb_lib_path = copy;
    atomic_store_explicit(&rdb_ready, 1, memory_order_release);
    return FERRY_OK;
}

/* Attach the copy RocksJava loaded (lib_path NULL): find it, then bind or compare. */
static int attach_loaded(ferry_error *err)
{
    plat_lib *h;
    char *name;
    int rc = find_loaded(&h, &name, err);
    if (rc) return rc;
    if (atomic_load(&rdb_ready)) {
        int same = plat_lib_same(h, rdb_lib);
        plat_lib_close(h);
        rc = same ? FERRY_OK
                  : ferry_fail(err, FERRY_EDUPENGINE, 0, "RocksDB engine %s is attached, %s is also loaded", rdb_lib_path, name);
    } else {
        rc = bind_engine(h, name, err);
    }
    free(name);
    return rc;
}

/* Attach by path (native tests, C benchmark). Refuses to load a second copy. */
static int attach_path(const char *lib_path, ferry_error *err)
{
    if (atomic_load(&rdb_ready)) {
        if (plat_same_file(lib_path, rdb_lib_path)) return FERRY_OK;
        return ferry_fail(err, FERRY_EDUPENGINE, 0, "RocksDB engine %s is attached; not loading %s", rdb_lib_path, lib_path);
    }
    plat_lib *h;
    char *name;
    int rc = find_loaded(&h, &name, NULL);
    if (rc == FERRY_EDUPENGINE) return ferry_fail(err, rc, 0, "two RocksDB engines are already loaded");
    if (rc == FERRY_ENOMEM) return ferry_fail(err, rc, 0, "out of memory listing objects");
    if (rc == FERRY_OK) {
        int same = plat_same_file(lib_path, name);
        plat_lib_close(h);
        if (!same) {
            rc = ferry_fail(err, FERRY_EDUPENGINE, 0, "RocksDB engine %s is loaded; not loading %s", name, lib_path);
            free(name);
            return rc;
        }
        free(name);
    }
    h = plat_lib_open(lib_path);
    if (!h) return ferry_fail(err, FERRY_ENOENGINE, 0, "cannot load %s: %s", lib_path, plat_lib_error());
    if (!plat_lib_sym(h, "rocksdb_open") && plat_lib_defines(h, RJ_MARKER)) {
        plat_lib_close(h);
        return no_c_api(lib_path, err);
    }
    return bind_engine(h, lib_path, err);
}

int ferry_rocksdb_attach(const char *lib_path, ferry_error *err)
{
    pthread_mutex_lock(&rdb_attach_lock);
    int rc = lib_path ? attach_path(lib_path, err) : attach_loaded(err);
    pthread_mutex_unlock(&rdb_attach_lock);
    return rc;
}

int ferry_rocksdb_path(char *dst, size_t cap)
{
    pthread_mutex_lock(&rdb_attach_lock);
    int rc = FERRY_ENOENGINE;
    if (atomic_load(&rdb_ready)) {
        size_t len = strlen(rdb_lib_path);
        size_t c = len < cap - 1 ? len : cap - 1;
        memcpy(dst, rdb_lib_path, c);
        dst[c] = '\0';
        rc = len > INT_MAX ? INT_MAX : (int)len;
    }
    pthread_mutex_unlock(&rdb_attach_lock);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/* Status::ToString() prefixes and the matching codes (engine code = Status::Code). */
static const struct {
    const char *prefix;
    int code, engine_code;
} rdb_codes[] = {
    {"NotFound", FERRY_NOTFOUND, 1},
    {"Corruption", FERRY_ECORRUPTION, 2},
    {"Not implemented", FERRY_ENOTSUP, 3},
    {"Invalid argument", FERRY_EENGINEARG, 4},
    {"IO error", FERRY_EIO, 5},
    {"Merge in progress", FERRY_EENGINE, 6},
    {"Result incomplete", FERRY_EINCOMPLETE, 7},
    {"Shutdown in progress", FERRY_ESHUTDOWN, 8},
    {"Operation timed out", FERRY_ETIMEDOUT, 9},
    {"Operation aborted", FERRY_EABORTED, 10},
    {"Resource busy", FERRY_EBUSY, 11},
    {"Operation expired", FERRY_EENGINE, 12},
    {"Operation failed. Try again", FERRY_ETRYAGAIN, 13},
    {"Compaction too large", FERRY_EENGINE, 14},
    {"Column family dropped", FERRY_ECFDROPPED, 15},
};

/* Map a RocksDB error string to a FERRY_* code, record it in err and free the string. */
int rdb_error(ferry_error *err, char *msg)
{
    int code = FERRY_EENGINE, engine_code = 0;
    if (!msg) return ferry_fail(err, code, 0, "RocksDB failed without a message");
    for (size_t i = 0; i < sizeof rdb_codes / sizeof rdb_codes[0]; i++) {
        if (strncmp(msg, rdb_codes[i].prefix, strlen(rdb_codes[i].prefix)) == 0) {
            code = rdb_codes[i].code;
            engine_code = rdb_codes[i].engine_code;
            break;
        }
    }
    /* DB::Open's error_if_exists failure is an InvalidArgument naming the option */
    if (code == FERRY_EENGINEARG && strstr(msg, "error_if_exists")) code = FERRY_EEXISTS;
    ferry_fail(err, code, engine_code, "%s", msg);
    RDB.free(msg);
    return code;
}

/* Destroy everything a (possibly half-opened) store owns. */
void rdb_store_free(rdb_store *s)
{
    uint32_t n = atomic_load(&s->base.cf_chunks[0]) ? atomic_load(&s->base.cf_count) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (ferry_slot(&s->base, i)->handle) RDB.column_family_handle_destroy(ferry_slot(&s->base, i)->handle);
    if (s->base_db) {
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) RDB.transactiondb_close_base_db(s->base_db);
        else RDB.optimistictransactiondb_close_base_db(s->base_db);
    }
    if (s->txndb) {
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) RDB.transactiondb_close(s->txndb);
        else RDB.optimistictransactiondb_close(s->txndb);
    } else if (s->db) {
        RDB.close(s->db);
    }
    if (s->tdb_opts) RDB.transactiondb_options_destroy(s->tdb_opts);
    if (s->opts) RDB.options_destroy(s->opts);
    rdb_cmp_free(s);   /* after the database and the options that point at them */
    if (s->ropts) RDB.readoptions_destroy(s->ropts);
    if (s->wopts) RDB.writeoptions_destroy(s->wopts);
    if (s->fopts) RDB.flushoptions_destroy(s->fopts);
    if (s->cache) RDB.cache_destroy(s->cache);
    rdb_merge_release(s->java_merge);
    rdb_filter_release(s->java_filter);
    rdb_ttl_free(s);   /* after the database: its compactions used the filters */
    free(s->secondary);
    pthread_mutex_destroy(&s->ttl_lock);
    ferry_store_base_free(&s->base);
    pthread_rwlock_destroy(&s->drop_lock);
    free(s);
}

/* Close the store: family handles, database, options. */
int rdb_close(ferry_store *s)
{
    rdb_store_free(STORE(s));
    return FERRY_OK;
}

/* Open the database with every family and record the handles as slots. */
/* DB::Open failed on the LOCK file: say so in the words LMDB's path uses (FERRY_EBUSY, naming
 * the directory and who holds it), keeping RocksDB's text at the end. Other errors: rdb_error. */
int rdb_open_error(const char *path, char *e, ferry_error *err)
{
    if (!e || !strstr(e, "/LOCK")) return rdb_error(err, e);
    int here = strstr(e, "lock hold by current process") != NULL;
    int engine_code = 0;
    for (size_t i = 0; i < sizeof rdb_codes / sizeof rdb_codes[0]; i++)
        if (strncmp(e, rdb_codes[i].prefix, strlen(rdb_codes[i].prefix)) == 0) engine_code = rdb_codes[i].engine_code;
    ferry_fail(err, FERRY_EBUSY, engine_code,
               here ? "RocksDB store %s is already open in this process: share that Store instead (BUSY; RocksDB: %s)"
                    : "RocksDB store %s is already open: another process holds its lock (BUSY; RocksDB: %s)",
               path, e);
    RDB.free(e);
    return FERRY_EBUSY;
}

/* ------------------------------------------------------------------ */
/* The engine-wide table (internal.h): everything the ABI layer asks of RocksDB besides a store's ops */

static int rdb_open_primary(const char *path, const int64_t *opts, const char *extra, const ferry_cf_desc *cfs,
                            uint32_t ncfs, ferry_store **out, ferry_error *err)
{
    return ferry_rocksdb_open(path, NULL, opts, extra, cfs, ncfs, out, err);
}

static int rdb_ttl_clock(ferry_store *s, int64_t now_ms, ferry_error *err)
{
    (void)err;
    return ferry_rocksdb_ttl_clock(s, now_ms);
}

const ferry_engine_lib ferry_rocksdb_lib = {
    .attach = ferry_rocksdb_attach,
    .path = ferry_rocksdb_path,
    .open = rdb_open_primary,
    .open_secondary = ferry_rocksdb_open,
    .catch_up = ferry_rocksdb_catch_up,
    .ttl_clock = rdb_ttl_clock,
    .backups_open = ferry_rocksdb_backups_open,
    .backups_close = ferry_rocksdb_backups_close,
    .backups_create = ferry_rocksdb_backups_create,
    .backups_list = ferry_rocksdb_backups_list,
    .backups_restore = ferry_rocksdb_backups_restore,
    .backups_purge = ferry_rocksdb_backups_purge,
    .sst_open = ferry_rocksdb_sst_open,
    .sst_add = ferry_rocksdb_sst_add,
    .sst_finish = ferry_rocksdb_sst_finish,
    .sst_close = ferry_rocksdb_sst_close,
    .cache_create = ferry_rocksdb_cache_create,
    .cache_destroy = ferry_rocksdb_cache_destroy,
    .cache_usage = ferry_rocksdb_cache_usage,
    .wbm_create = ferry_rocksdb_wbm_create,
    .wbm_destroy = ferry_rocksdb_wbm_destroy,
    .wbm_usage = ferry_rocksdb_wbm_usage,
    .rj_cursor_owned = ferry_rocksdb_rj_cursor_owned,
    .rj_cursor_open = ferry_rocksdb_rj_cursor_open,
    .rj_cursor_wrap = ferry_rocksdb_rj_cursor_wrap,
    .rj_cursor_forget = ferry_rocksdb_rj_cursor_forget,
    .rj_get = ferry_rocksdb_rj_get,
    .rj_multi_get = ferry_rocksdb_rj_multi_get,
    .rj_put = ferry_rocksdb_rj_put,
    .rj_write = ferry_rocksdb_rj_write,
    .latest_sequence = ferry_rocksdb_latest_sequence,
    .cf_engine_id = ferry_rocksdb_cf_engine_id,
    .wal_open = ferry_rocksdb_wal_open,
    .wal_next = ferry_rocksdb_wal_next,
    .wal_close = ferry_rocksdb_wal_close,
    .limiter_create = ferry_rocksdb_limiter_create,
    .limiter_destroy = ferry_rocksdb_limiter_destroy,
    .sfm_create = ferry_rocksdb_sfm_create,
    .sfm_destroy = ferry_rocksdb_sfm_destroy,
    .sfm_usage = ferry_rocksdb_sfm_usage,
    .perf_level = ferry_rocksdb_perf_level,
    .perf_reset = ferry_rocksdb_perf_reset,
    .perf_report = ferry_rocksdb_perf_report,
};
