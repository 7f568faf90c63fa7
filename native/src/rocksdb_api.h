/* The subset of RocksDB's C API that the rocksdb engine uses, declared here so the shim builds
 * without RocksDB's headers. Every function is resolved at attach time (dlsym "rocksdb_<name>")
 * into the table below; only functions present since RocksDB 7.x are listed. */
#ifndef FERRY_ROCKSDB_API_H
#define FERRY_ROCKSDB_API_H

#include <stddef.h>
#include <stdint.h>

/* Opaque C API types. */
typedef struct rocksdb_t rocksdb_t;
typedef struct rocksdb_options_t rocksdb_options_t;
typedef struct rocksdb_readoptions_t rocksdb_readoptions_t;
typedef struct rocksdb_writeoptions_t rocksdb_writeoptions_t;
typedef struct rocksdb_flushoptions_t rocksdb_flushoptions_t;
typedef struct rocksdb_block_based_table_options_t rocksdb_block_based_table_options_t;
typedef struct rocksdb_cache_t rocksdb_cache_t;
typedef struct rocksdb_write_buffer_manager_t rocksdb_write_buffer_manager_t;
typedef struct rocksdb_filterpolicy_t rocksdb_filterpolicy_t;
typedef struct rocksdb_column_family_handle_t rocksdb_column_family_handle_t;
typedef struct rocksdb_snapshot_t rocksdb_snapshot_t;
typedef struct rocksdb_iterator_t rocksdb_iterator_t;
typedef struct rocksdb_writebatch_t rocksdb_writebatch_t;
typedef struct rocksdb_pinnableslice_t rocksdb_pinnableslice_t;
typedef struct rocksdb_checkpoint_t rocksdb_checkpoint_t;
typedef struct rocksdb_backup_engine_t rocksdb_backup_engine_t;
typedef struct rocksdb_backup_engine_info_t rocksdb_backup_engine_info_t;
typedef struct rocksdb_restore_options_t rocksdb_restore_options_t;
typedef struct rocksdb_envoptions_t rocksdb_envoptions_t;
typedef struct rocksdb_mergeoperator_t rocksdb_mergeoperator_t;
typedef struct rocksdb_comparator_t rocksdb_comparator_t;
typedef struct rocksdb_compactionfilter_t rocksdb_compactionfilter_t;
typedef struct rocksdb_compactionfiltercontext_t rocksdb_compactionfiltercontext_t;
typedef struct rocksdb_compactionfilterfactory_t rocksdb_compactionfilterfactory_t;
typedef struct rocksdb_sstfilewriter_t rocksdb_sstfilewriter_t;
typedef struct rocksdb_ingestexternalfileoptions_t rocksdb_ingestexternalfileoptions_t;
typedef struct rocksdb_transactiondb_t rocksdb_transactiondb_t;
typedef struct rocksdb_transactiondb_options_t rocksdb_transactiondb_options_t;
typedef struct rocksdb_transaction_t rocksdb_transaction_t;
typedef struct rocksdb_transaction_options_t rocksdb_transaction_options_t;
typedef struct rocksdb_optimistictransactiondb_t rocksdb_optimistictransactiondb_t;
typedef struct rocksdb_optimistictransaction_options_t rocksdb_optimistictransaction_options_t;
typedef struct rocksdb_livefiles_t rocksdb_livefiles_t;
typedef struct rocksdb_wal_iterator_t rocksdb_wal_iterator_t;
typedef struct rocksdb_wal_readoptions_t rocksdb_wal_readoptions_t;
typedef struct rocksdb_ratelimiter_t rocksdb_ratelimiter_t;
typedef struct rocksdb_sst_file_manager_t rocksdb_sst_file_manager_t;
typedef struct rocksdb_env_t rocksdb_env_t;
typedef struct rocksdb_perfcontext_t rocksdb_perfcontext_t;

/* Layouts of the C API's wrapper structs (RocksDB db/c.cc), relied on by the RocksJava interop:
 * each holds the C++ object pointer as its first member, and the C API functions used here read
 * only that member during the call. RocksJava's getNativeHandle() values are those pointers, so
 * a shell built around one can be passed where the C API takes the wrapper. The default family's
 * wrapper also has immortal = true; the shim never destroys a shell through the C API. */
