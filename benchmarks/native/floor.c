/* The native floor: see floor.h. Declares the few engine functions it needs itself (no engine
 * headers) and resolves them from the engine object. */
#define _GNU_SOURCE
#include "floor.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- RocksDB C API subset ------------------------------------------------------------ */
typedef struct rocksdb_t rocksdb_t;
typedef struct rocksdb_options_t rocksdb_options_t;
typedef struct rocksdb_readoptions_t rocksdb_readoptions_t;
typedef struct rocksdb_writeoptions_t rocksdb_writeoptions_t;
typedef struct rocksdb_block_based_table_options_t rocksdb_bbto_t;
typedef struct rocksdb_cache_t rocksdb_cache_t;
typedef struct rocksdb_iterator_t rocksdb_iterator_t;
typedef struct rocksdb_writebatch_t rocksdb_writebatch_t;
typedef struct rocksdb_pinnableslice_t rocksdb_pinnableslice_t;
typedef struct rocksdb_snapshot_t rocksdb_snapshot_t;

static struct {
    void (*free)(void *);
    rocksdb_options_t *(*options_create)(void);
    void (*options_destroy)(rocksdb_options_t *);
    void (*options_set_create_if_missing)(rocksdb_options_t *, unsigned char);
    void (*options_set_compression)(rocksdb_options_t *, int);
    void (*options_set_block_based_table_factory)(rocksdb_options_t *, rocksdb_bbto_t *);
    rocksdb_bbto_t *(*block_based_options_create)(void);
    void (*block_based_options_destroy)(rocksdb_bbto_t *);
    void (*block_based_options_set_block_cache)(rocksdb_bbto_t *, rocksdb_cache_t *);
    rocksdb_cache_t *(*cache_create_lru)(size_t);
    void (*cache_destroy)(rocksdb_cache_t *);
    rocksdb_t *(*open)(const rocksdb_options_t *, const char *, char **);
    rocksdb_t *(*open_for_read_only)(const rocksdb_options_t *, const char *, unsigned char, char **);
    void (*close)(rocksdb_t *);
    rocksdb_readoptions_t *(*readoptions_create)(void);
    void (*readoptions_destroy)(rocksdb_readoptions_t *);
    rocksdb_writeoptions_t *(*writeoptions_create)(void);
    void (*writeoptions_destroy)(rocksdb_writeoptions_t *);
    rocksdb_iterator_t *(*create_iterator)(rocksdb_t *, const rocksdb_readoptions_t *);
    void (*iter_destroy)(rocksdb_iterator_t *);
    unsigned char (*iter_valid)(const rocksdb_iterator_t *);
    void (*iter_seek_to_first)(rocksdb_iterator_t *);
    void (*iter_seek_to_last)(rocksdb_iterator_t *);
    void (*iter_seek)(rocksdb_iterator_t *, const char *, size_t);
    void (*iter_next)(rocksdb_iterator_t *);
    void (*iter_prev)(rocksdb_iterator_t *);
    const char *(*iter_key)(const rocksdb_iterator_t *, size_t *);
    const char *(*iter_value)(const rocksdb_iterator_t *, size_t *);
    rocksdb_pinnableslice_t *(*get_pinned)(rocksdb_t *, const rocksdb_readoptions_t *, const char *, size_t, char **);
    const char *(*pinnableslice_value)(const rocksdb_pinnableslice_t *, size_t *);
    void (*pinnableslice_destroy)(rocksdb_pinnableslice_t *);
    void (*put)(rocksdb_t *, const rocksdb_writeoptions_t *, const char *, size_t, const char *, size_t, char **);
    rocksdb_writebatch_t *(*writebatch_create)(void);
    void (*writebatch_destroy)(rocksdb_writebatch_t *);
    void (*writebatch_clear)(rocksdb_writebatch_t *);
    void (*writebatch_put)(rocksdb_writebatch_t *, const char *, size_t, const char *, size_t);
    void (*write)(rocksdb_t *, const rocksdb_writeoptions_t *, rocksdb_writebatch_t *, char **);
    const rocksdb_snapshot_t *(*create_snapshot)(rocksdb_t *);
    void (*release_snapshot)(rocksdb_t *, const rocksdb_snapshot_t *);
    void (*readoptions_set_snapshot)(rocksdb_readoptions_t *, const rocksdb_snapshot_t *);
} R;

