/* Native test of the RocksDB engine: test_rocksdb <librocksdbjni.so> <scratch dir> [<fake RocksJava library>]
 * (the last: a library with RocksJava's functions but no C API, see fake_rocksjava.c). This file holds
 * the harness (counters, the helpers every section uses), the discovery and attach tests and main; the
 * other tests are in test_rocksdb_*.c, declared in test_rocksdb.h. */
#include "test_rocksdb.h"

int passed, failed;
ferry_error err;
char scratch[4096];
const char *libpath;
int txn_mode;

/* ---- helpers ---- */

void run(const char *cmd)
{
    if (system(cmd) != 0) { printf("FAIL: command failed: %s\n", cmd); failed++; }
}

const char *dir(const char *name)
{
    static char buf[4][4200];
    static int i;
    char *b = buf[i++ & 3];
    snprintf(b, sizeof buf[0], "%s/%s", scratch, name);
    return b;
}

int open_store(const char *name, ferry_store **s)
{
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_TRANSACTIONS] = txn_mode;
    return ferry_store_open(FERRY_ENGINE_ROCKSDB, dir(name), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, s, &err);
}

int put_s(ferry_store *s, uint32_t cf, const char *k, const char *v)
{
    return ferry_put(s, cf, k, strlen(k), v, strlen(v), 0, &err);
}

/* Value of k as a string in buf ("" when missing). Returns the ferry rc. */
int get_s(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *k, char *buf, size_t cap)
{
    size_t vlen = 0;
    int rc = ferry_get(s, snap, cf, k, strlen(k), 0, buf, cap - 1, &vlen, &err);
    buf[rc == FERRY_OK ? (vlen < cap - 1 ? vlen : cap - 1) : 0] = '\0';
    return rc;
}

hdr page_hdr(const uint8_t *p)
{
    hdr h;
    memcpy(&h.count, p, 4);
    memcpy(&h.flags, p + 4, 4);
    memcpy(&h.used, p + 8, 8);
    return h;
}

/* Entry at offset off: fills key/value and returns the next offset. */
size_t page_entry(const uint8_t *p, size_t off, const uint8_t **k, uint32_t *kl, const uint8_t **v, uint32_t *vl)
{
    memcpy(kl, p + off, 4);
    memcpy(vl, p + off + 4, 4);
    *k = p + off + 8;
    *v = *k + *kl;
    return off + ((8 + (size_t)*kl + *vl + 7) & ~(size_t)7);
}

/* Scan a whole cursor with pages of cap bytes: keys (as "%s\n" lines) appended to out.
 * Checks every page's header against its entries. Returns the number of entries. */
int scan(ferry_cursor *c, int first, const void *key, size_t klen, int cont, size_t cap,
         uint32_t max, char *out, size_t outcap)
{
    uint8_t *page = malloc(cap);
    int total = 0, op = first, pages = 0;
    out[0] = '\0';
    for (;;) {
        int rc = ferry_cursor_fill(c, op, key, klen, page, cap, max, &err);
        if (rc < 0) { CHECK(0, "fill rc %d %s", rc, err.message); break; }
        hdr h = page_hdr(page);
        CHECK(h.count == (uint32_t)rc, "count %u vs rc %d", h.count, rc);
        CHECK(h.count <= max, "count %u > max %u", h.count, max);
        CHECK(h.used <= cap, "used %llu > cap %zu", (unsigned long long)h.used, cap);
        size_t off = FERRY_PAGE_HEADER;
        for (uint32_t i = 0; i < h.count; i++) {
            const uint8_t *k, *v;
            uint32_t kl, vl;
            off = page_entry(page, off, &k, &kl, &v, &vl);
            size_t n = strlen(out);
            if (n + kl + 2 < outcap) { memcpy(out + n, k, kl); out[n + kl] = '\n'; out[n + kl + 1] = '\0'; }
        }
        CHECK(off == h.used, "entries end at %zu, header says %llu", off, (unsigned long long)h.used);
        CHECK(h.count > 0 || (h.flags & FERRY_PAGE_END), "empty page without END");
        total += rc;
        pages++;
        if ((h.flags & FERRY_PAGE_END) || h.count == 0 || pages > 100000) break;
        op = cont;
    }
    free(page);
    return total;
}

/* ---- tests (the others: test_rocksdb_*.c) ---- */

/* In a child process: discovery of a copy loaded RTLD_LOCAL by someone else (as RocksJava
 * does), and of two copies. Returns the child's failure count. */
static int discovery_child(void)
{
    int bad = 0;
    char path[4096];
    if (!dlopen(libpath, RTLD_NOW | RTLD_LOCAL)) { printf("FAIL child: dlopen %s\n", dlerror()); return 1; }
    int rc = ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err);
    if (rc != FERRY_OK) { printf("FAIL child: discovery rc %d %s\n", rc, err.message); bad++; }
    int n = ferry_engine_path(FERRY_ENGINE_ROCKSDB, path, sizeof path);
    struct stat a, b;
    if (n <= 0 || stat(path, &a) || stat(libpath, &b) || a.st_ino != b.st_ino) { printf("FAIL child: path '%s'\n", path); bad++; }
    rc = ferry_engine_attach(FERRY_ENGINE_ROCKSDB, libpath, &err);
    if (rc != FERRY_OK) { printf("FAIL child: attach same path rc %d %s\n", rc, err.message); bad++; }
    /* a second copy loaded behind our back is detected */
    if (!dlopen(dir("copy-librocksdbjni.so"), RTLD_NOW | RTLD_LOCAL)) { printf("FAIL child: dlopen copy %s\n", dlerror()); return bad + 1; }
    rc = ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err);
    if (rc != FERRY_EDUPENGINE) { printf("FAIL child: two copies rc %d %s\n", rc, err.message); bad++; }
    return bad;
}

