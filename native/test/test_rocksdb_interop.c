/* RocksDB engine tests: RocksJava interop. Part of test_rocksdb (test_rocksdb.h). */
#include "test_rocksdb.h"

/* ---- RocksJava interop: the engine's own C API objects stand in for RocksJava's ---- */

/* The C++ pointer inside a C API wrapper (its first member), as RocksJava's getNativeHandle() gives it. */
static void *rep(void *wrapper) { return *(void **)wrapper; }

void test_rocksjava(void)
{
    void *h = dlopen(libpath, RTLD_NOW | RTLD_NOLOAD);
    CHECK(h != NULL, "engine not loaded");
    if (!h) return;
    void *(*opts_create)(void) = (void *(*)(void))dlsym(h, "rocksdb_options_create");
    void (*opts_cim)(void *, unsigned char) = (void (*)(void *, unsigned char))dlsym(h, "rocksdb_options_set_create_if_missing");
    void *(*db_open)(void *, const char *, char **) = (void *(*)(void *, const char *, char **))dlsym(h, "rocksdb_open");
    void *(*default_cf)(void *) = (void *(*)(void *))dlsym(h, "rocksdb_get_default_column_family_handle");
    void *(*ro_create)(void) = (void *(*)(void))dlsym(h, "rocksdb_readoptions_create");
    void *(*iter_create)(void *, void *) = (void *(*)(void *, void *))dlsym(h, "rocksdb_create_iterator");
    void (*iter_seek)(void *, const char *, size_t) = (void (*)(void *, const char *, size_t))dlsym(h, "rocksdb_iter_seek");
    unsigned char (*iter_valid)(void *) = (unsigned char (*)(void *))dlsym(h, "rocksdb_iter_valid");
    const char *(*iter_key)(void *, size_t *) = (const char *(*)(void *, size_t *))dlsym(h, "rocksdb_iter_key");
    void (*iter_next)(void *) = (void (*)(void *))dlsym(h, "rocksdb_iter_next");
    void (*iter_destroy)(void *) = (void (*)(void *))dlsym(h, "rocksdb_iter_destroy");
    void (*db_close)(void *) = (void (*)(void *))dlsym(h, "rocksdb_close");
    void (*opts_destroy)(void *) = (void (*)(void *))dlsym(h, "rocksdb_options_destroy");
    void (*ro_destroy)(void *) = (void (*)(void *))dlsym(h, "rocksdb_readoptions_destroy");
    void (*cf_destroy)(void *) = (void (*)(void *))dlsym(h, "rocksdb_column_family_handle_destroy");
    if (!default_cf) { /* the test's own stand-in for RocksJava's handles needs it; older libraries lack it */
        printf("test_rocksjava: skipped: this RocksDB library has no rocksdb_get_default_column_family_handle\n");
        return;
    }
    int have = opts_create && opts_cim && db_open && ro_create && iter_create && iter_seek && iter_valid && iter_key
               && iter_next && iter_destroy && db_close && opts_destroy && ro_destroy && cf_destroy;
    CHECK(have, "C API symbols missing");
    if (!have) return;
    void *o = opts_create();
    opts_cim(o, 1);
    char *e = NULL;
    void *db = db_open(o, dir("rj"), &e);
    CHECK(db != NULL && e == NULL, "rocksdb_open: %s", e ? e : "");
    if (!db) return;
    void *cfw = default_cf(db);
    void *DB = rep(db), *CF = rep(cfw);

    char k[16], buf[64];
    for (int i = 0; i < 20; i++) {
        snprintf(k, sizeof k, "r%02d", i);
        CHECK_RC(ferry_rj_put(DB, CF, k, 3, "v", 1, &err), FERRY_OK);
    }
    size_t vlen = 0;
    CHECK_RC(ferry_rj_get(DB, CF, NULL, "r05", 3, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK(vlen == 1 && buf[0] == 'v', "get r05");
    CHECK_RC(ferry_rj_get(DB, CF, NULL, "zz", 2, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_rj_get(DB, NULL, NULL, "r05", 3, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);

    /* a batch: delete r00, put r99 */
    uint8_t ops[64];
    uint32_t rec1[4] = {FERRY_OP_DELETE, 0, 3, 0}, rec2[4] = {FERRY_OP_PUT, 0, 3, 1};
    memcpy(ops, rec1, 16); memcpy(ops + 16, "r00", 3);
    memcpy(ops + 19, rec2, 16); memcpy(ops + 35, "r99", 3); ops[38] = 'w';
    void *cfs[1] = {CF};
    CHECK_RC(ferry_rj_write(DB, cfs, 1, ops, 39, 2, &err), FERRY_OK);
    rec2[1] = 1;   /* family id 1: not in the array */
    memcpy(ops + 19, rec2, 16);
    CHECK_RC(ferry_rj_write(DB, cfs, 1, ops, 39, 2, &err), FERRY_EINVAL);

    /* Ferry's own cursor over [r10, r15) */
    uint8_t page[4096];
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_rj_cursor_open(DB, CF, NULL, "r10", 3, "r15", 3, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 5);
    CHECK(page_hdr(page).flags & FERRY_PAGE_END, "range end");
    CHECK_RC(ferry_cursor_close(c), FERRY_OK);
    /* forget leaks the engine iterator by design: LeakSanitizer is told not to report this one */
    LSAN_DISABLE();
    CHECK_RC(ferry_rj_cursor_open(DB, CF, NULL, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    LSAN_ENABLE();
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 20); /* r01..r19, r99 */
    CHECK_RC(ferry_rj_cursor_forget(c), FERRY_OK);

    /* wrap an iterator the "application" positioned; it survives the cursor */
    void *ro = ro_create();
    void *it = iter_create(db, ro);
    iter_seek(it, "r17", 3);
    CHECK_RC(ferry_rj_cursor_wrap(rep(it), &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 2, &err), FERRY_EDIRECTION);
    CHECK_RC(ferry_cursor_fill(c, FERRY_CURRENT_FWD, NULL, 0, page, sizeof page, 2, &err), 2);
    const uint8_t *pk, *pv;
    uint32_t kl, vl;
    page_entry(page, FERRY_PAGE_HEADER, &pk, &kl, &pv, &vl);
    CHECK(kl == 3 && memcmp(pk, "r17", 3) == 0, "wrapped cursor starts at the iterator's entry");
    CHECK_RC(ferry_cursor_close(c), FERRY_OK);
    CHECK(iter_valid(it), "iterator still usable");
    size_t ikl;
    const char *ik = iter_key(it, &ikl);
    CHECK(ikl == 3 && memcmp(ik, "r19", 3) == 0, "iterator stands after the fill");
    iter_next(it);
    ik = iter_key(it, &ikl);
    CHECK(ikl == 3 && memcmp(ik, "r99", 3) == 0, "iterator continues");
    iter_destroy(it);
    CHECK_RC(ferry_rj_cursor_wrap(NULL, &c, &err), FERRY_EINVAL);
    CHECK_RC(ferry_rj_cursor_forget(NULL), FERRY_OK);
    ro_destroy(ro);
    cf_destroy(cfw);
    db_close(db);
    opts_destroy(o);
}
