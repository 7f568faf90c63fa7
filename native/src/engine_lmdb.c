/* Placeholder until the lmdb engine lands: every entry point reports FERRY_ENOTSUP. */
#include "internal.h"

int ferry_lmdb_attach(const char *lib_path, ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "lmdb engine not built yet");
}

int ferry_lmdb_path(char *dst, size_t cap) { return FERRY_ENOENGINE; }

int ferry_lmdb_open(const char *path, const int64_t *opts, const char *extra, ferry_store **out,
                    ferry_error *err)
{
    return ferry_fail(err, FERRY_ENOTSUP, 0, "lmdb engine not built yet");
}
