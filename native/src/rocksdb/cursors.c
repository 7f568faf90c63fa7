/* RocksDB engine: cursors and the page fill (the scan hot path). */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Cursors                                                             */

/* A pinning cursor's iterator. Blob files hold values outside the blocks: an iterator hands such
 * a value out of a buffer of its own, which its next step overwrites. So a family with blob files
 * (of this open or an earlier one: RocksDB's "rocksdb.num-blob-files", read after the iterator took
 * its version) gets copy pages from here on, from an iterator that pins nothing; so does a library
 * without the property. The read options' snapshot keeps what the iterators read the same. */
static rocksdb_iterator_t *pinned_iterator(rdb_cursor *c)
{
    rocksdb_iterator_t *it = RDB.create_iterator_cf(c->db, c->ropts, c->cfh);
    uint64_t n = 1;
    if (RDB.property_int_cf(c->db, c->cfh, "rocksdb.num-blob-files", &n) == 0 && n == 0) return it;
    c->pin = 0;
    RDB.readoptions_set_pin_data(c->ropts, 0);
    RDB.iter_destroy(it);
    return RDB.create_iterator_cf(c->db, c->ropts, c->cfh);
}

/* An iterator on db/cf with its own read options and cursor-owned copies of the bounds.
 * owner: the store, or the interop pseudo-store for cursors on RocksJava's objects. */
int rdb_cursor_create_in(ferry_store *owner, rocksdb_t *db, rocksdb_transaction_t *txn,
                            rocksdb_column_family_handle_t *cf, const rocksdb_snapshot_t *snap, const void *lower,
                            size_t llen, const void *upper, size_t ulen, uint32_t flags, size_t readahead,
                            ferry_cursor **out, ferry_error *err)
{
    if ((flags & FERRY_CURSOR_ASYNC_IO) && !RDB.readoptions_set_async_io)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no asynchronous reads (rocksdb_readoptions_set_async_io, "
                          "RocksDB 8 and later): open the cursor without asyncIo", rdb_lib_path);
    if ((flags & FERRY_CURSOR_AUTO_PREFIX) && !RDB.readoptions_set_auto_prefix_mode)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "%s has no automatic prefix mode (rocksdb_readoptions_set_auto_prefix_mode): "
                          "open the cursor without autoPrefixMode", rdb_lib_path);
    size_t blen = (lower ? llen : 0) + (upper ? ulen : 0);
    if (blen < llen) return ferry_fail(err, FERRY_EINVAL, 0, "bounds too long");
    rdb_cursor *c = calloc(1, sizeof *c + blen);
    if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    c->base.store = owner;
    c->ropts = RDB.readoptions_create();
    /* Ferry's ranges are exact: with a prefix_extractor (set through the options string, or by a
     * RocksJava application) a prefix seek may skip keys of other prefixes. Automatic prefix mode
     * keeps total-order answers: RocksDB takes the prefix path only where it cannot change them. */
    if (flags & FERRY_CURSOR_AUTO_PREFIX) RDB.readoptions_set_auto_prefix_mode(c->ropts, 1);
    else RDB.readoptions_set_total_order_seek(c->ropts, 1);
    if (snap) RDB.readoptions_set_snapshot(c->ropts, snap);
    if (flags & FERRY_CURSOR_NO_FILL_CACHE) RDB.readoptions_set_fill_cache(c->ropts, 0);
    if (flags & FERRY_CURSOR_NO_VERIFY_CHECKSUMS) RDB.readoptions_set_verify_checksums(c->ropts, 0);
    if (flags & FERRY_CURSOR_ASYNC_IO) RDB.readoptions_set_async_io(c->ropts, 1);
    if (readahead) RDB.readoptions_set_readahead_size(c->ropts, readahead);
    char *b = c->bounds;
    if (lower) {
        if (llen) memcpy(b, lower, llen);
        RDB.readoptions_set_iterate_lower_bound(c->ropts, b, llen);
        c->lower = b;
        c->llen = llen;
        b += llen;
    }
    if (upper) {
        if (ulen) memcpy(b, upper, ulen);
        RDB.readoptions_set_iterate_upper_bound(c->ropts, b, ulen);
        c->upper = b;
        c->ulen = ulen;
    }
    c->check_bounds = txn != NULL;
    /* Pointer pages: pin what the iterator reads, at a snapshot of its own when the caller gave
     * none (a successor iterator must read what this one reads). A transaction's iterator is not
     * pinned: the entries of its write batch may move. */
    if ((flags & FERRY_CURSOR_POINTERS) && !txn && RDB.readoptions_set_pin_data) {
        if (!snap) snap = c->own_snap = RDB.create_snapshot(db);
        if (snap) {
            if (c->own_snap) RDB.readoptions_set_snapshot(c->ropts, snap);
            RDB.readoptions_set_pin_data(c->ropts, 1);
            c->pin = 1;
            c->pin_check = 1;
            c->db = db;
            c->cfh = cf;
        }
    }
    c->it = c->pin ? pinned_iterator(c)
                   : txn ? RDB.transaction_create_iterator_cf(txn, c->ropts, cf) : RDB.create_iterator_cf(db, c->ropts, cf);
    *out = &c->base;
    return FERRY_OK;
}

