/* LMDB engine tests: cursor pages (edges, many entries, pointer pages and their span, huge values, the
 * leaf-page walk) and point reads. Part of test_lmdb (test_lmdb.h). */
#include "test_lmdb.h"

void test_page_edges(void)
{
    ferry_store *s = open_store("edges");
    uint8_t page[4096];
    entry e[64];
    uint32_t flags;
    ferry_cursor *c;
    /* empty store */
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 0);
    EQ(parse_page(page, e, &flags), 0);
    CHECK(flags & FERRY_PAGE_END);
    EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), 0);
    EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), 0);
    EQ(parse_page(page, e, &flags), 0);
    CHECK(flags & FERRY_PAGE_END);
    /* NEXT before any positioning, PREV after forward: EDIRECTION */
    ferry_cursor *c2;
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c2, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c2, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), FERRY_EDIRECTION);
    EQ(ferry_cursor_fill(c2, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 0);
    EQ(ferry_cursor_fill(c2, FERRY_PREV, NULL, 0, page, sizeof page, 100, &err), FERRY_EDIRECTION);
    EQ(ferry_cursor_fill(c2, FERRY_FIRST, NULL, 0, page, 32, 100, &err), FERRY_EINVAL);
    ferry_cursor_close(c2);
    ferry_cursor_close(c);

    /* one entry */
    EQ(put_s(s, 0, "k1", "v1"), FERRY_OK);
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(parse_page(page, e, &flags), 1);
    CHECK(flags & FERRY_PAGE_END);
    CHECK(!(flags & FERRY_PAGE_POINTERS));
    CHECK(e[0].klen == 2 && memcmp(e[0].k, "k1", 2) == 0 && e[0].vlen == 2 && memcmp(e[0].v, "v1", 2) == 0);
    EQ(page_used(page), FERRY_PAGE_HEADER + 16);
    EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), 1);
    ferry_cursor_close(c);

    /* an entry larger than the page: ETOOSMALL with the size needed, retry with it */
    char big[200];
    memset(big, 'b', sizeof big);
    EQ(ferry_put(s, 0, "k2", 2, big, sizeof big, 0, &err), FERRY_OK);
    size_t need = FERRY_PAGE_HEADER + ((8 + 2 + 200 + 7) & ~(size_t)7);
    EQ(ferry_cursor_open(s, NULL, 0, "k2", 2, NULL, 0, 0, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, 64, 100, &err), FERRY_ETOOSMALL);
    EQ(page_used(page), need);
    EQ(parse_page(page, e, &flags), 0);
    EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, 64, 100, &err), FERRY_ETOOSMALL);
    EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, need, 100, &err), 1); /* exact fit */
    EQ(parse_page(page, e, &flags), 1);
    EQ(page_used(page), need);
    CHECK(flags & FERRY_PAGE_END);
    CHECK(e[0].vlen == 200 && memcmp(e[0].v, big, 200) == 0);
    /* reverse: k2 too big, then k1 */
    EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, 64, 100, &err), FERRY_ETOOSMALL);
    EQ(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, need - 1, 100, &err), FERRY_ETOOSMALL);
    EQ(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, need, 100, &err), 1); /* lower bound k2 stops */
    EQ(parse_page(page, e, &flags), 1);
    CHECK(flags & FERRY_PAGE_END);
    ferry_cursor_close(c);
    /* page fits one entry exactly, the second stops the fill without END */
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, 64, 100, &err), 1); /* k1 fits, k2 does not */
    EQ(parse_page(page, e, &flags), 1);
    CHECK(!(flags & FERRY_PAGE_END));
    EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(parse_page(page, e, &flags), 1);
    CHECK(e[0].klen == 2 && memcmp(e[0].k, "k2", 2) == 0 && (flags & FERRY_PAGE_END));
    ferry_cursor_close(c);
    ferry_store_close(s);
}

