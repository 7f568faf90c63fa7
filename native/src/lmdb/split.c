/* LMDB engine: split points of a key range. */
#include "engine.h"

/* ------------------------------------------------------------------ split points
 *
 * ferry_split_points reads the family's B+tree straight from the map, in the file format the leaf-page
 * walk above reads, from the root down: a branch page's node j holds the key from which child j's
 * subtree starts (node 0's key is not used: the subtree starts where the page's does) and the child's
 * page number (u16 lo and u16 hi as one native u32, then u16 flags as bits 32-47 of a 64-bit page
 * number). The root comes from the family's record (a named family: its MDB_db record in the main
 * database, read with mdb_get; the default family: the MDB_db of the meta page whose transaction id is
 * the read transaction's), and is used only when that record agrees with mdb_stat on every count.
 * Each page read must carry its own page number, the expected kind (branch or leaf) and a sane header,
 * and lie at or below the environment's last page; any page that does not makes the answer empty
 * (the caller then splits by sampling), never a read outside the map.
 *
 * The descent stops at the leaf pages' parents, or at the first level of more than
 * LMDB_SPLIT_LEVEL_PAGES pages in the range. Each child of the last level read is a candidate; its
 * weight is its page's node count (entries of a leaf, children of a branch page), read from the header
 * of every page when there are at most LMDB_SPLIT_SAMPLES of them, else of every k-th page, the pages
 * between taking the count of the last one read. */
#define LMDB_SPLIT_LEVEL_PAGES 2048

#define LMDB_SPLIT_SAMPLES 4096

#define LMDB_DB_SIZE 48        /* MDB_db: u32 pad; u16 flags; u16 depth; branch, leaf, overflow pages; entries; root */

#define LMDB_META_DBS 24       /* MDB_meta: u32 magic; u32 version; void *address; size_t mapsize; MDB_db dbs[2] */

#define LMDB_META_TXNID 128    /* ... pgno_t last_pg; txnid_t txnid */

typedef struct lmdb_tree {
    uintptr_t map, psize;
    size_t last_pgno;
    uint64_t root;
    unsigned depth;
} lmdb_tree;

static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Does the MDB_db record at db agree with st? Sets the root. */
static int db_matches(const uint8_t *db, const MDB_stat *st, lmdb_tree *t)
{
    if (lmdb_rd16(db + 6) != st->ms_depth || rd64(db + 8) != st->ms_branch_pages || rd64(db + 16) != st->ms_leaf_pages
        || rd64(db + 24) != st->ms_overflow_pages || rd64(db + 32) != st->ms_entries)
        return 0;
    t->root = rd64(db + 40);
    t->depth = st->ms_depth;
    return 1;
}

/* The family's tree as txn sees it: 1 and *t set, 0 when it cannot be read this way (nothing to say),
 * or a FERRY_* error. */
