/* Comparators of the binding's language (ferry.h, "Comparators of the binding's language"): the handles
 * (callback.c's), the RocksDB comparator made per family that names one, and what happens when the
 * callback fails. RocksDB cannot fail a comparison, and its files and compaction picker rely on one order
 * for the life of the store: a file's first and last keys, read in any other order, can make a range
 * that holds no file, and the picker then reads past an empty input list (a crash, found by the misuse
 * fuzzer when this comparator answered bytewise after a failure). So a failed comparison is asked again,
 * up to RDB_CMP_ATTEMPTS times: a failure that passes (the fuzzer's random throws, an OutOfMemoryError)
 * leaves the order whole. The family is refused from the first failure on (its slot is marked
 * FERRY_SLOT_BROKEN, the call on the failing thread fails with FERRY_EABORTED through rdb_cmp_after).
 * A pair whose every attempt fails is answered "equal": the one answer that never contradicts the
 * comparator's order, so no file's range can come out empty (see docs/usage.md for what it costs). */
#include "engine.h"

#include <string.h>

/* One family's comparator: RocksDB's options keep a raw pointer to obj, so it lives until the store is
 * freed (after the database closed). */
struct rdb_cmp {
    rdb_cb *cb;                       /* a reference */
    rocksdb_comparator_t *obj;
    rdb_store *store;
    _Atomic(ferry_cf_slot *) slot;    /* the family's slot, once it has one (rdb_cmp_bind) */
    atomic_int failed;
    char *family;                     /* the family's name, until bound */
    struct rdb_cmp *next;             /* the store's list (under ttl_lock) */
};

atomic_int rdb_cmp_failures;

/* The name of the comparator that failed on this thread, until rdb_cmp_after takes it ("" for none). */
static _Thread_local char failed_here[FERRY_MERGE_NAME_MAX + 1];

int ferry_comparator_create(const char *name, int64_t token, void *callback, ferry_comparator **out, ferry_error *err)
{
    return rdb_cb_create(RDB_CB_COMPARATOR, name, token, callback, (rdb_cb **)out, err);
}

int ferry_comparator_close(ferry_comparator *c)
{
    if (c) rdb_cb_close(&c->cb);
    return FERRY_OK;
}

static void broken(rdb_cmp *c)
{
    if (atomic_exchange(&c->failed, 1) == 0) atomic_fetch_add(&rdb_cmp_failures, 1);
    memcpy(failed_here, c->cb->name, sizeof failed_here);
    ferry_cf_slot *slot = atomic_load(&c->slot);
    int live = 0;
    if (slot) atomic_compare_exchange_strong(&slot->dropped, &live, FERRY_SLOT_BROKEN);
}

/* Attempts at one comparison before it is answered "equal" (see the top of this file). */
#define RDB_CMP_ATTEMPTS 4

static int compare(void *st, const char *a, size_t al, const char *b, size_t bl)
{
    rdb_cmp *c = st;
    ferry_compare_fn fn = (ferry_compare_fn)(intptr_t)c->cb->fn;
    for (int attempt = 0; attempt < RDB_CMP_ATTEMPTS; attempt++) {
        int32_t failed = 0;
        int32_t r = fn(c->cb->token, a, al, b, bl, &failed);
        if (!failed) return (r > 0) - (r < 0);
        broken(c);
    }
    return 0;
}

static const char *cmp_name(void *st)
{
    return ((rdb_cmp *)st)->cb->name;
}

static void cmp_destroy(void *st)
{
    (void)st;   /* the store frees its comparators (rdb_cmp_free) */
}

/* The slot's comparison, for ferry_slot_cmp: the same function RocksDB calls. */
static int slot_compare(void *st, const char *a, size_t al, const char *b, size_t bl)
{
    return compare(st, a, al, b, bl);
}

int rdb_cmp_apply(rdb_store *s, const char *family, const char *extra, int64_t order, rocksdb_options_t *f,
                  int64_t *order_out, ferry_error *err)
{
    const char *k, *v, *val = NULL;
    size_t kn, vn, valn = 0;
    *order_out = order;
    for (const char *p = extra; extra && (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (rdb_key_is(k, kn, "comparator")) { val = v; valn = vn; }
    int is_token = 0;
    rdb_cb *cb = val ? rdb_cb_token(RDB_CB_COMPARATOR, val, valn, &is_token) : NULL;
    if (!is_token) return FERRY_OK;
    int shown = (int)(valn > 200 ? 200 : valn);
    if (!cb)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': options string sets comparator=%.*s, which is not an "
                          "open comparator (closed, or not made by ferry_comparator_create)", family, shown, val);
    if (order != FERRY_ORDER_BYTEWISE) {
        rdb_cb_unref(cb);
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': a comparator (%s) and a key order "
                          "(FERRY_CFOPT_KEY_ORDER) other than bytewise: a family has one order", family, cb->name);
    }
    rdb_cmp *c = calloc(1, sizeof *c);
    char *name = strdup(family);
    rocksdb_comparator_t *obj = c && name ? RDB.comparator_create(c, cmp_destroy, compare, cmp_name) : NULL;
    if (!obj) {
        free(c);
        free(name);
        rdb_cb_unref(cb);
        return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    }
    c->cb = cb;
    c->obj = obj;
    c->store = s;
    c->family = name;
    pthread_mutex_lock(&s->ttl_lock);
    c->next = s->cmps;
    s->cmps = c;
    pthread_mutex_unlock(&s->ttl_lock);
    RDB.options_set_comparator(f, obj);
    *order_out = FERRY_ORDER_CALLBACK;
    return FERRY_OK;
}

