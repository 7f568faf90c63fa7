/* Native tests of the LMDB engine: test_lmdb <liblmdb.so> <scratch dir>. */
#include "ferry.h"
#include "lmdb_api.h"
#include "test_files.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;
static ferry_error err;
static const char *scratch;

#define CHECK(cond, ...) check_((cond), __LINE__, #cond, "" __VA_ARGS__)
#define EQ(a, b) eq_((long long)(a), (long long)(b), __LINE__, #a " == " #b)

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

/* EQ: evaluates each side once; prints both values and the last error message. */
static void eq_(long long a, long long b, int line, const char *expr)
{
    check_(a == b, line, expr, "%lld != %lld (%s)", a, b, err.message);
}

/* ---- helpers ---- */

static char *dir_of(const char *name)
{
    static char buf[4][1024];
    static int i;
    char *b = buf[i++ & 3];
    snprintf(b, 1024, "%s/%s", scratch, name);
    return b;
}

static void opts_init(int64_t *o)
{
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
}

static ferry_store *open_with(const char *name, const int64_t *o, int *rc_out)
{
    ferry_store *s = NULL;
    int rc = ferry_store_open(FERRY_ENGINE_LMDB, dir_of(name), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err);
    if (rc_out) *rc_out = rc;
    return s;
}

static ferry_store *open_store(const char *name)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    int rc;
    ferry_store *s = open_with(name, o, &rc);
    if (rc) { printf("cannot open %s: %d %s\n", name, rc, err.message); exit(2); }
    return s;
}

static int put_s(ferry_store *s, uint32_t cf, const char *k, const char *v)
{
    return ferry_put(s, cf, k, strlen(k), v, strlen(v), 0, &err);
}

static int get_s(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *k, char *dst, size_t cap)
{
    size_t vlen = 0;
    memset(dst, 0, cap);
    int rc = ferry_get(s, snap, cf, k, strlen(k), 0, dst, cap - 1, &vlen, &err);
    return rc == FERRY_OK ? (int)vlen : rc;
}

typedef struct entry { const uint8_t *k, *v; uint32_t klen, vlen; } entry;

/* Parse a filled page into entries (copy or pointer mode). Returns the count. */
static uint32_t parse_page(const uint8_t *page, entry *out, uint32_t *flags)
{
    uint32_t count;
    memcpy(&count, page, 4);
    memcpy(flags, page + 4, 4);
    const uint8_t *p = page + FERRY_PAGE_HEADER;
    for (uint32_t i = 0; i < count; i++) {
        if (*flags & FERRY_PAGE_POINTERS) {
            uint64_t ka, va;
            memcpy(&ka, p, 8); memcpy(&out[i].klen, p + 8, 4); memcpy(&out[i].vlen, p + 12, 4); memcpy(&va, p + 16, 8);
            out[i].k = (const uint8_t *)(uintptr_t)ka;
            out[i].v = (const uint8_t *)(uintptr_t)va;
            p += FERRY_PTR_ENTRY;
        } else {
            memcpy(&out[i].klen, p, 4); memcpy(&out[i].vlen, p + 4, 4);
            out[i].k = p + 8;
            out[i].v = p + 8 + out[i].klen;
            p += (8 + out[i].klen + out[i].vlen + 7) & ~(size_t)7;
        }
    }
    return count;
}

static uint64_t page_used(const uint8_t *page)
{
    uint64_t u;
    memcpy(&u, page + 8, 8);
    return u;
}

/* A whole scan, its entries copied out: "key=value" strings joined by ','. */
typedef struct scan { char *text; size_t len, cap; int n, pages, err; } scan;

static void scan_add(scan *sc, const entry *e)
{
    size_t need = sc->len + e->klen + e->vlen + 3;
    if (need > sc->cap) { sc->cap = need * 2; sc->text = realloc(sc->text, sc->cap); }
    memcpy(sc->text + sc->len, e->k, e->klen); sc->len += e->klen;
    sc->text[sc->len++] = '=';
    memcpy(sc->text + sc->len, e->v, e->vlen); sc->len += e->vlen;
    sc->text[sc->len++] = ',';
    sc->text[sc->len] = '\0';
    sc->n++;
}

/* Scan with op (FIRST/LAST/SEEK_*) then NEXT/PREV until the end. */
static scan scan_all(ferry_cursor *c, int op, const void *key, size_t klen, size_t page_cap, uint32_t max)
{
    scan sc = { calloc(1, 1), 0, 1, 0, 0, 0 };
    uint8_t *page = malloc(page_cap);
    entry *es = malloc(sizeof(entry) * (page_cap / FERRY_PTR_ENTRY + 1));
    int cont = (op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT) ? FERRY_NEXT : FERRY_PREV;
    for (int guard = 0; guard < 100000; guard++) {
        int rc = ferry_cursor_fill(c, op, key, klen, page, page_cap, max, &err);
        if (rc < 0) { sc.err = rc; break; }
        uint32_t flags;
        uint32_t n = parse_page(page, es, &flags);
        if (n != (uint32_t)rc || n > max) { sc.err = -1; break; }
        sc.pages++;
        for (uint32_t i = 0; i < n; i++) scan_add(&sc, &es[i]);
        if (flags & FERRY_PAGE_END) break;
        if (n == 0) { sc.err = -2; break; } /* no progress without END */
        op = cont;
    }
    free(page);
    free(es);
    return sc;
}

static int first_key_is(ferry_cursor *c, int op, const char *key, const char *want)
{
    uint8_t page[256];
    entry e[8];
    uint32_t flags;
    int rc = ferry_cursor_fill(c, op, key, key ? strlen(key) : 0, page, sizeof page, 1, &err);
    if (rc < 0) return 0;
    if (parse_page(page, e, &flags) == 0) return want == NULL;
    return want && e[0].klen == strlen(want) && memcmp(e[0].k, want, e[0].klen) == 0;
}

/* ---- tests ---- */

static void test_attach(const char *lib)
{
    EQ(ferry_engine_attach(FERRY_ENGINE_LMDB, "/nonexistent/liblmdb.so", &err), FERRY_ENOENGINE);
    char path[1024];
    EQ(ferry_engine_path(FERRY_ENGINE_LMDB, path, sizeof path), FERRY_ENOENGINE);
    ferry_store *s = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("x"), NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_ENOENGINE);
    EQ(ferry_engine_attach(FERRY_ENGINE_LMDB, lib, &err), FERRY_OK);
    EQ(ferry_engine_attach(FERRY_ENGINE_LMDB, lib, &err), FERRY_OK);
    EQ(ferry_engine_path(FERRY_ENGINE_LMDB, path, sizeof path), strlen(lib));
    CHECK(strcmp(path, lib) == 0);
    /* a second copy of the library is refused */
    char copy[1200];
    snprintf(copy, sizeof copy, "%s/copy-liblmdb.so", scratch);
    if (test_copy_file(lib, copy) == 0) EQ(ferry_engine_attach(FERRY_ENGINE_LMDB, copy, &err), FERRY_EDUPENGINE);
}

static void test_page_edges(void)
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

#define NMANY 1000

static void many_key(int i, char *k) { snprintf(k, 16, "key%05d", i); }

/* Expected scan text over keys [from, to) forward or reverse. */
static char *expected(int from, int to, int reverse)
{
    size_t cap = (size_t)(to - from + 1) * 80 + 1;
    char *t = malloc(cap);
    size_t len = 0;
    t[0] = '\0';
    for (int j = 0; j < to - from; j++) {
        int i = reverse ? to - 1 - j : from + j;
        char k[16];
        many_key(i, k);
        len += (size_t)snprintf(t + len, cap - len, "%s=", k);
        for (int x = 0; x < i % 50; x++) t[len++] = (char)('a' + (i + x) % 26);
        t[len++] = ',';
        t[len] = '\0';
    }
    return t;
}

static void test_many(void)
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

static void test_binary_and_get(void)
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

/* Append one batch record. */
static size_t rec(uint8_t *b, size_t len, uint32_t op, uint32_t cf, const void *a, uint32_t alen, const void *bb, uint32_t blen)
{
    memcpy(b + len, &op, 4); memcpy(b + len + 4, &cf, 4); memcpy(b + len + 8, &alen, 4); memcpy(b + len + 12, &blen, 4);
    if (alen) memcpy(b + len + 16, a, alen);
    if (blen) memcpy(b + len + 16 + alen, bb, blen);
    return len + 16 + alen + blen;
}

static void test_writes(void)
{
    ferry_store *s = open_store("writes");
    char buf[64], longk[600];
    memset(longk, 'x', sizeof longk);
    /* key size checks */
    EQ(ferry_put(s, 0, longk, 512, "v", 1, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "512 bytes exceeds LMDB's maximum of 511") != NULL, "%s", err.message);
    EQ(ferry_put(s, 0, longk, 511, "v", 1, 0, &err), FERRY_OK);
    EQ(ferry_put(s, 0, NULL, 0, "v", 1, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_put(s, 0, "", 0, "v", 1, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_delete(s, 0, longk, 512, &err), FERRY_EKEYSIZE);
    EQ(ferry_delete(s, 0, "absent", 6, &err), FERRY_OK);
    EQ(ferry_delete(s, 0, longk, 511, &err), FERRY_OK);
    EQ(ferry_get(s, NULL, 0, longk, 511, 0, buf, sizeof buf, &(size_t){ 0 }, &err), FERRY_NOTFOUND);
    /* no merge operators, no SST ingestion */
    EQ(ferry_merge(s, 0, "m", 1, "v", 1, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "LMDB") != NULL, "%s", err.message);
    EQ(ferry_ingest(s, 0, "x.sst", 6, 1, 0, &err), FERRY_ENOTSUP);

    /* a merge record fails the whole batch */
    {
        uint8_t mb[64];
        size_t ml = rec(mb, 0, FERRY_OP_PUT, 0, "mp", 2, "v", 1);
        ml = rec(mb, ml, FERRY_OP_MERGE, 0, "mm", 2, "v", 1);
        EQ(ferry_write(s, mb, ml, 2, 0, &err), FERRY_ENOTSUP);
        EQ(ferry_get(s, NULL, 0, "mp", 2, 0, buf, sizeof buf, &(size_t){ 0 }, &err), FERRY_NOTFOUND);
    }

    /* batch atomicity: the last record's key is too long -> nothing applied */
    uint32_t fam;
    EQ(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &fam, &err), FERRY_OK);
    uint8_t b[4096];
    size_t len = 0;
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    len = rec(b, len, FERRY_OP_PUT, fam, "b2", 2, "two", 3);
    len = rec(b, len, FERRY_OP_PUT, 0, longk, 600, "x", 1);
    EQ(ferry_write(s, b, len, 3, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "record 2") != NULL, "%s", err.message);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, fam, "b2", buf, sizeof buf), FERRY_NOTFOUND);
    /* an engine failure mid-batch (a put over the key naming family "fam") aborts it all */
    len = 0;
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    len = rec(b, len, FERRY_OP_PUT, fam, "b2", 2, "two", 3);
    len = rec(b, len, FERRY_OP_PUT, 0, "fam", 3, "clobber", 7);
    CHECK(ferry_write(s, b, len, 3, 0, &err) < 0, "%s", err.message);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, fam, "b2", buf, sizeof buf), FERRY_NOTFOUND);
    /* malformed batches */
    len = rec(b, 0, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len - 1, 1, 0, &err), FERRY_EINVAL);
    EQ(ferry_write(s, b, len, 2, 0, &err), FERRY_EINVAL);
    EQ(ferry_write(s, b, 10, 1, 0, &err), FERRY_EINVAL);
    len = rec(b, 0, 9, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 1, 0, &err), FERRY_EINVAL);
    len = rec(b, 0, FERRY_OP_PUT, 99, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 1, 0, &err), FERRY_EINVAL);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    /* a good batch: put, delete, delete range */
    len = 0;
    char k[8];
    for (int i = 0; i < 10; i++) { snprintf(k, sizeof k, "r%d", i); len = rec(b, len, FERRY_OP_PUT, fam, k, 2, "v", 1); }
    len = rec(b, len, FERRY_OP_DELETE, fam, "r9", 2, NULL, 0);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "r1", 2, "r3", 2);
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 13, 0, &err), FERRY_OK);
    EQ(ferry_write(s, b, 0, 0, 0, &err), FERRY_OK);
    uint64_t n;
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 7); /* r0 r3 r4 r5 r6 r7 r8 */
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), 3);
    /* delete_range [r4, r7) */
    EQ(ferry_delete_range(s, fam, "r4", 2, "r7", 2, &err), FERRY_OK);
    ferry_cursor *c;
    EQ(ferry_cursor_open(s, NULL, fam, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    scan sc = scan_all(c, FERRY_FIRST, NULL, 0, 4096, 100);
    CHECK(strcmp(sc.text, "r0=v,r3=v,r7=v,r8=v,") == 0, "%s", sc.text);
    free(sc.text);
    ferry_cursor_close(c);
    EQ(ferry_delete_range(s, fam, "r3", 2, "\xff", 1, &err), FERRY_OK);
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_delete_range(s, fam, NULL, 0, "\xff", 1, &err), FERRY_OK); /* empty begin: the smallest key */
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 0);
    EQ(ferry_flush(s, 0, &err), FERRY_OK);
    EQ(ferry_compact_range(s, 0, NULL, 0, NULL, 0, &err), FERRY_OK);
    ferry_store_close(s);
}

