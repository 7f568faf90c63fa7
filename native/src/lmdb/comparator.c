/* LMDB engine: families ordered by a comparator of the binding's language (FERRY_ORDER_CALLBACK: a
 * ferry_comparator named in the family's options string, KeyOrder.JAVA).
 *
 * - LMDB's comparison function (MDB_cmp_func) has no context pointer: a fixed table of LMDB_CMP_SLOTS C
 *   functions, one per entry of `table`, each calls its entry's comparator. An entry belongs to one family of
 *   one store from the family's first open to the store's close (a drop does not free it); past
 *   LMDB_CMP_SLOTS such families open at once in the process, FERRY_ENOTSUP.
 * - The family's database flags record the order (MDB_REVERSEDUP | MDB_INTEGERDUP, see families.c); the
 *   comparator's name is a record of a database of Ferry's own, LMDB_CMP_DB (family name -> comparator
 *   name), written in the transaction that creates the family and deleted in the one that drops it. That
 *   database is no family: it is left out of the listings and its name refused to families.
 * - LMDB cannot fail a comparison. A comparison whose callback fails answers "equal", marks the family
 *   refused until the store is reopened (FERRY_SLOT_BROKEN), and counts on the thread (lmdb_cmp_mark,
 *   lmdb_cmp_after): the call that needed it fails with FERRY_EABORTED, and a write transaction in which it
 *   happened is aborted, never committed (lmdb_with_write_txn_then; a user transaction refuses its commit).
 */
#include "engine.h"

/* One table entry: a family's comparator (NULL: free), its store and LMDB handle. */
typedef struct lmdb_jcmp {
    _Atomic(ferry_comparator *) cmp;
    lmdb_store *store;
    MDB_dbi dbi;
} lmdb_jcmp;

static lmdb_jcmp table[LMDB_CMP_SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

atomic_uint lmdb_cmp_failures;
static _Thread_local unsigned failed_count;                 /* comparisons failed on this thread */
static _Thread_local char failed_name[FERRY_MERGE_NAME_MAX + 1];

unsigned lmdb_cmp_count(void)
{
    return failed_count;
}

int lmdb_cmp_changed(unsigned mark, int rc, ferry_error *err)
{
    if (failed_count == mark) return rc;
    return ferry_fail(err, FERRY_EABORTED, 0, "the comparator '%s' failed during this call (see "
                      "ferry_comparator_create): its column family refuses every call until the store is reopened",
                      failed_name);
}

/* Refuse the family of entry t from now on (its store's live slot of that handle). */
static void broken(lmdb_jcmp *t, const char *name)
{
    failed_count++;
    snprintf(failed_name, sizeof failed_name, "%s", name);
    atomic_fetch_add(&lmdb_cmp_failures, 1);
    ferry_store *s = &t->store->base;
    uint32_t n = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    for (uint32_t id = 1; id < n; id++) {
        ferry_cf_slot *slot = ferry_slot(s, id);
        int live = 0;
        if (DBI(slot) == t->dbi && ferry_slot_order(slot) == FERRY_ORDER_CALLBACK)
            atomic_compare_exchange_strong(&slot->dropped, &live, FERRY_SLOT_BROKEN);
    }
}

static int compare(lmdb_jcmp *t, const void *a, size_t al, const void *b, size_t bl)
{
    ferry_comparator *c = atomic_load_explicit(&t->cmp, memory_order_acquire);
    int32_t failed = 0;
    int32_t r = ferry_cmp_call(c, a, al, b, bl, &failed);
    if (!failed) return (r > 0) - (r < 0);
    broken(t, ferry_cmp_name(c));
    return 0;   /* "equal": the transaction that needed it is not committed */
}

/* The slot's comparison, for ferry_slot_cmp (cursor bounds, range deletes). */
static int slot_compare(void *st, const char *a, size_t al, const char *b, size_t bl)
{
    return compare(st, a, al, b, bl);
}

static int call(int i, const MDB_val *a, const MDB_val *b)
{
    return compare(&table[i], a->mv_data, a->mv_size, b->mv_data, b->mv_size);
}

#define J(i) static int jcmp_##i(const MDB_val *a, const MDB_val *b) { return call(i, a, b); }
J(0) J(1) J(2) J(3) J(4) J(5) J(6) J(7)
J(8) J(9) J(10) J(11) J(12) J(13) J(14) J(15)
J(16) J(17) J(18) J(19) J(20) J(21) J(22) J(23)
J(24) J(25) J(26) J(27) J(28) J(29) J(30) J(31)
J(32) J(33) J(34) J(35) J(36) J(37) J(38) J(39)
J(40) J(41) J(42) J(43) J(44) J(45) J(46) J(47)
J(48) J(49) J(50) J(51) J(52) J(53) J(54) J(55)
J(56) J(57) J(58) J(59) J(60) J(61) J(62) J(63)
#undef J

static MDB_cmp_func *const fns[LMDB_CMP_SLOTS] = {
    jcmp_0, jcmp_1, jcmp_2, jcmp_3, jcmp_4, jcmp_5, jcmp_6, jcmp_7,
    jcmp_8, jcmp_9, jcmp_10, jcmp_11, jcmp_12, jcmp_13, jcmp_14, jcmp_15,
    jcmp_16, jcmp_17, jcmp_18, jcmp_19, jcmp_20, jcmp_21, jcmp_22, jcmp_23,
    jcmp_24, jcmp_25, jcmp_26, jcmp_27, jcmp_28, jcmp_29, jcmp_30, jcmp_31,
    jcmp_32, jcmp_33, jcmp_34, jcmp_35, jcmp_36, jcmp_37, jcmp_38, jcmp_39,
    jcmp_40, jcmp_41, jcmp_42, jcmp_43, jcmp_44, jcmp_45, jcmp_46, jcmp_47,
    jcmp_48, jcmp_49, jcmp_50, jcmp_51, jcmp_52, jcmp_53, jcmp_54, jcmp_55,
    jcmp_56, jcmp_57, jcmp_58, jcmp_59, jcmp_60, jcmp_61, jcmp_62, jcmp_63,
};

int lmdb_cmp_bind(lmdb_store *s, MDB_txn *txn, MDB_dbi dbi, const char *name, ferry_comparator *c, ferry_error *err)
{
    int i, free_at = -1;
    pthread_mutex_lock(&table_lock);
    for (i = 0; i < LMDB_CMP_SLOTS; i++) {
        ferry_comparator *have = atomic_load(&table[i].cmp);
        if (have && table[i].store == s && table[i].dbi == dbi) break;
        if (!have && free_at < 0) free_at = i;
    }
    if (i < LMDB_CMP_SLOTS && c && atomic_load(&table[i].cmp) != c) {
        /* the handle number of a family dropped (or not created) since: the new family's comparator */
        ferry_cmp_ref(c);
        ferry_cmp_unref(atomic_exchange(&table[i].cmp, c));
    } else if (i == LMDB_CMP_SLOTS && !c) {
        pthread_mutex_unlock(&table_lock);
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': its comparator is gone", name);
    } else if (i == LMDB_CMP_SLOTS && free_at >= 0) {
        i = free_at;
        table[i].store = s;
        table[i].dbi = dbi;
        atomic_store_explicit(&table[i].cmp, c, memory_order_release);
        ferry_cmp_ref(c);
    }
    pthread_mutex_unlock(&table_lock);
    if (i == LMDB_CMP_SLOTS)
        return ferry_fail(err, FERRY_ENOTSUP, 0, "column family '%s': %d LMDB families ordered by a comparator of the "
                          "binding's language are open in this process, the most it can hold (close a store that "
                          "has some)", name, LMDB_CMP_SLOTS);
    int rc = MDB.mdb_set_compare(txn, dbi, fns[i]);
    return rc ? lmdb_fail(err, rc, "set the comparator") : FERRY_OK;
}

int lmdb_cmp_added(ferry_store *fs, uint32_t id, ferry_error *err)
{
    ferry_cf_slot *slot = ferry_slot(fs, id);
    if (ferry_slot_order(slot) != FERRY_ORDER_CALLBACK) return FERRY_OK;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < LMDB_CMP_SLOTS; i++)
        if (atomic_load(&table[i].cmp) && table[i].store == LS(fs) && table[i].dbi == DBI(slot)) {
            slot->cmp_state = &table[i];
            slot->cmp = slot_compare;
        }
    pthread_mutex_unlock(&table_lock);
    if (slot->cmp) return FERRY_OK;
    return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': its comparator is gone", slot->name);
}

