/* RocksDB engine tests that main runs on one store in each transaction mode (none, pessimistic,
 * optimistic): pages and cursors, point and multi gets, writes, snapshots, properties.
 * Part of test_rocksdb (test_rocksdb.h). */
#include "test_rocksdb.h"

void test_empty_and_one(ferry_store *s)
{
    uint8_t page[256];
    ferry_cursor *c;
    CHECK_RC(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 0);
    hdr h = page_hdr(page);
    CHECK(h.count == 0 && h.flags == FERRY_PAGE_END && h.used == FERRY_PAGE_HEADER, "empty page %u %u %llu",
          h.count, h.flags, (unsigned long long)h.used);
    CHECK_RC(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, sizeof page, 100, &err), 0);
    CHECK(page_hdr(page).flags == FERRY_PAGE_END, "empty reverse END");
    ferry_cursor_close(c);

    CHECK_RC(put_s(s, 0, "one", "1"), FERRY_OK);
    CHECK_RC(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    h = page_hdr(page);
    const uint8_t *k, *v;
    uint32_t kl, vl;
    /* a pointer page: the value where the engine pinned it, the key copied to the page's end */
    uint64_t ka, va;
    memcpy(&ka, page + FERRY_PAGE_HEADER, 8);
    memcpy(&kl, page + FERRY_PAGE_HEADER + 8, 4);
    memcpy(&vl, page + FERRY_PAGE_HEADER + 12, 4);
    memcpy(&va, page + FERRY_PAGE_HEADER + 16, 8);
    k = (const uint8_t *)(uintptr_t)ka;
    v = (const uint8_t *)(uintptr_t)va;
    CHECK(h.count == 1 && h.flags == (FERRY_PAGE_END | FERRY_PAGE_POINTERS) && h.used == FERRY_PAGE_HEADER + FERRY_PTR_ENTRY,
          "one entry %u %u %llu (pointer page)", h.count, h.flags, (unsigned long long)h.used);
    CHECK(k >= page && k + kl <= page + sizeof page, "the key is copied into the page");
    CHECK(kl == 3 && vl == 1 && memcmp(k, "one", 3) == 0 && v[0] == '1', "one entry content");
    ferry_cursor_close(c);
    /* copy pages unless asked */
    CHECK_RC(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    h = page_hdr(page);
    size_t end = page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(h.count == 1 && h.flags == FERRY_PAGE_END && h.used == end && end == FERRY_PAGE_HEADER + 16,
          "one entry %u %u %llu (copy page)", h.count, h.flags, (unsigned long long)h.used);
    CHECK(kl == 3 && vl == 1 && memcmp(k, "one", 3) == 0 && v[0] == '1', "one entry content");
    /* continuing past the end stays at the end */
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), 0);
    CHECK(page_hdr(page).flags == FERRY_PAGE_END, "END again");
    ferry_cursor_close(c);
    CHECK_RC(ferry_delete(s, 0, "one", 3, &err), FERRY_OK);
}

