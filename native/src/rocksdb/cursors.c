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
    return old;
}

/* Pointer fill: each entry's value points where the pinned iterator read it; its key is copied
 * to the end of the page, growing down, and the entry points there (a key may be delta-encoded in
 * its block, and then sits in the iterator's own buffer). Ends as a pointer page of LMDB does,
 * at FERRY_PTR_SPAN bytes pointed to. */
static int fill_pointers(rdb_cursor *c, int fwd, uint8_t *page, size_t cap, uint32_t max_entries, ferry_error *err)
{
    rocksdb_iterator_t *it = c->it;
    void (*step)(rocksdb_iterator_t *) = fwd ? RDB.iter_next : RDB.iter_prev;
    unsigned char (*valid)(const rocksdb_iterator_t *) = RDB.iter_valid;
    const char *(*get_key)(const rocksdb_iterator_t *, size_t *) = RDB.iter_key;
    const char *(*get_val)(const rocksdb_iterator_t *, size_t *) = RDB.iter_value;
    size_t used = FERRY_PAGE_HEADER, tail = cap & ~(size_t)7, span = 0;
    uint32_t count = 0;
    int more;
    while ((more = valid(it)) && count < max_entries) {
        size_t kl, vl;
        const char *k = get_key(it, &kl);
        const char *v = get_val(it, &vl);
        size_t kroom = (kl + 7) & ~(size_t)7;
        if (kl > FERRY_ENTRY_MAX || vl > FERRY_ENTRY_MAX || FERRY_PTR_ENTRY + kroom > tail - used) {
            if (count) break;
            size_t need = kl > FERRY_ENTRY_MAX || vl > FERRY_ENTRY_MAX ? ferry_ptr_entry_need(kl, vl)
                                                                       : FERRY_PAGE_HEADER + FERRY_PTR_ENTRY + kroom;
            ferry_page_header(page, 0, 0, need);
            return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry needs a page of %zu bytes", need);
        }
        if (count && span + kl + vl > FERRY_PTR_SPAN) break;
        tail -= kroom;
        if (kl) memcpy(page + tail, k, kl);
        ferry_page_emit_ptr(page, cap, &used, page + tail, kl, v, vl);
        span += kl + vl;
        count++;
        step(it);
    }
    c->pinned += span;
    uint32_t flags = FERRY_PAGE_POINTERS;
    if (!more) {
        char *e = NULL;
        RDB.iter_get_error(it, &e);
        if (e) return rdb_error(err, e);
        flags |= FERRY_PAGE_END;
    }
    ferry_page_header(page, count, flags, used);
    return (int)count;
}

/* Position, then copy entries into the page until it is full, max_entries or the range ends
 * (pinning cursors: fill_pointers). */
int rdb_cursor_fill(ferry_cursor *cb, int op, const void *key, size_t klen, uint8_t *page,
                           size_t cap, uint32_t max_entries, ferry_error *err)
{
    rdb_cursor *rc_ = (rdb_cursor *)cb;
    int fwd;
    if (rc_->pin) {
        if (max_entries > INT_MAX) max_entries = INT_MAX;
        rocksdb_iterator_t *old = rc_->pinned >= RDB_PIN_LIMIT ? renew(rc_, op) : NULL;
        fwd = position(rc_->it, op, key, klen);
        if (old) RDB.iter_destroy(old);
        if (rc_->pin) return rdb_cmp_after(fill_pointers(rc_, fwd, page, cap, max_entries, err), err);
    } else {
        fwd = rc_->check_bounds ? position_bounded(rc_, op, key, klen) : position(rc_->it, op, key, klen);
    }
    rocksdb_iterator_t *it = rc_->it;
    void (*step)(rocksdb_iterator_t *) = fwd ? RDB.iter_next : RDB.iter_prev;
    const char *bound = rc_->check_bounds ? (fwd ? rc_->upper : rc_->lower) : NULL;
    size_t blen = fwd ? rc_->ulen : rc_->llen;
    unsigned char (*valid)(const rocksdb_iterator_t *) = RDB.iter_valid;
    const char *(*get_key)(const rocksdb_iterator_t *, size_t *) = RDB.iter_key;
    const char *(*get_val)(const rocksdb_iterator_t *, size_t *) = RDB.iter_value;
    size_t used = FERRY_PAGE_HEADER;
    uint32_t count = 0, flags = 0;
    const rdb_ttl *ttl = rc_->ttl;
    int64_t now = ttl ? rdb_ttl_now(ttl) : 0;
    if (max_entries > INT_MAX) max_entries = INT_MAX;
    int more;
    while ((more = valid(it)) && count < max_entries) {
        size_t kl, vl;
        const char *k = get_key(it, &kl);
        if (bound) {
            int cmp = cur_cmp(rc_, k, kl, bound, blen);
            if (fwd ? cmp >= 0 : cmp < 0) { more = 0; break; }
        }
        const char *v = get_val(it, &vl);
        if (ttl && rdb_ttl_expired_at(ttl, v, vl, now)) { /* hidden until a compaction drops it */
            step(it);
            continue;
        }
        if (kl > UINT32_MAX || vl > UINT32_MAX) {
            if (count) break;
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "entry of %zu + %zu bytes exceeds the page format", kl, vl);
        }
        if (!ferry_page_emit_copy(page, cap, &used, k, kl, v, vl)) {
            if (count) break;
            ferry_page_header(page, 0, 0, FERRY_PAGE_HEADER + ferry_copy_entry_size(kl, vl));
            return ferry_fail(err, FERRY_ETOOSMALL, 0, "entry needs a page of %zu bytes",
                              FERRY_PAGE_HEADER + ferry_copy_entry_size(kl, vl));
        }
        count++;
        step(it);
    }
    if (!more) {
        char *e = NULL;
        RDB.iter_get_error(it, &e);
        if (e) return rdb_error(err, e);
        flags = FERRY_PAGE_END;
    }
    ferry_page_header(page, count, flags, used);
    return rdb_cmp_after((int)count, err);
}
