/* Public entry points: argument checks, then dispatch to the store's engine. */
#include "internal.h"
#include "platform.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

/* The layout ferry.h documents and the Java bindings read (dev.ferry.internal.Abi.ERROR_*). */
_Static_assert(offsetof(ferry_error, code) == 0, "ferry_error.code at 0");
_Static_assert(offsetof(ferry_error, engine_code) == 4, "ferry_error.engine_code at 4");
_Static_assert(offsetof(ferry_error, message) == 8, "ferry_error.message at 8");
_Static_assert(sizeof(ferry_error) == 1024, "ferry_error is 1024 bytes");
/* A family record of ferry_store_open: name length, options-string length, then the FERRY_CFOPT_* values. */
_Static_assert(FERRY_CFDESC_HEADER == 4 + 4 + FERRY_CFOPT_COUNT * sizeof(int64_t),
               "FERRY_CFDESC_HEADER is two uint32 lengths and FERRY_CFOPT_COUNT int64 options");

#include "dispatch.h"

int ferry_abi_version(void) { return FERRY_ABI_VERSION; }

int ferry_noop(void) { return 0; }

const char *ferry_strerror(int rc)
{
    switch (rc) {
    case FERRY_OK: return "ok";
    case FERRY_NOTFOUND: return "not found";
    case FERRY_EINVAL: return "invalid argument";
    case FERRY_ENOMEM: return "out of memory";
    case FERRY_ETOOSMALL: return "buffer too small";
    case FERRY_ENOENGINE: return "engine library not loaded";
    case FERRY_EDUPENGINE: return "two copies of the engine library are loaded";
    case FERRY_ENOTSUP: return "not supported by this engine";
    case FERRY_EEXISTS: return "already exists";
    case FERRY_ECFDROPPED: return "column family dropped";
    case FERRY_ECONFLICT: return "transaction conflict";
    case FERRY_EDEADLOCK: return "transaction deadlock";
    case FERRY_ECORRUPTION: return "corruption";
    case FERRY_EIO: return "I/O error";
    case FERRY_EBUSY: return "busy";
    case FERRY_EINCOMPLETE: return "incomplete";
    case FERRY_ETIMEDOUT: return "timed out";
    case FERRY_EABORTED: return "aborted";
    case FERRY_ETRYAGAIN: return "try again";
    case FERRY_EENGINEARG: return "engine rejected an argument";
    case FERRY_ESHUTDOWN: return "shutdown in progress";
    case FERRY_EMAPFULL: return "LMDB map full";
    case FERRY_EREADERSFULL: return "LMDB reader table full";
    case FERRY_EDBSFULL: return "too many column families / named databases";
    case FERRY_EBADTXN: return "transaction not usable here";
    case FERRY_EKEYSIZE: return "key or value size not accepted by the engine";
    case FERRY_EREADONLY: return "store is read-only";
    case FERRY_EDIRECTION: return "cursor continued in the other direction";
    case FERRY_EKEYEXIST: return "key (or key and value) already exists";
    case FERRY_EENGINE: return "engine error";
    default: return "unknown error";
    }
}

int ferry_engine_attach(int engine, const char *lib_path, ferry_error *err)
{
    const ferry_engine_lib *e = ferry_engine_lib_of(engine);
    if (!e) return ferry_fail(err, FERRY_EINVAL, 0, "unknown engine %d", engine);
    return e->attach(lib_path, err);
}

int ferry_engine_path(int engine, char *dst, size_t cap)
{
    CHECK(dst != NULL && cap > 0);
    const ferry_engine_lib *e = ferry_engine_lib_of(engine);
    return e ? e->path(dst, cap) : FERRY_EINVAL;
}

/* Does path hold the other engine's files? Opening it would silently create a second store
 * beside them: FERRY_EINVAL naming the engine found, the file that shows it and the directory.
 * RocksDB leaves CURRENT, IDENTITY, MANIFEST-* and OPTIONS-*; LMDB data.mdb and lock.mdb.
 * A missing or unreadable directory is left to the engine's own open. */
static int check_foreign_store(int engine, const char *path, ferry_error *err)
{
    plat_dir *d = plat_dir_open(path, NULL);
    if (!d) return FERRY_OK;
    const char *found = NULL, *other = NULL;
    char name[256];
    for (const char *n; (n = plat_dir_next(d)) != NULL;) {
        if (engine == FERRY_ENGINE_LMDB
            && (strcmp(n, "CURRENT") == 0 || strcmp(n, "IDENTITY") == 0 || strncmp(n, "MANIFEST-", 9) == 0
                || strncmp(n, "OPTIONS-", 8) == 0)) {
            other = "RocksDB";
        } else if (engine == FERRY_ENGINE_ROCKSDB && (strcmp(n, "data.mdb") == 0 || strcmp(n, "lock.mdb") == 0)) {
            other = "LMDB";
        } else {
            continue;
        }
        snprintf(name, sizeof name, "%s", n);
        found = name;
        break;
    }
    plat_dir_close(d);
    if (!found) return FERRY_OK;
    return ferry_fail(err, FERRY_EINVAL, 0,
                      "%s holds %s store (%s found), not %s one: open it with the %s engine, or choose "
                      "another directory", path, engine == FERRY_ENGINE_LMDB ? "a RocksDB" : "an LMDB", found,
                      engine == FERRY_ENGINE_LMDB ? "an LMDB" : "a RocksDB", other);
}

/* Is the key order the only option given? LMDB takes it and a string naming a comparator (ferry_cmp_named). */
static int cfopts_order_only(const int64_t *opts)
{
    for (int i = 0; i < FERRY_CFOPT_COUNT; i++) if (opts[i] != -1 && i != FERRY_CFOPT_KEY_ORDER) return 0;
    return 1;
}

/* Any per-family setting given: an option not -1 or a non-empty options string. */
static int cfopts_set(const int64_t *opts, const char *extra)
{
    for (int i = 0; i < FERRY_CFOPT_COUNT; i++)   /* bytewise is every engine's own order: not a setting */
        if (opts[i] != -1 && !(i == FERRY_CFOPT_KEY_ORDER && opts[i] == FERRY_ORDER_BYTEWISE)) return 1;
    return extra && extra[0];
}

