/* RocksDB engine: drives the C API exported by librocksdbjni (org.rocksdb:rocksdbjni) through a
 * function table resolved at attach time. See rocksdb_api.h for the functions used. */
#include "internal.h"
#include "platform.h"
#include "rocksdb_api.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Engine table and attach                                             */

static rocksdb_api R;                /* written once under g_lock, before g_ready is set */
static plat_lib *g_handle;           /* reference to the attached object (never closed) */
static char *g_path;                 /* its path */
static atomic_int g_ready;
static rocksdb_readoptions_t *g_rj_ropts;   /* interop reads without a snapshot (read-only after attach) */
static rocksdb_writeoptions_t *g_rj_wopts;  /* interop writes: WAL on, no sync */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* Are the transaction functions all there? */
static int rdb_has_txn(void)
{
#define RDB_PRESENT(name, ret, params) && R.name != NULL
    return 1 RDB_API_TXN_FUNCS(RDB_PRESENT);
#undef RDB_PRESENT
}

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
    R = t;
    g_rj_ropts = R.readoptions_create();
    g_rj_wopts = R.writeoptions_create();
    g_handle = h;
    g_path = copy;
    atomic_store_explicit(&g_ready, 1, memory_order_release);
    return FERRY_OK;
}

/* Attach the copy RocksJava loaded (lib_path NULL): find it, then bind or compare. */
static int attach_loaded(ferry_error *err)
{
    plat_lib *h;
    char *name;
    int rc = find_loaded(&h, &name, err);
    if (rc) return rc;
    if (atomic_load(&g_ready)) {
        int same = plat_lib_same(h, g_handle);
        plat_lib_close(h);
        rc = same ? FERRY_OK
                  : ferry_fail(err, FERRY_EDUPENGINE, 0, "RocksDB engine %s is attached, %s is also loaded", g_path, name);
    } else {
        rc = bind_engine(h, name, err);
    }
    free(name);
    return rc;
}

/* Attach by path (native tests, C benchmark). Refuses to load a second copy. */
static int attach_path(const char *lib_path, ferry_error *err)
{
    if (atomic_load(&g_ready)) {
        if (plat_same_file(lib_path, g_path)) return FERRY_OK;
        return ferry_fail(err, FERRY_EDUPENGINE, 0, "RocksDB engine %s is attached; not loading %s", g_path, lib_path);
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
    pthread_mutex_lock(&g_lock);
    int rc = lib_path ? attach_path(lib_path, err) : attach_loaded(err);
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int ferry_rocksdb_path(char *dst, size_t cap)
{
    pthread_mutex_lock(&g_lock);
    int rc = FERRY_ENOENGINE;
    if (atomic_load(&g_ready)) {
        size_t len = strlen(g_path);
        size_t c = len < cap - 1 ? len : cap - 1;
        memcpy(dst, g_path, c);
        dst[c] = '\0';
        rc = len > INT_MAX ? INT_MAX : (int)len;
    }
    pthread_mutex_unlock(&g_lock);
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
static int rdb_error(ferry_error *err, char *msg)
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
    R.free(msg);
    return code;
}

/* ------------------------------------------------------------------ */
/* Handles                                                             */

typedef struct rdb_store {
    ferry_store base;
    /* Writes hold it shared, a family drop exclusively: RocksDB fails a write to a dropped
     * family only after its WAL write, and then refuses every later write, so no write may
     * pass the dropped check before a drop and reach RocksDB after it. */
    pthread_rwlock_t drop_lock;
    rocksdb_t *db;
    rocksdb_options_t *opts;          /* DB and family options (kept for cf_create) */
    rocksdb_readoptions_t *ropts;     /* reads without a snapshot */
    rocksdb_writeoptions_t *wopts;
    int wal_off, sync_on;   /* the store's FERRY_OPT_WAL == 0 and FERRY_OPT_SYNC, which wopts holds */
    rocksdb_flushoptions_t *fopts;
    rocksdb_cache_t *cache;
    size_t readahead;                 /* cursors' readahead_size (0: RocksDB's automatic readahead) */
    int has_merge;                    /* the options string set one of the accepted merge operators */
    /* Transactions (FERRY_OPT_TRANSACTIONS): the TransactionDB or OptimisticTransactionDB, and db
     * then points at shell, a rocksdb_t around the same object (see rdb_txndb_shell) */
    int txn_mode;                     /* FERRY_TXN_MODE_* */
    void *txndb;
    rdb_db_shell shell;
    int64_t lock_timeout_ms;          /* FERRY_OPT_TXN_LOCK_TIMEOUT_MS, -1 = RocksDB's default */
    rocksdb_t *base_db;               /* the database under txndb (range deletes), or NULL */
    rocksdb_transactiondb_options_t *tdb_opts;
    /* A read-only store that RocksDB serves in its compacted-DB mode (see open_default_read_only;
     * property "ferry.compacted-read-only") */
    int compacted;
} rdb_store;

typedef struct rdb_txn {
    ferry_txn base;
    rocksdb_transaction_t *t;
    rocksdb_readoptions_t *ropts;     /* reads through the transaction */
    uint32_t *cfs;                    /* families written (commit checks none was dropped) */
    uint32_t ncfs, capcfs;
    /* RocksDB's savepoint stack, one entry per rocksdb_transaction_set_savepoint not yet rolled
     * back: 1 a live savepoint of ferry_txn_set_savepoint, 0 one popped (the C API has no pop) or
     * a batch's own (see rdb_txn_write), which the next rollback steps over */
    uint8_t *sps;
    uint32_t nsps, capsps;
} rdb_txn;

typedef struct rdb_snapshot {
    ferry_snapshot base;
    const rocksdb_snapshot_t *snap;
    rocksdb_readoptions_t *ropts;     /* reads at snap */
} rdb_snapshot;

typedef struct rdb_cursor {
    ferry_cursor base;
    rocksdb_iterator_t *it;           /* owned, or &borrowed for a wrapped RocksJava iterator */
    rocksdb_readoptions_t *ropts;     /* owned: holds the bound slices (NULL when wrapped) */
    rdb_iter_shell borrowed;          /* wrapped cursors: RocksJava's Iterator*, never destroyed */
    /* transaction cursors check the bounds themselves: a transaction's iterator merges the write
     * batch, whose entries the read options' bounds may not cover */
    int check_bounds;
    const char *lower, *upper;        /* into bounds, NULL = none */
    size_t llen, ulen;
    char bounds[];                    /* lower then upper bound bytes */
} rdb_cursor;

#define STORE(s) ((rdb_store *)(s))
#define CFH(slot) ((rocksdb_column_family_handle_t *)(slot)->handle)

/* Read options for a snapshot or the store's defaults. */
static inline const rocksdb_readoptions_t *read_opts(ferry_store *s, ferry_snapshot *snap)
{
    return snap ? ((rdb_snapshot *)snap)->ropts : STORE(s)->ropts;
}

/* Destroy everything a (possibly half-opened) store owns. */
static void store_free(rdb_store *s)
{
    uint32_t n = atomic_load(&s->base.cf_chunks[0]) ? atomic_load(&s->base.cf_count) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (ferry_slot(&s->base, i)->handle) R.column_family_handle_destroy(ferry_slot(&s->base, i)->handle);
    if (s->base_db) {
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) R.transactiondb_close_base_db(s->base_db);
        else R.optimistictransactiondb_close_base_db(s->base_db);
    }
    if (s->txndb) {
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) R.transactiondb_close(s->txndb);
        else R.optimistictransactiondb_close(s->txndb);
    } else if (s->db) {
        R.close(s->db);
    }
    if (s->tdb_opts) R.transactiondb_options_destroy(s->tdb_opts);
    if (s->opts) R.options_destroy(s->opts);
    if (s->ropts) R.readoptions_destroy(s->ropts);
    if (s->wopts) R.writeoptions_destroy(s->wopts);
    if (s->fopts) R.flushoptions_destroy(s->fopts);
    if (s->cache) R.cache_destroy(s->cache);
    ferry_store_base_free(&s->base);
    pthread_rwlock_destroy(&s->drop_lock);
    free(s);
}

/* Close the store: family handles, database, options. */
static int rdb_close(ferry_store *s)
{
    store_free(STORE(s));
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Open                                                                */

/* FERRY_COMPRESSION_* to RocksDB's compression type, or -1. */
static int compression_type(int64_t v)
{
    switch (v) {
    case FERRY_COMPRESSION_NONE: return RDB_NO_COMPRESSION;
    case FERRY_COMPRESSION_SNAPPY: return RDB_SNAPPY_COMPRESSION;
    case FERRY_COMPRESSION_LZ4: return RDB_LZ4_COMPRESSION;
    case FERRY_COMPRESSION_ZSTD: return RDB_ZSTD_COMPRESSION;
    default: return -1;
    }
}

/* Is c blank in an options string? */
static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* One "key=value" of a RocksDB options string ("k=v;k2={...};..."): [k, k + kn) and [v, v + vn),
 * trimmed; a value in braces keeps them. Returns the position after the pair, NULL at the end. */
static const char *next_option(const char *p, const char **k, size_t *kn, const char **v, size_t *vn)
{
    while (blank(*p) || *p == ';') p++;
    if (!*p) return NULL;
    *k = p;
    while (*p && *p != '=' && *p != ';') p++;
    const char *ke = p;
    while (ke > *k && blank(ke[-1])) ke--;
    *kn = (size_t)(ke - *k);
    *v = p;
    *vn = 0;
    if (*p != '=') return p;
    p++;
    while (blank(*p)) p++;
    *v = p;
    for (int depth = 0; *p && (depth > 0 || *p != ';'); p++) {
        if (*p == '{') depth++;
        else if (*p == '}' && depth > 0) depth--;
    }
    const char *ve = p;
    while (ve > *v && blank(ve[-1])) ve--;
    *vn = (size_t)(ve - *v);
    return p;
}

static int key_is(const char *k, size_t kn, const char *name)
{
    return kn == strlen(name) && memcmp(k, name, kn) == 0;
}

/* Does the n bytes at s contain word (memmem, which is not standard C)? */
static int contains(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(s + i, word, w) == 0) return 1;
    return 0;
}

/* Options a Ferry store cannot honour, in every pair of the string (RocksDB applies the last of
 * repeated keys): a comparator other than the bytewise one (Ferry orders keys as unsigned bytes
 * everywhere: ranges, range deletes, the Java side), and a table format without range deletes
 * (PlainTable, CuckooTable). Either would also let a range delete reach RocksDB that it fails
 * only after writing its WAL, which leaves the database refusing every later write until it is
 * reopened. */
static int check_extra(const char *extra, ferry_error *err)
{
    const char *k, *v;
    size_t kn, vn;
    for (const char *p = extra; (p = next_option(p, &k, &kn, &v, &vn)) != NULL;) {
        int shown = (int)(vn > 200 ? 200 : vn);
        if (key_is(k, kn, "comparator") && !key_is(v, vn, "leveldb.BytewiseComparator"))
            return ferry_fail(err, FERRY_EINVAL, 0, "options string sets comparator=%.*s: Ferry orders keys as unsigned "
                              "bytes (leveldb.BytewiseComparator) and supports no other comparator", shown, v);
        if (key_is(k, kn, "table_factory") && !contains(v, vn, "BlockBasedTable"))
            return ferry_fail(err, FERRY_EINVAL, 0, "options string sets table_factory=%.*s: Ferry needs range deletes, "
                              "which only BlockBasedTable supports", shown, v);
    }
    return FERRY_OK;
}

/* The merge operators a Ferry store accepts: RocksDB's built-ins that cannot harm the process.
 * Two reasons for a list: RocksDB's options parser ignores an unknown operator name silently
 * (the store then has none, and a merge in a write batch fails only after the WAL write), and
 * its "sortlist" parses operands with std::stoi, which throws through the C API and aborts the
 * process on an operand that is not a comma-separated list of integers. */
static const char *const merge_operators[] = {
    "put", "uint64add", "max", "bytesxor", "stringappend",
};

/* The merge_operator value of an options string: NULL/0 for none ("", "nullptr"), else its id
 * ("uint64add", or the id= of "{id=stringappend;delimiter=:}"). */
static int merge_operator_id(const char *v, size_t vn, const char **id, size_t *idn)
{
    *id = v;
    *idn = vn;
    if (vn > 0 && v[0] == '{') {
        const char *k, *iv;
        size_t kn, ivn;
        char inner[512];
        if (vn - 2 >= sizeof inner || v[vn - 1] != '}') return FERRY_EINVAL;
        memcpy(inner, v + 1, vn - 2);
        inner[vn - 2] = '\0';
        *idn = 0;
        for (const char *p = inner; (p = next_option(p, &k, &kn, &iv, &ivn)) != NULL;)
            if (key_is(k, kn, "id")) { *id = v + 1 + (iv - inner); *idn = ivn; }
        if (*idn == 0) return FERRY_EINVAL;
    }
    return FERRY_OK;
}

/* Find the options string's merge operator (the last merge_operator= wins, as in RocksDB) and
 * check it is one Ferry accepts; *has is 1 when the store will have one. */