typedef struct rdb_db_shell { void *rep; } rdb_db_shell;                        /* rocksdb_t: DB* */
typedef struct rdb_cf_shell { void *rep; unsigned char immortal; } rdb_cf_shell; /* ..._column_family_handle_t */
typedef struct rdb_snapshot_shell { const void *rep; } rdb_snapshot_shell;      /* rocksdb_snapshot_t */
typedef struct rdb_iter_shell { void *rep; } rdb_iter_shell;                    /* rocksdb_iterator_t: Iterator* */
/* rocksdb_transactiondb_t and rocksdb_optimistictransactiondb_t hold their TransactionDB* /
 * OptimisticTransactionDB* first as well. Both classes derive from DB through StackableDB alone
 * (single inheritance), so that pointer is also the DB*: a store opened with transactions reads,
 * writes, snapshots, checkpoints, backs up and creates families through an rdb_db_shell around it,
 * with the plain C API, and the TransactionDB's overrides (locking plain writes, lock maps for new
 * families) take effect through the virtual calls. RocksJava relies on the same cast. */
typedef struct rdb_txndb_shell { void *rep; } rdb_txndb_shell;

/* Compression type values of rocksdb_options_set_compression. */
#define RDB_NO_COMPRESSION     0
#define RDB_SNAPPY_COMPRESSION 1
#define RDB_LZ4_COMPRESSION    4
#define RDB_ZSTD_COMPRESSION   7