void test_discovery(void)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", libpath, dir("copy-librocksdbjni.so"));
    run(cmd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int bad = discovery_child();
        fflush(stdout);
        _exit(bad ? 1 : 0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "discovery child status %d", status);
}

/* A RocksJava library without RocksDB's C API (rocksdbjni's Windows library is built so) is refused
 * as not supported, saying why, by path and when it is loaded; nothing is attached. In a child
 * process: musl's dlclose unloads nothing, so the fake library would stay in this process and be
 * found by the discovery that test_attach expects to find nothing. */
static void no_c_api_child(const char *fake)
{
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, fake, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "exports no RocksDB C API") && strstr(err.message, "on Windows use LMDB")
          && strstr(err.message, fake), "%s", err.message);
    void *h = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen %s: %s", fake, dlerror());
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "exports no RocksDB C API") != NULL, "%s", err.message);
    if (h) dlclose(h);
    char path[64];
    CHECK_RC(ferry_engine_path(FERRY_ENGINE_ROCKSDB, path, sizeof path), FERRY_ENOENGINE);
}

void test_no_c_api(const char *fake)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        no_c_api_child(fake);
        fflush(stdout);
        _exit(failed ? 1 : 0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "no-C-API child status %d (its FAIL lines above)", status);
}

void test_attach(void)
{
    char path[4096];
    CHECK_RC(ferry_engine_path(FERRY_ENGINE_ROCKSDB, path, sizeof path), FERRY_ENOENGINE);
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err), FERRY_ENOENGINE);
    ferry_store *s = NULL;
    CHECK_RC(open_store("none", &s), FERRY_ENOENGINE);
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, libpath, &err), FERRY_OK);
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, libpath, &err), FERRY_OK);
    /* the copy now loaded is found by discovery too */
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err), FERRY_OK);
    int n = ferry_engine_path(FERRY_ENGINE_ROCKSDB, path, sizeof path);
    CHECK(n > 0 && (size_t)n == strlen(path) && strstr(path, "rocksdb"), "path %d '%s'", n, path);
    char small[8];
    CHECK(ferry_engine_path(FERRY_ENGINE_ROCKSDB, small, sizeof small) == n && strlen(small) == 7, "truncated path");
    /* a second copy of the library is refused */
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, dir("copy-librocksdbjni.so"), &err), FERRY_EDUPENGINE);
    CHECK(strstr(err.message, "copy-librocksdbjni.so") != NULL, "message names the copy: %s", err.message);
    CHECK_RC(ferry_engine_attach(FERRY_ENGINE_ROCKSDB, NULL, &err), FERRY_OK);
}

/* Append a batch record. */
size_t rec(uint8_t *b, size_t off, uint32_t op, uint32_t cf, const char *a, const char *bb)
{
    uint32_t h[4] = {op, cf, (uint32_t)strlen(a), bb ? (uint32_t)strlen(bb) : 0};
    memcpy(b + off, h, 16);
    memcpy(b + off + 16, a, h[2]);
    if (bb) memcpy(b + off + 16 + h[2], bb, h[3]);
    return off + 16 + h[2] + h[3];
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s <librocksdbjni.so> <scratch dir> [<fake RocksJava library>]\n", argv[0]);
        return 2;
    }
    libpath = argv[1];
    snprintf(scratch, sizeof scratch, "%s", argv[2]);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", scratch, scratch);
    run(cmd);

    test_discovery();
    if (argc == 4) test_no_c_api(argv[3]);
    test_attach();
    test_txn();
    test_txn_savepoints();
    for (txn_mode = 0; txn_mode <= 2; txn_mode++) {
    ferry_store *s = NULL;
    CHECK_RC(open_store(txn_mode == 0 ? "main" : txn_mode == 1 ? "main-p" : "main-o", &s), FERRY_OK);
    if (!s) { printf("%d passed, %d failed\n", passed, failed + 1); return 1; }
    uint32_t cf_big, cf_many, cf_bin;
    CHECK_RC(ferry_cf_create(s, "big", 0, NULL, 0, NULL, &cf_big, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "many", 0, NULL, 0, NULL, &cf_many, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "bin", 0, NULL, 0, NULL, &cf_bin, &err), FERRY_OK);
    test_empty_and_one(s);
    test_big_entry(s, cf_big);
    test_many(s, cf_many);
    test_binary(s, cf_bin);
    test_get_multi(s);
    test_write(s, cf_big);
    test_snapshot(s);
    test_props(s);
    /* the same scans after a flush read from SST files */
    CHECK_RC(ferry_flush(s, cf_many, &err), FERRY_OK);
    test_many(s, cf_many);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
    }
    txn_mode = 0;
    CHECK_RC(ferry_store_close(NULL), FERRY_OK);
    test_empty_ranges();
    test_refused_options();
    test_drop_while_writing();
    test_families();
    test_family_churn();
    test_snapshot_families();
    test_open_options();
    test_checkpoint();
    test_backups();
    test_lmdb_only_flags();
    test_merge();
    test_read_only_compacted();
    test_read_only_beside_writer();
    test_cf_options();
    test_sst();
    test_rocksjava();
    test_shared_memory();
    test_split_points();
    test_key_order();
    test_key_order_txn();
    test_ttl();
    test_ttl_store();
    test_secondary();
    test_wal();
    test_shared_services();
    test_perf();
    test_pointer_pages();

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