static int tree_of(lmdb_store *s, MDB_txn *txn, ferry_cf_slot *cf, lmdb_tree *t, ferry_error *err)
{
    size_t os_page = plat_page_size();
    if (sizeof(size_t) != 8 || !s->psize || os_page == 0 || s->psize > os_page) return 0;
    MDB_dbi dbi = DBI(cf);
    unsigned dbflags = 0;
    int mrc = MDB.mdb_dbi_flags(txn, dbi, &dbflags);
    if (mrc) return lmdb_fail(err, mrc, "family flags");
    if (dbflags & MDB_DUPSORT) return 0;   /* entries live in sub-trees: node counts are keys */
    MDB_stat st;
    if ((mrc = MDB.mdb_stat(txn, dbi, &st)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "family stat");
    if (st.ms_depth < 2 || st.ms_psize != s->psize) return 0;   /* a single page: sampling does better */
    MDB_envinfo info;
    if ((mrc = MDB.mdb_env_info(s->env, &info)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "env info");
    t->psize = s->psize;
    t->last_pgno = info.me_last_pgno;
    /* the map's address: the leaf page holding the first key, less its page number's worth of pages;
     * page 0 there must be a meta page (as the walk checks) */
    MDB_cursor *cur;
    if ((mrc = MDB.mdb_cursor_open(txn, dbi, &cur)) != MDB_SUCCESS) return lmdb_fail(err, mrc, "open cursor");
    MDB_val k, v;
    mrc = MDB.mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    MDB.mdb_cursor_close(cur);
    if (mrc == MDB_NOTFOUND) return 0;
    if (mrc) return lmdb_fail(err, mrc, "first key");
    const uint8_t *pg = (const uint8_t *)((uintptr_t)k.mv_data & ~(s->psize - 1));
    uint64_t pgno = rd64(pg);
    if (pgno < 2 || pgno > t->last_pgno || (uintptr_t)pgno * s->psize > (uintptr_t)pg) return 0;
    t->map = (uintptr_t)pg - (uintptr_t)pgno * s->psize;
    const uint8_t *meta0 = (const uint8_t *)t->map;
    uint32_t magic, version;
    memcpy(&magic, meta0 + LMDB_PAGE_HDR, 4);
    memcpy(&version, meta0 + LMDB_PAGE_HDR + 4, 4);
    if (!(lmdb_rd16(meta0 + 10) & LMDB_P_META) || magic != LMDB_MAGIC || version != LMDB_DATA_VERSION) return 0;
    if (!lmdb_is_default_cf(s, cf)) {
        MDB_val name = { strlen(cf->name), cf->name }, rec;
        mrc = MDB.mdb_get(txn, DBI(ferry_slot(&s->base, 0)), &name, &rec);
        if (mrc == MDB_NOTFOUND || (mrc == MDB_SUCCESS && rec.mv_size != LMDB_DB_SIZE)) return 0;
        if (mrc) return lmdb_fail(err, mrc, "family record");
        return db_matches(rec.mv_data, &st, t);
    }
    /* the default family is the main database, whose record is in the meta pages: the one of this
     * transaction, checked not to be rewritten while it was read (a writer two commits later reuses it) */
    if (!lmdb_txn_id_fn) return 0;
    size_t id = lmdb_txn_id_fn(txn);
    for (int m = 0; m < 2; m++) {
        const uint8_t *meta = (const uint8_t *)t->map + (uintptr_t)m * s->psize + LMDB_PAGE_HDR;
        if (__atomic_load_n((const uint64_t *)(const void *)(meta + LMDB_META_TXNID), __ATOMIC_ACQUIRE) != id) continue;
        uint8_t db[LMDB_DB_SIZE];
        memcpy(db, meta + LMDB_META_DBS + LMDB_DB_SIZE, LMDB_DB_SIZE);   /* mm_dbs[MAIN_DBI] */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n((const uint64_t *)(const void *)(meta + LMDB_META_TXNID), __ATOMIC_ACQUIRE) != id) return 0;
        return db_matches(db, &st, t);
    }
    return 0;
}

/* Page pgno of the tree, checked (see above): its node count and upper bound, or NULL. */
static const uint8_t *tree_page(const lmdb_tree *t, uint64_t pgno, unsigned kind, unsigned *nkeys, unsigned *upper)
{
    if (pgno < 2 || pgno > t->last_pgno) return NULL;   /* pages 0 and 1 are the meta pages */
    const uint8_t *pg = (const uint8_t *)(t->map + (uintptr_t)pgno * t->psize);
    unsigned flags = lmdb_rd16(pg + 10), lower = lmdb_rd16(pg + 12), up = lmdb_rd16(pg + 14);
    if (rd64(pg) != pgno
        || (flags & (LMDB_P_BRANCH | LMDB_P_LEAF | LMDB_P_OVERFLOW | LMDB_P_META | LMDB_P_LEAF2 | LMDB_P_SUBP)) != kind
        || lower < LMDB_PAGE_HDR + 2 || lower > up || up > t->psize)
        return NULL;
    *nkeys = (lower - LMDB_PAGE_HDR) / 2;
    *upper = up;
    return pg;
}

/* Node j of branch page pg: its key and child page number; 0 when it does not lie inside the page. */
static int branch_node(const lmdb_tree *t, const uint8_t *pg, unsigned j, unsigned upper, const uint8_t **key,
                       size_t *klen, uint64_t *child)
{
    unsigned off = lmdb_rd16(pg + LMDB_PAGE_HDR + 2 * j);
    if (off < upper || off > t->psize - LMDB_NODE_HDR) return 0;
    const uint8_t *n = pg + off;
    uint32_t lohi;
    memcpy(&lohi, n, 4);
    unsigned ksize = lmdb_rd16(n + 6);
    if (off + LMDB_NODE_HDR + ksize > t->psize) return 0;
    *child = (uint64_t)lohi | ((uint64_t)lmdb_rd16(n + 4) << 32);
    *key = n + LMDB_NODE_HDR;
    *klen = ksize;
    return 1;
}

/* One entry of a level: a subtree's page, and the key it starts from (NULL: the range's start). */
typedef struct tree_ref {
    const uint8_t *key;
    size_t klen;
    uint64_t pgno;
} tree_ref;

static int level_push(tree_ref **v, size_t *n, size_t *cap, const uint8_t *key, size_t klen, uint64_t pgno)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        tree_ref *nv = realloc(*v, c * sizeof *nv);
        if (!nv) return 0;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = (tree_ref){ key, klen, pgno };
    return 1;
}

