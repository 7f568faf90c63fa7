/* RocksDB engine tests: write transactions and their savepoints, and split points.
 * Part of test_rocksdb (test_rocksdb.h). */
#include "test_rocksdb.h"

/* Count the entries of a forward scan through cursor c from op (seek key k). */
static int txn_scan(ferry_cursor *c, int op, const char *k, char *keys, size_t cap)
{
    uint8_t page[4096];
    keys[0] = '\0';
    int n = 0, rc = ferry_cursor_fill(c, op, k, k ? strlen(k) : 0, page, sizeof page, 1000, &err);
    if (rc < 0) return rc;
    hdr h = page_hdr(page);
    size_t off = 16;
    for (uint32_t i = 0; i < h.count; i++) {
        const uint8_t *kk, *vv;
        uint32_t kl, vl;
        off = page_entry(page, off, &kk, &kl, &vv, &vl);
        size_t len = strlen(keys);
        if (len + kl + 2 < cap) { memcpy(keys + len, kk, kl); keys[len + kl] = ','; keys[len + kl + 1] = '\0'; }
        n++;
    }
    return n;
}

/* One put record in buf; returns its length. */
static size_t txrec(uint8_t *buf, uint32_t op, uint32_t cf, const char *a, const char *b)
{
    uint32_t al = (uint32_t)strlen(a), bl = b ? (uint32_t)strlen(b) : 0;
    memcpy(buf, &op, 4); memcpy(buf + 4, &cf, 4); memcpy(buf + 8, &al, 4); memcpy(buf + 12, &bl, 4);
    memcpy(buf + 16, a, al);
    if (bl) memcpy(buf + 16 + al, b, bl);
    return 16 + al + bl;
}

/* Two put records (a, b) in buf; returns their length. */
static size_t txrec2(uint8_t *buf, const char *a, const char *b)
{
    size_t n = txrec(buf, FERRY_OP_PUT, 0, a, "1");
    return n + txrec(buf + n, FERRY_OP_PUT, 0, b, "1");
}

/* Savepoints in both modes: nesting, pop (marked and stepped over: the C API has none), a batch of
 * several records after a savepoint (its own savepoint must not stop the rollback), no savepoint:
 * FERRY_NOTFOUND, after the commit: FERRY_EBADTXN. */
void test_txn_savepoints(void)
{
    char buf[64];
    uint8_t ops[512];
    int saved = txn_mode;
    for (int mode = 1; mode <= 2; mode++) {
        txn_mode = mode;
        ferry_store *s = NULL;
        ferry_txn *t = NULL;
        CHECK_RC(open_store(mode == 1 ? "sp-p" : "sp-o", &s), FERRY_OK);
        if (!s) continue;
        CHECK_RC(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_rollback_to_savepoint(t, &err), FERRY_NOTFOUND);
        CHECK_RC(ferry_txn_pop_savepoint(t, &err), FERRY_NOTFOUND);
        CHECK_RC(ferry_txn_write(t, ops, txrec2(ops, "a", "b"), 2, &err), FERRY_OK);  /* a batch before */
        CHECK_RC(ferry_txn_set_savepoint(t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "x", "1"), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec2(ops, "c", "d"), 2, &err), FERRY_OK);  /* a batch after */
        CHECK_RC(ferry_txn_set_savepoint(t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "e", "1"), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_pop_savepoint(t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "f", "1"), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_rollback_to_savepoint(t, &err), FERRY_OK);   /* x, c, d, e and f go */
        const char *gone[] = { "x", "c", "d", "e", "f" };
        for (int i = 0; i < 5; i++) CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, gone[i], buf, sizeof buf), FERRY_NOTFOUND);
        CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, "a", buf, sizeof buf), FERRY_OK);
        CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), FERRY_OK);
        CHECK_RC(ferry_txn_rollback_to_savepoint(t, &err), FERRY_NOTFOUND);
        CHECK_RC(ferry_txn_set_savepoint(t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_commit(t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_set_savepoint(t, &err), FERRY_EBADTXN);
        CHECK_RC(ferry_txn_rollback_to_savepoint(t, &err), FERRY_EBADTXN);
        CHECK_RC(ferry_txn_close(t), FERRY_OK);
        CHECK_RC(get_s(s, NULL, 0, "b", buf, sizeof buf), FERRY_OK);
        CHECK_RC(get_s(s, NULL, 0, "c", buf, sizeof buf), FERRY_NOTFOUND);
        ferry_store_close(s);
    }
    CHECK_RC(ferry_txn_set_savepoint(NULL, &err), FERRY_EINVAL);
    txn_mode = saved;
}

