/* Key orders of LMDB column families (FERRY_CFOPT_KEY_ORDER): the order kept in the database's flags,
 * LMDB's comparison set at every open of the handle, cursors and range deletes in the family's order,
 * the refusals (DUPSORT, other options), and reopens with and without the order (also of a compacted
 * checkpoint, which LMDB copies page by page). And families ordered by a ferry_comparator (a C callback
 * here, as the bindings' trampolines are): its order, its name checked at reopen, and a failing one. */
#include "test_lmdb.h"
#include "test_records.h"

static int open_recs(const char *dir, const uint8_t *recs, size_t len, uint32_t n, ferry_store **s)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    *s = NULL;
    return ferry_store_open(FERRY_ENGINE_LMDB, dir, o, FERRY_OPT_COUNT, NULL, recs, len, n, s, &err);
}

/* The "key=value," text of [lower, upper) of cf, forward or backward. */
static char *scan_text(ferry_store *s, uint32_t cf, const char *lower, const char *upper, int back)
{
    ferry_cursor *c = NULL;
    int rc = ferry_cursor_open(s, NULL, cf, lower, lower ? strlen(lower) : 0, upper, upper ? strlen(upper) : 0, 0, &c,
                               &err);
    EQ(rc, FERRY_OK);
    if (rc) return strdup("");
    scan sc = scan_all(c, back ? FERRY_LAST : FERRY_FIRST, NULL, 0, 256, 3);
    EQ(sc.err, 0);
    ferry_cursor_close(c);
    return sc.text;
}

static void expect_text(ferry_store *s, uint32_t cf, const char *lower, const char *upper, int back, const char *want)
{
    char *got = scan_text(s, cf, lower, upper, back);
    size_t n = strlen(want);   /* scan_all ends every entry with ',' */
    CHECK(strlen(got) == n + (n > 0) && strncmp(got, want, n) == 0, "scan [%s, %s)%s: got '%s', want '%s'", lower ? lower : "-", upper ? upper : "-",
          back ? " backward" : "", got, want);
    free(got);
}