/* Keys of family cf in order, "k,k,...," (at most cap bytes). */
static const char *keys_of(ferry_store *s, uint32_t cf)
{
    static char out[1024];
    ferry_cursor *c;
    out[0] = '\0';
    if (ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err) != FERRY_OK) return "(cursor failed)";
    uint8_t page[4096];
    entry e[128];
    uint32_t flags;
    if (ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 128, &err) >= 0) {
        uint32_t n = parse_page(page, e, &flags);
        size_t len = 0;
        for (uint32_t i = 0; i < n && len + e[i].klen + 2 < sizeof out; i++) {
            memcpy(out + len, e[i].k, e[i].klen);
            len += e[i].klen;
            out[len++] = ',';
            out[len] = '\0';
        }
    }
    ferry_cursor_close(c);
    return out;
}

/* [begin, end) with begin >= end in unsigned byte order is empty: a no-op, alone or in a
 * batch, whatever the end's pointer (an empty end is the empty key, not an open bound). */
static void test_empty_ranges(void)
{
    ferry_store *s = open_store("empty-ranges");
    uint32_t fam;
    EQ(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &fam, &err), FERRY_OK);
    const char *ks[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        EQ(put_s(s, 0, ks[i], "v"), FERRY_OK);
        EQ(put_s(s, fam, ks[i], "v"), FERRY_OK);
    }
    for (int f = 0; f < 2; f++) {
        uint32_t cf = f ? fam : 0;
        const char *all = f ? "a,b,c,d," : "a,b,c,d,fam,";
        EQ(ferry_delete_range(s, cf, "c", 1, "a", 1, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "reversed range: %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, NULL, 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "[b, NULL): %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, "", 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "[b, \"\"): %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, "b", 1, &err), FERRY_OK);
        EQ(ferry_delete_range(s, cf, "bb", 2, "b", 1, &err), FERRY_OK);
        EQ(ferry_delete_range(s, cf, NULL, 0, NULL, 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "empty ranges: %s", keys_of(s, cf));
    }
    /* in a batch: the empty ranges are skipped, the other records applied */
    uint8_t b[512];
    size_t len = 0;
    len = rec(b, len, FERRY_OP_PUT, fam, "e", 1, "v", 1);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "c", 1, "a", 1);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "b", 1, NULL, 0);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, 0, "a", 1, NULL, 0);
    len = rec(b, len, FERRY_OP_PUT, fam, "f", 1, "v", 1);
    EQ(ferry_write(s, b, len, 5, 0, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "a,b,c,d,e,f,") == 0, "batch: %s", keys_of(s, fam));
    CHECK(strcmp(keys_of(s, 0), "a,b,c,d,fam,") == 0, "batch: %s", keys_of(s, 0));
    /* a cursor below the empty key sees nothing; a NULL bound is no bound */
    ferry_cursor *cur;
    uint8_t page[256];
    EQ(ferry_cursor_open(s, NULL, fam, NULL, 0, "", 0, 0, &cur, &err), FERRY_OK);
    EQ(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 0);
    EQ(ferry_cursor_fill(cur, FERRY_LAST, NULL, 0, page, sizeof page, 10, &err), 0);
    EQ(ferry_cursor_fill(cur, FERRY_SEEK_GE, "a", 1, page, sizeof page, 10, &err), 0);
    ferry_cursor_close(cur);
    EQ(ferry_cursor_open(s, NULL, fam, "", 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    EQ(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 6);
    ferry_cursor_close(cur);
    /* an empty begin is the smallest key */
    EQ(ferry_delete_range(s, fam, NULL, 0, "c", 1, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "c,d,e,f,") == 0, "[\"\", c): %s", keys_of(s, fam));
    ferry_store_close(s);
}

typedef struct race_arg { ferry_store *s; uint32_t cf; int last_rc; long puts; } race_arg;

/* Put (alternately through ferry_put and ferry_write) into one family until a call fails. */
static void *put_until_dropped(void *p)
{
    race_arg *a = p;
    ferry_error e;
    char k[32];
    for (long i = 0;; i++) {
        snprintf(k, sizeof k, "k%ld", i % 64);
        if (i & 1) {
            uint8_t b[64];
            size_t n = rec(b, 0, FERRY_OP_PUT, a->cf, k, (uint32_t)strlen(k), "w", 1);
            a->last_rc = ferry_write(a->s, b, n, 1, 0, &e);
        } else {
            a->last_rc = ferry_put(a->s, a->cf, k, strlen(k), "v", 1, 0, &e);
        }
        if (a->last_rc != FERRY_OK) return NULL;
        __atomic_store_n(&a->puts, i + 1, __ATOMIC_RELAXED);
    }
}

/* A family dropped while another thread writes to it, then a new family created at once (LMDB
 * hands the new one the dropped one's handle number): the writer gets FERRY_ECFDROPPED and
 * none of its writes lands in the new family. */
static void test_drop_while_writing(void)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    ferry_store *s = open_with("drop-race", o, NULL);
    if (!s) { CHECK(0, "open: %s", err.message); return; }
    uint32_t fresh;
    EQ(ferry_cf_create(s, "fresh0", 0, NULL, 0, NULL, &fresh, &err), FERRY_OK);
    int bad = 0;
    for (int round = 1; round <= 60 && !bad; round++) {
        char name[32];
        race_arg a = { s, fresh, 0, 0 };
        pthread_t t;
        pthread_create(&t, NULL, put_until_dropped, &a);
        while (__atomic_load_n(&a.puts, __ATOMIC_RELAXED) < 1 + round % 5) plat_yield();
        EQ(ferry_cf_drop(s, a.cf, &err), FERRY_OK);
        snprintf(name, sizeof name, "fresh%d", round);
        EQ(ferry_cf_create(s, name, 0, NULL, 0, NULL, &fresh, &err), FERRY_OK);
        pthread_join(t, NULL);
        const char *got = keys_of(s, fresh);
        bad = a.last_rc != FERRY_ECFDROPPED || got[0] != '\0';
        CHECK(a.last_rc == FERRY_ECFDROPPED, "round %d: writer stopped with %d", round, a.last_rc);
        CHECK(got[0] == '\0', "round %d: writes to the dropped family landed in the new one: %s", round, got);
    }
    ferry_store_close(s);
}

typedef struct read_race {
    ferry_store *s;
    uint32_t cf;          /* the family to read, published by the main thread */
    int stop;
    long reads;
    int bad_rc;           /* the first unexpected return code, 0 when none */
    char bad_msg[256];
} read_race;

/* Read one family in every way that looks its handle up (get, multi-get, cursor open and fill,
 * stat) until told to stop; anything but ok, not found or dropped is a failure. */
static void *read_until_stopped(void *p)
{
    read_race *a = p;
    ferry_error e;
    char buf[64];
    uint8_t page[4096];
    for (long i = 0; !__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE); i++) {
        uint32_t cf = __atomic_load_n(&a->cf, __ATOMIC_ACQUIRE);
        int rc;
        size_t vlen;
        switch (i % 4) {
        case 0:
            rc = ferry_get(a->s, NULL, cf, "k", 1, 0, buf, sizeof buf, &vlen, &e);
            break;
        case 1: {
            uint8_t keys[8] = { 0, 0, 0, 0, 'k' };
            uint32_t one = 1; /* the key record's u32 length: native order */
            memcpy(keys, &one, 4);
            int64_t lens[1];
            rc = ferry_multi_get(a->s, NULL, cf, 1, keys, 5, 0, buf, sizeof buf, lens, &e);
            if (rc == 1) rc = FERRY_OK;
            break;
        }
        case 2: {
            ferry_cursor *c;
            rc = ferry_cursor_open(a->s, NULL, cf, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &e);
            if (rc == FERRY_OK) {
                rc = ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 16, &e);
                if (rc >= 0) rc = FERRY_OK;
                ferry_cursor_close(c);
            }
            break;
        }
        default: {
            uint64_t n;
            rc = ferry_property_int(a->s, cf, "lmdb.entries", &n, &e);
        }
        }
        if (rc != FERRY_OK && rc != FERRY_NOTFOUND && rc != FERRY_ECFDROPPED && !a->bad_rc) {
            a->bad_rc = rc;
            snprintf(a->bad_msg, sizeof a->bad_msg, "%.200s", e.message);
        }
        __atomic_add_fetch(&a->reads, 1, __ATOMIC_RELAXED); /* both readers count: a plain store of i + 1 could go back */
    }
    return NULL;
}

/* Families created and dropped (under one name, so LMDB reuses the handle number and the name's
 * memory) while two threads read them: a read sees the family or "dropped", never another
 * error, and nobody reads the name LMDB freed (a crash; ASan sees the free, not LMDB's read). */
