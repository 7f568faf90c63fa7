/* Key orders of RocksDB column families (FERRY_CFOPT_KEY_ORDER): reverse bytewise and unsigned 64-bit
 * big-endian, through cursors, range deletes, batches, transactions and reopens. */
#include "test_rocksdb.h"
#include "test_records.h"

/* Keys of a whole scan of cf (FIRST, forward) or of [lower, upper), newline-separated, in out. */
static int scan_cf(ferry_store *s, ferry_snapshot *v, uint32_t cf, const char *lower, const char *upper, int rev,
                   char *out, size_t cap)
{
    ferry_cursor *c = NULL;
    int rc = ferry_cursor_open(s, v, cf, lower, lower ? strlen(lower) : 0, upper, upper ? strlen(upper) : 0, 0, &c, &err);
    CHECK(rc == FERRY_OK, "cursor_open %d %s", rc, err.message);
    if (!c) return -1;
    int n = scan(c, rev ? FERRY_LAST : FERRY_FIRST, NULL, 0, rev ? FERRY_PREV : FERRY_NEXT, 256, 3, out, cap);
    ferry_cursor_close(c);
    return n;
}

static void be64(uint8_t *b, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) b[i] = (uint8_t)v;
}

void test_key_order(void)
{
    ferry_store *s = NULL;
    CHECK_RC(open_store("order", &s), FERRY_OK);
    if (!s) return;
    int64_t rev_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_REVERSE, -1, -1 };
    int64_t u64_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_U64_BE, -1, -1 };
    int64_t bad_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, 3, -1, -1 };
    int64_t neg_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -2, -1, -1 };
    uint32_t rev = 0, u64 = 0, x = 0, fl = 99;
    CHECK_RC(ferry_cf_create(s, "rev", 0, rev_o, FERRY_CFOPT_COUNT, NULL, &rev, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "u64", 0, u64_o, FERRY_CFOPT_COUNT, NULL, &u64, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "x", 0, bad_o, FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, neg_o, FERRY_CFOPT_COUNT, NULL, &x, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, rev_o, FERRY_CFOPT_COUNT, "comparator=rocksdb.ReverseBytewiseComparator", &x,
                             &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_flags(s, rev, &fl, &err), FERRY_OK);
    CHECK(fl == FERRY_CF_ORDER_REVERSE, "rev flags 0x%x", fl);
    CHECK_RC(ferry_cf_flags(s, u64, &fl, &err), FERRY_OK);
    CHECK(fl == FERRY_CF_ORDER_U64_BE, "u64 flags 0x%x", fl);
    CHECK_RC(ferry_cf_flags(s, 0, &fl, &err), FERRY_OK);
    CHECK(fl == 0, "default flags 0x%x", fl);

    /* reverse: scans, bounds in the family's order, range deletes */
    const char *keys[] = { "a", "ab", "b", "c" };
    for (int i = 0; i < 4; i++) CHECK_RC(put_s(s, rev, keys[i], keys[i]), FERRY_OK);
    char out[512];
    CHECK(scan_cf(s, NULL, rev, NULL, NULL, 0, out, sizeof out) == 4 && strcmp(out, "c\nb\nab\na\n") == 0, "rev scan %s", out);
    CHECK(scan_cf(s, NULL, rev, NULL, NULL, 1, out, sizeof out) == 4 && strcmp(out, "a\nab\nb\nc\n") == 0, "rev back %s", out);
    CHECK(scan_cf(s, NULL, rev, "b", "a", 0, out, sizeof out) == 2 && strcmp(out, "b\nab\n") == 0, "rev [b, a) %s", out);
    CHECK(scan_cf(s, NULL, rev, "a", "b", 0, out, sizeof out) == 0, "rev [a, b) is empty: %s", out);
    CHECK_RC(ferry_delete_range(s, rev, "a", 1, "c", 1, &err), FERRY_OK); /* empty in reverse order: nothing */
    CHECK(scan_cf(s, NULL, rev, NULL, NULL, 0, out, sizeof out) == 4, "after an empty range delete %s", out);
    uint8_t b[256];
    size_t n = rec(b, 0, FERRY_OP_DELETE_RANGE, rev, "a", "b");  /* empty: skipped */
    n = rec(b, n, FERRY_OP_DELETE_RANGE, rev, "c", "ab");         /* c, b */
    n = rec(b, n, FERRY_OP_PUT, rev, "d", "d");
    CHECK_RC(ferry_write(s, b, n, 3, 0, &err), FERRY_OK);
    CHECK(scan_cf(s, NULL, rev, NULL, NULL, 0, out, sizeof out) == 3 && strcmp(out, "d\nab\na\n") == 0, "rev after batch %s", out);
    CHECK_RC(put_s(s, rev, "e", "e"), FERRY_OK);  /* writes go on after the skipped record */
    size_t len = 0;
    uint8_t split[256];
    CHECK_RC(ferry_split_points(s, NULL, rev, NULL, 0, NULL, 0, 4, split, sizeof split, &len, &err), 0);
    CHECK_RC(ferry_ingest(s, rev, "/nonexistent.sst", 17, 1, 0, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "'rev'") != NULL, "%s", err.message);

    /* unsigned 64-bit big-endian: numeric order, 8-byte keys only */
    uint8_t k[3][8];
    be64(k[0], 1ull << 40);
    be64(k[1], 1);
    be64(k[2], 256);
    for (int i = 0; i < 3; i++) CHECK_RC(ferry_put(s, u64, k[i], 8, "v", 1, 0, &err), FERRY_OK);
    CHECK_RC(ferry_put(s, u64, "abc", 3, "v", 1, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "'u64'") != NULL, "%s", err.message);
    CHECK_RC(ferry_merge(s, u64, "abc", 3, "v", 1, &err), FERRY_EKEYSIZE);
    n = rec(b, 0, FERRY_OP_PUT, u64, "12345678", "v");
    n = rec(b, n, FERRY_OP_PUT, u64, "123456789", "v");
    CHECK_RC(ferry_write(s, b, n, 2, 0, &err), FERRY_EKEYSIZE);
    char v[8];
    CHECK_RC(get_s(s, NULL, u64, "12345678", v, sizeof v), FERRY_NOTFOUND);  /* nothing of the batch applied */
    CHECK_RC(ferry_delete(s, u64, "abc", 3, &err), FERRY_OK);
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_cursor_open(s, NULL, u64, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    uint8_t page[256];
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 3);
    size_t off = FERRY_PAGE_HEADER;
    for (int i = 0; i < 3; i++) {
        const uint8_t *kk, *vv;
        uint32_t kl, vl;
        off = page_entry(page, off, &kk, &kl, &vv, &vl);
        CHECK(kl == 8 && memcmp(kk, k[(i + 1) % 3], 8) == 0, "u64 entry %d", i);
    }
    ferry_cursor_close(c);
    CHECK_RC(ferry_ingest(s, u64, "/nonexistent.sst", 17, 1, 0, &err), FERRY_ENOTSUP);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    /* reopen: without the families' orders RocksDB refuses, and the message says what to do */
    s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("order"), NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_EENGINEARG);
    CHECK(s == NULL && strstr(err.message, "keyOrder") != NULL && strstr(err.message, "ReverseBytewise") != NULL,
          "%s", err.message);
    uint8_t recs[512];
    n = 0;
    order_rec(recs, &n, "rev", FERRY_ORDER_REVERSE);
    order_rec(recs, &n, "u64", FERRY_ORDER_REVERSE);  /* the wrong one */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("order"), NULL, 0, NULL, recs, n, 2, &s, &err), FERRY_EENGINEARG);
    CHECK(s == NULL && strstr(err.message, "Uint64BigEndian") != NULL, "%s", err.message);
    n = 0;
    order_rec(recs, &n, "rev", FERRY_ORDER_REVERSE);
    order_rec(recs, &n, "u64", FERRY_ORDER_U64_BE);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("order"), NULL, 0, NULL, recs, n, 2, &s, &err), FERRY_OK);
    if (!s) return;
    CHECK_RC(ferry_cf_flags(s, rev, &fl, &err), FERRY_OK);
    CHECK(fl == FERRY_CF_ORDER_REVERSE, "rev flags after reopen 0x%x", fl);
    CHECK_RC(ferry_flush(s, rev, &err), FERRY_OK);
    CHECK(scan_cf(s, NULL, rev, NULL, NULL, 0, out, sizeof out) == 4 && strcmp(out, "e\nd\nab\na\n") == 0, "reopened %s", out);
    CHECK_RC(ferry_put(s, u64, "abc", 3, "v", 1, 0, &err), FERRY_EKEYSIZE);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* A transaction's cursors check their bounds in the family's order. */
