/* callgrind_ops: the shim's calls and the engine's own calls, op for op, on one data set, so that
 * `valgrind --tool=callgrind` can count the instructions of each (benchmarks/callgrind runs it).
 *
 *   callgrind_ops prepare <rocksdb|lmdb> <engine-lib> <dir> <entries> <value-size>
 *   callgrind_ops run     <rocksdb|lmdb> <engine-lib> <dir> <ops>
 *   callgrind_ops check   <rocksdb|lmdb> <engine-lib> <dir>        (dir emptied; prepare + run + compare)
 *   callgrind_ops time    <rocksdb|lmdb> <engine-lib> <dir> <rounds>
 *
 * run opens the store through Ferry (the shim, ferry_*), runs each shim operation <ops> times, closes
 * it, opens the same files with the engine's C API directly and runs the engine's equivalent <ops>
 * times. Each measured operation loop is a function of its own (op_shim_*, op_engine_*; the warm-up
 * passes call the loops under other names), so callgrind's inclusive count of that function is the
 * cost of <ops> operations; two runs with different <ops>
 * give instructions per operation as the difference over the difference, fixed costs cancelled.
 *
 * Operations (keys: 16 bytes, "%016d" of 0..entries-1; gets and seeks in one pseudo-random order):
 *   get       shim: ferry_get(store, NULL snapshot) copying the value into a buffer (Store.get's path);
 *             engine: RocksDB rocksdb_get_pinned + memcpy; LMDB mdb_txn_renew + mdb_get + memcpy +
 *             mdb_txn_reset (a fresh read view per get, as the shim's NULL snapshot reads).
 *   get_snap  shim: ferry_get through one snapshot; engine: RocksDB as get (the default read options
 *             read the latest state); LMDB mdb_get + memcpy in one read transaction.
 *   scan      per entry, forward from the first key: shim ferry_cursor_fill into 64 KiB pages (RocksDB
 *             copy pages, LMDB pointer pages) and a read of each entry; engine iterator / cursor steps
 *             (RocksDB rocksdb_iter_next + key + value; LMDB mdb_cursor_get MDB_NEXT).
 *   rscan     the same in reverse from the last key (FERRY_LAST, FERRY_PREV; rocksdb_iter_prev, MDB_PREV).
 *   pscan, prscan  scan and rscan with FERRY_CURSOR_POINTERS (RocksDB: pointer pages where the engine
 *             pins the values); their engine loops are scan's and rscan's.
 *   put       shim ferry_put of new keys; engine rocksdb_put / (LMDB) mdb_txn_begin + mdb_put +
 *             mdb_txn_commit; the same value size as the data set, keys above the data set's.
 * Each op adds a checksum (lengths, first and last bytes) that must agree between shim and engine;
 * `check` fails when it does not, or when a get missed. run leaves its puts in the store: run each
 * time on a fresh copy of the prepared directory (the script does).
 *
 * time (no valgrind) scans the whole data set round after round, in turn: the engine's loop and the
 * shim's copy and pointer pages, forward and reverse, in one process, and prints the best ns per
 * entry of each with its ratio to the engine's loop in the same direction: what the copy costs in
 * time (memory traffic, which instruction counts do not show). On RocksDB also the engine's loop
 * with pin_data ("pinned": touching each entry at its step) and the same stepping up to 4,096
 * entries or 128 KiB first and touching them after ("batched", as a pointer page's reader does).
 * Reads only: any prepared directory. */
#define _GNU_SOURCE
#include "ferry.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY 16
#define PAGE (64 * 1024)
#ifndef CACHE_BYTES
#define CACHE_BYTES ((int64_t)512 << 20)
#endif
#define MAP_SIZE ((int64_t)1 << 30)
#define NOINLINE __attribute__((noinline))
/* a call that is not compiled as a jump, so callgrind sees the wrapper's inclusive cost */
#define NOT_TAIL(call) ({ int64_t r_ = (call); __asm__ volatile("" : "+r"(r_)); r_; })
#define MISS 1000000000 /* what a get of an absent key subtracts from the checksum */

/* ---- the engine calls, resolved from the library Ferry attached ---------------------------- */
typedef struct rdb rdb;
typedef struct rdb_opts rdb_opts;
typedef struct rdb_ro rdb_ro;
typedef struct rdb_wo rdb_wo;
typedef struct rdb_bbto rdb_bbto;
typedef struct rdb_cache rdb_cache;
typedef struct rdb_it rdb_it;
typedef struct rdb_ps rdb_ps;