void test_key_order(void)
{
    ferry_store *s = open_store("order");
    int64_t rev_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_REVERSE, -1, -1 };
    int64_t u64_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_U64_BE, -1, -1 };
    int64_t bad_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, 7, -1, -1 };
    int64_t lz4_rev[FERRY_CFOPT_COUNT] = { FERRY_COMPRESSION_LZ4, -1, -1, -1, FERRY_ORDER_REVERSE, -1, -1 };
    uint32_t rev = 0, u64 = 0, x = 0, fl = 99;
    EQ(ferry_cf_create(s, "rev", 0, rev_o, FERRY_CFOPT_COUNT, NULL, &rev, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "u64", 0, u64_o, FERRY_CFOPT_COUNT, NULL, &u64, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "x", FERRY_CF_DUPSORT, rev_o, FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "DUPSORT") != NULL, "%s", err.message);
    EQ(ferry_cf_create(s, "x", 0, lz4_rev, FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_ENOTSUP);
    EQ(ferry_cf_create(s, "x", 0, bad_o, FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_EINVAL);
    EQ(ferry_cf_flags(s, rev, &fl, &err), FERRY_OK);
    EQ(fl, FERRY_CF_ORDER_REVERSE);
    EQ(ferry_cf_flags(s, u64, &fl, &err), FERRY_OK);
    EQ(fl, FERRY_CF_ORDER_U64_BE);

    /* reverse: LMDB's tree, the cursor's bounds and the range deletes all in the family's order */
    const char *keys[] = { "a", "ab", "b", "c", "d" };
    for (int i = 0; i < 5; i++) EQ(put_s(s, rev, keys[i], keys[i]), FERRY_OK);
    expect_text(s, rev, NULL, NULL, 0, "d=d,c=c,b=b,ab=ab,a=a");
    expect_text(s, rev, NULL, NULL, 1, "a=a,ab=ab,b=b,c=c,d=d");
    expect_text(s, rev, "c", "a", 0, "c=c,b=b,ab=ab");
    expect_text(s, rev, "c", "a", 1, "ab=ab,b=b,c=c");
    expect_text(s, rev, "a", "c", 0, "");
    ferry_cursor *c = NULL;
    EQ(ferry_cursor_open(s, NULL, rev, "c", 1, "a", 1, 0, &c, &err), FERRY_OK);
    EQ(first_key_is(c, FERRY_SEEK_GE, "bb", "b"), 1);   /* the first key at or below "bb" bytewise */
    EQ(first_key_is(c, FERRY_SEEK_GE, "z", "c"), 1);    /* clamped to the lower bound */
    ferry_cursor_close(c);
    EQ(ferry_delete_range(s, rev, "a", 1, "c", 1, &err), FERRY_OK);   /* empty in reverse order */
    expect_text(s, rev, NULL, NULL, 0, "d=d,c=c,b=b,ab=ab,a=a");
    EQ(ferry_delete_range(s, rev, "c", 1, "ab", 2, &err), FERRY_OK);  /* c and b */
    expect_text(s, rev, NULL, NULL, 0, "d=d,ab=ab,a=a");

    /* 64-bit keys: 8 bytes only, in numeric order */
    EQ(put_s(s, u64, "abc", "v"), FERRY_EKEYSIZE);
    EQ(put_s(s, u64, "00000002", "2"), FERRY_OK);
    EQ(put_s(s, u64, "00000001", "1"), FERRY_OK);
    expect_text(s, u64, NULL, NULL, 0, "00000001=1,00000002=2");
    EQ(ferry_checkpoint(s, dir_of("order-copy"), FERRY_CHECKPOINT_COMPACT, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);

    /* reopen: without the orders, with a wrong one, with both (also the compacted copy) */
    uint8_t recs[256];
    size_t n = 0;
    EQ(open_recs(dir_of("order"), NULL, 0, 0, &s), FERRY_EINVAL);
    CHECK(strstr(err.message, "REVERSE_BYTEWISE") && strstr(err.message, "keyOrder"), "%s", err.message);
    EQ(s == NULL, 1);
    order_rec(recs, &n, "rev", FERRY_ORDER_REVERSE);
    order_rec(recs, &n, "u64", FERRY_ORDER_REVERSE);
    EQ(open_recs(dir_of("order"), recs, n, 2, &s), FERRY_EINVAL);
    CHECK(strstr(err.message, "UINT64_BIG_ENDIAN") != NULL, "%s", err.message);
    n = 0;
    order_rec(recs, &n, "rev", FERRY_ORDER_REVERSE);
    order_rec(recs, &n, "u64", FERRY_ORDER_U64_BE);
    const char *dirs[] = { dir_of("order"), dir_of("order-copy") };
    for (int i = 0; i < 2; i++) {
        EQ(open_recs(dirs[i], recs, n, 2, &s), FERRY_OK);
        if (!s) continue;
        EQ(ferry_cf_find(s, "rev", &rev, &err), FERRY_OK);
        EQ(ferry_cf_flags(s, rev, &fl, &err), FERRY_OK);
        EQ(fl, FERRY_CF_ORDER_REVERSE);
        expect_text(s, rev, NULL, NULL, 0, "d=d,ab=ab,a=a");
        EQ(put_s(s, rev, "b", "b"), FERRY_OK);
        expect_text(s, rev, NULL, NULL, 0, "d=d,b=b,ab=ab,a=a");
        EQ(ferry_store_close(s), FERRY_OK);
    }
    /* read-only: the comparison is set in the read transaction that lists the families */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    s = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("order"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("order"), o, FERRY_OPT_COUNT, NULL, recs, n, 2, &s, &err), FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_find(s, "rev", &rev, &err), FERRY_OK);
    expect_text(s, rev, "c", NULL, 0, "b=b,ab=ab,a=a");
    EQ(ferry_store_close(s), FERRY_OK);
}

/* A comparator callback: reverse bytewise; token 2 fails on the key "boom". */
static int32_t rev_cb(int64_t token, const void *a, size_t al, const void *b, size_t bl, int32_t *failed)
{
    if (token == 2 && ((al == 4 && memcmp(a, "boom", 4) == 0) || (bl == 4 && memcmp(b, "boom", 4) == 0))) {
        *failed = 1;
        return 0;
    }
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (!c) c = (al > bl) - (al < bl);
    return -c;
}

/* "comparator=<token>" for c, the string ferry_cf_create and family records name it by. */
static void cmp_opts(ferry_comparator *c, char *dst, size_t cap)
{
    snprintf(dst, cap, "comparator=ferry.comparator.%llu", (unsigned long long)(uintptr_t)c);
}

static void cmp_rec(uint8_t *b, size_t *n, const char *name, const char *extra)
{
    int64_t o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, -1, -1 };
    uint32_t nl = (uint32_t)strlen(name), el = (uint32_t)strlen(extra);
    memcpy(b + *n, &nl, 4);
    memcpy(b + *n + 4, &el, 4);
    memcpy(b + *n + 8, o, sizeof o);
    memcpy(b + *n + FERRY_CFDESC_HEADER, name, nl);
    memcpy(b + *n + FERRY_CFDESC_HEADER + nl, extra, el);
    *n += FERRY_CFDESC_HEADER + nl + el;
}