static void test_drop_while_reading(void)
{
    ferry_store *s = open_store("drop-read");
    if (!s) return;
    read_race a = { s, 0, 0, 0, 0, "" };
    uint32_t cf;
    EQ(ferry_cf_create(s, "churn", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    EQ(put_s(s, cf, "k", "v"), FERRY_OK);
    __atomic_store_n(&a.cf, cf, __ATOMIC_RELEASE);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, read_until_stopped, &a);
    int rounds = 300, ok = 1;
    for (int r = 0; r < rounds && ok; r++) {
        while (__atomic_load_n(&a.reads, __ATOMIC_RELAXED) < r * 4) plat_yield();
        ok = ferry_cf_drop(s, cf, &err) == FERRY_OK && ferry_cf_create(s, "churn", 0, NULL, 0, NULL, &cf, &err) == FERRY_OK
             && put_s(s, cf, "k", "v") == FERRY_OK;
        __atomic_store_n(&a.cf, cf, __ATOMIC_RELEASE);
    }
    CHECK(ok, "drop/create failed: %s", err.message);
    __atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(a.bad_rc == 0, "a read racing a drop failed with %d: %s", a.bad_rc, a.bad_msg);
    CHECK(a.reads >= rounds, "readers made %ld reads", a.reads);
    ferry_store_close(s);
}

/* Reads racing commits: each reader's gets and snapshots must never see the counter go back.
 * LMDB 0.9 begins a read transaction by reading the last transaction id and then the meta page
 * of that id's parity; a reader descheduled in between can copy the meta of a transaction two
 * commits later, which was not yet published, and its next read, begun after, sees the commit
 * before it: a value going back. The engine retries a read begin that two commit steps
 * overlapped (see read_acquire). */
typedef struct counter_race {
    ferry_store *s;
    int stop;
    int started;
    long reads;
    int went_back;
    uint64_t seen, then;
} counter_race;

static uint64_t read_counter(ferry_store *s, ferry_snapshot *snap, int *rc)
{
    uint64_t v = 0;
    size_t vlen = 0;
    ferry_error e;
    *rc = ferry_get(s, snap, 0, "n", 1, 0, &v, sizeof v, &vlen, &e);
    return v;
}

static void *read_counter_until_stopped(void *arg)
{
    counter_race *a = arg;
    uint64_t last = 0;
    __atomic_add_fetch(&a->started, 1, __ATOMIC_ACQ_REL);
    for (long i = 0; !__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE); i++) {
        int rc;
        ferry_snapshot *snap = NULL;
        ferry_error e;
        if ((i & 7) == 7 && ferry_snapshot_open(a->s, &snap, &e) != FERRY_OK) snap = NULL;
        uint64_t v = read_counter(a->s, snap, &rc);
        if (snap) ferry_snapshot_close(snap);
        if (rc == FERRY_OK && v < last && !__atomic_exchange_n(&a->went_back, 1, __ATOMIC_ACQ_REL)) {
            a->seen = last;
            a->then = v;
        }
        if (rc == FERRY_OK && v > last) last = v;
        __atomic_add_fetch(&a->reads, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_reads_never_go_back(void)
{
    ferry_store *s = open_store("go-back");
    if (!s) return;
    counter_race a = { s, 0, 0, 0, 0, 0, 0 };
    enum { READERS = 6 };
    pthread_t t[READERS];
    uint64_t n = 0;
    EQ(ferry_put(s, 0, "n", 1, &n, sizeof n, 0, &err), FERRY_OK);
    for (int i = 0; i < READERS; i++) pthread_create(&t[i], NULL, read_counter_until_stopped, &a);
    int ok = 1;
    /* 20,000 commits; 35 s of the test under qemu-user, where ctest sets FERRY_TEST_RACE_COMMITS
     * lower (native/test/CMakeLists.txt). */
    const char *env = getenv("FERRY_TEST_RACE_COMMITS");
    const uint64_t COMMITS = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 20000;
    /* The race needs readers running while the commits go on: wait until every reader has started, and
     * on a loaded machine (where the commits can outrun descheduled readers) go on committing past
     * COMMITS until the readers have made 1,000 reads, up to 50 times COMMITS. */
    while (__atomic_load_n(&a.started, __ATOMIC_ACQUIRE) < READERS) sched_yield();
    for (n = 1; ok && !__atomic_load_n(&a.went_back, __ATOMIC_ACQUIRE)
                && (n <= COMMITS || (__atomic_load_n(&a.reads, __ATOMIC_RELAXED) <= 1000 && n <= 50 * COMMITS)); n++)
        ok = ferry_put(s, 0, "n", 1, &n, sizeof n, 0, &err) == FERRY_OK;
    CHECK(ok, "put failed: %s", err.message);
    __atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++) pthread_join(t[i], NULL);
    CHECK(!a.went_back, "a reader saw the counter at %llu, then at %llu", (unsigned long long)a.seen,
          (unsigned long long)a.then);
    CHECK(a.reads > 1000, "readers made %ld reads", a.reads);
    ferry_store_close(s);
}

static void test_families(void)
{
    ferry_store *s = open_store("fams");
    uint32_t a, b, n;
    char name[64], buf[64];
    size_t nl;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_cf_name(s, 0, name, sizeof name, &nl), FERRY_OK);
    CHECK(strcmp(name, "default") == 0);
    EQ(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "beta", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &n, &err), FERRY_EEXISTS);
    CHECK(a == 1 && b == 2);
    /* names are keys of the default family: at most LMDB's key size */
    char longname[600];
    memset(longname, 'n', sizeof longname);
    longname[512] = '\0';
    EQ(ferry_cf_create(s, longname, 0, NULL, 0, NULL, &n, &err), FERRY_EINVAL);
    CHECK(strstr(err.message, "512 bytes") && strstr(err.message, "511"), "%s", err.message);
    EQ(ferry_cf_create(s, "", 0, NULL, 0, NULL, &n, &err), FERRY_EINVAL);
    EQ(put_s(s, a, "k", "in-alpha"), FERRY_OK);
    EQ(put_s(s, b, "k", "in-beta"), FERRY_OK);
    EQ(put_s(s, 0, "k", "in-default"), FERRY_OK);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), 8);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), 7);
    CHECK(strcmp(buf, "in-beta") == 0);
    EQ(ferry_cf_drop(s, b, &err), FERRY_OK);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(put_s(s, b, "k", "v"), FERRY_ECFDROPPED);
    EQ(ferry_cf_drop(s, b, &err), FERRY_ECFDROPPED);
    EQ(ferry_cf_drop(s, 0, &err), FERRY_EINVAL);
    EQ(ferry_cf_name(s, b, name, sizeof name, &nl), FERRY_ECFDROPPED);
    EQ(ferry_cf_create(s, "gamma", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(put_s(s, b, "g", "in-gamma"), FERRY_OK);
    ferry_store_close(s);

    s = open_store("fams");
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    int ida = -1, idg = -1;
    for (uint32_t i = 0; i < n; i++) {
        ferry_cf_name(s, i, name, sizeof name, &nl);
        if (strcmp(name, "alpha") == 0) ida = (int)i;
        if (strcmp(name, "gamma") == 0) idg = (int)i;
        CHECK(strcmp(name, "beta") != 0);
    }
    CHECK(ida > 0 && idg > 0);
    if (ida > 0) EQ(get_s(s, NULL, (uint32_t)ida, "k", buf, sizeof buf), 8);
    if (idg > 0) EQ(get_s(s, NULL, (uint32_t)idg, "g", buf, sizeof buf), 8);
    EQ(get_s(s, NULL, 0, "k", buf, sizeof buf), 10);
    ferry_store_close(s);

    /* max dbs: 1 named database allowed */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 1;
    int rc;
    s = open_with("fams-small", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        EQ(ferry_cf_create(s, "one", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
        EQ(ferry_cf_create(s, "two", 0, NULL, 0, NULL, &b, &err), FERRY_EDBSFULL);
        ferry_store_close(s);
    }

    /* dropped families do not count toward max dbs, and ids stay unique: a dropped id keeps
     * failing with FERRY_ECFDROPPED and never names a later family */
    o[FERRY_OPT_MAX_DBS] = 2;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    s = open_with("fams-churn", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    uint32_t c, d, e;
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    EQ(ferry_cf_drop(s, a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_drop(s, b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "d", 0, NULL, 0, NULL, &d, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "e", 0, NULL, 0, NULL, &e, &err), FERRY_EDBSFULL);
    CHECK(strstr(err.message, "too many column families: 2 live, maxColumnFamilies is 2 (dropped families do not count")
          != NULL, "%s", err.message);
    CHECK(a != c && a != d && b != c && b != d && c != d, "ids %u %u %u %u", a, b, c, d);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(put_s(s, b, "k", "v"), FERRY_ECFDROPPED);
    EQ(put_s(s, c, "k", "in-c"), FERRY_OK);
    /* a default-family key named like a dropped family (with a value the size of LMDB's family
     * record) is user data: a range delete removes it */
    char rec48[48];
    memset(rec48, 7, sizeof rec48);
    EQ(ferry_put(s, 0, "a", 1, rec48, sizeof rec48, 0, &err), FERRY_OK);
    EQ(ferry_delete_range(s, 0, "a", 1, "a\x01", 2, &err), FERRY_OK);
    EQ(get_s(s, NULL, 0, "a", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_cf_drop(s, d, &err), FERRY_OK);
    /* enough churn to fill several chunks of the slot table */
    uint32_t id = 0;
    int bad = 0;
    for (int i = 0; i < 300 && !bad; i++) {
        snprintf(name, sizeof name, "churn%d", i % 2);
        int crc = ferry_cf_create(s, name, 0, NULL, 0, NULL, &id, &err);
        if (crc == FERRY_OK) crc = put_s(s, id, "k", name);
        if (crc == FERRY_OK) crc = get_s(s, NULL, id, "k", buf, sizeof buf) == (int)strlen(name) ? FERRY_OK : -1;
        if (crc == FERRY_OK) crc = ferry_cf_drop(s, id, &err);
        bad = crc != FERRY_OK;
        CHECK(!bad, "cycle %d: %d %s", i, crc, err.message);
    }
    CHECK(id == d + 300, "last id %u", id);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, NULL, id, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, NULL, c, "k", buf, sizeof buf), 4);
    EQ(ferry_cf_name(s, a, name, sizeof name, &nl), FERRY_ECFDROPPED);
    CHECK(strcmp(name, "a") == 0, "%s", name);
    EQ(ferry_cf_create(s, "d2", 0, NULL, 0, NULL, &d, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "e", 0, NULL, 0, NULL, &e, &err), FERRY_EDBSFULL);
    ferry_store_close(s);
    s = open_with("fams-churn", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    ferry_store_close(s);
}

static void test_snapshots(void)
{
    ferry_store *s = open_store("snaps");
    char buf[64];
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(put_s(s, 0, "b", "2"), FERRY_OK);
    EQ(put_s(s, 0, "a", "changed"), FERRY_OK);
    EQ(get_s(s, snap, 0, "b", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, snap, 0, "a", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "a", buf, sizeof buf), 7);
    /* a cursor on the snapshot and two plain cursors at once, in this one thread */
    ferry_cursor *c1, *c2, *c3;
    EQ(ferry_cursor_open(s, snap, 0, NULL, 0, NULL, 0, 0, &c1, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c2, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c3, &err), FERRY_OK);
    EQ(put_s(s, 0, "c", "3"), FERRY_OK);
    uint8_t page[256];
    EQ(ferry_cursor_fill(c1, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(ferry_cursor_fill(c2, FERRY_FIRST, NULL, 0, page, sizeof page, 1, &err), 1);
    EQ(ferry_cursor_fill(c3, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_cursor_fill(c2, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), 1);
    ferry_cursor_close(c3);
    ferry_cursor_close(c2);
    ferry_cursor_close(c1);
    /* many snapshots at once in one thread */
    ferry_snapshot *many[40];
    int ok = 1;
    for (int i = 0; i < 40; i++) ok &= ferry_snapshot_open(s, &many[i], &err) == FERRY_OK;
    CHECK(ok, "%s", err.message);
    for (int i = 0; i < 40; i++) ok &= get_s(s, many[i], 0, "c", buf, sizeof buf) == 1;
    CHECK(ok);
    for (int i = 0; i < 40; i++) ferry_snapshot_close(many[i]);
    ferry_snapshot_close(snap);
    ferry_snapshot_close(NULL);
    ferry_cursor_close(NULL);
    ferry_store_close(s);
}

/* A snapshot never reads a family created after it: LMDB gives a dropped database's handle
 * number to the next one, so the snapshot's read transaction would read the dropped family
 * through the new family's id. Every snapshot read of such a family fails with FERRY_EINVAL;
 * one of a family dropped since fails with FERRY_ECFDROPPED. */
/* A store whose default family holds more than FERRY_LMDB_FAMILY_SCAN_MAX records gives its other
 * families slots when they are asked for, by name or all at once, not at open; views begun before a
 * family got its slot do not read it; creating a family that exists unlisted is refused. */
static void test_lazy_families(void)
{
    ferry_store *s = open_store("lazy-families");
    uint32_t a, b, id, n;
    char buf[64];
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", FERRY_CF_DUPSORT, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    int bad = 0;
    for (int i = 0; i <= FERRY_LMDB_FAMILY_SCAN_MAX; i++) {
        char k[16];
        snprintf(k, sizeof k, "key%06d", i);
        bad += put_s(s, 0, k, "v") != FERRY_OK;
    }
    EQ(bad, 0);
    EQ(ferry_store_close(s), FERRY_OK);

    s = open_store("lazy-families");
    uint64_t listed = 9;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_property_int(s, 0, "lmdb.families-listed", &listed, &err), FERRY_OK);
    EQ(listed, 0);
    EQ(get_s(s, NULL, 0, "key000007", buf, sizeof buf), 1);
    ferry_snapshot *snap = NULL;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "a", &id, &err), FERRY_OK);
    EQ(id, 1);
    EQ(get_s(s, NULL, id, "k", buf, sizeof buf), 4);
    CHECK(strcmp(buf, "in-a") == 0, "a/k = '%s'", buf);
    EQ(get_s(s, snap, id, "k", buf, sizeof buf), FERRY_EINVAL);
    CHECK(strstr(err.message, "first looked up after it") != NULL, "%s", err.message);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    uint32_t again = 99;
    EQ(ferry_cf_find(s, "a", &again, &err), FERRY_OK);
    EQ(again, id);
    EQ(ferry_cf_find(s, "nope", &again, &err), FERRY_NOTFOUND);
    EQ(ferry_cf_find(s, "key000007", &again, &err), FERRY_NOTFOUND); /* a record, not a family */
    EQ(ferry_cf_find(s, "", &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(NULL, "a", &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, NULL, &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, "a", NULL, &err), FERRY_EINVAL);
    uint32_t dup;
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &dup, &err), FERRY_EEXISTS);   /* exists, not listed yet */
    EQ(ferry_cf_create(s, "key000007", 0, NULL, 0, NULL, &dup, &err), FERRY_EEXISTS); /* a record of that name */
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 2);
    EQ(ferry_cf_list_all(s, &err), FERRY_OK);
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    size_t len = 0;
    EQ(ferry_cf_name(s, 2, buf, sizeof buf, &len), FERRY_OK);
    CHECK(strcmp(buf, "b") == 0, "family 2 is '%s'", buf);
    uint32_t flags = 0;
    EQ(ferry_cf_flags(s, 2, &flags, &err), FERRY_OK);
    EQ(flags, FERRY_CF_DUPSORT);
    EQ(ferry_property_int(s, 0, "lmdb.families-listed", &listed, &err), FERRY_OK);
    EQ(listed, 1);
    EQ(ferry_cf_list_all(s, &err), FERRY_OK);
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    EQ(ferry_cf_list_all(NULL, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, "b", &again, &err), FERRY_OK);
    EQ(again, 2);
    EQ(ferry_cf_drop(s, 1, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "a", &again, &err), FERRY_NOTFOUND);
    EQ(ferry_store_close(s), FERRY_OK);

    /* room for one named family: the open works, the second family found is one too many */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 1;
    s = open_store("lazy-families");
    uint32_t c;
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
    int rc;
    s = open_with("lazy-families", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_find(s, "b", &id, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "c", &id, &err), FERRY_EDBSFULL);
    EQ(ferry_cf_list_all(s, &err), FERRY_EDBSFULL);
    EQ(ferry_store_close(s), FERRY_OK);
}

static void test_snapshot_families(void)
{
    ferry_store *s = open_store("snap-families");
    uint32_t a, b, c;
    char buf[64];
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(get_s(s, snap, a, "k", buf, sizeof buf), 4);
    EQ(ferry_cf_drop(s, a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(put_s(s, c, "k", "in-c"), FERRY_OK);
    EQ(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_EINVAL);
    CHECK(strstr(err.message, "column family 'b' was created after this snapshot") != NULL, "%s", err.message);
    EQ(get_s(s, snap, c, "k", buf, sizeof buf), FERRY_EINVAL);
    uint8_t keys[8] = {0, 0, 0, 0, 'k'};
    uint32_t one = 1; /* the key record's u32 length: native order */
    memcpy(keys, &one, 4);
    int64_t lens[1];
    EQ(ferry_multi_get(s, snap, b, 1, keys, 5, 0, buf, sizeof buf, lens, &err), FERRY_EINVAL);
    CHECK(strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    ferry_cursor *cur = NULL;
    EQ(ferry_cursor_open(s, snap, b, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_EINVAL);
    CHECK(cur == NULL && strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    EQ(get_s(s, snap, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, snap, 0, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    /* a snapshot taken now reads them */
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, snap, c, "k", buf, sizeof buf), 4);
    EQ(ferry_cursor_open(s, snap, c, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    if (cur) ferry_cursor_close(cur);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    ferry_store_close(s);
}

static void test_map_full(void)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = 256 * 1024;
    int rc;
    ferry_store *s = open_with("tiny", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    static char val[100 * 1024];
    memset(val, 'm', sizeof val);
    char k[16];
    int i;
    for (i = 0; i < 10; i++) {
        snprintf(k, sizeof k, "big%d", i);
        rc = ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err);
        if (rc) break;
    }
    EQ(rc, FERRY_EMAPFULL);
    CHECK(strstr(err.message, "FERRY_OPT_AUTO_GROW") != NULL, "%s", err.message);
    int failed_at = i;
    ferry_store_close(s);

    /* the same write succeeds with auto-grow, but not while a read transaction is open */
    o[FERRY_OPT_AUTO_GROW] = 1024 * 1024;
    s = open_with("tiny", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    snprintf(k, sizeof k, "big%d", failed_at);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err), FERRY_EMAPFULL);
    CHECK(strstr(err.message, "read transaction") != NULL, "%s", err.message);
    ferry_snapshot_close(snap);
    uint64_t before = 0, after = 0;
    ferry_property_int(s, 0, "lmdb.map-size", &before, &err);
    EQ(ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err), FERRY_OK);
    ferry_property_int(s, 0, "lmdb.map-size", &after, &err);
    CHECK(after > before, "%llu -> %llu", (unsigned long long)before, (unsigned long long)after);
    /* a big batch needs several steps */
    size_t blen = 0, cap = 40 * (sizeof val + 32);
    uint8_t *b = malloc(cap);
    for (int j = 0; j < 40; j++) {
        snprintf(k, sizeof k, "batch%d", j);
        blen = rec(b, blen, FERRY_OP_PUT, 0, k, (uint32_t)strlen(k), val, sizeof val);
    }
    EQ(ferry_write(s, b, blen, 40, 0, &err), FERRY_OK);
    free(b);
    char small[8];
    size_t vlen;
    EQ(ferry_get(s, NULL, 0, "batch39", 7, 0, small, sizeof small, &vlen, &err), FERRY_OK);
    EQ(vlen, sizeof val);
    ferry_store_close(s);
}

static void test_open_modes(void)
{
    int64_t o[FERRY_OPT_COUNT];
    int rc;
    ferry_store *s = open_store("modes");
    EQ(put_s(s, 0, "k", "v"), FERRY_OK);
    uint32_t id;
    EQ(ferry_cf_create(s, "side", 0, NULL, 0, NULL, &id, &err), FERRY_OK);
    ferry_store_close(s);

    opts_init(o);
    o[FERRY_OPT_ERROR_IF_EXISTS] = 1;
    s = open_with("modes", o, &rc);
    EQ(rc, FERRY_EEXISTS);
    CHECK(s == NULL);

    /* a missing store: FERRY_NOTFOUND naming the path and the option (RocksDB gives the same) */
    opts_init(o);
    o[FERRY_OPT_CREATE_IF_MISSING] = 0;
    s = open_with("absent/deeper", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "createIfMissing") != NULL && strstr(err.message, "FERRY_OPT_CREATE_IF_MISSING")
          && strstr(err.message, dir_of("absent/deeper")) != NULL, "%s", err.message);
    int64_t dflt[FERRY_OPT_COUNT];
    opts_init(dflt);
    s = open_with("modes-empty-dir", dflt, &rc); /* then a directory without data.mdb */
    EQ(rc, FERRY_OK);
    ferry_store_close(s);
    char data[1200];
    snprintf(data, sizeof data, "%s/data.mdb", dir_of("modes-empty-dir"));
    plat_unlink(data);
    s = open_with("modes-empty-dir", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "data.mdb") != NULL, "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    s = open_with("absent/deeper", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "read-only") != NULL, "%s", err.message);
    /* a map size that cannot be mapped names the option */
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = INT64_MAX;
    s = open_with("huge-map", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "map size") && strstr(err.message, "mapSize")
          && strstr(err.message, "9223372036854775807"), "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 40000;
    s = open_with("huge-map", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "maxColumnFamilies"), "%s", err.message);

    opts_init(o);
    s = open_with("created/deeper", o, &rc); /* create_if_missing makes the directories */
    EQ(rc, FERRY_OK);
    ferry_store_close(s);

    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NORDAHEAD;
    s = open_with("modes", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        char buf[8];
        uint32_t n;
        EQ(get_s(s, NULL, 0, "k", buf, sizeof buf), 1);
        EQ(ferry_cf_count(s, &n), FERRY_OK);
        EQ(n, 2);
        EQ(put_s(s, 0, "k", "w"), FERRY_EREADONLY);
        EQ(ferry_delete(s, 0, "k", 1, &err), FERRY_EREADONLY);
        EQ(ferry_cf_create(s, "more", 0, NULL, 0, NULL, &id, &err), FERRY_EREADONLY);
        EQ(ferry_flush(s, 0, &err), FERRY_OK);
        ferry_store_close(s);
    }

    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC | FERRY_LMDB_NOMETASYNC | FERRY_LMDB_WRITEMAP | FERRY_LMDB_NOTLS;
    o[FERRY_OPT_MAX_READERS] = 8;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        EQ(put_s(s, 0, "k", "v"), FERRY_OK);
        EQ(ferry_flush(s, 0, &err), FERRY_OK);
        uint64_t n;
        EQ(ferry_property_int(s, 0, "lmdb.max-readers", &n, &err), FERRY_OK);
        EQ(n, 8);
        ferry_store_close(s);
    }
    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = 0x100;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = 0;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    /* a sync per commit and NOSYNC contradict each other */
    opts_init(o);
    o[FERRY_OPT_SYNC] = 1;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "NOSYNC"), "%s", err.message);

    /* a directory holding a RocksDB store is refused, naming it, and left as it was */
    char path[4096];
    snprintf(path, sizeof path, "%s", dir_of("rocks"));
    plat_mkdir(path);
    char current[4200];
    snprintf(current, sizeof current, "%s/CURRENT", path);
    FILE *f = fopen(current, "w");
    CHECK(f != NULL, "cannot create %s", current);
    if (f) fclose(f);
    opts_init(o);
    s = open_with("rocks", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "holds a RocksDB store (CURRENT found)") && strstr(err.message, path),
          "%s", err.message);
    char mdb_file[4200];
    snprintf(mdb_file, sizeof mdb_file, "%s/data.mdb", path);
    CHECK(!plat_stat(mdb_file, NULL), "data.mdb created beside a RocksDB store");
}

/* A pointer page ends once the data it points to reaches FERRY_PTR_SPAN; the scan goes on
 * without loss, and an entry larger than the span closes its page. */
static void test_pointer_span(void)
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
static void test_huge_value(const char *lib)
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
static void test_page_walk(void)
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

/* Paths are UTF-8 (as Java passes them), on every platform: a store in a directory whose name is not
 * ASCII (created with its parents), reopened, checkpointed into another such directory, and the
 * names as the file system lists them are the UTF-8 bytes given (on Windows each goes through
 * UTF-16: a conversion through the ANSI code page would change them). */
static void test_utf8_paths(void)
{
    const char *name = "utf8-\xc3\xbc\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac";   /* utf8-üé-日本 */
    char sub[256], ckpt[1200];
    snprintf(sub, sizeof sub, "%s/deeper-\xce\xb1", name);                      /* .../deeper-α */
    ferry_store *s = open_store(sub);
    EQ(put_s(s, 0, "k", "v"), FERRY_OK);
    snprintf(ckpt, sizeof ckpt, "%s/ckpt-\xe2\x82\xac", dir_of(name));          /* .../ckpt-€ */
    EQ(ferry_checkpoint(s, ckpt, 0, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, ckpt, 0, &err), FERRY_EEXISTS);
    ferry_store_close(s);
    char v[8];
    s = open_store(sub);
    EQ(get_s(s, NULL, 0, "k", v, sizeof v), 1);
    ferry_store_close(s);
    ferry_store *c = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, ckpt, NULL, 0, NULL, NULL, 0, 0, &c, &err), FERRY_OK);
    if (c) {
        EQ(get_s(c, NULL, 0, "k", v, sizeof v), 1);
        ferry_store_close(c);
    }
    int seen = 0;
    plat_dir *d = plat_dir_open(scratch, NULL);
    CHECK(d != NULL, "list %s", scratch);
    for (const char *n; d && (n = plat_dir_next(d)) != NULL;) seen += strcmp(n, name) == 0;
    plat_dir_close(d);
    EQ(seen, 1);
    seen = 0;
    d = plat_dir_open(dir_of(name), NULL);
    for (const char *n; d && (n = plat_dir_next(d)) != NULL;)
        seen += strcmp(n, "deeper-\xce\xb1") == 0 || strcmp(n, "ckpt-\xe2\x82\xac") == 0;
    plat_dir_close(d);
    EQ(seen, 2);
}