/* ---- LMDB subset ---------------------------------------------------------------------- */
typedef struct MDB_env MDB_env;
typedef struct MDB_txn MDB_txn;
typedef struct MDB_cursor MDB_cursor;
typedef unsigned int MDB_dbi;
typedef struct MDB_val { size_t mv_size; void *mv_data; } MDB_val;
#define MDB_RDONLY 0x20000
#define MDB_NOSYNC 0x10000
#define MDB_NOTLS 0x200000
#define MDB_FIRST 0
#define MDB_LAST 6
#define MDB_NEXT 8
#define MDB_PREV 12
#define MDB_SET_RANGE 17
#define MDB_NOTFOUND (-30798)

static struct {
    int (*env_create)(MDB_env **);
    int (*env_set_mapsize)(MDB_env *, size_t);
    int (*env_open)(MDB_env *, const char *, unsigned int, unsigned int);
    void (*env_close)(MDB_env *);
    int (*txn_begin)(MDB_env *, MDB_txn *, unsigned int, MDB_txn **);
    int (*txn_commit)(MDB_txn *);
    void (*txn_abort)(MDB_txn *);
    void (*txn_reset)(MDB_txn *);
    int (*txn_renew)(MDB_txn *);
    int (*dbi_open)(MDB_txn *, const char *, unsigned int, MDB_dbi *);
    int (*cursor_open)(MDB_txn *, MDB_dbi, MDB_cursor **);
    void (*cursor_close)(MDB_cursor *);
    int (*cursor_get)(MDB_cursor *, MDB_val *, MDB_val *, int);
    int (*get)(MDB_txn *, MDB_dbi, MDB_val *, MDB_val *);
    int (*put)(MDB_txn *, MDB_dbi, MDB_val *, MDB_val *, unsigned int);
    char *(*strerror)(int);
    size_t (*txn_id)(MDB_txn *);
} M;

struct floor_db {
    int engine;
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_cache_t *cache;
    rocksdb_readoptions_t *ro;
    rocksdb_writeoptions_t *wo;
    MDB_env *env;
    MDB_dbi dbi;
};

static void *resolve(void *h, const char *prefix, const char *name, int *missing)
{
    char sym[128];
    snprintf(sym, sizeof sym, "%s%s", prefix, name);
    void *p = dlsym(h, sym);
    if (!p) {
        fprintf(stderr, "floor: %s not found in the engine library\n", sym);
        *missing = 1;
    }
    return p;
}

#define BIND(table, prefix, name) do { void *p_ = resolve(h, prefix, #name, &missing); memcpy(&table.name, &p_, sizeof p_); } while (0)