void cf_descs_free(ferry_cf_desc *d, uint32_t n)
{
    if (!d) return;
    for (uint32_t i = 0; i < n; i++) {
        free(d[i].name);
        free(d[i].extra);
    }
    free(d);
}

/* Decode ferry_store_open's family records into *out (free with cf_descs_free). */
int cf_descs_parse(const void *cfs, size_t len, uint32_t n, ferry_cf_desc **out, ferry_error *err)
{
    *out = NULL;
    if (n == 0) {
        if (len != 0) return ferry_fail(err, FERRY_EINVAL, 0, "column family records: %zu bytes for 0 records", len);
        return FERRY_OK;
    }
    if (!cfs) return ferry_fail(err, FERRY_EINVAL, 0, "column family records are NULL");
    if (n > len / FERRY_CFDESC_HEADER)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family records: %u records cannot fit in %zu bytes", n, len);
    ferry_cf_desc *d = calloc(n, sizeof *d);
    if (!d) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    const uint8_t *p = cfs, *end = p + len;
    int rc = FERRY_OK;
    uint32_t i = 0;
    for (; i < n && rc == FERRY_OK; i++) {
        uint32_t nlen, elen;
        if ((size_t)(end - p) < FERRY_CFDESC_HEADER) {
            rc = ferry_fail(err, FERRY_EINVAL, 0, "column family record %u: truncated header", i);
            break;
        }
        memcpy(&nlen, p, 4);
        memcpy(&elen, p + 4, 4);
        memcpy(d[i].opts, p + 8, sizeof d[i].opts);
        p += FERRY_CFDESC_HEADER;
        if (nlen == 0 || (size_t)(end - p) < nlen || (size_t)(end - p) - nlen < elen) {
            rc = ferry_fail(err, FERRY_EINVAL, 0, "column family record %u: name of %u and options of %u bytes "
                            "do not fit (or the name is empty)", i, nlen, elen);
            break;
        }
        if (memchr(p, '\0', nlen) || (elen && memchr(p + nlen, '\0', elen))) {
            rc = ferry_fail(err, FERRY_EINVAL, 0, "column family record %u: NUL inside the name or options", i);
            break;
        }
        d[i].name = malloc((size_t)nlen + 1);
        d[i].extra = elen ? malloc((size_t)elen + 1) : NULL;
        if (!d[i].name || (elen && !d[i].extra)) {
            i++;
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            break;
        }
        memcpy(d[i].name, p, nlen);
        d[i].name[nlen] = '\0';
        if (elen) {
            memcpy(d[i].extra, p + nlen, elen);
            d[i].extra[elen] = '\0';
        }
        p += (size_t)nlen + elen;
        for (uint32_t j = 0; j < i && rc == FERRY_OK; j++)
            if (strcmp(d[j].name, d[i].name) == 0)
                rc = ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' has two records", d[i].name);
    }
    if (rc == FERRY_OK && p != end)
        rc = ferry_fail(err, FERRY_EINVAL, 0, "column family records: %zu bytes left after %u records",
                        (size_t)(end - p), n);
    if (rc != FERRY_OK) {
        cf_descs_free(d, n);
        return rc;
    }
    *out = d;
    return FERRY_OK;
}

