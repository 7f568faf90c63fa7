/* The shipped library itself, loaded the way a JVM loads it (dlopen, symbols by name):
 * test_libferry <libferry.so> <librocksdbjni.so> <liblmdb.so> <scratch dir>. The other native tests
 * link the shim statically; this one checks that libferry.so of the build (also the cross-compiled
 * one, under qemu-user) loads, exports the ABI and works on both engines. <liblmdb.so> "-": a
 * platform org.lmdbjava:native ships no library for, RocksDB only. */
#include "ferry.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...) do { \
    if (cond) { passed++; } else { failed++; printf("FAIL line %d: %s -- ", __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

static void *lib;

/* The address of an exported function, or NULL (counted as a failure). */
static void *sym(const char *name)
{
    void *p = dlsym(lib, name);
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
    rc = open_(engine, dir, NULL, 0, NULL, &s, &err);
    CHECK(rc == FERRY_OK, "engine %d open rc %d: %s", engine, rc, err.message);
    if (rc != FERRY_OK) return;
    CHECK(put(s, 0, "key", 3, "value", 5, &err) == FERRY_OK, "engine %d put: %s", engine, err.message);
    char buf[16] = {0};
    size_t len = 0;
    rc = get(s, NULL, 0, "key", 3, buf, sizeof buf, &len, &err);
    CHECK(rc == FERRY_OK && len == 5 && memcmp(buf, "value", 5) == 0, "engine %d get rc %d len %zu '%s'", engine, rc, len, buf);
    rc = get(s, NULL, 0, "nokey", 5, buf, sizeof buf, &len, &err);
    CHECK(rc == FERRY_NOTFOUND, "engine %d get of a missing key rc %d", engine, rc);
    CHECK(close_(s) == FERRY_OK, "engine %d close", engine);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s <libferry.so> <librocksdbjni.so> <liblmdb.so> <scratch dir>\n", argv[0]);
        return 2;
    }
    char cmd[4200], dir[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", argv[4], argv[4]);
    if (system(cmd) != 0) { fprintf(stderr, "cannot recreate %s\n", argv[4]); return 2; }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { printf("FAIL: dlopen %s: %s\n0 passed, 1 failed\n", argv[1], dlerror()); return 1; }
    __typeof__(ferry_abi_version) *abi = (__typeof__(ferry_abi_version) *)sym("ferry_abi_version");
    if (abi) CHECK(abi() == FERRY_ABI_VERSION, "ABI version %d, want %d", abi(), FERRY_ABI_VERSION);
    CHECK(dlsym(lib, "JNI_OnLoad") != NULL, "no JNI_OnLoad");
    CHECK(dlsym(lib, "ferry_fail") == NULL, "an internal function is exported");
    snprintf(dir, sizeof dir, "%s/rocksdb", argv[4]);
    round_trip(FERRY_ENGINE_ROCKSDB, argv[2], dir);
    if (strcmp(argv[3], "-") != 0) {
        snprintf(dir, sizeof dir, "%s/lmdb", argv[4]);
        round_trip(FERRY_ENGINE_LMDB, argv[3], dir);
    } else {
        printf("no LMDB library for this platform: RocksDB only\n");
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