/* A checkpoint (plain and compacting) holds the state when it was taken, in every family, and
 * opens as a store; an existing directory is refused; backups are not LMDB's. */
static void test_checkpoint(void)
{
    ferry_store *s = open_store("ckpt-src");
    uint32_t cf;
    EQ(ferry_cf_create(s, "other", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    EQ(put_s(s, cf, "b", "2"), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("ckpt-plain"), 0, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("ckpt-plain"), 0, &err), FERRY_EEXISTS);
    EQ(ferry_checkpoint(s, dir_of("ckpt-compact"), FERRY_CHECKPOINT_COMPACT, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("no-parent/ckpt"), 0, &err), FERRY_EIO);
    FILE *f = fopen(dir_of("a-file"), "w");
    if (f) fclose(f);
    EQ(ferry_checkpoint(s, dir_of("a-file/ckpt"), 0, &err), FERRY_EIO); /* ENOTDIR: not "exists" */
    CHECK(!plat_stat(dir_of("no-parent"), NULL), "a failed checkpoint left a directory");
    EQ(put_s(s, 0, "a", "later"), FERRY_OK);
    EQ(put_s(s, cf, "c", "later"), FERRY_OK);
    const char *copies[] = {"ckpt-plain", "ckpt-compact"};
    for (int i = 0; i < 2; i++) {
        ferry_store *c = open_store(copies[i]);
        char buf[32], name[32];
        size_t len = 0;
        EQ(ferry_cf_name(c, 1, name, sizeof name, &len), FERRY_OK);
        CHECK(strcmp(name, "other") == 0, "%s: family 1 is '%s'", copies[i], name);
        EQ(get_s(c, NULL, 0, "a", buf, sizeof buf), 1);
        CHECK(strcmp(buf, "1") == 0, "%s: a = '%s'", copies[i], buf);
        EQ(get_s(c, NULL, 1, "b", buf, sizeof buf), 1);
        EQ(get_s(c, NULL, 1, "c", buf, sizeof buf), FERRY_NOTFOUND);
        EQ(ferry_store_close(c), FERRY_OK);
    }
    EQ(ferry_backups_create(NULL, s, &cf, &err), FERRY_EINVAL);
    EQ(ferry_store_close(s), FERRY_OK);
    /* a read-only environment is copied too */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    int rc;
    s = open_with("ckpt-src", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_checkpoint(s, dir_of("ckpt-ro"), 0, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
    ferry_store *c = open_store("ckpt-ro");
    char buf[32];
    EQ(get_s(c, NULL, 0, "a", buf, sizeof buf), 5);
    CHECK(strcmp(buf, "later") == 0, "read-only copy: a = '%s'", buf);
    EQ(ferry_store_close(c), FERRY_OK);
}

/* Value i of the DUPSORT tests: "%03d" then i*7 % 300 'x's (sizes vary; order is by i). */
static size_t dup_value(int i, char *dst)
{
    int n = snprintf(dst, 8, "%03d", i);
    size_t len = (size_t)n + (size_t)(i * 7 % 300);
    memset(dst + n, 'x', len - (size_t)n);
    dst[len] = '\0';
    return len;
}

/* The expected scan text of the DUPSORT tests: k0 = "000", k1 = 600 dup_values, k2 = "000".."002". */
static char *dup_expected(int reverse)
{
    size_t cap = 700 * 320, len = 0;
    char *t = malloc(cap), v[320];
    int order[604][2], n = 0;
    order[n][0] = 0; order[n++][1] = 0;
    for (int i = 0; i < 600; i++) { order[n][0] = 1; order[n++][1] = i; }
    for (int i = 0; i < 3; i++) { order[n][0] = 2; order[n++][1] = i; }
    for (int j = 0; j < n; j++) {
        int x = reverse ? n - 1 - j : j;
        if (order[x][0] == 1) dup_value(order[x][1], v);
        else snprintf(v, sizeof v, "%03d", order[x][1]);
        len += (size_t)snprintf(t + len, cap - len, "k%d=%s,", order[x][0], v);
    }
    return t;
}

/* Per-family options are RocksDB's: any setting is FERRY_ENOTSUP, none at all a plain family. */
static void test_cf_options(void)
{
    ferry_store *s = open_store("cfopts");
    int64_t lz4[FERRY_CFOPT_COUNT] = { FERRY_COMPRESSION_LZ4, -1, -1, -1 };
    int64_t none[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1 };
    uint32_t cf = 0, flags = 0;
    EQ(ferry_cf_create(s, "a", 0, lz4, FERRY_CFOPT_COUNT, NULL, &cf, &err), FERRY_ENOTSUP);
    EQ(strstr(err.message, "RocksDB") != NULL, 1);
    EQ(ferry_cf_create(s, "a", 0, none, FERRY_CFOPT_COUNT, "merge_operator=uint64add", &cf, &err), FERRY_ENOTSUP);
    EQ(ferry_cf_create(s, "a", 0, lz4, FERRY_CFOPT_COUNT + 1, NULL, &cf, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "a", FERRY_CF_DUPSORT, none, FERRY_CFOPT_COUNT, "", &cf, &err), FERRY_OK);
    EQ(ferry_cf_flags(s, cf, &flags, &err), FERRY_OK);
    EQ(flags, FERRY_CF_DUPSORT);
    /* read flags mean nothing to LMDB: the reads answer as without them */
    char v[8];
    size_t vlen = 0;
    EQ(put_s(s, cf, "k", "v"), FERRY_OK);
    EQ(ferry_get(s, NULL, cf, "k", 1, FERRY_CURSOR_NO_FILL_CACHE | FERRY_CURSOR_NO_VERIFY_CHECKSUMS, v, sizeof v, &vlen,
                  &err), FERRY_OK);
    EQ(vlen == 1 && v[0] == 'v', 1);
    EQ(ferry_get(s, NULL, cf, "k", 1, FERRY_CURSOR_POINTERS, v, sizeof v, &vlen, &err), FERRY_EINVAL);
    EQ(ferry_store_close(s), FERRY_OK);
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    uint8_t rec[128];
    uint32_t nl = 1, el = 0;
    memcpy(rec, &nl, 4);
    memcpy(rec + 4, &el, 4);
    memcpy(rec + 8, lz4, sizeof lz4);
    rec[FERRY_CFDESC_HEADER] = 'a';
    s = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts"), o, FERRY_OPT_COUNT, NULL, rec, FERRY_CFDESC_HEADER + 1, 1,
                         &s, &err), FERRY_ENOTSUP);
    EQ(s == NULL, 1);
    o[FERRY_OPT_CREATE_IF_MISSING] = 0;   /* a missing store is NOTFOUND before the records are judged */
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts-missing"), o, FERRY_OPT_COUNT, NULL, rec,
                         FERRY_CFDESC_HEADER + 1, 1, &s, &err), FERRY_NOTFOUND);
    o[FERRY_OPT_CREATE_IF_MISSING] = -1;
    memcpy(rec + 8, none, sizeof none);
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts"), o, FERRY_OPT_COUNT, NULL, rec, FERRY_CFDESC_HEADER + 1, 1,
                         &s, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
}

