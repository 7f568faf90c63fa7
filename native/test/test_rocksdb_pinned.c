/* RocksDB pointer pages (FERRY_CURSOR_POINTERS): values point into what the pinning iterator
 * read, keys are copied into the page, and every entry of a page still reads right once the whole
 * page is filled; the same entries as copy pages in both directions and after seeks; the blocks a
 * cursor pins stay bounded (RDB_PIN_LIMIT, read back as the block cache's pinned usage, also where
 * the iterator skips many deleted entries); copy
 * pages where values may not stay put (merge operators, blob files, transactions). */
#include "test_rocksdb.h"

#define PN 12000          /* entries: PN x PV bytes is well over the pin limit */
#define PV 600
#define PAGE (64 * 1024)
#define PIN_LIMIT (4u << 20)   /* RDB_PIN_LIMIT (native/src/rocksdb/engine.h) */

/* Value bytes of entry i, generation g. */
static void value_of(int i, int g, uint8_t *v)
{
    for (int b = 0; b < PV; b++) v[b] = (uint8_t)(i * 31 + b * 3 + g * 101);
}

/* What the store holds for i: -1 deleted, else the generation of its value. */
static int gen_of(int i)
{
    return i % 7 == 0 ? -1 : i % 3 == 0 ? 1 : 0;
}

/* One entry of a page of either kind; returns the next offset. */
static size_t any_entry(const uint8_t *p, uint32_t flags, size_t off, const uint8_t **k, uint32_t *kl,
                        const uint8_t **v, uint32_t *vl)
{
    if (!(flags & FERRY_PAGE_POINTERS)) return page_entry(p, off, k, kl, v, vl);
    uint64_t ka, va;
    memcpy(&ka, p + off, 8);
    memcpy(kl, p + off + 8, 4);
    memcpy(vl, p + off + 12, 4);
    memcpy(&va, p + off + 16, 8);
    *k = (const uint8_t *)(uintptr_t)ka;
    *v = (const uint8_t *)(uintptr_t)va;
    return off + FERRY_PTR_ENTRY;
}

/* Fill the data set: PN entries flushed to a table, then every third overwritten and every
 * seventh deleted in the memtable. */
static void fill_data(ferry_store *s)
{
    uint8_t v[PV];
    char k[16];
    for (int i = 0; i < PN; i++) {
        snprintf(k, sizeof k, "k%07d", i);
        value_of(i, 0, v);
        CHECK_RC(ferry_put(s, 0, k, strlen(k), v, PV, 0, &err), FERRY_OK);
    }
    CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    for (int i = 0; i < PN; i++) {
        snprintf(k, sizeof k, "k%07d", i);
        if (gen_of(i) == 1) {
            value_of(i, 1, v);
            CHECK_RC(ferry_put(s, 0, k, strlen(k), v, PV, 0, &err), FERRY_OK);
        } else if (gen_of(i) < 0) {
            CHECK_RC(ferry_delete(s, 0, k, strlen(k), &err), FERRY_OK);
        }
    }
}

typedef struct walk {
    int entries, bad, pointer_pages, copy_pages;
    uint64_t max_pinned;
} walk;

/* Walk a cursor from op (seek key i0 for the SEEK ops) in its direction, checking each entry
 * against the data set once its whole page is filled; the cache's pinned usage after each fill. */
