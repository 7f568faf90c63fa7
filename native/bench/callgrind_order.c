/* callgrind_order: what a key order costs on LMDB, op for op, for instruction counts under valgrind
 * (docs/benchmarks.md, "Key orders on LMDB"). One store, three families with the same entries: "bytewise"
 * (LMDB's own comparison), "reverse" (FERRY_ORDER_REVERSE: Ferry's comparison given to mdb_set_compare,
 * and cursor bounds compared through ferry_slot_cmp) and "callback" (reverse bytewise again, in a C
 * ferry_compare_fn through a ferry_comparator: the path of a JavaComparator without the call into Java).
 * Each loop is a function of its own, so callgrind's inclusive count of it, taken at two N, gives the cost
 * per operation.
 *
 *   callgrind_order prepare <engine-lib> <dir> <entries>
 *   callgrind_order run     <engine-lib> <dir> <ops>      (gets and scanned entries per family)
 *   callgrind_order check   <engine-lib> <dir>            (prepare + run, both families give the same sums)
 *
 * Gets go through the whole key set in one pseudo-random order; a scan fills 64 KiB copy pages from the
 * family's first key (the reverse family's scan walks the same entries from the other end). */
#include "ferry.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY 16
#define VALUE 100
#define PAGE (64 * 1024)
#define NOINLINE __attribute__((noinline, noipa)) /* noipa: no identical-code folding of the op_ loops */
#define NOT_TAIL(call) ({ int64_t r_ = (call); __asm__ volatile("" : "+r"(r_)); r_; })

static void key_of(uint8_t *k, long long i)
{
    char b[32];
    snprintf(b, sizeof b, "key%013lld", i % 10000000000000LL);
    memcpy(k, b, KEY);
    k[KEY] = '\0';
}

/* The comparator callback of the "callback" family: reverse bytewise. */
static int32_t rev_cb(int64_t token, const void *a, size_t al, const void *b, size_t bl, int32_t *failed)
{
    (void)token;
    (void)failed;
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (!c) c = (al > bl) - (al < bl);
    return -c;
}

static ferry_comparator *cmp;

static void add_rec(uint8_t *b, size_t *n, const char *name, const int64_t *opts, const char *extra)
{
    uint32_t nl = (uint32_t)strlen(name), el = (uint32_t)strlen(extra);
    memcpy(b + *n, &nl, 4);
    memcpy(b + *n + 4, &el, 4);
    memcpy(b + *n + 8, opts, sizeof(int64_t) * FERRY_CFOPT_COUNT);
    memcpy(b + *n + FERRY_CFDESC_HEADER, name, nl);
    memcpy(b + *n + FERRY_CFDESC_HEADER + nl, extra, el);
    *n += FERRY_CFDESC_HEADER + nl + el;
}