int floor_attach(int engine, const char *lib_path, int allow_load)
{
    void *h = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);
    if (!h && allow_load) h = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "floor: cannot %s %s: %s\n", allow_load ? "load" : "find loaded", lib_path, dlerror());
        return -1;
    }
    int missing = 0;
    if (engine == FLOOR_ROCKSDB) {
        BIND(R, "rocksdb_", free);
        BIND(R, "rocksdb_", options_create);
        BIND(R, "rocksdb_", options_destroy);
        BIND(R, "rocksdb_", options_set_create_if_missing);
        BIND(R, "rocksdb_", options_set_compression);
        BIND(R, "rocksdb_", options_set_block_based_table_factory);
        BIND(R, "rocksdb_", block_based_options_create);
        BIND(R, "rocksdb_", block_based_options_destroy);
        BIND(R, "rocksdb_", block_based_options_set_block_cache);
        BIND(R, "rocksdb_", cache_create_lru);
        BIND(R, "rocksdb_", cache_destroy);
        BIND(R, "rocksdb_", open);
        BIND(R, "rocksdb_", open_for_read_only);
        BIND(R, "rocksdb_", close);
        BIND(R, "rocksdb_", readoptions_create);
        BIND(R, "rocksdb_", readoptions_destroy);
        BIND(R, "rocksdb_", writeoptions_create);
        BIND(R, "rocksdb_", writeoptions_destroy);
        BIND(R, "rocksdb_", create_iterator);
        BIND(R, "rocksdb_", iter_destroy);
        BIND(R, "rocksdb_", iter_valid);
        BIND(R, "rocksdb_", iter_seek_to_first);
        BIND(R, "rocksdb_", iter_seek_to_last);
        BIND(R, "rocksdb_", iter_seek);
        BIND(R, "rocksdb_", iter_next);
        BIND(R, "rocksdb_", iter_prev);
        BIND(R, "rocksdb_", iter_key);
        BIND(R, "rocksdb_", iter_value);
        BIND(R, "rocksdb_", get_pinned);
        BIND(R, "rocksdb_", pinnableslice_value);
        BIND(R, "rocksdb_", pinnableslice_destroy);
        BIND(R, "rocksdb_", put);
        BIND(R, "rocksdb_", writebatch_create);
        BIND(R, "rocksdb_", writebatch_destroy);
        BIND(R, "rocksdb_", writebatch_clear);
        BIND(R, "rocksdb_", writebatch_put);
        BIND(R, "rocksdb_", write);
        BIND(R, "rocksdb_", create_snapshot);
        BIND(R, "rocksdb_", release_snapshot);
        BIND(R, "rocksdb_", readoptions_set_snapshot);
    } else if (engine == FLOOR_LMDB) {
        BIND(M, "mdb_", env_create);
        BIND(M, "mdb_", env_set_mapsize);
        BIND(M, "mdb_", env_open);
        BIND(M, "mdb_", env_close);
        BIND(M, "mdb_", txn_begin);
        BIND(M, "mdb_", txn_commit);
        BIND(M, "mdb_", txn_abort);
        BIND(M, "mdb_", txn_reset);
        BIND(M, "mdb_", txn_renew);
        BIND(M, "mdb_", dbi_open);
        BIND(M, "mdb_", cursor_open);
        BIND(M, "mdb_", cursor_close);
        BIND(M, "mdb_", cursor_get);
        BIND(M, "mdb_", get);
        BIND(M, "mdb_", put);
        BIND(M, "mdb_", strerror);
        BIND(M, "mdb_", txn_id);
    } else {
        fprintf(stderr, "floor: unknown engine %d\n", engine);
        return -1;
    }
    /* the handle is kept: the engine stays loaded for the process's lifetime */
    return missing ? -1 : 0;
}

static floor_db *open_rocksdb(const char *path, int64_t cache_bytes, int read_only)
{
    floor_db *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->engine = FLOOR_ROCKSDB;
    d->opts = R.options_create();
    R.options_set_create_if_missing(d->opts, !read_only);
    R.options_set_compression(d->opts, 0 /* kNoCompression */);
    if (cache_bytes >= 0) {
        rocksdb_bbto_t *t = R.block_based_options_create();
        d->cache = R.cache_create_lru((size_t)cache_bytes);
        R.block_based_options_set_block_cache(t, d->cache);
        R.options_set_block_based_table_factory(d->opts, t);
        R.block_based_options_destroy(t);
    }
    char *err = NULL;
    d->db = read_only ? R.open_for_read_only(d->opts, path, 0, &err) : R.open(d->opts, path, &err);
    if (err || !d->db) {
        fprintf(stderr, "floor: rocksdb open %s: %s\n", path, err ? err : "?");
        if (err) R.free(err);
        R.options_destroy(d->opts);
        if (d->cache) R.cache_destroy(d->cache);
        free(d);
        return NULL;
    }
    d->ro = R.readoptions_create();
    d->wo = R.writeoptions_create();
    return d;
}