static walk walk_cursor(ferry_store *s, ferry_cache *cache, uint32_t flags, int op, int i0)
{
    walk w = { 0 };
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, flags, &c, &err), FERRY_OK);
    if (!c) return w;
    int fwd = op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT;
    int at = op == FERRY_FIRST ? 0 : op == FERRY_LAST ? PN - 1 : op == FERRY_SEEK_GT ? i0 + 1
           : op == FERRY_SEEK_LT ? i0 - 1 : i0;
    char key[16];
    snprintf(key, sizeof key, "k%07d", i0);
    uint8_t *page = malloc(PAGE), want[PV];
    for (int pages = 0; pages < 100000; pages++) {
        int rc = ferry_cursor_fill(c, op, key, strlen(key), page, PAGE, 100000, &err);
        if (rc < 0) { CHECK(0, "fill rc %d %s", rc, err.message); break; }
        op = fwd ? FERRY_NEXT : FERRY_PREV;
        hdr h = page_hdr(page);
        if (h.flags & FERRY_PAGE_POINTERS) w.pointer_pages++;
        else w.copy_pages++;
        size_t off = FERRY_PAGE_HEADER;
        for (uint32_t e = 0; e < h.count; e++) {
            while (at >= 0 && at < PN && gen_of(at) < 0) at += fwd ? 1 : -1;
            const uint8_t *k, *v;
            uint32_t kl, vl;
            off = any_entry(page, h.flags, off, &k, &kl, &v, &vl);
            char wk[16];
            snprintf(wk, sizeof wk, "k%07d", at);
            int ok = at >= 0 && at < PN && kl == strlen(wk) && memcmp(k, wk, kl) == 0 && vl == PV;
            if (ok) {
                value_of(at, gen_of(at), want);
                ok = memcmp(v, want, PV) == 0;
            }
            if (!ok && w.bad++ < 3) CHECK(0, "entry %d of the walk: want %s", w.entries, wk);
            if ((h.flags & FERRY_PAGE_POINTERS) && (k < page || k >= page + PAGE) && w.bad++ < 3)
                CHECK(0, "a pointer page's key lies outside the page");
            w.entries++;
            at += fwd ? 1 : -1;
        }
        uint64_t pinned = 0;
        if (cache) CHECK_RC(ferry_cache_usage(cache, NULL, &pinned, NULL, NULL, &err), FERRY_OK);
        if (pinned > w.max_pinned) w.max_pinned = pinned;
        if (h.flags & FERRY_PAGE_END) break;
    }
    free(page);
    ferry_cursor_close(c);
    return w;
}

/* Entries of the data set from i in a direction (the walk's expected count). */
static int live_from(int i, int fwd)
{
    int n = 0;
    for (; i >= 0 && i < PN; i += fwd ? 1 : -1) n += gen_of(i) >= 0;
    return n;
}

/* A table of SN entries of which four in five are deleted by tombstones in a newer table: a
 * pointer-page walk steps through five times the blocks of what it returns. Counting only the
 * bytes emitted, its iterator pinned all of them (about 24 MB) before it emitted RDB_PIN_LIMIT;
 * with the block cache's pinned usage read back, it renews on time. Returns the most pinned
 * after a fill, and checks every entry. */
#define SN 40000
static uint64_t skip_walk(ferry_cache *cache)
{
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_BLOCK_CACHE] = (int64_t)(intptr_t)cache;
    o[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_NONE;
    ferry_store *s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned-skip"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (!s) return 0;
    uint8_t v[PV];
    char k[16];
    for (int i = 0; i < SN; i++) {
        snprintf(k, sizeof k, "s%07d", i);
        value_of(i, 0, v);
        CHECK_RC(ferry_put(s, 0, k, strlen(k), v, PV, 0, &err), FERRY_OK);
    }
    CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    for (int i = 0; i < SN; i++) {
        if (i % 5 == 0) continue;
        snprintf(k, sizeof k, "s%07d", i);
        CHECK_RC(ferry_delete(s, 0, k, strlen(k), &err), FERRY_OK);
    }
    CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    ferry_cursor *c = NULL;
    CHECK_RC(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &err), FERRY_OK);
    uint64_t most = 0;
    int at = 0, bad = 0, op = FERRY_FIRST;
    uint8_t *page = malloc(PAGE);
    while (c && page) {
        int rc = ferry_cursor_fill(c, op, NULL, 0, page, PAGE, 100000, &err);
        if (rc < 0) { CHECK(0, "skip walk: fill rc %d %s", rc, err.message); break; }
        op = FERRY_NEXT;
        hdr h = page_hdr(page);
        size_t off = FERRY_PAGE_HEADER;
        for (uint32_t e = 0; e < h.count; e++, at += 5) {
            const uint8_t *ek, *ev;
            uint32_t kl, vl;
            off = any_entry(page, h.flags, off, &ek, &kl, &ev, &vl);
            snprintf(k, sizeof k, "s%07d", at);
            value_of(at, 0, v);
            if ((kl != strlen(k) || memcmp(ek, k, kl) != 0 || vl != PV || memcmp(ev, v, PV) != 0) && bad++ < 3)
                CHECK(0, "skip walk: entry %d is not %s", at / 5, k);
        }
        uint64_t pinned = 0;
        CHECK_RC(ferry_cache_usage(cache, NULL, &pinned, NULL, NULL, &err), FERRY_OK);
        if (pinned > most) most = pinned;
        if (h.flags & FERRY_PAGE_END) break;
    }
    CHECK(at == SN, "skip walk: %d entries, want %d", at / 5, SN / 5);
    free(page);
    if (c) ferry_cursor_close(c);
    ferry_store_close(s);
    return most;
}