int rdb_cmp_bind(ferry_store *fs, uint32_t id, ferry_error *err)
{
    rdb_store *s = STORE(fs);
    ferry_cf_slot *slot = ferry_slot(fs, id);
    if (ferry_slot_order(slot) != FERRY_ORDER_CALLBACK) return FERRY_OK;
    rdb_cmp *found = NULL;
    pthread_mutex_lock(&s->ttl_lock);
    for (rdb_cmp *c = s->cmps; c && !found; c = c->next)
        if (c->family && strcmp(c->family, slot->name) == 0 && !atomic_load(&c->slot)) found = c;
    if (found) {
        free(found->family);
        found->family = NULL;
        slot->cmp_state = found;
        slot->cmp = slot_compare;
        atomic_store(&found->slot, slot);
    }
    pthread_mutex_unlock(&s->ttl_lock);
    if (!found) return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': its comparator is gone", slot->name);
    if (atomic_load(&found->failed)) {   /* it failed before the family had its slot (replaying the log) */
        int live = 0;
        atomic_compare_exchange_strong(&slot->dropped, &live, FERRY_SLOT_BROKEN);
        failed_here[0] = '\0';
        return ferry_fail(err, FERRY_EABORTED, 0, "column family '%s': its comparator '%s' failed while the store "
                          "opened (replaying its log)", slot->name, found->cb->name);
    }
    return FERRY_OK;
}

int rdb_cmp_failed_here(ferry_error *err)
{
    if (!failed_here[0]) return 0;
    ferry_fail(err, FERRY_EABORTED, 0, "the comparator '%s' failed during this call (see ferry_comparator_create): its "
               "column family refuses every call until the store is reopened", failed_here);
    failed_here[0] = '\0';
    return 1;
}

/* ---- the handles for other engines (internal.h, "Comparators for LMDB") ---- */

int ferry_cmp_named(const char *family, const char *extra, ferry_comparator **out, ferry_error *err)
{
    const char *k, *v;
    size_t kn, vn;
    *out = NULL;
    for (const char *p = extra; extra && (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;) {
        int is_token = 0;
        rdb_cb *cb = rdb_key_is(k, kn, "comparator") ? rdb_cb_token(RDB_CB_COMPARATOR, v, vn, &is_token) : NULL;
        if (!is_token || *out) {
            rdb_cb_unref(cb);
            ferry_cmp_unref(*out);
            *out = NULL;
            return ferry_fail(err, FERRY_ENOTSUP, 0, "column family '%s': per-family options (compression, bloom filter, "
                              "block size, prefix extractor, merge operator) are RocksDB's; LMDB takes only a key order "
                              "or a comparator", family);
        }
        if (!cb)
            return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': its options name a comparator that is not open "
                              "(closed, or not made by ferry_comparator_create)", family);
        *out = (ferry_comparator *)cb;
    }
    return FERRY_OK;
}

const char *ferry_cmp_name(const ferry_comparator *c)
{
    return c->cb.name;
}

int32_t ferry_cmp_call(const ferry_comparator *c, const void *a, size_t al, const void *b, size_t bl, int32_t *failed)
{
    return ((ferry_compare_fn)(intptr_t)c->cb.fn)(c->cb.token, a, al, b, bl, failed);
}

void ferry_cmp_ref(ferry_comparator *c)
{
    rdb_cb_ref(&c->cb);
}

void ferry_cmp_unref(ferry_comparator *c)
{
    if (c) rdb_cb_unref(&c->cb);
}

void rdb_cmp_free(rdb_store *s)
{
    for (rdb_cmp *c = s->cmps, *next; c; c = next) {
        next = c->next;
        RDB.comparator_destroy(c->obj);
        rdb_cb_unref(c->cb);
        free(c->family);
        free(c);
    }
    s->cmps = NULL;
}
