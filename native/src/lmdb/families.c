/* LMDB engine: column families (named databases), and their key orders.
 *
 * Key orders. LMDB does not record a comparator: a database's order is whatever function the
 * process gives mdb_set_compare, in the transaction that opens its handle, before any access. Ferry
 * records a family's order in the flags LMDB keeps with the database (its record in the main
 * database, written when the family is created and never changed): the duplicate-order flags
 * MDB_REVERSEDUP (REVERSE_BYTEWISE) and MDB_INTEGERDUP (UINT64_BIG_ENDIAN), which LMDB reads only
 * for DUPSORT databases, and Ferry gives no DUPSORT family a key order. Every mdb_dbi_open of a
 * named family is followed by lmdb_dbi_order, which reads those flags and sets the comparison:
 * - REVERSE_BYTEWISE: rev_cmp below (not LMDB's MDB_REVERSEKEY, which compares keys from their last
 *   byte: another order);
 * - UINT64_BIG_ENDIAN: LMDB's own bytewise comparison, which is the numeric order of 8-byte
 *   big-endian keys, and ferry.c refuses keys of another length (FERRY_EKEYSIZE);
 * - a comparator of the binding's language (both flags, FERRY_ORDER_CALLBACK): comparator.c.
 * A family found on disk in another order than the open asked for (lmdb_order_found) is refused
 * (FERRY_EINVAL naming both), as RocksDB refuses another comparator. */
#include "engine.h"

/* The reverse of bytewise: unsigned bytes, then length, both reversed. */
static int rev_cmp(const MDB_val *a, const MDB_val *b)
{
    size_t n = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
    int c = n ? memcmp(a->mv_data, b->mv_data, n) : 0;
    if (!c) c = (a->mv_size > b->mv_size) - (a->mv_size < b->mv_size);
    return -c;
}

static const char *order_name(int order)
{
    return order == FERRY_ORDER_BYTEWISE ? "BYTEWISE" : order == FERRY_ORDER_REVERSE ? "REVERSE_BYTEWISE"
         : order == FERRY_ORDER_U64_BE ? "UINT64_BIG_ENDIAN" : "JAVA";
}

/* The database flags that record an order (see the top of this file). */
static unsigned order_flags(int order)
{
    return order == FERRY_ORDER_REVERSE ? MDB_REVERSEDUP : order == FERRY_ORDER_U64_BE ? MDB_INTEGERDUP
         : order == FERRY_ORDER_CALLBACK ? MDB_REVERSEDUP | MDB_INTEGERDUP : 0;
}

int lmdb_dbi_order(MDB_txn *txn, MDB_dbi dbi, const char *name, int *order_out, ferry_error *err)
{
    unsigned f = 0;
    int rc = MDB.mdb_dbi_flags(txn, dbi, &f);
    if (rc) return lmdb_fail(err, rc, "column family flags");
    unsigned marks = (f & MDB_DUPSORT) ? 0 : f & (MDB_REVERSEDUP | MDB_INTEGERDUP);
    (void)name;
    *order_out = marks == MDB_REVERSEDUP ? FERRY_ORDER_REVERSE : marks == MDB_INTEGERDUP ? FERRY_ORDER_U64_BE
               : marks ? FERRY_ORDER_CALLBACK : FERRY_ORDER_BYTEWISE;
    if (*order_out == FERRY_ORDER_REVERSE && (rc = MDB.mdb_set_compare(txn, dbi, rev_cmp)) != MDB_SUCCESS)
        return lmdb_fail(err, rc, "set the key order");
    return FERRY_OK;
}