/* X(name, return type, parameter list): the symbol is "rocksdb_" #name. */
#define RDB_API_FUNCS(X) \
    X(free, void, (void *ptr)) \
    /* options */ \
    X(options_create, rocksdb_options_t *, (void)) \
    X(options_destroy, void, (rocksdb_options_t *o)) \
    X(options_set_create_if_missing, void, (rocksdb_options_t *o, unsigned char v)) \
    X(options_set_error_if_exists, void, (rocksdb_options_t *o, unsigned char v)) \
    X(options_set_compression, void, (rocksdb_options_t *o, int v)) \
    X(options_set_max_open_files, void, (rocksdb_options_t *o, int v)) \
    X(options_enable_statistics, void, (rocksdb_options_t *o)) \
    X(options_set_merge_operator, void, (rocksdb_options_t *o, rocksdb_mergeoperator_t *m)) \
    X(comparator_create, rocksdb_comparator_t *, (void *state, void (*destructor)(void *), \
        int (*compare)(void *, const char *a, size_t alen, const char *b, size_t blen), const char *(*name)(void *))) \
    X(comparator_destroy, void, (rocksdb_comparator_t *c)) \
    X(options_set_comparator, void, (rocksdb_options_t *o, rocksdb_comparator_t *c)) \
    X(compactionfilter_create, rocksdb_compactionfilter_t *, (void *state, void (*destructor)(void *), \
        unsigned char (*filter)(void *, int level, const char *key, size_t klen, const char *val, size_t vlen, \
            char **new_val, size_t *new_len, unsigned char *changed), const char *(*name)(void *))) \
    X(compactionfilter_destroy, void, (rocksdb_compactionfilter_t *f)) \
    X(options_set_compaction_filter, void, (rocksdb_options_t *o, rocksdb_compactionfilter_t *f)) \
    X(mergeoperator_create, rocksdb_mergeoperator_t *, (void *state, void (*destructor)(void *), \
        char *(*full_merge)(void *, const char *key, size_t klen, const char *existing, size_t elen, \
            const char *const *ops, const size_t *op_lens, int n, unsigned char *success, size_t *new_len), \
        char *(*partial_merge)(void *, const char *key, size_t klen, const char *const *ops, const size_t *op_lens, \
            int n, unsigned char *success, size_t *new_len), \
        void (*delete_value)(void *, const char *value, size_t vlen), const char *(*name)(void *))) \
    /* compaction filters of the binding's language (filter.c) */ \
    X(options_set_compaction_filter_factory, void, (rocksdb_options_t *o, rocksdb_compactionfilterfactory_t *f)) \
    /* compactionfilter_create: above (TTL families) */ \
    X(compactionfilterfactory_create, rocksdb_compactionfilterfactory_t *, (void *state, void (*destructor)(void *), \
        rocksdb_compactionfilter_t *(*create)(void *, rocksdb_compactionfiltercontext_t *ctx), \
        const char *(*name)(void *))) \
    X(compactionfiltercontext_is_full_compaction, unsigned char, (rocksdb_compactionfiltercontext_t *ctx)) \
    X(compactionfiltercontext_is_manual_compaction, unsigned char, (rocksdb_compactionfiltercontext_t *ctx)) \
    X(options_set_block_based_table_factory, void, (rocksdb_options_t *o, rocksdb_block_based_table_options_t *t)) \
    X(get_options_from_string, void, (const rocksdb_options_t *base, const char *s, rocksdb_options_t *out, char **errptr)) \
    X(block_based_options_create, rocksdb_block_based_table_options_t *, (void)) \
    X(block_based_options_destroy, void, (rocksdb_block_based_table_options_t *t)) \
    X(block_based_options_set_block_cache, void, (rocksdb_block_based_table_options_t *t, rocksdb_cache_t *c)) \
    X(block_based_options_set_filter_policy, void, (rocksdb_block_based_table_options_t *t, rocksdb_filterpolicy_t *f)) \
    X(cache_create_lru, rocksdb_cache_t *, (size_t capacity)) \
    X(cache_destroy, void, (rocksdb_cache_t *c)) \
    X(filterpolicy_create_bloom_full, rocksdb_filterpolicy_t *, (double bits_per_key)) \
    X(readoptions_create, rocksdb_readoptions_t *, (void)) \
    X(readoptions_destroy, void, (rocksdb_readoptions_t *o)) \
    X(readoptions_set_snapshot, void, (rocksdb_readoptions_t *o, const rocksdb_snapshot_t *snap)) \
    X(readoptions_set_fill_cache, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    X(readoptions_set_total_order_seek, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    X(readoptions_set_verify_checksums, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    X(readoptions_set_readahead_size, void, (rocksdb_readoptions_t *o, size_t v)) \
    X(readoptions_set_iterate_lower_bound, void, (rocksdb_readoptions_t *o, const char *k, size_t klen)) \
    X(readoptions_set_iterate_upper_bound, void, (rocksdb_readoptions_t *o, const char *k, size_t klen)) \
    X(writeoptions_create, rocksdb_writeoptions_t *, (void)) \
    X(writeoptions_destroy, void, (rocksdb_writeoptions_t *o)) \
    X(writeoptions_disable_WAL, void, (rocksdb_writeoptions_t *o, int v)) \
    X(writeoptions_set_sync, void, (rocksdb_writeoptions_t *o, unsigned char v)) \
    X(flushoptions_create, rocksdb_flushoptions_t *, (void)) \
    X(flushoptions_destroy, void, (rocksdb_flushoptions_t *o)) \
    X(flushoptions_set_wait, void, (rocksdb_flushoptions_t *o, unsigned char v)) \
    /* database and column families */ \
    X(list_column_families, char **, (const rocksdb_options_t *o, const char *path, size_t *n, char **errptr)) \
    X(list_column_families_destroy, void, (char **list, size_t n)) \
    X(open_column_families, rocksdb_t *, (const rocksdb_options_t *o, const char *path, int n, \
        const char *const *names, const rocksdb_options_t *const *cf_opts, \
        rocksdb_column_family_handle_t **handles, char **errptr)) \
    X(open_for_read_only_column_families, rocksdb_t *, (const rocksdb_options_t *o, const char *path, int n, \
        const char *const *names, const rocksdb_options_t *const *cf_opts, \
        rocksdb_column_family_handle_t **handles, unsigned char error_if_wal_exists, char **errptr)) \
    X(open_for_read_only, rocksdb_t *, (const rocksdb_options_t *o, const char *path, unsigned char error_if_wal_exists, \
        char **errptr)) \
    X(close, void, (rocksdb_t *db)) \
    X(create_column_family, rocksdb_column_family_handle_t *, (rocksdb_t *db, const rocksdb_options_t *o, const char *name, char **errptr)) \
    X(drop_column_family, void, (rocksdb_t *db, rocksdb_column_family_handle_t *h, char **errptr)) \
    X(column_family_handle_destroy, void, (rocksdb_column_family_handle_t *h)) \
    X(create_snapshot, const rocksdb_snapshot_t *, (rocksdb_t *db)) \
    X(release_snapshot, void, (rocksdb_t *db, const rocksdb_snapshot_t *snap)) \
    /* reads and writes */ \
    X(get_pinned_cf, rocksdb_pinnableslice_t *, (rocksdb_t *db, const rocksdb_readoptions_t *o, \
        rocksdb_column_family_handle_t *cf, const char *k, size_t klen, char **errptr)) \
    X(pinnableslice_value, const char *, (const rocksdb_pinnableslice_t *p, size_t *vlen)) \
    X(pinnableslice_destroy, void, (rocksdb_pinnableslice_t *p)) \
    X(put_cf, void, (rocksdb_t *db, const rocksdb_writeoptions_t *o, rocksdb_column_family_handle_t *cf, \
        const char *k, size_t klen, const char *v, size_t vlen, char **errptr)) \
    X(merge_cf, void, (rocksdb_t *db, const rocksdb_writeoptions_t *o, rocksdb_column_family_handle_t *cf, \
        const char *k, size_t klen, const char *v, size_t vlen, char **errptr)) \
    X(delete_cf, void, (rocksdb_t *db, const rocksdb_writeoptions_t *o, rocksdb_column_family_handle_t *cf, \
        const char *k, size_t klen, char **errptr)) \
    X(delete_range_cf, void, (rocksdb_t *db, const rocksdb_writeoptions_t *o, rocksdb_column_family_handle_t *cf, \
        const char *b, size_t blen, const char *e, size_t elen, char **errptr)) \
    X(writebatch_create, rocksdb_writebatch_t *, (void)) \
    X(writebatch_destroy, void, (rocksdb_writebatch_t *b)) \
    X(writebatch_put_cf, void, (rocksdb_writebatch_t *b, rocksdb_column_family_handle_t *cf, \
        const char *k, size_t klen, const char *v, size_t vlen)) \
    X(writebatch_merge_cf, void, (rocksdb_writebatch_t *b, rocksdb_column_family_handle_t *cf, \
        const char *k, size_t klen, const char *v, size_t vlen)) \
    X(writebatch_delete_cf, void, (rocksdb_writebatch_t *b, rocksdb_column_family_handle_t *cf, const char *k, size_t klen)) \
    X(writebatch_delete_range_cf, void, (rocksdb_writebatch_t *b, rocksdb_column_family_handle_t *cf, \
        const char *s, size_t slen, const char *e, size_t elen)) \
    X(write, void, (rocksdb_t *db, const rocksdb_writeoptions_t *o, rocksdb_writebatch_t *b, char **errptr)) \
    X(flush_cf, void, (rocksdb_t *db, const rocksdb_flushoptions_t *o, rocksdb_column_family_handle_t *cf, char **errptr)) \
    X(compact_range_cf, void, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, \
        const char *b, size_t blen, const char *e, size_t elen)) \
    X(property_value_cf, char *, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, const char *name)) \
    X(property_int_cf, int, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, const char *name, uint64_t *out)) \
    /* iterators */ \
    X(create_iterator_cf, rocksdb_iterator_t *, (rocksdb_t *db, const rocksdb_readoptions_t *o, rocksdb_column_family_handle_t *cf)) \
    X(iter_destroy, void, (rocksdb_iterator_t *it)) \
    X(iter_valid, unsigned char, (const rocksdb_iterator_t *it)) \
    X(iter_seek_to_first, void, (rocksdb_iterator_t *it)) \
    X(iter_seek_to_last, void, (rocksdb_iterator_t *it)) \
    X(iter_seek, void, (rocksdb_iterator_t *it, const char *k, size_t klen)) \
    X(iter_seek_for_prev, void, (rocksdb_iterator_t *it, const char *k, size_t klen)) \
    X(iter_next, void, (rocksdb_iterator_t *it)) \
    X(iter_prev, void, (rocksdb_iterator_t *it)) \
    X(iter_key, const char *, (const rocksdb_iterator_t *it, size_t *klen)) \
    X(iter_value, const char *, (const rocksdb_iterator_t *it, size_t *vlen)) \
    X(iter_get_error, void, (const rocksdb_iterator_t *it, char **errptr))