static struct {
    void (*free)(void *);
    rdb_opts *(*options_create)(void);
    void (*options_destroy)(rdb_opts *);
    void (*options_set_compression)(rdb_opts *, int);
    void (*options_set_block_based_table_factory)(rdb_opts *, rdb_bbto *);
    rdb_bbto *(*block_based_options_create)(void);
    void (*block_based_options_destroy)(rdb_bbto *);
    void (*block_based_options_set_block_cache)(rdb_bbto *, rdb_cache *);
    rdb_cache *(*cache_create_lru)(size_t);
    void (*cache_destroy)(rdb_cache *);
    rdb *(*open)(const rdb_opts *, const char *, char **);
    void (*close)(rdb *);
    rdb_ro *(*readoptions_create)(void);
    void (*readoptions_destroy)(rdb_ro *);
    rdb_wo *(*writeoptions_create)(void);
    void (*writeoptions_destroy)(rdb_wo *);
    rdb_it *(*create_iterator)(rdb *, const rdb_ro *);
    void (*iter_destroy)(rdb_it *);
    unsigned char (*iter_valid)(const rdb_it *);
    void (*iter_seek_to_first)(rdb_it *);
    void (*iter_seek_to_last)(rdb_it *);
    void (*iter_next)(rdb_it *);
    void (*iter_prev)(rdb_it *);
    const char *(*iter_key)(const rdb_it *, size_t *);
    const char *(*iter_value)(const rdb_it *, size_t *);
    void (*readoptions_set_pin_data)(rdb_ro *, unsigned char);
    rdb_ps *(*get_pinned)(rdb *, const rdb_ro *, const char *, size_t, char **);
    const char *(*pinnableslice_value)(const rdb_ps *, size_t *);
    void (*pinnableslice_destroy)(rdb_ps *);
    void (*put)(rdb *, const rdb_wo *, const char *, size_t, const char *, size_t, char **);
} R;

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

static struct {
    int (*env_create)(MDB_env **);
    int (*env_set_mapsize)(MDB_env *, size_t);
    int (*env_set_maxdbs)(MDB_env *, MDB_dbi);
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
} M;

static int bind_engine(int engine)
{
    char path[4096];
    if (ferry_engine_path(engine, path, sizeof path) < 0) return -1;
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (!h) { fprintf(stderr, "callgrind_ops: %s is not loaded: %s\n", path, dlerror()); return -1; }
    int missing = 0;
#define SYM(table, prefix, name) do { void *p_ = dlsym(h, prefix #name); \
        if (!p_) { fprintf(stderr, "callgrind_ops: %s missing\n", prefix #name); missing = 1; } \
        memcpy(&table.name, &p_, sizeof p_); } while (0)
    if (engine == FERRY_ENGINE_ROCKSDB) {
        SYM(R, "rocksdb_", free); SYM(R, "rocksdb_", options_create); SYM(R, "rocksdb_", options_destroy);
        SYM(R, "rocksdb_", options_set_compression); SYM(R, "rocksdb_", options_set_block_based_table_factory);
        SYM(R, "rocksdb_", block_based_options_create); SYM(R, "rocksdb_", block_based_options_destroy);
        SYM(R, "rocksdb_", block_based_options_set_block_cache); SYM(R, "rocksdb_", cache_create_lru);
        SYM(R, "rocksdb_", cache_destroy); SYM(R, "rocksdb_", open); SYM(R, "rocksdb_", close);
        SYM(R, "rocksdb_", readoptions_create); SYM(R, "rocksdb_", readoptions_destroy);
        SYM(R, "rocksdb_", writeoptions_create); SYM(R, "rocksdb_", writeoptions_destroy);
        SYM(R, "rocksdb_", create_iterator); SYM(R, "rocksdb_", iter_destroy); SYM(R, "rocksdb_", iter_valid);
        SYM(R, "rocksdb_", iter_seek_to_first); SYM(R, "rocksdb_", iter_next); SYM(R, "rocksdb_", iter_key);
        SYM(R, "rocksdb_", iter_seek_to_last); SYM(R, "rocksdb_", iter_prev);
        SYM(R, "rocksdb_", iter_value); SYM(R, "rocksdb_", readoptions_set_pin_data); SYM(R, "rocksdb_", get_pinned); SYM(R, "rocksdb_", pinnableslice_value);
        SYM(R, "rocksdb_", pinnableslice_destroy); SYM(R, "rocksdb_", put);
    } else {
        SYM(M, "mdb_", env_create); SYM(M, "mdb_", env_set_mapsize); SYM(M, "mdb_", env_set_maxdbs);
        SYM(M, "mdb_", env_open); SYM(M, "mdb_", env_close); SYM(M, "mdb_", txn_begin); SYM(M, "mdb_", txn_commit);
        SYM(M, "mdb_", txn_abort); SYM(M, "mdb_", txn_reset); SYM(M, "mdb_", txn_renew); SYM(M, "mdb_", dbi_open);
        SYM(M, "mdb_", cursor_open); SYM(M, "mdb_", cursor_close); SYM(M, "mdb_", cursor_get); SYM(M, "mdb_", get);
        SYM(M, "mdb_", put);
    }
#undef SYM
    return missing ? -1 : 0;
}

/* ---- data ------------------------------------------------------------------------------------- */
static void key_of(uint8_t *dst, long long i)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%016lld", i);
    memcpy(dst, tmp, KEY);
}

static uint64_t rnd_state;
static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline int64_t touch(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
    return (int64_t)kl + (int64_t)vl + (kl ? k[0] + k[kl - 1] : 0) + (vl ? v[0] + v[vl - 1] : 0);
}

