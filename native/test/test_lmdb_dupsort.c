/* LMDB engine tests: DUPSORT families (several values per key). Part of test_lmdb (test_lmdb.h). */
#include "test_lmdb.h"

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

void test_dupsort(void)
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
                items[n] = malloc(sizeof key + 8);
                snprintf(items[n], sizeof key + 8, "%s=%s,", key, val);
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