/* Store cursor. */
int rdb_cursor_open(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *lower,
                           size_t llen, const void *upper, size_t ulen, uint32_t flags,
                           ferry_cursor **out, ferry_error *err)
{
    /* Pointer pages need values that stay where the iterator read them: not the results of
     * merges (the iterator's own buffer), and not from a database RocksDB serves in its
     * compacted read-only mode. Nor a secondary instance (a pointer-page cursor holds its own
     * snapshot, which RocksDB refuses there), nor a TTL family (expired entries are skipped by
     * the copy loop's check) */
    if (rdb_family_has_merge(s, cf) || STORE(s)->compacted || STORE(s)->secondary || rdb_slot_ttl(s, cf))
        flags &= ~(uint32_t)FERRY_CURSOR_POINTERS;
    int rc = rdb_cursor_create(s, STORE(s)->db, CFH(cf), snap ? ((rdb_snapshot *)snap)->snap : NULL, lower, llen,
                               upper, ulen, flags, STORE(s)->readahead, out, err);
    if (rc == FERRY_OK) ((rdb_cursor *)*out)->ttl = rdb_slot_ttl(s, cf);
    return rc;
}

/* Destroy an owned iterator before the read options it points into; a wrapped (borrowed)
 * iterator stays with RocksJava. */
int rdb_cursor_close(ferry_cursor *cb)
{
    rdb_cursor *c = (rdb_cursor *)cb;
    if (c->it && c->it != (rocksdb_iterator_t *)&c->borrowed) RDB.iter_destroy(c->it);
    if (c->own_snap) RDB.release_snapshot(c->db, c->own_snap);
    if (c->ropts) RDB.readoptions_destroy(c->ropts);
    free(c->rekey);
    free(c);
    return FERRY_OK;
}

/* Is the iterator on exactly key? */
static inline int at_key(rocksdb_iterator_t *it, const void *key, size_t klen)
{
    if (!RDB.iter_valid(it)) return 0;
    size_t kl;
    const char *k = RDB.iter_key(it, &kl);
    return kl == klen && (klen == 0 || memcmp(k, key, klen) == 0);
}

/* Position the iterator for op; returns 1 for a forward fill, 0 for reverse. */
static int position(rocksdb_iterator_t *it, int op, const void *key, size_t klen)
{
    switch (op) {
    case FERRY_FIRST: RDB.iter_seek_to_first(it); return 1;
    case FERRY_LAST: RDB.iter_seek_to_last(it); return 0;
    case FERRY_SEEK_GE: RDB.iter_seek(it, key, klen); return 1;
    case FERRY_SEEK_GT:
        RDB.iter_seek(it, key, klen);
        if (at_key(it, key, klen)) RDB.iter_next(it);
        return 1;
    case FERRY_SEEK_LE: RDB.iter_seek_for_prev(it, key, klen); return 0;
    case FERRY_SEEK_LT:
        RDB.iter_seek_for_prev(it, key, klen);
        if (at_key(it, key, klen)) RDB.iter_prev(it);
        return 0;
    case FERRY_NEXT: case FERRY_CURRENT_FWD: return 1;
    default: return 0; /* FERRY_PREV, FERRY_CURRENT_REV */
    }
}