int ferry_store_open(int engine, const char *path, const int64_t *opts, uint32_t nopts,
                     const char *extra, const void *cfs, size_t cfs_len, uint32_t ncfs,
                     ferry_store **out, ferry_error *err)
{
    CHECK_E(path != NULL && path[0] != '\0', err, "path is empty");
    CHECK_E(out != NULL, err, "out is NULL");
    CHECK_E(opts != NULL || nopts == 0, err, "opts is NULL");
    *out = NULL;
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = i < (int)nopts ? opts[i] : -1;
    if (engine == FERRY_ENGINE_ROCKSDB || engine == FERRY_ENGINE_LMDB) {
        int rc = check_foreign_store(engine, path, err);
        if (rc) return rc;
    }
    if (engine != FERRY_ENGINE_ROCKSDB && engine != FERRY_ENGINE_LMDB)
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown engine %d", engine);
    ferry_cf_desc *d;
    int rc = cf_descs_parse(cfs, cfs_len, ncfs, &d, err);
    if (rc) return rc;
    ferry_cache *sc = NULL;
    ferry_wbm *sw = NULL;
    ferry_rate_limiter *sl = NULL;
    ferry_sst_manager *sm = NULL;
    if ((rc = ferry_shared_acquire(engine, o, &sc, &sw, err)) != FERRY_OK
        || (rc = ferry_services_acquire(engine, o, &sl, &sm, err)) != FERRY_OK) {
        ferry_shared_release(sc, sw);
        cf_descs_free(d, ncfs);
        return rc;
    }
    if (engine == FERRY_ENGINE_ROCKSDB) {
        rc = ferry_rocksdb_lib.open(path, o, extra, d, ncfs, out, err);
        if (rc == FERRY_OK) {
            (*out)->shared_cache = sc;
            (*out)->shared_wbm = sw;
            (*out)->shared_limiter = sl;
            (*out)->shared_sfm = sm;
        } else {
            ferry_shared_release(sc, sw);
            ferry_services_release(sl, sm);
        }
    } else {
        /* a missing store is FERRY_NOTFOUND (as without records) before the records are judged */
        int create = o[FERRY_OPT_CREATE_IF_MISSING] == -1 || o[FERRY_OPT_CREATE_IF_MISSING] != 0;
        int read_only = o[FERRY_OPT_READ_ONLY] != -1 && o[FERRY_OPT_READ_ONLY] != 0;
        for (uint32_t i = 0; i < ncfs && rc == FERRY_OK; i++) {
            if (!cfopts_set(d[i].opts, d[i].extra) || cfopts_order_only(d[i].opts)) continue;
            if (!create || read_only) {
                size_t n = strlen(path) + 16;
                char *data = malloc(n);
                int e = 0;
                if (!data) { rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory"); break; }
                snprintf(data, n, "%s/data.mdb", path);
                int missing = !plat_stat(data, &e) && e == ENOENT;
                free(data);
                if (missing) {
                    rc = ferry_fail(err, FERRY_NOTFOUND, ENOENT, "no LMDB store at %s: data.mdb missing%s", path,
                                    read_only ? " (read-only open)" : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
                    break;
                }
            }
            rc = ferry_fail(err, FERRY_ENOTSUP, 0, "column family '%s': per-family options (compression, bloom "
                            "filter, block size, prefix extractor, merge operator) are RocksDB's; LMDB has none",
                            d[i].name);
        }
        if (rc == FERRY_OK) rc = ferry_lmdb_lib.open(path, o, extra, d, ncfs, out, err);
    }
    cf_descs_free(d, ncfs);
    if (rc == FERRY_OK && !(*out)->read_only && (rc = ferry_sync_store_dirs(path, err)) != FERRY_OK) {
        ferry_store_close(*out);
        *out = NULL;
    }
    return rc;
}

int ferry_store_close(ferry_store *s)
{
    if (!s) return FERRY_OK;
    ferry_cache *sc = s->shared_cache;
    ferry_wbm *sw = s->shared_wbm;
    ferry_rate_limiter *sl = s->shared_limiter;
    ferry_sst_manager *sm = s->shared_sfm;
    int rc = s->ops->close(s);
    if (rc != FERRY_EBUSY) {
        ferry_shared_release(sc, sw);
        ferry_services_release(sl, sm);
    }
    return rc;
}

/* Resolve a cf id to a live slot, or return an error code. */
int ferry_cf_slot_check(ferry_store *s, uint32_t cf, ferry_cf_slot **slot, ferry_error *err)
{
    uint32_t n = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    if (cf >= n) return ferry_fail(err, FERRY_EINVAL, 0, "no column family with id %u", cf);
    ferry_cf_slot *sl = ferry_slot(s, cf);
    int dropped = atomic_load_explicit(&sl->dropped, memory_order_acquire);
    if (dropped == FERRY_SLOT_BROKEN)
        return ferry_fail(err, FERRY_EABORTED, 0, "column family '%s': its comparator failed (see ferry_comparator_create): "
                          "the family refuses every call until the store is reopened", sl->name);
    if (dropped) return ferry_fail(err, FERRY_ECFDROPPED, 0, "column family '%s' was dropped", sl->name);
    *slot = sl;
    return FERRY_OK;
}

/* The live slot of cf, or NULL (then cf_slot says why). The default family (id 0, the first slot
 * of the first chunk) exists from open to close and cannot be dropped (ferry_cf_drop refuses it):
 * it needs neither the bound nor the drop check. For the point reads, where these checks are a
 * visible part of a cached get. */
static inline ferry_cf_slot *live_slot(ferry_store *s, uint32_t cf)
{
    if (cf == 0) return atomic_load_explicit(&s->cf_chunks[0], memory_order_acquire);
    if (cf >= atomic_load_explicit(&s->cf_count, memory_order_acquire)) return NULL;
    ferry_cf_slot *sl = ferry_slot(s, cf);
    return atomic_load_explicit(&sl->dropped, memory_order_acquire) ? NULL : sl;
}

/* A snapshot reads only families that existed when it was taken. LMDB hands a dropped
 * database's handle number to the next database created, so a read transaction older than a
 * family would read whatever family had its number before. */
#define SNAP_SEES(snap, cf, err) \
    do { \
        if ((snap) && (cf) >= (snap)->cf_limit) \
            return ferry_fail((err), FERRY_EINVAL, 0, "column family '%s' was created after this snapshot (or, on LMDB, first " \
                              "looked up after it: see FERRY_LMDB_FAMILY_SCAN_MAX)", slot->name); \
    } while (0)

int ferry_cf_count(ferry_store *s, uint32_t *out)
{
    CHECK(s != NULL && out != NULL);
    *out = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    return FERRY_OK;
}

int ferry_cf_name(ferry_store *s, uint32_t cf, char *dst, size_t cap, size_t *len_out)
{
    CHECK(s != NULL && dst != NULL && cap > 0 && len_out != NULL);
    uint32_t n = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    if (cf >= n) return FERRY_EINVAL;
    const char *name = ferry_slot(s, cf)->name;
    size_t len = strlen(name);
    *len_out = len;
    size_t c = len < cap - 1 ? len : cap - 1;
    memcpy(dst, name, c);
    dst[c] = '\0';
    return atomic_load(&ferry_slot(s, cf)->dropped) ? FERRY_ECFDROPPED : FERRY_OK;
}

int ferry_cf_find(ferry_store *s, const char *name, uint32_t *id_out, ferry_error *err)
{
    CHECK_E(s != NULL && id_out != NULL, err, "store or id_out is NULL");
    CHECK_E(name != NULL && name[0] != '\0', err, "column family name is empty");
    pthread_mutex_lock(&s->cf_lock);
    int rc;
    int id = ferry_store_find_cf(s, name);
    if (id >= 0) {
        *id_out = (uint32_t)id;
        rc = FERRY_OK;
    } else if (!s->ops->cf_find) {
        rc = ferry_fail(err, FERRY_NOTFOUND, 0, "no column family '%s'", name);
    } else {
        void *h = NULL;
        int bits = 0;
        rc = s->ops->cf_find(s, name, &h, &bits, err);
        /* the engine keeps a handle it opened for a family refused here (LMDB: the next lookup of
         * the name gets the same handle back) */
        if (rc == FERRY_OK && s->cf_named >= s->cf_named_max)
            rc = ferry_fail(err, FERRY_EDBSFULL, 0,
                            "column family '%s' exists, but %u families are live: maxColumnFamilies is %u "
                            "(FERRY_OPT_MAX_DBS in the C ABI)", name, s->cf_named, s->cf_named_max);
        if (rc == FERRY_OK) {
            if ((rc = ferry_store_add_cf(s, name, h, bits, id_out)) == FERRY_OK && s->ops->cf_added)
                rc = s->ops->cf_added(s, *id_out, err);   /* LMDB: its comparator */
            if (rc == FERRY_EDBSFULL)
                ferry_fail(err, rc, 0, "column family ids used up: %u families given ids since the store opened "
                           "(reopen the store)", FERRY_CF_ID_LIMIT);
            else if (rc == FERRY_ENOMEM)
                ferry_fail(err, rc, 0, "out of memory");
        }
    }
    pthread_mutex_unlock(&s->cf_lock);
    return rc;
}

int ferry_cf_list_all(ferry_store *s, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    if (!s->ops->cf_list_all) return FERRY_OK;
    pthread_mutex_lock(&s->cf_lock);
    int rc = s->ops->cf_list_all(s, err);
    pthread_mutex_unlock(&s->cf_lock);
    return rc;
}

int ferry_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, uint32_t nopts,
                    const char *extra, uint32_t *id_out, ferry_error *err)
{
    CHECK_E(s != NULL && id_out != NULL, err, "store or id_out is NULL");
    CHECK_E(name != NULL && name[0] != '\0', err, "column family name is empty");
    CHECK_E(opts != NULL || nopts == 0, err, "opts is NULL");
    if (nopts > FERRY_CFOPT_COUNT)
        return ferry_fail(err, FERRY_EINVAL, 0, "%u column family options, at most %d (FERRY_CFOPT_COUNT)", nopts,
                          FERRY_CFOPT_COUNT);
    int64_t o[FERRY_CFOPT_COUNT];
    for (int i = 0; i < FERRY_CFOPT_COUNT; i++) o[i] = i < (int)nopts ? opts[i] : -1;
    int own = cfopts_set(o, extra);
    if (own && s->engine != FERRY_ENGINE_ROCKSDB && (flags || !cfopts_order_only(o)))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s", flags && cfopts_order_only(o)
                          ? "a key order (FERRY_CFOPT_KEY_ORDER) and DUPSORT: an LMDB family with duplicate keys orders "
                            "them bytewise" : "per-family options (compression, bloom filter, block size, prefix "
                            "extractor, merge operator) are RocksDB's; LMDB takes only the key order");
    if (own && flags)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "column family flags and per-family options do not go together: "
                          "flags are LMDB's, options RocksDB's");
    if (flags & ~(uint32_t)(FERRY_CF_DUPSORT | FERRY_CF_DUPFIXED))
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown column family flags 0x%x", flags);
    if ((flags & FERRY_CF_DUPFIXED) && !(flags & FERRY_CF_DUPSORT))
        return ferry_fail(err, FERRY_EINVAL, 0, "column family flag DUPFIXED needs DUPSORT");
    if (flags && s->engine != FERRY_ENGINE_LMDB)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "column family flags (DUPSORT, DUPFIXED) are LMDB's: this engine "
                          "keeps one value per key");
    WRITABLE(s, err);
    pthread_mutex_lock(&s->cf_lock);
    int rc;
    if (ferry_store_find_cf(s, name) >= 0) {
        rc = ferry_fail(err, FERRY_EEXISTS, 0, "column family '%s' already exists", name);
    } else if (s->cf_named >= s->cf_named_max) {
        rc = ferry_fail(err, FERRY_EDBSFULL, 0,
                        "too many column families: %u live, maxColumnFamilies is %u (dropped families do not count; "
                        "FERRY_OPT_MAX_DBS in the C ABI)", s->cf_named, s->cf_named_max);
    } else if (atomic_load(&s->cf_count) >= FERRY_CF_ID_LIMIT) {
        rc = ferry_fail(err, FERRY_EDBSFULL, 0, "column family ids used up: %u families created since the store opened "
                        "(reopen the store)", FERRY_CF_ID_LIMIT);
    } else {
        void *h = NULL;
        int bits = 0;
        rc = s->ops->cf_create(s, name, flags, own ? o : NULL, own ? extra : NULL, &h, &bits, err);
        uint32_t id = 0;
        if (rc == FERRY_OK) rc = ferry_store_add_cf(s, name, h, bits, &id);
        if (rc == FERRY_OK && s->ops->cf_added) rc = s->ops->cf_added(s, id, err);
        if (rc == FERRY_OK && id_out) *id_out = id;
        /* a failed add leaves the created family unrecorded until the store reopens */
        if (rc == FERRY_ENOMEM) ferry_fail(err, rc, 0, "out of memory recording column family '%s'", name);
    }
    pthread_mutex_unlock(&s->cf_lock);
    return rc;
}

