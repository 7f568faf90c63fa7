/* LMDB engine: cursors, the page fill and the direct leaf-page walk (the scan hot path). */
#include "engine.h"

int lmdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                            size_t llen, const void *upper, size_t ulen, uint32_t flags,
                            ferry_cursor **out, ferry_error *err)
{
    lmdb_cursor *c = calloc(1, sizeof *c + llen + ulen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    MDB_txn *txn;
    int rc = lmdb_read_txn(LS(s), snap, &txn, &c->own_txn, err);
    if (rc) { free(c); return rc; }
    lmdb_stripe *names = lmdb_names_enter(LS(s), cf);
    int mrc = MDB.mdb_cursor_open(txn, DBI(cf), &c->cur);
    lmdb_names_exit(names);
    /* the cursor keeps the family's tree as of this transaction from here on */
    int drc = lmdb_dropped_since(cf, err);
    if (mrc || drc) {
        if (!mrc) MDB.mdb_cursor_close(c->cur);
        if (c->own_txn) lmdb_read_release(LS(s), c->own_txn);
        free(c);
        return drc ? drc : lmdb_fail(err, mrc, "open cursor");
    }
    lmdb_cursor_set_range(c, cf, lower, llen, upper, ulen, flags);
    MDB_envinfo info;
    /* a leaf page found by masking an address lies in the OS page holding it, so reading its
     * header never leaves mapped memory */
    size_t os_page = plat_page_size();
    unsigned dbflags = 0;
    if (MDB.mdb_dbi_flags(txn, DBI(cf), &dbflags) == MDB_SUCCESS) c->dups = (dbflags & MDB_DUPSORT) != 0;
    /* a DUPSORT family's values live in sub-pages and sub-trees the walk does not read: LMDB steps */
    c->walk = !(flags & FERRY_CURSOR_ENGINE_STEPS) && !c->dups && LS(s)->psize && os_page > 0
              && LS(s)->psize <= os_page && MDB.mdb_env_info(LS(s)->env, &info) == 0;
    if (c->walk) c->last_pgno = info.me_last_pgno;
    c->rc = MDB_NOTFOUND;
    c->base.store = s;
    c->base.dir = 0;
    *out = &c->base;
    return FERRY_OK;
}

/* cursor_close: close the MDB_cursor, release an own read transaction. */
int lmdb_cursor_close(ferry_cursor *fc)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->cur) MDB.mdb_cursor_close(c->cur);   /* NULL: killed with its transaction */
    if (c->own_txn) lmdb_read_release(LS(fc->store), c->own_txn);
    free(c);
    return FERRY_OK;
}

/* Move to the first key >= key (len 0: the first key). */
static int seek_ge(lmdb_cursor *c, const void *key, size_t len, MDB_val *k, MDB_val *v)
{
    k->mv_size = len;
    k->mv_data = (void *)key;
    return MDB.mdb_cursor_get(c->cur, k, v, len ? MDB_SET_RANGE : MDB_FIRST);
}

/* Move to the first key > key (past every value of an equal key). */
static int seek_gt(lmdb_cursor *c, const void *key, size_t len, MDB_val *k, MDB_val *v)
{
    int rc = seek_ge(c, key, len, k, v);
    if (rc == MDB_SUCCESS && len && lmdb_key_cmp(k->mv_data, k->mv_size, key, len) == 0)
        rc = MDB.mdb_cursor_get(c->cur, k, v, MDB_NEXT_NODUP);
    return rc;
}

/* Move to the last key < key (or <= key when inclusive); len 0: the last key overall when
 * exclusive with no bound, else nothing. */