int lmdb_order_found(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const char *name, int *bits_out, ferry_error *err)
{
    int have = FERRY_ORDER_BYTEWISE, want = FERRY_ORDER_BYTEWISE;
    ferry_comparator *cmp = NULL;
    unsigned f = 0;
    int rc = MDB.mdb_dbi_flags(txn, dbi, &f);
    if (rc) return lmdb_fail(err, rc, "column family flags");
    /* a database another program made in LMDB's own integer or reverse order: LMDB would compare its keys
     * so, but Ferry's bounds, seeks and fills read keys in bytewise order or one of Ferry's orders */
    if (f & (MDB_INTEGERKEY | MDB_REVERSEKEY))
        return ferry_fail(err, FERRY_ENOTSUP, 0, "LMDB database '%s' was made with %s (by another program): LMDB "
                          "compares its keys %s, an order Ferry does not read; open it with that program, or copy its "
                          "entries into a family of Ferry's (KeyOrder.UINT64_BIG_ENDIAN is Ferry's integer order)",
                          name, (f & MDB_INTEGERKEY) ? "MDB_INTEGERKEY" : "MDB_REVERSEKEY",
                          (f & MDB_INTEGERKEY) ? "as native-endian integers" : "from their last byte");
    rc = lmdb_dbi_order(txn, dbi, name, &have, err);
    if (rc) return rc;
    for (uint32_t i = 0; i < s->nwant; i++)
        if (strcmp(s->want_names[i], name) == 0) { want = s->want_orders[i]; cmp = s->want_cmps[i]; }
    char made[FERRY_MERGE_NAME_MAX + 1] = "";
    if (have == FERRY_ORDER_CALLBACK && (rc = lmdb_cmp_record(txn, name, NULL, 0, made, err)) == FERRY_NOTFOUND)
        snprintf(made, sizeof made, "%s", "(unrecorded)");
    else if (rc)
        return rc;
    char a[FERRY_MERGE_NAME_MAX + 32], b[FERRY_MERGE_NAME_MAX + 32];
    snprintf(a, sizeof a, have == FERRY_ORDER_CALLBACK ? "comparator '%s'" : "key order %s",
             have == FERRY_ORDER_CALLBACK ? made : order_name(have));
    snprintf(b, sizeof b, want == FERRY_ORDER_CALLBACK ? "comparator '%s'" : "key order %s",
             want == FERRY_ORDER_CALLBACK ? ferry_cmp_name(cmp) : order_name(want));
    if (strcmp(a, b) != 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "LMDB column family '%s' was created with %s and is opened with %s: "
                          "give it its ColumnFamilyOptions.keyOrder or javaComparator (FERRY_CFOPT_KEY_ORDER, a "
                          "ferry_comparator) at every open", name, a, b);
    if (have == FERRY_ORDER_CALLBACK && (rc = lmdb_cmp_bind(s, txn, dbi, name, cmp, err)) != FERRY_OK) return rc;
    *bits_out = have << FERRY_SLOT_ORDER_SHIFT;
    return FERRY_OK;
}

lmdb_stripe *lmdb_names_enter(lmdb_store *s, ferry_cf_slot *cf)
{
    return lmdb_is_default_cf(s, cf) ? NULL : lmdb_names_enter_on(s, lmdb_stripe_of(s), cf);
}

/* Called by a drop (under cf_lock, before it takes wlock) before mdb_drop closes a handle;
 * names_allow once the slot is marked. Readers spin meanwhile (a drop is rare; it may wait for
 * its commit's sync). */
static void names_block(lmdb_store *s)
{
    atomic_store(&s->dropping, 1);
    for (int i = 0; i < LMDB_STRIPES; i++)
        while (atomic_load(&s->stripes[i].n) != 0) plat_yield();
}

static void names_allow(lmdb_store *s)
{
    atomic_store(&s->dropping, 0);
}

typedef struct cf_ctx {
    const char *name;
    MDB_dbi dbi;
    int closed;   /* a drop: mdb_drop closed the handle in some attempt */
    unsigned dbflags; /* create: MDB_DUPSORT / MDB_DUPFIXED, or the order's flags */
    int order;        /* create: the family's FERRY_ORDER_* */
    ferry_comparator *cmp; /* create: FERRY_ORDER_CALLBACK's comparator */
} cf_ctx;