/* Functions newer than the oldest supported RocksDB: NULL in the table when the engine lacks
 * them, and every caller has a fallback. rocksdb_get_default_column_family_handle first appears
 * in RocksJava 9.x; without it a read-only open goes through the column-family variant. */
#define RDB_API_OPTIONAL_FUNCS(X) \
    X(get_default_column_family_handle, rocksdb_column_family_handle_t *, (rocksdb_t *db)) \
    /* a copy of a store's options without the refusing merge operator, for read-only opens that \
     * RocksDB can serve from its CompactedDBImpl (see open_default_read_only) */ \
    X(options_create_copy, rocksdb_options_t *, (rocksdb_options_t *o)) \
    X(readoptions_set_async_io, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    X(readoptions_set_auto_prefix_mode, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    /* pointer pages on RocksDB (cursors.c); without it pages are copies */ \
    X(readoptions_set_pin_data, void, (rocksdb_readoptions_t *o, unsigned char v)) \
    RDB_API_UTILITY_FUNCS(X) \
    RDB_API_SST_FUNCS(X) \
    RDB_API_TXN_FUNCS(X) \
    /* the database under a transaction database, for range deletes (which TransactionDB and \
     * OptimisticTransactionDB refuse); rocksdb_transactiondb_get_base_db is newer than 7.9.2 */ \
    X(transactiondb_get_base_db, rocksdb_t *, (rocksdb_transactiondb_t *db)) \
    X(transactiondb_close_base_db, void, (rocksdb_t *base)) \
    X(optimistictransactiondb_get_base_db, rocksdb_t *, (rocksdb_optimistictransactiondb_t *db)) \
    X(optimistictransactiondb_close_base_db, void, (rocksdb_t *base)) \
    X(transaction_merge_cf, void, (rocksdb_transaction_t *t, rocksdb_column_family_handle_t *cf, const char *k, \
        size_t klen, const char *v, size_t vlen, char **errptr)) \
    /* TTL stores (FERRY_OPT_TTL_SECONDS): in rocksdbjni 7.9.2 and later, resolved as optional */ \
    X(open_column_families_with_ttl, rocksdb_t *, (const rocksdb_options_t *o, const char *path, int n, \
        const char *const *names, const rocksdb_options_t *const *cf_opts, rocksdb_column_family_handle_t **handles, \
        const int *ttls, char **errptr)) \
    X(create_column_family_with_ttl, rocksdb_column_family_handle_t *, (rocksdb_t *db, const rocksdb_options_t *o, \
        const char *name, int ttl, char **errptr)) \
    /* secondary instances (ferry_store_open_secondary): in rocksdbjni 7.9.2 and later, resolved as optional */ \
    X(open_as_secondary_column_families, rocksdb_t *, (const rocksdb_options_t *o, const char *path, \
        const char *secondary, int n, const char *const *names, const rocksdb_options_t *const *cf_opts, \
        rocksdb_column_family_handle_t **handles, char **errptr)) \
    X(try_catch_up_with_primary, void, (rocksdb_t *db, char **errptr)) \
    RDB_API_SHARED_FUNCS(X) \
    RDB_API_SPLIT_FUNCS(X) \
    RDB_API_SERVICE_FUNCS(X)

/* RocksDB services (rocksdb/services.c, ferry.h "RocksDB services"), resolved as optional: each ABI
 * function answers FERRY_ENOTSUP naming the missing symbol. The WAL iterator is in every rocksdbjni
 * from 7.9.2 on. */
#define RDB_API_SERVICE_FUNCS(X) \
    X(get_latest_sequence_number, uint64_t, (rocksdb_t *db)) \
    X(column_family_handle_get_id, uint32_t, (rocksdb_column_family_handle_t *cf)) \
    X(get_updates_since, rocksdb_wal_iterator_t *, (rocksdb_t *db, uint64_t seq, \
        const rocksdb_wal_readoptions_t *o, char **errptr)) \
    X(wal_iter_next, void, (rocksdb_wal_iterator_t *it)) \
    X(wal_iter_valid, unsigned char, (const rocksdb_wal_iterator_t *it)) \
    X(wal_iter_status, void, (const rocksdb_wal_iterator_t *it, char **errptr)) \
    X(wal_iter_get_batch, rocksdb_writebatch_t *, (const rocksdb_wal_iterator_t *it, uint64_t *seq)) \
    X(wal_iter_destroy, void, (const rocksdb_wal_iterator_t *it)) \
    X(writebatch_data, const char *, (rocksdb_writebatch_t *b, size_t *size)) \
    /* rate limiters: in 7.9.2 */ \
    X(ratelimiter_create, rocksdb_ratelimiter_t *, (int64_t rate_bytes_per_sec, int64_t refill_period_us, \
        int32_t fairness)) \
    X(ratelimiter_destroy, void, (rocksdb_ratelimiter_t *l)) \
    X(options_set_ratelimiter, void, (rocksdb_options_t *o, rocksdb_ratelimiter_t *l)) \
    /* SST file managers: not in 7.9.2 or 10.1.3, in 11.8.1 */ \
    X(create_default_env, rocksdb_env_t *, (void)) \
    X(env_destroy, void, (rocksdb_env_t *env)) \
    X(sst_file_manager_create, rocksdb_sst_file_manager_t *, (rocksdb_env_t *env)) \
    X(sst_file_manager_destroy, void, (rocksdb_sst_file_manager_t *m)) \
    X(sst_file_manager_set_max_allowed_space_usage, void, (rocksdb_sst_file_manager_t *m, uint64_t bytes)) \
    X(sst_file_manager_set_delete_rate_bytes_per_second, void, (rocksdb_sst_file_manager_t *m, int64_t rate)) \
    X(sst_file_manager_get_total_size, uint64_t, (rocksdb_sst_file_manager_t *m)) \
    X(sst_file_manager_is_max_allowed_space_reached, unsigned char, (rocksdb_sst_file_manager_t *m)) \
    X(options_set_sst_file_manager, void, (rocksdb_options_t *o, rocksdb_sst_file_manager_t *m)) \
    /* PerfContext: in 7.9.2 */ \
    X(set_perf_level, void, (int level)) \
    X(perfcontext_create, rocksdb_perfcontext_t *, (void)) \
    X(perfcontext_reset, void, (rocksdb_perfcontext_t *p)) \
    X(perfcontext_report, char *, (rocksdb_perfcontext_t *p, unsigned char exclude_zero_counters)) \
    X(perfcontext_destroy, void, (rocksdb_perfcontext_t *p))

/* Split points (ferry_split_points): the live table files and approximate sizes are in every rocksdbjni
 * from 7.9.2 on; approximate sizes with flags (memtables included) in 10.1.3 and 11.8.1, not in 7.9.2. */
#define RDB_API_SPLIT_FUNCS(X) \
    X(livefiles, const rocksdb_livefiles_t *, (rocksdb_t *db)) \
    X(livefiles_count, int, (const rocksdb_livefiles_t *lf)) \
    X(livefiles_column_family_name, const char *, (const rocksdb_livefiles_t *lf, int i)) \
    X(livefiles_smallestkey, const char *, (const rocksdb_livefiles_t *lf, int i, size_t *size)) \
    X(livefiles_largestkey, const char *, (const rocksdb_livefiles_t *lf, int i, size_t *size)) \
    X(livefiles_destroy, void, (const rocksdb_livefiles_t *lf)) \
    X(livefiles_entries, uint64_t, (const rocksdb_livefiles_t *lf, int i)) \
    X(livefiles_deletions, uint64_t, (const rocksdb_livefiles_t *lf, int i)) \
    X(approximate_sizes_cf, void, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, int n, \
        const char *const *start, const size_t *start_len, const char *const *limit, const size_t *limit_len, \
        uint64_t *sizes, char **errptr)) \
    X(approximate_sizes_cf_with_flags, void, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, int n, \
        const char *const *start, const size_t *start_len, const char *const *limit, const size_t *limit_len, \
        uint8_t include_flags, uint64_t *sizes, char **errptr))

