/* TTL families (FERRY_CFOPT_TTL_MS): expired values hidden from reads, dropped by compactions, on
 * the store's TTL clock; the timestamp at a configurable offset. */
#include "test_rocksdb.h"

/* value = pad bytes of 'p', the big-endian ms timestamp, then tail */
static size_t ttl_value(uint8_t *b, int pad, int64_t ts, const char *tail)
{
    memset(b, 'p', (size_t)pad);
    for (int i = 0; i < 8; i++) b[pad + i] = (uint8_t)((uint64_t)ts >> (56 - 8 * i));
    size_t n = strlen(tail);
    memcpy(b + pad + 8, tail, n);
    return (size_t)pad + 8 + n;
}

static int count_entries(ferry_store *s, ferry_snapshot *v, uint32_t cf, char *out, size_t cap)
{
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_cursor_open(s, v, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    if (!c) return -1;
    int n = scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 256, 2, out, cap);
    ferry_cursor_close(c);
    return n;
}

static void ttl_rec(uint8_t *b, size_t *n, const char *name, int64_t ttl, int64_t off)
{
    int64_t o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, ttl, off };
    uint32_t nl = (uint32_t)strlen(name), el = 0;
    memcpy(b + *n, &nl, 4);
    memcpy(b + *n + 4, &el, 4);
    memcpy(b + *n + 8, o, sizeof o);
    memcpy(b + *n + FERRY_CFDESC_HEADER, name, nl);
    *n += FERRY_CFDESC_HEADER + nl;
}

