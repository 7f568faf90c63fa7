/* RocksDB engine: split points of a key range. */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Split points                                                        */
/*
 * The range's first and last keys (an iterator of the view), the boundary keys of the family's live
 * table files between them, and the pieces between those keys cut in two at an existing key (the first
 * key at or above the middle of the piece's key values, the 8 bytes after their common prefix read as a
 * number, searching lower halves while the upper ones hold no key) until each holds at most 2 / max of
 * the range's bytes, or cutting it left one part weighing nothing RDB_SPLIT_STALE rounds in a row (its
 * data within about one block), or max pieces are made. Each piece is weighed with one rocksdb_approximate_sizes_cf call per round, for all the pieces
 * of the round: from the table files' index blocks (and the memtables' own estimates where the library
 * has rocksdb_approximate_sizes_cf_with_flags). */
#define RDB_SPLIT_ROUNDS 64

#define RDB_SPLIT_STALE 24

typedef struct rdb_piece {
    char *key;          /* where it starts (owned by the pool) */
    size_t klen;
    uint64_t w;
    int stale;          /* cuts in a row that left one part weighing nothing */
    int merge;          /* a part weighing nothing: 1 joins the next piece, -1 the previous one */
} rdb_piece;

typedef struct rdb_pool {
    char **v;
    size_t n, cap;
} rdb_pool;

static char *pool_alloc(rdb_pool *p, size_t len)
{
    if (p->n == p->cap) {
        size_t c = p->cap ? 2 * p->cap : 64;
        char **nv = realloc(p->v, c * sizeof *nv);
        if (!nv) return NULL;
        p->v = nv;
        p->cap = c;
    }
    char *k = malloc(len ? len : 1);
    if (k) p->v[p->n++] = k;
    return k;
}

static char *pool_copy(rdb_pool *p, const char *k, size_t len)
{
    char *c = pool_alloc(p, len);
    if (c && len) memcpy(c, k, len);
    return c;
}

static void pool_free(rdb_pool *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
}

static int key_order(const void *a, size_t al, const void *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* A key between a and b (a < b), or NULL with *ol 0 when the 8 bytes after their common prefix leave no room. */
static char *key_mid(rdb_pool *pool, const char *a, size_t al, const char *b, size_t bl, size_t *ol)
{
    size_t p = 0, m = al < bl ? al : bl;
    while (p < m && a[p] == b[p]) p++;
    uint64_t A = 0, B = 0;
    for (size_t j = 0; j < 8; j++) {
        A = A << 8 | (p + j < al ? (uint8_t)a[p + j] : 0);
        B = B << 8 | (p + j < bl ? (uint8_t)b[p + j] : 0);
    }
    *ol = 0;
    if (B <= A || B - A < 2) return NULL;
    uint64_t M = A + (B - A) / 2;
    char buf[8];
    for (int j = 7; j >= 0; j--) {
        buf[j] = (char)(M & 0xff);
        M >>= 8;
    }
    size_t len = 8;
    while (len > 1 && buf[len - 1] == 0) len--;   /* trailing zeros change nothing of the order against a and b */
    char *k = pool_alloc(pool, p + len);   /* a's common prefix (p <= al), then the middle's bytes */
    if (!k) return NULL;
    if (p) memcpy(k, a, p);
    memcpy(k + p, buf, len);
    *ol = p + len;
    return k;
}

static int file_key_cmp(const void *x, const void *y)
{
    const rdb_piece *a = x, *b = y;
    return key_order(a->key, a->klen, b->key, b->klen);
}

/* Weigh the pieces [k[i], k[i + 1]) for i in idx[0..n-1] into w (k has an end key after the last piece). */
static int weigh(rdb_store *s, ferry_cf_slot *cf, const rdb_piece *k, const size_t *idx, size_t n, uint64_t *w,
                 ferry_error *err)
{
    const char **st = malloc(n * sizeof *st), **li = malloc(n * sizeof *li);
    size_t *sl = malloc(n * sizeof *sl), *ll = malloc(n * sizeof *ll);
    int rc = FERRY_OK;
    if (!st || !li || !sl || !ll) {
        rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            st[i] = k[idx[i]].key;
            sl[i] = k[idx[i]].klen;
            li[i] = k[idx[i] + 1].key;
            ll[i] = k[idx[i] + 1].klen;
            w[i] = 0;
        }
        char *e = NULL;
        if (RDB.approximate_sizes_cf_with_flags)
            RDB.approximate_sizes_cf_with_flags(s->db, CFH(cf), (int)n, st, sl, li, ll,
                                              RDB_SIZE_INCLUDE_MEMTABLES | RDB_SIZE_INCLUDE_FILES, w, &e);
        else
            RDB.approximate_sizes_cf(s->db, CFH(cf), (int)n, st, sl, li, ll, w, &e);
        if (e) rc = rdb_error(err, e);
    }
    free(st);
    free(li);
    free(sl);
    free(ll);
    return rc;
}