static int seek_back(lmdb_cursor *c, const void *key, size_t len, int inclusive, MDB_val *k, MDB_val *v)
{
    if (len == 0) return MDB_NOTFOUND; /* no key sorts before the empty key */
    k->mv_size = len;
    k->mv_data = (void *)key;
    int rc = MDB.mdb_cursor_get(c->cur, k, v, MDB_SET_RANGE);
    if (rc == MDB_NOTFOUND) return MDB.mdb_cursor_get(c->cur, k, v, MDB_LAST);
    if (rc) return rc;
    /* MDB_SET_RANGE lands on a key's first value; MDB_PREV from there on the last value of the
     * key before (LMDB's MDB_PREV and MDB_LAST land on last values too) */
    if (inclusive && lmdb_key_cmp(k->mv_data, k->mv_size, key, len) == 0)
        return c->dups ? MDB.mdb_cursor_get(c->cur, k, v, MDB_LAST_DUP) : MDB_SUCCESS;
    return MDB.mdb_cursor_get(c->cur, k, v, MDB_PREV);
}

/* Move to the last entry in range ([.., upper)). */
static int seek_last(lmdb_cursor *c, MDB_val *k, MDB_val *v)
{
    if (c->ulen) return seek_back(c, c->upper, c->ulen, 0, k, v);
    return MDB.mdb_cursor_get(c->cur, k, v, MDB_LAST);
}

/* FERRY_SEEK_PAIR_GT / _LT: the entry after (before) the pair (key, val), in a DUPSORT family. */
static int seek_pair(lmdb_cursor *c, int gt, const void *key, size_t klen, const void *val, size_t vlen, MDB_val *k,
                     MDB_val *v)
{
    if (!c->dups) return gt ? seek_gt(c, key, klen, k, v) : seek_back(c, key, klen, 0, k, v);
    k->mv_size = klen;
    k->mv_data = (void *)key;
    v->mv_size = vlen;
    v->mv_data = (void *)val;
    /* the key's first value >= val, if any */
    int rc = klen ? MDB.mdb_cursor_get(c->cur, k, v, MDB_GET_BOTH_RANGE) : MDB_NOTFOUND;
    if (rc == MDB_SUCCESS) {
        if (!gt) return MDB.mdb_cursor_get(c->cur, k, v, MDB_PREV);
        if (lmdb_key_cmp(v->mv_data, v->mv_size, val, vlen) > 0) return MDB_SUCCESS;
        return MDB.mdb_cursor_get(c->cur, k, v, MDB_NEXT);
    }
    if (rc != MDB_NOTFOUND) return rc;
    /* every value of the key sorts before val (or the key is absent) */
    return gt ? seek_gt(c, key, klen, k, v) : seek_back(c, key, klen, 1, k, v);
}

/* Position for op, with seek keys clamped to the bounds. Returns the LMDB rc. */
static int position(lmdb_cursor *c, int op, const void *key, size_t klen, MDB_val *k, MDB_val *v)
{
    switch (op) {
    case FERRY_FIRST:
        return seek_ge(c, c->lower, c->llen, k, v);
    case FERRY_LAST:
        return seek_last(c, k, v);
    case FERRY_SEEK_GE:
    case FERRY_SEEK_GT:
        if (c->llen && lmdb_cursor_cmp(c, key, klen, c->lower, c->llen) < 0) return seek_ge(c, c->lower, c->llen, k, v);
        return op == FERRY_SEEK_GE ? seek_ge(c, key, klen, k, v) : seek_gt(c, key, klen, k, v);
    case FERRY_SEEK_LE:
        if (c->ulen && lmdb_cursor_cmp(c, key, klen, c->upper, c->ulen) >= 0) return seek_last(c, k, v);
        return seek_back(c, key, klen, 1, k, v);
    case FERRY_SEEK_LT:
        if (c->ulen && lmdb_cursor_cmp(c, key, klen, c->upper, c->ulen) > 0) return seek_last(c, k, v);
        return seek_back(c, key, klen, 0, k, v);
    case FERRY_SEEK_PAIR_GT:
    case FERRY_SEEK_PAIR_LT: { /* ferry.c checked the packing */
        uint32_t kl;
        memcpy(&kl, key, 4);
        const uint8_t *pk = (const uint8_t *)key + 4, *pv = pk + kl;
        size_t vl = klen - 4 - kl;
        if (op == FERRY_SEEK_PAIR_GT) {
            if (c->llen && lmdb_cursor_cmp(c, pk, kl, c->lower, c->llen) < 0)
                return seek_ge(c, c->lower, c->llen, k, v);
            return seek_pair(c, 1, pk, kl, pv, vl, k, v);
        }
        if (c->ulen && lmdb_cursor_cmp(c, pk, kl, c->upper, c->ulen) >= 0) return seek_last(c, k, v);
        return seek_pair(c, 0, pk, kl, pv, vl, k, v);
    }
    default: /* FERRY_NEXT / FERRY_PREV: the pending entry */
        *k = c->k;
        *v = c->v;
        return c->rc;
    }
}