int ferry_cf_drop(ferry_store *s, uint32_t cf, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(cf != 0, err, "the default column family cannot be dropped");
    WRITABLE(s, err);
    pthread_mutex_lock(&s->cf_lock);
    ferry_cf_slot *slot;
    int rc = ferry_cf_slot_check(s, cf, &slot, err);
    if (rc == FERRY_OK) {
        rc = s->ops->cf_drop(s, slot, err);
        if (rc == FERRY_OK) {
            atomic_store_explicit(&slot->dropped, 1, memory_order_release);
            s->cf_named--;
        }
    }
    pthread_mutex_unlock(&s->cf_lock);
    return rc;
}

int ferry_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
{
    CHECK_E(s != NULL && out != NULL, err, "store or out is NULL");
    *out = NULL;
    /* read before the engine's snapshot: every family below it was created before */
    uint32_t limit = atomic_load_explicit(&s->cf_count, memory_order_seq_cst);
    int rc = s->ops->snapshot_open(s, out, err);
    if (rc == FERRY_OK) (*out)->cf_limit = limit;
    return rc;
}

int ferry_snapshot_close(ferry_snapshot *snap)
{
    if (!snap) return FERRY_OK;
    if (snap->txn) return FERRY_EINVAL;   /* FERRY_TXN_VIEW(txn): end it with ferry_txn_close */
    return snap->store->ops->snapshot_close(snap);
}

/* ------------------------------------------------------------------ */
/* Transactions: the read view and the checks every call makes         */

/* Lock t and check it may be used now: active, and on LMDB the thread that began it. On failure
 * the lock is not held. */
static int txn_enter(ferry_txn *t, ferry_error *err)
{
    if (t->view.store->engine == FERRY_ENGINE_LMDB && !pthread_equal(t->owner, pthread_self()))
        return ferry_fail(err, FERRY_EBADTXN, 0, "LMDB write transaction used from a thread other than the one that "
                          "began it (LMDB binds a write transaction to its thread)");
    pthread_mutex_lock(&t->lock);
    if (t->state == FERRY_TXN_ACTIVE) return FERRY_OK;
    int st = t->state;
    pthread_mutex_unlock(&t->lock);
    return ferry_fail(err, FERRY_EBADTXN, 0, st == FERRY_TXN_COMMITTED ? "transaction already committed"
                      : "transaction failed or ended: close it (roll it back)");
}