/* rocksdb_approximate_sizes_cf_with_flags: what to count */
#define RDB_SIZE_INCLUDE_MEMTABLES 0x1
#define RDB_SIZE_INCLUDE_FILES     0x2

/* Shared block caches and write buffer managers (ferry_cache_*, ferry_wbm_*). The cache functions and
 * table options are in every rocksdbjni from 7.9.2 on; the write buffer manager's C API appeared in
 * RocksDB 8.10 (ferry_wbm_create fails with FERRY_ENOTSUP without it). */
#define RDB_API_SHARED_FUNCS(X) \
    X(cache_create_lru_with_strict_capacity_limit, rocksdb_cache_t *, (size_t capacity)) \
    X(cache_get_usage, size_t, (const rocksdb_cache_t *c)) \
    X(cache_get_pinned_usage, size_t, (const rocksdb_cache_t *c)) \
    X(block_based_options_set_cache_index_and_filter_blocks, void, (rocksdb_block_based_table_options_t *t, unsigned char v)) \
    X(block_based_options_set_cache_index_and_filter_blocks_with_high_priority, void, \
        (rocksdb_block_based_table_options_t *t, unsigned char v)) \
    X(block_based_options_set_pin_l0_filter_and_index_blocks_in_cache, void, \
        (rocksdb_block_based_table_options_t *t, unsigned char v)) \
    X(write_buffer_manager_create_with_cache, rocksdb_write_buffer_manager_t *, (size_t size, const rocksdb_cache_t *c, \
        unsigned char allow_stall)) \
    X(write_buffer_manager_create, rocksdb_write_buffer_manager_t *, (size_t size, unsigned char allow_stall)) \
    X(write_buffer_manager_destroy, void, (rocksdb_write_buffer_manager_t *w)) \
    X(write_buffer_manager_memory_usage, size_t, (rocksdb_write_buffer_manager_t *w)) \
    X(options_set_write_buffer_manager, void, (rocksdb_options_t *o, rocksdb_write_buffer_manager_t *w))

