/* RocksDB engine: options, open, column families, snapshots, and the engine's ops table. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Open                                                                */

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

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
int rdb_check_extra(const char *extra, int family, ferry_error *err)
{
    const char *k, *v;
    size_t kn, vn;
    for (const char *p = extra; (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;) {
        int shown = (int)(vn > 200 ? 200 : vn);
        if (rdb_key_is(k, kn, "comparator") && !rdb_key_is(v, vn, "leveldb.BytewiseComparator")
            && !(family && vn > sizeof RDB_COMPARATOR_TOKEN - 1 && memcmp(v, RDB_COMPARATOR_TOKEN, sizeof RDB_COMPARATOR_TOKEN - 1) == 0))
            return ferry_fail(err, FERRY_EINVAL, 0, "options string sets comparator=%.*s: Ferry orders keys as unsigned "
                              "bytes (leveldb.BytewiseComparator) and supports no other comparator", shown, v);
        if (rdb_key_is(k, kn, "table_factory") && !contains(v, vn, "BlockBasedTable"))
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
        for (const char *p = inner; (p = rdb_next_option(p, &k, &kn, &iv, &ivn)) != NULL;)
            if (rdb_key_is(k, kn, "id")) { *id = v + 1 + (iv - inner); *idn = ivn; }
        if (*idn == 0) return FERRY_EINVAL;
    }
    return FERRY_OK;
}

/* Find the options string's merge operator (the last merge_operator= wins, as in RocksDB) and
 * check it is one Ferry accepts; *has is 1 when the store will have one. A callback's operator
 * (RDB_MERGE_TOKEN) is accepted where cb is non-NULL: *cb then holds a reference to it (release with
 * rdb_merge_release), else NULL. */
int rdb_check_merge(const char *extra, int *has, ferry_merge_operator **cb, ferry_error *err)
{
    const char *k, *v, *id = NULL;
    size_t kn, vn, idn = 0;
    const char *val = NULL;
    size_t valn = 0;
    *has = 0;
    if (cb) *cb = NULL;
    for (const char *p = extra; (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (rdb_key_is(k, kn, "merge_operator")) { val = v; valn = vn; }
    if (!val || valn == 0 || rdb_key_is(val, valn, "nullptr")) return FERRY_OK;
    int shown = (int)(valn > 200 ? 200 : valn);
    int is_token;
    ferry_merge_operator *m = rdb_merge_token(val, valn, &is_token);
    if (is_token) {
        if (m && cb) { *cb = m; *has = 1; return FERRY_OK; }
        rdb_merge_release(m);
        return ferry_fail(err, FERRY_EINVAL, 0, cb ? "options string sets merge_operator=%.*s, which is not an open merge "
                          "operator (closed, or not made by ferry_merge_operator_create)" : "options string sets "
                          "merge_operator=%.*s: a merge operator of the binding's language is not accepted here", shown, val);
    }
    if (merge_operator_id(val, valn, &id, &idn) == FERRY_OK)
        for (size_t i = 0; i < sizeof merge_operators / sizeof merge_operators[0]; i++)
            if (rdb_key_is(id, idn, merge_operators[i])) { *has = 1; return FERRY_OK; }
    return ferry_fail(err, FERRY_EINVAL, 0, "options string sets merge_operator=%.*s: Ferry accepts RocksDB's built-in "
                      "merge operators put, uint64add, max, bytesxor and stringappend (sortlist aborts the process on "
                      "a malformed operand) and merge operators written in Java (JavaMergeOperator)", shown, val);
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
    if (extra && rdb_check_extra(extra, 0, err)) return FERRY_EINVAL;
    if (extra && rdb_check_merge(extra, &s->has_merge, &s->java_merge, err)) return FERRY_EINVAL;
    if (extra && rdb_check_filter(extra, &s->java_filter, err)) return FERRY_EINVAL;
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
    if (cif && (!RDB.block_based_options_set_cache_index_and_filter_blocks ||
                !RDB.block_based_options_set_cache_index_and_filter_blocks_with_high_priority ||
                !RDB.block_based_options_set_pin_l0_filter_and_index_blocks_in_cache))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s cannot put index and filter blocks in the block cache "
                          "(rocksdb_block_based_options_set_cache_index_and_filter_blocks* missing)", rdb_lib_path);
    if (wbm && !RDB.options_set_write_buffer_manager)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no rocksdb_options_set_write_buffer_manager", rdb_lib_path);
    if (ferry_opt(opts, FERRY_OPT_WAL, 1) == 0 && ferry_opt(opts, FERRY_OPT_SYNC, 0) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "syncWrites needs the write-ahead log: RocksDB cannot sync a write it "
                          "does not log (wal(false) with syncWrites(true); FERRY_OPT_WAL 0 with FERRY_OPT_SYNC 1)");

    int64_t ttl = ferry_opt(opts, FERRY_OPT_TTL_SECONDS, -1);
    if (ttl < -1 || ttl > INT_MAX) return ferry_fail(err, FERRY_EINVAL, 0, "TTL of %lld s (FERRY_OPT_TTL_SECONDS)", (long long)ttl);
    if (ttl >= 0 && ferry_opt(opts, FERRY_OPT_TRANSACTIONS, FERRY_TXN_MODE_NONE) != FERRY_TXN_MODE_NONE)
        return ferry_fail(err, FERRY_EINVAL, 0, "a TTL store (FERRY_OPT_TTL_SECONDS) has no transactions: RocksDB's "
                          "DBWithTTL is not a TransactionDB");
    if (ttl >= 0 && ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "a TTL store (FERRY_OPT_TTL_SECONDS) opens read-write only: RocksDB's C "
                          "API has no read-only TTL open");
    if (ttl >= 0 && (!RDB.open_column_families_with_ttl || !RDB.create_column_family_with_ttl))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no TTL stores (rocksdb_open_column_families_with_ttl missing)",
                          rdb_lib_path);
    s->ttl_seconds = (int)ttl;
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
            return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no transactions (rocksdb_transactiondb_* missing)", rdb_lib_path);
    }
    s->txn_mode = (int)txn_mode;
    s->lock_timeout_ms = lock_ms;
    if (txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        s->tdb_opts = RDB.transactiondb_options_create();
        if (lock_ms >= 0) {
            RDB.transactiondb_options_set_transaction_lock_timeout(s->tdb_opts, lock_ms);
            RDB.transactiondb_options_set_default_lock_timeout(s->tdb_opts, lock_ms);
        }
    }

    s->opts = RDB.options_create();
    RDB.options_set_create_if_missing(s->opts, ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0);
    RDB.options_set_error_if_exists(s->opts, ferry_opt(opts, FERRY_OPT_ERROR_IF_EXISTS, 0) != 0);
    if (ctype >= 0) RDB.options_set_compression(s->opts, ctype);
    if (max_files != -2) RDB.options_set_max_open_files(s->opts, (int)max_files);
    if (cache_bytes >= 0 || bloom > 0 || shared || cif) {
        rocksdb_block_based_table_options_t *t = RDB.block_based_options_create();
        if (shared) {
            /* the table options keep their own reference to the C++ cache */
            RDB.block_based_options_set_block_cache(t, shared);
        } else if (cache_bytes >= 0) {
            s->cache = RDB.cache_create_lru((size_t)cache_bytes);
            RDB.block_based_options_set_block_cache(t, s->cache);
        }
        if (cif) {
            RDB.block_based_options_set_cache_index_and_filter_blocks(t, 1);
            RDB.block_based_options_set_cache_index_and_filter_blocks_with_high_priority(t, 1);
            RDB.block_based_options_set_pin_l0_filter_and_index_blocks_in_cache(t, 1);
        }
        /* the table options take ownership of the policy */
        if (bloom > 0) RDB.block_based_options_set_filter_policy(t, RDB.filterpolicy_create_bloom_full((double)bloom));
        RDB.options_set_block_based_table_factory(s->opts, t);
        RDB.block_based_options_destroy(t);
    }
    if (extra && extra[0]) {
        char *plain = rdb_without_callbacks(extra);
        if (!plain) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        rocksdb_options_t *merged = RDB.options_create();
        char *e = NULL;
        RDB.get_options_from_string(s->opts, plain, merged, &e);
        free(plain);
        if (e) { RDB.options_destroy(merged); return rdb_error(err, e); }
        RDB.options_destroy(s->opts);
        s->opts = merged;
    }
    /* after the options string: the manager is the database's, whatever the string says */
    if (wbm) RDB.options_set_write_buffer_manager(s->opts, wbm);
    if (rdb_services_configure(s, opts, err)) return FERRY_EINVAL;
    if (s->java_filter)
        RDB.options_set_compaction_filter_factory(s->opts, rdb_filter_factory(s->java_filter));
    if (s->java_merge)
        RDB.options_set_merge_operator(s->opts, rdb_merge_operator(s->java_merge));
    else if (!s->has_merge)
        RDB.options_set_merge_operator(s->opts, RDB.mergeoperator_create(NULL, refused_destroy, refuse_full_merge,
                                                                     refuse_partial_merge, refused_delete, refused_name));
    int64_t readahead = ferry_opt(opts, FERRY_OPT_READAHEAD_BYTES, 0);
    if (readahead < 0) return ferry_fail(err, FERRY_EINVAL, 0, "readahead size (FERRY_OPT_READAHEAD_BYTES) is negative");
    s->readahead = (size_t)readahead;
    int64_t stats = ferry_opt(opts, FERRY_OPT_STATISTICS, 0);
    if (stats < 0 || stats > 1) return ferry_fail(err, FERRY_EINVAL, 0, "FERRY_OPT_STATISTICS is 0 or 1");
    if (stats) RDB.options_enable_statistics(s->opts);

    s->ropts = RDB.readoptions_create();
    s->wopts = RDB.writeoptions_create();
    s->wal_off = ferry_opt(opts, FERRY_OPT_WAL, 1) == 0;
    s->sync_on = ferry_opt(opts, FERRY_OPT_SYNC, 0) != 0;
    RDB.writeoptions_disable_WAL(s->wopts, s->wal_off);
    RDB.writeoptions_set_sync(s->wopts, s->sync_on);
    s->fopts = RDB.flushoptions_create();
    RDB.flushoptions_set_wait(s->fopts, 1);
    return FERRY_OK;
}