static ferry_store *open_store(const char *dir, uint32_t *fwd, uint32_t *rev, uint32_t *cb)
{
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_MAP_SIZE] = (int64_t)1 << 30;
    int64_t ro[FERRY_CFOPT_COUNT];
    for (int i = 0; i < FERRY_CFOPT_COUNT; i++) ro[i] = -1;
    ro[FERRY_CFOPT_KEY_ORDER] = FERRY_ORDER_REVERSE;
    int64_t none[FERRY_CFOPT_COUNT];
    for (int i = 0; i < FERRY_CFOPT_COUNT; i++) none[i] = -1;
    ferry_error err;
    if (!cmp && ferry_comparator_create("bench.Reverse", 0, (void *)(intptr_t)rev_cb, &cmp, &err)) return NULL;
    char x[64];
    snprintf(x, sizeof x, "comparator=ferry.comparator.%llu", (unsigned long long)(uintptr_t)cmp);
    /* the family records: "reverse" with its order, "callback" with its comparator */
    uint8_t rec[2 * FERRY_CFDESC_HEADER + 128];
    size_t len = 0;
    add_rec(rec, &len, "reverse", ro, "");
    add_rec(rec, &len, "callback", none, x);
    ferry_store *s = NULL;
    int rc = ferry_store_open(FERRY_ENGINE_LMDB, dir, o, FERRY_OPT_COUNT, NULL, rec, len, 2, &s, &err);
    if (rc) { fprintf(stderr, "callgrind_order: open %s: %s %s\n", dir, ferry_strerror(rc), err.message); return NULL; }
    if (ferry_cf_find(s, "bytewise", fwd, &err) != FERRY_OK
        && (rc = ferry_cf_create(s, "bytewise", 0, NULL, 0, NULL, fwd, &err)) != FERRY_OK) {
        fprintf(stderr, "callgrind_order: create bytewise: %s %s\n", ferry_strerror(rc), err.message);
        return NULL;
    }
    if (ferry_cf_find(s, "reverse", rev, &err) != FERRY_OK
        && (rc = ferry_cf_create(s, "reverse", 0, ro, FERRY_CFOPT_COUNT, NULL, rev, &err)) != FERRY_OK) {
        fprintf(stderr, "callgrind_order: create reverse: %s %s\n", ferry_strerror(rc), err.message);
        return NULL;
    }
    if (ferry_cf_find(s, "callback", cb, &err) != FERRY_OK
        && (rc = ferry_cf_create(s, "callback", 0, none, FERRY_CFOPT_COUNT, x, cb, &err)) != FERRY_OK) {
        fprintf(stderr, "callgrind_order: create callback: %s %s\n", ferry_strerror(rc), err.message);
        return NULL;
    }
    return s;
}

static int prepare(const char *dir, long long entries)
{
    uint32_t fwd, rev, cb;
    ferry_store *s = open_store(dir, &fwd, &rev, &cb);
    if (!s) return 1;
    uint8_t k[KEY + 1], v[VALUE];
    ferry_error err;
    /* each family is loaded in its own order, so LMDB fills both trees' pages alike (keys put in the
     * other order would split every page in the middle: half-full pages, a deeper tree) */
    for (long long i = 0; i < entries; i++) {
        key_of(k, i);
        for (int b = 0; b < VALUE; b++) v[b] = (uint8_t)(i * 31 + b);
        int rc = ferry_put(s, fwd, k, KEY, v, VALUE, 0, &err);
        long long j = entries - 1 - i;
        key_of(k, j);
        for (int b = 0; b < VALUE; b++) v[b] = (uint8_t)(j * 31 + b);
        if (!rc) rc = ferry_put(s, rev, k, KEY, v, VALUE, 0, &err);
        if (!rc) rc = ferry_put(s, cb, k, KEY, v, VALUE, 0, &err);
        if (rc) { fprintf(stderr, "callgrind_order: put: %s %s\n", ferry_strerror(rc), err.message); return 1; }
    }
    ferry_store_close(s);
    return 0;
}

static uint8_t vbuf[1 << 12];
static uint8_t page[PAGE] __attribute__((aligned(8)));

static NOINLINE int64_t get_loop(ferry_store *s, uint32_t cf, const uint8_t *keys, int n)
{
    int64_t sum = 0;
    ferry_error err;
    for (int i = 0; i < n; i++) {
        size_t vl = 0;
        if (ferry_get(s, NULL, cf, keys + (size_t)i * KEY, KEY, 0, vbuf, sizeof vbuf, &vl, &err) == FERRY_OK)
            sum += vbuf[0] + (int64_t)vl;
    }
    return sum;
}

static NOINLINE int64_t scan_loop(ferry_store *s, uint32_t cf, int n)
{
    ferry_cursor *c = NULL;
    ferry_error err;
    if (ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err)) return -1;
    int64_t sum = 0;
    int left = n, op = FERRY_FIRST;
    while (left > 0) {
        int got = ferry_cursor_fill(c, op, NULL, 0, page, sizeof page, (uint32_t)left, &err);
        if (got <= 0) break;
        /* copy entries: [u32 klen][u32 vlen][key][value], padded to 8; the header's 16 bytes first */
        size_t off = 16;
        for (int i = 0; i < got; i++) {
            uint32_t kl, vl;
            memcpy(&kl, page + off, 4);
            memcpy(&vl, page + off + 4, 4);
            sum += page[off + 8 + KEY - 1] + (int64_t)vl;
            off += (8 + kl + vl + 7) & ~(size_t)7;
        }
        left -= got;
        op = FERRY_NEXT;
    }
    ferry_cursor_close(c);
    return sum;
}