void lmdb_cmp_release(lmdb_store *s)
{
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < LMDB_CMP_SLOTS; i++)
        if (table[i].store == s && atomic_load(&table[i].cmp)) {
            ferry_cmp_unref(atomic_exchange(&table[i].cmp, NULL));
            table[i].store = NULL;
        }
    pthread_mutex_unlock(&table_lock);
}

int lmdb_cmp_record(MDB_txn *txn, const char *family, const char *cmp_name, int del, char *name_out, ferry_error *err)
{
    MDB_dbi dbi;
    int rc = MDB.mdb_dbi_open(txn, LMDB_CMP_DB, cmp_name ? MDB_CREATE : 0, &dbi);
    if (rc == MDB_NOTFOUND && !cmp_name) return del ? FERRY_OK : FERRY_NOTFOUND;
    if (rc) return lmdb_fail(err, rc, "comparator names (" LMDB_CMP_DB ")");
    MDB_val k = { strlen(family), (void *)family }, v;
    if (cmp_name) {
        v.mv_size = strlen(cmp_name);
        v.mv_data = (void *)cmp_name;
        rc = MDB.mdb_put(txn, dbi, &k, &v, 0);
    } else if (del) {
        rc = MDB.mdb_del(txn, dbi, &k, NULL);
        if (rc == MDB_NOTFOUND) rc = MDB_SUCCESS;
    } else {
        rc = MDB.mdb_get(txn, dbi, &k, &v);
        if (rc == MDB_NOTFOUND) return FERRY_NOTFOUND;
        if (!rc) {
            size_t n = v.mv_size > FERRY_MERGE_NAME_MAX ? FERRY_MERGE_NAME_MAX : v.mv_size;
            memcpy(name_out, v.mv_data, n);
            name_out[n] = '\0';
        }
    }
    return rc ? lmdb_fail(err, rc, "comparator names (" LMDB_CMP_DB ")") : FERRY_OK;
}
