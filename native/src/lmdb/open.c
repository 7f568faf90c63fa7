/* LMDB engine: open, close, checkpoints, and the engine's ops table. */
#include "engine.h"

/* ------------------------------------------------------------------ open / close */

static int lmdb_close(ferry_store *s)
{
    lmdb_store *ls = LS(s);
    lmdb_txn *t = ls->txn;
    if (t && !t->ended) {
        if (!lmdb_txn_mine(ls)) {
            /* LMDB's write lock is a robust mutex in the lock file, on the list of mutexes the
             * beginning thread holds; only that thread can release it. Closing the environment
             * here would unmap it under that thread, whose next lock of any robust mutex then
             * writes into the unmapped page (a crash found by the misuse fuzzer). The
             * environment, its lock and this store stay as they are until the process exits:
             * FERRY_EBUSY tells the caller the path is still open in this process. */
            return FERRY_EBUSY;
        }
        int released = atomic_load(&ls->abandoned) && atomic_load(&t->released);
        lmdb_txn_end_locked(ls, t);
        if (released) {   /* closed on another thread earlier: its handle is gone, free it here */
            pthread_mutex_destroy(&t->base.lock);
            free(t->parents);
            free(t);
        }
    }
    lmdb_pool_drain(ls);
    MDB.mdb_env_close(ls->env);
    lmdb_cmp_release(ls);   /* after the close: no comparison runs any more */
    for (uint32_t i = 0; i < ls->nwant; i++) {
        free(ls->want_names[i]);
        ferry_cmp_unref(ls->want_cmps[i]);
    }
    free(ls->want_names);
    free(ls->want_orders);
    free(ls->want_cmps);
    ferry_store_base_free(s);
    pthread_mutex_destroy(&ls->wlock);
    pthread_mutex_destroy(&ls->pool_lock);
    plat_aligned_free(ls);
    return FERRY_OK;
}

/* ------------------------------------------------------------------ checkpoint */

/* Copy the environment into dir/data.mdb with mdb_env_copy2, creating dir first. The copy reads
 * through its own read transaction, counted as live so that an auto-grow does not remap under it.
 * A plain copy begins that transaction under LMDB's writer mutex; a compacting copy begins it
 * unguarded, so it runs under wlock: no commit overlaps its begin (see read_acquire), and writers
 * of this store wait until it is done. A failed copy removes what it created. */
static int lmdb_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
{
    lmdb_store *ls = LS(s);
    int e = plat_mkdir(dir);
    if (e != 0) {
        if (e == EEXIST)
            return ferry_fail(err, FERRY_EEXISTS, e, "checkpoint directory %s exists: a checkpoint is written into a "
                              "new directory", dir);
        return ferry_fail(err, FERRY_EIO, e, "cannot create checkpoint directory %s: %s", dir, strerror(e));
    }
    int compact = (flags & FERRY_CHECKPOINT_COMPACT) != 0;
    /* Both copies take LMDB's writer mutex (a plain one while it starts): wait for an open write
     * transaction through wlock (refused on its own thread, which would wait for itself, and when
     * it was abandoned); a plain copy lets writers in again at once. */
    int wrc = lmdb_wlock_acquire(ls, -1, err);
    if (wrc) { plat_rmdir(dir); return wrc; }
    if (!compact) pthread_mutex_unlock(&ls->wlock);
    lmdb_read_enter(ls);
    int mrc = MDB.mdb_env_copy2(ls->env, dir, compact ? MDB_CP_COMPACT : 0);
    if (mrc == MDB_READERS_FULL) { /* kept read transactions hold reader slots: free them */
        lmdb_pool_drain(ls);
        mrc = MDB.mdb_env_copy2(ls->env, dir, compact ? MDB_CP_COMPACT : 0);
    }
    lmdb_read_exit(ls);
    if (compact) pthread_mutex_unlock(&ls->wlock);
    if (mrc == MDB_SUCCESS) return FERRY_OK;
    size_t n = strlen(dir);
    char *data = malloc(n + 16);
    if (data) {
        snprintf(data, n + 16, "%s/data.mdb", dir);
        plat_unlink(data);
        free(data);
    }
    plat_rmdir(dir);
    if (mrc == MDB_READERS_FULL)
        return ferry_fail(err, FERRY_EREADERSFULL, mrc, "checkpoint %s: LMDB's reader table is full (a copy needs a "
                          "reader slot: close snapshots and cursors, or raise StoreOptions.maxReaders)", dir);
    return ferry_fail(err, lmdb_map_rc(mrc), mrc, "checkpoint %s: %s", dir, lmdb_strerror(mrc));
}