void test_many(void)
{
    ferry_store *s = open_store("many");
    uint32_t cf;
    EQ(ferry_cf_create(s, "many", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    /* one batch of NMANY puts */
    size_t cap = NMANY * 80, len = 0;
    uint8_t *batch = malloc(cap);
    for (int i = 0; i < NMANY; i++) {
        char k[16], v[64];
        many_key(i, k);
        uint32_t vl = (uint32_t)(i % 50), kl = (uint32_t)strlen(k), op = FERRY_OP_PUT;
        for (uint32_t x = 0; x < vl; x++) v[x] = (char)('a' + (i + (int)x) % 26);
        memcpy(batch + len, &op, 4); memcpy(batch + len + 4, &cf, 4);
        memcpy(batch + len + 8, &kl, 4); memcpy(batch + len + 12, &vl, 4);
        memcpy(batch + len + 16, k, kl); memcpy(batch + len + 16 + kl, v, vl);
        len += 16 + kl + vl;
    }
    EQ(ferry_write(s, batch, len, NMANY, 0, &err), FERRY_OK);
    free(batch);
    uint64_t n = 0;
    EQ(ferry_property_int(s, cf, "ferry.estimate-num-keys", &n, &err), FERRY_OK);
    EQ(n, NMANY);
    EQ(ferry_property_int(s, cf, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, NMANY);
    EQ(ferry_property_int(s, cf, "lmdb.max-key-size", &n, &err), FERRY_OK);
    EQ(n, 511);
    EQ(ferry_property_int(s, cf, "lmdb.map-size", &n, &err), FERRY_OK);
    EQ(n, 1 << 30);
    EQ(ferry_property_int(s, cf, "lmdb.max-readers", &n, &err), FERRY_OK);
    EQ(n, 126);
    EQ(ferry_property_int(s, cf, "lmdb.page-size", &n, &err), FERRY_OK);
    CHECK(n >= 4096);
    EQ(ferry_property_int(s, cf, "lmdb.depth", &n, &err), FERRY_OK);
    CHECK(n >= 2);
    EQ(ferry_property_int(s, cf, "no.such", &n, &err), FERRY_NOTFOUND);
    char text[512];
    size_t tl;
    EQ(ferry_property(s, cf, "lmdb.stat", text, sizeof text, &tl, &err), FERRY_OK);
    CHECK(strstr(text, "entries=1000") != NULL, "%s", text);
    EQ(ferry_property(s, cf, "lmdb.info", text, 8, &tl, &err), FERRY_OK);
    CHECK(tl > 7 && strlen(text) == 7);
    EQ(ferry_property(s, cf, "rocksdb.stats", text, sizeof text, &tl, &err), FERRY_NOTFOUND);

    char *fwd = expected(0, NMANY, 0), *rev = expected(0, NMANY, 1);
    size_t pages[] = { 96, 100, 256, 4096, 65536 };
    for (int mode = 0; mode < 2; mode++) {
        for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
            ferry_cursor *c;
            EQ(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, mode ? FERRY_CURSOR_POINTERS : 0, &c, &err), FERRY_OK);
            scan a = scan_all(c, FERRY_FIRST, NULL, 0, pages[p], 1000000);
            CHECK(a.err == 0 && a.n == NMANY && strcmp(a.text, fwd) == 0, "mode %d page %zu: err %d n %d", mode, pages[p], a.err, a.n);
            scan b = scan_all(c, FERRY_LAST, NULL, 0, pages[p], 1000000);
            CHECK(b.err == 0 && b.n == NMANY && strcmp(b.text, rev) == 0, "mode %d page %zu reverse: err %d n %d", mode, pages[p], b.err, b.n);
            scan m = scan_all(c, FERRY_FIRST, NULL, 0, pages[p], 7);
            CHECK(m.err == 0 && m.n == NMANY && strcmp(m.text, fwd) == 0 && m.pages >= NMANY / 7, "max 7, mode %d: pages %d", mode, m.pages);
            free(a.text); free(b.text); free(m.text);
            ferry_cursor_close(c);
        }
    }
    free(fwd); free(rev);

    /* pointer mode sets FERRY_PAGE_POINTERS and yields the same bytes */
    ferry_cursor *c;
    uint8_t page[512];
    entry e[32];
    uint32_t flags;
    EQ(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 1000, &err), (512 - FERRY_PAGE_HEADER) / FERRY_PTR_ENTRY);
    parse_page(page, e, &flags);
    CHECK(flags & FERRY_PAGE_POINTERS);
    ferry_cursor_close(c);

    /* bounds [key00100, key00200) */
    EQ(ferry_cursor_open(s, NULL, cf, "key00100", 8, "key00200", 8, 0, &c, &err), FERRY_OK);
    fwd = expected(100, 200, 0);
    rev = expected(100, 200, 1);
    scan a = scan_all(c, FERRY_FIRST, NULL, 0, 300, 1000);
    CHECK(a.err == 0 && strcmp(a.text, fwd) == 0, "bounded forward n %d", a.n);
    scan b = scan_all(c, FERRY_LAST, NULL, 0, 300, 1000);
    CHECK(b.err == 0 && strcmp(b.text, rev) == 0, "bounded reverse n %d", b.n);
    free(a.text); free(b.text); free(fwd); free(rev);
    CHECK(first_key_is(c, FERRY_SEEK_GE, "key00050", "key00100"));
    CHECK(first_key_is(c, FERRY_SEEK_GT, "key00050", "key00100"));
    CHECK(first_key_is(c, FERRY_SEEK_GE, "key00150", "key00150"));
    CHECK(first_key_is(c, FERRY_SEEK_GT, "key00150", "key00151"));
    CHECK(first_key_is(c, FERRY_SEEK_GE, "key00150x", "key00151"));
    CHECK(first_key_is(c, FERRY_SEEK_GT, "key00150x", "key00151"));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "key00150", "key00150"));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00150", "key00149"));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "key00150x", "key00150"));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00150x", "key00150"));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "key00500", "key00199"));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00500", "key00199"));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00200", "key00199"));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "key00200", "key00199"));
    CHECK(first_key_is(c, FERRY_SEEK_GE, "key00200", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00100", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "key00099", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_GE, "", "key00100"));
    ferry_cursor_close(c);
    /* unbounded seeks at the edges */
    EQ(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK(first_key_is(c, FERRY_SEEK_GT, "key00999", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_GE, "zzz", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "zzz", "key00999"));
    CHECK(first_key_is(c, FERRY_SEEK_LT, "key00000", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_LE, "", NULL));
    CHECK(first_key_is(c, FERRY_SEEK_GT, "", "key00000"));
    /* a seek key longer than LMDB's maximum still orders correctly */
    char longk[700];
    memset(longk, 'k', sizeof longk - 1);
    longk[sizeof longk - 1] = '\0';
    CHECK(first_key_is(c, FERRY_SEEK_LE, longk, "key00999"));
    CHECK(first_key_is(c, FERRY_SEEK_GE, longk, NULL));
    /* reverse SEEK then PREV continues without skipping */
    scan r = scan_all(c, FERRY_SEEK_LT, "key00010", 8, 64, 3);
    rev = expected(0, 10, 1);
    CHECK(r.err == 0 && strcmp(r.text, rev) == 0, "%s", r.text);
    free(r.text); free(rev);
    ferry_cursor_close(c);
    ferry_store_close(s);
}

void test_binary_and_get(void)
{
    ferry_store *s = open_store("binary");
    static const uint8_t keys[][3] = { { 0x00 }, { 0x00, 0x00 }, { 0x01 }, { 0x7f }, { 0x80 }, { 0xff }, { 0xff, 0x00 }, { 0xff, 0xff } };
    static const size_t lens[] = { 1, 2, 1, 1, 1, 1, 2, 2 };
    int nk = 8;
    for (int i = nk - 1; i >= 0; i--) EQ(ferry_put(s, 0, keys[i], lens[i], NULL, 0, 0, &err), FERRY_OK);
    ferry_cursor *c;
    uint8_t page[1024];
    entry e[16];
    uint32_t flags;
    for (int mode = 0; mode < 2; mode++) {
        EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, mode ? FERRY_CURSOR_POINTERS : 0, &c, &err), FERRY_OK);
        EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), nk);
        parse_page(page, e, &flags);
        int ok = 1;
        for (int i = 0; i < nk; i++) ok &= e[i].klen == lens[i] && memcmp(e[i].k, keys[i], lens[i]) == 0 && e[i].vlen == 0;
        CHECK(ok, "binary key order, mode %d", mode);
        EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), nk);
        parse_page(page, e, &flags);
        ok = 1;
        for (int i = 0; i < nk; i++) ok &= e[i].klen == lens[nk - 1 - i] && memcmp(e[i].k, keys[nk - 1 - i], lens[nk - 1 - i]) == 0;
        CHECK(ok, "binary reverse order, mode %d", mode);
        ferry_cursor_close(c);
    }
    /* bounds with binary keys: [0x00 0x00, 0xff) */
    EQ(ferry_cursor_open(s, NULL, 0, keys[1], 2, keys[5], 1, 0, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 4);
    EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), 4);
    parse_page(page, e, &flags);
    CHECK(e[0].klen == 1 && e[0].k[0] == 0x80 && e[3].klen == 2 && e[3].k[1] == 0x00);
    ferry_cursor_close(c);

    /* get: found, 0-byte value, truncation, not found */
    char buf[64];
    size_t vlen = 99;
    EQ(ferry_get(s, NULL, 0, keys[0], 1, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    EQ(vlen, 0);
    EQ(put_s(s, 0, "name", "value-123"), FERRY_OK);
    EQ(get_s(s, NULL, 0, "name", buf, sizeof buf), 9);
    CHECK(strcmp(buf, "value-123") == 0);
    memset(buf, 0, sizeof buf);
    EQ(ferry_get(s, NULL, 0, "name", 4, 0, buf, 3, &vlen, &err), FERRY_OK);
    EQ(vlen, 9);
    CHECK(memcmp(buf, "val\0", 4) == 0);
    EQ(ferry_get(s, NULL, 0, "name", 4, 0, NULL, 0, &vlen, &err), FERRY_OK);
    EQ(vlen, 9);
    EQ(get_s(s, NULL, 0, "nope", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_get(s, NULL, 0, NULL, 0, 0, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    EQ(ferry_get(s, NULL, 7, "name", 4, 0, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);

    /* multi_get: "name" (9), missing, "m2" (5) */
    EQ(put_s(s, 0, "m2", "fiver"), FERRY_OK);
    uint8_t keybuf[64];
    size_t kl = 0;
    const char *mk[] = { "name", "missing", "m2" };
    for (int i = 0; i < 3; i++) {
        uint32_t l = (uint32_t)strlen(mk[i]);
        memcpy(keybuf + kl, &l, 4);
        memcpy(keybuf + kl + 4, mk[i], l);
        kl += 4 + l;
    }
    int64_t ml[3];
    char mv[32];
    EQ(ferry_multi_get(s, NULL, 0, 3, keybuf, kl, 0, mv, 14, ml, &err), 3);
    CHECK(ml[0] == 9 && ml[1] == -1 && ml[2] == 5 && memcmp(mv, "value-123fiver", 14) == 0);
    EQ(ferry_multi_get(s, NULL, 0, 3, keybuf, kl, 0, mv, 13, ml, &err), 2);
    CHECK(ml[0] == 9 && ml[1] == -1);
    EQ(ferry_multi_get(s, NULL, 0, 3, keybuf, kl, 0, mv, 4, ml, &err), FERRY_ETOOSMALL);
    EQ(ml[0], 9);
    EQ(ferry_multi_get(s, NULL, 0, 3, keybuf, kl - 1, 0, mv, 14, ml, &err), FERRY_EINVAL);
    ferry_store_close(s);
}

/* A pointer page ends once the data it points to reaches FERRY_PTR_SPAN; the scan goes on
 * without loss, and an entry larger than the span closes its page. */
void test_pointer_span(void)
{
    ferry_store *s = open_store("span");
    enum { N = 100, VLEN = 4096, BIG = 200 * 1024 };
    uint8_t *val = malloc(BIG);
    char key[16];
    for (int i = 0; i < N; i++) {
        memset(val, 'a' + i % 26, VLEN);
        snprintf(key, sizeof key, "k%07d", i); /* 8-byte keys */
        EQ(ferry_put(s, 0, key, 8, val, i == 50 ? BIG : VLEN, 0, &err), FERRY_OK);
    }
    static uint8_t page[64 * 1024];
    static entry e[4096];
    uint32_t flags;
    ferry_cursor *c;
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &err), FERRY_OK);
    /* 8 + 4096 bytes per entry: the span is reached with the 32nd entry (31 x 4104 < 128 KiB <= 32 x 4104) */
    int per_page = (FERRY_PTR_SPAN + 8 + VLEN - 1) / (8 + VLEN);
    int rc = ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100000, &err);
    EQ(rc, per_page);
    parse_page(page, e, &flags);
    CHECK(!(flags & FERRY_PAGE_END) && (flags & FERRY_PAGE_POINTERS));
    int seen = rc, pages = 1, alone = 0, ok = 1;
    for (int i = 0; i < rc; i++) {
        snprintf(key, sizeof key, "k%07d", i);
        ok &= e[i].klen == 8 && memcmp(e[i].k, key, 8) == 0 && e[i].vlen == VLEN;
    }
    while (!(flags & FERRY_PAGE_END)) {
        rc = ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100000, &err);
        if (rc < 0) { ok = 0; break; }
        parse_page(page, e, &flags);
        for (int i = 0; i < rc; i++) {
            snprintf(key, sizeof key, "k%07d", seen + i);
            ok &= e[i].klen == 8 && memcmp(e[i].k, key, 8) == 0 && e[i].v[0] == 'a' + (seen + i) % 26;
            if (seen + i == 50) alone = i == rc - 1 && e[i].vlen == BIG;
        }
        seen += rc;
        pages++;
    }
    CHECK(ok, "entries in order, none lost");
    EQ(seen, N);
    CHECK(alone, "the entry larger than the span is the last of its page");
    CHECK(pages > 3, "pages %d", pages);
    ferry_cursor_close(c);
    free(val);
    ferry_store_close(s);
}

/* A value over FERRY_ENTRY_MAX (2 GiB - 1), which no Java view or array holds. Written with LMDB
 * itself: MDB_RESERVE on a WRITEMAP map leaves the value's pages unwritten (a sparse file), so the
 * test costs two touched pages, not 2 GiB. Pointer and copy fills stop before it and report the
 * page it needs (beyond what Java allocates); entries on either side still come through. */
void test_huge_value(const char *lib)
{
    plat_lib *h = plat_lib_find(lib);
    CHECK(h != NULL, "liblmdb loaded");
    if (!h) return;
    int (*env_create)(MDB_env **) = (int (*)(MDB_env **))plat_lib_sym(h, "mdb_env_create");
    int (*set_mapsize)(MDB_env *, size_t) = (int (*)(MDB_env *, size_t))plat_lib_sym(h, "mdb_env_set_mapsize");
    int (*env_open)(MDB_env *, const char *, unsigned, ferry_mdb_mode) =
        (int (*)(MDB_env *, const char *, unsigned, ferry_mdb_mode))plat_lib_sym(h, "mdb_env_open");
    void (*env_close)(MDB_env *) = (void (*)(MDB_env *))plat_lib_sym(h, "mdb_env_close");
    int (*txn_begin)(MDB_env *, MDB_txn *, unsigned, MDB_txn **) =
        (int (*)(MDB_env *, MDB_txn *, unsigned, MDB_txn **))plat_lib_sym(h, "mdb_txn_begin");
    int (*txn_commit)(MDB_txn *) = (int (*)(MDB_txn *))plat_lib_sym(h, "mdb_txn_commit");
    int (*dbi_open)(MDB_txn *, const char *, unsigned, MDB_dbi *) =
        (int (*)(MDB_txn *, const char *, unsigned, MDB_dbi *))plat_lib_sym(h, "mdb_dbi_open");
    int (*put)(MDB_txn *, MDB_dbi, MDB_val *, MDB_val *, unsigned) =
        (int (*)(MDB_txn *, MDB_dbi, MDB_val *, MDB_val *, unsigned))plat_lib_sym(h, "mdb_put");
    plat_lib_close(h);   /* the engine holds its own reference */
    const size_t HUGE = (size_t)FERRY_ENTRY_MAX + 9;
    const char *dir = dir_of("huge");
    CHECK(plat_mkdir(dir) == 0);
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    EQ(env_create(&env), MDB_SUCCESS);
    EQ(set_mapsize(env, HUGE + (64u << 20)), MDB_SUCCESS);
    EQ(env_open(env, dir, MDB_WRITEMAP | MDB_NOSYNC, 0644), MDB_SUCCESS);
    EQ(txn_begin(env, NULL, 0, &txn), MDB_SUCCESS);
    EQ(dbi_open(txn, NULL, 0, &dbi), MDB_SUCCESS);
    MDB_val k = { 1, "a" }, v = { 1, "1" };
    EQ(put(txn, dbi, &k, &v, 0), MDB_SUCCESS);
    k.mv_data = "c";
    v.mv_data = "3";
    EQ(put(txn, dbi, &k, &v, 0), MDB_SUCCESS);
    k.mv_data = "b";
    v.mv_size = HUGE;
    EQ(put(txn, dbi, &k, &v, 0x10000 /* MDB_RESERVE */), MDB_SUCCESS);
    ((uint8_t *)v.mv_data)[0] = 'x';
    ((uint8_t *)v.mv_data)[HUGE - 1] = 'y';
    EQ(txn_commit(txn), MDB_SUCCESS);
    env_close(env);

    ferry_store *s = open_store("huge");
    size_t need = FERRY_PAGE_HEADER + ((8 + 1 + HUGE + 7) & ~(size_t)7);
    static uint8_t page[4096];
    entry e[8];
    uint32_t flags;
    for (int ptr = 0; ptr < 2; ptr++) {
        ferry_cursor *c;
        EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, ptr ? FERRY_CURSOR_POINTERS : 0, &c, &err), FERRY_OK);
        /* forward: "a", then the fill that would start with "b" reports the page it needs */
        EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
        parse_page(page, e, &flags);
        CHECK(e[0].klen == 1 && e[0].k[0] == 'a' && !(flags & FERRY_PAGE_END), "ptr=%d", ptr);
        EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), FERRY_ETOOSMALL);
        uint64_t reported;
        memcpy(&reported, page + 8, 8);
        EQ(reported, need);
        CHECK(reported > (uint64_t)INT32_MAX, "ptr=%d: the page it needs is beyond a Java buffer", ptr);
        /* asking again gives the same answer (the fill does not skip or loop) */
        EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), FERRY_ETOOSMALL);
        /* a seek past it goes on to "c", the end */
        EQ(ferry_cursor_fill(c, FERRY_SEEK_GT, "b", 1, page, sizeof page, 100, &err), 1);
        parse_page(page, e, &flags);
        CHECK(e[0].klen == 1 && e[0].k[0] == 'c' && (flags & FERRY_PAGE_END), "ptr=%d", ptr);
        /* reverse: "c", then the same report for "b" */
        EQ(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), 1);
        EQ(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, sizeof page, 100, &err), FERRY_ETOOSMALL);
        memcpy(&reported, page + 8, 8);
        EQ(reported, need);
        ferry_cursor_close(c);
    }
    /* a point read reports the whole length and copies what fits */
    char dst[4] = { 0 };
    size_t vlen = 0;
    EQ(ferry_get(s, NULL, 0, "b", 1, 0, dst, sizeof dst, &vlen, &err), FERRY_OK);
    EQ(vlen, HUGE);
    EQ(dst[0], 'x');
    ferry_store_close(s);
    char path[1100];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    CHECK(plat_unlink(path) == 0, "remove the 2 GiB sparse file");
}