static void txn_exit(ferry_txn *t)
{
    pthread_mutex_unlock(&t->lock);
}

/* Release the engine side of every open cursor of t (caller holds t->lock). */
static void txn_kill_cursors(ferry_txn *t, int detach)
{
    for (ferry_cursor *c = t->cursors, *n; c; c = n) {
        n = c->tnext;
        if (!c->dead) t->view.store->ops->txn_cursor_kill(c);
        c->dead = 1;
        if (detach) {
            c->txn = NULL;
            c->tnext = c->tprev = NULL;
        }
    }
    if (detach) t->cursors = NULL;
}

/* Point read through a transaction (ferry_get with FERRY_TXN_VIEW). */
static int txn_get(ferry_txn *t, ferry_cf_slot *slot, const void *key, size_t klen, void *dst, size_t cap,
                   size_t *vlen_out, int for_update, ferry_error *err)
{
    int rc = txn_enter(t, err);
    if (rc) return rc;
    rc = t->view.store->ops->txn_get(t, slot, key, klen, dst, cap, vlen_out, for_update, err);
    txn_exit(t);
    return rc;
}

/* ferry_multi_get through a transaction: one txn_get per key, values packed as ferry_multi_get's. */
static int txn_multi_get(ferry_txn *t, ferry_cf_slot *slot, uint32_t n, const void *keys, void *dst, size_t cap,
                         int64_t *lens_out, ferry_error *err)
{
    int rc = txn_enter(t, err);
    if (rc) return rc;
    const uint8_t *p = keys;
    uint8_t *out = dst;
    size_t used = 0;
    uint32_t i;
    if (n > INT32_MAX) n = INT32_MAX;
    for (i = 0; i < n; i++) {
        uint32_t kl;
        memcpy(&kl, p, 4);
        size_t vlen = 0;
        int g = t->view.store->ops->txn_get(t, slot, p + 4, kl, out ? out + used : NULL, cap - used, &vlen, 0, err);
        p += 4 + (size_t)kl;
        if (g == FERRY_NOTFOUND) { lens_out[i] = -1; continue; }
        if (g) { rc = g; break; }
        if (vlen > cap - used) {
            if (i == 0) {
                lens_out[0] = (int64_t)vlen;
                rc = ferry_fail(err, FERRY_ETOOSMALL, 0, "value of %zu bytes does not fit in %zu", vlen, cap);
            }
            break;
        }
        used += vlen;
        lens_out[i] = (int64_t)vlen;
    }
    txn_exit(t);
    return rc ? rc : (int)i;
}

#define READ_FLAGS ((uint32_t)(FERRY_CURSOR_NO_FILL_CACHE | FERRY_CURSOR_NO_VERIFY_CHECKSUMS))

/* ferry_get's every case: the checks one by one, each failure with its message, and reads
 * through a transaction's view. */
static __attribute__((noinline)) int get_checked(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key,
                                                 size_t klen, uint32_t flags, void *dst, size_t cap, size_t *vlen_out,
                                                 ferry_error *err)
{
    if (flags & ~READ_FLAGS) return ferry_fail(err, FERRY_EINVAL, 0, "unknown read flags 0x%x", flags);
    CHECK_E(s != NULL && vlen_out != NULL, err, "store or vlen_out is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(dst, cap), err, "NULL buffer with a length");
    CHECK_E(snap == NULL || snap->store == s, err, "snapshot belongs to another store");
    SLOT(s, cf, err);
    SNAP_SEES(snap, cf, err);
    /* a transaction's view reads through the transaction, which has no read flags */
    if (snap && snap->txn) return txn_get(snap->txn, slot, key, klen, dst, cap, vlen_out, 0, err);
    return s->ops->get(s, snap, slot, key, klen, flags, dst, cap, vlen_out, err);
}

/* The common case (arguments valid, a live family, no transaction's view) is tested in one pass
 * that ends in a tail call of the engine's get; anything else goes through get_checked, which
 * tests the same again one check at a time. */
int ferry_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen, uint32_t flags,
              void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    ferry_cf_slot *slot;
    if (__builtin_expect(!(flags & ~READ_FLAGS) && s != NULL && vlen_out != NULL && BYTES_OK(key, klen)
                         && BYTES_OK(dst, cap) && (snap == NULL || (snap->store == s && snap->txn == NULL
                                                                    && cf < snap->cf_limit))
                         && (slot = live_slot(s, cf)) != NULL, 1))
        return s->ops->get(s, snap, slot, key, klen, flags, dst, cap, vlen_out, err);
    return get_checked(s, snap, cf, key, klen, flags, dst, cap, vlen_out, err);
}

int ferry_multi_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, uint32_t n, const void *keys,
                    size_t keys_len, uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    if (flags & ~READ_FLAGS) return ferry_fail(err, FERRY_EINVAL, 0, "unknown read flags 0x%x", flags);
    CHECK_E(s != NULL && lens_out != NULL && n > 0, err, "store or lens_out is NULL, or n is 0");
    CHECK_E(keys != NULL && BYTES_OK(dst, cap), err, "NULL buffer");
    CHECK_E(snap == NULL || snap->store == s, err, "snapshot belongs to another store");
    int vrc = ferry_keys_validate(n, keys, keys_len, err);
    if (vrc) return vrc;
    SLOT(s, cf, err);
    SNAP_SEES(snap, cf, err);
    if (snap && snap->txn) return txn_multi_get(snap->txn, slot, n, keys, dst, cap, lens_out, err);
    return s->ops->multi_get(s, snap, slot, n, keys, flags, dst, cap, lens_out, err);
}