static void test_dupsort(void)
{
    ferry_store *s = open_store("dupsort");
    uint32_t cf, fixed, flags = 99;
    EQ(ferry_cf_create(s, "d", 0x80, NULL, 0, NULL, &cf, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "d", FERRY_CF_DUPFIXED, NULL, 0, NULL, &cf, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "d", FERRY_CF_DUPSORT, NULL, 0, NULL, &cf, &err), FERRY_OK);
    EQ(ferry_cf_flags(s, cf, &flags, &err), FERRY_OK);
    EQ(flags, FERRY_CF_DUPSORT);
    EQ(ferry_cf_flags(s, 0, &flags, &err), FERRY_OK);
    EQ(flags, 0);
    char v[320];
    /* 600 values of k1: far more than a sub-page holds, so LMDB makes a sub-tree */
    EQ(put_s(s, cf, "k2", "002"), FERRY_OK);
    for (int i = 599; i >= 0; i--) {
        size_t n = dup_value(i, v);
        EQ(ferry_put(s, cf, "k1", 2, v, n, 0, &err), FERRY_OK);
    }
    EQ(put_s(s, cf, "k0", "000"), FERRY_OK);
    EQ(put_s(s, cf, "k2", "000"), FERRY_OK);
    EQ(put_s(s, cf, "k2", "001"), FERRY_OK);
    EQ(put_s(s, cf, "k2", "001"), FERRY_OK); /* an existing pair: nothing changes */
    uint64_t count = 0;
    EQ(ferry_value_count(s, NULL, cf, "k1", 2, &count, &err), FERRY_OK);
    EQ(count, 600);
    EQ(ferry_value_count(s, NULL, cf, "k2", 2, &count, &err), FERRY_OK);
    EQ(count, 3);
    EQ(ferry_value_count(s, NULL, cf, "zz", 2, &count, &err), FERRY_OK);
    EQ(count, 0);
    EQ(put_s(s, 0, "plain", "x"), FERRY_OK);
    EQ(ferry_value_count(s, NULL, 0, "plain", 5, &count, &err), FERRY_OK);
    EQ(count, 1);
    char buf[64];
    EQ(get_s(s, NULL, cf, "k2", buf, sizeof buf), 3);
    CHECK(strcmp(buf, "000") == 0, "get returns the first value, got '%s'", buf);

    /* every pair, in order, whatever the fill mode and page size */
    char *fwd = dup_expected(0), *rev = dup_expected(1);
    uint32_t modes[] = { 0, FERRY_CURSOR_POINTERS, FERRY_CURSOR_ENGINE_STEPS, FERRY_CURSOR_POINTERS | FERRY_CURSOR_ENGINE_STEPS };
    size_t caps[] = { 512, 4096, 1 << 20 };
    for (int m = 0; m < 4; m++) {
        for (int p = 0; p < 3; p++) {
            ferry_cursor *c;
            EQ(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, modes[m], &c, &err), FERRY_OK);
            scan a = scan_all(c, FERRY_FIRST, NULL, 0, caps[p], 1000);
            EQ(a.err, 0);
            CHECK(a.text && strcmp(a.text, fwd) == 0, "forward scan, flags %u cap %zu: %d entries", modes[m], caps[p], a.n);
            scan b = scan_all(c, FERRY_LAST, NULL, 0, caps[p], 1000);
            EQ(b.err, 0);
            CHECK(b.text && strcmp(b.text, rev) == 0, "reverse scan, flags %u cap %zu: %d entries", modes[m], caps[p], b.n);
            free(a.text);
            free(b.text);
            EQ(ferry_cursor_close(c), FERRY_OK);
        }
    }
    free(fwd);
    free(rev);

    /* seeks work on keys: GE/GT land on a key's first value, LE/LT on a key's last value */
    ferry_cursor *c;
    EQ(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    uint8_t page[1024];
    entry e[8];
    uint32_t pf;
    EQ(ferry_cursor_fill(c, FERRY_SEEK_GE, "k1", 2, page, sizeof page, 1, &err), 1);
    parse_page(page, e, &pf);
    CHECK(e[0].vlen == 3 && memcmp(e[0].v, "000", 3) == 0);
    EQ(ferry_cursor_fill(c, FERRY_SEEK_GT, "k1", 2, page, sizeof page, 1, &err), 1);
    parse_page(page, e, &pf);
    CHECK(e[0].klen == 2 && memcmp(e[0].k, "k2", 2) == 0 && memcmp(e[0].v, "000", 3) == 0);
    EQ(ferry_cursor_fill(c, FERRY_SEEK_LE, "k1", 2, page, sizeof page, 1, &err), 1);
    parse_page(page, e, &pf);
    CHECK(e[0].klen == 2 && memcmp(e[0].k, "k1", 2) == 0 && memcmp(e[0].v, "599", 3) == 0);
    EQ(ferry_cursor_fill(c, FERRY_SEEK_LT, "k1", 2, page, sizeof page, 1, &err), 1);
    parse_page(page, e, &pf);
    CHECK(e[0].klen == 2 && memcmp(e[0].k, "k0", 2) == 0);
    EQ(ferry_cursor_fill(c, FERRY_SEEK_LT, "k2", 2, page, sizeof page, 2, &err), 2);
    parse_page(page, e, &pf);
    CHECK(memcmp(e[0].v, "599", 3) == 0 && memcmp(e[1].v, "598", 3) == 0);
    /* pair seeks: the entry after / before one (key, value) */
    {
        uint8_t pair[400];
        uint32_t kl = 2;
        memcpy(pair, &kl, 4);
        memcpy(pair + 4, "k1", 2);
        memcpy(pair + 6, "005", 3); /* not a whole value of k1: "005" + 35 x's is */
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_GT, pair, 9, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(e[0].klen == 2 && memcmp(e[0].k, "k1", 2) == 0 && memcmp(e[0].v, "005", 3) == 0);
        size_t n5 = dup_value(5, v);
        memcpy(pair + 6, v, n5);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_GT, pair, 6 + n5, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(memcmp(e[0].v, "006", 3) == 0);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_LT, pair, 6 + n5, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(memcmp(e[0].v, "004", 3) == 0);
        memcpy(pair + 6, "000", 3);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_LT, pair, 9, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(e[0].klen == 2 && memcmp(e[0].k, "k0", 2) == 0);
        memcpy(pair + 6, "999", 3);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_GT, pair, 9, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(e[0].klen == 2 && memcmp(e[0].k, "k2", 2) == 0 && memcmp(e[0].v, "000", 3) == 0);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_LT, pair, 9, page, sizeof page, 1, &err), 1);
        parse_page(page, e, &pf);
        CHECK(e[0].klen == 2 && memcmp(e[0].k, "k1", 2) == 0 && memcmp(e[0].v, "599", 3) == 0);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_GT, pair, 3, page, sizeof page, 1, &err), FERRY_EINVAL);
        kl = 100;
        memcpy(pair, &kl, 4);
        EQ(ferry_cursor_fill(c, FERRY_SEEK_PAIR_GT, pair, 9, page, sizeof page, 1, &err), FERRY_EINVAL);
    }
    EQ(ferry_cursor_close(c), FERRY_OK);
    /* a cursor over one key walks its values */
    EQ(ferry_cursor_open(s, NULL, cf, "k2", 2, "k2\0", 3, 0, &c, &err), FERRY_OK);
    scan one = scan_all(c, FERRY_LAST, NULL, 0, 4096, 100);
    CHECK(one.text && strcmp(one.text, "k2=002,k2=001,k2=000,") == 0, "%s", one.text);
    free(one.text);
    EQ(ferry_cursor_close(c), FERRY_OK);

    /* per-write flags */
    EQ(ferry_put(s, cf, "k2", 2, "001", 3, FERRY_WRITE_NO_DUP_DATA, &err), FERRY_EKEYEXIST);
    EQ(ferry_put(s, cf, "k2", 2, "003", 3, FERRY_WRITE_NO_DUP_DATA, &err), FERRY_OK);
    EQ(ferry_put(s, cf, "k2", 2, "009", 3, FERRY_WRITE_NO_OVERWRITE, &err), FERRY_EKEYEXIST);
    EQ(ferry_put(s, cf, "k3", 2, "009", 3, FERRY_WRITE_NO_OVERWRITE | FERRY_WRITE_SYNC, &err), FERRY_OK);
    EQ(ferry_put(s, cf, "k3", 2, "010", 3, FERRY_WRITE_APPEND, &err), FERRY_OK);
    EQ(ferry_put(s, cf, "k3", 2, "005", 3, FERRY_WRITE_APPEND, &err), FERRY_EINVAL);
    EQ(ferry_put(s, 0, "plain", 5, "y", 1, FERRY_WRITE_NO_DUP_DATA, &err), FERRY_EINVAL);
    EQ(ferry_put(s, 0, "plain", 5, "y", 1, FERRY_WRITE_NO_OVERWRITE, &err), FERRY_EKEYEXIST);
    EQ(ferry_put(s, 0, "a", 1, "y", 1, FERRY_WRITE_APPEND, &err), FERRY_EINVAL);
    EQ(ferry_put(s, 0, "zzz", 3, "y", 1, FERRY_WRITE_APPEND | FERRY_WRITE_NO_WAL, &err), FERRY_OK);
    EQ(ferry_put(s, 0, "plain", 5, "y", 1, 0x100, &err), FERRY_EINVAL);
    /* a DUPSORT value is limited to the key size */
    char big[600];
    memset(big, 'b', sizeof big);
    EQ(ferry_put(s, cf, "k4", 2, big, 512, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "511") != NULL, "%s", err.message);
    EQ(ferry_put(s, cf, "k4", 2, big, 511, 0, &err), FERRY_OK);

    /* deleting one value, then a key with all its values */
    uint8_t rec[64];
    uint32_t hdr[4] = { FERRY_OP_DELETE_VALUE, cf, 2, 3 };
    memcpy(rec, hdr, 16);
    memcpy(rec + 16, "k2001", 5);
    EQ(ferry_write(s, rec, 21, 1, 0, &err), FERRY_OK);
    EQ(ferry_value_count(s, NULL, cf, "k2", 2, &count, &err), FERRY_OK);
    EQ(count, 3);
    EQ(ferry_write(s, rec, 21, 1, 0, &err), FERRY_OK); /* absent: not an error */
    hdr[1] = 0;
    memcpy(rec, hdr, 16);
    EQ(ferry_write(s, rec, 21, 1, 0, &err), FERRY_EINVAL); /* not a DUPSORT family */
    EQ(ferry_delete(s, cf, "k1", 2, &err), FERRY_OK);
    EQ(ferry_value_count(s, NULL, cf, "k1", 2, &count, &err), FERRY_OK);
    EQ(count, 0);
    EQ(ferry_value_count(s, NULL, cf, "k2", 2, &count, &err), FERRY_OK);
    EQ(count, 3);
    /* range delete takes every value of the keys in range */
    for (int i = 0; i < 300; i++) {
        size_t n = dup_value(i, v);
        EQ(ferry_put(s, cf, "k1", 2, v, n, 0, &err), FERRY_OK);
    }
    EQ(ferry_delete_range(s, cf, "k1", 2, "k3", 2, &err), FERRY_OK);
    EQ(ferry_value_count(s, NULL, cf, "k1", 2, &count, &err), FERRY_OK);
    EQ(count, 0);
    EQ(ferry_value_count(s, NULL, cf, "k2", 2, &count, &err), FERRY_OK);
    EQ(count, 0);
    EQ(ferry_value_count(s, NULL, cf, "k3", 2, &count, &err), FERRY_OK);
    EQ(count, 2);

    /* many small keys, most with one value (plain leaf nodes the direct walk would read) and every
     * seventh with three (nodes of duplicates): fills with and without the walk agree */
    {
        uint32_t mixed;
        EQ(ferry_cf_create(s, "mixed", FERRY_CF_DUPSORT, NULL, 0, NULL, &mixed, &err), FERRY_OK);
        size_t cap = 3000 * 24, fl = 0, rl = 0;
        char *want = malloc(cap), *back = malloc(cap), key[16];
        char **items = malloc(sizeof(char *) * 4000);
        int n = 0;
        for (int i = 0; i < 3000; i++) {
            snprintf(key, sizeof key, "m%05d", i);
            int nv = i % 7 == 0 ? 3 : 1;
            for (int j = 0; j < nv; j++) {
                char val[2] = { (char)('a' + j), 0 };
                EQ(put_s(s, mixed, key, val), FERRY_OK);
                items[n] = malloc(16);
                snprintf(items[n], 16, "%s=%s,", key, val);
                n++;
            }
        }
        for (int j = 0; j < n; j++) fl += (size_t)snprintf(want + fl, cap - fl, "%s", items[j]);
        for (int j = n - 1; j >= 0; j--) rl += (size_t)snprintf(back + rl, cap - rl, "%s", items[j]);
        for (int m = 0; m < 4; m++) {
            ferry_cursor *mc;
            EQ(ferry_cursor_open(s, NULL, mixed, NULL, 0, NULL, 0, modes[m], &mc, &err), FERRY_OK);
            scan a = scan_all(mc, FERRY_FIRST, NULL, 0, 1 << 16, 1000);
            CHECK(a.err == 0 && strcmp(a.text, want) == 0, "mixed forward, flags %u: %d entries", modes[m], a.n);
            scan b = scan_all(mc, FERRY_LAST, NULL, 0, 1 << 16, 1000);
            CHECK(b.err == 0 && strcmp(b.text, back) == 0, "mixed reverse, flags %u: %d entries", modes[m], b.n);
            scan g = scan_all(mc, FERRY_SEEK_GE, "m00700", 6, 4096, 50);
            CHECK(g.err == 0 && strcmp(g.text, strstr(want, "m00700=a")) == 0, "mixed seek, flags %u", modes[m]);
            free(a.text);
            free(b.text);
            free(g.text);
            EQ(ferry_cursor_close(mc), FERRY_OK);
        }
        /* those fills stepped with LMDB: no leaf page of a DUPSORT family is read directly */
        uint64_t walked = 1;
        EQ(ferry_property_int(s, mixed, "lmdb.walked-pages", &walked, &err), FERRY_OK);
        EQ(walked, 0);
        for (int j = 0; j < n; j++) free(items[j]);
        free(items);
        free(want);
        free(back);
    }

    /* DUPFIXED: a key's values have one size */
    EQ(ferry_cf_create(s, "f", FERRY_CF_DUPSORT | FERRY_CF_DUPFIXED, NULL, 0, NULL, &fixed, &err), FERRY_OK);
    for (int i = 0; i < 1000; i++) {
        uint32_t x = (uint32_t)i;
        EQ(ferry_put(s, fixed, "n", 1, &x, 4, 0, &err), FERRY_OK);
    }
    EQ(ferry_value_count(s, NULL, fixed, "n", 1, &count, &err), FERRY_OK);
    EQ(count, 1000);
    EQ(ferry_put(s, fixed, "n", 1, "ab", 2, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_put(s, fixed, "m", 1, "ab", 2, 0, &err), FERRY_OK);
    EQ(ferry_put(s, fixed, "m", 1, "abc", 3, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_store_close(s), FERRY_OK);

    /* flags are the stored ones after a reopen */
    s = open_store("dupsort");
    EQ(ferry_cf_count(s, &flags), FERRY_OK);
    for (uint32_t id = 1; id < flags; id++) {
        char name[8];
        size_t nl;
        uint32_t f = 0;
        EQ(ferry_cf_name(s, id, name, sizeof name, &nl), FERRY_OK);
        EQ(ferry_cf_flags(s, id, &f, &err), FERRY_OK);
        EQ(f, strcmp(name, "f") == 0 ? FERRY_CF_DUPSORT | FERRY_CF_DUPFIXED : FERRY_CF_DUPSORT);
    }
    EQ(ferry_store_close(s), FERRY_OK);
}

/* ------------------------------------------------------------------ write transactions */

static size_t txrec(uint8_t *buf, uint32_t op, uint32_t cf, const char *a, const char *b)
{
    uint32_t al = (uint32_t)strlen(a), bl = b ? (uint32_t)strlen(b) : 0;
    memcpy(buf, &op, 4); memcpy(buf + 4, &cf, 4); memcpy(buf + 8, &al, 4); memcpy(buf + 12, &bl, 4);
    memcpy(buf + 16, a, al);
    if (bl) memcpy(buf + 16 + al, b, bl);
    return 16 + al + bl;
}

typedef struct txn_other {
    ferry_store *s;
    ferry_txn *t;
    int rc_put, rc_begin, rc_use, rc_close;
    int64_t timeout;
} txn_other;

/* Another thread: a put that must wait (timeout), a try-begin, use of the main thread's transaction. */
static void *txn_other_thread(void *arg)
{
    txn_other *o = arg;
    ferry_error e;
    ferry_txn *t2 = NULL;
    o->rc_begin = ferry_txn_begin(o->s, 0, o->timeout, &t2, &e);
    if (t2) ferry_txn_close(t2);
    uint8_t ops[64];
    o->rc_use = ferry_txn_write(o->t, ops, txrec(ops, FERRY_OP_PUT, 0, "x", "y"), 1, &e);
    return NULL;
}

static void *txn_close_thread(void *arg)
{
    txn_other *o = arg;
    o->rc_close = ferry_txn_close(o->t);
    ferry_error e;
    o->rc_put = ferry_put(o->s, 0, "p", 1, "q", 1, 0, &e);
    return NULL;
}

/* The entry points added with transactions, duplicate keys, write flags, merge and SST files,
 * called with NULL handles and out pointers, with and without an error struct: argument errors
 * (or, where NULL is documented as ignored, FERRY_OK), never a crash. */
static void test_null_handles(void)
{
    ferry_txn *t = (ferry_txn *)1;
    ferry_sst_writer *w = (ferry_sst_writer *)1;
    uint32_t u = 0;
    uint64_t n = 0;
    size_t len = 0;
    char buf[8];
    uint8_t rec[32] = {0};
    EQ(ferry_txn_begin(NULL, 0, 0, &t, &err), FERRY_EINVAL);
    EQ(t == NULL, 1);
    EQ(ferry_txn_write(NULL, rec, sizeof rec, 1, &err), FERRY_EINVAL);
    EQ(ferry_txn_get_for_update(NULL, 0, "k", 1, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_txn_commit(NULL, &err), FERRY_EINVAL);
    EQ(ferry_txn_commit(NULL, NULL), FERRY_EINVAL);
    EQ(ferry_txn_close(NULL), FERRY_OK);
    EQ(ferry_txn_abandon(NULL), FERRY_OK);
    EQ(ferry_cf_create(NULL, "f", FERRY_CF_DUPSORT, NULL, 0, NULL, &u, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(NULL, "f", 0, NULL, 0, NULL, &u, &err), FERRY_EINVAL);
    EQ(ferry_get(NULL, NULL, 0, "k", 1, FERRY_CURSOR_NO_FILL_CACHE, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_multi_get(NULL, NULL, 0, 1, rec, 5, FERRY_CURSOR_NO_FILL_CACHE, buf, sizeof buf, (int64_t *)&n, &err), FERRY_EINVAL);
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, NULL, NULL, 0, NULL, NULL, 0, 0, (ferry_store **)&t, &err), FERRY_EINVAL);
    EQ(ferry_cf_flags(NULL, 0, &u, &err), FERRY_EINVAL);
    EQ(ferry_value_count(NULL, NULL, 0, "k", 1, &n, NULL), FERRY_EINVAL);
    EQ(ferry_put(NULL, 0, "k", 1, "v", 1, 0, &err), FERRY_EINVAL);
    EQ(ferry_write(NULL, rec, sizeof rec, 1, 0, &err), FERRY_EINVAL);
    EQ(ferry_merge(NULL, 0, "k", 1, "v", 1, &err), FERRY_EINVAL);
    EQ(ferry_ingest(NULL, 0, "x", 2, 1, 0, &err), FERRY_EINVAL);
    EQ(ferry_sst_open(NULL, NULL, &w, &err), FERRY_EINVAL);
    EQ(w == NULL, 1);
    EQ(ferry_sst_open("x.sst", NULL, NULL, &err), FERRY_EINVAL);
    EQ(ferry_sst_put(NULL, "k", 1, "v", 1, &err), FERRY_EINVAL);
    EQ(ferry_sst_merge(NULL, "k", 1, "v", 1, &err), FERRY_EINVAL);
    EQ(ferry_sst_delete(NULL, "k", 1, NULL), FERRY_EINVAL);
    EQ(ferry_sst_finish(NULL, &n, &err), FERRY_EINVAL);
    EQ(ferry_sst_close(NULL), FERRY_OK);
}

static void test_txn(void)
{
    ferry_store *s = open_store("txn");
    ferry_txn *t = NULL;
    char buf[64];
    uint8_t ops[512], page[4096];
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    EQ(put_s(s, 0, "c", "3"), FERRY_OK);
    uint32_t dups;
    EQ(ferry_cf_create(s, "dups", FERRY_CF_DUPSORT, NULL, 0, NULL, &dups, &err), FERRY_OK);
    EQ(put_s(s, dups, "k", "1"), FERRY_OK);
    EQ(put_s(s, dups, "k", "2"), FERRY_OK);
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    ferry_txn *t2 = NULL;
    EQ(ferry_txn_begin(s, 0, -1, &t2, &err), FERRY_EBUSY);
    EQ(put_s(s, 0, "b", "x"), FERRY_EBUSY);       /* would wait for itself */
    uint32_t cf;
    EQ(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &cf, &err), FERRY_EBUSY);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "b", "2"), 1, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_DELETE, 0, "c", NULL), 1, &err), FERRY_OK);
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "b", buf, sizeof buf), FERRY_NOTFOUND);   /* a read beside the open transaction */
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "c", buf, sizeof buf), FERRY_NOTFOUND);
    /* value counts through the transaction's view see its writes, duplicates included */
    uint64_t count = 9;
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, dups, "k", "3"), 1, &err), FERRY_OK);
    EQ(ferry_value_count(s, FERRY_TXN_VIEW(t), dups, "k", 1, &count, &err), FERRY_OK);
    CHECK(count == 3, "value count in the transaction: %llu", (unsigned long long)count);
    EQ(ferry_value_count(s, FERRY_TXN_VIEW(t), 0, "b", 1, &count, &err), FERRY_OK);
    CHECK(count == 1, "value count of a key the transaction wrote: %llu", (unsigned long long)count);
    EQ(ferry_value_count(s, FERRY_TXN_VIEW(t), 0, "c", 1, &count, &err), FERRY_OK);
    CHECK(count == 0, "value count of a key the transaction deleted: %llu", (unsigned long long)count);
    EQ(ferry_value_count(s, FERRY_TXN_VIEW(t), 0, "", 0, &count, &err), FERRY_OK);
    CHECK(count == 0, "value count of the empty key: %llu", (unsigned long long)count);
    EQ(ferry_snapshot_close(FERRY_TXN_VIEW(t)), FERRY_EINVAL);   /* a view, not a snapshot: still usable */
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), 1);
    ferry_cursor *c = NULL;
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, "c", 1, FERRY_CURSOR_POINTERS, &c, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_DELETE_RANGE, 0, "a", "b"), 1, &err), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), FERRY_EINVAL);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    size_t vlen;
    EQ(ferry_txn_get_for_update(t, 0, "b", 1, buf, sizeof buf, &vlen, &err), FERRY_OK);
    txn_other o = { s, t, 0, 0, 0, 0, 100 };
    pthread_t th;
    pthread_create(&th, NULL, txn_other_thread, &o);
    pthread_join(th, NULL);
    EQ(o.rc_begin, FERRY_ETIMEDOUT);
    EQ(o.rc_use, FERRY_EBADTXN);
    o.timeout = 0;
    pthread_create(&th, NULL, txn_other_thread, &o);
    pthread_join(th, NULL);
    EQ(o.rc_begin, FERRY_EBUSY);
    EQ(ferry_txn_commit(t, &err), FERRY_OK);
    EQ(ferry_txn_commit(t, &err), FERRY_EBADTXN);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), FERRY_EBADTXN);
    EQ(ferry_cursor_close(c), FERRY_OK);
    EQ(ferry_txn_close(t), FERRY_OK);
    EQ(get_s(s, NULL, 0, "b", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "a", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(put_s(s, 0, "b", "x"), FERRY_OK);
    /* rollback, with a cursor left open */
    EQ(ferry_txn_begin(s, 0, 0, &t, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "r", "r"), 1, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    EQ(ferry_txn_close(t), FERRY_OK);
    EQ(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), FERRY_EBADTXN);
    EQ(ferry_cursor_close(c), FERRY_OK);
    EQ(get_s(s, NULL, 0, "r", buf, sizeof buf), FERRY_NOTFOUND);
    /* closed on another thread: abandoned; that thread's writes fail fast; this thread's next write ends it */
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    o.t = t;
    pthread_create(&th, NULL, txn_close_thread, &o);
    pthread_join(th, NULL);
    EQ(o.rc_close, FERRY_EBADTXN);
    EQ(o.rc_put, FERRY_EBUSY);
    EQ(put_s(s, 0, "after", "1"), FERRY_OK);
    EQ(get_s(s, NULL, 0, "after", buf, sizeof buf), 1);
    /* abandoned and left at store close */
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    o.t = t;
    pthread_create(&th, NULL, txn_close_thread, &o);
    pthread_join(th, NULL);
    EQ(o.rc_close, FERRY_EBADTXN);
    EQ(ferry_store_close(s), FERRY_OK);
    s = open_store("txn");
    EQ(get_s(s, NULL, 0, "after", buf, sizeof buf), 1);
    EQ(put_s(s, 0, "again", "1"), FERRY_OK);
    /* map full inside a transaction fails it; auto-grow grows the map at its close */
    ferry_store_close(s);
    int64_t o2[FERRY_OPT_COUNT];
    opts_init(o2);
    o2[FERRY_OPT_MAP_SIZE] = 1 << 20;
    o2[FERRY_OPT_AUTO_GROW] = 1 << 20;
    int rc;
    s = open_with("txn-grow", o2, &rc);
    EQ(rc, FERRY_OK);
    char big[2000];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = 0;
    int full = 0;
    for (int attempt = 0; attempt < 3 && !full; attempt++) {
        EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
        for (int i = 0; i < 2000 && !full; i++) {
            char k[16];
            snprintf(k, sizeof k, "k%05d", i);
            rc = ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, k, "v"), 1, &err);
            if (rc == FERRY_OK) {
                uint8_t bigop[2100];
                rc = ferry_txn_write(t, bigop, txrec(bigop, FERRY_OP_PUT, 0, k, big), 1, &err);
            }
            if (rc == FERRY_EMAPFULL) full = 1;
            else EQ(rc, FERRY_OK);
        }
        if (full) EQ(ferry_txn_commit(t, &err), FERRY_EBADTXN);
        EQ(ferry_txn_close(t), FERRY_OK);
    }
    CHECK(full, "never filled the map");
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    uint8_t bigop[2100];
    EQ(ferry_txn_write(t, bigop, txrec(bigop, FERRY_OP_PUT, 0, "k", big), 1, &err), FERRY_OK);
    EQ(ferry_txn_commit(t, &err), FERRY_OK);
    EQ(ferry_txn_close(t), FERRY_OK);
    ferry_store_close(s);
}