void test_txn(void)
{
    ferry_store *s = NULL;
    ferry_txn *t = NULL;
    char buf[256];
    uint8_t ops[512];
    int saved = txn_mode;
    txn_mode = 0;
    CHECK_RC(open_store("txn-none", &s), FERRY_OK);
    CHECK_RC(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_ENOTSUP);
    ferry_store_close(s);
    for (int mode = 1; mode <= 2; mode++) {
        txn_mode = mode;
        CHECK_RC(open_store(mode == 1 ? "txn-p" : "txn-o", &s), FERRY_OK);
        if (!s) continue;
        CHECK_RC(put_s(s, 0, "a", "1"), FERRY_OK);
        CHECK_RC(put_s(s, 0, "c", "3"), FERRY_OK);
        CHECK_RC(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "b", "2"), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_DELETE, 0, "c", NULL), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_DELETE_RANGE, 0, "a", "z"), 1, &err), FERRY_ENOTSUP);
        CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), FERRY_OK);
        CHECK_RC(get_s(s, NULL, 0, "b", buf, sizeof buf), FERRY_NOTFOUND);
        CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, "c", buf, sizeof buf), FERRY_NOTFOUND);
        /* value counts through the transaction's view see its writes (a view, not a snapshot) */
        uint64_t count = 9;
        CHECK_RC(ferry_value_count(s, FERRY_TXN_VIEW(t), 0, "b", 1, &count, &err), FERRY_OK);
        CHECK(count == 1, "value count of a key the transaction wrote: %llu", (unsigned long long)count);
        CHECK_RC(ferry_value_count(s, FERRY_TXN_VIEW(t), 0, "c", 1, &count, &err), FERRY_OK);
        CHECK(count == 0, "value count of a key the transaction deleted: %llu", (unsigned long long)count);
        CHECK_RC(ferry_value_count(s, NULL, 0, "c", 1, &count, &err), FERRY_OK);
        CHECK(count == 1, "value count beside the transaction: %llu", (unsigned long long)count);
        CHECK_RC(ferry_snapshot_close(FERRY_TXN_VIEW(t)), FERRY_EINVAL);   /* a view, not a snapshot */
        CHECK_RC(get_s(s, FERRY_TXN_VIEW(t), 0, "b", buf, sizeof buf), FERRY_OK);
        ferry_cursor *c = NULL;
        CHECK_RC(ferry_cursor_open(s, FERRY_TXN_VIEW(t), 0, "a", 1, "c", 1, 0, &c, &err), FERRY_OK);
        char keys[256];
        CHECK(txn_scan(c, FERRY_FIRST, NULL, keys, sizeof keys) == 2 && strcmp(keys, "a,b,") == 0, "txn scan: %s", keys);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "ab", "x"), 1, &err), FERRY_OK);
        uint8_t page[4096];
        CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 10, &err), FERRY_EINVAL);
        CHECK(txn_scan(c, FERRY_FIRST, NULL, keys, sizeof keys) == 3 && strcmp(keys, "a,ab,b,") == 0, "after write: %s", keys);
        size_t vlen;
        CHECK_RC(ferry_txn_get_for_update(t, 0, "a", 1, buf, sizeof buf, &vlen, &err), FERRY_OK);
        if (mode == 1) {   /* a plain write of a locked key times out */
            CHECK_RC(put_s(s, 0, "a", "other"), FERRY_ETIMEDOUT);
        } else {           /* an optimistic commit after someone else wrote the key conflicts */
            CHECK_RC(put_s(s, 0, "a", "other"), FERRY_OK);
        }
        CHECK_RC(ferry_txn_commit(t, &err), mode == 1 ? FERRY_OK : FERRY_ECONFLICT);
        CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), FERRY_EBADTXN);
        CHECK_RC(ferry_txn_commit(t, &err), FERRY_EBADTXN);
        CHECK_RC(ferry_cursor_close(c), FERRY_OK);
        CHECK_RC(ferry_txn_close(t), FERRY_OK);
        CHECK_RC(get_s(s, NULL, 0, "b", buf, sizeof buf), mode == 1 ? FERRY_OK : FERRY_NOTFOUND);
        /* a plain cursor, snapshot and checkpoint on a transactional store */
        ferry_snapshot *sn = NULL;
        CHECK_RC(ferry_snapshot_open(s, &sn, &err), FERRY_OK);
        CHECK_RC(ferry_snapshot_close(sn), FERRY_OK);
        uint32_t cf;
        CHECK_RC(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
        /* a transaction that wrote a family dropped before its commit commits nothing */
        CHECK_RC(ferry_txn_begin(s, 0, 0, &t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, cf, "k", "v"), 1, &err), FERRY_OK);
        /* an open cursor left to ferry_txn_close */
        CHECK_RC(ferry_cursor_open(s, FERRY_TXN_VIEW(t), cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
        if (mode == 2) {
            CHECK_RC(ferry_cf_drop(s, cf, &err), FERRY_OK);
            CHECK_RC(ferry_txn_commit(t, &err), FERRY_ECFDROPPED);
        }
        CHECK_RC(ferry_txn_close(t), FERRY_OK);
        CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), FERRY_EBADTXN);
        CHECK_RC(ferry_cursor_close(c), FERRY_OK);
        CHECK_RC(ferry_checkpoint(s, dir(mode == 1 ? "txn-p-cp" : "txn-o-cp"), 0, &err), FERRY_OK);
        /* left open at store close */
        CHECK_RC(ferry_txn_begin(s, 0, -1, &t, &err), FERRY_OK);
        CHECK_RC(ferry_txn_write(t, ops, txrec(ops, FERRY_OP_PUT, 0, "z", "z"), 1, &err), FERRY_OK);
        CHECK_RC(ferry_txn_close(t), FERRY_OK);
        CHECK_RC(ferry_store_close(s), FERRY_OK);
    }
    txn_mode = saved;
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
void test_split_points(void)
{
    ferry_store *s;
    CHECK_RC(open_store("split", &s), FERRY_OK);
    uint32_t cf;
    CHECK_RC(ferry_cf_create(s, "skew", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    split_fill(s, cf, "a%08d", 0, 45000, 1);      /* 90% of the entries in a dense run */
    split_fill(s, cf, "b%08d", 0, 5000, 1000);    /* 10% spread out */
    /* in the memtable: weighed where the library can (rocksdb_approximate_sizes_cf_with_flags) */
    split_answer a = split_check(s, NULL, cf, NULL, NULL, 256, 1 << 16, "b");
    if (a.n == FERRY_ENOTSUP) {
        CHECK(strstr(err.message, "rocksdb_approximate_sizes_cf_with_flags") != NULL, "%s", err.message);
    } else {
        CHECK(a.ok && a.n >= 16 && a.total > 0, "memtable: %d records", a.n);
        CHECK(a.below >= a.total * 6 / 10, "memtable: weight before 'b' %llu of %llu", (unsigned long long)a.below,
              (unsigned long long)a.total);
    }
    CHECK_RC(ferry_flush(s, cf, &err), FERRY_OK);
    a = split_check(s, NULL, cf, NULL, NULL, 256, 1 << 16, "b");
    CHECK(a.ok && a.n >= 64 && a.n <= 256, "records %d", a.n);
    CHECK(a.below >= a.total * 85 / 100 && a.below <= a.total * 95 / 100, "weight before 'b' %llu of %llu",
          (unsigned long long)a.below, (unsigned long long)a.total);
    a = split_check(s, NULL, cf, "a00010000", "a00020000", 256, 1 << 16, NULL);
    CHECK(a.ok && a.n >= 8, "bounded: %d records", a.n);
    a = split_check(s, NULL, cf, NULL, NULL, 4, 1 << 16, NULL);
    CHECK(a.ok && a.n >= 2 && a.n <= 4, "max 4: %d records", a.n);
    a = split_check(s, NULL, cf, NULL, NULL, 256, FERRY_SPLIT_HEADER, NULL);
    CHECK(a.ok && a.n == 1, "cap of one record: %d", a.n);
    a = split_check(s, NULL, cf, "b", "a", 256, 4096, NULL);
    CHECK(a.ok && a.n == 0, "empty: %d", a.n);
    a = split_check(s, NULL, cf, NULL, "", 256, 4096, NULL);
    CHECK(a.ok && a.n == 0, "empty: %d", a.n);
    a = split_check(s, NULL, cf, "c", NULL, 256, 4096, NULL);
    CHECK(a.ok && a.n == 0, "no key: %d", a.n);
    ferry_snapshot *snap;
    CHECK_RC(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    a = split_check(s, snap, cf, NULL, NULL, 256, 1 << 16, "b");
    CHECK(a.ok && a.n >= 64, "snapshot: %d records", a.n);
    CHECK_RC(ferry_snapshot_close(snap), FERRY_OK);
    uint8_t buf[64];
    size_t len;
    CHECK_RC(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 0, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 8, buf, FERRY_SPLIT_HEADER - 1, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_split_points(NULL, NULL, cf, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 8, NULL, sizeof buf, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_split_points(s, NULL, 999, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_drop(s, cf, &err), FERRY_OK);
    CHECK_RC(ferry_split_points(s, NULL, cf, NULL, 0, NULL, 0, 8, buf, sizeof buf, &len, &err), FERRY_ECFDROPPED);
    ferry_store_close(s);
}