/* Copy-mode entry; one memcpy when the value follows the key (an LMDB leaf node). */
static inline int emit_node(uint8_t *page, size_t cap, size_t *used, MDB_val k, MDB_val v)
{
    if ((uint8_t *)k.mv_data + k.mv_size != v.mv_data)
        return ferry_page_emit_copy(page, cap, used, k.mv_data, k.mv_size, v.mv_data, v.mv_size);
    size_t need = ferry_copy_entry_size(k.mv_size, v.mv_size);
    if (need > cap - *used) return 0;
    uint8_t *p = page + *used;
    uint32_t kl = (uint32_t)k.mv_size, vl = (uint32_t)v.mv_size;
    memcpy(p, &kl, 4);
    memcpy(p + 4, &vl, 4);
    memcpy(p + 8, k.mv_data, k.mv_size + v.mv_size);
    *used += need;
    return 1;
}

/* Bytes ahead of the current key the fill prefetches: about four 100-byte entries. Measured with
 * Ferry's fill in the floor's process, 1M x 100 B: fill alone 0.97-1.03x the floor without, 0.84-0.94x
 * with (384-768 bytes did about as well; 800-byte entries neither gain nor lose). */
#define LMDB_PREFETCH_AHEAD 512

/* Entries (key + value bytes) below this size also get the next leaf page prefetched: its header
 * line, the pointer line after it, and NEXT_LEAF_LINES lines around the spot where its first entry is
 * expected. With it the fill alone ran 25% faster forward on 100-byte entries, and 5-8% slower in
 * reverse on 800-byte entries, hence the limit (docs/design.md). */
#define LMDB_NEXT_LEAF_ENTRY_MAX 256

#define LMDB_NEXT_LEAF_LINES 8

/* Called for each emitted entry. When it opens a new leaf page that lies right after the previous
 * one in the map (in the direction of the walk), as leaf pages of data loaded in key order do, guess
 * that the page after it follows the same way: load its header and the lines around the offset at
 * which this page's first entry lay, a page's worth of entries before they are needed. A wrong guess
 * loads lines nobody reads; a prefetch never faults. */
static inline __attribute__((always_inline)) void
prefetch_next_leaf(uintptr_t *leaf, uintptr_t key, uintptr_t psize, const int fwd)
{
    uintptr_t pg = key & ~(psize - 1);
    if (pg == *leaf) return;
    uintptr_t prev = *leaf;
    *leaf = pg;
    if (pg != (fwd ? prev + psize : prev - psize)) return;
    uintptr_t np = fwd ? pg + psize : pg - psize;
    uintptr_t at = np + (key - pg);
    __builtin_prefetch((const void *)np);
    __builtin_prefetch((const void *)(np + 64));
    /* the walk goes down the page forward (nodes lie in descending key order), up it in reverse;
     * one line on the other side covers the node header before the key */
    for (int l = -1; l < LMDB_NEXT_LEAF_LINES - 1; l++)
        __builtin_prefetch((const void *)(fwd ? at - 64 * (intptr_t)l : at + 64 * (intptr_t)l));
}

/* Entries a fill must still be allowed to emit for a walk to pay for its checks and the final
 * MDB_SET_KEY; below it (a cursor reading a few entries after a seek) LMDB steps. */
#define LMDB_WALK_MIN 16

