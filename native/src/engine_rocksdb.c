/* Placeholder until the rocksdb engine lands: every entry point reports FERRY_ENOTSUP. */
#include "internal.h"

int ferry_rocksdb_attach(const char *lib_path, ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "rocksdb engine not built yet");
}

int ferry_rocksdb_path(char *dst, size_t cap) { return FERRY_ENOENGINE; }

int ferry_rocksdb_open(const char *path, const int64_t *opts, const char *extra, ferry_store **out,
                    ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "rocksdb engine not built yet");
}