/* SST file writing and ingestion: in every rocksdbjni from 7.9.2 on, resolved as optional like the
 * utilities (ferry_sst_* and ferry_ingest fail with FERRY_ENOTSUP without them, see rdb_has_sst). */
#define RDB_API_SST_FUNCS(X) \
    X(envoptions_create, rocksdb_envoptions_t *, (void)) \
    X(envoptions_destroy, void, (rocksdb_envoptions_t *o)) \
    X(sstfilewriter_create, rocksdb_sstfilewriter_t *, (const rocksdb_envoptions_t *env, const rocksdb_options_t *io)) \
    X(sstfilewriter_open, void, (rocksdb_sstfilewriter_t *w, const char *name, char **errptr)) \
    X(sstfilewriter_put, void, (rocksdb_sstfilewriter_t *w, const char *k, size_t klen, const char *v, size_t vlen, \
        char **errptr)) \
    X(sstfilewriter_merge, void, (rocksdb_sstfilewriter_t *w, const char *k, size_t klen, const char *v, size_t vlen, \
        char **errptr)) \
    X(sstfilewriter_delete, void, (rocksdb_sstfilewriter_t *w, const char *k, size_t klen, char **errptr)) \
    X(sstfilewriter_finish, void, (rocksdb_sstfilewriter_t *w, char **errptr)) \
    X(sstfilewriter_file_size, void, (rocksdb_sstfilewriter_t *w, uint64_t *size)) \
    X(sstfilewriter_destroy, void, (rocksdb_sstfilewriter_t *w)) \
    X(ingestexternalfileoptions_create, rocksdb_ingestexternalfileoptions_t *, (void)) \
    X(ingestexternalfileoptions_destroy, void, (rocksdb_ingestexternalfileoptions_t *o)) \
    X(ingestexternalfileoptions_set_move_files, void, (rocksdb_ingestexternalfileoptions_t *o, unsigned char v)) \
    X(ingest_external_file_cf, void, (rocksdb_t *db, rocksdb_column_family_handle_t *cf, const char *const *files, \
        size_t n, const rocksdb_ingestexternalfileoptions_t *o, char **errptr))