/* Shared block caches and write buffer managers are RocksDB's: an LMDB open with one is refused. */
/* Savepoints as nested transactions: reads and writes through the innermost, cursors opened in a
 * nested transaction moved to its parent when it ends (LMDB frees them: ASan checks nothing uses
 * them after), no savepoint: FERRY_NOTFOUND, after the commit: FERRY_EBADTXN. */
static void test_txn_savepoints(void)
{
    ferry_store *s = open_store("savepoints");
    ferry_txn *t = NULL;
    char buf[64];
    uint8_t ops[512], page[4096];
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    EQ(ferry_txn_set_savepoint(NULL, &err), FERRY_EINVAL);
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    EQ(ferry_txn_rollback_to_savepoint(t, &err), FERRY_NOTFOUND);
    EQ(ferry_txn_pop_savepoint(t, &err), FERRY_NOTFOUND);
    ferry_cursor *outer = NULL, *inner = NULL;
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &outer, &err), FERRY_OK);
    EQ(ferry_cursor_fill(outer, FERRY_FIRST, NULL, 0, page, sizeof page, 1, &err), 1);
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "b", "2"), 1, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, 0, &inner, &err), FERRY_OK);
    EQ(ferry_cursor_fill(inner, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_DELETE, 0, "a", NULL), 1, &err), FERRY_OK);
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "a", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_txn_rollback_to_savepoint(t, &err), FERRY_OK);   /* the delete of a is undone */
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "a", buf, sizeof buf), 1);
    EQ(ferry_cursor_fill(inner, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), FERRY_EINVAL); /* re-position */
    EQ(ferry_cursor_fill(inner, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_txn_rollback_to_savepoint(t, &err), FERRY_OK);   /* b goes; inner moves to the transaction itself */
    EQ(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_cursor_fill(inner, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(ferry_cursor_fill(outer, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(ferry_txn_rollback_to_savepoint(t, &err), FERRY_NOTFOUND);
    /* pop: the writes stay; a cursor opened inside moves out and keeps working */
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    ferry_cursor *popped = NULL;
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, 0, &popped, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "c", "3"), 1, &err), FERRY_OK);
    EQ(ferry_txn_pop_savepoint(t, &err), FERRY_OK);
    EQ(ferry_cursor_fill(popped, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_cursor_close(popped), FERRY_OK);
    EQ(ferry_cursor_close(inner), FERRY_OK);
    /* commit with a savepoint still set: everything is committed; outer is closed by the commit */
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, 0, &inner, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "d", "4"), 1, &err), FERRY_OK);
    EQ(ferry_txn_commit(t, &err), FERRY_OK);
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_EBADTXN);
    EQ(ferry_txn_rollback_to_savepoint(t, &err), FERRY_EBADTXN);
    EQ(ferry_txn_pop_savepoint(t, &err), FERRY_EBADTXN);
    EQ(ferry_cursor_fill(outer, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), FERRY_EBADTXN);
    EQ(ferry_cursor_close(outer), FERRY_OK);
    EQ(ferry_cursor_close(inner), FERRY_OK);
    EQ(ferry_txn_close(t), FERRY_OK);
    EQ(get_s(s, NULL, 0, "c", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "d", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "b", buf, sizeof buf), FERRY_NOTFOUND);
    /* close with nested transactions and a cursor inside open: all rolled back */
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    EQ(ferry_txn_set_savepoint(t, &err), FERRY_OK);
    EQ(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "e", "5"), 1, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, NULL, 0, NULL, 0, 0, &inner, &err), FERRY_OK);
    EQ(ferry_txn_close(t), FERRY_OK);
    EQ(ferry_cursor_close(inner), FERRY_OK);
    EQ(get_s(s, NULL, 0, "e", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(put_s(s, 0, "e", "5"), FERRY_OK);   /* the writer lock was given back */
    EQ(ferry_store_close(s), FERRY_OK);
}

static void test_shared_memory_refused(void)
{
    int64_t o[FERRY_OPT_COUNT];
    int rc;
    int64_t fake = 0;
    opts_init(o);
    o[FERRY_OPT_BLOCK_CACHE] = (int64_t)(intptr_t)&fake;
    ferry_store *s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "RocksDB's") != NULL, "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_WRITE_BUFFER_MANAGER] = (int64_t)(intptr_t)&fake;
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_CACHE_INDEX_AND_FILTER] = 1;
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_CACHE_INDEX_AND_FILTER] = 0;   /* off: accepted */
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_OK);
    ferry_store_close(s);
    ferry_cache *c = NULL;
    /* no RocksDB attached in this program */
    EQ(ferry_cache_create(1 << 20, 0, -1, &c, &err), FERRY_ENOENGINE);
    CHECK(c == NULL);
    EQ(ferry_cache_close((ferry_cache *)(void *)&fake, &err), FERRY_EINVAL);
    EQ(ferry_wbm_close((ferry_wbm *)(void *)&fake, &err), FERRY_EINVAL);
}