/* Write fn: create (or open) a named database. */
static int cf_create_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    if (!s->families_listed) {
        /* families not listed at open (see list_families) may exist without a slot: creating one
         * would open it with its data */
        MDB_dbi probe;
        int prc = MDB.mdb_dbi_open(txn, c->name, 0, &probe);
        if (prc == MDB_SUCCESS)
            return ferry_fail(err, FERRY_EEXISTS, 0, "column family '%s' already exists", c->name);
        if (prc != MDB_NOTFOUND && prc != MDB_INCOMPATIBLE && prc != MDB_DBS_FULL)
            return lmdb_fail(err, prc, "create column family");
    }
    int rc = MDB.mdb_dbi_open(txn, c->name, MDB_CREATE | c->dbflags, &c->dbi);
    if (rc == MDB_DBS_FULL) /* ferry_cf_create counts live families first: not expected */
        return ferry_fail(err, FERRY_EDBSFULL, rc, "cannot create '%s': LMDB has no free database handle "
                          "(maxColumnFamilies, FERRY_OPT_MAX_DBS)", c->name);
    if (rc == MDB_INCOMPATIBLE)
        return ferry_fail(err, FERRY_EEXISTS, rc, "cannot create '%s': a key of that name exists in the default family", c->name);
    if (rc) return lmdb_fail(err, rc, "create column family");
    int have = FERRY_ORDER_BYTEWISE;
    if ((rc = lmdb_dbi_order(txn, c->dbi, c->name, &have, err)) != FERRY_OK) return rc;
    if (have != c->order)   /* it existed: made by another process meanwhile */
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s' exists with key order %s, not %s", c->name,
                          order_name(have), order_name(c->order));
    if (have != FERRY_ORDER_CALLBACK) return FERRY_OK;
    if ((rc = lmdb_cmp_bind(s, txn, c->dbi, c->name, c->cmp, err)) != FERRY_OK) return rc;
    return lmdb_cmp_record(txn, c->name, ferry_cmp_name(c->cmp), 0, NULL, err);
}

/* Write fn: delete a named database and close its handle. The handle is looked up by name in
 * each attempt: when an earlier attempt's commit failed (map full, then grown), its mdb_drop had
 * already closed the handle the slot records. */
static int cf_drop_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    MDB_dbi dbi;
    int rc = MDB.mdb_dbi_open(txn, c->name, 0, &dbi), order;
    if (rc) return lmdb_fail(err, rc, "drop column family: open");
    if ((rc = lmdb_dbi_order(txn, dbi, c->name, &order, err)) != FERRY_OK) return rc;
    if (order == FERRY_ORDER_CALLBACK && ((rc = lmdb_cmp_bind(s, txn, dbi, c->name, NULL, err)) != FERRY_OK
                                          || (rc = lmdb_cmp_record(txn, c->name, NULL, 1, NULL, err)) != FERRY_OK))
        return rc;
    rc = MDB.mdb_drop(txn, dbi, 1);
    if (rc) return lmdb_fail(err, rc, "drop column family");
    c->closed = 1;
    return FERRY_OK;
}

/* Write fn: open a family's handle by name (after a drop that closed it did not commit). */
static int cf_reopen_fn(lmdb_store *s, MDB_txn *txn, void *ctx, ferry_error *err)
{
    cf_ctx *c = ctx;
    int rc = MDB.mdb_dbi_open(txn, c->name, 0, &c->dbi), order;
    if (rc) return lmdb_fail(err, rc, "reopen column family");
    if ((rc = lmdb_dbi_order(txn, c->dbi, c->name, &order, err)) != FERRY_OK) return rc;
    return order == FERRY_ORDER_CALLBACK ? lmdb_cmp_bind(s, txn, c->dbi, c->name, NULL, err) : FERRY_OK;
}

static int lmdb_cf_create_in(ferry_store *s, const char *name, uint32_t flags, int order, ferry_comparator *cmp,
                             void **handle_out, int *bits_out, ferry_error *err);

int lmdb_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, const char *extra,
                          void **handle_out, int *bits_out, ferry_error *err)
{
    /* ferry.c refused every option but the key order; the options string may name a comparator */
    int order = (int)ferry_opt(opts, FERRY_CFOPT_KEY_ORDER, FERRY_ORDER_BYTEWISE);
    if (order != FERRY_ORDER_BYTEWISE && order != FERRY_ORDER_REVERSE && order != FERRY_ORDER_U64_BE)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': unknown key order %d (FERRY_CFOPT_KEY_ORDER)",
                          name, order);
    if (strcmp(name, LMDB_CMP_DB) == 0)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family name '%s' is Ferry's own (comparator names)", name);
    ferry_comparator *cmp = NULL;
    int rc = ferry_cmp_named(name, extra, &cmp, err);
    if (rc) return rc;
    if (cmp && order != FERRY_ORDER_BYTEWISE) {
        ferry_cmp_unref(cmp);
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': a comparator (%s) and a key order "
                          "(FERRY_CFOPT_KEY_ORDER) other than bytewise: a family has one order", name,
                          ferry_cmp_name(cmp));
    }
    if (cmp) order = FERRY_ORDER_CALLBACK;
    rc = lmdb_cf_create_in(s, name, flags, order, cmp, handle_out, bits_out, err);
    ferry_cmp_unref(cmp);
    return rc;
}