static int check_merge(const char *extra, int *has, ferry_error *err)
{
    const char *k, *v, *id = NULL;
    size_t kn, vn, idn = 0;
    const char *val = NULL;
    size_t valn = 0;
    *has = 0;
    for (const char *p = extra; (p = next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (key_is(k, kn, "merge_operator")) { val = v; valn = vn; }
    if (!val || valn == 0 || key_is(val, valn, "nullptr")) return FERRY_OK;
    int shown = (int)(valn > 200 ? 200 : valn);
    if (merge_operator_id(val, valn, &id, &idn) == FERRY_OK)
        for (size_t i = 0; i < sizeof merge_operators / sizeof merge_operators[0]; i++)
            if (key_is(id, idn, merge_operators[i])) { *has = 1; return FERRY_OK; }
    return ferry_fail(err, FERRY_EINVAL, 0, "options string sets merge_operator=%.*s: Ferry accepts RocksDB's built-in "
                      "merge operators put, uint64add, max, bytesxor and stringappend (sortlist aborts the process on "
                      "a malformed operand; operators implemented in Java are not provided)", shown, val);
}

/* The merge operator of a store opened without one. RocksDB leaves a family without a merge
 * operator at NULL, and its iterators then call through that NULL when they meet merge operands
 * (a store that was opened with an operator before, or ingested a file holding operands): the
 * process dies. This operator refuses every merge instead, so such reads fail with RocksDB's
 * "Could not perform merge" (FERRY_ECORRUPTION) and the JVM lives. Ferry's own merges are
 * refused before RocksDB sees them (has_merge). Plain C callbacks: no Java involved. */
static char refused_value[1];

static char *refuse_full_merge(void *st, const char *key, size_t klen, const char *existing, size_t elen,
                               const char *const *ops, const size_t *op_lens, int n, unsigned char *success,
                               size_t *new_len)
{
    (void)st; (void)key; (void)klen; (void)existing; (void)elen; (void)ops; (void)op_lens; (void)n;
    *success = 0;
    *new_len = 0;
    return refused_value;
}

static char *refuse_partial_merge(void *st, const char *key, size_t klen, const char *const *ops,
                                  const size_t *op_lens, int n, unsigned char *success, size_t *new_len)
{
    (void)st; (void)key; (void)klen; (void)ops; (void)op_lens; (void)n;
    *success = 0;
    *new_len = 0;
    return refused_value;
}

static void refused_delete(void *st, const char *v, size_t vlen) { (void)st; (void)v; (void)vlen; }
static void refused_destroy(void *st) { (void)st; }
static const char *refused_name(void *st) { (void)st; return "ferry.NoMergeOperator"; }

/* Build s->opts and the read/write/flush options from the FERRY_OPT_* array and extra. */
static int configure(rdb_store *s, const int64_t *opts, const char *extra, ferry_error *err)
{
    if (extra && check_extra(extra, err)) return FERRY_EINVAL;
    if (extra && check_merge(extra, &s->has_merge, err)) return FERRY_EINVAL;
    int64_t cache_bytes = ferry_opt(opts, FERRY_OPT_BLOCK_CACHE_BYTES, -1);
    int64_t bloom = ferry_opt(opts, FERRY_OPT_BLOOM_BITS, 0);
    int64_t comp = ferry_opt(opts, FERRY_OPT_COMPRESSION, -1);
    int64_t max_files = ferry_opt(opts, FERRY_OPT_MAX_OPEN_FILES, -2);
    int ctype = comp == -1 ? -1 : compression_type(comp);
    if (comp != -1 && ctype < 0) return ferry_fail(err, FERRY_EINVAL, 0, "unknown compression %lld", (long long)comp);
    if (bloom < 0) return ferry_fail(err, FERRY_EINVAL, 0, "bloom bits per key is negative");
    if (max_files != -2 && (max_files < -1 || max_files > INT_MAX))
        return ferry_fail(err, FERRY_EINVAL, 0, "max_open_files out of range");
    if (cache_bytes < -1)
        return ferry_fail(err, FERRY_EINVAL, 0, "block cache size out of range");
    /* ferry.c checked the shared objects and put their engine pointers here (see ferry_store_open) */
    int64_t shared_v = ferry_opt(opts, FERRY_OPT_BLOCK_CACHE, 0), wbm_v = ferry_opt(opts, FERRY_OPT_WRITE_BUFFER_MANAGER, 0);
    rocksdb_cache_t *shared = shared_v ? (rocksdb_cache_t *)(intptr_t)shared_v : NULL;
    rocksdb_write_buffer_manager_t *wbm = wbm_v ? (rocksdb_write_buffer_manager_t *)(intptr_t)wbm_v : NULL;
    int64_t cif = ferry_opt(opts, FERRY_OPT_CACHE_INDEX_AND_FILTER, 0);
    if (cif < 0 || cif > 1) return ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_CACHE_INDEX_AND_FILTER is 0 or 1");
    if (cif && (!R.block_based_options_set_cache_index_and_filter_blocks ||
                !R.block_based_options_set_cache_index_and_filter_blocks_with_high_priority ||
                !R.block_based_options_set_pin_l0_filter_and_index_blocks_in_cache))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s cannot put index and filter blocks in the block cache "
                          "(rocksdb_block_based_options_set_cache_index_and_filter_blocks* missing)", g_path);
    if (wbm && !R.options_set_write_buffer_manager)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no rocksdb_options_set_write_buffer_manager", g_path);
    if (ferry_opt(opts, FERRY_OPT_WAL, 1) == 0 && ferry_opt(opts, FERRY_OPT_SYNC, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "syncWrites needs the write-ahead log: RocksDB cannot sync a write it "
                          "does not log (wal(false) with syncWrites(true); FERRY_OPT_WAL 0 with FERRY_OPT_SYNC 1)");

    int64_t txn_mode = ferry_opt(opts, FERRY_OPT_TRANSACTIONS, FERRY_TXN_MODE_NONE);
    int64_t lock_ms = ferry_opt(opts, FERRY_OPT_TXN_LOCK_TIMEOUT_MS, -1);
    if (txn_mode < FERRY_TXN_MODE_NONE || txn_mode > FERRY_TXN_MODE_OPTIMISTIC)
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown transaction mode %lld (FERRY_OPT_TRANSACTIONS)", (long long)txn_mode);
    if (lock_ms < -1) return ferry_fail(err, FERRY_EINVAL, 0, "lock timeout below -1 (FERRY_OPT_TXN_LOCK_TIMEOUT_MS)");
    /* a read-only store writes nothing: it opens as a plain read-only database (ferry_txn_begin then
     * fails with FERRY_EREADONLY) */
    if (ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0) txn_mode = FERRY_TXN_MODE_NONE;
    if (txn_mode != FERRY_TXN_MODE_NONE) {
        if (!rdb_has_txn())
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no transactions (rocksdb_transactiondb_* missing)", g_path);
    }
    s->txn_mode = (int)txn_mode;
    s->lock_timeout_ms = lock_ms;
    if (txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        s->tdb_opts = R.transactiondb_options_create();
        if (lock_ms >= 0) {
            R.transactiondb_options_set_transaction_lock_timeout(s->tdb_opts, lock_ms);
            R.transactiondb_options_set_default_lock_timeout(s->tdb_opts, lock_ms);
        }
    }

    s->opts = R.options_create();
    R.options_set_create_if_missing(s->opts, ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0);
    R.options_set_error_if_exists(s->opts, ferry_opt(opts, FERRY_OPT_ERROR_IF_EXISTS, 0) != 0);
    if (ctype >= 0) R.options_set_compression(s->opts, ctype);
    if (max_files != -2) R.options_set_max_open_files(s->opts, (int)max_files);
    if (cache_bytes >= 0 || bloom > 0 || shared || cif) {
        rocksdb_block_based_table_options_t *t = R.block_based_options_create();
        if (shared) {
            /* the table options keep their own reference to the C++ cache */
            R.block_based_options_set_block_cache(t, shared);
        } else if (cache_bytes >= 0) {
            s->cache = R.cache_create_lru((size_t)cache_bytes);
            R.block_based_options_set_block_cache(t, s->cache);
        }
        if (cif) {
            R.block_based_options_set_cache_index_and_filter_blocks(t, 1);
            R.block_based_options_set_cache_index_and_filter_blocks_with_high_priority(t, 1);
            R.block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(t, 1);
        }
        /* the table options take ownership of the policy */
        if (bloom > 0) R.block_based_options_set_filter_policy(t, R.filterpolicy_create_bloom_full((double)bloom));
        R.options_set_block_based_table_factory(s->opts, t);
        R.block_based_options_destroy(t);
    }
    if (extra && extra[0]) {
        rocksdb_options_t *merged = R.options_create();
        char *e = NULL;
        R.get_options_from_string(s->opts, extra, merged, &e);
        if (e) { R.options_destroy(merged); return rdb_error(err, e); }
        R.options_destroy(s->opts);
        s->opts = merged;
    }
    /* after the options string: the manager is the database's, whatever the string says */
    if (wbm) R.options_set_write_buffer_manager(s->opts, wbm);
    if (!s->has_merge)
        R.options_set_merge_operator(s->opts, R.mergeoperator_create(NULL, refused_destroy, refuse_full_merge,
                                                                     refuse_partial_merge, refused_delete, refused_name));
    int64_t readahead = ferry_opt(opts, FERRY_OPT_READAHEAD_BYTES, 0);
    if (readahead < 0) return ferry_fail(err, FERRY_EINVAL, 0, "readahead size (FERRY_OPT_READAHEAD_BYTES) is negative");
    s->readahead = (size_t)readahead;
    int64_t stats = ferry_opt(opts, FERRY_OPT_STATISTICS, 0);
    if (stats < 0 || stats > 1) return ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_STATISTICS is 0 or 1");
    if (stats) R.options_enable_statistics(s->opts);

    s->ropts = R.readoptions_create();
    s->wopts = R.writeoptions_create();
    s->wal_off = ferry_opt(opts, FERRY_OPT_WAL, 1) == 0;
    s->sync_on = ferry_opt(opts, FERRY_OPT_SYNC, 0) != 0;
    R.writeoptions_disable_WAL(s->wopts, s->wal_off);
    R.writeoptions_set_sync(s->wopts, s->sync_on);
    s->fopts = R.flushoptions_create();
    R.flushoptions_set_wait(s->fopts, 1);
    return FERRY_OK;
}

/* Slot bits of a family with options of its own (ferry_cf_slot.bits); a slot without
 * RDB_SLOT_OWN has the store's options. */
#define RDB_SLOT_OWN   0x1
#define RDB_SLOT_MERGE 0x2  /* with RDB_SLOT_OWN: the family has a merge operator */
#define RDB_SLOT_RANGE_DEL 0x4 /* a range delete may sit in the family's memtables (set by range deletes and by an
                                  open that replayed a log into them; never cleared): see rdb_split_points */

/* Whether merges into the family can work: it, or the store it inherits from, has an operator. */
static int family_has_merge(ferry_store *s, ferry_cf_slot *slot)
{
    int bits = atomic_load_explicit(&slot->bits, memory_order_relaxed);
    return bits & RDB_SLOT_OWN ? (bits & RDB_SLOT_MERGE) != 0 : STORE(s)->has_merge;
}

/* Whether an options string sets merge_operator at all (to an operator or to none). */
static int mentions_merge(const char *extra)
{
    const char *k, *v;
    size_t kn, vn;
    for (const char *p = extra; (p = next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (key_is(k, kn, "merge_operator")) return 1;
    return 0;
}

static const char *compression_name(int64_t v)
{
    switch (v) {
    case FERRY_COMPRESSION_NONE: return "kNoCompression";
    case FERRY_COMPRESSION_SNAPPY: return "kSnappyCompression";
    case FERRY_COMPRESSION_LZ4: return "kLZ4Compression";
    case FERRY_COMPRESSION_ZSTD: return "kZSTD";
    default: return NULL;
    }
}

/* Check a family's FERRY_CFOPT_* values and options string; *has_merge: whether the family will
 * have a merge operator. */
static int check_family(rdb_store *s, const char *name, const int64_t *o, const char *extra, int *has_merge,
                        ferry_error *err)
{
    int64_t comp = o[FERRY_CFOPT_COMPRESSION], bloom = o[FERRY_CFOPT_BLOOM_BITS];
    int64_t bs = o[FERRY_CFOPT_BLOCK_SIZE], pl = o[FERRY_CFOPT_PREFIX_LEN];
    if (comp != -1 && !compression_name(comp))
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': unknown compression %lld", name, (long long)comp);
    if (bloom < -1 || bloom > FERRY_CFOPT_MAX_BLOOM_BITS)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': bloom bits per key %lld outside 0..%d", name,
                          (long long)bloom, FERRY_CFOPT_MAX_BLOOM_BITS);
    if (bs != -1 && (bs < 1 || bs > FERRY_CFOPT_MAX_BLOCK_SIZE))
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': block size %lld outside 1..%d", name,
                          (long long)bs, FERRY_CFOPT_MAX_BLOCK_SIZE);
    if (pl < -1 || pl > FERRY_CFOPT_MAX_PREFIX_LEN)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': prefix length %lld outside 0..%d", name,
                          (long long)pl, FERRY_CFOPT_MAX_PREFIX_LEN);
    int fam_merge = 0;
    if (extra && (check_extra(extra, err) || check_merge(extra, &fam_merge, err))) return FERRY_EINVAL;
    *has_merge = extra && mentions_merge(extra) ? fam_merge : s->has_merge;
    return FERRY_OK;
}

/* A family's options: the store's with the FERRY_CFOPT_* values and the options string applied
 * (as a RocksDB options string, so a table override starts from the store's table options and
 * keeps its block cache). Sets *out (free with options_destroy) and *bits. Arguments checked by
 * check_family. */