static void opts_of(int engine, int64_t *o)
{
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    if (engine == FERRY_ENGINE_ROCKSDB) {
        o[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_NONE;
        o[FERRY_OPT_BLOCK_CACHE_BYTES] = CACHE_BYTES;
        o[FERRY_OPT_BLOOM_BITS] = 0;
    } else {
        o[FERRY_OPT_MAP_SIZE] = MAP_SIZE;
    }
}

static ferry_store *shim_open(int engine, const char *dir)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_of(engine, o);
    ferry_store *s = NULL;
    ferry_error err;
    int rc = ferry_store_open(engine, dir, o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err);
    if (rc) { fprintf(stderr, "callgrind_ops: open %s: %s %s\n", dir, ferry_strerror(rc), err.message); return NULL; }
    return s;
}

static int prepare(int engine, const char *dir, long long entries, int vsize)
{
    ferry_store *s = shim_open(engine, dir);
    if (!s) return 1;
    size_t rec = FERRY_OP_HEADER + KEY + (size_t)vsize, per = 1000;
    uint8_t *ops = malloc(rec * per);
    ferry_error err;
    for (long long i = 0; i < entries; i += (long long)per) {
        uint32_t n = 0;
        for (long long j = i; j < entries && j < i + (long long)per; j++, n++) {
            uint8_t *p = ops + rec * n;
            uint32_t h[4] = { FERRY_OP_PUT, 0, KEY, (uint32_t)vsize };
            memcpy(p, h, sizeof h);
            key_of(p + FERRY_OP_HEADER, j);
            for (int b = 0; b < vsize; b++) p[FERRY_OP_HEADER + KEY + b] = (uint8_t)(j * 31 + b);
        }
        int rc = ferry_write(s, ops, rec * n, n, 0, &err);
        if (rc) { fprintf(stderr, "callgrind_ops: write: %s %s\n", ferry_strerror(rc), err.message); return 1; }
    }
    free(ops);
    int rc = ferry_flush(s, 0, &err);
    if (rc) { fprintf(stderr, "callgrind_ops: flush: %s %s\n", ferry_strerror(rc), err.message); return 1; }
    /* one sorted run, nothing left for a background compaction to change while a run counts (a data
     * set larger than a write buffer was two level-0 files, which a compaction could merge during one
     * run and not the other: the scans' counts then moved by 8%) */
    rc = ferry_compact_range(s, 0, NULL, 0, NULL, 0, &err);
    if (rc) { fprintf(stderr, "callgrind_ops: compact: %s %s\n", ferry_strerror(rc), err.message); return 1; }
    ferry_store_close(s);
    return 0;
}

/* ---- the shim's operations -------------------------------------------------------------------- */
static uint8_t vbuf[1 << 16];
static uint8_t page[PAGE] __attribute__((aligned(8)));

static NOINLINE int64_t shim_get_loop(ferry_store *s, ferry_snapshot *snap, const uint8_t *keys, int n)
{
    int64_t sum = 0;
    ferry_error err;
    for (int i = 0; i < n; i++) {
        size_t vl = 0;
        int rc = ferry_get(s, snap, 0, keys + (size_t)i * KEY, KEY, 0, vbuf, sizeof vbuf, &vl, &err);
        if (rc == FERRY_OK) sum += touch(NULL, 0, vbuf, vl);
        else sum -= MISS;
    }
    return sum;
}

static NOINLINE int64_t op_shim_get_latest(ferry_store *s, const uint8_t *keys, int n)
{
    return NOT_TAIL(shim_get_loop(s, NULL, keys, n));
}

static NOINLINE int64_t op_shim_get_snap(ferry_store *s, ferry_snapshot *snap, const uint8_t *keys, int n)
{
    return NOT_TAIL(shim_get_loop(s, snap, keys, n));
}

/* n entries from the first forward (rev = 0) or from the last in reverse (rev = 1), through pages
 * of the cursor flags given. */
static NOINLINE int64_t shim_scan_loop(ferry_store *s, int n, int rev, uint32_t flags)
{
    ferry_cursor *c = NULL;
    ferry_error err;
    if (ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, flags, &c, &err)) return -1;
    int64_t sum = 0;
    int left = n, op = rev ? FERRY_LAST : FERRY_FIRST;
    while (left > 0) {
        int got = ferry_cursor_fill(c, op, NULL, 0, page, sizeof page, (uint32_t)left, &err);
        if (got <= 0) break;
        op = rev ? FERRY_PREV : FERRY_NEXT;
        uint32_t pflags;
        memcpy(&pflags, page + 4, 4);
        size_t off = FERRY_PAGE_HEADER;
        for (int i = 0; i < got; i++) {
            uint32_t kl, vl;
            if (pflags & FERRY_PAGE_POINTERS) {
                uint64_t ka, va;
                memcpy(&ka, page + off, 8);
                memcpy(&kl, page + off + 8, 4);
                memcpy(&vl, page + off + 12, 4);
                memcpy(&va, page + off + 16, 8);
                sum += touch((const uint8_t *)(uintptr_t)ka, kl, (const uint8_t *)(uintptr_t)va, vl);
                off += FERRY_PTR_ENTRY;
            } else {
                memcpy(&kl, page + off, 4);
                memcpy(&vl, page + off + 4, 4);
                sum += touch(page + off + 8, kl, page + off + 8 + kl, vl);
                off += (8 + kl + vl + 7) & ~(size_t)7;
            }
        }
        left -= got;
        if (pflags & FERRY_PAGE_END) break;
    }
    ferry_cursor_close(c);
    return sum;
}