static int lmdb_cf_find(ferry_store *fs, const char *name, void **handle_out, int *bits_out, ferry_error *err);

static int lmdb_cf_list_all(ferry_store *fs, ferry_error *err);

static const ferry_engine_ops lmdb_ops = {
    .close = lmdb_close,
    .flush = lmdb_flush,
    .compact_range = lmdb_compact_range,
    .property = lmdb_property,
    .property_int = lmdb_property_int,
    .checkpoint = lmdb_checkpoint,
    .cf_create = lmdb_cf_create,
    .cf_drop = lmdb_cf_drop,
    .cf_flags = lmdb_cf_flags,
    .cf_added = lmdb_cmp_added,
    .cf_find = lmdb_cf_find,
    .cf_list_all = lmdb_cf_list_all,
    .get = lmdb_get,
    .multi_get = lmdb_multi_get,
    .value_count = lmdb_value_count,
    .split_points = lmdb_split_points,
    .put = lmdb_put,
    .del = lmdb_del,
    .delete_range = lmdb_delete_range,
    .write = lmdb_write,
    .snapshot_open = lmdb_snapshot_open,
    .snapshot_close = lmdb_snapshot_close,
    .cursor_open = lmdb_cursor_open,
    .cursor_close = lmdb_cursor_close,
    .cursor_fill = lmdb_cursor_fill,
    .txn_begin = lmdb_txn_begin,
    .txn_get = lmdb_txn_get,
    .txn_value_count = lmdb_txn_value_count,
    .txn_write = lmdb_txn_write,
    .txn_cursor_open = lmdb_txn_cursor_open,
    .txn_cursor_kill = lmdb_txn_cursor_kill,
    .txn_commit = lmdb_txn_commit,
    .txn_close = lmdb_txn_close,
    .txn_abandon = lmdb_txn_abandon,
    .txn_savepoint = lmdb_txn_savepoint,
};

/* mkdir -p path: each prefix ending before a separator, and path itself, that is not a directory
 * yet (a Windows drive "C:" or a root is one already). A prefix that can be neither seen nor made
 * (a Windows \\server of a UNC path) is passed over; when path is no directory in the end, the
 * first failure says why. */
static int make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p) return ENOMEM;
    int first = 0;
    for (char *q = p + 1;; q++) {
        if (!plat_is_sep(*q) && *q != '\0') continue;
        char c = *q;
        *q = '\0';
        if (!plat_is_sep(q[-1]) && plat_stat(p, NULL) != PLAT_DIR) {
            int e = plat_mkdir(p);
            if (e != 0 && e != EEXIST && !first) first = e;
        }
        *q = c;
        if (c == '\0') break;
    }
    free(p);
    return plat_stat(path, NULL) == PLAT_DIR ? 0 : first ? first : ENOTDIR;
}