static int family_options(rdb_store *s, const char *name, const int64_t *o, const char *extra,
                          rocksdb_options_t **out, int *bits, ferry_error *err)
{
    int has_merge;
    *out = NULL;
    *bits = 0;
    if (check_family(s, name, o, extra, &has_merge, err)) return FERRY_EINVAL;
    size_t cap = 512 + (extra ? strlen(extra) : 0);
    char *str = malloc(cap);
    if (!str) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    size_t n = 0;
    int64_t comp = o[FERRY_CFOPT_COMPRESSION], bloom = o[FERRY_CFOPT_BLOOM_BITS];
    int64_t bs = o[FERRY_CFOPT_BLOCK_SIZE], pl = o[FERRY_CFOPT_PREFIX_LEN];
    str[0] = '\0';
    if (comp != -1) n += (size_t)snprintf(str + n, cap - n, "compression=%s;", compression_name(comp));
    if (bloom != -1 || bs != -1) {
        n += (size_t)snprintf(str + n, cap - n, "block_based_table_factory={");
        if (bs != -1) n += (size_t)snprintf(str + n, cap - n, "block_size=%lld;", (long long)bs);
        if (bloom == 0) n += (size_t)snprintf(str + n, cap - n, "filter_policy=nullptr;");
        else if (bloom > 0) n += (size_t)snprintf(str + n, cap - n, "filter_policy=bloomfilter:%lld:false;", (long long)bloom);
        n += (size_t)snprintf(str + n, cap - n, "};");
    }
    if (pl == 0) n += (size_t)snprintf(str + n, cap - n, "prefix_extractor=nullptr;");
    else if (pl > 0) n += (size_t)snprintf(str + n, cap - n, "prefix_extractor=rocksdb.FixedPrefix.%lld;", (long long)pl);
    if (extra) snprintf(str + n, cap - n, "%s", extra);
    rocksdb_options_t *f = R.options_create();
    char *e = NULL;
    R.get_options_from_string(s->opts, str, f, &e);
    free(str);
    if (e) {
        R.options_destroy(f);
        return rdb_error(err, e);
    }
    /* merge_operator= set to none: never leave the family without an operator (see refuse_full_merge) */
    if (!has_merge && extra && mentions_merge(extra))
        R.options_set_merge_operator(f, R.mergeoperator_create(NULL, refused_destroy, refuse_full_merge,
                                                               refuse_partial_merge, refused_delete, refused_name));
    *out = f;
    *bits = RDB_SLOT_OWN | (has_merge ? RDB_SLOT_MERGE : 0);
    return FERRY_OK;
}

/* The record for family name, or NULL. */
static const ferry_cf_desc *find_desc(const ferry_cf_desc *cfs, uint32_t ncfs, const char *name)
{
    for (uint32_t i = 0; i < ncfs; i++)
        if (strcmp(cfs[i].name, name) == 0) return &cfs[i];
    return NULL;
}

/* The families to open: "default" first, then the others in on-disk order. Sets *list to the
 * engine's listing (free with list_column_families_destroy) or NULL when there is none yet. */
static int family_names(rdb_store *s, const char *path, char ***list, size_t *nlist,
                        const char ***names, size_t *n)
{
    static const char *dflt = "default";
    char *e = NULL;
    *nlist = 0;
    *list = R.list_column_families(s->opts, path, nlist, &e);
    if (e) {  /* typically no database yet: the open reports any real problem */
        R.free(e);
        if (*list) R.list_column_families_destroy(*list, *nlist);
        *list = NULL;
        *nlist = 0;
    }
    *names = malloc((*nlist + 1) * sizeof **names);
    if (!*names) return FERRY_ENOMEM;
    (*names)[0] = dflt;
    *n = 1;
    for (size_t i = 0; i < *nlist; i++)
        if (strcmp((*list)[i], dflt) != 0) (*names)[(*n)++] = (*list)[i];
    return FERRY_OK;
}

/* Open the database with every family and record the handles as slots. */
/* DB::Open failed on the LOCK file: say so in the words LMDB's path uses (FERRY_EBUSY, naming
 * the directory and who holds it), keeping RocksDB's text at the end. Other errors: rdb_error. */
static int open_error(const char *path, char *e, ferry_error *err)
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
    R.free(e);
    return FERRY_EBUSY;
}

/* Whether a database opened without a merge operator holds no merge operand, so that no read can
 * reach RocksDB's NULL operator (see refuse_full_merge): nothing in the memtables (a read-only open
 * replays the log into them) and no operand in any table file (each counts its operands in its
 * properties). Anything not known counts as holding some. */
static int no_merge_operands(rocksdb_t *db, rocksdb_column_family_handle_t *h)
{
    static const char key[] = "# merge operands=";
    uint64_t mem = 1, imm = 1;
    if (R.property_int_cf(db, h, "rocksdb.num-entries-active-mem-table", &mem) != 0 || mem != 0) return 0;
    if (R.property_int_cf(db, h, "rocksdb.num-entries-imm-mem-tables", &imm) != 0 || imm != 0) return 0;
    char *props = R.property_value_cf(db, h, "rocksdb.aggregated-table-properties");
    if (!props) return 0;
    const char *m = strstr(props, key);
    int none = 0;
    if (m) {
        const char *d = m + sizeof key - 1;
        char *end = NULL;
        errno = 0;
        unsigned long long count = strtoull(d, &end, 10);
        none = end != d && errno == 0 && count == 0;
    }
    R.free(props);
    return none;
}

/* A read-only store of the default family alone opens the engine's way (rocksdb_open_for_read_only),
 * which serves a fully compacted database from RocksDB's faster CompactedDBImpl, as a C program and
 * RocksJava's openReadOnly get. CompactedDBImpl refuses any merge operator, and a store without one
 * of its own gets the refusing operator (see refuse_full_merge), which would always send it to the
 * slower read-only implementation: so the database is first opened without any operator, and kept
 * so only when it holds no merge operand (no_merge_operands: a read-only store gains none); else it
 * is opened again with the refusing operator. Sets *e as the open does. */
static rocksdb_t *open_default_read_only(rdb_store *s, const char *path, char **e)
{
    if (!s->has_merge && R.options_create_copy) {
        rocksdb_options_t *plain = R.options_create_copy(s->opts);
        if (plain) {
            R.options_set_merge_operator(plain, NULL);
            rocksdb_t *db = R.open_for_read_only(plain, path, 0, e);
            R.options_destroy(plain); /* the database keeps its own copy */
            if (db && !*e) {
                rocksdb_column_family_handle_t *h = R.get_default_column_family_handle(db);
                int none = h && no_merge_operands(db, h), compacted = 0;
                if (none) {
                    /* only the compacted-DB mode words its refusal of a flush this way */
                    char *fe = NULL;
                    R.flush_cf(db, s->fopts, h, &fe);
                    compacted = fe && strstr(fe, "compacted db mode") != NULL;
                    if (fe) R.free(fe);
                }
                if (h) R.column_family_handle_destroy(h);
                if (none) {
                    s->compacted = compacted;
                    return db;
                }
            }
            if (*e) R.free(*e);
            *e = NULL;
            if (db) R.close(db);
        }
    }
    return R.open_for_read_only(s->opts, path, 0, e);
}

static int open_families(rdb_store *s, const char *path, int read_only, const ferry_cf_desc *cfs, uint32_t ncfs,
                         ferry_error *err)
{
    char **list;
    size_t nlist, n;
    const char **names;
    if (family_names(s, path, &list, &nlist, &names, &n))
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = FERRY_OK;
    rocksdb_column_family_handle_t **handles = calloc(n, sizeof *handles);
    const rocksdb_options_t **cf_opts = malloc(n * sizeof *cf_opts);
    rocksdb_options_t **own = calloc(n, sizeof *own);   /* families with options of their own */
    int *bits = calloc(n, sizeof *bits);
    if (!handles || !cf_opts || !own || !bits || n > INT_MAX) {
        rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const ferry_cf_desc *d = find_desc(cfs, ncfs, names[i]);
        cf_opts[i] = s->opts;
        if (!d) continue;
        rc = family_options(s, names[i], d->opts, d->extra, &own[i], &bits[i], err);
        if (rc) goto out;
        cf_opts[i] = own[i];
    }
    char *e = NULL;
    if (read_only && !s->txn_mode && n == 1 && !own[0] && R.get_default_column_family_handle
            && (s->db = open_default_read_only(s, path, &e)) != NULL && !e) {
        /* Only the default family: the engine's own read-only open (open_default_read_only); the
         * default family's handle is the engine's immortal one (destroying it frees only the
         * wrapper). Engines without rocksdb_get_default_column_family_handle take the open below. */
        handles[0] = R.get_default_column_family_handle(s->db);
        if (!handles[0]) {
            R.close(s->db);
            s->db = NULL;
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            goto out;
        }
    } else {
        if (e) R.free(e);
        e = NULL;
        if (s->db) R.close(s->db);
        s->db = NULL;
    }
    if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        s->txndb = R.transactiondb_open_column_families(s->opts, s->tdb_opts, path, (int)n, names, cf_opts, handles, &e);
    } else if (s->txn_mode == FERRY_TXN_MODE_OPTIMISTIC) {
        s->txndb = R.optimistictransactiondb_open_column_families(s->opts, path, (int)n, names, cf_opts, handles, &e);
    }
    if (s->txndb) {
        s->shell.rep = ((rdb_txndb_shell *)s->txndb)->rep;
        s->db = (rocksdb_t *)&s->shell;
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC && R.transactiondb_get_base_db && R.transactiondb_close_base_db)
            s->base_db = R.transactiondb_get_base_db(s->txndb);
        else if (s->txn_mode == FERRY_TXN_MODE_OPTIMISTIC && R.optimistictransactiondb_get_base_db
                 && R.optimistictransactiondb_close_base_db)
            s->base_db = R.optimistictransactiondb_get_base_db(s->txndb);
    }
    if (!s->db && !s->txn_mode) s->db = read_only
        ? R.open_for_read_only_column_families(s->opts, path, (int)n, names, cf_opts, handles, 0, &e)
        : R.open_column_families(s->opts, path, (int)n, names, cf_opts, handles, &e);
    if (e || !s->db) {
        if (s->txndb && e) { /* not expected: an open that failed returns NULL */
            if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) R.transactiondb_close(s->txndb);
            else R.optimistictransactiondb_close(s->txndb);
            s->txndb = NULL;
            s->db = NULL;
        }
        rc = open_error(path, e, err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t replayed = 0;   /* entries the log put back into the memtable, range deletes among them maybe */
        if (R.property_int_cf(s->db, handles[i], "rocksdb.num-entries-active-mem-table", &replayed) == 0 && replayed)
            bits[i] |= RDB_SLOT_RANGE_DEL;
        int arc = ferry_store_add_cf(&s->base, names[i], handles[i], bits[i], NULL);
        if (arc != FERRY_OK) {
            for (size_t j = i; j < n; j++) R.column_family_handle_destroy(handles[j]);
            rc = ferry_fail(err, arc, 0, "cannot record column family '%s'", names[i]);
            goto out;
        }
    }
out:
    if (list) R.list_column_families_destroy(list, nlist);
    free(names);
    free(handles);
    free(cf_opts);
    if (own)
        for (size_t i = 0; i < n; i++)
            if (own[i]) R.options_destroy(own[i]);
    free(own);
    free(bits);
    return rc;
}

static const ferry_engine_ops rdb_ops;


/* Without create_if_missing (or read-only): FERRY_NOTFOUND when there is no store at path,
 * said before RocksDB is asked (it would answer InvalidArgument or IOError, after creating the
 * directory). A RocksDB database always has a CURRENT file. */
static int check_exists(const char *path, int read_only, ferry_error *err)
{
    size_t n = strlen(path);
    char *current = malloc(n + 16);
    if (!current) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    snprintf(current, n + 16, "%s/CURRENT", path);
    int e = 0;
    int missing = !plat_stat(current, &e) && e == ENOENT;
    free(current);
    if (!missing) return FERRY_OK;
    return ferry_fail(err, FERRY_NOTFOUND, 0, "no RocksDB store at %s: CURRENT missing%s", path,
                      read_only ? " (read-only open)" : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
}

/* A store opened without a merge operator whose last open had one (its newest OPTIONS-* file names
 * an operator other than Ferry's refusing one) may hold merge operands that it cannot read:
 * FERRY_EINVAL naming the operator. Missing or unreadable files are left to RocksDB. */
static int check_merge_history(rdb_store *s, const char *path, const ferry_cf_desc *cfs, uint32_t ncfs,
                               ferry_error *err)
{
    plat_dir *d = plat_dir_open(path, NULL);
    if (!d) return FERRY_OK;
    unsigned long long best = 0;
    int found = 0;
    for (const char *name; (name = plat_dir_next(d)) != NULL;) {
        unsigned long long n;
        char tail;
        if (sscanf(name, "OPTIONS-%llu%c", &n, &tail) == 1 && (!found || n > best)) { best = n; found = 1; }
    }
    plat_dir_close(d);
    if (!found) return FERRY_OK;
    size_t plen = strlen(path) + 40;
    char *file = malloc(plen);
    if (!file) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    snprintf(file, plen, "%s/OPTIONS-%06llu", path, best);
    FILE *f = plat_fopen(file, "r");
    free(file);
    if (!f) return FERRY_OK;
    char line[1024];
    char family[512] = "default";   /* the [CFOptions "name"] section being read */
    int rc = FERRY_OK;
    while (rc == FERRY_OK && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (blank(*p)) p++;
        if (strncmp(p, "[CFOptions \"", 12) == 0) {
            p += 12;
            size_t n = strcspn(p, "\"\r\n");
            if (n >= sizeof family) n = sizeof family - 1;
            memcpy(family, p, n);
            family[n] = '\0';
            continue;
        }
        if (strncmp(p, "merge_operator=", 15) != 0) continue;
        p += 15;
        size_t n = strcspn(p, "\r\n");
        while (n > 0 && blank(p[n - 1])) n--;
        if (n == 0 || key_is(p, n, "nullptr") || key_is(p, n, "ferry.NoMergeOperator")) continue;
        const ferry_cf_desc *d = find_desc(cfs, ncfs, family);
        int has = s->has_merge;
        if (d && check_family(s, d->name, d->opts, d->extra, &has, err)) { rc = FERRY_EINVAL; break; }
        if (has) continue;
        rc = ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' of the RocksDB store at %s was last opened with merge "
                        "operator %.*s and may hold merge operands, which a family without a merge operator cannot "
                        "read: open it with its merge operator (StoreOptions.mergeOperator(...) for the store, "
                        "StoreOptions.columnFamily(name, ColumnFamilyOptions) for one family)", family, path,
                        (int)(n > 200 ? 200 : n), p);
    }
    fclose(f);
    return rc;
}