void test_big_entry(ferry_store *s, uint32_t cf)
{
    char big[1000];
    memset(big, 'B', sizeof big);
    CHECK_RC(put_s(s, cf, "a", "0123456789"), FERRY_OK);
    CHECK_RC(ferry_put(s, cf, "b", 1, big, sizeof big, 0, &err), FERRY_OK);
    CHECK_RC(put_s(s, cf, "c", "0123456789"), FERRY_OK);
    size_t need = FERRY_PAGE_HEADER + ((8 + 1 + 1000 + 7) & ~(size_t)7);
    uint8_t *page = malloc(need);
    ferry_cursor *c;
    CHECK_RC(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, 256, 100, &err), 1);
    CHECK(page_hdr(page).flags == 0, "no END before the big entry");
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, 256, 100, &err), FERRY_ETOOSMALL);
    hdr h = page_hdr(page);
    CHECK(h.count == 0 && h.used == need, "ETOOSMALL needs %llu, want %zu", (unsigned long long)h.used, need);
    /* one byte short is still too small */
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, need - 1, 100, &err), FERRY_ETOOSMALL);
    /* exact fit */
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, need, 100, &err), 1);
    h = page_hdr(page);
    const uint8_t *k, *v;
    uint32_t kl, vl;
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(h.used == need && kl == 1 && k[0] == 'b' && vl == 1000 && memcmp(v, big, 1000) == 0, "big entry whole");
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, 256, 100, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(k[0] == 'c' && page_hdr(page).flags == FERRY_PAGE_END, "after the big entry");
    /* a seek onto the big entry positions the cursor even though it does not fit */
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_GE, "b", 1, page, 256, 100, &err), FERRY_ETOOSMALL);
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, need, 100, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(k[0] == 'b', "retry after seek");
    /* reverse over the big entry */
    CHECK_RC(ferry_cursor_fill(c, FERRY_LAST, NULL, 0, page, 256, 100, &err), 1);
    CHECK_RC(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, 256, 100, &err), FERRY_ETOOSMALL);
    CHECK_RC(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, need, 100, &err), 1);
    CHECK_RC(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, 256, 100, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(k[0] == 'a' && page_hdr(page).flags == FERRY_PAGE_END, "reverse reaches a");
    ferry_cursor_close(c);
    free(page);
}

