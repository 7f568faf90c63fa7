/* Native tests of the LMDB engine: test_lmdb <liblmdb.so> <scratch dir>. This file holds the harness
 * (counters, CHECK/EQ, the helpers every section uses), the attach test and main; the tests themselves
 * are in test_lmdb_*.c, declared in test_lmdb.h. */
#include "test_lmdb.h"

int passed, failed;
ferry_error err;
const char *scratch;

/* Count one assertion; print a line when it fails. */
void check_(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
    if (ok) { passed++; return; }
    failed++;
    printf("FAIL %s:%d: %s", file, line, expr);
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
void eq_(long long a, long long b, const char *file, int line, const char *expr)
{
    check_(a == b, file, line, expr, "%lld != %lld (%s)", a, b, err.message);
}

/* ---- helpers ---- */

char *dir_of(const char *name)
{
    static char buf[4][1024];
    static int i;
    char *b = buf[i++ & 3];
    snprintf(b, 1024, "%s/%s", scratch, name);
    return b;
}

void opts_init(int64_t *o)
{
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
}

ferry_store *open_with(const char *name, const int64_t *o, int *rc_out)
{
    ferry_store *s = NULL;
    int rc = ferry_store_open(FERRY_ENGINE_LMDB, dir_of(name), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err);
    if (rc_out) *rc_out = rc;
    return s;
}

ferry_store *open_store(const char *name)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    int rc;
    ferry_store *s = open_with(name, o, &rc);
    if (rc) { printf("cannot open %s: %d %s\n", name, rc, err.message); exit(2); }
    return s;
}

int put_s(ferry_store *s, uint32_t cf, const char *k, const char *v)
{
    return ferry_put(s, cf, k, strlen(k), v, strlen(v), 0, &err);
}

int get_s(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *k, char *dst, size_t cap)
{
    size_t vlen = 0;
    memset(dst, 0, cap);
    int rc = ferry_get(s, snap, cf, k, strlen(k), 0, dst, cap - 1, &vlen, &err);
    return rc == FERRY_OK ? (int)vlen : rc;
}

/* Parse a filled page into entries (copy or pointer mode). Returns the count. */
uint32_t parse_page(const uint8_t *page, entry *out, uint32_t *flags)
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

uint64_t page_used(const uint8_t *page)
{
    uint64_t u;
    memcpy(&u, page + 8, 8);
    return u;
}

void scan_add(scan *sc, const entry *e)
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
scan scan_all(ferry_cursor *c, int op, const void *key, size_t klen, size_t page_cap, uint32_t max)
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

int first_key_is(ferry_cursor *c, int op, const char *key, const char *want)
{
    uint8_t page[256];
    entry e[8];
    uint32_t flags;
    int rc = ferry_cursor_fill(c, op, key, key ? strlen(key) : 0, page, sizeof page, 1, &err);
    if (rc < 0) return 0;
    if (parse_page(page, e, &flags) == 0) return want == NULL;
    return want && e[0].klen == strlen(want) && memcmp(e[0].k, want, e[0].klen) == 0;
}

/* ---- tests (the others: test_lmdb_*.c) ---- */

void test_attach(const char *lib)
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

void many_key(int i, char *k) { snprintf(k, 16, "key%05d", i); }

/* Expected scan text over keys [from, to) forward or reverse. */
char *expected(int from, int to, int reverse)
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

/* Append one batch record. */
size_t rec(uint8_t *b, size_t len, uint32_t op, uint32_t cf, const void *a, uint32_t alen, const void *bb, uint32_t blen)
{
    memcpy(b + len, &op, 4); memcpy(b + len + 4, &cf, 4); memcpy(b + len + 8, &alen, 4); memcpy(b + len + 12, &blen, 4);
    if (alen) memcpy(b + len + 16, a, alen);
    if (blen) memcpy(b + len + 16 + alen, bb, blen);
    return len + 16 + alen + blen;
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
    test_key_order();
    test_callback_order();
    test_txn();
    test_txn_savepoints();
    test_null_handles();
    test_shared_memory_refused();
    test_split_points();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