/* Entries (key + value bytes) from this size on are not walked: a 4 KiB page holds fewer than 16,
 * so the walk saves few steps, and merely trying it (a call and the page-header checks per page,
 * which then failed on LMDB_WALK_MIN_NODES) made 1M x 800 B scans 10-20% slower, forward and
 * reverse, in Java and in an ad-hoc C program, for a reason we did not find. */
#define LMDB_WALK_ENTRY_MAX 256

/* Nodes a page must have left, from the entry on, for the walk to read it. */
#define LMDB_WALK_MIN_NODES 8

/* Node j of leaf page pg as key and value, or 0 when it is not a plain node lying inside the page. */
static inline int leaf_node(const uint8_t *pg, unsigned j, unsigned upper, uintptr_t psize, MDB_val *k, MDB_val *v)
{
    unsigned off = lmdb_rd16(pg + LMDB_PAGE_HDR + 2 * j);
    if (off < upper || off > psize - LMDB_NODE_HDR) return 0;
    const uint8_t *n = pg + off;
    uint32_t dsz; /* LMDB's mn_lo, mn_hi: in that order on little-endian machines only */
    memcpy(&dsz, n, 4);
    size_t vsize = dsz;
    unsigned nflags = lmdb_rd16(n + 4), ksize = lmdb_rd16(n + 6);
    if (nflags || off + LMDB_NODE_HDR + ksize + vsize > psize) return 0;
    k->mv_data = (void *)(n + LMDB_NODE_HDR);
    k->mv_size = ksize;
    v->mv_data = (void *)(n + LMDB_NODE_HDR + ksize);
    v->mv_size = vsize;
    return 1;
}

/* Index of the entry (k, v) LMDB returned in the leaf page pg holding it, with the page's node count
 * and upper bound, or -1 when pg does not pass the checks above. *map caches page 0 of the map. */
static int leaf_index(const uint8_t *pg, uintptr_t psize, size_t last_pgno, uintptr_t *map, MDB_val k,
                      MDB_val v, int fwd, unsigned *nkeys, unsigned *upper)
{
    uint64_t pgno;
    memcpy(&pgno, pg, 8);
    unsigned flags = lmdb_rd16(pg + 10), lower = lmdb_rd16(pg + 12), up = lmdb_rd16(pg + 14);
    if ((flags & (LMDB_P_BRANCH | LMDB_P_LEAF | LMDB_P_OVERFLOW | LMDB_P_META | LMDB_P_LEAF2 | LMDB_P_SUBP)) != LMDB_P_LEAF)
        return -1;
    if (lower <= LMDB_PAGE_HDR || lower > up || up > psize) return -1;
    unsigned n = (lower - LMDB_PAGE_HDR) / 2;
    if (n < LMDB_WALK_MIN_NODES) return -1;
    uintptr_t off = (uintptr_t)k.mv_data - LMDB_NODE_HDR - (uintptr_t)pg;
    /* a walk enters a page at its first node (its last in reverse); a seek or a resumed fill may not */
    unsigned i = fwd ? 0 : n - 1;
    if (lmdb_rd16(pg + LMDB_PAGE_HDR + 2 * i) != off) {
        for (i = 0; i < n && lmdb_rd16(pg + LMDB_PAGE_HDR + 2 * i) != off; i++) {}
        if (i == n || (fwd ? n - i : i + 1) < LMDB_WALK_MIN_NODES) return -1;
    }
    MDB_val nk, nv;
    if (!leaf_node(pg, i, up, psize, &nk, &nv) || nk.mv_data != k.mv_data || nk.mv_size != k.mv_size
        || nv.mv_data != v.mv_data || nv.mv_size != v.mv_size)
        return -1;
    if (pgno > last_pgno || pgno * psize > (uintptr_t)pg) return -1;
    uintptr_t base = (uintptr_t)pg - (uintptr_t)pgno * psize;
    if (*map != base) {
        const uint8_t *meta = (const uint8_t *)base;
        uint32_t magic, version;
        memcpy(&magic, meta + LMDB_PAGE_HDR, 4);
        memcpy(&version, meta + LMDB_PAGE_HDR + 4, 4);
        if (*map || !(lmdb_rd16(meta + 10) & LMDB_P_META) || magic != LMDB_MAGIC || version != LMDB_DATA_VERSION) return -1;
        *map = base;
    }
    *nkeys = n;
    *upper = up;
    return (int)i;
}

