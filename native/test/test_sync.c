/* Native tests of the shim's engine-free parts: test_sync <scratch dir>.
 * - ferry_sync_tree, which makes a checkpoint, backup or restore durable (issue 43): it walks the
 *   tree without following links, skips what is neither a regular file nor a directory, and fails
 *   only on a real sync error.
 * - the shared-memory handles' state calls on a handle that is not open.
 * - the engines' engine-wide tables (ferry_engine_lib): every entry set, LMDB's answering
 *   FERRY_ENOTSUP with a message for what LMDB does not have (issue 43). */
#include "ferry.h"
#include "internal.h"
#include "test_files.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#endif

static int passed, failed;
static ferry_error err;
static const char *scratch;

#define CHECK(cond, ...) check_((cond), __LINE__, #cond, "" __VA_ARGS__)

/* Count one assertion; print a line when it fails. */
static void check_(int ok, int line, const char *expr, const char *fmt, ...)
{
    if (ok) { passed++; return; }
    failed++;
    printf("FAIL line %d: %s", line, expr);
    if (fmt[0]) {
        va_list ap;
        va_start(ap, fmt);
        printf(" -- ");
        vprintf(fmt, ap);
        va_end(ap);
    }
    printf("\n");
}

static char *path_of(const char *name)
{
    static char buf[8][1024];
    static int i;
    char *b = buf[i++ & 7];
    snprintf(b, 1024, "%s/%s", scratch, name);
    return b;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = plat_fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

/* A tree of plain files and directories syncs. */
static void test_sync_plain_tree(void)
{
    char *tree = path_of("plain");
    CHECK(test_fresh_dir(tree) == 0);
    CHECK(plat_mkdir(path_of("plain/sub")) == 0);
    CHECK(write_file(path_of("plain/a"), "a") == 0);
    CHECK(write_file(path_of("plain/sub/b"), "b") == 0);
    memset(&err, 0, sizeof err);
    int rc = ferry_sync_tree(tree, &err);
    CHECK(rc == FERRY_OK, "rc %d: %s", rc, err.message);
    rc = ferry_sync_tree(path_of("no-such-tree"), &err);
    CHECK(rc == FERRY_EIO && strstr(err.message, "no-such-tree") != NULL, "a missing tree: rc %d: %s", rc, err.message);
}

#ifndef _WIN32
/* A Unix socket at path: a file that exists but cannot be opened (open gives ENXIO), so a sync
 * that reaches it fails. 0 on success. */
static int make_socket(const char *path)
{
    struct sockaddr_un a;
    if (strlen(path) >= sizeof a.sun_path) return -1;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    close(fd);
    return rc;
}

/* A dangling link (a file an engine removed, or never there) is not a sync error: stat() of it
 * failed with ENOENT and turned the whole checkpoint into FERRY_EIO. */
static void test_sync_dangling_link(void)
{
    char *tree = path_of("dangling");
    CHECK(test_fresh_dir(tree) == 0);
    CHECK(write_file(path_of("dangling/a"), "a") == 0);
    CHECK(symlink(path_of("nothing-here"), path_of("dangling/gone")) == 0);
    memset(&err, 0, sizeof err);
    int rc = ferry_sync_tree(tree, &err);
    CHECK(rc == FERRY_OK, "rc %d: %s", rc, err.message);
}

/* A link to a directory is not followed: not to a directory outside the tree (it holds a socket,
 * which a sync that went there would fail on), not back up the tree (a loop that a walk following
 * links descends until its paths grow too long). */
static void test_sync_links_to_dirs(void)
{
    char *tree = path_of("linked"), *outside = path_of("outside");
    CHECK(test_fresh_dir(tree) == 0);
    CHECK(test_fresh_dir(outside) == 0);
    CHECK(make_socket(path_of("outside/sock")) == 0, "cannot make a socket in %s", outside);
    CHECK(write_file(path_of("linked/a"), "a") == 0);
    CHECK(symlink(outside, path_of("linked/out")) == 0);
    CHECK(plat_lstat(path_of("linked/out"), NULL) == PLAT_OTHER);
    CHECK(plat_stat(path_of("linked/out"), NULL) == PLAT_DIR);
    CHECK(plat_mkdir(path_of("linked/sub")) == 0);
    CHECK(symlink("..", path_of("linked/sub/up")) == 0);
    memset(&err, 0, sizeof err);
    int rc = ferry_sync_tree(tree, &err);
    CHECK(rc == FERRY_OK, "rc %d: %s", rc, err.message);
}

/* Neither a file nor a directory (a socket, a pipe, a device): skipped, not opened. */
static void test_sync_skips_special_files(void)
{
    char *tree = path_of("special");
    CHECK(test_fresh_dir(tree) == 0);
    CHECK(make_socket(path_of("special/sock")) == 0, "cannot make a socket in %s", tree);
    memset(&err, 0, sizeof err);
    int rc = ferry_sync_tree(tree, &err);
    CHECK(rc == FERRY_OK, "rc %d: %s", rc, err.message);
}
#endif

/* The state calls of the shared-memory handles on a handle that is not open: FERRY_EINVAL with a message
 * naming what is wrong, the outputs untouched (ferry.h). No engine needed: such a handle is never looked at. */
static void test_usage_of_handles_not_open(void)
{
    uint64_t u = 7, p = 7;
    uint32_t st = 7, w = 7;
    long fake[8] = {0};
    memset(&err, 0, sizeof err);
    CHECK(ferry_cache_usage(NULL, &u, &p, &st, &w, &err) == FERRY_EINVAL);
    CHECK(err.code == FERRY_EINVAL && strstr(err.message, "block cache is NULL") != NULL, "code %d: %s", err.code,
          err.message);
    memset(&err, 0, sizeof err);
    CHECK(ferry_cache_usage((ferry_cache *)fake, &u, &p, &st, &w, &err) == FERRY_EINVAL);
    CHECK(strstr(err.message, "not an open block cache") != NULL, "message: %s", err.message);
    CHECK(u == 7 && p == 7 && st == 7 && w == 7, "outputs written: %llu %llu %u %u", (unsigned long long)u,
          (unsigned long long)p, st, w);
    memset(&err, 0, sizeof err);
    CHECK(ferry_wbm_usage(NULL, &u, &st, &err) == FERRY_EINVAL);
    CHECK(err.code == FERRY_EINVAL && strstr(err.message, "write buffer manager is NULL") != NULL, "code %d: %s", err.code,
          err.message);
    memset(&err, 0, sizeof err);
    CHECK(ferry_wbm_usage((ferry_wbm *)fake, &u, &st, &err) == FERRY_EINVAL);
    CHECK(strstr(err.message, "not an open write buffer manager") != NULL, "message: %s", err.message);
    CHECK(u == 7 && st == 7, "outputs written: %llu %u", (unsigned long long)u, st);
    /* a NULL ferry_error is allowed, as everywhere */
    CHECK(ferry_wbm_usage((ferry_wbm *)fake, &u, &st, NULL) == FERRY_EINVAL);
}

/* Every entry of an engine-wide table is set (the ABI layer calls them without a NULL check). */
static void check_table_full(const ferry_engine_lib *t, const char *name)
{
    size_t n = sizeof *t / sizeof(void (*)(void));
    CHECK(sizeof *t == n * sizeof(void (*)(void)), "%s: not a table of function pointers", name);
    for (size_t i = 0; i < n; i++) {
        void (*fn)(void);
        memcpy(&fn, (const char *)t + i * sizeof fn, sizeof fn);
        CHECK(fn != NULL, "%s: entry %zu is NULL", name, i);
    }
}

#define CHECK_ENOTSUP(call) do { \
        memset(&err, 0, sizeof err); \
        int rc_ = (call); \
        CHECK(rc_ == FERRY_ENOTSUP && err.code == FERRY_ENOTSUP && err.message[0] != '\0', \
              "%s: rc %d, code %d, message '%s'", #call, rc_, err.code, err.message); \
    } while (0)

static void test_engine_tables(void)
{
    CHECK(ferry_engine_lib_of(FERRY_ENGINE_ROCKSDB) == &ferry_rocksdb_lib);
    CHECK(ferry_engine_lib_of(FERRY_ENGINE_LMDB) == &ferry_lmdb_lib);
    CHECK(ferry_engine_lib_of(99) == NULL);
    check_table_full(&ferry_rocksdb_lib, "RocksDB");
    check_table_full(&ferry_lmdb_lib, "LMDB");

    const ferry_engine_lib *l = &ferry_lmdb_lib;
    char buf[64];
    uint32_t u32 = 0;
    uint64_t u64 = 7, u64b = 7;
    size_t len = 0;
    int64_t lens[1];
    void *out = NULL;
    int made = 0;
    ferry_backups *b = NULL;
    ferry_sst_writer *w = NULL;
    ferry_cursor *c = NULL;
    ferry_store *st = NULL;
    CHECK_ENOTSUP(l->open_secondary(scratch, scratch, NULL, NULL, NULL, 0, &st, &err));
    CHECK(st == NULL);
    CHECK_ENOTSUP(l->catch_up(NULL, &err));
    CHECK_ENOTSUP(l->ttl_clock(NULL, 0, &err));
    CHECK_ENOTSUP(l->backups_open(scratch, &b, &err));
    CHECK(strstr(err.message, "ferry_checkpoint") != NULL, "message: %s", err.message);
    CHECK_ENOTSUP(l->backups_create(NULL, NULL, &u32, &err));
    CHECK_ENOTSUP(l->backups_list(NULL, buf, sizeof buf, &u32, &err));
    CHECK_ENOTSUP(l->backups_restore(NULL, 1, scratch, &err));
    CHECK_ENOTSUP(l->backups_purge(NULL, 1, &err));
    CHECK(l->backups_close(NULL) == FERRY_ENOTSUP);
    CHECK_ENOTSUP(l->sst_open("x.sst", NULL, &w, &err));
    CHECK_ENOTSUP(l->sst_add(NULL, FERRY_OP_PUT, "k", 1, "v", 1, &err));
    CHECK_ENOTSUP(l->sst_finish(NULL, &u64, &err));
    CHECK(l->sst_close(NULL) == FERRY_ENOTSUP);
    CHECK_ENOTSUP(l->cache_create(1 << 20, 0, -1, &out, &made, &err));
    CHECK_ENOTSUP(l->wbm_create(NULL, 1 << 20, 0, &out, &err));
    l->cache_usage(NULL, &u64, &u64b);
    CHECK(u64 == 0 && u64b == 0);
    CHECK(l->wbm_usage(NULL) == 0);
    l->cache_destroy(NULL, 0);
    l->wbm_destroy(NULL);
    CHECK(out == NULL && b == NULL && w == NULL);
    CHECK(l->rj_cursor_owned(NULL) == 0);
    CHECK_ENOTSUP(l->rj_cursor_open(buf, buf, NULL, NULL, 0, NULL, 0, 0, &c, &err));
    CHECK_ENOTSUP(l->rj_cursor_wrap(buf, &c, &err));
    CHECK(l->rj_cursor_forget(NULL) == FERRY_ENOTSUP);
    CHECK_ENOTSUP(l->rj_get(buf, buf, NULL, "k", 1, buf, sizeof buf, &len, &err));
    CHECK_ENOTSUP(l->rj_multi_get(buf, buf, NULL, 1, buf, 5, buf, sizeof buf, lens, &err));
    CHECK_ENOTSUP(l->rj_put(buf, buf, "k", 1, "v", 1, &err));
    CHECK_ENOTSUP(l->rj_write(buf, NULL, NULL, 0, &err));
    CHECK(c == NULL);

    /* the ABI's engine calls go through the tables: an unknown engine has none */
    memset(&err, 0, sizeof err);
    CHECK(ferry_engine_attach(99, NULL, &err) == FERRY_EINVAL && strstr(err.message, "unknown engine 99") != NULL,
          "message: %s", err.message);
    CHECK(ferry_engine_path(99, buf, sizeof buf) == FERRY_EINVAL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
        return 2;
    }
    scratch = argv[1];
    if (test_fresh_dir(scratch) != 0) { fprintf(stderr, "cannot recreate %s\n", scratch); return 2; }
    test_sync_plain_tree();
    test_usage_of_handles_not_open();
    test_engine_tables();
#ifndef _WIN32
    test_sync_dangling_link();
    test_sync_links_to_dirs();
    test_sync_skips_special_files();
#endif
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