static NOINLINE int64_t op_get_bytewise(ferry_store *s, uint32_t cf, const uint8_t *keys, int n)
{
    return NOT_TAIL(get_loop(s, cf, keys, n));
}

static NOINLINE int64_t op_get_reverse(ferry_store *s, uint32_t cf, const uint8_t *keys, int n)
{
    return NOT_TAIL(get_loop(s, cf, keys, n));
}

static NOINLINE int64_t op_get_callback(ferry_store *s, uint32_t cf, const uint8_t *keys, int n)
{
    return NOT_TAIL(get_loop(s, cf, keys, n));
}

static NOINLINE int64_t op_scan_callback(ferry_store *s, uint32_t cf, int n)
{
    return NOT_TAIL(scan_loop(s, cf, n));
}

static NOINLINE int64_t op_scan_bytewise(ferry_store *s, uint32_t cf, int n)
{
    return NOT_TAIL(scan_loop(s, cf, n));
}

static NOINLINE int64_t op_scan_reverse(ferry_store *s, uint32_t cf, int n)
{
    return NOT_TAIL(scan_loop(s, cf, n));
}

static int run(const char *dir, int n, int check)
{
    uint32_t fwd, rev, cb;
    ferry_store *s = open_store(dir, &fwd, &rev, &cb);
    if (!s) return 1;
    uint64_t entries = 0;
    ferry_error err;
    if (ferry_property_int(s, fwd, "lmdb.entries", &entries, &err) || entries == 0) {
        fprintf(stderr, "callgrind_order: %s is empty (prepare it first)\n", dir);
        return 1;
    }
    uint8_t *keys = malloc((size_t)n * KEY + 1);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint8_t k[KEY + 1];
        key_of(k, (long long)(x % entries));
        memcpy(keys + (size_t)i * KEY, k, KEY);
    }
    int64_t gf = op_get_bytewise(s, fwd, keys, n), gr = op_get_reverse(s, rev, keys, n);
    int64_t gc = op_get_callback(s, cb, keys, n);
    int scan = n < (int)entries ? n : (int)entries;
    int64_t sf = op_scan_bytewise(s, fwd, scan), sr = op_scan_reverse(s, rev, scan), sc = op_scan_callback(s, cb, scan);
    printf("get bytewise %lld reverse %lld callback %lld; scan of %d bytewise %lld reverse %lld callback %lld\n",
           (long long)gf, (long long)gr, (long long)gc, scan, (long long)sf, (long long)sr, (long long)sc);
    free(keys);
    ferry_store_close(s);
    /* a full scan sees the same entries from either end */
    if (check && (gf != gr || gc != gr || sc != sr || (scan == (int)entries && sf != sr))) {
        fprintf(stderr, "callgrind_order: the families differ\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: callgrind_order prepare <engine-lib> <dir> <entries>\n"
                        "       callgrind_order run <engine-lib> <dir> <ops>\n"
                        "       callgrind_order check <engine-lib> <dir>\n");
        return 2;
    }
    ferry_error err;
    int rc = ferry_engine_attach(FERRY_ENGINE_LMDB, argv[2], &err);
    if (rc) { fprintf(stderr, "callgrind_order: attach %s: %s %s\n", argv[2], ferry_strerror(rc), err.message); return 1; }
    if (strcmp(argv[1], "prepare") == 0 && argc > 4) return prepare(argv[3], atoll(argv[4]));
    if (strcmp(argv[1], "run") == 0 && argc > 4) return run(argv[3], atoi(argv[4]), 0);
    if (strcmp(argv[1], "check") == 0) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", argv[3]);
        if (system(cmd) != 0) return 1;
        if (prepare(argv[3], 3000)) return 1;
        return run(argv[3], 3000, 1);
    }
    fprintf(stderr, "callgrind_order: mode must be prepare, run or check\n");
    return 2;
}
