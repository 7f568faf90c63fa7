/* Prints every engine symbol the shim looks up by name, from the same X-macro tables the engines
 * resolve (src/rocksdb_api.h, src/lmdb_api.h), one a line: "<engine> <required|optional> <symbol>".
 * Built and run on the build machine by native/cross/macos check and native/cross/linux check,
 * which then check that the engine libraries of each platform export them. */
#include "lmdb_api.h"
#include "rocksdb_api.h"

#include <stdio.h>

int main(void)
{
#define REQUIRED_ROCKSDB(name, ret, params) puts("rocksdb required rocksdb_" #name);
#define OPTIONAL_ROCKSDB(name, ret, params) puts("rocksdb optional rocksdb_" #name);
#define REQUIRED_LMDB(ret, name, params) puts("lmdb required " #name);
    RDB_API_FUNCS(REQUIRED_ROCKSDB)
    RDB_API_OPTIONAL_FUNCS(OPTIONAL_ROCKSDB)
    FERRY_MDB_FUNCS(REQUIRED_LMDB)
    return 0;
}