/* The engine's default pages: RocksDB copy pages, LMDB pointer pages. */
static uint32_t default_flags(int engine)
{
    return engine == FERRY_ENGINE_LMDB ? FERRY_CURSOR_POINTERS : 0;
}

static NOINLINE int64_t op_shim_scan(ferry_store *s, int engine, int n)
{
    return NOT_TAIL(shim_scan_loop(s, n, 0, default_flags(engine)));
}

static NOINLINE int64_t op_shim_rscan(ferry_store *s, int engine, int n)
{
    return NOT_TAIL(shim_scan_loop(s, n, 1, default_flags(engine)));
}

/* pointer pages asked for (FERRY_CURSOR_POINTERS: RocksDB points where the engine pins the data) */
static NOINLINE int64_t op_shim_pscan(ferry_store *s, int n)
{
    return NOT_TAIL(shim_scan_loop(s, n, 0, FERRY_CURSOR_POINTERS));
}

static NOINLINE int64_t op_shim_prscan(ferry_store *s, int n)
{
    return NOT_TAIL(shim_scan_loop(s, n, 1, FERRY_CURSOR_POINTERS));
}

static NOINLINE int64_t op_shim_put(ferry_store *s, const uint8_t *keys, int n, const uint8_t *val, int vsize)
{
    ferry_error err;
    for (int i = 0; i < n; i++)
        if (ferry_put(s, 0, keys + (size_t)i * KEY, KEY, val, (size_t)vsize, 0, &err)) return -1;
    return n;
}

/* ---- the engine's own operations ---------------------------------------------------------------- */
typedef struct eng {
    int engine;
    rdb *db;
    rdb_opts *opts;
    rdb_cache *cache;
    rdb_ro *ro;
    rdb_wo *wo;
    MDB_env *env;
    MDB_dbi dbi;
} eng;

static int eng_open(eng *e, int engine, const char *dir)
{
    memset(e, 0, sizeof *e);
    e->engine = engine;
    if (engine == FERRY_ENGINE_ROCKSDB) {
        e->opts = R.options_create();
        R.options_set_compression(e->opts, 0);
        rdb_bbto *t = R.block_based_options_create();
        e->cache = R.cache_create_lru((size_t)CACHE_BYTES);
        R.block_based_options_set_block_cache(t, e->cache);
        R.options_set_block_based_table_factory(e->opts, t);
        R.block_based_options_destroy(t);
        char *err = NULL;
        e->db = R.open(e->opts, dir, &err);
        if (err || !e->db) { fprintf(stderr, "callgrind_ops: rocksdb open: %s\n", err ? err : "?"); return -1; }
        e->ro = R.readoptions_create();
        e->wo = R.writeoptions_create();
        return 0;
    }
    MDB_txn *txn = NULL;
    int rc = M.env_create(&e->env);
    if (!rc) rc = M.env_set_mapsize(e->env, (size_t)MAP_SIZE);
    if (!rc) rc = M.env_set_maxdbs(e->env, 65);
    if (!rc) rc = M.env_open(e->env, dir, MDB_NOTLS | MDB_NOSYNC, 0644);
    if (!rc) rc = M.txn_begin(e->env, NULL, 0, &txn);
    if (!rc) rc = M.dbi_open(txn, NULL, 0, &e->dbi);
    if (!rc) rc = M.txn_commit(txn);
    if (rc) { fprintf(stderr, "callgrind_ops: lmdb open: %d\n", rc); return -1; }
    return 0;
}

static void eng_close(eng *e)
{
    if (e->engine == FERRY_ENGINE_ROCKSDB) {
        R.readoptions_destroy(e->ro);
        R.writeoptions_destroy(e->wo);
        R.close(e->db);
        R.options_destroy(e->opts);
        R.cache_destroy(e->cache);
    } else {
        M.env_close(e->env);
    }
}

/* RocksDB: get_pinned + copy; LMDB: mdb_get + copy, in one read transaction (fresh = 0) or one
 * renewed and reset around each get (fresh = 1). */