void test_many(ferry_store *s, uint32_t cf)
{
    enum { N = 1000 };
    char k[32], v[64], want[N * 8 + 1], rwant[N * 8 + 1];
    want[0] = rwant[0] = '\0';
    memset(v, 'v', sizeof v);
    for (int i = 0; i < N; i++) {
        snprintf(k, sizeof k, "k%05d", i);
        ferry_put(s, cf, k, 6, v, (size_t)(i % 50), 0, &err);
        strcat(want, k);
        strcat(want, "\n");
    }
    for (int i = N - 1; i >= 0; i--) {
        snprintf(k, sizeof k, "k%05d", i);
        strcat(rwant, k);
        strcat(rwant, "\n");
    }
    static char got[N * 8 + 64];
    ferry_cursor *c;
    CHECK_RC(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, FERRY_CURSOR_NO_FILL_CACHE, &c, &err), FERRY_OK);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 512, 1000000, got, sizeof got) == N, "forward count");
    CHECK(strcmp(got, want) == 0, "forward order");
    CHECK(scan(c, FERRY_LAST, NULL, 0, FERRY_PREV, 512, 1000000, got, sizeof got) == N, "reverse count");
    CHECK(strcmp(got, rwant) == 0, "reverse order");
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 80, 1000000, got, sizeof got) == N, "forward, page of the largest entry");
    CHECK(strcmp(got, want) == 0, "forward order, page of the largest entry");
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 65536, 7, got, sizeof got) == N, "forward, max 7");
    CHECK(strcmp(got, want) == 0, "forward order, max 7");
    CHECK(scan(c, FERRY_LAST, NULL, 0, FERRY_PREV, 65536, 1, got, sizeof got) == N, "reverse, max 1");
    CHECK(strcmp(got, rwant) == 0, "reverse order, max 1");
    /* END is reported on the page that takes the last entry when max_entries is reached exactly */
    uint8_t page[65536];
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_GE, "k00998", 6, page, sizeof page, 2, &err), 2);
    CHECK(page_hdr(page).flags == FERRY_PAGE_END, "END with max reached");
    /* seeks */
    const uint8_t *ek, *ev;
    uint32_t kl, vl;
    struct { int op; const char *key; const char *first; } seeks[] = {
        {FERRY_SEEK_GE, "k00010", "k00010"}, {FERRY_SEEK_GT, "k00010", "k00011"},
        {FERRY_SEEK_GT, "k00010x", "k00011"}, {FERRY_SEEK_LE, "k00010", "k00010"},
        {FERRY_SEEK_LT, "k00010", "k00009"}, {FERRY_SEEK_LE, "k00010x", "k00010"},
        {FERRY_SEEK_LT, "k00010x", "k00010"}, {FERRY_SEEK_GE, "", "k00000"},
        {FERRY_SEEK_LE, "z", "k00999"},
    };
    for (size_t i = 0; i < sizeof seeks / sizeof seeks[0]; i++) {
        int rc = ferry_cursor_fill(c, seeks[i].op, seeks[i].key, strlen(seeks[i].key), page, sizeof page, 3, &err);
        page_entry(page, FERRY_PAGE_HEADER, &ek, &kl, &ev, &vl);
        CHECK(rc == 3 && kl == 6 && memcmp(ek, seeks[i].first, 6) == 0, "seek op %d '%s': rc %d first '%.*s'",
              seeks[i].op, seeks[i].key, rc, (int)kl, ek);
    }
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_GT, "k00999", 6, page, sizeof page, 3, &err), 0);
    CHECK(page_hdr(page).flags == FERRY_PAGE_END, "SEEK_GT past the end");
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_LT, "k00000", 6, page, sizeof page, 3, &err), 0);
    CHECK(page_hdr(page).flags == FERRY_PAGE_END, "SEEK_LT before the start");
    /* direction */
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_GE, "k00500", 6, page, sizeof page, 3, &err), 3);
    CHECK_RC(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, sizeof page, 3, &err), FERRY_EDIRECTION);
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 1, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &ek, &kl, &ev, &vl);
    CHECK(memcmp(ek, "k00503", 6) == 0, "NEXT continues without skipping: %.*s", (int)kl, ek);
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_LE, "k00500", 6, page, sizeof page, 3, &err), 3);
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 3, &err), FERRY_EDIRECTION);
    CHECK_RC(ferry_cursor_fill(c, FERRY_PREV, NULL, 0, page, sizeof page, 1, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &ek, &kl, &ev, &vl);
    CHECK(memcmp(ek, "k00497", 6) == 0, "PREV continues without skipping: %.*s", (int)kl, ek);
    ferry_cursor_close(c);
    CHECK_RC(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_NEXT, NULL, 0, page, sizeof page, 3, &err), FERRY_EDIRECTION);
    ferry_cursor_close(c);

    /* bounds [k00100, k00200) */
    CHECK_RC(ferry_cursor_open(s, NULL, cf, "k00100", 6, "k00200", 6, 0, &c, &err), FERRY_OK);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 300, 1000, got, sizeof got) == 100, "bounded forward count");
    CHECK(strncmp(got, "k00100\n", 7) == 0 && strcmp(got + 99 * 7, "k00199\n") == 0, "bounded forward range");
    CHECK(scan(c, FERRY_LAST, NULL, 0, FERRY_PREV, 300, 1000, got, sizeof got) == 100, "bounded reverse count");
    CHECK(strncmp(got, "k00199\n", 7) == 0 && strcmp(got + 99 * 7, "k00100\n") == 0, "bounded reverse range");
    CHECK(scan(c, FERRY_SEEK_GE, "k00150", 6, FERRY_NEXT, 300, 1000, got, sizeof got) == 50, "bounded seek");
    CHECK(scan(c, FERRY_SEEK_LE, "k00150", 6, FERRY_PREV, 300, 1000, got, sizeof got) == 51, "bounded seek_le");
    CHECK(scan(c, FERRY_SEEK_GE, "k", 1, FERRY_NEXT, 300, 1000, got, sizeof got) == 100, "seek below lower");
    CHECK(strncmp(got, "k00100\n", 7) == 0, "seek below lower starts at lower");
    ferry_cursor_close(c);
    /* only a lower bound; an empty (non-NULL) upper bound is an empty range */
    CHECK_RC(ferry_cursor_open(s, NULL, cf, "k00990", 6, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 300, 1000, got, sizeof got) == 10, "lower bound only");
    ferry_cursor_close(c);
    CHECK_RC(ferry_cursor_open(s, NULL, cf, NULL, 0, "", 0, 0, &c, &err), FERRY_OK);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 300, 1000, got, sizeof got) == 0, "empty upper bound");
    ferry_cursor_close(c);
    /* bounds are copied */
    char lo[8] = "k00010", hi[8] = "k00013";
    CHECK_RC(ferry_cursor_open(s, NULL, cf, lo, 6, hi, 6, 0, &c, &err), FERRY_OK);
    memset(lo, 0, sizeof lo);
    memset(hi, 0, sizeof hi);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 300, 1000, got, sizeof got) == 3, "bounds copied");
    ferry_cursor_close(c);
}