static floor_db *open_lmdb(const char *path, int64_t map_size, int read_only)
{
    floor_db *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->engine = FLOOR_LMDB;
    int rc = M.env_create(&d->env);
    if (rc == 0 && map_size > 0) rc = M.env_set_mapsize(d->env, (size_t)map_size);
    if (rc == 0) rc = M.env_open(d->env, path, MDB_NOTLS | (read_only ? MDB_RDONLY : MDB_NOSYNC), 0644);
    MDB_txn *txn = NULL;
    if (rc == 0) rc = M.txn_begin(d->env, NULL, read_only ? MDB_RDONLY : 0, &txn);
    if (rc == 0) rc = M.dbi_open(txn, NULL, 0, &d->dbi);
    if (rc == 0) rc = M.txn_commit(txn);
    else if (txn) M.txn_abort(txn);
    if (rc != 0) {
        fprintf(stderr, "floor: lmdb open %s: %s\n", path, M.strerror(rc));
        if (d->env) M.env_close(d->env);
        free(d);
        return NULL;
    }
    return d;
}

floor_db *floor_open(int engine, const char *path, int64_t cache_bytes, int64_t map_size, int read_only)
{
    if (engine == FLOOR_ROCKSDB) return R.open ? open_rocksdb(path, cache_bytes, read_only) : NULL;
    if (engine == FLOOR_LMDB) return M.env_open ? open_lmdb(path, map_size, read_only) : NULL;
    return NULL;
}

void floor_close(floor_db *d)
{
    if (!d) return;
    if (d->engine == FLOOR_ROCKSDB) {
        R.readoptions_destroy(d->ro);
        R.writeoptions_destroy(d->wo);
        R.close(d->db);
        R.options_destroy(d->opts);
        if (d->cache) R.cache_destroy(d->cache);
    } else {
        M.env_close(d->env);
    }
    free(d);
}

static inline int64_t touch(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    return (int64_t)kl + (int64_t)vl + (kl ? k[0] + k[kl - 1] : 0) + (vl ? v[0] + v[vl - 1] : 0);
}

int64_t floor_seeks(floor_db *d, const uint8_t *keys, int n, int klen, int nexts, int64_t *count)
{
    int64_t sum = 0, seen = 0;
    if (d->engine == FLOOR_ROCKSDB) {
        for (int i = 0; i < n; i++) {
            rocksdb_iterator_t *it = R.create_iterator(d->db, d->ro);
            R.iter_seek(it, (const char *)keys + (size_t)i * klen, klen);
            for (int j = 0; j < nexts && R.iter_valid(it); j++) {
                size_t kl, vl;
                const uint8_t *k = (const uint8_t *)R.iter_key(it, &kl);
                const uint8_t *v = (const uint8_t *)R.iter_value(it, &vl);
                sum += touch(k, kl, v, vl);
                seen++;
                R.iter_next(it);
            }
            R.iter_destroy(it);
        }
    } else {
        MDB_txn *txn;
        if (M.txn_begin(d->env, NULL, MDB_RDONLY, &txn) != 0) return -1;
        M.txn_reset(txn);
        for (int i = 0; i < n; i++) {
            MDB_cursor *c;
            if (M.txn_renew(txn) != 0 || M.cursor_open(txn, d->dbi, &c) != 0) { M.txn_abort(txn); return -1; }
            MDB_val k = { (size_t)klen, (void *)(keys + (size_t)i * klen) }, v;
            int rc = M.cursor_get(c, &k, &v, MDB_SET_RANGE);
            for (int j = 0; j < nexts && rc == 0; j++) {
                sum += touch(k.mv_data, k.mv_size, v.mv_data, v.mv_size);
                seen++;
                rc = M.cursor_get(c, &k, &v, MDB_NEXT);
            }
            M.cursor_close(c);
            M.txn_reset(txn);
        }
        M.txn_abort(txn);
    }
    if (count) *count = seen;
    return sum;
}