/* A read-only open reads the MANIFEST and lists the write-ahead logs, then opens the files they name. A
 * writer of the same database (a store of this process whose close waits for a cursor of another
 * thread, or another process) may delete one of them in between, as its flushes and compactions do:
 * RocksDB then fails the open with "No such file or directory" (an IOError, or a Corruption status
 * saying the MANIFEST "may be corrupted"). The database is sound; the open is tried again, reading
 * the MANIFEST anew, up to RO_OPEN_ATTEMPTS more times (about a quarter of a second in all); a file
 * still missing after that is reported as RocksDB reports it. */
#define RO_OPEN_ATTEMPTS 30

static int file_vanished(const ferry_error *err)
{
    return (err->code == FERRY_EIO || err->code == FERRY_ECORRUPTION)
        && strstr(err->message, "No such file or directory") != NULL;
}

int ferry_rocksdb_open(const char *path, const int64_t *opts, const char *extra, const ferry_cf_desc *cfs,
                       uint32_t ncfs, ferry_store **out, ferry_error *err)
{
    if (!atomic_load_explicit(&g_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    rdb_store *s = calloc(1, sizeof *s);
    if (!s) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    /* a drop must not wait behind an endless stream of writes */
    plat_rwlock_init_writer_first(&s->drop_lock);
    if (ferry_store_base_init(&s->base, &rdb_ops, FERRY_ENGINE_ROCKSDB, UINT32_MAX) != FERRY_OK) {
        store_free(s);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    int read_only = ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0;
    int create = ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0;
    int rc = !create || read_only ? check_exists(path, read_only, err) : FERRY_OK;
    if (rc == FERRY_OK) rc = configure(s, opts, extra, err);
    for (uint32_t i = 0; rc == FERRY_OK && i < ncfs; i++) {  /* every record checked, named families or not */
        int has;
        rc = check_family(s, cfs[i].name, cfs[i].opts, cfs[i].extra, &has, err);
    }
    if (rc == FERRY_OK) rc = check_merge_history(s, path, cfs, ncfs, err);
    if (rc == FERRY_OK) {
        rc = open_families(s, path, read_only, cfs, ncfs, err);
        for (int attempt = 1; rc != FERRY_OK && read_only && attempt <= RO_OPEN_ATTEMPTS && file_vanished(err); attempt++) {
            plat_sleep_us((uint32_t)(attempt < 10 ? attempt : 10) * 1000);
            rc = open_families(s, path, read_only, cfs, ncfs, err);
        }
    }
    if (rc != FERRY_OK) {
        store_free(s);
        return rc;
    }
    s->base.read_only = read_only;
    *out = &s->base;
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Column families and snapshots                                       */

/* Create a family: with the store's options, or (opts non-NULL) with options of its own. ferry.c
 * refused flags (LMDB's). */
static int rdb_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, const char *extra,
                         void **handle_out, int *bits_out, ferry_error *err)
{
    (void)flags;
    rocksdb_options_t *f = STORE(s)->opts;
    if (opts) {
        int rc = family_options(STORE(s), name, opts, extra, &f, bits_out, err);
        if (rc) return rc;
    }
    char *e = NULL;
    rocksdb_column_family_handle_t *h = R.create_column_family(STORE(s)->db, f, name, &e);
    if (f != STORE(s)->opts) R.options_destroy(f);
    if (e) return rdb_error(err, e);
    *handle_out = h;
    return FERRY_OK;
}

/* Drop the family; its handle stays alive (and is destroyed at store close). The slot is
 * marked dropped before writes may run again (see drop_lock). */
static int rdb_cf_drop(ferry_store *s, ferry_cf_slot *slot, ferry_error *err)
{
    char *e = NULL;
    pthread_rwlock_wrlock(&STORE(s)->drop_lock);
    R.drop_column_family(STORE(s)->db, CFH(slot), &e);
    if (!e) atomic_store(&slot->dropped, 1);
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* Take a snapshot with its own read options. */
static int rdb_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
{
    rdb_snapshot *sn = calloc(1, sizeof *sn);
    if (!sn) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    sn->base.store = s;
    sn->snap = R.create_snapshot(STORE(s)->db);
    sn->ropts = R.readoptions_create();
    R.readoptions_set_snapshot(sn->ropts, sn->snap);
    *out = &sn->base;
    return FERRY_OK;
}

/* Release the snapshot and its read options. */
static int rdb_snapshot_close(ferry_snapshot *snap)
{
    rdb_snapshot *sn = (rdb_snapshot *)snap;
    R.readoptions_destroy(sn->ropts);
    R.release_snapshot(STORE(snap->store)->db, sn->snap);
    free(sn);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Reads                                                               */

/* Pinned point read: copy min(vlen, cap) bytes, report the full length. */
static int get_core(rocksdb_t *db, const rocksdb_readoptions_t *ro, rocksdb_column_family_handle_t *cf,
                    const void *key, size_t klen, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    char *e = NULL;
    rocksdb_pinnableslice_t *v = R.get_pinned_cf(db, ro, cf, key, klen, &e);
    if (e) return rdb_error(err, e);
    if (!v) return FERRY_NOTFOUND;
    size_t vlen;
    const char *val = R.pinnableslice_value(v, &vlen);
    if (cap) memcpy(dst, val, vlen < cap ? vlen : cap);
    *vlen_out = vlen;
    R.pinnableslice_destroy(v);
    return FERRY_OK;
}


/* Point reads in key order, packing values into dst until the next one does not fit. */
static int multi_get_core(rocksdb_t *db, const rocksdb_readoptions_t *ro, rocksdb_column_family_handle_t *cf,
                          uint32_t n, const void *keys, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    const uint8_t *p = keys;
    uint8_t *out = dst;
    size_t used = 0;
    if (n > INT_MAX) n = INT_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl;
        memcpy(&kl, p, 4);
        const char *k = (const char *)p + 4;
        p += 4 + (size_t)kl;
        char *e = NULL;
        rocksdb_pinnableslice_t *v = R.get_pinned_cf(db, ro, cf, k, kl, &e);
        if (e) return rdb_error(err, e);
        if (!v) { lens_out[i] = -1; continue; }
        size_t vlen;
        const char *val = R.pinnableslice_value(v, &vlen);
        if (vlen > cap - used) {
            R.pinnableslice_destroy(v);
            if (i > 0) return (int)i;
            lens_out[0] = (int64_t)vlen;
            return ferry_fail(err, FERRY_ETOOSMALL, 0, "value of %zu bytes does not fit in %zu", vlen, cap);
        }
        if (vlen) memcpy(out + used, val, vlen);
        used += vlen;
        lens_out[i] = (int64_t)vlen;
        R.pinnableslice_destroy(v);
    }
    return (int)n;
}

/* Read options for one point read with FERRY_CURSOR_NO_FILL_CACHE / NO_VERIFY_CHECKSUMS flags. */
static rocksdb_readoptions_t *flag_read_opts(ferry_snapshot *snap, uint32_t flags)
{
    rocksdb_readoptions_t *ro = R.readoptions_create();
    if (!ro) return NULL;
    if (snap) R.readoptions_set_snapshot(ro, ((rdb_snapshot *)snap)->snap);
    R.readoptions_set_fill_cache(ro, !(flags & FERRY_CURSOR_NO_FILL_CACHE));
    R.readoptions_set_verify_checksums(ro, !(flags & FERRY_CURSOR_NO_VERIFY_CHECKSUMS));
    return ro;
}

/* Store read: the store's or the snapshot's read options, or with flags options made for this call. */
static int rdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                   uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    if (!flags) return get_core(STORE(s)->db, read_opts(s, snap), CFH(cf), key, klen, dst, cap, vlen_out, err);
    rocksdb_readoptions_t *ro = flag_read_opts(snap, flags);
    if (!ro) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = get_core(STORE(s)->db, ro, CFH(cf), key, klen, dst, cap, vlen_out, err);
    R.readoptions_destroy(ro);
    return rc;
}

/* Store multi-read, read options as for rdb_get. */
static int rdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n, const void *keys,
                         uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    if (!flags) return multi_get_core(STORE(s)->db, read_opts(s, snap), CFH(cf), n, keys, dst, cap, lens_out, err);
    rocksdb_readoptions_t *ro = flag_read_opts(snap, flags);
    if (!ro) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = multi_get_core(STORE(s)->db, ro, CFH(cf), n, keys, dst, cap, lens_out, err);
    R.readoptions_destroy(ro);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Writes                                                              */

/* Write one key. */
static int put_core(rocksdb_t *db, const rocksdb_writeoptions_t *wo, rocksdb_column_family_handle_t *cf,
                    const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err)
{
    char *e = NULL;
    R.put_cf(db, wo, cf, key, klen, val, vlen, &e);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* Take drop_lock shared and check the family is still live; on failure the lock is not held. */
static int write_enter(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    if (!atomic_load(&cf->dropped)) return FERRY_OK;
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", cf->name);
}

static void write_exit(ferry_store *s)
{
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
}

/* Write options for FERRY_WRITE_SYNC / NO_WAL (ferry.c refused the LMDB-only flags): the store's
 * own when neither is set, else a copy made for this call (release with wopts_release). */
static rocksdb_writeoptions_t *wopts_for(ferry_store *s, uint32_t flags)
{
    if (!(flags & (FERRY_WRITE_SYNC | FERRY_WRITE_NO_WAL))) return STORE(s)->wopts;
    rocksdb_writeoptions_t *wo = R.writeoptions_create();
    if (!wo) return NULL;
    R.writeoptions_disable_WAL(wo, (flags & FERRY_WRITE_NO_WAL) || STORE(s)->wal_off);
    R.writeoptions_set_sync(wo, (flags & FERRY_WRITE_SYNC) || STORE(s)->sync_on);
    return wo;
}

static void wopts_release(ferry_store *s, rocksdb_writeoptions_t *wo)
{
    if (wo && wo != STORE(s)->wopts) R.writeoptions_destroy(wo);
}

/* Store put: the store's write options, or with FERRY_WRITE_SYNC / NO_WAL options made for this call. */
static int rdb_put(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *val,
                   size_t vlen, uint32_t flags, ferry_error *err)
{
    if (!flags) {
        int rc = write_enter(s, cf, err);
        if (rc) return rc;
        rc = put_core(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, val, vlen, err);
        write_exit(s);
        return rc;
    }
    rocksdb_writeoptions_t *wo = wopts_for(s, flags);
    if (!wo) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = write_enter(s, cf, err);
    if (rc == FERRY_OK) {
        rc = put_core(STORE(s)->db, wo, CFH(cf), key, klen, val, vlen, err);
        write_exit(s);
    }
    wopts_release(s, wo);
    return rc;
}

/* A merge without an operator: RocksDB refuses a single merge itself, but a merge in a write
 * batch only after its WAL write; say it in Ferry's words before either. */
static int no_merge_operator(ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "this store has no merge operator: open it with "
                      "StoreOptions.mergeOperator(...) (options string: merge_operator=uint64add)");
}

/* Merge one operand into a key. */
static int rdb_merge(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, const void *operand,
                     size_t olen, ferry_error *err)
{
    if (!family_has_merge(s, cf)) return no_merge_operator(err);
    int rc = write_enter(s, cf, err);
    if (rc) return rc;
    char *e = NULL;
    R.merge_cf(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, operand, olen, &e);
    write_exit(s);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* Delete one key. */
static int rdb_del(ferry_store *s, ferry_cf_slot *cf, const void *key, size_t klen, ferry_error *err)
{
    int rc = write_enter(s, cf, err);
    if (rc) return rc;
    char *e = NULL;
    R.delete_cf(STORE(s)->db, STORE(s)->wopts, CFH(cf), key, klen, &e);
    write_exit(s);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* The database range deletes go to: the store's, or on a store with transactions the base database
 * under it (TransactionDB and OptimisticTransactionDB refuse range deletes; applied to the base
 * database they bypass the transactions' key locks, as documented). NULL (FERRY_ENOTSUP recorded)
 * when the RocksDB library cannot reach the base database. */
static rocksdb_t *range_db(rdb_store *s, ferry_error *err)
{
    if (!s->txn_mode) return s->db;
    if (!s->base_db)
        ferry_fail(err, FERRY_ENOTSUP, 0, "range deletes on a RocksDB store opened with transactions need "
                   "rocksdb_transactiondb_get_base_db, which %s lacks (rocksdbjni 11.8.1 has it; 7.9.2 does not)", g_path);
    return s->base_db;
}

/* Delete [begin, end); ferry.c has already turned an empty range into a no-op. */
static int rdb_delete_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                            const void *end, size_t elen, ferry_error *err)
{
    rocksdb_t *db = range_db(STORE(s), err);
    if (!db) return FERRY_ENOTSUP;
    int rc = write_enter(s, cf, err);
    if (rc) return rc;
    atomic_fetch_or(&cf->bits, RDB_SLOT_RANGE_DEL);
    char *e = NULL;
    R.delete_range_cf(db, STORE(s)->wopts, CFH(cf), begin, blen, end, elen, &e);
    write_exit(s);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* The family handle of a batch record's cf id. */
typedef rocksdb_column_family_handle_t *(*cf_of_fn)(void *ctx, uint32_t id);

/* Translate validated records into one RocksDB write batch and apply it. */
static int write_core(rocksdb_t *db, const rocksdb_writeoptions_t *wo, const void *ops, size_t len,
                      cf_of_fn cf_of, void *ctx, ferry_error *err)
{
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++)
        if (r.op == FERRY_OP_DELETE_VALUE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: deleting one value of a key needs an LMDB "
                              "DUPSORT column family: RocksDB keeps one value per key (delete the key)", i);
    rocksdb_writebatch_t *b = R.writebatch_create();
    p = ops;
    while (ferry_batch_next(&p, end, &r)) {
        rocksdb_column_family_handle_t *h = cf_of(ctx, r.cf);
        const char *a = (const char *)r.a, *bb = (const char *)r.b;
        /* an empty range is a no-op: RocksDB would fail it after the WAL write (see ferry_range_empty) */
        if (r.op == FERRY_OP_DELETE_RANGE && ferry_range_empty(a, r.alen, bb, r.blen)) continue;
        switch (r.op) {
        case FERRY_OP_PUT: R.writebatch_put_cf(b, h, a, r.alen, bb, r.blen); break;
        case FERRY_OP_MERGE: R.writebatch_merge_cf(b, h, a, r.alen, bb, r.blen); break;
        case FERRY_OP_DELETE: R.writebatch_delete_cf(b, h, a, r.alen); break;
        default: R.writebatch_delete_range_cf(b, h, a, r.alen, bb, r.blen); break;
        }
    }
    char *e = NULL;
    R.write(db, wo, b, &e);
    R.writebatch_destroy(b);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* A store's family handle by id (ctx: the store). */
static rocksdb_column_family_handle_t *store_cf_of(void *ctx, uint32_t id)
{
    return ferry_slot(ctx, id)->handle;
}

/* Store batch write, write options as for rdb_put: every family it names must still be live under
 * drop_lock. */
static int rdb_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags, ferry_error *err)
{
    (void)count;
    rocksdb_writeoptions_t *wo = wopts_for(s, flags);
    if (!wo) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(s, r.cf);
        if (r.op == FERRY_OP_MERGE && !family_has_merge(s, slot)) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return no_merge_operator(err);
        }
        if (atomic_load(&slot->dropped)) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", i, slot->name);
        }
        if (r.op == FERRY_OP_DELETE_RANGE) atomic_fetch_or(&slot->bits, RDB_SLOT_RANGE_DEL);
    }
    rocksdb_t *db = STORE(s)->db;
    if (STORE(s)->txn_mode) {   /* a batch with a range delete goes to the base database (see range_db) */
        int ranges = 0;
        p = ops;
        while (!ranges && ferry_batch_next(&p, end, &r)) ranges = r.op == FERRY_OP_DELETE_RANGE;
        if (ranges && !(db = range_db(STORE(s), err))) {
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            wopts_release(s, wo);
            return FERRY_ENOTSUP;
        }
    }
    int rc = write_core(db, wo, ops, len, store_cf_of, s, err);
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    wopts_release(s, wo);
    return rc;
}

/* Flush the family's memtables and wait. */
static int rdb_flush(ferry_store *s, ferry_cf_slot *cf, ferry_error *err)
{
    char *e = NULL;
    R.flush_cf(STORE(s)->db, STORE(s)->fopts, CFH(cf), &e);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* Compact [begin, end); NULL bounds are open. */
static int rdb_compact_range(ferry_store *s, ferry_cf_slot *cf, const void *begin, size_t blen,
                             const void *end, size_t elen, ferry_error *err)
{
    R.compact_range_cf(STORE(s)->db, CFH(cf), begin, begin ? blen : 0, end, end ? elen : 0);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */

/* A text property, truncated to cap. */
static int rdb_property(ferry_store *s, ferry_cf_slot *cf, const char *name, char *dst, size_t cap,
                        size_t *len_out, ferry_error *err)
{
    char *v = R.property_value_cf(STORE(s)->db, CFH(cf), name);
    if (!v) return ferry_fail(err, FERRY_NOTFOUND, 0, "no property '%s'", name);
    size_t len = strlen(v);
    size_t c = len < cap - 1 ? len : cap - 1;
    memcpy(dst, v, c);
    dst[c] = '\0';
    *len_out = len;
    R.free(v);
    return FERRY_OK;
}

/* A numeric property; "ferry.estimate-num-keys" is RocksDB's estimate. */
static int rdb_property_int(ferry_store *s, ferry_cf_slot *cf, const char *name, uint64_t *out,
                            ferry_error *err)
{
    if (strcmp(name, "ferry.compacted-read-only") == 0) {
        *out = (uint64_t)STORE(s)->compacted;
        return FERRY_OK;
    }
    const char *rname = strcmp(name, "ferry.estimate-num-keys") == 0 ? "rocksdb.estimate-num-keys" : name;
    if (R.property_int_cf(STORE(s)->db, CFH(cf), rname, out) != 0)
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no integer property '%s'", name);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Cursors                                                             */

/* An iterator on db/cf with its own read options and cursor-owned copies of the bounds.
 * owner: the store, or the interop pseudo-store for cursors on RocksJava's objects. */
static int cursor_create_in(ferry_store *owner, rocksdb_t *db, rocksdb_transaction_t *txn,
                            rocksdb_column_family_handle_t *cf, const rocksdb_snapshot_t *snap, const void *lower,
                            size_t llen, const void *upper, size_t ulen, uint32_t flags, size_t readahead,
                            ferry_cursor **out, ferry_error *err)
{
    if ((flags & FERRY_CURSOR_ASYNC_IO) && !R.readoptions_set_async_io)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no asynchronous reads (rocksdb_readoptions_set_async_io, "
                          "RocksDB 8 and later): open the cursor without asyncIo", g_path);
    if ((flags & FERRY_CURSOR_AUTO_PREFIX) && !R.readoptions_set_auto_prefix_mode)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no automatic prefix mode (rocksdb_readoptions_set_auto_prefix_mode): "
                          "open the cursor without autoPrefixMode", g_path);
    size_t blen = (lower ? llen : 0) + (upper ? ulen : 0);
    if (blen < llen) return ferry_fail(err, FERRY_EINVAL, 0, "bounds too long");
    rdb_cursor *c = calloc(1, sizeof *c + blen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    c->base.store = owner;
    c->ropts = R.readoptions_create();
    /* Ferry's ranges are exact: with a prefix_extractor (set through the options string, or by a
     * RocksJava application) a prefix seek may skip keys of other prefixes. Automatic prefix mode
     * keeps total-order answers: RocksDB takes the prefix path only where it cannot change them. */
    if (flags & FERRY_CURSOR_AUTO_PREFIX) R.readoptions_set_auto_prefix_mode(c->ropts, 1);
    else R.readoptions_set_total_order_seek(c->ropts, 1);
    if (snap) R.readoptions_set_snapshot(c->ropts, snap);
    if (flags & FERRY_CURSOR_NO_FILL_CACHE) R.readoptions_set_fill_cache(c->ropts, 0);
    if (flags & FERRY_CURSOR_NO_VERIFY_CHECKSUMS) R.readoptions_set_verify_checksums(c->ropts, 0);
    if (flags & FERRY_CURSOR_ASYNC_IO) R.readoptions_set_async_io(c->ropts, 1);
    if (readahead) R.readoptions_set_readahead_size(c->ropts, readahead);
    char *b = c->bounds;
    if (lower) {
        if (llen) memcpy(b, lower, llen);
        R.readoptions_set_iterate_lower_bound(c->ropts, b, llen);
        c->lower = b;
        c->llen = llen;
        b += llen;
    }
    if (upper) {
        if (ulen) memcpy(b, upper, ulen);
        R.readoptions_set_iterate_upper_bound(c->ropts, b, ulen);
        c->upper = b;
        c->ulen = ulen;
    }
    c->check_bounds = txn != NULL;
    c->it = txn ? R.transaction_create_iterator_cf(txn, c->ropts, cf) : R.create_iterator_cf(db, c->ropts, cf);
    *out = &c->base;
    return FERRY_OK;
}

static int cursor_create(ferry_store *owner, rocksdb_t *db, rocksdb_column_family_handle_t *cf,
                         const rocksdb_snapshot_t *snap, const void *lower, size_t llen, const void *upper,
                         size_t ulen, uint32_t flags, size_t readahead, ferry_cursor **out, ferry_error *err)
{
    return cursor_create_in(owner, db, NULL, cf, snap, lower, llen, upper, ulen, flags, readahead, out, err);
}

/* Store cursor. */
static int rdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                           size_t llen, const void *upper, size_t ulen, uint32_t flags,
                           ferry_cursor **out, ferry_error *err)
{
    return cursor_create(s, STORE(s)->db, CFH(cf), snap ? ((rdb_snapshot *)snap)->snap : NULL, lower, llen,
                         upper, ulen, flags, STORE(s)->readahead, out, err);
}

/* Destroy an owned iterator before the read options it points into; a wrapped (borrowed)
 * iterator stays with RocksJava. */
static int rdb_cursor_close(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (c->it && c->it != (rocksdb_iterator_t *)&c->borrowed) R.iter_destroy(c->it);
    if (c->ropts) R.readoptions_destroy(c->ropts);
    free(c);
    return FERRY_OK;
}


/* Is the iterator on exactly key? */
static inline int at_key(rocksdb_iterator_t *it, const void *key, size_t klen)
{
    if (!R.iter_valid(it)) return 0;
    size_t kl;
    const char *k = R.iter_key(it, &kl);
    return kl == klen && (klen == 0 || memcmp(k, key, klen) == 0);
}

/* Position the iterator for op; returns 1 for a forward fill, 0 for reverse. */
static int position(rocksdb_iterator_t *it, int op, const void *key, size_t klen)
{
    switch (op) {
    case FERRY_FIRST: R.iter_seek_to_first(it); return 1;
    case FERRY_LAST: R.iter_seek_to_last(it); return 0;
    case FERRY_SEEK_GE: R.iter_seek(it, key, klen); return 1;
    case FERRY_SEEK_GT:
        R.iter_seek(it, key, klen);
        if (at_key(it, key, klen)) R.iter_next(it);
        return 1;
    case FERRY_SEEK_LE: R.iter_seek_for_prev(it, key, klen); return 0;
    case FERRY_SEEK_LT:
        R.iter_seek_for_prev(it, key, klen);
        if (at_key(it, key, klen)) R.iter_prev(it);
        return 0;
    case FERRY_NEXT: case FERRY_CURRENT_FWD: return 1;
    default: return 0; /* FERRY_PREV, FERRY_CURRENT_REV */
    }
}

/* Unsigned byte order of two keys. */
static inline int rdb_key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

/* Position a transaction cursor for op within its bounds (the write batch part of a transaction's
 * iterator is not clamped by the read options everywhere): seeks below the lower bound start at it,
 * reverse seeks at or past the upper bound start below it. Returns 1 forward, 0 reverse. */
static int position_bounded(rdb_cursor *c, int op, const void *key, size_t klen)
{
    rocksdb_iterator_t *it = c->it;
    switch (op) {
    case FERRY_FIRST:
        if (c->lower) R.iter_seek(it, c->lower, c->llen);
        else R.iter_seek_to_first(it);
        return 1;
    case FERRY_SEEK_GE: case FERRY_SEEK_GT:
        if (c->lower && rdb_key_cmp(key, klen, c->lower, c->llen) < 0) { R.iter_seek(it, c->lower, c->llen); return 1; }
        break;
    case FERRY_LAST:
        if (!c->upper) { R.iter_seek_to_last(it); return 0; }
        R.iter_seek_for_prev(it, c->upper, c->ulen);
        if (at_key(it, c->upper, c->ulen)) R.iter_prev(it);
        return 0;
    case FERRY_SEEK_LE: case FERRY_SEEK_LT:
        if (c->upper && rdb_key_cmp(key, klen, c->upper, c->ulen) >= 0) return position_bounded(c, FERRY_LAST, NULL, 0);
        break;
    default: break;
    }
    return position(it, op, key, klen);
}

/* Position, then copy entries into the page until it is full, max_entries or the range ends. */
static int rdb_cursor_fill(ferry_cursor *cb, int op, const void *key, size_t klen, uint8_t *page,
                           size_t cap, uint32_t max_entries, ferry_error *err)
{
    rdb_cursor *rc_ = (rdb_cursor *)cb;
    rocksdb_iterator_t *it = rc_->it;
    int fwd = rc_->check_bounds ? position_bounded(rc_, op, key, klen) : position(it, op, key, klen);
    void (*step)(rocksdb_iterator_t *) = fwd ? R.iter_next : R.iter_prev;
    const char *bound = rc_->check_bounds ? (fwd ? rc_->upper : rc_->lower) : NULL;
    size_t blen = fwd ? rc_->ulen : rc_->llen;
    unsigned char (*valid)(const rocksdb_iterator_t *) = R.iter_valid;
    const char *(*get_key)(const rocksdb_iterator_t *, size_t *) = R.iter_key;
    const char *(*get_val)(const rocksdb_iterator_t *, size_t *) = R.iter_value;
    size_t used = FERRY_PAGE_HEADER;
    uint32_t count = 0, flags = 0;
    if (max_entries > INT_MAX) max_entries = INT_MAX;
    int more;
    while ((more = valid(it)) && count < max_entries) {
        size_t kl, vl;
        const char *k = get_key(it, &kl);
        if (bound) {
            int cmp = rdb_key_cmp(k, kl, bound, blen);
            if (fwd ? cmp >= 0 : cmp < 0) { more = 0; break; }
        }
        const char *v = get_val(it, &vl);
        if (kl > UINT32_MAX || vl > UINT32_MAX) {
            if (count) break;
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "entry of %zu + %zu bytes exceeds the page format", kl, vl);
        }
        if (!ferry_page_emit_copy(page, cap, &used, k, kl, v, vl)) {
            if (count) break;
            ferry_page_header(page, 0, 0, FERRY_PAGE_HEADER + ferry_copy_entry_size(kl, vl));
            return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry needs a page of %zu bytes",
                              FERRY_PAGE_HEADER + ferry_copy_entry_size(kl, vl));
        }
        count++;
        step(it);
    }
    if (!more) {
        char *e = NULL;
        R.iter_get_error(it, &e);
        if (e) return rdb_error(err, e);
        flags = FERRY_PAGE_END;
    }
    ferry_page_header(page, count, flags, used);
    return (int)count;
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
static int rdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
{
    if (flags & FERRY_CHECKPOINT_COMPACT)
        return ferry_fail(err, FERRY_EINVAL, 0, "FERRY_CHECKPOINT_COMPACT is an LMDB option (MDB_CP_COMPACT): a RocksDB "
                          "checkpoint hard-links its table files and has nothing to compact");
    if (s->read_only) return read_only_copy(err, "checkpoint");
    if (!R.checkpoint_object_create || !R.checkpoint_create || !R.checkpoint_object_destroy)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no checkpoints (rocksdb_checkpoint_create missing)", g_path);
    char *e = NULL;
    rocksdb_checkpoint_t *cp = R.checkpoint_object_create(STORE(s)->db, &e);
    if (e) return rdb_error(err, e);
    R.checkpoint_create(cp, dir, 0, &e);
    R.checkpoint_object_destroy(cp);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* SST files and ingestion                                             */

/* Are the SstFileWriter and ingestion functions all there? */
static int rdb_has_sst(void)
{
#define RDB_PRESENT_SST(name, ret, params) && R.name != NULL
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
    if (!atomic_load_explicit(&g_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    if (!rdb_has_sst()) return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no SstFileWriter C API", g_path);
    int has_merge;
    if (extra && (check_extra(extra, err) || check_merge(extra, &has_merge, err))) return FERRY_EINVAL;
    ferry_sst_writer *w = calloc(1, sizeof *w);
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    w->opts = R.options_create();
    char *e = NULL;
    if (extra && extra[0]) {
        rocksdb_options_t *merged = R.options_create();
        R.get_options_from_string(w->opts, extra, merged, &e);
        R.options_destroy(w->opts);
        w->opts = merged;
        if (e) { ferry_rocksdb_sst_close(w); return rdb_error(err, e); }
    }
    w->env = R.envoptions_create();
    w->w = R.sstfilewriter_create(w->env, w->opts);
    R.sstfilewriter_open(w->w, path, &e);
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
    case FERRY_OP_PUT: R.sstfilewriter_put(w->w, k, klen, v, vlen, &e); break;
    case FERRY_OP_MERGE: R.sstfilewriter_merge(w->w, k, klen, v, vlen, &e); break;
    default: R.sstfilewriter_delete(w->w, k, klen, &e); break;
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
    R.sstfilewriter_finish(w->w, &e);
    if (e) return rdb_error(err, e);
    w->finished = 1;
    if (size_out) {
        uint64_t size = 0;
        R.sstfilewriter_file_size(w->w, &size);
        *size_out = size;
    }
    return FERRY_OK;
}

int ferry_rocksdb_sst_close(ferry_sst_writer *w)
{
    if (w->w) R.sstfilewriter_destroy(w->w);
    if (w->env) R.envoptions_destroy(w->env);
    if (w->opts) R.options_destroy(w->opts);
    free(w->last);
    free(w);
    return FERRY_OK;
}

/* Ingest files into a family under drop_lock (a write). */
static int rdb_ingest(ferry_store *s, ferry_cf_slot *cf, const char *const *paths, size_t n, uint32_t flags,
                      ferry_error *err)
{
    if (!rdb_has_sst()) return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no external file ingestion C API", g_path);
    int rc = write_enter(s, cf, err);
    if (rc) return rc;
    rocksdb_ingestexternalfileoptions_t *o = R.ingestexternalfileoptions_create();
    R.ingestexternalfileoptions_set_move_files(o, (flags & FERRY_INGEST_MOVE) != 0);
    char *e = NULL;
    R.ingest_external_file_cf(STORE(s)->db, CFH(cf), paths, n, o, &e);
    R.ingestexternalfileoptions_destroy(o);
    write_exit(s);
    return e ? rdb_error(err, e) : FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Transactions                                                        */

#define TXN(tb) ((rdb_txn *)(tb))

/* A RocksDB error inside a transaction: Busy is a conflict (or, with the Deadlock subcode, a
 * deadlock), TryAgain an optimistic commit that could not check for conflicts (retryable too);
 * the rest as rdb_error (a lock wait over its timeout is TimedOut: FERRY_ETIMEDOUT). */
static int txn_error(ferry_error *err, char *e)
{
    int conflict = e && strncmp(e, "Resource busy", 13) == 0;
    int again = e && strncmp(e, "Operation failed. Try again", 27) == 0;
    if (!conflict && !again) return rdb_error(err, e);
    int code = conflict && strstr(e, "Deadlock") ? FERRY_EDEADLOCK : FERRY_ECONFLICT;
    ferry_fail(err, code, conflict ? 11 : 13, "%s", e);
    R.free(e);
    return code;
}

static int rdb_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
{
    rdb_store *rs = STORE(s);
    if (!rs->txn_mode)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "this RocksDB store was opened without transactions: open it with "
                          "StoreOptions.transactions(PESSIMISTIC or OPTIMISTIC) (FERRY_OPT_TRANSACTIONS)");
    rdb_txn *t = calloc(1, sizeof *t);
    if (!t) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    t->ropts = R.readoptions_create();
    if (rs->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        rocksdb_transaction_options_t *to = R.transaction_options_create();
        R.transaction_options_set_deadlock_detect(to, 1);
        if (timeout_ms >= 0) R.transaction_options_set_lock_timeout(to, timeout_ms);
        t->t = R.transaction_begin(rs->txndb, rs->wopts, to, NULL);
        R.transaction_options_destroy(to);
    } else {
        rocksdb_optimistictransaction_options_t *to = R.optimistictransaction_options_create();
        t->t = R.optimistictransaction_begin(rs->txndb, rs->wopts, to, NULL);
        R.optimistictransaction_options_destroy(to);
    }
    if (!t->t) {
        R.readoptions_destroy(t->ropts);
        free(t);
        return ferry_fail(err, FERRY_ENOMEM, 0, "cannot begin a transaction");
    }
    t->base.view.cf_limit = UINT32_MAX;   /* families created later are read as they are now */
    *out = &t->base;
    return FERRY_OK;
}

static int rdb_txn_get(ferry_txn *tb, ferry_cf_slot *cf, const void *key, size_t klen, void *dst, size_t cap,
                       size_t *vlen_out, int for_update, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    char *e = NULL;
    if (!for_update) {
        rocksdb_pinnableslice_t *v = R.transaction_get_pinned_cf(t->t, t->ropts, CFH(cf), key, klen, &e);
        if (e) return txn_error(err, e);
        if (!v) return FERRY_NOTFOUND;
        size_t vlen;
        const char *val = R.pinnableslice_value(v, &vlen);
        if (cap) memcpy(dst, val, vlen < cap ? vlen : cap);
        *vlen_out = vlen;
        R.pinnableslice_destroy(v);
        return FERRY_OK;
    }
    /* a lock in a family's lock map: the family must stay live meanwhile (see drop_lock) */
    int rc = write_enter(tb->view.store, cf, err);
    if (rc) return rc;
    size_t vlen = 0;
    char *v = R.transaction_get_for_update_cf(t->t, t->ropts, CFH(cf), key, klen, &vlen, 1, &e);
    write_exit(tb->view.store);
    if (e) return txn_error(err, e);
    if (!v) return FERRY_NOTFOUND;
    if (cap) memcpy(dst, v, vlen < cap ? vlen : cap);
    *vlen_out = vlen;
    R.free(v);
    return FERRY_OK;
}

/* Remember that the transaction wrote family id (its commit checks the family is still live). */
static int txn_touch(rdb_txn *t, uint32_t id)
{
    for (uint32_t i = 0; i < t->ncfs; i++)
        if (t->cfs[i] == id) return FERRY_OK;
    if (t->ncfs == t->capcfs) {
        uint32_t cap = t->capcfs ? t->capcfs * 2 : 4;
        uint32_t *n = realloc(t->cfs, cap * sizeof *n);
        if (!n) return FERRY_ENOMEM;
        t->cfs = n;
        t->capcfs = cap;
    }
    t->cfs[t->ncfs++] = id;
    return FERRY_OK;
}

/* Set a RocksDB savepoint and push its entry (live: 1); non-zero when out of memory (nothing set). */
static int sp_push(rdb_txn *t, uint8_t live)
{
    if (t->nsps == t->capsps) {
        uint32_t cap = t->capsps ? t->capsps * 2 : 8;
        uint8_t *n = realloc(t->sps, cap);
        if (!n) return FERRY_ENOMEM;
        t->sps = n;
        t->capsps = cap;
    }
    R.transaction_set_savepoint(t->t);
    t->sps[t->nsps++] = live;
    return FERRY_OK;
}

static int rdb_txn_write(ferry_txn *tb, const void *ops, size_t len, uint32_t count, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    ferry_store *s = tb->view.store;
    const uint8_t *p = ops, *end = p + len;
    ferry_batch_rec r;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        if (r.op == FERRY_OP_DELETE_RANGE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: RocksDB transactions have no range delete "
                              "(delete the keys one by one, or use Store.deleteRange outside the transaction)", i);
        if (r.op == FERRY_OP_DELETE_VALUE)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: deleting one value of a key needs an LMDB "
                              "DUPSORT column family: RocksDB keeps one value per key (delete the key)", i);
        if (r.op == FERRY_OP_MERGE && !family_has_merge(s, ferry_slot(s, r.cf))) return no_merge_operator(err);
        if (r.op == FERRY_OP_MERGE && !R.transaction_merge_cf)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "batch record %u: %s has no merge inside transactions "
                              "(rocksdb_transaction_merge_cf)", i, g_path);
    }
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    int rc = FERRY_OK;
    p = ops;
    for (uint32_t i = 0; ferry_batch_next(&p, end, &r); i++) {
        ferry_cf_slot *slot = ferry_slot(s, r.cf);
        if (atomic_load(&slot->dropped)) {
            rc = ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", i, slot->name);
            break;
        }
        if (txn_touch(t, r.cf)) { rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory"); break; }
    }
    /* a batch of several records gets a savepoint of its own, left popped (0) once applied */
    if (!rc && count > 1 && sp_push(t, 0)) rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (rc) {
        pthread_rwlock_unlock(&STORE(s)->drop_lock);
        return rc;
    }
    p = ops;
    char *e = NULL;
    while (!e && ferry_batch_next(&p, end, &r)) {
        rocksdb_column_family_handle_t *cf = ferry_slot(s, r.cf)->handle;
        if (r.op == FERRY_OP_PUT) R.transaction_put_cf(t->t, cf, (const char *)r.a, r.alen, (const char *)r.b, r.blen, &e);
        else if (r.op == FERRY_OP_MERGE)
            R.transaction_merge_cf(t->t, cf, (const char *)r.a, r.alen, (const char *)r.b, r.blen, &e);
        else R.transaction_delete_cf(t->t, cf, (const char *)r.a, r.alen, &e);
    }
    if (e) {
        rc = txn_error(err, e);
        if (count > 1) {   /* undo the records this call applied: the batch is all or nothing */
            char *e2 = NULL;
            R.transaction_rollback_to_savepoint(t->t, &e2);
            t->nsps--;
            if (e2) {
                R.free(e2);
                tb->state = FERRY_TXN_FAILED;
            }
        }
    }
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return rc;
}

static int rdb_txn_cursor_open(ferry_txn *tb, ferry_cf_slot *cf, const void *lower, size_t llen, const void *upper,
                               size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    return cursor_create_in(tb->view.store, NULL, TXN(tb)->t, CFH(cf), NULL, lower, llen, upper, ulen, flags,
                            STORE(tb->view.store)->readahead, out, err);
}

static void rdb_txn_cursor_kill(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (c->it) R.iter_destroy(c->it);
    c->it = NULL;
}

/* Savepoints (see rdb_txn.sps). A rollback rolls RocksDB back over the popped entries on top, then
 * the live one; a pop marks the live one on top popped. */
static int rdb_txn_savepoint(ferry_txn *tb, int op, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    if (op == FERRY_SP_SET) return sp_push(t, 1) ? ferry_fail(err, FERRY_ENOMEM, 0, "out of memory") : FERRY_OK;
    if (op == FERRY_SP_POP) {
        uint32_t i = t->nsps;
        while (i > 0 && !t->sps[i - 1]) i--;
        if (i > 0) t->sps[i - 1] = 0;   /* ferry.c counted a live one: always found */
        return FERRY_OK;
    }
    while (t->nsps > 0) {
        int live = t->sps[--t->nsps];
        char *e = NULL;
        R.transaction_rollback_to_savepoint(t->t, &e);
        if (e) {
            tb->state = FERRY_TXN_FAILED;
            return txn_error(err, e);
        }
        if (live) break;
    }
    return FERRY_OK;
}

/* Commit under drop_lock, after checking no family the transaction wrote was dropped: RocksDB would
 * fail that write after its WAL write and then refuse every later one (see drop_lock). */
static int rdb_txn_commit(ferry_txn *tb, ferry_error *err)
{
    rdb_txn *t = TXN(tb);
    ferry_store *s = tb->view.store;
    char *e = NULL;
    pthread_rwlock_rdlock(&STORE(s)->drop_lock);
    for (uint32_t i = 0; i < t->ncfs; i++) {
        ferry_cf_slot *slot = ferry_slot(s, t->cfs[i]);
        if (atomic_load(&slot->dropped)) {
            R.transaction_rollback(t->t, &e);
            if (e) R.free(e);
            pthread_rwlock_unlock(&STORE(s)->drop_lock);
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped: the transaction wrote it, "
                              "nothing was committed", slot->name);
        }
    }
    R.transaction_commit(t->t, &e);
    pthread_rwlock_unlock(&STORE(s)->drop_lock);
    return e ? txn_error(err, e) : FERRY_OK;
}

static int rdb_txn_close(ferry_txn *tb)
{
    rdb_txn *t = TXN(tb);
    R.transaction_destroy(t->t);   /* rolls back what was not committed */
    R.readoptions_destroy(t->ropts);
    free(t->cfs);
    free(t->sps);
    pthread_mutex_destroy(&tb->lock);
    free(t);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ */
/* Split points                                                        */
/*
 * The range's first and last keys (an iterator of the view), the boundary keys of the family's live
 * table files between them, and the pieces between those keys cut in two at an existing key (the first
 * key at or above the middle of the piece's key values, the 8 bytes after their common prefix read as a
 * number, searching lower halves while the upper ones hold no key) until each holds at most 2 / max of
 * the range's bytes, or cutting it left one part weighing nothing RDB_SPLIT_STALE rounds in a row (its
 * data within about one block), or max pieces are made. Each piece is weighed with one rocksdb_approximate_sizes_cf call per round, for all the pieces
 * of the round: from the table files' index blocks (and the memtables' own estimates where the library
 * has rocksdb_approximate_sizes_cf_with_flags). */
#define RDB_SPLIT_ROUNDS 64
#define RDB_SPLIT_STALE 24

typedef struct rdb_piece {
    char *key;          /* where it starts (owned by the pool) */
    size_t klen;
    uint64_t w;
    int stale;          /* cuts in a row that left one part weighing nothing */
    int merge;          /* a part weighing nothing: 1 joins the next piece, -1 the previous one */
} rdb_piece;

typedef struct rdb_pool {
    char **v;
    size_t n, cap;
} rdb_pool;

static char *pool_alloc(rdb_pool *p, size_t len)
{
    if (p->n == p->cap) {
        size_t c = p->cap ? 2 * p->cap : 64;
        char **nv = realloc(p->v, c * sizeof *nv);
        if (!nv) return NULL;
        p->v = nv;
        p->cap = c;
    }
    char *k = malloc(len ? len : 1);
    if (k) p->v[p->n++] = k;
    return k;
}

static char *pool_copy(rdb_pool *p, const char *k, size_t len)
{
    char *c = pool_alloc(p, len);
    if (c && len) memcpy(c, k, len);
    return c;
}

static void pool_free(rdb_pool *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
}

static int key_order(const void *a, size_t al, const void *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* A key between a and b (a < b), or NULL with *ol 0 when the 8 bytes after their common prefix leave no room. */
static char *key_mid(rdb_pool *pool, const char *a, size_t al, const char *b, size_t bl, size_t *ol)
{
    size_t p = 0, m = al < bl ? al : bl;
    while (p < m && a[p] == b[p]) p++;
    uint64_t A = 0, B = 0;
    for (size_t j = 0; j < 8; j++) {
        A = A << 8 | (p + j < al ? (uint8_t)a[p + j] : 0);
        B = B << 8 | (p + j < bl ? (uint8_t)b[p + j] : 0);
    }
    *ol = 0;
    if (B <= A || B - A < 2) return NULL;
    uint64_t M = A + (B - A) / 2;
    char buf[8];
    for (int j = 7; j >= 0; j--) {
        buf[j] = (char)(M & 0xff);
        M >>= 8;
    }
    size_t len = 8;
    while (len > 1 && buf[len - 1] == 0) len--;   /* trailing zeros change nothing of the order against a and b */
    char *k = pool_alloc(pool, p + len);   /* a's common prefix (p <= al), then the middle's bytes */
    if (!k) return NULL;
    if (p) memcpy(k, a, p);
    memcpy(k + p, buf, len);
    *ol = p + len;
    return k;
}

static int file_key_cmp(const void *x, const void *y)
{
    const rdb_piece *a = x, *b = y;
    return key_order(a->key, a->klen, b->key, b->klen);
}

/* Weigh the pieces [k[i], k[i + 1]) for i in idx[0..n-1] into w (k has an end key after the last piece). */
static int weigh(rdb_store *s, ferry_cf_slot *cf, const rdb_piece *k, const size_t *idx, size_t n, uint64_t *w,
                 ferry_error *err)
{
    const char **st = malloc(n * sizeof *st), **li = malloc(n * sizeof *li);
    size_t *sl = malloc(n * sizeof *sl), *ll = malloc(n * sizeof *ll);
    int rc = FERRY_OK;
    if (!st || !li || !sl || !ll) {
        rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            st[i] = k[idx[i]].key;
            sl[i] = k[idx[i]].klen;
            li[i] = k[idx[i] + 1].key;
            ll[i] = k[idx[i] + 1].klen;
            w[i] = 0;
        }
        char *e = NULL;
        if (R.approximate_sizes_cf_with_flags)
            R.approximate_sizes_cf_with_flags(s->db, CFH(cf), (int)n, st, sl, li, ll,
                                              RDB_SIZE_INCLUDE_MEMTABLES | RDB_SIZE_INCLUDE_FILES, w, &e);
        else
            R.approximate_sizes_cf(s->db, CFH(cf), (int)n, st, sl, li, ll, w, &e);
        if (e) rc = rdb_error(err, e);
    }
    free(st);
    free(li);
    free(sl);
    free(ll);
    return rc;
}

/* The first and last keys of [lower, upper) in the view, copied into the pool; 0 when the range holds
 * fewer than two keys. */
static int range_ends(rocksdb_iterator_t *it, const void *lower, size_t llen, const void *upper, size_t ulen,
                      rdb_pool *pool, rdb_piece *first, rdb_piece *last, ferry_error *err)
{
    int found = 0;
    size_t kl;
    const char *k;
    if (lower) R.iter_seek(it, lower, llen); else R.iter_seek_to_first(it);
    if (R.iter_valid(it) && (k = R.iter_key(it, &kl), !upper || key_order(k, kl, upper, ulen) < 0)) {
        if (!(first->key = pool_copy(pool, k, kl))) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        first->klen = kl;
        if (upper) {
            R.iter_seek_for_prev(it, upper, ulen);
            if (R.iter_valid(it) && (k = R.iter_key(it, &kl), key_order(k, kl, upper, ulen) == 0)) R.iter_prev(it);
        } else {
            R.iter_seek_to_last(it);
        }
        if (R.iter_valid(it) && (k = R.iter_key(it, &kl), key_order(k, kl, first->key, first->klen) > 0)) {
            /* the end of the last piece: just past the last key */
            if (!(last->key = pool_alloc(pool, kl + 1))) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            if (kl) memcpy(last->key, k, kl);
            last->key[kl] = 0;
            last->klen = kl + 1;
            found = 1;
        }
    }
    char *e = NULL;
    R.iter_get_error(it, &e);
    if (e) return rdb_error(err, e);
    return found;
}

/* A key of the view strictly between a and b: the first key at or above the middle (by key value, the 8
 * bytes after the common prefix read as a number) of a and the last key below b, so that the cut falls
 * within the keys the piece holds, however far apart its ends are. NULL when the piece holds no key above a. */
static char *split_key(rocksdb_iterator_t *it, rdb_pool *pool, const char *a, size_t al, const char *b, size_t bl,
                       size_t *ol)
{
    size_t zl;
    const char *z;
    R.iter_seek_for_prev(it, b, bl);
    if (R.iter_valid(it) && (z = R.iter_key(it, &zl), key_order(z, zl, b, bl) == 0)) R.iter_prev(it);
    if (!R.iter_valid(it)) return NULL;
    z = R.iter_key(it, &zl);
    if (key_order(z, zl, a, al) <= 0) return NULL;
    char *hi = pool_alloc(pool, zl + 1);   /* just past the last key */
    if (!hi) return NULL;
    memcpy(hi, z, zl);
    hi[zl] = 0;
    size_t ml;
    char *m = key_mid(pool, a, al, hi, zl + 1, &ml);
    if (!m) return NULL;
    R.iter_seek(it, m, ml);
    if (!R.iter_valid(it)) return NULL;
    size_t kl;
    const char *k = R.iter_key(it, &kl);
    if (key_order(k, kl, a, al) <= 0 || key_order(k, kl, b, bl) >= 0) return NULL;
    *ol = kl;
    return pool_copy(pool, k, kl);
}

static int rdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower, size_t llen,
                            const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                            ferry_error *err)
{
    rdb_store *s = STORE(fs);
    if (!R.approximate_sizes_cf && !R.approximate_sizes_cf_with_flags)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "split points need rocksdb_approximate_sizes_cf, which %s lacks", g_path);
    if (!R.approximate_sizes_cf_with_flags) {
        uint64_t active = 0, imm = 0;
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-active-mem-table", &active);
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-imm-mem-tables", &imm);
        if (active + imm > 0)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "split points of a family with entries in its memtables need "
                              "rocksdb_approximate_sizes_cf_with_flags, which %s lacks (rocksdbjni 10.1.3 and 11.8.1 "
                              "have it; 7.9.2 does not)", g_path);
    }
    /* Deleted data still counts in RocksDB's sizes until a compaction drops it: weights would place the
     * boundaries by dead bytes. Families with deletes in their memtables (point deletes counted by RocksDB,
     * range deletes by Ferry), or whose table files hold more than 1 deletion in 10 entries, are left to
     * the caller's sampling (0 records). */
    {
        uint64_t entries = 0, dels = 0, idels = 0;
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-active-mem-table", &entries);
        uint64_t imm = 0;
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-imm-mem-tables", &imm);
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-deletes-active-mem-table", &dels);
        R.property_int_cf(s->db, CFH(cf), "rocksdb.num-deletes-imm-mem-tables", &idels);
        if (dels + idels > 0
            || (entries + imm > 0 && (atomic_load_explicit(&cf->bits, memory_order_relaxed) & RDB_SLOT_RANGE_DEL)))
            return 0;
    }
    rdb_pool pool = { 0 };
    rdb_piece *k = NULL, *nk = NULL;
    size_t *idx = NULL;
    uint64_t *w = NULL;
    ferry_split_cand *cand = NULL;
    rdb_piece first = { 0 }, last = { 0 };
    rocksdb_iterator_t *it = R.create_iterator_cf(s->db, read_opts(fs, snap), CFH(cf));
    if (!it) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = range_ends(it, lower, llen, upper, ulen, &pool, &first, &last, err);
    if (rc <= 0) goto done;
    /* the pieces' start keys: the first key, the files' boundary keys after it and up to the last key */
    size_t n = 0, kcap = 64;
    k = malloc(kcap * sizeof *k);
    if (!k) goto oom;
    k[n++] = first;
    const rocksdb_livefiles_t *lf = R.livefiles && R.livefiles_count && R.livefiles_column_family_name
                                    && R.livefiles_smallestkey && R.livefiles_largestkey && R.livefiles_destroy
                                    ? R.livefiles(s->db) : NULL;
    if (lf) {
        int files = R.livefiles_count(lf);
        uint64_t fentries = 0, fdels = 0;
        for (int f = 0; f < files; f++) {
            const char *name = R.livefiles_column_family_name(lf, f);
            if (!name || strcmp(name, cf->name) != 0) continue;
            if (R.livefiles_entries && R.livefiles_deletions) {
                fentries += R.livefiles_entries(lf, f);
                fdels += R.livefiles_deletions(lf, f);
            }
            for (int side = 0; side < 2; side++) {
                size_t kl;
                const char *key = side ? R.livefiles_largestkey(lf, f, &kl) : R.livefiles_smallestkey(lf, f, &kl);
                if (!key || key_order(key, kl, first.key, first.klen) <= 0 || key_order(key, kl, last.key, last.klen) >= 0)
                    continue;
                if (n == kcap) {
                    rdb_piece *g = realloc(k, 2 * kcap * sizeof *k);
                    if (!g) { R.livefiles_destroy(lf); goto oom; }
                    k = g;
                    kcap *= 2;
                }
                char *copy = pool_copy(&pool, key, kl);
                if (!copy) { R.livefiles_destroy(lf); goto oom; }
                k[n++] = (rdb_piece){ copy, kl, 0, 0, 0 };
            }
        }
        R.livefiles_destroy(lf);
        if (fdels * 10 > fentries) { rc = 0; goto done; }
    }
    qsort(k + 1, n - 1, sizeof *k, file_key_cmp);
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (key_order(k[i].key, k[i].klen, k[u - 1].key, k[u - 1].klen) != 0) k[u++] = k[i];
    n = u;   /* pieces k[0..n-1], end key k[n] */
    size_t limit = max > n ? max : n;   /* pieces at most: never fewer than the files gave */
    rdb_piece *g = realloc(k, (limit + 1) * sizeof *k);
    nk = malloc((limit + 1) * sizeof *nk);
    idx = calloc(2 * limit, sizeof *idx);
    w = calloc(2 * limit, sizeof *w);
    if (!g || !nk || !idx || !w) { if (g) k = g; goto oom; }
    k = g;
    k[n] = last;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    if ((rc = weigh(s, cf, k, idx, n, w, err)) != FERRY_OK) goto done;
    for (size_t i = 0; i < n; i++) k[i].w = w[i];
    for (int round = 0; round < RDB_SPLIT_ROUNDS; round++) {
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) total += k[i].w;
        if (total == 0) break;
        uint64_t heavy = total / max * 2;
        size_t m = 0, nw = 0;
        for (size_t i = 0; i < n; i++) {
            nk[m++] = k[i];
            size_t ml;
            char *mid;
            if (k[i].w > heavy && k[i].stale < RDB_SPLIT_STALE && n + nw / 2 < limit
                && (mid = split_key(it, &pool, k[i].key, k[i].klen, k[i + 1].key, k[i + 1].klen, &ml)) != NULL) {
                idx[nw++] = m - 1;
                nk[m] = (rdb_piece){ mid, ml, 0, k[i].stale, 0 };
                idx[nw++] = m++;
            } else if (k[i].w > heavy && k[i].stale < RDB_SPLIT_STALE && n + nw / 2 < limit) {
                nk[m - 1].stale = RDB_SPLIT_STALE;   /* no key between its ends: keep it whole */
            }
        }
        if (nw == 0) break;
        nk[m] = k[n];
        rdb_piece *t = k;
        k = nk;
        nk = t;
        n = m;
        if ((rc = weigh(s, cf, k, idx, nw, w, err)) != FERRY_OK) goto done;
        for (size_t i = 0; i < nw; i += 2) {
            rdb_piece *a = &k[idx[i]], *b = &k[idx[i + 1]];
            a->w = w[i];
            b->w = w[i + 1];
            int none = a->w == 0 || b->w == 0;
            a->stale = none ? a->stale + 1 : 0;
            b->stale = a->stale;
            /* a part weighing nothing tells nothing: it joins the neighbour on its other side, so the cut
             * narrows the heavy part without spending a piece on the empty one */
            if (b->w == 0) b->merge = 1;
            else if (a->w == 0) a->merge = -1;
        }
        size_t out = 0;
        int pending = 0;
        rdb_piece held = { 0 };
        for (size_t i = 0; i < n; i++) {
            rdb_piece piece = k[i];
            int merge = piece.merge;
            piece.merge = 0;
            if (merge == -1 && out > 0) {   /* the previous piece reaches over it */
                pending = 0;
                continue;
            }
            if (merge == 1 && i + 1 < n) {  /* the next piece starts at its start */
                if (!pending) held = piece;
                pending = 1;
                continue;
            }
            if (pending) {
                piece.key = held.key;
                piece.klen = held.klen;
                pending = 0;
            }
            k[out++] = piece;
        }
        k[out] = k[n];
        n = out;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += k[i].w;
    if (total == 0) { rc = 0; goto done; }
    cand = malloc(n * sizeof *cand);
    if (!cand) goto oom;
    for (size_t i = 0; i < n; i++) cand[i] = (ferry_split_cand){ (const uint8_t *)k[i].key, k[i].klen, k[i].w };
    rc = ferry_split_pack(cand, n, max, dst, cap, len_out);
    goto done;
oom:
    rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
done:
    if (rc <= 0) *len_out = 0;
    R.iter_destroy(it);
    free(cand);
    free(k);
    free(nk);
    free(idx);
    free(w);
    pool_free(&pool);
    return rc;
}

static const ferry_engine_ops rdb_ops = {
    .close = rdb_close,
    .flush = rdb_flush,
    .compact_range = rdb_compact_range,
    .property = rdb_property,
    .property_int = rdb_property_int,
    .checkpoint = rdb_checkpoint,
    .ingest = rdb_ingest,
    .cf_create = rdb_cf_create,
    .cf_drop = rdb_cf_drop,
    .get = rdb_get,
    .multi_get = rdb_multi_get,
    .split_points = rdb_split_points,
    .put = rdb_put,
    .merge = rdb_merge,
    .del = rdb_del,
    .delete_range = rdb_delete_range,
    .write = rdb_write,
    .snapshot_open = rdb_snapshot_open,
    .snapshot_close = rdb_snapshot_close,
    .cursor_open = rdb_cursor_open,
    .cursor_close = rdb_cursor_close,
    .cursor_fill = rdb_cursor_fill,
    .txn_begin = rdb_txn_begin,
    .txn_get = rdb_txn_get,
    .txn_write = rdb_txn_write,
    .txn_cursor_open = rdb_txn_cursor_open,
    .txn_cursor_kill = rdb_txn_cursor_kill,
    .txn_commit = rdb_txn_commit,
    .txn_close = rdb_txn_close,
    .txn_savepoint = rdb_txn_savepoint,
};

/* ------------------------------------------------------------------ */
/* RocksJava interop: the same cores over RocksJava's objects          */

/* Owner of interop cursors: carries the engine's vtable (cursor_fill/close touch no store
 * state), so ferry_cursor_fill/close dispatch as for store cursors. Never handed out. */
static ferry_store rj_owner = { .ops = &rdb_ops, .engine = FERRY_ENGINE_ROCKSDB };

#define RJ_READY(err) \
    do { if (!atomic_load_explicit(&g_ready, memory_order_acquire)) \
        return ferry_fail((err), FERRY_ENOENGINE, 0, "RocksDB engine not attached"); } while (0)

/* Shells around RocksJava's pointers, valid for one call. */
#define RJ_SHELLS(db, cf) \
    rdb_db_shell dbs_ = { (db) }; \
    rdb_cf_shell cfs_ = { (cf), 0 }; \
    rocksdb_t *rdb_ = (rocksdb_t *)&dbs_; \
    rocksdb_column_family_handle_t *rcf_ = (rocksdb_column_family_handle_t *)&cfs_

/* Read options for one interop read: the shared defaults, or fresh ones at a snapshot. */
static rocksdb_readoptions_t *rj_read_opts(const void *snapshot)
{
    if (!snapshot) return g_rj_ropts;
    rdb_snapshot_shell sn = { snapshot };
    rocksdb_readoptions_t *ro = R.readoptions_create();
    R.readoptions_set_snapshot(ro, (const rocksdb_snapshot_t *)&sn);   /* copies sn.rep */
    return ro;
}

static void rj_read_done(rocksdb_readoptions_t *ro)
{
    if (ro != g_rj_ropts) R.readoptions_destroy(ro);
}

int ferry_rocksdb_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
                                 const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
                                 ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rdb_snapshot_shell sn = { snapshot };
    return cursor_create(&rj_owner, rdb_, rcf_, snapshot ? (const rocksdb_snapshot_t *)&sn : NULL, lower, llen,
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

int ferry_rocksdb_rj_cursor_forget(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (cb->store != &rj_owner) return ferry_cursor_close(cb);
    if (c->ropts) R.readoptions_destroy(c->ropts);   /* the iterator (leaked) is never used again */
    free(c);
    return FERRY_OK;
}

int ferry_rocksdb_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst,
                         size_t cap, size_t *vlen_out, ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rocksdb_readoptions_t *ro = rj_read_opts(snapshot);
    int rc = get_core(rdb_, ro, rcf_, key, klen, dst, cap, vlen_out, err);
    rj_read_done(ro);
    return rc;
}

int ferry_rocksdb_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
                               size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    rocksdb_readoptions_t *ro = rj_read_opts(snapshot);
    int rc = multi_get_core(rdb_, ro, rcf_, n, keys, dst, cap, lens_out, err);
    rj_read_done(ro);
    return rc;
}