/* The first and last keys of [lower, upper) in the view, copied into the pool; 0 when the range holds
 * fewer than two keys. */
static int range_ends(rocksdb_iterator_t *it, const void *lower, size_t llen, const void *upper, size_t ulen,
                      rdb_pool *pool, rdb_piece *first, rdb_piece *last, ferry_error *err)
{
    int found = 0;
    size_t kl;
    const char *k;
    if (lower) RDB.iter_seek(it, lower, llen); else RDB.iter_seek_to_first(it);
    if (RDB.iter_valid(it) && (k = RDB.iter_key(it, &kl), !upper || key_order(k, kl, upper, ulen) < 0)) {
        if (!(first->key = pool_copy(pool, k, kl))) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        first->klen = kl;
        if (upper) {
            RDB.iter_seek_for_prev(it, upper, ulen);
            if (RDB.iter_valid(it) && (k = RDB.iter_key(it, &kl), key_order(k, kl, upper, ulen) == 0)) RDB.iter_prev(it);
        } else {
            RDB.iter_seek_to_last(it);
        }
        if (RDB.iter_valid(it) && (k = RDB.iter_key(it, &kl), key_order(k, kl, first->key, first->klen) > 0)) {
            /* the end of the last piece: just past the last key */
            if (!(last->key = pool_alloc(pool, kl + 1))) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
            if (kl) memcpy(last->key, k, kl);
            last->key[kl] = 0;
            last->klen = kl + 1;
            found = 1;
        }
    }
    char *e = NULL;
    RDB.iter_get_error(it, &e);
    if (e) return rdb_error(err, e);
    return found;
}

/* A key of the view strictly between a and b: the first key at or above the middle (by key value, the 8
 * bytes after the common prefix read as a number) of a and the last key below b, so that the cut falls
 * within the keys the piece holds, however far apart its ends are. NULL when the piece holds no key above a. */
static char *split_key(rocksdb_iterator_t *it, rdb_pool *pool, const char *a, size_t al, const char *b, size_t bl,
                       size_t *ol)
{
    size_t zl;
    const char *z;
    RDB.iter_seek_for_prev(it, b, bl);
    if (RDB.iter_valid(it) && (z = RDB.iter_key(it, &zl), key_order(z, zl, b, bl) == 0)) RDB.iter_prev(it);
    if (!RDB.iter_valid(it)) return NULL;
    z = RDB.iter_key(it, &zl);
    if (key_order(z, zl, a, al) <= 0) return NULL;
    char *hi = pool_alloc(pool, zl + 1);   /* just past the last key */
    if (!hi) return NULL;
    memcpy(hi, z, zl);
    hi[zl] = 0;
    size_t ml;
    char *m = key_mid(pool, a, al, hi, zl + 1, &ml);
    if (!m) return NULL;
    RDB.iter_seek(it, m, ml);
    if (!RDB.iter_valid(it)) return NULL;
    size_t kl;
    const char *k = RDB.iter_key(it, &kl);
    if (key_order(k, kl, a, al) <= 0 || key_order(k, kl, b, bl) >= 0) return NULL;
    *ol = kl;
    return pool_copy(pool, k, kl);
}

int rdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower, size_t llen,
                            const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                            ferry_error *err)
{
    rdb_store *s = STORE(fs);
    if (!RDB.approximate_sizes_cf && !RDB.approximate_sizes_cf_with_flags)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "split points need rocksdb_approximate_sizes_cf, which %s lacks", rdb_lib_path);
    if (!RDB.approximate_sizes_cf_with_flags) {
        uint64_t active = 0, imm = 0;
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-active-mem-table", &active);
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-imm-mem-tables", &imm);
        if (active + imm > 0)
            return ferry_fail(err, FERRY_ENOTSUP, 0, "split points of a family with entries in its memtables need "
                              "rocksdb_approximate_sizes_cf_with_flags, which %s lacks (rocksdbjni 10.1.3 and 11.8.1 "
                              "have it; 7.9.2 does not)", rdb_lib_path);
    }
    /* Deleted data still counts in RocksDB's sizes until a compaction drops it: weights would place the
     * boundaries by dead bytes. Families with deletes in their memtables (point deletes counted by RocksDB,
     * range deletes by Ferry), or whose table files hold more than 1 deletion in 10 entries, are left to
     * the caller's sampling (0 records). */
    {
        uint64_t entries = 0, dels = 0, idels = 0;
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-active-mem-table", &entries);
        uint64_t imm = 0;
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-entries-imm-mem-tables", &imm);
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-deletes-active-mem-table", &dels);
        RDB.property_int_cf(s->db, CFH(cf), "rocksdb.num-deletes-imm-mem-tables", &idels);
        if (dels + idels > 0
            || (entries + imm > 0 && (atomic_load_explicit(&cf->bits, memory_order_relaxed) & RDB_SLOT_RANGE_DEL)))
            return 0;
    }
    rdb_pool pool = { 0 };
    rdb_piece *k = NULL, *nk = NULL;
    size_t *idx = NULL;
    uint64_t *w = NULL;
    ferry_split_cand *cand = NULL;
    rdb_piece first = { 0 }, last = { 0 };
    rocksdb_iterator_t *it = RDB.create_iterator_cf(s->db, rdb_read_opts(fs, snap), CFH(cf));
    if (!it) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = range_ends(it, lower, llen, upper, ulen, &pool, &first, &last, err);
    if (rc <= 0) goto done;
    /* the pieces' start keys: the first key, the files' boundary keys after it and up to the last key */
    size_t n = 0, kcap = 64;
    k = malloc(kcap * sizeof *k);
    if (!k) goto oom;
    k[n++] = first;
    const rocksdb_livefiles_t *lf = RDB.livefiles && RDB.livefiles_count && RDB.livefiles_column_family_name
                                    && RDB.livefiles_smallestkey && RDB.livefiles_largestkey && RDB.livefiles_destroy
                                    ? RDB.livefiles(s->db) : NULL;
    if (lf) {
        int files = RDB.livefiles_count(lf);
        uint64_t fentries = 0, fdels = 0;
        for (int f = 0; f < files; f++) {
            const char *name = RDB.livefiles_column_family_name(lf, f);
            if (!name || strcmp(name, cf->name) != 0) continue;
            if (RDB.livefiles_entries && RDB.livefiles_deletions) {
                fentries += RDB.livefiles_entries(lf, f);
                fdels += RDB.livefiles_deletions(lf, f);
            }
            for (int side = 0; side < 2; side++) {
                size_t kl;
                const char *key = side ? RDB.livefiles_largestkey(lf, f, &kl) : RDB.livefiles_smallestkey(lf, f, &kl);
                if (!key || key_order(key, kl, first.key, first.klen) <= 0 || key_order(key, kl, last.key, last.klen) >= 0)
                    continue;
                if (n == kcap) {
                    rdb_piece *g = realloc(k, 2 * kcap * sizeof *k);
                    if (!g) { RDB.livefiles_destroy(lf); goto oom; }
                    k = g;
                    kcap *= 2;
                }
                char *copy = pool_copy(&pool, key, kl);
                if (!copy) { RDB.livefiles_destroy(lf); goto oom; }
                k[n++] = (rdb_piece){ copy, kl, 0, 0, 0 };
            }
        }
        RDB.livefiles_destroy(lf);
        if (fdels * 10 > fentries) { rc = 0; goto done; }
    }
    qsort(k + 1, n - 1, sizeof *k, file_key_cmp);
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (key_order(k[i].key, k[i].klen, k[u - 1].key, k[u - 1].klen) != 0) k[u++] = k[i];
    n = u;   /* pieces k[0..n-1], end key k[n] */
    size_t limit = max > n ? max : n;   /* pieces at most: never fewer than the files gave */
    rdb_piece *g = realloc(k, (limit + 1) * sizeof *k);
    nk = malloc((limit + 1) * sizeof *nk);
    idx = calloc(2 * limit, sizeof *idx);
    w = calloc(2 * limit, sizeof *w);
    if (!g || !nk || !idx || !w) { if (g) k = g; goto oom; }
    k = g;
    k[n] = last;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    if ((rc = weigh(s, cf, k, idx, n, w, err)) != FERRY_OK) goto done;
    for (size_t i = 0; i < n; i++) k[i].w = w[i];
    for (int round = 0; round < RDB_SPLIT_ROUNDS; round++) {
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++) total += k[i].w;
        if (total == 0) break;
        uint64_t heavy = total / max * 2;
        size_t m = 0, nw = 0;
        for (size_t i = 0; i < n; i++) {
            nk[m++] = k[i];
            size_t ml;
            char *mid;
            if (k[i].w > heavy && k[i].stale < RDB_SPLIT_STALE && n + nw / 2 < limit
                && (mid = split_key(it, &pool, k[i].key, k[i].klen, k[i + 1].key, k[i + 1].klen, &ml)) != NULL) {
                idx[nw++] = m - 1;
                nk[m] = (rdb_piece){ mid, ml, 0, k[i].stale, 0 };
                idx[nw++] = m++;
            } else if (k[i].w > heavy && k[i].stale < RDB_SPLIT_STALE && n + nw / 2 < limit) {
                nk[m - 1].stale = RDB_SPLIT_STALE;   /* no key between its ends: keep it whole */
            }
        }
        if (nw == 0) break;
        nk[m] = k[n];
        rdb_piece *t = k;
        k = nk;
        nk = t;
        n = m;
        if ((rc = weigh(s, cf, k, idx, nw, w, err)) != FERRY_OK) goto done;
        for (size_t i = 0; i < nw; i += 2) {
            rdb_piece *a = &k[idx[i]], *b = &k[idx[i + 1]];
            a->w = w[i];
            b->w = w[i + 1];
            int none = a->w == 0 || b->w == 0;
            a->stale = none ? a->stale + 1 : 0;
            b->stale = a->stale;
            /* a part weighing nothing tells nothing: it joins the neighbour on its other side, so the cut
             * narrows the heavy part without spending a piece on the empty one */
            if (b->w == 0) b->merge = 1;
            else if (a->w == 0) a->merge = -1;
        }
        size_t out = 0;
        int pending = 0;
        rdb_piece held = { 0 };
        for (size_t i = 0; i < n; i++) {
            rdb_piece piece = k[i];
            int merge = piece.merge;
            piece.merge = 0;
            if (merge == -1 && out > 0) {   /* the previous piece reaches over it */
                pending = 0;
                continue;
            }
            if (merge == 1 && i + 1 < n) {  /* the next piece starts at its start */
                if (!pending) held = piece;
                pending = 1;
                continue;
            }
            if (pending) {
                piece.key = held.key;
                piece.klen = held.klen;
                pending = 0;
            }
            k[out++] = piece;
        }
        k[out] = k[n];
        n = out;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += k[i].w;
    if (total == 0) { rc = 0; goto done; }
    cand = malloc(n * sizeof *cand);
    if (!cand) goto oom;
    for (size_t i = 0; i < n; i++) cand[i] = (ferry_split_cand){ (const uint8_t *)k[i].key, k[i].klen, k[i].w };
    rc = ferry_split_pack(cand, n, max, dst, cap, len_out);
    goto done;
oom:
    rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
done:
    if (rc <= 0) *len_out = 0;
    RDB.iter_destroy(it);
    free(cand);
    free(k);
    free(nk);
    free(idx);
    free(w);
    pool_free(&pool);
    return rc;
}