static NOINLINE int64_t engine_get_loop(eng *e, const uint8_t *keys, int n, int fresh)
{
    int64_t sum = 0;
    if (e->engine == FERRY_ENGINE_ROCKSDB) {
        for (int i = 0; i < n; i++) {
            char *err = NULL;
            rdb_ps *p = R.get_pinned(e->db, e->ro, (const char *)keys + (size_t)i * KEY, KEY, &err);
            if (err) { R.free(err); sum -= MISS; continue; }
            if (!p) { sum -= MISS; continue; }
            size_t vl;
            const char *v = R.pinnableslice_value(p, &vl);
            memcpy(vbuf, v, vl < sizeof vbuf ? vl : sizeof vbuf);
            sum += touch(NULL, 0, vbuf, vl);
            R.pinnableslice_destroy(p);
        }
        return sum;
    }
    MDB_txn *txn;
    if (M.txn_begin(e->env, NULL, MDB_RDONLY, &txn)) return -1;
    if (fresh) M.txn_reset(txn);
    for (int i = 0; i < n; i++) {
        if (fresh && M.txn_renew(txn)) { M.txn_abort(txn); return -1; }
        MDB_val k = { KEY, (void *)(keys + (size_t)i * KEY) }, v;
        if (M.get(txn, e->dbi, &k, &v) == 0) {
            memcpy(vbuf, v.mv_data, v.mv_size < sizeof vbuf ? v.mv_size : sizeof vbuf);
            sum += touch(NULL, 0, vbuf, v.mv_size);
        } else {
            sum -= MISS;
        }
        if (fresh) M.txn_reset(txn);
    }
    M.txn_abort(txn);
    return sum;
}

static NOINLINE int64_t op_engine_get_latest(eng *e, const uint8_t *keys, int n)
{
    return NOT_TAIL(engine_get_loop(e, keys, n, 1));
}

static NOINLINE int64_t op_engine_get_snap(eng *e, const uint8_t *keys, int n)
{
    return NOT_TAIL(engine_get_loop(e, keys, n, 0));
}

static NOINLINE int64_t engine_scan_loop(eng *e, int n, int rev)
{
    int64_t sum = 0;
    int seen = 0;
    if (e->engine == FERRY_ENGINE_ROCKSDB) {
        rdb_it *it = R.create_iterator(e->db, e->ro);
        void (*step)(rdb_it *) = rev ? R.iter_prev : R.iter_next;
        if (rev) R.iter_seek_to_last(it); else R.iter_seek_to_first(it);
        for (; seen < n && R.iter_valid(it); step(it), seen++) {
            size_t kl, vl;
            const uint8_t *k = (const uint8_t *)R.iter_key(it, &kl);
            const uint8_t *v = (const uint8_t *)R.iter_value(it, &vl);
            sum += touch(k, kl, v, vl);
        }
        R.iter_destroy(it);
        return sum;
    }
    MDB_txn *txn;
    MDB_cursor *c;
    if (M.txn_begin(e->env, NULL, MDB_RDONLY, &txn)) return -1;
    if (M.cursor_open(txn, e->dbi, &c)) { M.txn_abort(txn); return -1; }
    MDB_val k, v;
    for (int rc = M.cursor_get(c, &k, &v, rev ? MDB_LAST : MDB_FIRST); rc == 0 && seen < n; seen++) {
        sum += touch(k.mv_data, k.mv_size, v.mv_data, v.mv_size);
        if (seen + 1 < n) rc = M.cursor_get(c, &k, &v, rev ? MDB_PREV : MDB_NEXT);
    }
    M.cursor_close(c);
    M.txn_abort(txn);
    return sum;
}

/* time mode only: RocksDB's own loop with ReadOptions.pin_data, touching each entry as it steps (batch
 * 0) or stepping `batch` entries (or FERRY_PTR_SPAN bytes of keys and values, as a pointer page) first and touching
 * them after, as a pointer page's reader does: what pinning costs, and what reading an entry later
 * than its step costs, each without Ferry's fill. */
static NOINLINE int64_t engine_pinned_loop(eng *e, int n, int rev, int batch)
{
    enum { MAXB = 4096 };
    /* a key is not pinned (delta encoding rebuilds it in the iterator's buffer): its part of the
     * checksum is taken at the step, as a pointer page copies the key then */
    static int64_t kpart[MAXB];
    static const uint8_t *vs[MAXB];
    static size_t vls[MAXB];
    rdb_ro *ro = R.readoptions_create();
    R.readoptions_set_pin_data(ro, 1);
    rdb_it *it = R.create_iterator(e->db, ro);
    void (*step)(rdb_it *) = rev ? R.iter_prev : R.iter_next;
    if (rev) R.iter_seek_to_last(it); else R.iter_seek_to_first(it);
    int64_t sum = 0;
    int seen = 0, b = 0;
    size_t span = 0;
    for (; seen < n && R.iter_valid(it); step(it), seen++) {
        size_t kl, vl;
        const uint8_t *k = (const uint8_t *)R.iter_key(it, &kl);
        const uint8_t *v = (const uint8_t *)R.iter_value(it, &vl);
        if (!batch) { sum += touch(k, kl, v, vl); continue; }
        kpart[b] = touch(k, kl, NULL, 0);
        vs[b] = v;
        vls[b] = vl;
        span += kl + vl;
        if (++b == batch || b == MAXB || span >= FERRY_PTR_SPAN) {
            for (int i = 0; i < b; i++) sum += kpart[i] + touch(NULL, 0, vs[i], vls[i]);
            b = 0;
            span = 0;
        }
    }
    for (int i = 0; i < b; i++) sum += kpart[i] + touch(NULL, 0, vs[i], vls[i]);
    R.iter_destroy(it);
    R.readoptions_destroy(ro);
    return sum;
}