/* Check FERRY_WRITE_* flags against the engine: those beyond sync and WAL are LMDB's. */
static int write_flags_ok(ferry_store *s, uint32_t flags, ferry_error *err)
{
    if (flags & ~(uint32_t)(FERRY_WRITE_SYNC | FERRY_WRITE_NO_WAL | FERRY_WRITE_NO_OVERWRITE | FERRY_WRITE_NO_DUP_DATA
                            | FERRY_WRITE_APPEND))
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown write flags 0x%x", flags);
    if (s->engine == FERRY_ENGINE_ROCKSDB && (flags & FERRY_WRITE_SYNC) && (flags & FERRY_WRITE_NO_WAL))
        return ferry_fail(err, FERRY_EINVAL, 0, "sync with disableWal: RocksDB syncs its write-ahead log, so a synced "
                          "write needs it (drop one of the two)");
    if (s->engine != FERRY_ENGINE_LMDB && (flags & FERRY_WRITE_NO_OVERWRITE))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "noOverwrite is LMDB's (MDB_NOOVERWRITE): RocksDB writes blindly; "
                          "read and write inside a transaction instead");
    if (s->engine != FERRY_ENGINE_LMDB && (flags & FERRY_WRITE_NO_DUP_DATA))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "noDupData is LMDB's (MDB_NODUPDATA, DUPSORT families): RocksDB "
                          "keeps one value per key");
    if (s->engine != FERRY_ENGINE_LMDB && (flags & FERRY_WRITE_APPEND))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "append is LMDB's (MDB_APPEND): RocksDB has no append mode; "
                          "write without it");
    return FERRY_OK;
}

int ferry_put(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *val, size_t vlen,
              uint32_t flags, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(val, vlen), err, "NULL buffer with a length");
    if (flags) {
        int frc = write_flags_ok(s, flags, err);
        if (frc) return frc;
    }
    WRITABLE(s, err);
    SLOT(s, cf, err);
    if (klen != 8 && ferry_slot_order(slot) == FERRY_ORDER_U64_BE) return ferry_u64_key_fail(slot, klen, err);
    return s->ops->put(s, slot, key, klen, val, vlen, flags, err);
}

int ferry_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(BYTES_OK(ops, len), err, "NULL batch with a length");
    if (flags) {
        int frc = write_flags_ok(s, flags, err);
        if (frc) return frc;
    }
    WRITABLE(s, err);
    int vrc = ferry_batch_validate(ops, len, count, atomic_load_explicit(&s->cf_count, memory_order_acquire), s, err);
    if (vrc) return vrc;
    if (count == 0) return FERRY_OK;
    return s->ops->write(s, ops, len, count, flags, err);
}

int ferry_cf_flags(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err)
{
    CHECK_E(s != NULL && out != NULL, err, "store or out is NULL");
    SLOT(s, cf, err);
    *out = 0;
    return s->ops->cf_flags ? s->ops->cf_flags(s, slot, out, err) : FERRY_OK;
}

/* ferry_value_count through a transaction: the engine's count in it, or 0/1 through txn_get. */
static int txn_value_count(ferry_txn *t, ferry_cf_slot *slot, const void *key, size_t klen, uint64_t *out,
                           ferry_error *err)
{
    int rc = txn_enter(t, err);
    if (rc) return rc;
    const ferry_engine_ops *ops = t->view.store->ops;
    if (ops->txn_value_count) {
        rc = ops->txn_value_count(t, slot, key, klen, out, err);
    } else {
        size_t vlen;
        rc = ops->txn_get(t, slot, key, klen, NULL, 0, &vlen, 0, err);
        if (rc == FERRY_OK) *out = 1;
        else if (rc == FERRY_NOTFOUND) rc = FERRY_OK;
    }
    txn_exit(t);
    return rc;
}

int ferry_value_count(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
                      uint64_t *out, ferry_error *err)
{
    CHECK_E(s != NULL && out != NULL, err, "store or out is NULL");
    CHECK_E(BYTES_OK(key, klen), err, "NULL key with a length");
    CHECK_E(snap == NULL || snap->store == s, err, "snapshot belongs to another store");
    SLOT(s, cf, err);
    SNAP_SEES(snap, cf, err);
    *out = 0;
    /* a transaction's view is no engine snapshot: its reads go through the transaction (as ferry_get's) */
    if (snap && snap->txn) return txn_value_count(snap->txn, slot, key, klen, out, err);
    if (s->ops->value_count) return s->ops->value_count(s, snap, slot, key, klen, out, err);
    size_t vlen;
    int rc = s->ops->get(s, snap, slot, key, klen, 0, NULL, 0, &vlen, err);
    if (rc == FERRY_OK) *out = 1;
    return rc == FERRY_NOTFOUND ? FERRY_OK : rc;
}

int ferry_split_points(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
                       const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                       ferry_error *err)
{
    CHECK_E(s != NULL && len_out != NULL && dst != NULL, err, "store, dst or len_out is NULL");
    CHECK_E(BYTES_OK(lower, llen) && BYTES_OK(upper, ulen), err, "NULL bound with a length");
    CHECK_E(snap == NULL || snap->store == s, err, "snapshot belongs to another store");
    CHECK_E(snap == NULL || snap->txn == NULL, err, "split points are read through a snapshot or the store, not a transaction");
    CHECK_E(max >= 1, err, "max is 0 (at least one record)");
    CHECK_E(cap >= FERRY_SPLIT_HEADER, err, "cap is smaller than one record (FERRY_SPLIT_HEADER)");
    *len_out = 0;
    SLOT(s, cf, err);
    SNAP_SEES(snap, cf, err);
    if (!s->ops->split_points) return ferry_fail(err, FERRY_ENOTSUP, 0, "this engine has no split points");
    /* a family in reverse or a comparator's order: nothing to say (the engines weigh bytewise ranges) */
    if (ferry_slot_order(slot) == FERRY_ORDER_REVERSE || ferry_slot_order(slot) == FERRY_ORDER_CALLBACK) return 0;
    /* an empty range (an upper bound of the empty key, or lower >= upper) has nothing to weigh */
    if (upper && (ulen == 0 || (lower && ferry_range_empty(lower, llen, upper, ulen)))) return 0;
    return s->ops->split_points(s, snap, slot, lower, llen, upper, ulen, max, dst, cap, len_out, err);
}

int ferry_merge(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *operand, size_t olen,
                ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(operand, olen), err, "NULL buffer with a length");
    if (!s->ops->merge)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "merge is not supported by LMDB, which has no merge operators: "
                          "read, combine and put in one write batch instead");
    WRITABLE(s, err);
    SLOT(s, cf, err);
    if (klen != 8 && ferry_slot_order(slot) == FERRY_ORDER_U64_BE) return ferry_u64_key_fail(slot, klen, err);
    return s->ops->merge(s, slot, key, klen, operand, olen, err);
}

