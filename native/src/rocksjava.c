/* RocksJava interop entry points: argument checks, then the rocksdb engine's interop functions (its
 * engine-wide table, ferry_rocksdb_lib).
 * The handles are RocksJava's native handles (see "RocksJava interop" in ferry.h). */
#include "internal.h"

#define CHECK_E(cond, err, msg) do { if (!(cond)) return ferry_fail((err), FERRY_EINVAL, 0, "%s", (msg)); } while (0)
/* A (pointer, length) pair is valid when the pointer is set or the length is 0. */
#define BYTES_OK(p, n) ((p) != NULL || (n) == 0)

int ferry_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
                         const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
{
    CHECK_E(db != NULL && cf != NULL && out != NULL, err, "db, cf or out is NULL");
    CHECK_E(BYTES_OK(lower, llen) && BYTES_OK(upper, ulen), err, "NULL bound with a length");
    CHECK_E((flags & ~(uint32_t)(FERRY_CURSOR_POINTERS | FERRY_CURSOR_NO_FILL_CACHE)) == 0, err, "unknown cursor flags");
    *out = NULL;
    return ferry_rocksdb_lib.rj_cursor_open(db, cf, snapshot, lower, llen, upper, ulen, flags, out, err);
}

int ferry_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err)
{
    CHECK_E(iterator != NULL && out != NULL, err, "iterator or out is NULL");
    *out = NULL;
    return ferry_rocksdb_lib.rj_cursor_wrap(iterator, out, err);
}

int ferry_rj_cursor_forget(ferry_cursor *c)
{
    if (!c) return FERRY_OK;
    if (!ferry_rocksdb_lib.rj_cursor_owned(c)) return ferry_cursor_close(c);
    return ferry_rocksdb_lib.rj_cursor_forget(c);
}

int ferry_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst, size_t cap,
                 size_t *vlen_out, ferry_error *err)
{
    CHECK_E(db != NULL && cf != NULL && vlen_out != NULL, err, "db, cf or vlen_out is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(dst, cap), err, "NULL buffer with a length");
    return ferry_rocksdb_lib.rj_get(db, cf, snapshot, key, klen, dst, cap, vlen_out, err);
}

int ferry_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys, size_t keys_len,
                       void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    CHECK_E(db != NULL && cf != NULL && lens_out != NULL && n > 0, err, "db, cf or lens_out is NULL, or n is 0");
    CHECK_E(keys != NULL && BYTES_OK(dst, cap), err, "NULL buffer");
    int rc = ferry_keys_validate(n, keys, keys_len, err);
    if (rc) return rc;
    return ferry_rocksdb_lib.rj_multi_get(db, cf, snapshot, n, keys, keys_len, dst, cap, lens_out, err);
}

int ferry_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err)
{
    CHECK_E(db != NULL && cf != NULL, err, "db or cf is NULL");
    CHECK_E(BYTES_OK(key, klen) && BYTES_OK(val, vlen), err, "NULL buffer with a length");
    return ferry_rocksdb_lib.rj_put(db, cf, key, klen, val, vlen, err);
}

int ferry_rj_write(void *db, void *const *cfs, uint32_t ncfs, const void *ops, size_t len, uint32_t count,
                   ferry_error *err)
{
    CHECK_E(db != NULL, err, "db is NULL");
    CHECK_E(BYTES_OK(ops, len) && (cfs != NULL || ncfs == 0), err, "NULL batch or family array with a length");
    for (uint32_t i = 0; i < ncfs; i++) CHECK_E(cfs[i] != NULL, err, "NULL column family handle");
    int rc = ferry_batch_validate(ops, len, count, ncfs, NULL, err);
    if (rc) return rc;
    if (count == 0) return FERRY_OK;
    return ferry_rocksdb_lib.rj_write(db, cfs, ops, len, err);
}
