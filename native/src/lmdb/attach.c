/* LMDB engine: attaching liblmdb (from org.lmdbjava:native, resolved at run time, see lmdb_api.h)
 * and its errors. */
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