/* Check the directory and data.mdb against create_if_missing / error_if_exists / read_only. */
static int prepare_dir(const char *path, int create, int error_if_exists, int read_only, ferry_error *err)
{
    int kind = plat_stat(path, NULL);
    if (!kind) {
        if (!create || read_only)
            return ferry_fail(err, FERRY_NOTFOUND, ENOENT, "no LMDB store at %s: directory does not exist%s", path,
                              read_only ? " (read-only open)"
                                        : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
        int rc = make_dirs(path);
        if (rc) return ferry_fail(err, FERRY_EIO, rc, "cannot create directory %s: %s", path, strerror(rc));
        return FERRY_OK;
    }
    if (kind != PLAT_DIR) return ferry_fail(err, FERRY_EIO, ENOTDIR, "%s is not a directory", path);
    size_t n = strlen(path);
    char *data = malloc(n + 16);
    if (!data) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    snprintf(data, n + 16, "%s/data.mdb", path);
    int exists = plat_stat(data, NULL) != 0;
    free(data);
    if (exists && error_if_exists) return ferry_fail(err, FERRY_EEXISTS, 0, "LMDB store %s already exists", path);
    if (!exists && (!create || read_only))
        return ferry_fail(err, FERRY_NOTFOUND, ENOENT, "no LMDB store at %s: data.mdb missing%s", path,
                          read_only ? " (read-only open)" : " (createIfMissing / FERRY_OPT_CREATE_IF_MISSING is off)");
    return FERRY_OK;
}

/* Add a slot for every named database found as a record of the main database (Ferry's default
 * family) that has none yet: the whole default family is read, key by key. */
static int scan_families(lmdb_store *s, MDB_txn *txn, MDB_dbi main_dbi, ferry_error *err)
{
    MDB_cursor *cur = NULL;
    char name[512];
    int rc = MDB.mdb_cursor_open(txn, main_dbi, &cur);
    if (rc) return lmdb_fail(err, rc, "list column families");
    MDB_val k, v;
    for (rc = MDB.mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == MDB_SUCCESS;
         rc = MDB.mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        /* a sub-database record holds an MDB_db (u32 pad, u16 flags, u16 depth, 5 size_t):
         * skip other values cheaply */
        if (v.mv_size != 8 + 5 * sizeof(size_t)) continue;
        if (k.mv_size >= sizeof name || memchr(k.mv_data, 0, k.mv_size)) continue;
        memcpy(name, k.mv_data, k.mv_size);
        name[k.mv_size] = '\0';
        if (ferry_store_find_cf(&s->base, name) >= 0 || strcmp(name, LMDB_CMP_DB) == 0) continue; /* looked up already, or Ferry's own */
        MDB_dbi dbi;
        int orc = MDB.mdb_dbi_open(txn, name, 0, &dbi);
        if (orc == MDB_NOTFOUND || orc == MDB_INCOMPATIBLE) continue; /* a plain record */
        if (orc == MDB_SUCCESS && s->base.cf_named >= s->base.cf_named_max) orc = MDB_DBS_FULL;
        if (orc == MDB_DBS_FULL) {
            MDB.mdb_cursor_close(cur);
            return ferry_fail(err, FERRY_EDBSFULL, orc,
                              "the store holds more column families than maxColumnFamilies (%u): raise it "
                              "(FERRY_OPT_MAX_DBS in the C ABI)", s->base.cf_named_max);
        }
        if (orc) break;
        int bits = 0, frc = lmdb_order_found(s, txn, dbi, name, &bits, err);
        uint32_t id = 0;
        if (!frc && ferry_store_add_cf(&s->base, name, (void *)(uintptr_t)dbi, bits, &id) != FERRY_OK)
            frc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        if (!frc) frc = lmdb_cmp_added(&s->base, id, err);
        if (frc) {
            MDB.mdb_cursor_close(cur);
            return frc;
        }
    }
    MDB.mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND ? FERRY_OK : lmdb_fail(err, rc, "list column families");
}

/* At open: add the default family and, when the default family holds at most
 * FERRY_LMDB_FAMILY_SCAN_MAX records, every named database (LMDB keeps them as records of the main
 * database, so finding them all means reading every key of the default family: a store that keeps
 * its data in the default family would pay that at every open, in time and, with a cold page
 * cache, in reads of every leaf page). Otherwise the named families are found when asked for:
 * by name (lmdb_cf_find) or all at once (lmdb_cf_list_all). */
static int list_families(lmdb_store *s, ferry_error *err)
{
    MDB_txn *txn;
    int rc = MDB.mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc) return lmdb_fail(err, rc, "begin read transaction");
    MDB_dbi main_dbi;
    MDB_stat st;
    if ((rc = MDB.mdb_dbi_open(txn, NULL, 0, &main_dbi)) != MDB_SUCCESS
        || (rc = MDB.mdb_stat(txn, main_dbi, &st)) != MDB_SUCCESS) {
        MDB.mdb_txn_abort(txn);
        return lmdb_fail(err, rc, "list column families");
    }
    if (ferry_store_add_cf(&s->base, "default", (void *)(uintptr_t)main_dbi, 0, NULL) != FERRY_OK) {
        MDB.mdb_txn_abort(txn);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    if (st.ms_entries <= FERRY_LMDB_FAMILY_SCAN_MAX) {
        int frc = scan_families(s, txn, main_dbi, err);
        if (frc) {
            MDB.mdb_txn_abort(txn);
            return frc;
        }
        s->families_listed = 1;
    }
    /* a family the open gives another order than bytewise is checked now, found by a scan or not */
    for (uint32_t i = 0; i < s->nwant && !s->families_listed; i++) {
        if (ferry_store_find_cf(&s->base, s->want_names[i]) >= 0) continue;
        MDB_dbi dbi;
        int bits = 0, orc = MDB.mdb_dbi_open(txn, s->want_names[i], 0, &dbi), frc = FERRY_OK;
        if (orc == MDB_NOTFOUND || orc == MDB_INCOMPATIBLE) continue;   /* not created yet */
        if (orc) frc = lmdb_fail(err, orc, "look up column family");
        if (!frc && s->base.cf_named >= s->base.cf_named_max)
            frc = ferry_fail(err, FERRY_EDBSFULL, 0, "the store holds more column families than maxColumnFamilies (%u): "
                             "raise it (FERRY_OPT_MAX_DBS in the C ABI)", s->base.cf_named_max);
        if (!frc) frc = lmdb_order_found(s, txn, dbi, s->want_names[i], &bits, err);
        uint32_t id = 0;
        if (!frc && ferry_store_add_cf(&s->base, s->want_names[i], (void *)(uintptr_t)dbi, bits, &id) != FERRY_OK)
            frc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        if (!frc) frc = lmdb_cmp_added(&s->base, id, err);
        if (frc) {
            MDB.mdb_txn_abort(txn);
            return frc;
        }
    }
    if ((rc = MDB.mdb_txn_commit(txn)) != MDB_SUCCESS) return lmdb_fail(err, rc, "list column families");
    return FERRY_OK;
}

/* Keep the key orders other than bytewise that the open's family records ask for (ferry.c let through
 * no other family option): lmdb_order_found checks every family found on disk against them. */
static int want_orders(lmdb_store *s, const ferry_cf_desc *cfs, uint32_t ncfs, ferry_error *err)
{
    for (uint32_t i = 0; i < ncfs; i++) {
        int64_t order = ferry_opt(cfs[i].opts, FERRY_CFOPT_KEY_ORDER, FERRY_ORDER_BYTEWISE);
        if (order != FERRY_ORDER_BYTEWISE && order != FERRY_ORDER_REVERSE && order != FERRY_ORDER_U64_BE)
            return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': unknown key order %lld (FERRY_CFOPT_KEY_ORDER)",
                              cfs[i].name, (long long)order);
        ferry_comparator *cmp = NULL;
        int rc = ferry_cmp_named(cfs[i].name, cfs[i].extra, &cmp, err);
        if (rc) return rc;
        if (cmp && order != FERRY_ORDER_BYTEWISE) {
            ferry_cmp_unref(cmp);
            return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': a comparator and a key order "
                              "(FERRY_CFOPT_KEY_ORDER) other than bytewise: a family has one order", cfs[i].name);
        }
        if (order == FERRY_ORDER_BYTEWISE && !cmp) continue;
        if (!s->want_names) {
            s->want_names = calloc(ncfs, sizeof *s->want_names);
            s->want_orders = calloc(ncfs, sizeof *s->want_orders);
            s->want_cmps = calloc(ncfs, sizeof *s->want_cmps);
            if (!s->want_names || !s->want_orders || !s->want_cmps) {
                ferry_cmp_unref(cmp);
                return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            }
        }
        s->want_cmps[s->nwant] = cmp;
        s->want_orders[s->nwant] = cmp ? FERRY_ORDER_CALLBACK : (int)order;
        if (!(s->want_names[s->nwant++] = strdup(cfs[i].name))) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    return FERRY_OK;
}