static NOINLINE int64_t op_engine_scan(eng *e, int n)
{
    return NOT_TAIL(engine_scan_loop(e, n, 0));
}

static NOINLINE int64_t op_engine_rscan(eng *e, int n)
{
    return NOT_TAIL(engine_scan_loop(e, n, 1));
}

static NOINLINE int64_t op_engine_put(eng *e, const uint8_t *keys, int n, const uint8_t *val, int vsize)
{
    for (int i = 0; i < n; i++) {
        const uint8_t *k = keys + (size_t)i * KEY;
        if (e->engine == FERRY_ENGINE_ROCKSDB) {
            char *err = NULL;
            R.put(e->db, e->wo, (const char *)k, KEY, (const char *)val, (size_t)vsize, &err);
            if (err) { R.free(err); return -1; }
        } else {
            MDB_txn *txn;
            if (M.txn_begin(e->env, NULL, 0, &txn)) return -1;
            MDB_val mk = { KEY, (void *)k }, mv = { (size_t)vsize, (void *)val };
            if (M.put(txn, e->dbi, &mk, &mv, 0)) { M.txn_abort(txn); return -1; }
            if (M.txn_commit(txn)) return -1;
        }
    }
    return n;
}

/* ---- run -------------------------------------------------------------------------------------- */
typedef struct sums { int64_t get, get_snap, scan, rscan, pscan, prscan, put; } sums;

/* Runs every operation n times on the shim, then on the engine; the put keys lie above the data
 * set (base + i), the shim's and the engine's in ranges of their own. */