void test_ttl(void)
{
    ferry_store *s = NULL;
    CHECK_RC(open_store("ttl", &s), FERRY_OK);
    if (!s) return;
    int64_t t_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, 1000, -1 };
    int64_t m_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, 500, 1 };
    int64_t bad[][FERRY_CFOPT_COUNT] = {
        { -1, -1, -1, -1, -1, 0, -1 }, { -1, -1, -1, -1, -1, -5, -1 }, { -1, -1, -1, -1, -1, -1, 0 },
        { -1, -1, -1, -1, -1, 10, FERRY_CFOPT_MAX_TTL_OFFSET + 1 }, { -1, -1, -1, -1, -1, 10, -2 },
    };
    uint32_t t = 0, m = 0, x = 0;
    CHECK_RC(ferry_cf_create(s, "t", 0, t_o, FERRY_CFOPT_COUNT, NULL, &t, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "m", 0, m_o, FERRY_CFOPT_COUNT, NULL, &m, &err), FERRY_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_RC(ferry_cf_create(s, "x", 0, bad[i], FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_EINVAL);
    CHECK_RC(ferry_ttl_clock(NULL, 1, &err), FERRY_EINVAL);
    CHECK_RC(ferry_ttl_clock(s, 10000, &err), FERRY_OK);

    uint8_t v[64];
    size_t n = ttl_value(v, 0, 9500, "live");    /* expires at 10500 */
    CHECK_RC(ferry_put(s, t, "k1", 2, v, n, 0, &err), FERRY_OK);
    n = ttl_value(v, 0, 9000, "dead");           /* expired at 10000 (<= now) */
    CHECK_RC(ferry_put(s, t, "k2", 2, v, n, 0, &err), FERRY_OK);
    CHECK_RC(ferry_put(s, t, "k3", 2, "short", 5, 0, &err), FERRY_OK);  /* no timestamp: never expires */
    n = ttl_value(v, 1, 9600, "m");               /* Flink map state: timestamp at offset 1 */
    CHECK_RC(ferry_put(s, m, "a", 1, v, n, 0, &err), FERRY_OK);
    n = ttl_value(v, 1, 9400, "m");               /* expired at 9900 */
    CHECK_RC(ferry_put(s, m, "b", 1, v, n, 0, &err), FERRY_OK);

    char buf[64], out[256];
    size_t vlen = 0;
    CHECK_RC(ferry_get(s, NULL, t, "k1", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, t, "k2", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_get(s, NULL, t, "k2", 2, 0, NULL, 0, &vlen, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_get(s, NULL, t, "k3", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, m, "a", 1, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, m, "b", 1, 0, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    uint8_t keys[32];
    uint32_t kl = 2;
    memcpy(keys, &kl, 4); memcpy(keys + 4, "k1", 2);
    memcpy(keys + 6, &kl, 4); memcpy(keys + 10, "k2", 2);
    int64_t lens[2];
    uint8_t vals[64];
    CHECK_RC(ferry_multi_get(s, NULL, t, 2, keys, 12, 0, vals, sizeof vals, lens, &err), 2);
    CHECK(lens[0] == 12 && lens[1] == -1, "multi_get lens %lld %lld", (long long)lens[0], (long long)lens[1]);
    CHECK(count_entries(s, NULL, t, out, sizeof out) == 2 && strcmp(out, "k1\nk3\n") == 0, "scan %s", out);
    uint64_t cnt = 9;
    CHECK_RC(ferry_value_count(s, NULL, t, "k2", 2, &cnt, &err), FERRY_OK);
    CHECK(cnt == 0, "value count of an expired key %llu", (unsigned long long)cnt);

    /* hidden, not gone: an earlier clock shows it again; a compaction at 10000 drops it */
    CHECK_RC(ferry_ttl_clock(s, 0, &err), FERRY_OK);
    CHECK(count_entries(s, NULL, t, out, sizeof out) == 3, "scan at time 0 %s", out);
    CHECK_RC(ferry_ttl_clock(s, 10000, &err), FERRY_OK);
    CHECK_RC(ferry_flush(s, t, &err), FERRY_OK);
    CHECK_RC(ferry_compact_range(s, t, NULL, 0, NULL, 0, &err), FERRY_OK);
    CHECK_RC(ferry_ttl_clock(s, -1, &err), FERRY_OK);   /* the wall clock: far later, all expire */
    CHECK(count_entries(s, NULL, t, out, sizeof out) == 1 && strcmp(out, "k3\n") == 0, "wall clock %s", out);
    CHECK_RC(ferry_ttl_clock(s, 0, &err), FERRY_OK);
    CHECK(count_entries(s, NULL, t, out, sizeof out) == 2 && strcmp(out, "k1\nk3\n") == 0, "after compaction %s", out);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    /* reopen: with the records the TTL holds (a new store starts on the wall clock) */
    uint8_t recs[256];
    size_t rn = 0;
    ttl_rec(recs, &rn, "t", 1000, 0);
    ttl_rec(recs, &rn, "m", 500, 1);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("ttl"), NULL, 0, NULL, recs, rn, 2, &s, &err), FERRY_OK);
    if (!s) return;
    CHECK_RC(ferry_get(s, NULL, t, "k1", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_get(s, NULL, t, "k3", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK_RC(ferry_ttl_clock(s, 9000, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, t, "k1", 2, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* Open "name" with FERRY_OPT_TTL_SECONDS ttl (-1: plain) and extra options o2/v2 (o2 < 0: none). */
static int open_ttl(const char *path, int64_t ttl, int o2, int64_t v2, ferry_store **s)
{
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_TTL_SECONDS] = ttl;
    if (o2 >= 0) o[o2] = v2;
    *s = NULL;
    return ferry_store_open(FERRY_ENGINE_ROCKSDB, path, o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, s, &err);
}

/* TTL stores (RocksDB's DBWithTTL): the suffix never shows; what would bypass the TTL layer is refused. */
void test_ttl_store(void)
{
    char path[4096], cp[4096], plain[4096];
    snprintf(path, sizeof path, "%s", dir("ttlstore"));
    snprintf(cp, sizeof cp, "%s", dir("ttlstore-cp"));
    snprintf(plain, sizeof plain, "%s", dir("ttlstore-plain"));
    ferry_store *s = NULL;
    CHECK_RC(open_ttl(path, -5, -1, 0, &s), FERRY_EINVAL);
    CHECK_RC(open_ttl(path, 100, FERRY_OPT_TRANSACTIONS, FERRY_TXN_MODE_PESSIMISTIC, &s), FERRY_EINVAL);
    CHECK_RC(open_ttl(path, 100, FERRY_OPT_TRANSACTIONS, FERRY_TXN_MODE_OPTIMISTIC, &s), FERRY_EINVAL);
    CHECK_RC(open_ttl(path, 100, -1, 0, &s), FERRY_OK);
    if (!s) return;
    char buf[64], out[256];
    size_t vlen = 0;
    uint32_t f = 0;
    CHECK_RC(put_s(s, 0, "k", "v"), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "f", 0, NULL, 0, NULL, &f, &err), FERRY_OK);
    CHECK_RC(put_s(s, f, "a", "xy"), FERRY_OK);
    uint8_t b[64];
    size_t n = rec(b, 0, FERRY_OP_PUT, f, "b", "xyz");
    CHECK_RC(ferry_write(s, b, n, 1, 0, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, 0, "k", 1, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK(vlen == 1 && buf[0] == 'v', "TTL store get: %zu bytes", vlen);
    CHECK_RC(ferry_get(s, NULL, f, "b", 1, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK(vlen == 3, "TTL store batch value: %zu bytes", vlen);
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_cursor_open(s, NULL, f, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    uint8_t page[256];
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 2);
    const uint8_t *kk, *vv;
    uint32_t kl, vl;
    size_t off = page_entry(page, FERRY_PAGE_HEADER, &kk, &kl, &vv, &vl);
    CHECK(vl == 2, "TTL store cursor value: %u bytes", vl);
    page_entry(page, off, &kk, &kl, &vv, &vl);
    CHECK(vl == 3, "TTL store cursor value: %u bytes", vl);
    ferry_cursor_close(c);
    CHECK_RC(ferry_ingest(s, 0, "/nonexistent.sst", 17, 1, 0, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "TTL") != NULL, "%s", err.message);
    CHECK_RC(ferry_checkpoint(s, cp, 0, &err), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    /* plain opens of the store and of its checkpoint are refused; TTL opens read the values whole */
    CHECK_RC(open_ttl(path, -1, -1, 0, &s), FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "TTL store") != NULL, "%s", err.message);
    CHECK_RC(open_ttl(cp, -1, -1, 0, &s), FERRY_EINVAL);
    CHECK_RC(open_ttl(cp, 100, FERRY_OPT_READ_ONLY, 1, &s), FERRY_ENOTSUP);
    CHECK_RC(open_ttl(cp, 50, -1, 0, &s), FERRY_OK);
    if (s) {
        CHECK_RC(ferry_cf_find(s, "f", &f, &err), FERRY_OK);
        CHECK_RC(ferry_get(s, NULL, f, "a", 1, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
        CHECK(vlen == 2, "checkpoint of a TTL store: %zu bytes", vlen);
        CHECK_RC(ferry_store_close(s), FERRY_OK);
    }
    /* a plain store with data is no TTL store */
    CHECK_RC(open_ttl(plain, -1, -1, 0, &s), FERRY_OK);
    if (s) {
        CHECK_RC(put_s(s, 0, "k", "v"), FERRY_OK);
        CHECK_RC(ferry_store_close(s), FERRY_OK);
    }
    CHECK_RC(open_ttl(plain, 100, -1, 0, &s), FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "not a TTL store") != NULL, "%s", err.message);
    (void)out;
}

/* Secondary instances: they see the primary's writes as of their open and of each catch-up, and write nothing. */
void test_secondary(void)
{
    char path[4096], sec[4096];
    snprintf(path, sizeof path, "%s", dir("primary"));
    snprintf(sec, sizeof sec, "%s", dir("secondary"));
    ferry_store *p = NULL, *s = NULL;
    CHECK_RC(ferry_store_open_secondary(path, sec, NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_NOTFOUND);
    CHECK_RC(open_store("primary", &p), FERRY_OK);
    if (!p) return;
    CHECK_RC(put_s(p, 0, "a", "1"), FERRY_OK);
    CHECK_RC(ferry_flush(p, 0, &err), FERRY_OK);
    CHECK_RC(put_s(p, 0, "b", "2"), FERRY_OK);
    CHECK_RC(ferry_store_open_secondary(path, path, NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open_secondary(path, NULL, NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_TRANSACTIONS] = FERRY_TXN_MODE_PESSIMISTIC;
    CHECK_RC(ferry_store_open_secondary(path, sec, o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open_secondary(path, sec, NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (!s) { ferry_store_close(p); return; }
    char buf[16];
    CHECK_RC(get_s(s, NULL, 0, "a", buf, sizeof buf), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "b", buf, sizeof buf), FERRY_OK);  /* replayed from the primary's log */
    CHECK_RC(put_s(p, 0, "c", "3"), FERRY_OK);
    CHECK_RC(ferry_flush(p, 0, &err), FERRY_OK);
    CHECK_RC(put_s(p, 0, "d", "4"), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "c", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(ferry_catch_up(s, &err), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "c", buf, sizeof buf), FERRY_OK);
    CHECK(strcmp(buf, "3") == 0, "c = %s", buf);
    CHECK_RC(get_s(s, NULL, 0, "d", buf, sizeof buf), FERRY_OK);
    CHECK_RC(put_s(s, 0, "x", "y"), FERRY_EREADONLY);
    CHECK_RC(ferry_catch_up(p, &err), FERRY_EINVAL);
    CHECK_RC(ferry_catch_up(NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
    CHECK_RC(ferry_store_close(p), FERRY_OK);
}