/* Stand LMDB's cursor on (k, v), a node of the leaf page it stands in (MDB_SET_KEY, answered
 * without a tree search). LMDB not finding the node where the walk read it is reported as corruption. */
static int stand_on(MDB_cursor *cur, MDB_val k, MDB_val v)
{
    MDB_val sk = k, sv = { 0, NULL };
    int rc = MDB.mdb_cursor_get(cur, &sk, &sv, MDB_SET_KEY);
    if (rc == MDB_NOTFOUND || (rc == MDB_SUCCESS && (sk.mv_data != k.mv_data || sv.mv_data != v.mv_data)))
        rc = MDB_CORRUPTED;
    return rc;
}

/* After emitting (k, v): start loading what the fill reads next. LMDB adds a leaf page's nodes from
 * the page's end downwards and rebuilds both halves in key order when it splits a page, so the nodes
 * of the next few keys usually lie just below this one (above it in reverse). A prefetch never
 * faults, wherever the address lands. */
static inline __attribute__((always_inline)) void
prefetch_ahead(MDB_val k, MDB_val v, uintptr_t *leaf, uintptr_t psize, const int fwd)
{
    __builtin_prefetch((const void *)(fwd ? (uintptr_t)k.mv_data - LMDB_PREFETCH_AHEAD
                                          : (uintptr_t)k.mv_data + LMDB_PREFETCH_AHEAD));
    if (psize && k.mv_size + v.mv_size < LMDB_NEXT_LEAF_ENTRY_MAX)
        prefetch_next_leaf(leaf, (uintptr_t)k.mv_data, psize, fwd);
}

/* What every entry of a fill goes through, walked or stepped: the range's end, the entry limit and
 * the page's room, then the emit, the count and the prefetches. Returns 0 when the fill stops before
 * (k, v): flags get FERRY_PAGE_END at the range's end, *full is set when the page had no room. */
static inline __attribute__((always_inline)) int
emit_entry(MDB_val k, MDB_val v, const ferry_cf_slot *order, const uint8_t *bound, size_t blen, uint8_t *page,
           size_t cap, uint32_t max,
           size_t *used, size_t *span, uint32_t *count, uint32_t *flags, int *full, uintptr_t *leaf,
           uintptr_t psize, const int ptr, const int fwd)
{
    if (blen) {
        int cmp = order ? ferry_slot_cmp(order, k.mv_data, k.mv_size, bound, blen)
                        : lmdb_key_cmp(k.mv_data, k.mv_size, bound, blen);
        if (fwd ? cmp >= 0 : cmp < 0) { *flags |= FERRY_PAGE_END; return 0; }
    }
    if (*count == max) return 0;
    if (!(ptr ? ferry_page_emit_ptr(page, cap, used, k.mv_data, k.mv_size, v.mv_data, v.mv_size)
              : emit_node(page, cap, used, k, v))) {
        *full = 1;
        return 0;
    }
    ++*count;
    if (ptr) *span += k.mv_size + v.mv_size;
    prefetch_ahead(k, v, leaf, psize, fwd);
    return 1;
}

/* Whether the walk may pay for itself from (k, v) on, with `left` entries the fill may still emit. */
static inline int walk_worth(MDB_val k, MDB_val v, uint32_t left)
{
    return left >= LMDB_WALK_MIN && k.mv_size + v.mv_size < LMDB_WALK_ENTRY_MAX;
}

/* The fill's state, handed to walk_page and back. */
typedef struct fill_state {
    MDB_val k, v;       /* the pending entry */
    int mrc;            /* result of the move onto it */
    size_t used, span;
    uint32_t count, flags;
    int full;
    uintptr_t leaf;
} fill_state;