/* Transactions (TransactionDB, OptimisticTransactionDB): in every rocksdbjni from 7.9.2 on, resolved
 * as optional like the utilities: without them a store asks for transactions in vain (FERRY_ENOTSUP). */
#define RDB_API_TXN_FUNCS(X) \
    X(transactiondb_options_create, rocksdb_transactiondb_options_t *, (void)) \
    X(transactiondb_options_destroy, void, (rocksdb_transactiondb_options_t *o)) \
    X(transactiondb_options_set_transaction_lock_timeout, void, (rocksdb_transactiondb_options_t *o, int64_t ms)) \
    X(transactiondb_options_set_default_lock_timeout, void, (rocksdb_transactiondb_options_t *o, int64_t ms)) \
    X(transactiondb_open_column_families, rocksdb_transactiondb_t *, (const rocksdb_options_t *o, \
        const rocksdb_transactiondb_options_t *to, const char *path, int n, const char *const *names, \
        const rocksdb_options_t *const *cf_opts, rocksdb_column_family_handle_t **handles, char **errptr)) \
    X(transactiondb_close, void, (rocksdb_transactiondb_t *db)) \
    X(transaction_options_create, rocksdb_transaction_options_t *, (void)) \
    X(transaction_options_destroy, void, (rocksdb_transaction_options_t *o)) \
    X(transaction_options_set_lock_timeout, void, (rocksdb_transaction_options_t *o, int64_t ms)) \
    X(transaction_options_set_deadlock_detect, void, (rocksdb_transaction_options_t *o, unsigned char v)) \
    X(transaction_begin, rocksdb_transaction_t *, (rocksdb_transactiondb_t *db, const rocksdb_writeoptions_t *wo, \
        const rocksdb_transaction_options_t *to, rocksdb_transaction_t *old)) \
    X(optimistictransactiondb_open_column_families, rocksdb_optimistictransactiondb_t *, (const rocksdb_options_t *o, \
        const char *path, int n, const char *const *names, const rocksdb_options_t *const *cf_opts, \
        rocksdb_column_family_handle_t **handles, char **errptr)) \
    X(optimistictransactiondb_close, void, (rocksdb_optimistictransactiondb_t *db)) \
    X(optimistictransaction_options_create, rocksdb_optimistictransaction_options_t *, (void)) \
    X(optimistictransaction_options_destroy, void, (rocksdb_optimistictransaction_options_t *o)) \
    X(optimistictransaction_begin, rocksdb_transaction_t *, (rocksdb_optimistictransactiondb_t *db, \
        const rocksdb_writeoptions_t *wo, const rocksdb_optimistictransaction_options_t *to, rocksdb_transaction_t *old)) \
    X(transaction_get_pinned_cf, rocksdb_pinnableslice_t *, (rocksdb_transaction_t *t, const rocksdb_readoptions_t *o, \
        rocksdb_column_family_handle_t *cf, const char *k, size_t klen, char **errptr)) \
    X(transaction_get_for_update_cf, char *, (rocksdb_transaction_t *t, const rocksdb_readoptions_t *o, \
        rocksdb_column_family_handle_t *cf, const char *k, size_t klen, size_t *vlen, unsigned char exclusive, char **errptr)) \
    X(transaction_put_cf, void, (rocksdb_transaction_t *t, rocksdb_column_family_handle_t *cf, const char *k, size_t klen, \
        const char *v, size_t vlen, char **errptr)) \
    X(transaction_delete_cf, void, (rocksdb_transaction_t *t, rocksdb_column_family_handle_t *cf, const char *k, \
        size_t klen, char **errptr)) \
    X(transaction_set_savepoint, void, (rocksdb_transaction_t *t)) \
    X(transaction_rollback_to_savepoint, void, (rocksdb_transaction_t *t, char **errptr)) \
    X(transaction_commit, void, (rocksdb_transaction_t *t, char **errptr)) \
    X(transaction_rollback, void, (rocksdb_transaction_t *t, char **errptr)) \
    X(transaction_destroy, void, (rocksdb_transaction_t *t)) \
    X(transaction_create_iterator_cf, rocksdb_iterator_t *, (rocksdb_transaction_t *t, const rocksdb_readoptions_t *o, \
        rocksdb_column_family_handle_t *cf))