void test_binary(ferry_store *s, uint32_t cf)
{
    static const uint8_t keys[][4] = {{0}, {0x00}, {0x00, 0x00}, {0x00, 0xFF}, {0x01}, {0xFF}, {0xFF, 0x00}, {0xFF, 0xFF, 0x00}};
    static const size_t lens[] = {0, 1, 2, 2, 1, 1, 2, 3};
    enum { NK = 8 };
    /* insert in reverse so the engine sorts them */
    for (int i = NK - 1; i >= 0; i--) CHECK_RC(ferry_put(s, cf, keys[i], lens[i], NULL, 0, 0, &err), FERRY_OK);
    uint8_t page[1024];
    ferry_cursor *c;
    CHECK_RC(ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), NK);
    size_t off = FERRY_PAGE_HEADER;
    for (int i = 0; i < NK; i++) {
        const uint8_t *k, *v;
        uint32_t kl, vl;
        off = page_entry(page, off, &k, &kl, &v, &vl);
        CHECK(kl == lens[i] && memcmp(k, keys[i], kl) == 0 && vl == 0, "binary key %d (klen %u vlen %u)", i, kl, vl);
    }
    CHECK(off == page_hdr(page).used && page_hdr(page).flags == FERRY_PAGE_END, "binary page end");
    /* seek around 0x00 / 0xFF */
    const uint8_t *k, *v;
    uint32_t kl, vl;
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_GT, keys[1], 1, page, sizeof page, 1, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(kl == 2 && k[0] == 0 && k[1] == 0, "SEEK_GT 00");
    CHECK_RC(ferry_cursor_fill(c, FERRY_SEEK_LT, keys[5], 1, page, sizeof page, 1, &err), 1);
    page_entry(page, FERRY_PAGE_HEADER, &k, &kl, &v, &vl);
    CHECK(kl == 1 && k[0] == 1, "SEEK_LT FF");
    ferry_cursor_close(c);
    size_t vlen = 99;
    uint8_t buf[4];
    CHECK_RC(ferry_get(s, NULL, cf, keys[0], 0, 0, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK(vlen == 0, "empty key, empty value");
}

void test_get_multi(ferry_store *s)
{
    char buf[64];
    char big[1000];
    memset(big, 'x', sizeof big);
    CHECK_RC(put_s(s, 0, "g1", "hello"), FERRY_OK);
    CHECK_RC(ferry_put(s, 0, "g3", 2, big, sizeof big, 0, &err), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "g1", buf, sizeof buf), FERRY_OK);
    CHECK(strcmp(buf, "hello") == 0, "get value %s", buf);
    CHECK_RC(get_s(s, NULL, 0, "g2", buf, sizeof buf), FERRY_NOTFOUND);
    size_t vlen = 0;
    memset(buf, 0, sizeof buf);
    CHECK_RC(ferry_get(s, NULL, 0, "g1", 2, 0, buf, 3, &vlen, &err), FERRY_OK);
    CHECK(vlen == 5 && memcmp(buf, "hel", 3) == 0 && buf[3] == 0, "truncated get");
    CHECK_RC(ferry_get(s, NULL, 0, "g1", 2, 0, NULL, 0, &vlen, &err), FERRY_OK);
    CHECK(vlen == 5, "get length only");

    uint8_t keys[64];
    size_t kn = 0;
    const char *ks[] = {"g1", "g2", "g3", "g1"};
    for (int i = 0; i < 4; i++) {
        uint32_t l = 2;
        memcpy(keys + kn, &l, 4);
        memcpy(keys + kn + 4, ks[i], 2);
        kn += 6;
    }
    int64_t lens[4] = {0, 0, 0, 0};
    uint8_t dst[2048];
    CHECK_RC(ferry_multi_get(s, NULL, 0, 4, keys, kn, 0, dst, sizeof dst, lens, &err), 4);
    CHECK(lens[0] == 5 && lens[1] == -1 && lens[2] == 1000 && lens[3] == 5, "multi lens %lld %lld %lld %lld",
          (long long)lens[0], (long long)lens[1], (long long)lens[2], (long long)lens[3]);
    CHECK(memcmp(dst, "hello", 5) == 0 && dst[5] == 'x' && memcmp(dst + 1005, "hello", 5) == 0, "multi values packed");
    CHECK_RC(ferry_multi_get(s, NULL, 0, 4, keys, kn, 0, dst, 10, lens, &err), 2);
    CHECK(lens[0] == 5 && lens[1] == -1, "partial multi");
    CHECK_RC(ferry_multi_get(s, NULL, 0, 4, keys, kn, 0, dst, 4, lens, &err), FERRY_ETOOSMALL);
    CHECK(lens[0] == 5, "ETOOSMALL reports the first length: %lld", (long long)lens[0]);
    CHECK_RC(ferry_multi_get(s, NULL, 0, 2, keys + 6, kn - 6, 0, dst, 0, lens, &err), 1);
    CHECK(lens[0] == -1, "missing key needs no space");
    CHECK_RC(ferry_multi_get(s, NULL, 0, 4, keys, kn - 1, 0, dst, sizeof dst, lens, &err), FERRY_EINVAL);
}