int64_t floor_scan(floor_db *d, int reverse, int64_t *count)
{
    int64_t sum = 0, n = 0;
    if (d->engine == FLOOR_ROCKSDB) {
        rocksdb_iterator_t *it = R.create_iterator(d->db, d->ro);
        void (*step)(rocksdb_iterator_t *) = reverse ? R.iter_prev : R.iter_next;
        if (reverse) R.iter_seek_to_last(it); else R.iter_seek_to_first(it);
        while (R.iter_valid(it)) {
            size_t kl, vl;
            const uint8_t *k = (const uint8_t *)R.iter_key(it, &kl);
            const uint8_t *v = (const uint8_t *)R.iter_value(it, &vl);
            sum += touch(k, kl, v, vl);
            n++;
            step(it);
        }
        R.iter_destroy(it);
    } else {
        MDB_txn *txn;
        MDB_cursor *c;
        if (M.txn_begin(d->env, NULL, MDB_RDONLY, &txn) != 0) return -1;
        if (M.cursor_open(txn, d->dbi, &c) != 0) { M.txn_abort(txn); return -1; }
        MDB_val k, v;
        int op = reverse ? MDB_PREV : MDB_NEXT;
        for (int rc = M.cursor_get(c, &k, &v, reverse ? MDB_LAST : MDB_FIRST); rc == 0; rc = M.cursor_get(c, &k, &v, op)) {
            sum += touch(k.mv_data, k.mv_size, v.mv_data, v.mv_size);
            n++;
        }
        M.cursor_close(c);
        M.txn_abort(txn);
    }
    if (count) *count = n;
    return sum;
}

/* What a get adds to the checksum: the value's length and its first and last byte. With dst, the
 * value is first copied there (its first cap bytes), and the two bytes are read from the copy. */
static inline __attribute__((always_inline)) int64_t value_sum(uint8_t *dst, int cap, const uint8_t *v, size_t vl)
{
    size_t n = vl; /* the bytes read: the value's, or the copy's */
    if (dst) {
        n = vl < (size_t)cap ? vl : (size_t)cap;
        memcpy(dst, v, n);
        v = dst;
    }
    return (int64_t)vl + (n ? v[0] + v[n - 1] : 0);
}

/* The one get loop of floor_gets, floor_gets_fresh and floor_gets_copy, inlined into each with
 * constant fresh and dst, so each is a loop of its own without the others' branches. LMDB: all keys
 * in one read transaction, or (fresh) one renewed and reset around every get; RocksDB ignores fresh. */
static inline __attribute__((always_inline)) int64_t gets_loop(floor_db *d, const uint8_t *keys, int n, int klen,
                                                              int fresh, uint8_t *dst, int cap, int64_t *missing)
{
    int64_t sum = 0, miss = 0;
    if (d->engine == FLOOR_ROCKSDB) {
        for (int i = 0; i < n; i++) {
            char *err = NULL;
            rocksdb_pinnableslice_t *p = R.get_pinned(d->db, d->ro, (const char *)keys + (size_t)i * klen, klen, &err);
            if (err) { R.free(err); miss++; continue; }
            if (!p) { miss++; continue; }
            size_t vl;
            const uint8_t *v = (const uint8_t *)R.pinnableslice_value(p, &vl);
            sum += value_sum(dst, cap, v, vl);
            R.pinnableslice_destroy(p);
        }
    } else {
        MDB_txn *txn;
        if (M.txn_begin(d->env, NULL, MDB_RDONLY, &txn) != 0) return -1;
        if (fresh) M.txn_reset(txn);
        for (int i = 0; i < n; i++) {
            if (fresh && M.txn_renew(txn) != 0) { M.txn_abort(txn); return -1; }
            MDB_val k = { (size_t)klen, (void *)(keys + (size_t)i * klen) }, v;
            if (M.get(txn, d->dbi, &k, &v) != 0) miss++;
            else sum += value_sum(dst, cap, v.mv_data, v.mv_size);
            if (fresh) M.txn_reset(txn);
        }
        M.txn_abort(txn);
    }
    if (missing) *missing = miss;
    return sum;
}

int64_t floor_gets_fresh(floor_db *d, const uint8_t *keys, int n, int klen, int64_t *missing)
{
    return gets_loop(d, keys, n, klen, 1, NULL, 0, missing);
}