/* The direct leaf-page walk (engine_lmdb.c) against LMDB's own steps (FERRY_CURSOR_ENGINE_STEPS):
 * the same entries in the same order for every mode, direction, page size, entry limit, range and
 * seek, over pages that mix small values with overflow values (nodes the walk leaves to LMDB). */
void test_page_walk(void)
{
    ferry_store *s = open_store("walk");
    enum { N = 3000 };
    static uint8_t val[6000];
    char key[32];
    for (int i = 0; i < N; i++) {
        /* keys of varying length, values 0-120 bytes; every 97th value overflows a 4 KiB page */
        int kl = snprintf(key, sizeof key, "w%05d%.*s", i, i % 7, "xxxxxxx");
        size_t vl = i % 97 == 13 ? 5000 : (size_t)(i * 7 % 121);
        for (size_t x = 0; x < vl; x++) val[x] = (uint8_t)(i + x);
        EQ(ferry_put(s, 0, key, (size_t)kl, val, vl, 0, &err), FERRY_OK);
    }
    uint64_t walked0 = 0, walked = 0;
    EQ(ferry_property_int(s, 0, "lmdb.walked-pages", &walked0, &err), FERRY_OK);
    /* copy pages must hold a 5000-byte value; pointer pages hold any entry in 24 bytes */
    size_t pages[] = { 100, 256, 8192, 65536 };
    uint32_t maxes[] = { 1, 7, 16, 17, 40, 1000000 };
    int ok = 1, runs = 0;
    for (int mode = 0; mode < 2; mode++) {
        uint32_t fl = mode ? FERRY_CURSOR_POINTERS : 0;
        for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
            if (!mode && pages[p] < 8192) continue;
            for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
                for (int dir = 0; dir < 2; dir++) {
                    ferry_cursor *cw, *ce;
                    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, fl, &cw, &err), FERRY_OK);
                    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, fl | FERRY_CURSOR_ENGINE_STEPS, &ce, &err), FERRY_OK);
                    int op = dir ? FERRY_LAST : FERRY_FIRST;
                    scan a = scan_all(cw, op, NULL, 0, pages[p], maxes[m]);
                    scan b = scan_all(ce, op, NULL, 0, pages[p], maxes[m]);
                    int same = a.err == 0 && b.err == 0 && a.n == N && b.n == N && a.len == b.len && memcmp(a.text, b.text, a.len) == 0;
                    CHECK(same, "mode %d page %zu max %u dir %d: err %d/%d n %d/%d", mode, pages[p], maxes[m], dir, a.err, b.err, a.n, b.n);
                    ok &= same;
                    /* seeks into the middle of pages, then on to the end */
                    const char *at = dir ? "w01777" : "w00555";
                    scan c = scan_all(cw, dir ? FERRY_SEEK_LT : FERRY_SEEK_GE, at, 6, pages[p], maxes[m]);
                    scan d = scan_all(ce, dir ? FERRY_SEEK_LT : FERRY_SEEK_GE, at, 6, pages[p], maxes[m]);
                    same = c.err == 0 && c.n == (dir ? 1777 : N - 555) && c.len == d.len && memcmp(c.text, d.text, c.len) == 0;
                    CHECK(same, "seek: mode %d page %zu max %u dir %d: n %d/%d", mode, pages[p], maxes[m], dir, c.n, d.n);
                    free(a.text); free(b.text); free(c.text); free(d.text);
                    ferry_cursor_close(cw);
                    ferry_cursor_close(ce);
                    runs++;
                }
            }
        }
    }
    /* ranges whose bounds fall inside pages (key 100 is "w00100xx", inside) */
    for (int dir = 0; dir < 2; dir++) {
        ferry_cursor *cw, *ce;
        EQ(ferry_cursor_open(s, NULL, 0, "w00100x", 7, "w02345", 6, FERRY_CURSOR_POINTERS, &cw, &err), FERRY_OK);
        EQ(ferry_cursor_open(s, NULL, 0, "w00100x", 7, "w02345", 6, FERRY_CURSOR_POINTERS | FERRY_CURSOR_ENGINE_STEPS, &ce, &err), FERRY_OK);
        scan a = scan_all(cw, dir ? FERRY_LAST : FERRY_FIRST, NULL, 0, 65536, 1000000);
        scan b = scan_all(ce, dir ? FERRY_LAST : FERRY_FIRST, NULL, 0, 65536, 1000000);
        CHECK(a.err == 0 && a.n == 2345 - 100 && a.len == b.len && memcmp(a.text, b.text, a.len) == 0, "range dir %d: n %d/%d", dir, a.n, b.n);
        free(a.text); free(b.text);
        ferry_cursor_close(cw);
        ferry_cursor_close(ce);
    }
    EQ(ferry_property_int(s, 0, "lmdb.walked-pages", &walked, &err), FERRY_OK);
    CHECK(walked > walked0 + 1000, "the walk ran: %llu pages", (unsigned long long)(walked - walked0));
    /* FERRY_CURSOR_ENGINE_STEPS alone walks nothing */
    ferry_cursor *ce;
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS | FERRY_CURSOR_ENGINE_STEPS, &ce, &err), FERRY_OK);
    scan e = scan_all(ce, FERRY_FIRST, NULL, 0, 65536, 1000000);
    EQ(e.n, N);
    free(e.text);
    ferry_cursor_close(ce);
    EQ(ferry_property_int(s, 0, "lmdb.walked-pages", &walked0, &err), FERRY_OK);
    EQ(walked0, walked);
    ferry_store_close(s);
}