int ferry_delete(ferry_store *s, uint32_t cf, const void *key, size_t klen, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(BYTES_OK(key, klen), err, "NULL key with a length");
    WRITABLE(s, err);
    SLOT(s, cf, err);
    return s->ops->del(s, slot, key, klen, err);
}

int ferry_delete_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
                       size_t elen, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(BYTES_OK(begin, blen) && BYTES_OK(end, elen), err, "NULL bound with a length");
    WRITABLE(s, err);
    SLOT(s, cf, err);
    if (ferry_range_empty_slot(slot, begin, blen, end, elen)) return FERRY_OK;
    return s->ops->delete_range(s, slot, begin, blen, end, elen, err);
}

int ferry_flush(ferry_store *s, uint32_t cf, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    SLOT(s, cf, err);
    return s->ops->flush(s, slot, err);
}

int ferry_compact_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
                        size_t elen, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    WRITABLE(s, err);
    SLOT(s, cf, err);
    return s->ops->compact_range(s, slot, begin, blen, end, elen, err);
}

int ferry_property(ferry_store *s, uint32_t cf, const char *name, char *dst, size_t cap, size_t *len_out,
                   ferry_error *err)
{
    CHECK_E(s != NULL && name != NULL && dst != NULL && cap > 0 && len_out != NULL, err, "NULL argument");
    SLOT(s, cf, err);
    return s->ops->property(s, slot, name, dst, cap, len_out, err);
}

int ferry_property_int(ferry_store *s, uint32_t cf, const char *name, uint64_t *out, ferry_error *err)
{
    CHECK_E(s != NULL && name != NULL && out != NULL, err, "NULL argument");
    SLOT(s, cf, err);
    return s->ops->property_int(s, slot, name, out, err);
}

int ferry_cursor_open(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
                      const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    CHECK_E(s != NULL && out != NULL, err, "store or out is NULL");
    CHECK_E(BYTES_OK(lower, llen) && BYTES_OK(upper, ulen), err, "NULL bound with a length");
    CHECK_E(snap == NULL || snap->store == s, err, "snapshot belongs to another store");
    CHECK_E((flags & ~(uint32_t)(FERRY_CURSOR_POINTERS | FERRY_CURSOR_NO_FILL_CACHE | FERRY_CURSOR_ENGINE_STEPS
                                 | FERRY_CURSOR_NO_VERIFY_CHECKSUMS | FERRY_CURSOR_ASYNC_IO
                                 | FERRY_CURSOR_AUTO_PREFIX)) == 0, err, "unknown cursor flags");
    *out = NULL;
    SLOT(s, cf, err);
    SNAP_SEES(snap, cf, err);
    if (!snap || !snap->txn) return s->ops->cursor_open(s, snap, slot, lower, llen, upper, ulen, flags, out, err);
    ferry_txn *t = snap->txn;
    int rc = txn_enter(t, err);
    if (rc) return rc;
    rc = s->ops->txn_cursor_open(t, slot, lower, llen, upper, ulen, flags, out, err);
    if (rc == FERRY_OK) {
        ferry_cursor *c = *out;
        c->txn = t;
        c->seen_writes = t->writes;
        c->tnext = t->cursors;
        if (t->cursors) t->cursors->tprev = c;
        t->cursors = c;
    }
    txn_exit(t);
    return rc;
}

int ferry_cursor_close(ferry_cursor *c)
{
    if (!c) return FERRY_OK;
    ferry_txn *t = c->txn;
    if (!t) return c->store->ops->cursor_close(c);   /* dead cursors of a closed transaction too */
    pthread_mutex_lock(&t->lock);
    if (c->tprev) c->tprev->tnext = c->tnext;
    else t->cursors = c->tnext;
    if (c->tnext) c->tnext->tprev = c->tprev;
    int rc = c->store->ops->cursor_close(c);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

int ferry_cursor_fill(ferry_cursor *c, int op, const void *key, size_t klen, void *page, size_t cap,
                      uint32_t max_entries, ferry_error *err)
{
    CHECK_E(c != NULL && page != NULL, err, "cursor or page is NULL");
    CHECK_E(cap >= FERRY_PAGE_MIN, err, "page smaller than FERRY_PAGE_MIN");
    CHECK_E(max_entries >= 1, err, "max_entries is 0");
    CHECK_E(op >= FERRY_FIRST && op <= FERRY_SEEK_PAIR_LT, err, "bad cursor op");
    if ((op == FERRY_CURRENT_FWD || op == FERRY_CURRENT_REV) && c->store->engine != FERRY_ENGINE_ROCKSDB)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "FERRY_CURRENT_* needs a RocksDB cursor");
    if (op >= FERRY_SEEK_GE && op <= FERRY_SEEK_LT) CHECK_E(BYTES_OK(key, klen), err, "NULL seek key with a length");
    if (op == FERRY_SEEK_PAIR_GT || op == FERRY_SEEK_PAIR_LT) {
        if (c->store->engine != FERRY_ENGINE_LMDB)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "FERRY_SEEK_PAIR_* needs an LMDB cursor (duplicate keys)");
        CHECK_E(key != NULL && klen >= 4, err, "FERRY_SEEK_PAIR_*: the packed pair is shorter than its length field");
        uint32_t inner;
        memcpy(&inner, key, 4);
        CHECK_E(inner <= klen - 4, err, "FERRY_SEEK_PAIR_*: key length overruns the packed pair");
    }
    if (op == FERRY_NEXT && c->dir != 1)
        return ferry_fail(err, FERRY_EDIRECTION, 0, c->dir == 0 ? "cursor is not positioned" : "cursor moves in reverse: seek to change direction");
    if (op == FERRY_PREV && c->dir != -1)
        return ferry_fail(err, FERRY_EDIRECTION, 0, c->dir == 0 ? "cursor is not positioned" : "cursor moves forward: seek to change direction");
    ferry_txn *t = c->txn;
    if (c->dead && !t) return ferry_fail(err, FERRY_EBADTXN, 0, "the cursor's transaction is closed");
    if (t) {
        int trc = txn_enter(t, err);
        if (trc) return trc;
        if (c->dead) {
            txn_exit(t);
            return ferry_fail(err, FERRY_EBADTXN, 0, "the cursor's transaction ended");
        }
        if ((op == FERRY_NEXT || op == FERRY_PREV) && c->seen_writes != t->writes) {
            txn_exit(t);
            return ferry_fail(err, FERRY_EINVAL, 0, "the transaction wrote since this cursor was positioned: position it "
                              "again (seek past the last key read)");
        }
        if (op != FERRY_NEXT && op != FERRY_PREV) c->seen_writes = t->writes;
    }
    int rc = c->store->ops->cursor_fill(c, op, key, klen, page, cap, max_entries, err);
    if (t) txn_exit(t);
    /* a seek positions the engine even when the first entry did not fit the page */
    if (op != FERRY_NEXT && op != FERRY_PREV && (rc >= 0 || rc == FERRY_ETOOSMALL))
        c->dir = (op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT || op == FERRY_CURRENT_FWD
                  || op == FERRY_SEEK_PAIR_GT) ? 1 : -1;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Transactions                                                        */