/* Whether an options string sets merge_operator at all (to an operator or to none). */
static int mentions_key(const char *extra, const char *key)
{
    const char *k, *v;
    size_t kn, vn;
    for (const char *p = extra; (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (rdb_key_is(k, kn, key)) return 1;
    return 0;
}

static int mentions_merge(const char *extra)
{
    return mentions_key(extra, "merge_operator");
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
 * have a merge operator; *cb (when cb is non-NULL): a callback's operator that the family's own
 * options string names, with a reference (release with rdb_merge_release), else NULL. */
static int check_family(rdb_store *s, const char *name, const int64_t *o, const char *extra, int *has_merge,
                        ferry_merge_operator **cb, ferry_error *err)
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
    if (rdb_order_check(name, o[FERRY_CFOPT_KEY_ORDER], err)) return FERRY_EINVAL;
    if (rdb_ttl_check(name, o[FERRY_CFOPT_TTL_MS], o[FERRY_CFOPT_TTL_OFFSET], err)) return FERRY_EINVAL;
    int fam_merge = 0;
    ferry_merge_operator *own = NULL;
    if (cb) *cb = NULL;
    if (extra && (rdb_check_extra(extra, 1, err) || rdb_check_merge(extra, &fam_merge, &own, err))) return FERRY_EINVAL;
    *has_merge = extra && mentions_merge(extra) ? fam_merge : s->has_merge;
    if (cb) *cb = own;
    else rdb_merge_release(own);
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
    ferry_merge_operator *own;
    ferry_compaction_filter *own_filter = NULL;
    *out = NULL;
    *bits = 0;
    if (check_family(s, name, o, extra, &has_merge, &own, err)) return FERRY_EINVAL;
    if (extra && rdb_check_filter(extra, &own_filter, err)) {
        rdb_merge_release(own);
        return FERRY_EINVAL;
    }
    /* RocksDB runs a family's compaction filter object (the TTL one) instead of its factory: a filter of the
     * binding's language, the family's own or the store's (unless the family's string sets its own factory),
     * would silently not run */
    const ferry_compaction_filter *java_filter = own_filter ? own_filter
        : extra && mentions_key(extra, "compaction_filter_factory") ? NULL : s->java_filter;
    if (o[FERRY_CFOPT_TTL_MS] != -1 && java_filter) {
        rdb_merge_release(own);
        rdb_filter_release(own_filter);
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' has a time to live (FERRY_CFOPT_TTL_MS) and %s "
                          "compaction filter '%s' of the binding's language: RocksDB runs one compaction filter per family, "
                          "so the TTL would keep the other from running (drop one of them for this family)", name,
                          own_filter ? "the" : "the store's", java_filter->cb.name);
    }
    size_t cap = 512 + (extra ? strlen(extra) : 0);
    char *str = malloc(cap);
    char *plain = extra ? rdb_without_callbacks(extra) : NULL;
    if (!str || (extra && !plain)) {
        free(str);
        free(plain);
        rdb_merge_release(own);
        rdb_filter_release(own_filter);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
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
    if (plain) snprintf(str + n, cap - n, "%s", plain);
    free(plain);
    rocksdb_options_t *f = RDB.options_create();
    char *e = NULL;
    RDB.get_options_from_string(s->opts, str, f, &e);
    free(str);
    if (e) {
        RDB.options_destroy(f);
        rdb_merge_release(own);
        rdb_filter_release(own_filter);
        return rdb_error(err, e);
    }
    if (own_filter) {
        RDB.options_set_compaction_filter_factory(f, rdb_filter_factory(own_filter));
        rdb_filter_release(own_filter);
    }
    if (own) {
        RDB.options_set_merge_operator(f, rdb_merge_operator(own));
        rdb_merge_release(own);
    }
    /* merge_operator= set to none: never leave the family without an operator (see refuse_full_merge) */
    else if (!has_merge && extra && mentions_merge(extra))
        RDB.options_set_merge_operator(f, RDB.mergeoperator_create(NULL, refused_destroy, refuse_full_merge,
                                                               refuse_partial_merge, refused_delete, refused_name));
    int64_t order = o[FERRY_CFOPT_KEY_ORDER] < 0 ? FERRY_ORDER_BYTEWISE : o[FERRY_CFOPT_KEY_ORDER];
    int ttl_index = 0;
    int orc = rdb_order_apply(&f, order, err);
    if (!orc) orc = rdb_cmp_apply(s, name, extra, order, f, &order, err);
    if (!orc) orc = rdb_ttl_apply(s, name, f, o[FERRY_CFOPT_TTL_MS], o[FERRY_CFOPT_TTL_OFFSET], &ttl_index, err);
    if (orc) {
        RDB.options_destroy(f);
        return orc;
    }
    *out = f;
    *bits = RDB_SLOT_OWN | (has_merge ? RDB_SLOT_MERGE : 0) | (int)(order << FERRY_SLOT_ORDER_SHIFT)
          | ttl_index << RDB_SLOT_TTL_SHIFT;
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
    *list = RDB.list_column_families(s->opts, path, nlist, &e);
    if (e) {  /* typically no database yet: the open reports any real problem */
        RDB.free(e);
        if (*list) RDB.list_column_families_destroy(*list, *nlist);
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

/* Whether a database opened without a merge operator holds no merge operand, so that no read can
 * reach RocksDB's NULL operator (see refuse_full_merge): nothing in the memtables (a read-only open
 * replays the log into them) and no operand in any table file (each counts its operands in its
 * properties). Anything not known counts as holding some. */
static int no_merge_operands(rocksdb_t *db, rocksdb_column_family_handle_t *h)
{
    static const char key[] = "# merge operands=";
    uint64_t mem = 1, imm = 1;
    if (RDB.property_int_cf(db, h, "rocksdb.num-entries-active-mem-table", &mem) != 0 || mem != 0) return 0;
    if (RDB.property_int_cf(db, h, "rocksdb.num-entries-imm-mem-tables", &imm) != 0 || imm != 0) return 0;
    char *props = RDB.property_value_cf(db, h, "rocksdb.aggregated-table-properties");
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
    RDB.free(props);
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
    if (!s->has_merge && RDB.options_create_copy) {
        rocksdb_options_t *plain = RDB.options_create_copy(s->opts);
        if (plain) {
            RDB.options_set_merge_operator(plain, NULL);
            rocksdb_t *db = RDB.open_for_read_only(plain, path, 0, e);
            RDB.options_destroy(plain); /* the database keeps its own copy */
            if (db && !*e) {
                rocksdb_column_family_handle_t *h = RDB.get_default_column_family_handle(db);
                int none = h && no_merge_operands(db, h), compacted = 0;
                if (none) {
                    /* only the compacted-DB mode words its refusal of a flush this way */
                    char *fe = NULL;
                    RDB.flush_cf(db, s->fopts, h, &fe);
                    compacted = fe && strstr(fe, "compacted db mode") != NULL;
                    if (fe) RDB.free(fe);
                }
                if (h) RDB.column_family_handle_destroy(h);
                if (none) {
                    s->compacted = compacted;
                    return db;
                }
            }
            if (*e) RDB.free(*e);
            *e = NULL;
            if (db) RDB.close(db);
        }
    }
    return RDB.open_for_read_only(s->opts, path, 0, e);
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
    if (read_only && !s->txn_mode && n == 1 && !own[0] && RDB.get_default_column_family_handle
            && (s->db = open_default_read_only(s, path, &e)) != NULL && !e) {
        /* Only the default family: the engine's own read-only open (open_default_read_only); the
         * default family's handle is the engine's immortal one (destroying it frees only the
         * wrapper). Engines without rocksdb_get_default_column_family_handle take the open below. */
        handles[0] = RDB.get_default_column_family_handle(s->db);
        if (!handles[0]) {
            RDB.close(s->db);
            s->db = NULL;
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            goto out;
        }
    } else {
        if (e) RDB.free(e);
        e = NULL;
        if (s->db) RDB.close(s->db);
        s->db = NULL;
    }
    if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) {
        s->txndb = RDB.transactiondb_open_column_families(s->opts, s->tdb_opts, path, (int)n, names, cf_opts, handles, &e);
    } else if (s->txn_mode == FERRY_TXN_MODE_OPTIMISTIC) {
        s->txndb = RDB.optimistictransactiondb_open_column_families(s->opts, path, (int)n, names, cf_opts, handles, &e);
    }
    if (s->txndb) {
        s->shell.rep = ((rdb_txndb_shell *)s->txndb)->rep;
        s->db = (rocksdb_t *)&s->shell;
        if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC && RDB.transactiondb_get_base_db && RDB.transactiondb_close_base_db)
            s->base_db = RDB.transactiondb_get_base_db(s->txndb);
        else if (s->txn_mode == FERRY_TXN_MODE_OPTIMISTIC && RDB.optimistictransactiondb_get_base_db
                 && RDB.optimistictransactiondb_close_base_db)
            s->base_db = RDB.optimistictransactiondb_get_base_db(s->txndb);
    }
    if (!s->db && s->secondary)
        s->db = RDB.open_as_secondary_column_families(s->opts, path, s->secondary, (int)n, names, cf_opts, handles, &e);
    if (!s->db && !s->txn_mode && s->ttl_seconds >= 0) {
        int *ttls = malloc(n * sizeof *ttls);
        if (!ttls) {
            rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) ttls[i] = s->ttl_seconds;
        s->db = RDB.open_column_families_with_ttl(s->opts, path, (int)n, names, cf_opts, handles, ttls, &e);
        free(ttls);
    }
    if (!s->db && !s->txn_mode) s->db = read_only
        ? RDB.open_for_read_only_column_families(s->opts, path, (int)n, names, cf_opts, handles, 0, &e)
        : RDB.open_column_families(s->opts, path, (int)n, names, cf_opts, handles, &e);
    if (e || !s->db) {
        if (s->txndb && e) { /* not expected: an open that failed returns NULL */
            if (s->txn_mode == FERRY_TXN_MODE_PESSIMISTIC) RDB.transactiondb_close(s->txndb);
            else RDB.optimistictransactiondb_close(s->txndb);
            s->txndb = NULL;
            s->db = NULL;
        }
        rc = rdb_order_error(path, e, err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t replayed = 0;   /* entries the log put back into the memtable, range deletes among them maybe */
        if (RDB.property_int_cf(s->db, handles[i], "rocksdb.num-entries-active-mem-table", &replayed) == 0 && replayed)
            bits[i] |= RDB_SLOT_RANGE_DEL;
        uint32_t id;
        int arc = ferry_store_add_cf(&s->base, names[i], handles[i], bits[i], &id);
        if (arc == FERRY_OK && (rc = rdb_cmp_bind(&s->base, id, err)) != FERRY_OK) {
            for (size_t j = i + 1; j < n; j++) RDB.column_family_handle_destroy(handles[j]);
            goto out;
        }
        if (arc != FERRY_OK) {
            for (size_t j = i; j < n; j++) RDB.column_family_handle_destroy(handles[j]);
            rc = ferry_fail(err, arc, 0, "cannot record column family '%s'", names[i]);
            goto out;
        }
    }
out:
    if (list) RDB.list_column_families_destroy(list, nlist);
    free(names);
    free(handles);
    free(cf_opts);
    if (own)
        for (size_t i = 0; i < n; i++)
            if (own[i]) RDB.options_destroy(own[i]);
    free(own);
    free(bits);
    return rc;
}

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

/* The names RocksDB's built-in merge operators record in the OPTIONS file. */
static int builtin_name(const char *v, size_t vn)
{
    static const char *const names[] = {
        "UInt64AddOperator", "StringAppendOperator", "StringAppendTESTOperator", "MaxOperator", "PutOperator",
        "PutOperatorV1", "BytesXOR", "uint64add", "stringappend", "max", "put", "bytesxor",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (rdb_key_is(v, vn, names[i])) return 1;
    return 0;
}

/* Opens the store's newest OPTIONS-<n> file for reading into *out: NULL (and FERRY_OK) when the directory
 * or the file is missing or unreadable, which the callers leave to RocksDB. FERRY_ENOMEM on allocation. */
int rdb_latest_options(const char *path, FILE **out, ferry_error *err)
{
    *out = NULL;
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
    *out = plat_fopen(file, "r");
    free(file);
    return FERRY_OK;
}

/* f: the newest OPTIONS-* file, read from its start.
 * A store opened without a merge operator whose last open had one (its newest OPTIONS-* file names
 * an operator other than Ferry's refusing one) may hold merge operands that it cannot read:
 * FERRY_EINVAL naming the operator. So does a family whose last operator was a callback's (Java) and
 * that this open gives another one (another name, or a built-in), and a family given a callback's
 * operator of another name than its last one. Missing or unreadable files are left to RocksDB. */
static int check_merge_history(rdb_store *s, const char *path, FILE *f, const ferry_cf_desc *cfs, uint32_t ncfs,
                               ferry_error *err)
{
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
        /* a TTL store names its merge operator wrapped in RocksDB's TtlMergeOperator */
        if (n == 0 || rdb_key_is(p, n, "nullptr") || contains(p, n, "ferry.NoMergeOperator")) continue;
        const ferry_cf_desc *d = find_desc(cfs, ncfs, family);
        int has = s->has_merge;
        ferry_merge_operator *own = NULL;
        if (d && check_family(s, d->name, d->opts, d->extra, &has, &own, err)) { rc = FERRY_EINVAL; break; }
        const ferry_merge_operator *cb = d && d->extra && mentions_merge(d->extra) ? own : s->java_merge;
        const char *last;
        size_t lastn;
        if (merge_operator_id(p, n, &last, &lastn) != FERRY_OK) { last = p; lastn = n; }
        int shown = (int)(lastn > 200 ? 200 : lastn);
        if (has && cb && !rdb_key_is(last, lastn, rdb_merge_name(cb)))
            rc = ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' of the RocksDB store at %s was last opened with merge "
                            "operator %.*s, and this open gives it the Java merge operator named %s: its merge operands "
                            "are %.*s's; give it the operator it was written with (a JavaMergeOperator's name() must stay "
                            "the same)", family, path, shown, last, rdb_merge_name(cb), shown, last);
        else if (has && !cb && !builtin_name(last, lastn))
            rc = ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' of the RocksDB store at %s was last opened with merge "
                            "operator %.*s, not one of RocksDB's built-in operators, and this open gives it a built-in one: "
                            "give it the operator it was written with (a JavaMergeOperator named %.*s)", family, path,
                            shown, last, shown, last);
        rdb_merge_release(own);
        if (has || rc != FERRY_OK) continue;
        rc = ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' of the RocksDB store at %s was last opened with merge "
                        "operator %.*s and may hold merge operands, which a family without a merge operator cannot "
                        "read: open it with its merge operator (StoreOptions.mergeOperator(...) for the store, "
                        "StoreOptions.columnFamily(name, ColumnFamilyOptions) for one family)", family, path,
                        (int)(n > 200 ? 200 : n), p);
    }
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

int ferry_rocksdb_open(const char *path, const char *secondary, const int64_t *opts, const char *extra,
                       const ferry_cf_desc *cfs, uint32_t ncfs, ferry_store **out, ferry_error *err)
{
    if (!atomic_load_explicit(&rdb_ready, memory_order_acquire))
        return ferry_fail(err, FERRY_ENOENGINE, 0, "RocksDB engine not attached");
    rdb_store *s = calloc(1, sizeof *s);
    if (!s) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    /* a drop must not wait behind an endless stream of writes */
    plat_rwlock_init_writer_first(&s->drop_lock);
    pthread_mutex_init(&s->ttl_lock, NULL);
    atomic_store(&s->ttl_clock, -1);
    if (ferry_store_base_init(&s->base, &rdb_ops, FERRY_ENGINE_ROCKSDB, UINT32_MAX) != FERRY_OK) {
        rdb_store_free(s);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    int read_only = ferry_opt(opts, FERRY_OPT_READ_ONLY, 0) != 0;
    int create = ferry_opt(opts, FERRY_OPT_CREATE_IF_MISSING, 1) != 0;
    if (secondary && !(s->secondary = strdup(secondary))) {
        rdb_store_free(s);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    if (secondary && !RDB.open_as_secondary_column_families) {
        rdb_store_free(s);
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no secondary instances (rocksdb_open_as_secondary_column_families "
                          "missing)", rdb_lib_path);
    }
    int rc = !create || read_only || secondary ? check_exists(path, read_only || secondary, err) : FERRY_OK;
    if (rc == FERRY_OK) rc = configure(s, opts, extra, err);
    /* RocksDB: a secondary instance keeps every table file open (max_open_files -1) */
    if (rc == FERRY_OK && secondary) RDB.options_set_max_open_files(s->opts, -1);
    for (uint32_t i = 0; rc == FERRY_OK && i < ncfs; i++) {  /* every record checked, named families or not */
        int has;
        rc = check_family(s, cfs[i].name, cfs[i].opts, cfs[i].extra, &has, NULL, err);
    }
    /* the newest OPTIONS file, listed and read once for both checks (it was twice: issue 45's restore profile) */
    FILE *optf = NULL;
    if (rc == FERRY_OK) rc = rdb_latest_options(path, &optf, err);
    if (rc == FERRY_OK && optf) rc = check_merge_history(s, path, optf, cfs, ncfs, err);
    if (rc == FERRY_OK && optf) rewind(optf);
    if (rc == FERRY_OK) rc = rdb_ttl_store_check(path, optf, s->ttl_seconds >= 0, err);
    if (optf) fclose(optf);
    if (rc == FERRY_OK) {
        rc = open_families(s, path, read_only, cfs, ncfs, err);
        for (int attempt = 1; rc != FERRY_OK && read_only && attempt <= RO_OPEN_ATTEMPTS && file_vanished(err); attempt++) {
            plat_sleep_us((uint32_t)(attempt < 10 ? attempt : 10) * 1000);
            rc = open_families(s, path, read_only, cfs, ncfs, err);
        }
    }
    if (rc != FERRY_OK) {
        rdb_cmp_failed_here(NULL);   /* a comparator that failed replaying the log: the open's failure says it */
        rdb_store_free(s);
        return rc;
    }
    s->base.read_only = read_only || secondary;
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
    rocksdb_column_family_handle_t *h = STORE(s)->ttl_seconds >= 0
        ? RDB.create_column_family_with_ttl(STORE(s)->db, f, name, STORE(s)->ttl_seconds, &e)
        : RDB.create_column_family(STORE(s)->db, f, name, &e);
    if (f != STORE(s)->opts) RDB.options_destroy(f);
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
    RDB.drop_column_family(STORE(s)->db, CFH(slot), &e);
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
    sn->snap = RDB.create_snapshot(STORE(s)->db);
    sn->ropts = RDB.readoptions_create();
    RDB.readoptions_set_snapshot(sn->ropts, sn->snap);
    *out = &sn->base;
    return FERRY_OK;
}

/* Release the snapshot and its read options. */
static int rdb_snapshot_close(ferry_snapshot *snap)
{
    rdb_snapshot *sn = (rdb_snapshot *)snap;
    RDB.readoptions_destroy(sn->ropts);
    RDB.release_snapshot(STORE(snap->store)->db, sn->snap);
    free(sn);
    return FERRY_OK;
}

FERRY_HIDDEN const ferry_engine_ops rdb_ops = {
    .close = rdb_close,
    .flush = rdb_flush,
    .compact_range = rdb_compact_range,
    .property = rdb_property,
    .property_int = rdb_property_int,
    .checkpoint = rdb_checkpoint,
    .ingest = rdb_ingest,
    .cf_create = rdb_cf_create,
    .cf_drop = rdb_cf_drop,
    .cf_flags = rdb_cf_flags,
    .cf_added = rdb_cmp_bind,
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

int ferry_rocksdb_catch_up(ferry_store *fs, ferry_error *err)
{
    rdb_store *s = STORE(fs);
    if (!s->secondary)
        return ferry_fail(err, FERRY_EINVAL, 0, "not a secondary instance: only a store opened with "
                          "ferry_store_open_secondary (Store.openSecondary) catches up with its primary");
    char *e = NULL;
    RDB.try_catch_up_with_primary(s->db, &e);
    return e ? rdb_error(err, e) : FERRY_OK;
}