int64_t floor_gets(floor_db *d, const uint8_t *keys, int n, int klen, int64_t *missing)
{
    return gets_loop(d, keys, n, klen, 0, NULL, 0, missing);
}

int64_t floor_gets_copy(floor_db *d, const uint8_t *keys, int n, int klen, int fresh, uint8_t *dst, int cap,
                        int64_t *missing)
{
    if (!d || !keys || !dst || cap < 1) return -1;
    return fresh ? gets_loop(d, keys, n, klen, 1, dst, cap, missing) : gets_loop(d, keys, n, klen, 0, dst, cap, missing);
}

int floor_puts(floor_db *d, const uint8_t *keys, int n, int klen, const uint8_t *val, int vlen, int batch)
{
    if (batch < 1) batch = 1;
    if (d->engine == FLOOR_ROCKSDB) {
        char *err = NULL;
        if (batch == 1) {
            for (int i = 0; i < n && !err; i++)
                R.put(d->db, d->wo, (const char *)keys + (size_t)i * klen, klen, (const char *)val, vlen, &err);
        } else {
            rocksdb_writebatch_t *b = R.writebatch_create();
            for (int i = 0; i < n && !err; i += batch) {
                R.writebatch_clear(b);
                for (int j = i; j < n && j < i + batch; j++)
                    R.writebatch_put(b, (const char *)keys + (size_t)j * klen, klen, (const char *)val, vlen);
                R.write(d->db, d->wo, b, &err);
            }
            R.writebatch_destroy(b);
        }
        if (err) { fprintf(stderr, "floor: rocksdb put: %s\n", err); R.free(err); return -1; }
        return 0;
    }
    for (int i = 0; i < n; i += batch) {
        MDB_txn *txn = NULL;
        int rc = M.txn_begin(d->env, NULL, 0, &txn);
        for (int j = i; rc == 0 && j < n && j < i + batch; j++) {
            MDB_val k = { (size_t)klen, (void *)(keys + (size_t)j * klen) }, v = { (size_t)vlen, (void *)val };
            rc = M.put(txn, d->dbi, &k, &v, 0);
        }
        if (rc == 0) rc = M.txn_commit(txn);
        else if (txn) M.txn_abort(txn);
        if (rc != 0) { fprintf(stderr, "floor: lmdb put: %s\n", M.strerror(rc)); return -1; }
    }
    return 0;
}

/* ---- parallel scan over splits --------------------------------------------------------------- */
typedef struct split_job {
    floor_db *db;
    const uint8_t **lo, **hi;   /* per split: bound records ("u32 klen; key") or NULL (open) */
    int nsplits;
    atomic_int next;
    atomic_llong sum;
    atomic_int failed;
    int64_t *counts;
    rocksdb_readoptions_t *ro;  /* RocksDB: read options holding the shared snapshot */
    size_t txnid;               /* LMDB: the transaction id every thread must read */
} split_job;

static inline int below(const uint8_t *k, size_t kl, const uint8_t *rec)
{
    uint32_t hl;
    memcpy(&hl, rec, 4);
    size_t n = kl < hl ? kl : hl;
    int c = memcmp(k, rec + 4, n);
    return c < 0 || (c == 0 && kl < hl);
}