void test_pointer_pages(void)
{
    ferry_cache *cache = NULL;
    CHECK_RC(ferry_cache_create(256 << 20, 0, -1, &cache, &err), FERRY_OK);
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_BLOCK_CACHE] = (int64_t)(intptr_t)cache;
    o[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_NONE;
    ferry_store *s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (!s) return;
    fill_data(s);
    static const struct { int op, i0; } moves[] = {
        { FERRY_FIRST, 0 }, { FERRY_LAST, 0 }, { FERRY_SEEK_GE, 5000 }, { FERRY_SEEK_GT, 5001 },
        { FERRY_SEEK_LE, 7001 }, { FERRY_SEEK_LT, 7002 },
    };
    for (size_t m = 0; m < sizeof moves / sizeof moves[0]; m++) {
        int op = moves[m].op, i0 = moves[m].i0;
        int fwd = op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT;
        int start = op == FERRY_FIRST ? 0 : op == FERRY_LAST ? PN - 1 : op == FERRY_SEEK_GT ? i0 + 1
                  : op == FERRY_SEEK_LT ? i0 - 1 : i0;
        int want = live_from(start, fwd);
        walk p = walk_cursor(s, cache, FERRY_CURSOR_POINTERS, op, i0);
        walk c = walk_cursor(s, NULL, 0, op, i0);
        CHECK(p.entries == want && p.bad == 0, "pointer walk %zu: %d entries (want %d), %d bad", m, p.entries, want, p.bad);
        CHECK(c.entries == want && c.bad == 0, "copy walk %zu: %d entries (want %d), %d bad", m, c.entries, want, c.bad);
        CHECK(p.pointer_pages > 0 && p.copy_pages == 0, "walk %zu: %d pointer pages, %d copy pages", m, p.pointer_pages,
              p.copy_pages);
        CHECK(c.pointer_pages == 0, "copy walk %zu: %d pointer pages", m, c.pointer_pages);
        /* the whole walk reads about 7.5 MiB of blocks. A cursor pins the blocks of the 4 MiB of
         * entries it returned, and of the entries it stepped over on the way (here a seventh of the
         * table's entries are deleted and a third overwritten in the memtable), and their block
         * overhead: at most half as much again here */
        CHECK(p.max_pinned <= PIN_LIMIT + PIN_LIMIT / 2, "walk %zu pinned %llu bytes", m, (unsigned long long)p.max_pinned);
    }
    /* a full forward walk pins some: the usage read back is the cursor's */
    walk full = walk_cursor(s, cache, FERRY_CURSOR_POINTERS, FERRY_FIRST, 0);
    CHECK(full.max_pinned >= (1u << 20), "a pinning walk pinned only %llu bytes", (unsigned long long)full.max_pinned);
    uint64_t pinned = 1;
    CHECK_RC(ferry_cache_usage(cache, NULL, &pinned, NULL, NULL, &err), FERRY_OK);
    CHECK(pinned < (1u << 20), "%llu bytes still pinned after the cursors closed", (unsigned long long)pinned);
    ferry_store_close(s);

    /* a block cache far smaller than what a cursor pins: blocks the cursor let go of are evicted
     * and freed at once, so a value that was not pinned would read wrong */
    int64_t small[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) small[i] = -1;
    small[FERRY_OPT_BLOCK_CACHE_BYTES] = 256 << 10;
    small[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_NONE;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned-small"), small, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err),
             FERRY_OK);
    if (s) {
        fill_data(s);
        walk f = walk_cursor(s, NULL, FERRY_CURSOR_POINTERS, FERRY_FIRST, 0);
        walk r = walk_cursor(s, NULL, FERRY_CURSOR_POINTERS, FERRY_LAST, 0);
        CHECK(f.entries == live_from(0, 1) && f.bad == 0 && f.pointer_pages > 0, "small cache forward: %d entries, %d bad",
              f.entries, f.bad);
        CHECK(r.entries == live_from(PN - 1, 0) && r.bad == 0 && r.pointer_pages > 0, "small cache reverse: %d entries, %d bad",
              r.entries, r.bad);
        ferry_store_close(s);
    }
    /* a family with a merge operator: copy pages (a merge result lives in the iterator's buffer) */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned-merge"), o, FERRY_OPT_COUNT, "merge_operator=stringappend",
                              NULL, 0, 0, &s, &err), FERRY_OK);
    if (s) {
        fill_data(s);
        walk m = walk_cursor(s, NULL, FERRY_CURSOR_POINTERS, FERRY_FIRST, 0);
        CHECK(m.entries == live_from(0, 1) && m.bad == 0 && m.pointer_pages == 0, "merge store: %d entries, %d bad, %d "
              "pointer pages", m.entries, m.bad, m.pointer_pages);
        ferry_store_close(s);
    }
    /* blob files, written by this open and read after a reopen without them: copy pages */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned-blob"), o, FERRY_OPT_COUNT,
                              "enable_blob_files=true;min_blob_size=0", NULL, 0, 0, &s, &err), FERRY_OK);
    if (s) {
        fill_data(s);
        CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
        walk b = walk_cursor(s, NULL, FERRY_CURSOR_POINTERS, FERRY_LAST, 0);
        CHECK(b.entries == live_from(PN - 1, 0) && b.bad == 0 && b.pointer_pages == 0, "blob store: %d entries, %d bad, "
              "%d pointer pages", b.entries, b.bad, b.pointer_pages);
        ferry_store_close(s);
        CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("pinned-blob"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err),
                 FERRY_OK);
        if (s) {
            b = walk_cursor(s, NULL, FERRY_CURSOR_POINTERS, FERRY_FIRST, 0);
            CHECK(b.entries == live_from(0, 1) && b.bad == 0 && b.pointer_pages == 0, "blob store reopened: %d entries, "
                  "%d bad, %d pointer pages", b.entries, b.bad, b.pointer_pages);
            ferry_store_close(s);
        }
    }
    /* deleted entries skipped: the bound holds on what the iterator pins, not what it returns. One
     * fill steps through about 640 KB here (a page of about 210 entries, four deleted per entry), and
     * the iterator's first fill is counted as what it emitted: about 5 MB at most (counting only the
     * bytes emitted: about 20 MB) */
    uint64_t most = skip_walk(cache);
    CHECK(most >= (1u << 20) && most <= PIN_LIMIT + PIN_LIMIT / 2, "skip walk pinned %llu bytes", (unsigned long long)most);
    CHECK_RC(ferry_cache_close(cache, &err), FERRY_OK);
}