enum { WALK_NONE, WALK_STOP, WALK_ON };

/* Emit the pending entry and the nodes after it in its leaf page straight from the page (see
 * "Direct leaf-page walk"). Returns WALK_NONE when the page does not pass the checks (nothing
 * emitted; LMDB steps through it), WALK_STOP when the fill must end with LMDB's cursor on the
 * pending entry, WALK_ON when LMDB took the step off the page (or a move failed: st->mrc). Not
 * inlined: it runs once per leaf page, and fill_loop's LMDB-step loop stays as small as before. */
static __attribute__((noinline)) int
walk_page(lmdb_cursor *c, fill_state *st, uint8_t *page, size_t cap, uint32_t max, const int ptr, const int fwd)
{
    const uintptr_t psize = LS(c->base.store)->psize;
    const uint8_t *bound = fwd ? c->upper : c->lower;
    const size_t blen = fwd ? c->ulen : c->llen;
    const ferry_cf_slot *const order = c->order;   /* read once: the page writes could alias c */
    const uint8_t *pg = (const uint8_t *)((uintptr_t)st->k.mv_data & ~(psize - 1));
    unsigned n, upper;
    int j = leaf_index(pg, psize, c->last_pgno, &c->map, st->k, st->v, fwd, &n, &upper);
    if (j < 0) {
        c->skip = (uintptr_t)pg;
        return WALK_NONE;
    }
    atomic_fetch_add_explicit(&LS(c->base.store)->walked, 1, memory_order_relaxed);
    const int at = j, end = fwd ? (int)n : -1;
    MDB_val k = st->k, v = st->v;
    size_t used = st->used, span = st->span;
    uint32_t count = st->count;
    uint32_t flags = st->flags;
    int full = st->full;
    uintptr_t leaf = st->leaf;
    int stop = 1;
    for (;;) {
        if (!emit_entry(k, v, order, bound, blen, page, cap, max, &used, &span, &count, &flags, &full, &leaf, psize,
                        ptr, fwd))
            break;
        int nj = fwd ? j + 1 : j - 1;
        if (nj == end || !leaf_node(pg, (unsigned)nj, upper, psize, &k, &v)) {
            /* leave the page through LMDB from node j (k, v): at its edge, or before a node LMDB
             * must read, and then LMDB also steps through the rest of this page */
            if (nj != end) c->skip = (uintptr_t)pg;
            stop = 0;
            break;
        }
        j = nj;
        if (ptr && span >= FERRY_PTR_SPAN) break;
    }
    st->used = used;
    st->span = span;
    st->count = count;
    st->flags = flags;
    st->full = full;
    st->leaf = leaf;
    int mrc = j == at ? MDB_SUCCESS : stand_on(c->cur, k, v);
    if (mrc == MDB_SUCCESS && !stop) mrc = MDB.mdb_cursor_get(c->cur, &k, &v, fwd ? MDB_NEXT : MDB_PREV);
    st->k = k;
    st->v = v;
    st->mrc = mrc;
    return stop && mrc == MDB_SUCCESS ? WALK_STOP : WALK_ON;
}