/* ---- split points ---- */

/* Write n puts of key fmt % i with a 20-byte value, in batches. */
static void split_fill(ferry_store *s, uint32_t cf, const char *fmt, int from, int n, int step)
{
    size_t cap = 1000 * 64, len = 0;
    uint8_t *batch = malloc(cap);
    int count = 0;
    for (int i = 0; i < n; i++) {
        char k[32];
        snprintf(k, sizeof k, fmt, from + i * step);
        uint32_t kl = (uint32_t)strlen(k), vl = 20, op = FERRY_OP_PUT;
        memcpy(batch + len, &op, 4); memcpy(batch + len + 4, &cf, 4);
        memcpy(batch + len + 8, &kl, 4); memcpy(batch + len + 12, &vl, 4);
        memcpy(batch + len + 16, k, kl); memset(batch + len + 16 + kl, 'v', vl);
        len += 16 + kl + vl;
        if (++count == 1000 || i == n - 1) {
            if (ferry_write(s, batch, len, (uint32_t)count, 0, &err) != FERRY_OK) {
                printf("FAIL split_fill: %s\n", err.message);
                failed++;
            }
            len = 0;
            count = 0;
        }
    }
    free(batch);
}

typedef struct split_answer { int n; uint64_t total, below; int ok; } split_answer;