/* A read transaction of its own for the family lookups after open (mdb_dbi_open in it, then a
 * commit, which keeps the handles for every later transaction), counted as live so that a grow
 * waits for it (see read_enter); lookup_end ends it either way. */
static int lookup_begin(lmdb_store *s, MDB_txn **txn, ferry_error *err)
{
    lmdb_read_enter(s);
    int rc = MDB.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    if (rc == MDB_READERS_FULL) { /* pooled transactions hold reader slots: free them */
        lmdb_pool_drain(s);
        rc = MDB.mdb_txn_begin(s->env, NULL, MDB_RDONLY, txn);
    }
    if (rc) {
        lmdb_read_exit(s);
        return lmdb_fail(err, rc, "look up column families: begin read transaction");
    }
    return FERRY_OK;
}

static int lookup_end(lmdb_store *s, MDB_txn *txn, int commit, ferry_error *err)
{
    int rc = commit ? MDB.mdb_txn_commit(txn) : (MDB.mdb_txn_abort(txn), MDB_SUCCESS);
    lmdb_read_exit(s);
    return rc ? lmdb_fail(err, rc, "look up column families") : FERRY_OK;
}

/* cf_find (under cf_lock, the name has no live slot): open the named database if there is one. */
static int lmdb_cf_find(ferry_store *fs, const char *name, void **handle_out, int *bits_out, ferry_error *err)
{
    lmdb_store *s = LS(fs);
    if (s->families_listed || strlen(name) > s->max_key || strcmp(name, LMDB_CMP_DB) == 0)
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no column family '%s'", name);
    MDB_txn *txn;
    int rc = lookup_begin(s, &txn, err);
    if (rc) return rc;
    MDB_dbi dbi;
    int mrc = MDB.mdb_dbi_open(txn, name, 0, &dbi);
    if (mrc == MDB_NOTFOUND || mrc == MDB_INCOMPATIBLE) {
        lookup_end(s, txn, 0, err);
        return ferry_fail(err, FERRY_NOTFOUND, 0, "no column family '%s'", name);
    }
    if (mrc == MDB_DBS_FULL) {
        lookup_end(s, txn, 0, err);
        return ferry_fail(err, FERRY_EDBSFULL, mrc, "cannot look up column family '%s': LMDB has no free database "
                          "handle (maxColumnFamilies, FERRY_OPT_MAX_DBS)", name);
    }
    if (mrc) {
        lookup_end(s, txn, 0, err);
        return lmdb_fail(err, mrc, "look up column family");
    }
    /* the handle stays open with its order's comparison even when the open asked for another */
    int orc = lmdb_order_found(s, txn, dbi, name, bits_out, err);
    rc = lookup_end(s, txn, 1, orc ? NULL : err);
    if (orc || rc) return orc ? orc : rc;
    *handle_out = (void *)(uintptr_t)dbi;
    return FERRY_OK;
}