static int run(int engine, const char *dir, int n, sums *shim, sums *engs)
{
    /* the data set's size and value size, from its last key */
    ferry_store *s = shim_open(engine, dir);
    if (!s) return 1;
    ferry_cursor *c = NULL;
    ferry_error err;
    if (ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err)) return 1;
    int got = ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 1, &err);
    ferry_cursor_close(c);
    if (got != 1) { fprintf(stderr, "callgrind_ops: %s is empty (prepare it first)\n", dir); return 1; }
    uint32_t kl, vl;
    memcpy(&kl, page + FERRY_PAGE_HEADER, 4);
    memcpy(&vl, page + FERRY_PAGE_HEADER + 4, 4);
    char last[KEY + 1] = { 0 };
    memcpy(last, page + FERRY_PAGE_HEADER + 8, kl < KEY ? kl : KEY);
    long long entries = atoll(last) + 1;
    int vsize = (int)vl;
    if (entries >= 1000000000LL) { fprintf(stderr, "callgrind_ops: put keys already in %s\n", dir); return 1; }

    uint8_t *keys = malloc((size_t)n * KEY), *shim_puts = malloc((size_t)n * KEY), *eng_puts = malloc((size_t)n * KEY);
    uint8_t *val = malloc((size_t)vsize + 1);
    rnd_state = 42;
    for (int i = 0; i < n; i++) key_of(keys + (size_t)i * KEY, (long long)(rnd() % (uint64_t)entries));
    /* puts: new keys each run (a run's puts stay in the store) */
    long long base = 1000000000LL + (long long)(rnd() % 1000000) * 100000LL;
    for (int i = 0; i < n; i++) {
        key_of(shim_puts + (size_t)i * KEY, base + 2LL * i);
        key_of(eng_puts + (size_t)i * KEY, base + 2LL * i + 1);
    }
    for (int i = 0; i < vsize; i++) val[i] = (uint8_t)(i * 7);
    int scan_n = n < entries ? n : (int)entries;

    /* the engine's puts go to a copy of the data set, so both write into the same state */
    char copy[8192], cmd[20000];
    snprintf(copy, sizeof copy, "%s.engine-puts", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", copy, dir, copy);
    ferry_store_close(s);
    if (system(cmd) != 0) { fprintf(stderr, "callgrind_ops: %s failed\n", cmd); return 1; }

    /* reads first, shim then engine, on the same state (warm passes over the blocks or pages the
     * ops read), then the puts: the shim's into dir, the engine's into the copy */
    if (!(s = shim_open(engine, dir))) return 1;
    shim_scan_loop(s, (int)entries, 0, default_flags(engine));
    shim_scan_loop(s, (int)entries, 1, FERRY_CURSOR_POINTERS);
    shim_get_loop(s, NULL, keys, n);
    ferry_snapshot *snap = NULL;
    if (ferry_snapshot_open(s, &snap, &err)) return 1;
    shim->get = op_shim_get_latest(s, keys, n);
    shim->get_snap = op_shim_get_snap(s, snap, keys, n);
    shim->scan = op_shim_scan(s, engine, scan_n);
    shim->rscan = op_shim_rscan(s, engine, scan_n);
    shim->pscan = op_shim_pscan(s, scan_n);
    shim->prscan = op_shim_prscan(s, scan_n);
    ferry_snapshot_close(snap);
    ferry_store_close(s);

    eng e;
    if (eng_open(&e, engine, dir)) return 1;
    engine_scan_loop(&e, (int)entries, 0);
    engine_scan_loop(&e, (int)entries, 1);
    engine_get_loop(&e, keys, n, 1);
    engs->get = op_engine_get_latest(&e, keys, n);
    engs->get_snap = op_engine_get_snap(&e, keys, n);
    engs->scan = op_engine_scan(&e, scan_n);
    engs->rscan = op_engine_rscan(&e, scan_n);
    engs->pscan = engs->scan;
    engs->prscan = engs->rscan;
    eng_close(&e);

    if (!(s = shim_open(engine, dir))) return 1;
    shim->put = op_shim_put(s, shim_puts, n, val, vsize);
    ferry_store_close(s);
    if (eng_open(&e, engine, copy)) return 1;
    engs->put = op_engine_put(&e, eng_puts, n, val, vsize);
    eng_close(&e);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
    if (system(cmd) != 0) return 1;
    free(keys);
    free(shim_puts);
    free(eng_puts);
    free(val);
    return 0;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Whole-data-set scans, interleaved round by round; best ns per entry of each. */
static int time_scans(int engine, const char *dir, int rounds)
{
    /* the engine opens a copy: one process cannot open one directory twice */
    char copy[8192], cmd[20000];
    snprintf(copy, sizeof copy, "%s.engine-time", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", copy, dir, copy);
    if (system(cmd) != 0) { fprintf(stderr, "callgrind_ops: %s failed\n", cmd); return 1; }
    ferry_store *s = shim_open(engine, dir);
    if (!s) return 1;
    eng e;
    if (eng_open(&e, engine, copy)) return 1;
    /* per direction: the engine's loop, copy pages, pointer pages; on RocksDB also the engine's loop with
     * pin_data touching at each step, and stepping a pointer page's worth first (engine_pinned_loop) */
    enum { PER = 5 };
    static const char *names[] = { "engine fwd", "copy fwd", "pointer fwd", "pinned fwd", "batched fwd",
                                   "engine rev", "copy rev", "pointer rev", "pinned rev", "batched rev" };
    int per = engine == FERRY_ENGINE_ROCKSDB ? PER : 3;
    double best[2 * PER];
    int64_t sums[2 * PER] = { 0 };
    for (int i = 0; i < 2 * PER; i++) best[i] = 1e30;
    int n = 1 << 30;
    for (int r = 0; r < rounds + 1; r++) {
        for (int d = 0; d < 2; d++) {
            for (int j = 0; j < per; j++) {
                int i = d * PER + j;
                double t0 = now_ns();
                int64_t sum = j == 0 ? engine_scan_loop(&e, n, d)
                            : j == 3 ? engine_pinned_loop(&e, n, d, 0)
                            : j == 4 ? engine_pinned_loop(&e, n, d, 4096)
                            : shim_scan_loop(s, n, d, j == 2 ? FERRY_CURSOR_POINTERS : default_flags(engine));
                double t = now_ns() - t0;
                if (r > 0 && t < best[i]) best[i] = t;   /* round 0 warms */
                if (sums[i] && sums[i] != sum) { fprintf(stderr, "time: %s sums differ\n", names[i]); return 1; }
                sums[i] = sum;
            }
        }
    }
    eng_close(&e);
    ferry_store_close(s);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
    if (system(cmd) != 0) return 1;
    /* entries: the engine loop's count is in its checksum only; count them once */
    ferry_store *c = shim_open(engine, dir);
    if (!c) return 1;
    ferry_cursor *cur = NULL;
    ferry_error err;
    long long entries = 0;
    if (ferry_cursor_open(c, NULL, 0, NULL, 0, NULL, 0, 0, &cur, &err)) return 1;
    for (int op = FERRY_FIRST;; op = FERRY_NEXT) {
        int got = ferry_cursor_fill(cur, op, NULL, 0, page, sizeof page, 1u << 30, &err);
        if (got < 0) return 1;
        entries += got;
        uint32_t f;
        memcpy(&f, page + 4, 4);
        if (f & FERRY_PAGE_END) break;
    }
    ferry_cursor_close(cur);
    ferry_store_close(c);
    for (int d = 0; d < 2; d++)
        for (int j = 1; j < per; j++)
            if (sums[d * PER + j] != sums[d * PER]) {
                fprintf(stderr, "time: checksums differ between the loops (%s)\n", names[d * PER + j]);
                return 1;
            }
    printf("# time: %lld entries, best of %d rounds, ns per entry (ratio to the engine's loop, same direction)\n",
           entries, rounds);
    for (int d = 0; d < 2; d++)
        for (int j = 0; j < per; j++)
            printf("%-12s %8.1f  %.3f\n", names[d * PER + j], best[d * PER + j] / (double)entries,
                   best[d * PER + j] / best[d * PER]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: callgrind_ops prepare <rocksdb|lmdb> <engine-lib> <dir> <entries> <value-size>\n"
                        "       callgrind_ops run <rocksdb|lmdb> <engine-lib> <dir> <ops>\n"
                        "       callgrind_ops check <rocksdb|lmdb> <engine-lib> <dir>\n");
        return 2;
    }
    const char *mode = argv[1], *ename = argv[2], *lib = argv[3], *dir = argv[4];
    int engine = strcmp(ename, "rocksdb") == 0 ? FERRY_ENGINE_ROCKSDB : strcmp(ename, "lmdb") == 0 ? FERRY_ENGINE_LMDB : 0;
    if (!engine) { fprintf(stderr, "callgrind_ops: engine must be rocksdb or lmdb\n"); return 2; }
    ferry_error err;
    int rc = ferry_engine_attach(engine, lib, &err);
    if (rc) { fprintf(stderr, "callgrind_ops: attach %s: %s %s\n", lib, ferry_strerror(rc), err.message); return 1; }
    if (bind_engine(engine)) return 1;

    if (strcmp(mode, "prepare") == 0) {
        if (argc < 7) { fprintf(stderr, "callgrind_ops prepare: <entries> <value-size>\n"); return 2; }
        return prepare(engine, dir, atoll(argv[5]), atoi(argv[6]));
    }
    if (strcmp(mode, "time") == 0) {
        if (argc < 6) { fprintf(stderr, "callgrind_ops time: <rounds>\n"); return 2; }
        return time_scans(engine, dir, atoi(argv[5]) > 0 ? atoi(argv[5]) : 5);
    }
    sums a = { 0 }, b = { 0 };
    if (strcmp(mode, "run") == 0) {
        if (argc < 6) { fprintf(stderr, "callgrind_ops run: <ops>\n"); return 2; }
        int n = atoi(argv[5]);
        if (n < 1) { fprintf(stderr, "callgrind_ops run: ops >= 1\n"); return 2; }
        if (run(engine, dir, n, &a, &b)) return 1;
        printf("callgrind_ops engine=%s ops=%d shim: get=%" PRId64 " get_snap=%" PRId64 " scan=%" PRId64 " rscan=%" PRId64
               " pscan=%" PRId64 " prscan=%" PRId64 " put=%" PRId64 " engine: get=%" PRId64 " get_snap=%" PRId64 " scan=%" PRId64
               " rscan=%" PRId64 " put=%" PRId64 "\n", ename, n, a.get, a.get_snap, a.scan, a.rscan, a.pscan, a.prscan, a.put,
               b.get, b.get_snap, b.scan, b.rscan, b.put);
        return 0;
    }
    if (strcmp(mode, "check") == 0) {
        /* a small data set in a new directory, then every op through both paths; sums must agree
         * and gets must hit */
        char cmd[8300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
        if (system(cmd) != 0) { fprintf(stderr, "callgrind_ops: %s failed\n", cmd); return 1; }
        if (prepare(engine, dir, 2000, 100)) return 1;
        if (run(engine, dir, 500, &a, &b)) return 1;
        int bad = 0;
        if (a.get != b.get || a.get <= 0) { fprintf(stderr, "check: get %" PRId64 " vs %" PRId64 "\n", a.get, b.get); bad = 1; }
        if (a.get_snap != b.get_snap || a.get_snap != a.get) { fprintf(stderr, "check: get_snap %" PRId64 " vs %" PRId64 "\n", a.get_snap, b.get_snap); bad = 1; }
        if (a.scan != b.scan || a.scan <= 0) { fprintf(stderr, "check: scan %" PRId64 " vs %" PRId64 "\n", a.scan, b.scan); bad = 1; }
        if (a.rscan != b.rscan || a.rscan <= 0) { fprintf(stderr, "check: rscan %" PRId64 " vs %" PRId64 "\n", a.rscan, b.rscan); bad = 1; }
        if (a.pscan != b.scan || a.prscan != b.rscan) {
            fprintf(stderr, "check: pointer scans %" PRId64 " / %" PRId64 " vs %" PRId64 " / %" PRId64 "\n", a.pscan, a.prscan, b.scan, b.rscan);
            bad = 1;
        }
        if (a.put != 500 || b.put != 500) { fprintf(stderr, "check: put %" PRId64 " / %" PRId64 "\n", a.put, b.put); bad = 1; }
        /* every shim put landed: 2000 + 500 entries (the engine's went to a copy, since removed) */
        ferry_store *s = shim_open(engine, dir);
        if (!s) return 1;
        ferry_cursor *c = NULL;
        int64_t total = 0;
        if (ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err)) return 1;
        for (int op = FERRY_FIRST;; op = FERRY_NEXT) {
            int got = ferry_cursor_fill(c, op, NULL, 0, page, sizeof page, 100000, &err);
            if (got < 0) { bad = 1; break; }
            total += got;
            uint32_t f;
            memcpy(&f, page + 4, 4);
            if (f & FERRY_PAGE_END) break;
        }
        ferry_cursor_close(c);
        ferry_store_close(s);
        if (total != 2500) { fprintf(stderr, "check: %" PRId64 " entries after the shim's puts, expected 2500\n", total); bad = 1; }
        printf("callgrind_ops check %s: %s (get %" PRId64 ", scan %" PRId64 ", entries %" PRId64 ")\n", ename,
               bad ? "FAILED" : "ok", a.get, a.scan, total);
        return bad;
    }
    fprintf(stderr, "callgrind_ops: mode must be prepare, run or check\n");
    return 2;
}