/* Checkpoints and the backup engine: in every rocksdbjni from 7.9.2 on, but resolved as optional,
 * since a RocksDB built without its utilities (ROCKSDB_LITE) lacks them: ferry_checkpoint and
 * ferry_backups_* then fail with FERRY_ENOTSUP (see rdb_has_backups, rdb_checkpoint). */
#define RDB_API_UTILITY_FUNCS(X) \
    X(checkpoint_object_create, rocksdb_checkpoint_t *, (rocksdb_t *db, char **errptr)) \
    X(checkpoint_create, void, (rocksdb_checkpoint_t *cp, const char *dir, uint64_t log_size_for_flush, char **errptr)) \
    X(checkpoint_object_destroy, void, (rocksdb_checkpoint_t *cp)) \
    X(backup_engine_open, rocksdb_backup_engine_t *, (const rocksdb_options_t *o, const char *path, char **errptr)) \
    X(backup_engine_close, void, (rocksdb_backup_engine_t *be)) \
    X(backup_engine_create_new_backup_flush, void, (rocksdb_backup_engine_t *be, rocksdb_t *db, \
        unsigned char flush_before_backup, char **errptr)) \
    X(backup_engine_purge_old_backups, void, (rocksdb_backup_engine_t *be, uint32_t keep, char **errptr)) \
    X(backup_engine_get_backup_info, const rocksdb_backup_engine_info_t *, (rocksdb_backup_engine_t *be)) \
    X(backup_engine_info_count, int, (const rocksdb_backup_engine_info_t *info)) \
    X(backup_engine_info_timestamp, int64_t, (const rocksdb_backup_engine_info_t *info, int i)) \
    X(backup_engine_info_backup_id, uint32_t, (const rocksdb_backup_engine_info_t *info, int i)) \
    X(backup_engine_info_size, uint64_t, (const rocksdb_backup_engine_info_t *info, int i)) \
    X(backup_engine_info_number_files, uint32_t, (const rocksdb_backup_engine_info_t *info, int i)) \
    X(backup_engine_info_destroy, void, (const rocksdb_backup_engine_info_t *info)) \
    X(restore_options_create, rocksdb_restore_options_t *, (void)) \
    X(restore_options_destroy, void, (rocksdb_restore_options_t *o)) \
    X(backup_engine_restore_db_from_latest_backup, void, (rocksdb_backup_engine_t *be, const char *db_dir, \
        const char *wal_dir, const rocksdb_restore_options_t *o, char **errptr)) \
    X(backup_engine_restore_db_from_backup, void, (rocksdb_backup_engine_t *be, const char *db_dir, \
        const char *wal_dir, const rocksdb_restore_options_t *o, const uint32_t id, char **errptr))

/* The resolved function table. */
#define RDB_API_FIELD(name, ret, params) ret (*name) params;
typedef struct rocksdb_api {
    RDB_API_FUNCS(RDB_API_FIELD)
    RDB_API_OPTIONAL_FUNCS(RDB_API_FIELD)
} rocksdb_api;
#undef RDB_API_FIELD

#endif /* FERRY_ROCKSDB_API_H */