/* cf_list_all (under cf_lock): a slot for every family on disk, once. */
static int lmdb_cf_list_all(ferry_store *fs, ferry_error *err)
{
    lmdb_store *s = LS(fs);
    if (s->families_listed) return FERRY_OK;
    MDB_txn *txn;
    int rc = lookup_begin(s, &txn, err);
    if (rc) return rc;
    rc = scan_families(s, txn, DBI(ferry_slot(&s->base, 0)), err);
    int erc = lookup_end(s, txn, rc == FERRY_OK, err);
    if (rc == FERRY_OK) rc = erc;
    if (rc == FERRY_OK) s->families_listed = 1;
    return rc;
}

/* Environment flags from the options. FERRY_OPT_SYNC means what it means on RocksDB:
 * - 1: every commit is synced to disk before it returns (LMDB's default); FERRY_LMDB_NOSYNC
 *   contradicts it and is refused at open, FERRY_LMDB_NOMETASYNC stays an explicit relaxation
 *   (data synced per commit, the meta page one commit later: an OS crash may undo the last one).
 * - 0 or -1 (the default): MDB_NOSYNC. A commit hands its pages to the OS (write(), or the
 *   shared map with MDB_WRITEMAP) and returns without fsync: it survives a crash of the process,
 *   not of the OS or a power loss, which may undo the last commits (without MDB_WRITEMAP, on a
 *   file system that keeps write order, never the store's integrity). ferry_flush syncs.
 * MDB_NOTLS is always set (see the file comment). */
