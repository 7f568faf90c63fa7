/* LMDB engine tests: write transactions, their savepoints (nested transactions), null handles, and
 * split points. Part of test_lmdb (test_lmdb.h). */
#include "test_lmdb.h"

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
void test_null_handles(void)
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

void test_txn(void)
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
void test_txn_savepoints(void)
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
