/* Merge operators of the binding's language (ferry.h, "Merge operators of the binding's language"):
 * the handles (callback.c's) and the C functions RocksDB calls, which pass the merge to the handle's
 * callback (a binding's C trampoline). */
#include "engine.h"

#include <string.h>

int ferry_merge_operator_create(const char *name, int64_t token, void *callback, ferry_merge_operator **out,
                                ferry_error *err)
{
    return rdb_cb_create(RDB_CB_MERGE, name, token, callback, (rdb_cb **)out, err);
}

int ferry_merge_operator_close(ferry_merge_operator *m)
{
    if (m) rdb_cb_close(&m->cb);
    return FERRY_OK;
}

void *ferry_merge_value_alloc(ferry_merge_value *v, size_t len)
{
    if (!v) return NULL;
    char *d = malloc(len ? len : 1);
    if (!d) return NULL;
    free(v->data);
    v->data = d;
    v->len = len;
    return d;
}

/* RocksDB's side: one rocksdb_mergeoperator_t per options object, its state a reference to the handle. */

static char empty_value[1];

static char *done(ferry_merge_value *out, int ok, unsigned char *success, size_t *new_len)
{
    if (ok != 1 || !out->data) {
        free(out->data);
        *success = 0;
        *new_len = 0;
        return empty_value;   /* RocksDB frees nothing it got with success == 0 */
    }
    *success = 1;
    *new_len = out->len;
    return out->data;
}

static char *full_merge(void *st, const char *key, size_t klen, const char *existing, size_t elen,
                        const char *const *ops, const size_t *op_lens, int n, unsigned char *success, size_t *new_len)
{
    rdb_cb *m = st;
    ferry_merge_value out = {NULL, 0};
    int ok = ((ferry_merge_fn)(intptr_t)m->fn)(m->token, 0, key, klen, existing, existing ? (int64_t)elen : -1, n,
                                                (const void *const *)ops, op_lens, &out);
    return done(&out, ok, success, new_len);
}

static char *partial_merge(void *st, const char *key, size_t klen, const char *const *ops, const size_t *op_lens,
                           int n, unsigned char *success, size_t *new_len)
{
    rdb_cb *m = st;
    ferry_merge_value out = {NULL, 0};
    int ok = ((ferry_merge_fn)(intptr_t)m->fn)(m->token, 1, key, klen, NULL, -1, n, (const void *const *)ops,
                                                op_lens, &out);
    return done(&out, ok, success, new_len);
}

static void delete_value(void *st, const char *v, size_t vlen)
{
    (void)st; (void)vlen;
    if (v != empty_value) free((void *)v);
}

static void destroy(void *st)
{
    rdb_cb_unref(st);
}

static const char *operator_name(void *st)
{
    return ((rdb_cb *)st)->name;
}

rocksdb_mergeoperator_t *rdb_merge_operator(ferry_merge_operator *m)
{
    rdb_cb_ref(&m->cb);
    return RDB.mergeoperator_create(&m->cb, destroy, full_merge, partial_merge, delete_value, operator_name);
}