int ferry_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
{
    if (out) *out = NULL;   /* as every open: no stale handle after a failure */
    CHECK_E(s != NULL && out != NULL, err, "store or out is NULL");
    CHECK_E(flags == 0, err, "unknown transaction flags");
    CHECK_E(timeout_ms >= -1, err, "timeout_ms below -1");
    WRITABLE(s, err);
    ferry_txn *t = NULL;
    int rc = s->ops->txn_begin(s, flags, timeout_ms, &t, err);
    if (rc) return rc;
    t->view.store = s;
    t->view.txn = t;
    pthread_mutex_init(&t->lock, NULL);
    t->owner = pthread_self();
    t->state = FERRY_TXN_ACTIVE;
    t->writes = 0;
    t->cursors = NULL;
    t->savepoints = 0;
    *out = t;
    return FERRY_OK;
}

int ferry_txn_write(ferry_txn *t, const void *ops, size_t len, uint32_t count, ferry_error *err)
{
    CHECK_E(t != NULL, err, "transaction is NULL");
    CHECK_E(BYTES_OK(ops, len), err, "NULL batch with a length");
    ferry_store *s = t->view.store;
    int rc = ferry_batch_validate(ops, len, count, atomic_load_explicit(&s->cf_count, memory_order_acquire), s, err);
    if (rc) return rc;
    if (count == 0) return txn_enter(t, err) == FERRY_OK ? (txn_exit(t), FERRY_OK) : FERRY_EBADTXN;
    rc = txn_enter(t, err);
    if (rc) return rc;
    t->writes++;   /* cursors re-position even after a failed write: it may have changed pages */
    rc = s->ops->txn_write(t, ops, len, count, err);
    txn_exit(t);
    return rc;
}

int ferry_txn_get_for_update(ferry_txn *t, uint32_t cf, const void *key, size_t klen, void *dst, size_t cap,
                             size_t *vlen_out, ferry_error *err)
{
    CHECK_E(t != NULL && vlen_out != NULL, err, "transaction or vlen_out is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(dst, cap), err, "NULL buffer with a length");
    ferry_store *s = t->view.store;
    SLOT(s, cf, err);
    if (cf >= t->view.cf_limit)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' was created after this transaction began (or, on LMDB, "
                          "first looked up after it: see FERRY_LMDB_FAMILY_SCAN_MAX)", slot->name);
    return txn_get(t, slot, key, klen, dst, cap, vlen_out, 1, err);
}

int ferry_txn_commit(ferry_txn *t, ferry_error *err)
{
    CHECK_E(t != NULL, err, "transaction is NULL");
    int rc = txn_enter(t, err);
    if (rc) return rc;
    txn_kill_cursors(t, 0);
    rc = t->view.store->ops->txn_commit(t, err);
    t->state = rc == FERRY_OK ? FERRY_TXN_COMMITTED : FERRY_TXN_FAILED;
    txn_exit(t);
    return rc;
}

int ferry_txn_close(ferry_txn *t)
{
    if (!t) return FERRY_OK;
    pthread_mutex_lock(&t->lock);
    txn_kill_cursors(t, 1);
    pthread_mutex_unlock(&t->lock);
    /* the engine frees t (and its lock) unless it can only abandon it */
    return t->view.store->ops->txn_close(t);
}

int ferry_txn_abandon(ferry_txn *t)
{
    if (t && t->view.store->ops->txn_abandon) t->view.store->ops->txn_abandon(t);
    return FERRY_OK;
}

/* The savepoint calls: checks, then the engine. A rollback or a pop counts as a write: a rollback
 * changes what the cursors read, and on LMDB both end the nested transaction they may read. */
static int txn_savepoint(ferry_txn *t, int op, ferry_error *err)
{
    CHECK_E(t != NULL, err, "transaction is NULL");
    int rc = txn_enter(t, err);
    if (rc) return rc;
    if (op != FERRY_SP_SET && t->savepoints == 0) {
        txn_exit(t);
        return ferry_fail(err, FERRY_NOTFOUND, 0, "the transaction has no savepoint to %s (set one first)",
                          op == FERRY_SP_POP ? "pop" : "roll back to");
    }
    if (op != FERRY_SP_SET) t->writes++;
    rc = t->view.store->ops->txn_savepoint(t, op, err);
    if (rc == FERRY_OK) t->savepoints += op == FERRY_SP_SET ? 1 : -1;
    else if (op != FERRY_SP_SET) t->savepoints--;   /* the engine removed it anyway (and failed t) */
    txn_exit(t);
    return rc;
}

int ferry_txn_set_savepoint(ferry_txn *t, ferry_error *err)
{
    return txn_savepoint(t, FERRY_SP_SET, err);
}

int ferry_txn_rollback_to_savepoint(ferry_txn *t, ferry_error *err)
{
    return txn_savepoint(t, FERRY_SP_ROLLBACK, err);
}

int ferry_txn_pop_savepoint(ferry_txn *t, ferry_error *err)
{
    return txn_savepoint(t, FERRY_SP_POP, err);
}