static unsigned int env_flags(int64_t f, int64_t sync, int read_only)
{
    unsigned int flags = MDB_NOTLS;
    if (f & FERRY_LMDB_NOSYNC) flags |= MDB_NOSYNC;
    if (f & FERRY_LMDB_NOMETASYNC) flags |= MDB_NOMETASYNC;
    if (f & FERRY_LMDB_WRITEMAP) flags |= MDB_WRITEMAP;
    if (f & FERRY_LMDB_NORDAHEAD) flags |= MDB_NORDAHEAD;
    if (sync != 1) flags |= MDB_NOSYNC;
    if (read_only) flags |= MDB_RDONLY;
    return flags;
}

/* Open an LMDB environment as a Ferry store (options: see ferry.h and env_flags). */
int ferry_lmdb_open(const char *path, const int64_t *opts, const char *extra, const ferry_cf_desc *cfs, uint32_t ncfs,
                    ferry_store **out, ferry_error *err)
{
    if (!atomic_load_explicit(&lmdb_attached, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "LMDB engine not attached (call ferry_engine_attach first)");
    int64_t map_size = ferry_opt(opts, FERRY_OPT_MAP_SIZE, LMDB_DEFAULT_MAP_SIZE);
    int64_t max_dbs = ferry_opt(opts, FERRY_OPT_MAX_DBS, LMDB_DEFAULT_MAX_DBS);
    int64_t max_readers = ferry_opt(opts, FERRY_OPT_MAX_READERS, LMDB_DEFAULT_MAX_READERS);
    int64_t lflags = ferry_opt(opts, FERRY_OPT_LMDB_FLAGS, 0);
    int64_t grow = ferry_opt(opts, FERRY_OPT_AUTO_GROW, 0);
    int read_only = ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0;
    int create = ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0;
    int excl = ferry_opt(opts, FERRY_OPT_ERROR_IF_EXISTS, 0) != 0;
    if (map_size <= 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "map size (mapSize, FERRY_OPT_MAP_SIZE) must be positive, got %lld",
                          (long long)map_size);
    if (max_dbs < 0 || max_dbs > 32765)
        return ferry_fail(err, FERRY_EINVAL, 0, "maxColumnFamilies (FERRY_OPT_MAX_DBS) must be 0..32765, got %lld",
                          (long long)max_dbs);
    if (max_readers <= 0 || max_readers > 1 << 20)
        return ferry_fail(err, FERRY_EINVAL, 0, "maxReaders (FERRY_OPT_MAX_READERS) must be 1..%d, got %lld", 1 << 20,
                          (long long)max_readers);
    if (lflags < 0 || (lflags & ~(int64_t)0x1f))
        return ferry_fail(err, FERRY_EINVAL, 0, "unknown LMDB flags 0x%llx", (long long)lflags);
    if (grow < 0) return ferry_fail(err, FERRY_EINVAL, 0, "auto-grow step must be >= 0, got %lld", (long long)grow);
    if (ferry_opt(opts, FERRY_OPT_READAHEAD_BYTES, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "readahead size (FERRY_OPT_READAHEAD_BYTES) is a RocksDB option: LMDB "
                          "reads through the OS page cache (LmdbFlag.NORDAHEAD turns the OS readahead off)");
    if (ferry_opt(opts, FERRY_OPT_TTL_SECONDS, -1) != -1)
        return ferry_fail(err, FERRY_EINVAL, 0, "a TTL store (FERRY_OPT_TTL_SECONDS) is RocksDB's (DBWithTTL): LMDB has no "
                          "compactions to expire values");
    if (ferry_opt(opts, FERRY_OPT_STATISTICS, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "statistics (FERRY_OPT_STATISTICS) are a RocksDB option: LMDB's counters "
                          "are read with the lmdb.stat and lmdb.info properties");
    if (ferry_opt(opts, FERRY_OPT_SYNC, 0) == 1 && (lflags & FERRY_LMDB_NOSYNC))
        return ferry_fail(err, FERRY_EINVAL, 0, "syncWrites(true) syncs every commit, LmdbFlag.NOSYNC none: choose one "
                          "(FERRY_OPT_SYNC 1 with FERRY_LMDB_NOSYNC in the C ABI)");

    int rc = prepare_dir(path, create, excl, read_only, err);
    if (rc) return rc;

    /* the stripes are cache-line aligned: so is the store */
    size_t bytes = (sizeof(lmdb_store) + 63) & ~(size_t)63;
    lmdb_store *s = plat_aligned_alloc(64, bytes);
    if (!s) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memset(s, 0, bytes);
    if (ferry_store_base_init(&s->base, &lmdb_ops, FERRY_ENGINE_LMDB, (uint32_t)max_dbs) != FERRY_OK) {
        plat_aligned_free(s);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    s->base.read_only = read_only;
    s->grow_step = read_only ? 0 : grow;
    s->writemap = (lflags & FERRY_LMDB_WRITEMAP) != 0;
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->pool_lock, NULL);
    atomic_init(&s->growing, 0);

    const char *step = "create environment";
    int mrc = MDB.mdb_env_create(&s->env);
    if (mrc == 0) { step = "set map size"; mrc = MDB.mdb_env_set_mapsize(s->env, (size_t)map_size); }
    /* two handles more than families: listing the families at open probes records of the default
     * family that may only look like one, and mdb_dbi_open reports a full table before it finds
     * that a record is not a database (Ferry enforces the family limit itself); and LMDB_CMP_DB */
    if (mrc == 0) { step = "set max dbs"; mrc = MDB.mdb_env_set_maxdbs(s->env, (MDB_dbi)max_dbs + 2); }
    if (mrc == 0) { step = "set max readers"; mrc = MDB.mdb_env_set_maxreaders(s->env, (unsigned int)max_readers); }
    if (mrc == 0) {
        step = "open environment";
        mrc = MDB.mdb_env_open(s->env, path, env_flags(lflags, ferry_opt(opts, FERRY_OPT_SYNC, -1), read_only), 0644);
    }
    if (mrc > 0 && plat_sys_errno(mrc) == ENOMEM && strcmp(step, "open environment") == 0) {
        /* the map is reserved as address space at open: a size the process cannot map */
        rc = ferry_fail(err, FERRY_EINVAL, mrc,
                        "cannot map %s: the map size of %lld bytes (mapSize, FERRY_OPT_MAP_SIZE) does not fit "
                        "in this process's address space (%s): choose a smaller map size", path,
                        (long long)map_size, lmdb_strerror(mrc));
    } else if (mrc) {
        rc = ferry_fail(err, lmdb_map_rc(mrc), mrc, "%s %s: %s", step, path, lmdb_strerror(mrc));
    }
    if (mrc) {
        if (s->env) MDB.mdb_env_close(s->env);
        s->env = NULL;
        ferry_store_base_free(&s->base);
        pthread_mutex_destroy(&s->wlock);
        pthread_mutex_destroy(&s->pool_lock);
        plat_aligned_free(s);
        return rc;
    }
    s->max_key = (size_t)MDB.mdb_env_get_maxkeysize(s->env);
    MDB_stat est;
    if (MDB.mdb_env_stat(s->env, &est) == 0 && est.ms_psize >= 256 && (est.ms_psize & (est.ms_psize - 1)) == 0)
        s->psize = est.ms_psize;
    if ((rc = want_orders(s, cfs, ncfs, err)) != FERRY_OK || (rc = list_families(s, err)) != FERRY_OK) {
        lmdb_close(&s->base);
        return rc;
    }
    *out = &s->base;
    return FERRY_OK;
}