void test_callback_order(void)
{
    ferry_comparator *good = NULL, *other = NULL, *failing = NULL;
    EQ(ferry_comparator_create("test.Reverse", 1, (void *)(intptr_t)rev_cb, &good, &err), FERRY_OK);
    EQ(ferry_comparator_create("test.Other", 1, (void *)(intptr_t)rev_cb, &other, &err), FERRY_OK);
    EQ(ferry_comparator_create("test.Reverse", 2, (void *)(intptr_t)rev_cb, &failing, &err), FERRY_OK);
    char g[96], o[96], f[96];
    cmp_opts(good, g, sizeof g);
    cmp_opts(other, o, sizeof o);
    cmp_opts(failing, f, sizeof f);
    ferry_store *s = open_store("cb-order");
    int64_t none[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, -1, -1 };
    int64_t rev_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_REVERSE, -1, -1 };
    uint32_t cf = 0, x = 0, fl = 0;
    EQ(ferry_cf_create(s, "x", 0, rev_o, FERRY_CFOPT_COUNT, g, &x, &err), FERRY_EINVAL);   /* one order */
    EQ(ferry_cf_create(s, "x", 0, none, FERRY_CFOPT_COUNT, "comparator=ferry.comparator.12", &x, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "ferry.comparators", 0, none, 0, NULL, &x, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "ordered", 0, none, FERRY_CFOPT_COUNT, g, &cf, &err), FERRY_OK);
    EQ(ferry_cf_flags(s, cf, &fl, &err), FERRY_OK);
    EQ(fl, FERRY_CF_ORDER_CALLBACK);
    const char *keys[] = { "a", "ab", "b", "c" };
    for (int i = 0; i < 4; i++) EQ(put_s(s, cf, keys[i], keys[i]), FERRY_OK);
    expect_text(s, cf, NULL, NULL, 0, "c=c,b=b,ab=ab,a=a");
    expect_text(s, cf, "b", "a", 0, "b=b,ab=ab");
    EQ(ferry_delete_range(s, cf, "c", 1, "ab", 2, &err), FERRY_OK);   /* c and b */
    expect_text(s, cf, NULL, NULL, 0, "ab=ab,a=a");
    uint32_t n = 0;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 2);   /* Ferry's database of comparator names is no family */
    EQ(ferry_store_close(s), FERRY_OK);

    uint8_t recs[512];
    size_t len = 0;
    EQ(open_recs(dir_of("cb-order"), NULL, 0, 0, &s), FERRY_EINVAL);
    CHECK(strstr(err.message, "test.Reverse") != NULL, "%s", err.message);
    cmp_rec(recs, &len, "ordered", o);
    EQ(open_recs(dir_of("cb-order"), recs, len, 1, &s), FERRY_EINVAL);
    CHECK(strstr(err.message, "test.Other") != NULL, "%s", err.message);
    /* the failing one has the right name: the order is its to keep */
    len = 0;
    cmp_rec(recs, &len, "ordered", f);
    EQ(open_recs(dir_of("cb-order"), recs, len, 1, &s), FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_find(s, "ordered", &cf, &err), FERRY_OK);
    EQ(put_s(s, cf, "boom", "x"), FERRY_EABORTED);      /* its write transaction is not committed */
    EQ(put_s(s, cf, "d", "d"), FERRY_EABORTED);         /* the family is refused until a reopen */
    EQ(put_s(s, 0, "k", "v"), FERRY_OK);                /* the store's other families go on */
    EQ(ferry_store_close(s), FERRY_OK);
    len = 0;
    cmp_rec(recs, &len, "ordered", g);
    EQ(open_recs(dir_of("cb-order"), recs, len, 1, &s), FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_find(s, "ordered", &cf, &err), FERRY_OK);
    expect_text(s, cf, NULL, NULL, 0, "ab=ab,a=a");
    EQ(ferry_cf_drop(s, cf, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "ordered", 0, none, FERRY_CFOPT_COUNT, o, &cf, &err), FERRY_OK);   /* a new family */
    EQ(put_s(s, cf, "a", "a"), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
    len = 0;
    cmp_rec(recs, &len, "ordered", o);
    EQ(open_recs(dir_of("cb-order"), recs, len, 1, &s), FERRY_OK);
    if (s) EQ(ferry_store_close(s), FERRY_OK);
    ferry_comparator_close(good);
    ferry_comparator_close(other);
    ferry_comparator_close(failing);
}