int ferry_rocksdb_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
                         ferry_error *err)
{
    RJ_READY(err);
    RJ_SHELLS(db, cf);
    return put_core(rdb_, g_rj_wopts, rcf_, key, klen, val, vlen, err);
}

/* Interop batch families: one shell re-pointed per record (the C API reads it during the call). */
typedef struct rj_families {
    void *const *cfs;
    rdb_cf_shell shell;
} rj_families;

static rocksdb_column_family_handle_t *rj_cf_of(void *ctx, uint32_t id)
{
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
    return write_core((rocksdb_t *)&dbs, g_rj_wopts, ops, len, rj_cf_of, &f, err);
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
#define RDB_PRESENT(name, ret, params) && R.name != NULL
    return 1 RDB_API_UTILITY_FUNCS(RDB_PRESENT);
#undef RDB_PRESENT
}

int ferry_rocksdb_backups_open(const char *dir, ferry_backups **out, ferry_error *err)
{
    RJ_READY(err);
    if (!rdb_has_backups())
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no backup engine (rocksdb_backup_engine_* missing)", g_path);
    ferry_backups *b = calloc(1, sizeof *b);
    if (!b) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    rocksdb_options_t *o = R.options_create();   /* only its Env (the default one) is used */
    char *e = NULL;
    b->be = R.backup_engine_open(o, dir, &e);
    R.options_destroy(o);
    if (e || !b->be) {
        if (b->be) R.backup_engine_close(b->be);
        free(b);
        return e ? rdb_error(err, e) : ferry_fail(err, FERRY_EENGINE, 0, "cannot open backup directory %s", dir);
    }
    b->dir = strdup(dir);
    int rc = b->dir ? ferry_sync_tree(dir, err) : ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    if (rc) {
        R.backup_engine_close(b->be);
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
    R.backup_engine_close(b->be);
    pthread_mutex_destroy(&b->lock);
    free(b->dir);
    free(b);
    return FERRY_OK;
}

/* The highest backup id, 0 when there is none. Caller holds b->lock. */
static uint32_t latest_id(ferry_backups *b)
{
    const rocksdb_backup_engine_info_t *info = R.backup_engine_get_backup_info(b->be);
    uint32_t id = 0;
    int n = R.backup_engine_info_count(info);
    for (int i = 0; i < n; i++) {
        uint32_t x = R.backup_engine_info_backup_id(info, i);
        if (x > id) id = x;
    }
    R.backup_engine_info_destroy(info);
    return id;
}

int ferry_rocksdb_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err)
{
    if (s->read_only) return read_only_copy(err, "backup");
    char *e = NULL;
    pthread_mutex_lock(&b->lock);
    R.backup_engine_create_new_backup_flush(b->be, STORE(s)->db, 1, &e);
    int rc = e ? rdb_error(err, e) : FERRY_OK;
    if (rc == FERRY_OK) *id_out = latest_id(b);
    if (rc == FERRY_OK) rc = ferry_sync_tree(b->dir, err); /* the new backup's names */
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int ferry_rocksdb_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err)
{
    pthread_mutex_lock(&b->lock);
    const rocksdb_backup_engine_info_t *info = R.backup_engine_get_backup_info(b->be);
    int n = R.backup_engine_info_count(info);
    if (n < 0) n = 0;
    uint8_t *p = dst;
    for (int i = 0; i < n && (size_t)(i + 1) * FERRY_BACKUP_INFO_SIZE <= cap; i++, p += FERRY_BACKUP_INFO_SIZE) {
        uint32_t id = R.backup_engine_info_backup_id(info, i);
        uint32_t files = R.backup_engine_info_number_files(info, i);
        int64_t ts = R.backup_engine_info_timestamp(info, i);
        uint64_t size = R.backup_engine_info_size(info, i);
        memcpy(p, &id, 4);
        memcpy(p + 4, &files, 4);
        memcpy(p + 8, &ts, 8);
        memcpy(p + 16, &size, 8);
    }
    R.backup_engine_info_destroy(info);
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
        rocksdb_restore_options_t *o = R.restore_options_create();
        if (id == 0) R.backup_engine_restore_db_from_latest_backup(b->be, db_dir, db_dir, o, &e);
        else R.backup_engine_restore_db_from_backup(b->be, db_dir, db_dir, o, id, &e);
        R.restore_options_destroy(o);
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
    R.backup_engine_purge_old_backups(b->be, keep, &e);
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
    void *a = plat_lib_sym(g_handle, "Java_org_rocksdb_LRUCache_newLRUCache");
    void *b = plat_lib_sym(g_handle, "Java_org_rocksdb_LRUCache_disposeInternalJni"); /* 9.x and later */
    if (!b) b = plat_lib_sym(g_handle, "Java_org_rocksdb_LRUCache_disposeInternal");
    if (!a || !b) return 0;
    memcpy(mk, &a, sizeof a);
    memcpy(rm, &b, sizeof b);
    return 1;
}

