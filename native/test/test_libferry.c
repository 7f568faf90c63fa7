/* The shipped library itself, loaded the way a JVM loads it (dlopen / LoadLibraryExW, symbols by
 * name): test_libferry <libferry> <librocksdbjni> <liblmdb> <scratch dir>. The other native tests
 * link the shim statically; this one checks that libferry of the build (also a cross-compiled one,
 * under qemu-user or wine) loads, exports the ABI and works on both engines. Only the platform
 * layer of the static shim is used here, to load the library. <liblmdb> "-": a platform
 * org.lmdbjava:native ships no library for, RocksDB only.
 * On Windows RocksJava's library (librocksdbjni-win64.dll) exports no RocksDB C API: there the
 * RocksDB half checks that the attach is refused as not supported, saying why. */
#include "ferry.h"
#include "test_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...) do { \
    if (cond) { passed++; } else { failed++; printf("FAIL line %d: %s -- ", __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

static plat_lib *lib;

/* The address of an exported function, or NULL (counted as a failure). */
static void *sym(const char *name)
{
    void *p = plat_lib_sym(lib, name);
    CHECK(p != NULL, "libferry does not export %s", name);
    return p;
}

/* Attach engine, open a store in dir, put and get one key, close. */
static void round_trip(int engine, const char *engine_lib, const char *dir)
{
    __typeof__(ferry_engine_attach) *attach = (__typeof__(ferry_engine_attach) *)sym("ferry_engine_attach");
    __typeof__(ferry_store_open) *open_ = (__typeof__(ferry_store_open) *)sym("ferry_store_open");
    __typeof__(ferry_put) *put = (__typeof__(ferry_put) *)sym("ferry_put");
    __typeof__(ferry_get) *get = (__typeof__(ferry_get) *)sym("ferry_get");
    __typeof__(ferry_store_close) *close_ = (__typeof__(ferry_store_close) *)sym("ferry_store_close");
    if (!attach || !open_ || !put || !get || !close_) return;
    ferry_error err = {0};
    int rc = attach(engine, engine_lib, &err);
    CHECK(rc == FERRY_OK, "engine %d attach rc %d: %s", engine, rc, err.message);
    if (rc != FERRY_OK) return;
    ferry_store *s = NULL;
    rc = open_(engine, dir, NULL, 0, NULL, NULL, 0, 0, &s, &err);
    CHECK(rc == FERRY_OK, "engine %d open rc %d: %s", engine, rc, err.message);
    if (rc != FERRY_OK) return;
    CHECK(put(s, 0, "key", 3, "value", 5, 0, &err) == FERRY_OK, "engine %d put: %s", engine, err.message);
    char buf[16] = {0};
    size_t len = 0;
    rc = get(s, NULL, 0, "key", 3, 0, buf, sizeof buf, &len, &err);
    CHECK(rc == FERRY_OK && len == 5 && memcmp(buf, "value", 5) == 0, "engine %d get rc %d len %zu '%s'", engine, rc, len, buf);
    rc = get(s, NULL, 0, "nokey", 5, 0, buf, sizeof buf, &len, &err);
    CHECK(rc == FERRY_NOTFOUND, "engine %d get of a missing key rc %d", engine, rc);
    CHECK(close_(s) == FERRY_OK, "engine %d close", engine);
}

#ifdef _WIN32
/* Windows: attaching RocksJava's library, which has no C API, is refused as not supported, naming
 * the library and saying why; nothing is attached. (RocksJava's close is never called: it hangs
 * under wine.) */
static void rocksdb_refused(const char *engine_lib)
{
    __typeof__(ferry_engine_attach) *attach = (__typeof__(ferry_engine_attach) *)sym("ferry_engine_attach");
    __typeof__(ferry_engine_path) *path = (__typeof__(ferry_engine_path) *)sym("ferry_engine_path");
    if (!attach || !path) return;
    ferry_error err = {0};
    int rc = attach(FERRY_ENGINE_ROCKSDB, engine_lib, &err);
    CHECK(rc == FERRY_ENOTSUP, "RocksDB attach of %s: rc %d, want FERRY_ENOTSUP: %s", engine_lib, rc, err.message);
    CHECK(strstr(err.message, "exports no RocksDB C API") && strstr(err.message, "only RocksJava's Java_* functions")
          && strstr(err.message, "on Windows use LMDB") && strstr(err.message, engine_lib), "message: %s", err.message);
    /* the library is loaded now (by the attach, as RocksJava would have): found among the loaded
     * modules, it is refused the same way */
    plat_lib *rj = plat_lib_open(engine_lib);
    CHECK(rj != NULL, "load %s: %s", engine_lib, plat_lib_error());
    memset(&err, 0, sizeof err);
    rc = attach(FERRY_ENGINE_ROCKSDB, NULL, &err);
    CHECK(rc == FERRY_ENOTSUP && strstr(err.message, "exports no RocksDB C API"), "loaded: rc %d: %s", rc, err.message);
    char buf[16];
    CHECK(path(FERRY_ENGINE_ROCKSDB, buf, sizeof buf) == FERRY_ENOENGINE, "a RocksDB engine is attached");
    printf("RocksDB on Windows: refused as not supported: %s\n", err.message);
}
#endif

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s <libferry.so> <librocksdbjni.so> <liblmdb.so> <scratch dir>\n", argv[0]);
        return 2;
    }
    char dir[4200];
    if (test_fresh_dir(argv[4]) != 0) { fprintf(stderr, "cannot recreate %s\n", argv[4]); return 2; }
    lib = plat_lib_open(argv[1]);
    if (!lib) { printf("FAIL: load %s: %s\n0 passed, 1 failed\n", argv[1], plat_lib_error()); return 1; }
    __typeof__(ferry_abi_version) *abi = (__typeof__(ferry_abi_version) *)sym("ferry_abi_version");
    if (abi) CHECK(abi() == FERRY_ABI_VERSION, "ABI version %d, want %d", abi(), FERRY_ABI_VERSION);
    CHECK(plat_lib_sym(lib, "JNI_OnLoad") != NULL, "no JNI_OnLoad");
    CHECK(plat_lib_sym(lib, "ferry_fail") == NULL, "an internal function is exported");
    CHECK(plat_lib_sym(lib, "plat_lib_open") == NULL, "an internal function is exported");
    /* ABI 5: one function per operation, no numbered twins left from earlier ABIs */
    static const char *const gone[] = { "ferry_store_open2", "ferry_cf_create2", "ferry_cf_create3", "ferry_get2",
                                        "ferry_multi_get2", "ferry_put2", "ferry_write2" };
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        CHECK(plat_lib_sym(lib, gone[i]) == NULL, "libferry still exports %s", gone[i]);
    snprintf(dir, sizeof dir, "%s/rocksdb", argv[4]);
#ifdef _WIN32
    rocksdb_refused(argv[2]);
#else
    round_trip(FERRY_ENGINE_ROCKSDB, argv[2], dir);
#endif
    if (strcmp(argv[3], "-") != 0) {
        snprintf(dir, sizeof dir, "%s/lmdb", argv[4]);
        round_trip(FERRY_ENGINE_LMDB, argv[3], dir);
    } else {
        printf("no LMDB library for this platform: RocksDB only\n");
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