static int lmdb_cf_create_in(ferry_store *s, const char *name, uint32_t flags, int order, ferry_comparator *cmp,
                             void **handle_out, int *bits_out, ferry_error *err)
{
    size_t n = strlen(name);
    if (n > LS(s)->max_key)
        return ferry_fail(err, FERRY_EINVAL, 0,
                          "column family name of %zu bytes is too long: LMDB keeps family names as keys of the "
                          "default family, at most %zu bytes", n, LS(s)->max_key);
    cf_ctx c = { name, 0, 0, order_flags(order), order, cmp };
    if (flags & FERRY_CF_DUPSORT) c.dbflags |= MDB_DUPSORT;
    if (flags & FERRY_CF_DUPFIXED) c.dbflags |= MDB_DUPFIXED;
    int rc = lmdb_with_write_txn(LS(s), cf_create_fn, &c, err);
    if (rc == FERRY_OK) {
        *handle_out = (void *)(uintptr_t)c.dbi;
        *bits_out = order << FERRY_SLOT_ORDER_SHIFT;
    }
    return rc;
}

/* cf_flags: the flags LMDB keeps with the database, read in a read transaction. */
int lmdb_cf_flags(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err)
{
    MDB_txn *txn;
    int rc = lmdb_read_acquire(LS(s), &txn, err);
    if (rc) return rc;
    unsigned dbflags = 0;
    int mrc = MDB.mdb_dbi_flags(txn, DBI(cf), &dbflags);
    lmdb_read_release(LS(s), txn);
    if (mrc) return lmdb_fail(err, mrc, "column family flags");
    int drc = lmdb_dropped_since(cf, err);
    if (drc) return drc;
    int order = ferry_slot_order(cf);
    *out = ((dbflags & MDB_DUPSORT) ? FERRY_CF_DUPSORT : 0) | ((dbflags & MDB_DUPFIXED) ? FERRY_CF_DUPFIXED : 0)
         | (order == FERRY_ORDER_REVERSE ? FERRY_CF_ORDER_REVERSE : order == FERRY_ORDER_U64_BE ? FERRY_CF_ORDER_U64_BE
            : order == FERRY_ORDER_CALLBACK ? FERRY_CF_ORDER_CALLBACK : 0);
    return FERRY_OK;
}

/* cf_drop: mdb_drop(del=1) deletes the database and closes its handle; the slot is marked
 * dropped at the commit, under wlock (see family_live). Reads of named families wait from
 * before mdb_drop frees the name until the slot is marked (see names_enter), so a racing read
 * sees either the live family or "dropped". When the drop fails after LMDB closed the handle,
 * the family still exists: its handle is opened again (readers are still held off, so the slot
 * can take the new number). */
int lmdb_cf_drop(ferry_store *s, ferry_cf_slot *slot, ferry_error *err)
{
    cf_ctx c = { slot->name, DBI(slot), 0, 0, 0, NULL };
    names_block(LS(s));
    int rc = lmdb_with_write_txn_then(LS(s), cf_drop_fn, &c, &slot->dropped, err);
    if (rc != FERRY_OK && c.closed) {
        cf_ctx r = { slot->name, 0, 0, 0, 0, NULL };
        ferry_error e2;
        if (lmdb_with_write_txn(LS(s), cf_reopen_fn, &r, &e2) == FERRY_OK) slot->handle = (void *)(uintptr_t)r.dbi;
        else atomic_store(&slot->dropped, 1); /* unreachable now: refuse it rather than read a closed handle */
    }
    names_allow(LS(s));
    return rc;
}