/* Call ferry_split_points and check the records' form: record 0 without a key, then keys strictly
 * increasing inside [lower, upper). below: the weight of records whose key sorts before mark (record 0
 * counts as before). */
static split_answer split_check(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *lower, const char *upper,
                                uint32_t max, size_t cap, const char *mark)
{
    split_answer a = { 0, 0, 0, 1 };
    uint8_t *buf = malloc(cap);
    size_t len = 12345;
    int rc = ferry_split_points(s, snap, cf, lower, lower ? strlen(lower) : 0, upper, upper ? strlen(upper) : 0, max,
                                buf, cap, &len, &err);
    a.n = rc;
    if (rc < 0) { free(buf); a.ok = 0; return a; }
    const uint8_t *p = buf, *end = buf + len, *prev = NULL;
    uint32_t prevl = 0;
    if (rc == 0 && len != 0) a.ok = 0;
    if ((uint32_t)rc > max) a.ok = 0;
    for (int i = 0; i < rc; i++) {
        if (end - p < FERRY_SPLIT_HEADER) { a.ok = 0; break; }
        uint64_t w;
        uint32_t kl;
        memcpy(&w, p, 8);
        memcpy(&kl, p + 8, 4);
        const uint8_t *k = p + FERRY_SPLIT_HEADER;
        if ((size_t)(end - k) < kl || (i == 0) != (kl == 0)) { a.ok = 0; break; }
        if (i > 0) {
            size_t m = kl < prevl ? kl : prevl;
            int c = prev ? memcmp(prev, k, m) : -1;
            if (prev && (c > 0 || (c == 0 && prevl >= kl))) a.ok = 0;
            if (lower && (memcmp(k, lower, kl < strlen(lower) ? kl : strlen(lower)) < 0
                          || (memcmp(k, lower, kl < strlen(lower) ? kl : strlen(lower)) == 0 && kl <= strlen(lower))))
                a.ok = 0;
            if (upper) {
                size_t ul = strlen(upper), mm = kl < ul ? kl : ul;
                int cu = memcmp(k, upper, mm);
                if (cu > 0 || (cu == 0 && kl >= ul)) a.ok = 0;
            }
            prev = k;
            prevl = kl;
        }
        a.total += w;
        if (mark && (i == 0 || memcmp(k, mark, kl < strlen(mark) ? kl : strlen(mark)) < 0)) a.below += w;
        p = k + kl;
    }
    if (p != end) a.ok = 0;
    free(buf);
    return a;
}

static void test_split_points(void)
{
    ferry_store *s = open_store("split");
    uint32_t cf, tiny, dups;
    EQ(ferry_cf_create(s, "skew", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    split_fill(s, cf, "a%08d", 0, 45000, 1);      /* 90% of the entries in a dense run */
    split_fill(s, cf, "b%08d", 0, 5000, 1000);    /* 10% spread out */
    split_answer a = split_check(s, NULL, cf, NULL, NULL, 256, 1 << 16, "b");
    CHECK(a.ok && a.n >= 64 && a.n <= 256, "records %d", a.n);
    EQ(a.total, 50000);   /* at most 4096 leaf pages: every page's node count */
    CHECK(a.below >= 44500 && a.below <= 45500, "weight before 'b': %llu", (unsigned long long)a.below);
    a = split_check(s, NULL, cf, "a00010000", "a00020000", 256, 1 << 16, NULL);
    CHECK(a.ok && a.n >= 8 && a.total >= 10000 && a.total <= 10400, "bounded: %d records, weight %llu", a.n,
          (unsigned long long)a.total);
    a = split_check(s, NULL, cf, NULL, NULL, 4, 1 << 16, NULL);
    CHECK(a.ok && a.n >= 2 && a.n <= 4 && a.total == 50000, "max 4: %d records", a.n);
    a = split_check(s, NULL, cf, NULL, NULL, 256, FERRY_SPLIT_HEADER, NULL);
    CHECK(a.ok && a.n == 1 && a.total == 50000, "cap of one record: %d", a.n);
    a = split_check(s, NULL, cf, "b", "a", 256, 4096, NULL);
    CHECK(a.ok && a.n == 0);
    a = split_check(s, NULL, cf, NULL, "", 256, 4096, NULL);
    CHECK(a.ok && a.n == 0);
    /* a snapshot keeps its tree: the weights of the state it saw */
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(ferry_delete_range(s, cf, "a00000000", 9, "a00020000", 9, &err), FERRY_OK);
    a = split_check(s, snap, cf, NULL, NULL, 256, 1 << 16, NULL);
    CHECK(a.ok && a.total == 50000, "snapshot: %d records, weight %llu", a.n, (unsigned long long)a.total);
    a = split_check(s, NULL, cf, NULL, NULL, 256, 1 << 16, NULL);
    CHECK(a.ok && a.total == 30000, "after the delete: %d records, weight %llu", a.n, (unsigned long long)a.total);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    /* the default family: its root is in the meta page of the read transaction */
    split_fill(s, 0, "k%08d", 0, 20000, 1);
    a = split_check(s, NULL, 0, NULL, NULL, 256, 1 << 16, NULL);
    CHECK(a.ok && a.n >= 32 && a.total >= 20000 && a.total <= 20010, "default: %d records, weight %llu", a.n,
          (unsigned long long)a.total);
    /* nothing to say: a tree of one page, a DUPSORT family */
    EQ(ferry_cf_create(s, "tiny", 0, NULL, 0, NULL, &tiny, &err), FERRY_OK);
    split_fill(s, tiny, "t%03d", 0, 10, 1);
    a = split_check(s, NULL, tiny, NULL, NULL, 256, 4096, NULL);
    CHECK(a.ok && a.n == 0, "one page: %d", a.n);
    EQ(ferry_cf_create(s, "dups", FERRY_CF_DUPSORT, NULL, 0, NULL, &dups, &err), FERRY_OK);
    split_fill(s, dups, "d%08d", 0, 5000, 1);
    a = split_check(s, NULL, dups, NULL, NULL, 256, 4096, NULL);
    CHECK(a.ok && a.n == 0, "dupsort: %d", a.n);
    /* misuse */
    uint8_t buf[64];
    size_t len;
    EQ(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 0, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 8, buf, FERRY_SPLIT_HEADER - 1, &len, &err), FERRY_EINVAL);
    EQ(ferry_split_points(NULL, NULL, cf, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_split_points(s, NULL, cf, NULL, 3, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_split_points(s, NULL, 999, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    ferry_txn *t;
    EQ(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    EQ(ferry_split_points(s, FERRY_TXN_VIEW(t), cf, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    EQ(ferry_txn_close(t), FERRY_OK);
    EQ(ferry_cf_drop(s, tiny, &err), FERRY_OK);
    EQ(ferry_split_points(s, NULL, tiny, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_ECFDROPPED);
    ferry_store_close(s);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <liblmdb.so> <scratch dir>\n", argv[0]);
        return 2;
    }
    scratch = argv[2];
    if (test_fresh_dir(scratch) != 0) { fprintf(stderr, "cannot recreate %s\n", scratch); return 2; }
    test_attach(argv[1]);
    if (failed) { printf("%d passed, %d failed\n", passed, failed); return 1; }
    test_page_edges();
    test_many();
    test_pointer_span();
    test_page_walk();
    test_huge_value(argv[1]);
    test_binary_and_get();
    test_writes();
    test_empty_ranges();
    test_drop_while_writing();
    test_drop_while_reading();
    test_reads_never_go_back();
    test_families();
    test_snapshots();
    test_snapshot_families();
    test_lazy_families();
    test_map_full();
    test_open_modes();
    test_checkpoint();
    test_utf8_paths();
    test_dupsort();
    test_cf_options();
    test_txn();
    test_txn_savepoints();
    test_null_handles();
    test_shared_memory_refused();
    test_split_points();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