static void *split_worker(void *arg)
{
    split_job *j = arg;
    floor_db *d = j->db;
    MDB_txn *txn = NULL;
    MDB_cursor *cur = NULL;
    if (d->engine == FLOOR_LMDB) {
        if (M.txn_begin(d->env, NULL, MDB_RDONLY, &txn) != 0) { atomic_store(&j->failed, 1); return NULL; }
        if (M.txn_id(txn) != j->txnid || M.cursor_open(txn, d->dbi, &cur) != 0) {
            atomic_store(&j->failed, 1);
            M.txn_abort(txn);
            return NULL;
        }
    }
    int64_t sum = 0;
    for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->nsplits;) {
        const uint8_t *lo = j->lo[i], *hi = j->hi[i];
        int64_t n = 0;
        if (d->engine == FLOOR_ROCKSDB) {
            rocksdb_iterator_t *it = R.create_iterator(d->db, j->ro);
            if (lo) { uint32_t l; memcpy(&l, lo, 4); R.iter_seek(it, (const char *)lo + 4, l); }
            else R.iter_seek_to_first(it);
            for (; R.iter_valid(it); R.iter_next(it)) {
                size_t kl, vl;
                const uint8_t *k = (const uint8_t *)R.iter_key(it, &kl);
                if (hi && !below(k, kl, hi)) break;
                const uint8_t *v = (const uint8_t *)R.iter_value(it, &vl);
                sum += touch(k, kl, v, vl);
                n++;
            }
            R.iter_destroy(it);
        } else {
            MDB_val k, v;
            int rc;
            if (lo) {
                uint32_t l;
                memcpy(&l, lo, 4);
                k.mv_size = l;
                k.mv_data = (void *)(lo + 4);
                rc = M.cursor_get(cur, &k, &v, MDB_SET_RANGE);
            } else {
                rc = M.cursor_get(cur, &k, &v, MDB_FIRST);
            }
            for (; rc == 0; rc = M.cursor_get(cur, &k, &v, MDB_NEXT)) {
                if (hi && !below(k.mv_data, k.mv_size, hi)) break;
                sum += touch(k.mv_data, k.mv_size, v.mv_data, v.mv_size);
                n++;
            }
        }
        if (j->counts) j->counts[i] = n;
    }
    if (cur) M.cursor_close(cur);
    if (txn) M.txn_abort(txn);
    atomic_fetch_add(&j->sum, sum);
    return NULL;
}

int64_t floor_scan_splits(floor_db *d, const uint8_t *bounds, int nsplits, int threads, int64_t *counts)
{
    if (!d || nsplits < 1 || threads < 1 || threads > 1024 || (nsplits > 1 && !bounds)) return -1;
    split_job j;
    memset(&j, 0, sizeof j);
    j.db = d;
    j.nsplits = nsplits;
    j.counts = counts;
    j.lo = calloc((size_t)nsplits, sizeof *j.lo);
    j.hi = calloc((size_t)nsplits, sizeof *j.hi);
    pthread_t *ts = calloc((size_t)threads, sizeof *ts);
    if (!j.lo || !j.hi || !ts) { free(j.lo); free(j.hi); free(ts); return -1; }
    const uint8_t *p = bounds;
    for (int i = 1; i < nsplits; i++) {
        j.hi[i - 1] = j.lo[i] = p;
        uint32_t l;
        memcpy(&l, p, 4);
        p += 4 + (size_t)l;
    }
    const rocksdb_snapshot_t *snap = NULL;
    MDB_txn *pin = NULL;
    if (d->engine == FLOOR_ROCKSDB) {
        snap = R.create_snapshot(d->db);
        j.ro = R.readoptions_create();
        R.readoptions_set_snapshot(j.ro, snap);
    } else {
        /* every thread's read transaction must see this one's state: held open meanwhile, its id
         * is what the workers check (no writer runs in the benchmark, so they always agree) */
        if (M.txn_begin(d->env, NULL, MDB_RDONLY, &pin) != 0) { free(j.lo); free(j.hi); free(ts); return -1; }
        j.txnid = M.txn_id(pin);
    }
    int started = 0;
    for (int t = 1; t < threads && t < nsplits; t++, started++)
        if (pthread_create(&ts[t], NULL, split_worker, &j) != 0) break;
    split_worker(&j);
    for (int t = 1; t <= started; t++) pthread_join(ts[t], NULL);
    if (d->engine == FLOOR_ROCKSDB) {
        R.readoptions_destroy(j.ro);
        R.release_snapshot(d->db, snap);
    } else {
        M.txn_abort(pin);
    }
    free(j.lo);
    free(j.hi);
    free(ts);
    return atomic_load(&j.failed) ? -1 : (int64_t)atomic_load(&j.sum);
}

int floor_noop(void)
{
    return 0;
}