/* Unsigned byte order of two keys. */
static inline int rdb_key_cmp(const void *a, size_t al, const void *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

/* Order of two keys in the cursor's family (bytewise, its reverse, or a comparator's). */
static inline int cur_cmp(const rdb_cursor *c, const void *a, size_t al, const void *b, size_t bl)
{
    return c->order ? ferry_slot_cmp(c->order, a, al, b, bl) : rdb_key_cmp(a, al, b, bl);
}

/* Position a transaction cursor for op within its bounds (the write batch part of a transaction's
 * iterator is not clamped by the read options everywhere): seeks below the lower bound start at it,
 * reverse seeks at or past the upper bound start below it. Returns 1 forward, 0 reverse. */
static int position_bounded(rdb_cursor *c, int op, const void *key, size_t klen)
{
    rocksdb_iterator_t *it = c->it;
    switch (op) {
    case FERRY_FIRST:
        if (c->lower) RDB.iter_seek(it, c->lower, c->llen);
        else RDB.iter_seek_to_first(it);
        return 1;
    case FERRY_SEEK_GE: case FERRY_SEEK_GT:
        if (c->lower && cur_cmp(c, key, klen, c->lower, c->llen) < 0) { RDB.iter_seek(it, c->lower, c->llen); return 1; }
        break;
    case FERRY_LAST:
        if (!c->upper) { RDB.iter_seek_to_last(it); return 0; }
        RDB.iter_seek_for_prev(it, c->upper, c->ulen);
        if (at_key(it, c->upper, c->ulen)) RDB.iter_prev(it);
        return 0;
    case FERRY_SEEK_LE: case FERRY_SEEK_LT:
        if (c->upper && cur_cmp(c, key, klen, c->upper, c->ulen) >= 0) return position_bounded(c, FERRY_LAST, NULL, 0);
        break;
    default: break;
    }
    return position(it, op, key, klen);
}

/* A pinning cursor past RDB_PIN_LIMIT: a fresh iterator (same read options, so the same
 * snapshot), positioned where the old one stood for a continuing op (other ops position it next).
 * Returns the old iterator, which the caller destroys, with the blocks it pinned, once the fill
 * has positioned (a seek key may point anywhere), or NULL. The caller's pages no longer point into
 * those blocks: a Java cursor's views are valid until its next move, and this is one. Out of
 * memory for the key, or at the end: keep the old iterator (at the end it pins nothing more, and
 * keeps its error). */
static rocksdb_iterator_t *renew(rdb_cursor *c, int op)
{
    int cont = op == FERRY_NEXT || op == FERRY_PREV;
    size_t kl = 0;
    if (cont) {
        if (!RDB.iter_valid(c->it)) return NULL;
        const char *k = RDB.iter_key(c->it, &kl);
        if (kl > c->rekey_cap) {
            char *nk = realloc(c->rekey, kl);
            if (!nk) return NULL;
            c->rekey = nk;
            c->rekey_cap = kl;
        }
        if (kl) memcpy(c->rekey, k, kl);
    }
    rocksdb_iterator_t *old = c->it;
    c->it = pinned_iterator(c);
    if (op == FERRY_NEXT) RDB.iter_seek(c->it, c->rekey, kl);
    else if (op == FERRY_PREV) RDB.iter_seek_for_prev(c->it, c->rekey, kl);
    c->pinned = 0;
    c->pin_check = 1;
    c->pin_based = 0;
    return old;
}

/* Has the pinning iterator reached RDB_PIN_LIMIT? RocksDB pins every block the iterator steps
 * through, the blocks of deleted or overwritten entries it skips included, which the bytes the
 * cursor emitted do not show. So the fills read the block cache's pinned usage
 * ("rocksdb.block-cache-pinned-usage" of the family) now and then. The first read, at the
 * iterator's first continuing fill (short cursors never pay for one), takes what is pinned beyond
 * the bytes emitted so far as others' (other cursors, table readers). Each later read counts the
 * rest as this iterator's, and the next read comes when, at the rate of pinned to emitted bytes
 * of the last interval, three quarters of the distance to the limit should be gone; when that is
 * less than RDB_PIN_STEP emitted bytes, the iterator is renewed at once: five reads or so per
 * iterator on plain data, more where the rate grows. So an iterator pins at most about
 * RDB_PIN_LIMIT and what one fill steps through, plus what its first fill stepped through beyond
 * what it emitted. The cache is
 * shared: others' pins in the meantime renew early, their releases late (the emitted bytes still
 * renew at the limit). Without the property, the emitted bytes alone count. */
static int pin_full(rdb_cursor *c)
{
    if (c->pinned >= RDB_PIN_LIMIT) return 1;
    if (c->pinned < c->pin_check) return 0;
    uint64_t u = 0;
    if (RDB.property_int_cf(c->db, c->cfh, "rocksdb.block-cache-pinned-usage", &u) != 0) {
        c->pin_check = RDB_PIN_LIMIT;
        return 0;
    }
    if (!c->pin_based) {
        c->pin_base = u > c->pinned ? u - c->pinned : 0;
        c->pin_based = 1;
        c->pin_own = u - c->pin_base;
        c->pin_seen = c->pinned;
        c->pin_check = c->pinned + RDB_PIN_STEP;
        return 0;
    }
    uint64_t own = u > c->pin_base ? u - c->pin_base : 0;
    if (own >= RDB_PIN_LIMIT) return 1;
    uint64_t grew = own > c->pin_own ? own - c->pin_own : 0, emitted = c->pinned - c->pin_seen;
    uint64_t rest = (RDB_PIN_LIMIT - own) / 4 * 3;
    if (grew > emitted && emitted) rest = rest * emitted / grew; /* < 2^22 * 2^22: no overflow */
    if (rest < RDB_PIN_STEP) return 1; /* within a step of the limit: renew now, not read again */
    c->pin_own = own;
    c->pin_seen = c->pinned;
    c->pin_check = c->pinned + rest;
    return 0;
}

/* Copy n bytes (a key, a short value) without a call up to 16 bytes: two overlapping loads and
 * stores of 8 or 4 bytes, or three single bytes; longer copies go to memcpy. Only the n bytes at
 * s are read and at d written. */
static inline void copy_short(uint8_t *d, const char *s, size_t n)
{
    if (n - 8 <= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        d[0] = (uint8_t)s[0];
        d[n >> 1] = (uint8_t)s[n >> 1];
        d[n - 1] = (uint8_t)s[n - 1];
    }
}

/* The end of a fill: the iterator's error, or the header with FERRY_PAGE_END when it ran out. */
static int fill_done(rocksdb_iterator_t *it, int more, uint8_t *page, uint32_t count, uint32_t flags, size_t used,
                     ferry_error *err)
{
    if (!more) {
        char *e = NULL;
        RDB.iter_get_error(it, &e);
        if (e) return rdb_error(err, e);
        flags |= FERRY_PAGE_END;
    }
    ferry_page_header(page, count, flags, used);
    return (int)count;
}

/* The first entry of a fill does not fit the page (or a pointer entry): the size it needs. */
static __attribute__((noinline, cold)) int fill_too_big(uint8_t *page, int pointers, size_t kl, size_t vl,
                                                       ferry_error *err)
{
    if (!pointers && (kl > UINT32_MAX || vl > UINT32_MAX))
        return ferry_fail(err, FERRY_EKEYSIZE, 0, "entry of %zu + %zu bytes exceeds the page format", kl, vl);
    size_t need = !pointers || kl > FERRY_ENTRY_MAX || vl > FERRY_ENTRY_MAX
                ? FERRY_PAGE_HEADER + ferry_copy_entry_size(kl, vl)
                : FERRY_PAGE_HEADER + FERRY_PTR_ENTRY + ((kl + 7) & ~(size_t)7);
    ferry_page_header(page, 0, 0, need);
    return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry needs a page of %zu bytes", need);
}

/* One step of the iterator; fwd is a constant in each copy of the loops below, so the step is a
 * direct call through the engine table and holds no register. */
static inline __attribute__((always_inline)) void step_it(rocksdb_iterator_t *it, int fwd)
{
    if (fwd) RDB.iter_next(it);
    else RDB.iter_prev(it);
}

/* Pointer fill: each entry's value points where the pinned iterator read it; its key is copied
 * to the end of the page, growing down, and the entry points there (a key may be delta-encoded in
 * its block, and then sits in the iterator's own buffer). Ends as a pointer page of LMDB does,
 * at FERRY_PTR_SPAN bytes pointed to. The loop calls the engine table's entries directly, keeps
 * one size check per entry and copies the key inline; max_entries becomes an end address of the
 * entries (a page holds at most cap / FERRY_PTR_ENTRY of them), and the count follows from it. */
static inline __attribute__((always_inline)) int fill_pointers_dir(rdb_cursor *c, int fwd, uint8_t *page, size_t cap,
                                                                   uint32_t max_entries, ferry_error *err)
{
    rocksdb_iterator_t *it = c->it;
    uint8_t *p = page + FERRY_PAGE_HEADER, *tail = page + (cap & ~(size_t)7);
    size_t most = (cap - FERRY_PAGE_HEADER) / FERRY_PTR_ENTRY;   /* >= 2 (FERRY_PAGE_MIN) */
    if (!most) most = 1; /* a page too small for one entry fails in the loop, with the size it needs */
    uint8_t *stop = p + (max_entries < most ? max_entries : most) * FERRY_PTR_ENTRY;
    size_t span = 0;
    int more;
    while ((more = RDB.iter_valid(it)) && p < stop) {
        size_t kl, vl;
        const char *k = RDB.iter_key(it, &kl);
        const char *v = RDB.iter_value(it, &vl);
        size_t kroom = (kl + 7) & ~(size_t)7;
        int first = p == page + FERRY_PAGE_HEADER;
        if (__builtin_expect((kl | vl) > FERRY_ENTRY_MAX || FERRY_PTR_ENTRY + kroom > (size_t)(tail - p), 0)) {
            if (!first) break;
            return fill_too_big(page, 1, kl, vl, err);
        }
        size_t next = span + kl + vl;
        if (next > FERRY_PTR_SPAN && !first) break;
        span = next;
        tail -= kroom;
        copy_short(tail, k, kl);
        uint64_t ka = (uint64_t)(uintptr_t)tail, va = (uint64_t)(uintptr_t)v;
        uint32_t kl32 = (uint32_t)kl, vl32 = (uint32_t)vl;
        memcpy(p, &ka, 8);
        memcpy(p + 8, &kl32, 4);
        memcpy(p + 12, &vl32, 4);
        memcpy(p + 16, &va, 8);
        /* as ferry_page_emit_ptr: start loading the value's first and last lines for the reader */
        if (vl) {
            __builtin_prefetch(v);
            __builtin_prefetch(v + vl - 1);
        }
        p += FERRY_PTR_ENTRY;
        step_it(it, fwd);
    }
    c->pinned += span;
    uint32_t count = (uint32_t)((size_t)(p - page - FERRY_PAGE_HEADER) / FERRY_PTR_ENTRY);
    return fill_done(it, more, page, count, FERRY_PAGE_POINTERS, (size_t)(p - page), err);
}

static __attribute__((noinline)) int fill_pointers(rdb_cursor *c, int fwd, uint8_t *page, size_t cap,
                                                   uint32_t max_entries, ferry_error *err)
{
    return fwd ? fill_pointers_dir(c, 1, page, cap, max_entries, err) : fill_pointers_dir(c, 0, page, cap, max_entries, err);
}

/* Copy fill without bounds or TTL checks (every store cursor but those of TTL families and
 * transactions): the loop calls the engine table's entries directly, checks sizes once per entry,
 * and copies keys and short values inline. */
static inline __attribute__((always_inline)) int fill_copy_dir(rocksdb_iterator_t *it, int fwd, uint8_t *page, size_t cap,
                                                               uint32_t max_entries, ferry_error *err)
{
    uint8_t *p = page + FERRY_PAGE_HEADER, *end = page + cap;
    uint32_t left = max_entries;
    int more;
    while ((more = RDB.iter_valid(it)) && left) {
        size_t kl, vl;
        const char *k = RDB.iter_key(it, &kl);
        const char *v = RDB.iter_value(it, &vl);
        size_t need = ferry_copy_entry_size(kl, vl);
        if (__builtin_expect((kl | vl) > UINT32_MAX || need > (size_t)(end - p), 0)) {
            if (left != max_entries) break;
            return fill_too_big(page, 0, kl, vl, err);
        }
        uint8_t *e = p;
        p += need;
        uint32_t kl32 = (uint32_t)kl, vl32 = (uint32_t)vl;
        memcpy(e, &kl32, 4);
        memcpy(e + 4, &vl32, 4);
        copy_short(e + 8, k, kl);
        copy_short(e + 8 + kl, v, vl);
        left--;
        step_it(it, fwd);
    }
    return fill_done(it, more, page, max_entries - left, 0, (size_t)(p - page), err);
}

static __attribute__((noinline)) int fill_copy(rocksdb_iterator_t *it, int fwd, uint8_t *page, size_t cap,
                                               uint32_t max_entries, ferry_error *err)
{
    return fwd ? fill_copy_dir(it, 1, page, cap, max_entries, err) : fill_copy_dir(it, 0, page, cap, max_entries, err);
}

/* Position, then copy entries into the page until it is full, max_entries or the range ends
 * (pinning cursors: fill_pointers; cursors without bound or TTL checks: fill_copy; the loop below
 * is the general one, for transactions and TTL families). */
int rdb_cursor_fill(ferry_cursor *cb, int op, const void *key, size_t klen, uint8_t *page,
                           size_t cap, uint32_t max_entries, ferry_error *err)
{
    rdb_cursor *rc_ = (rdb_cursor *)cb;
    int fwd;
    if (max_entries > INT_MAX) max_entries = INT_MAX;
    if (rc_->pin) {
        rocksdb_iterator_t *old = pin_full(rc_) ? renew(rc_, op) : NULL;
        fwd = position(rc_->it, op, key, klen);
        if (old) RDB.iter_destroy(old);
        if (rc_->pin) return rdb_cmp_after(fill_pointers(rc_, fwd, page, cap, max_entries, err), err);
    } else {
        fwd = rc_->check_bounds ? position_bounded(rc_, op, key, klen) : position(rc_->it, op, key, klen);
    }
    if (!rc_->check_bounds && !rc_->ttl) return rdb_cmp_after(fill_copy(rc_->it, fwd, page, cap, max_entries, err), err);
    rocksdb_iterator_t *it = rc_->it;
    void (*step)(rocksdb_iterator_t *) = fwd ? RDB.iter_next : RDB.iter_prev;
    const char *bound = rc_->check_bounds ? (fwd ? rc_->upper : rc_->lower) : NULL;
    size_t blen = fwd ? rc_->ulen : rc_->llen;
    size_t used = FERRY_PAGE_HEADER;
    uint32_t count = 0;
    const rdb_ttl *ttl = rc_->ttl;
    int64_t now = ttl ? rdb_ttl_now(ttl) : 0;
    int more;
    while ((more = RDB.iter_valid(it)) && count < max_entries) {
        size_t kl, vl;
        const char *k = RDB.iter_key(it, &kl);
        if (bound) {
            int cmp = cur_cmp(rc_, k, kl, bound, blen);
            if (fwd ? cmp >= 0 : cmp < 0) { more = 0; break; }
        }
        const char *v = RDB.iter_value(it, &vl);
        if (ttl && rdb_ttl_expired_at(ttl, v, vl, now)) { /* hidden until a compaction drops it */
            step(it);
            continue;
        }
        if (kl > UINT32_MAX || vl > UINT32_MAX || !ferry_page_emit_copy(page, cap, &used, k, kl, v, vl)) {
            if (count) break;
            return rdb_cmp_after(fill_too_big(page, 0, kl, vl, err), err);
        }
        count++;
        step(it);
    }
    return rdb_cmp_after(fill_done(it, more, page, count, 0, used, err), err);
}