void test_write(ferry_store *s, uint32_t cf)
{
    char buf[64];
    CHECK_RC(put_s(s, 0, "w-del", "x"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "w-r1", "x"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "w-r2", "x"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "w-r3", "x"), FERRY_OK);
    uint8_t b[1024];
    size_t n = 0;
    n = rec(b, n, FERRY_OP_PUT, 0, "w-a", "A");
    n = rec(b, n, FERRY_OP_PUT, cf, "w-b", "B");
    n = rec(b, n, FERRY_OP_DELETE, 0, "w-del", NULL);
    n = rec(b, n, FERRY_OP_DELETE_RANGE, 0, "w-r1", "w-r3");
    CHECK_RC(ferry_write(s, b, n, 4, 0, &err), FERRY_OK);
    CHECK(get_s(s, NULL, 0, "w-a", buf, sizeof buf) == FERRY_OK && strcmp(buf, "A") == 0, "batch put");
    CHECK(get_s(s, NULL, cf, "w-b", buf, sizeof buf) == FERRY_OK && strcmp(buf, "B") == 0, "batch put cf");
    CHECK_RC(get_s(s, NULL, 0, "w-del", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(get_s(s, NULL, 0, "w-r1", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(get_s(s, NULL, 0, "w-r2", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(get_s(s, NULL, 0, "w-r3", buf, sizeof buf), FERRY_OK);
    /* malformed batches apply nothing */
    n = rec(b, 0, FERRY_OP_PUT, 0, "w-bad", "1");
    size_t good = n;
    n = rec(b, n, 9, 0, "w-bad2", "2");
    CHECK_RC(ferry_write(s, b, n, 2, 0, &err), FERRY_EINVAL);
    n = rec(b, good, FERRY_OP_PUT, 777, "w-bad2", "2");
    CHECK_RC(ferry_write(s, b, n, 2, 0, &err), FERRY_EINVAL);
    CHECK_RC(ferry_write(s, b, good + 5, 2, 0, &err), FERRY_EINVAL);
    CHECK_RC(ferry_write(s, b, good, 2, 0, &err), FERRY_EINVAL);
    CHECK_RC(get_s(s, NULL, 0, "w-bad", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(ferry_write(s, NULL, 0, 0, 0, &err), FERRY_OK);

    /* delete_range */
    const char *dk[] = {"dr1", "dr2", "dr3", "dr4", "dr5"};
    for (int i = 0; i < 5; i++) put_s(s, 0, dk[i], "v");
    CHECK_RC(ferry_delete_range(s, 0, "dr2", 3, "dr4", 3, &err), FERRY_OK);
    int present[5];
    for (int i = 0; i < 5; i++) present[i] = get_s(s, NULL, 0, dk[i], buf, sizeof buf) == FERRY_OK;
    CHECK(present[0] && !present[1] && !present[2] && present[3] && present[4], "delete_range [dr2, dr4)");
    CHECK_RC(ferry_delete(s, 0, "never-there", 11, &err), FERRY_OK);
}

void test_snapshot(ferry_store *s)
{
    char buf[64];
    CHECK_RC(put_s(s, 0, "snap-x", "1"), FERRY_OK);
    ferry_snapshot *snap;
    CHECK_RC(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    CHECK_RC(put_s(s, 0, "snap-x", "2"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "snap-y", "new"), FERRY_OK);
    CHECK(get_s(s, snap, 0, "snap-x", buf, sizeof buf) == FERRY_OK && strcmp(buf, "1") == 0, "snapshot get old: %s", buf);
    CHECK(get_s(s, NULL, 0, "snap-x", buf, sizeof buf) == FERRY_OK && strcmp(buf, "2") == 0, "latest get new");
    CHECK_RC(get_s(s, snap, 0, "snap-y", buf, sizeof buf), FERRY_NOTFOUND);
    char got[256];
    ferry_cursor *c;
    CHECK_RC(ferry_cursor_open(s, snap, 0, "snap-", 5, "snap.", 5, 0, &c, &err), FERRY_OK);
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 256, 100, got, sizeof got) == 1 && strcmp(got, "snap-x\n") == 0,
          "snapshot cursor: %s", got);
    ferry_cursor_close(c);
    CHECK_RC(ferry_cursor_open(s, NULL, 0, "snap-", 5, "snap.", 5, 0, &c, &err), FERRY_OK);
    CHECK_RC(ferry_delete(s, 0, "snap-y", 6, &err), FERRY_OK); /* after the cursor's implicit snapshot */
    CHECK(scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 256, 100, got, sizeof got) == 2, "latest cursor: %s", got);
    ferry_cursor_close(c);
    uint8_t keys[16];
    uint32_t l = 6;
    memcpy(keys, &l, 4);
    memcpy(keys + 4, "snap-x", 6);
    int64_t lens[1];
    char dst[8];
    CHECK_RC(ferry_multi_get(s, snap, 0, 1, keys, 10, 0, dst, sizeof dst, lens, &err), 1);
    CHECK(lens[0] == 1 && dst[0] == '1', "multi_get at snapshot");
    CHECK_RC(ferry_snapshot_close(snap), FERRY_OK);
}

void test_props(ferry_store *s)
{
    uint64_t v = 0;
    CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    CHECK_RC(ferry_compact_range(s, 0, NULL, 0, NULL, 0, &err), FERRY_OK);
    CHECK_RC(ferry_compact_range(s, 0, "a", 1, "z", 1, &err), FERRY_OK);
    CHECK_RC(ferry_property_int(s, 0, "ferry.estimate-num-keys", &v, &err), FERRY_OK);
    CHECK(v > 0, "estimate-num-keys %llu", (unsigned long long)v);
    CHECK_RC(ferry_property_int(s, 0, "rocksdb.num-immutable-mem-table", &v, &err), FERRY_OK);
    CHECK_RC(ferry_property_int(s, 0, "rocksdb.no-such-thing", &v, &err), FERRY_NOTFOUND);
    char buf[32];
    size_t len = 0;
    CHECK_RC(ferry_property(s, 0, "rocksdb.stats", buf, sizeof buf, &len, &err), FERRY_OK);
    CHECK(len > sizeof buf && strlen(buf) == sizeof buf - 1, "stats truncated %zu", len);
    CHECK_RC(ferry_property(s, 0, "rocksdb.no-such-thing", buf, sizeof buf, &len, &err), FERRY_NOTFOUND);
}