void test_key_order_txn(void)
{
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_TRANSACTIONS] = FERRY_TXN_MODE_PESSIMISTIC;
    ferry_store *s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("order-txn"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (!s) return;
    int64_t rev_o[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, FERRY_ORDER_REVERSE, -1, -1 };
    uint32_t rev = 0;
    CHECK_RC(ferry_cf_create(s, "rev", 0, rev_o, FERRY_CFOPT_COUNT, NULL, &rev, &err), FERRY_OK);
    CHECK_RC(put_s(s, rev, "a", "a"), FERRY_OK);
    CHECK_RC(put_s(s, rev, "c", "c"), FERRY_OK);
    ferry_txn *t = NULL;
    CHECK_RC(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
    if (!t) { ferry_store_close(s); return; }
    uint8_t b[64];
    size_t n = rec(b, 0, FERRY_OP_PUT, rev, "b", "b");
    n = rec(b, n, FERRY_OP_PUT, rev, "d", "d");
    CHECK_RC(ferry_txn_write(t, b, n, 2, &err), FERRY_OK);
    char out[256];
    CHECK(scan_cf(s, FERRY_TXN_VIEW(t), rev, "c", "a", 0, out, sizeof out) == 2 && strcmp(out, "c\nb\n") == 0,
          "txn rev [c, a) %s", out);
    CHECK(scan_cf(s, FERRY_TXN_VIEW(t), rev, "c", "a", 1, out, sizeof out) == 2 && strcmp(out, "b\nc\n") == 0,
          "txn rev [c, a) backwards %s", out);
    CHECK(scan_cf(s, FERRY_TXN_VIEW(t), rev, NULL, NULL, 0, out, sizeof out) == 4 && strcmp(out, "d\nc\nb\na\n") == 0,
          "txn rev all %s", out);
    CHECK_RC(ferry_txn_close(t), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}