/* The candidates of the tree t within [lower, upper), packed into dst; 0 records when a page fails its
 * checks. Runs inside the read transaction that keeps the pages. */
static int tree_split_points(const lmdb_tree *t, const void *lower, size_t llen, const void *upper, size_t ulen,
                             uint32_t max, void *dst, size_t cap, size_t *len_out, ferry_error *err)
{
    tree_ref *level = NULL, *next = NULL;
    size_t n = 0, ncap = 0, nn = 0, nncap = 0;
    ferry_split_cand *cand = NULL;
    int rc = 0;
    if (!level_push(&level, &n, &ncap, NULL, 0, t->root)) goto oom;
    unsigned d = 0;
    for (; d + 1 < t->depth && n <= LMDB_SPLIT_LEVEL_PAGES; d++) {
        nn = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned nkeys, up;
            const uint8_t *pg = tree_page(t, level[i].pgno, LMDB_P_BRANCH, &nkeys, &up);
            if (!pg) goto empty;
            const uint8_t *k0, *k1 = NULL;
            size_t l0, l1 = 0;
            uint64_t c0, c1 = 0;
            if (!branch_node(t, pg, 0, up, &k0, &l0, &c0)) goto empty;
            k0 = level[i].key;
            l0 = level[i].klen;
            for (unsigned j = 0; j < nkeys; j++) {
                /* child j covers [k0, k1): k1 the next node's key, after the last node the next subtree's */
                if (j + 1 < nkeys) {
                    if (!branch_node(t, pg, j + 1, up, &k1, &l1, &c1)) goto empty;
                } else if (i + 1 < n) {
                    k1 = level[i + 1].key;
                    l1 = level[i + 1].klen;
                } else {
                    k1 = NULL;
                }
                int after_lower = !lower || !k1 || lmdb_key_cmp(k1, l1, lower, llen) > 0;
                if (upper && k0 && lmdb_key_cmp(k0, l0, upper, ulen) >= 0) break;
                if (after_lower && !level_push(&next, &nn, &nncap, k0, l0, c0)) goto oom;
                k0 = k1;
                l0 = l1;
                c0 = c1;
            }
        }
        tree_ref *tmp = level;
        level = next;
        next = tmp;
        size_t tc = ncap;
        ncap = nncap;
        nncap = tc;
        n = nn;
        if (n == 0) goto empty;
    }
    /* the last level: leaf pages (d == depth - 1) or branch pages; weigh by node counts */
    unsigned kind = d + 1 == t->depth ? LMDB_P_LEAF : LMDB_P_BRANCH;
    cand = malloc(n * sizeof *cand);
    if (!cand) goto oom;
    size_t stride = (n + LMDB_SPLIT_SAMPLES - 1) / LMDB_SPLIT_SAMPLES;
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % stride == 0) {
            unsigned nkeys, up;
            if (!tree_page(t, level[i].pgno, kind, &nkeys, &up)) goto empty;
            w = nkeys;
        }
        cand[i] = (ferry_split_cand){ level[i].key, level[i].klen, w };
    }
    rc = ferry_split_pack(cand, n, max, dst, cap, len_out);
    goto done;
oom:
    rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    goto done;
empty:
    *len_out = 0;
    rc = 0;
done:
    free(cand);
    free(level);
    free(next);
    return rc;
}

int lmdb_split_points(ferry_store *fs, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower, size_t llen,
                             const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap, size_t *len_out,
                             ferry_error *err)
{
    lmdb_store *s = LS(fs);
    MDB_txn *txn, *own;
    int rc = lmdb_read_txn(s, snap, &txn, &own, err);
    if (rc) return rc;
    lmdb_stripe *names = lmdb_names_enter(s, cf);
    lmdb_tree t = { 0 };
    rc = tree_of(s, txn, cf, &t, err);
    if (rc == 1) rc = tree_split_points(&t, lower, llen, upper, ulen, max, dst, cap, len_out, err);
    lmdb_names_exit(names);
    int drc = lmdb_dropped_since(cf, err);
    if (own) lmdb_read_release(s, own);
    if (drc) return drc;
    return rc;
}