int ferry_rocksdb_cache_create(uint64_t capacity, int strict, int64_t high_pri_ppm, void **out, int *rj_made,
                               ferry_error *err)
{
    if (!atomic_load_explicit(&g_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    *rj_made = 0;
    rocksdb_cache_t *c = NULL;
    if (high_pri_ppm >= 0) {
        rj_new_lru_fn mk;
        rj_dispose_fn rm;
        if (!rj_lru_fns(&mk, &rm))
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s cannot set a block cache's high-priority pool ratio (RocksDB's C "
                              "API has no setter and RocksJava's LRUCache constructor is missing): leave it at RocksDB's "
                              "default, 0.5", g_path);
        int64_t h = mk(NULL, NULL, (int64_t)capacity, -1, (unsigned char)(strict != 0), (double)high_pri_ppm / 1e6, 0.0);
        c = (rocksdb_cache_t *)(intptr_t)h;
        *rj_made = 1;
    } else if (strict) {
        if (!R.cache_create_lru_with_strict_capacity_limit)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no rocksdb_cache_create_lru_with_strict_capacity_limit", g_path);
        c = R.cache_create_lru_with_strict_capacity_limit((size_t)capacity);
    } else {
        c = R.cache_create_lru((size_t)capacity);
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
    else R.cache_destroy(c);
}

void ferry_rocksdb_cache_usage(void *c, uint64_t *usage, uint64_t *pinned)
{
    *usage = R.cache_get_usage ? (uint64_t)R.cache_get_usage(c) : 0;
    *pinned = R.cache_get_pinned_usage ? (uint64_t)R.cache_get_pinned_usage(c) : 0;
}

int ferry_rocksdb_wbm_create(void *cache, uint64_t size, int allow_stall, void **out, ferry_error *err)
{
    if (!atomic_load_explicit(&g_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    if (!R.write_buffer_manager_create_with_cache || !R.write_buffer_manager_create || !R.write_buffer_manager_destroy
        || !R.write_buffer_manager_memory_usage || !R.options_set_write_buffer_manager)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no write buffer manager in its C API "
                          "(rocksdb_write_buffer_manager_create_with_cache, rocksdb_options_set_write_buffer_manager: "
                          "RocksDB 8.10 and later; rocksdbjni 7.9.2 lacks them)", g_path);
    rocksdb_write_buffer_manager_t *w = cache
        ? R.write_buffer_manager_create_with_cache((size_t)size, cache, (unsigned char)(allow_stall != 0))
        : R.write_buffer_manager_create((size_t)size, (unsigned char)(allow_stall != 0));
    if (!w) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory creating a write buffer manager");
    *out = w;
    return FERRY_OK;
}

void ferry_rocksdb_wbm_destroy(void *w)
{
    R.write_buffer_manager_destroy(w);
}

uint64_t ferry_rocksdb_wbm_usage(void *w)
{
    return (uint64_t)R.write_buffer_manager_memory_usage(w);
}