/* The fill loop, specialised per mode, direction and walk (ptr, fwd, walk are constants at each call). */
static inline __attribute__((always_inline)) int
fill_loop(lmdb_cursor *c, int mrc, MDB_val k, MDB_val v, uint8_t *page, size_t cap, uint32_t max,
          const int ptr, const int fwd, const int walk, ferry_error *err)
{
    MDB_cursor *cur = c->cur;
    int (*const next)(MDB_cursor *, MDB_val *, MDB_val *, int) = MDB.mdb_cursor_get;
    const uint8_t *bound = fwd ? c->upper : c->lower;
    const size_t blen = fwd ? c->ulen : c->llen;
    const ferry_cf_slot *const order = c->order;   /* read once: the page writes could alias c */
    const int step = fwd ? MDB_NEXT : MDB_PREV;
    size_t used = FERRY_PAGE_HEADER;
    uint32_t count = 0, flags = ptr ? FERRY_PAGE_POINTERS : 0;
    int full = 0;
    size_t span = 0; /* bytes of the map the page points to so far */
    const uintptr_t psize = LS(c->base.store)->psize;
    uintptr_t leaf = c->leaf;
    for (;;) {
        if (mrc != MDB_SUCCESS) {
            if (mrc == MDB_NOTFOUND) { flags |= FERRY_PAGE_END; break; }
            c->rc = mrc;
            return lmdb_fail(err, mrc, "cursor move");
        }
        if (walk && walk_worth(k, v, max - count) && ((uintptr_t)k.mv_data & ~(psize - 1)) != c->skip) {
            fill_state st = { k, v, mrc, used, span, count, flags, full, leaf };
            int r = walk_page(c, &st, page, cap, max, ptr, fwd);
            if (r != WALK_NONE) {
                k = st.k;
                v = st.v;
                mrc = st.mrc;
                used = st.used;
                span = st.span;
                count = st.count;
                flags = st.flags;
                full = st.full;
                leaf = st.leaf;
                if (r == WALK_STOP) break;
                if (ptr && span >= FERRY_PTR_SPAN) break;
                continue;
            }
        }
        if (!emit_entry(k, v, order, bound, blen, page, cap, max, &used, &span, &count, &flags, &full, &leaf, psize,
                        ptr, fwd))
            break;
        mrc = next(cur, &k, &v, step);
        /* the cursor already stands on the next entry, which the next fill emits first */
        if (ptr && span >= FERRY_PTR_SPAN) break;
    }
    c->rc = mrc;
    c->k = k;
    c->v = v;
    c->leaf = leaf;
    if (full && count == 0) {
        size_t need = ptr ? ferry_ptr_entry_need(k.mv_size, v.mv_size)
                          : FERRY_PAGE_HEADER + ferry_copy_entry_size(k.mv_size, v.mv_size);
        ferry_page_header(page, 0, flags, need);
        return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry of %zu-byte key and %zu-byte value needs a %zu-byte page",
                          k.mv_size, v.mv_size, need);
    }
    ferry_page_header(page, count, flags, used);
    return (int)count;
}

/* cursor_fill: position for op, then the loop specialised for mode and direction. */
int lmdb_cursor_fill(ferry_cursor *fc, int op, const void *key, size_t klen, uint8_t *page,
                            size_t cap, uint32_t max_entries, ferry_error *err)
{
    lmdb_cursor *c = (lmdb_cursor *)fc;
    if (c->empty) {
        ferry_page_header(page, 0, FERRY_PAGE_END | (c->pointers ? FERRY_PAGE_POINTERS : 0), FERRY_PAGE_HEADER);
        return 0;
    }
    MDB_val k = { 0, NULL }, v = { 0, NULL };
    unsigned mark = lmdb_cmp_mark();
    int mrc = position(c, op, key, klen, &k, &v);
    int fwd = op == FERRY_FIRST || op == FERRY_SEEK_GE || op == FERRY_SEEK_GT || op == FERRY_NEXT
              || op == FERRY_SEEK_PAIR_GT;
    /* the first entry decides whether this fill may walk: a store of large entries then runs the
     * same loop as before the walk existed */
    int walk = c->walk && mrc == MDB_SUCCESS && walk_worth(k, v, max_entries);
#define FILL(ptr, fwd, walk) \
    lmdb_cmp_after(mark, fill_loop(c, mrc, k, v, page, cap, max_entries, ptr, fwd, walk, err), err)
    if (walk) {
        if (c->pointers) return fwd ? FILL(1, 1, 1) : FILL(1, 0, 1);
        return fwd ? FILL(0, 1, 1) : FILL(0, 0, 1);
    }
    if (c->pointers) return fwd ? FILL(1, 1, 0) : FILL(1, 0, 0);
    return fwd ? FILL(0, 1, 0) : FILL(0, 0, 0);
#undef FILL
}
