/* Merge operators of the binding's language (ferry.h, "Merge operators of the binding's language"):
 * the handles, their registry, and the C functions RocksDB calls, which pass the merge to the
 * handle's callback (a binding's C trampoline). */
#include "engine.h"

#include <string.h>

struct ferry_merge_operator {
    int64_t token;
    ferry_merge_fn fn;
    atomic_int refs;                  /* the handle's own (until closed) + one per RocksDB operator */
    ferry_merge_operator *next;       /* registry of open handles */
    char name[FERRY_MERGE_NAME_MAX + 1];
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ferry_merge_operator *registry;

static void unref(ferry_merge_operator *m)
{
    if (atomic_fetch_sub(&m->refs, 1) == 1) free(m);
}

int ferry_merge_operator_create(const char *name, int64_t token, void *callback, ferry_merge_operator **out,
                                ferry_error *err)
{
    if (!name || !callback || !out) return ferry_fail(err, FERRY_EINVAL, 0, "name, callback or out is NULL");
    size_t n = strlen(name);
    int ok = n >= 1 && n <= FERRY_MERGE_NAME_MAX && strncmp(name, "ferry.", 6) != 0;
    for (size_t i = 0; ok && i < n; i++) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    }
    if (!ok)
        return ferry_fail(err, FERRY_EINVAL, 0, "merge operator name '%.*s': 1 to %d letters, digits, '_', '.' or '-', "
                          "not starting with \"ferry.\"", (int)(n > 200 ? 200 : n), name, FERRY_MERGE_NAME_MAX);
    ferry_merge_operator *m = calloc(1, sizeof *m);
    if (!m) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memcpy(m->name, name, n + 1);
    m->token = token;
    m->fn = (ferry_merge_fn)(intptr_t)callback;
    atomic_init(&m->refs, 1);
    pthread_mutex_lock(&registry_lock);
    m->next = registry;
    registry = m;
    pthread_mutex_unlock(&registry_lock);
    *out = m;
    return FERRY_OK;
}

int ferry_merge_operator_close(ferry_merge_operator *m)
{
    if (!m) return FERRY_OK;
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (ferry_merge_operator **p = &registry; *p; p = &(*p)->next)
        if (*p == m) { *p = m->next; found = 1; break; }
    pthread_mutex_unlock(&registry_lock);
    if (found) unref(m);
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

/* The open handle whose "merge_operator=" value is v (vn bytes), with a reference for the caller, or NULL
 * (*is_token says whether v is a token at all). */
ferry_merge_operator *rdb_merge_token(const char *v, size_t vn, int *is_token)
{
    static const char prefix[] = RDB_MERGE_TOKEN;
    size_t pn = sizeof prefix - 1;
    *is_token = vn > pn && memcmp(v, prefix, pn) == 0;
    if (!*is_token || vn - pn > 20) return NULL;
    uintptr_t addr = 0;
    for (size_t i = pn; i < vn; i++) {
        if (v[i] < '0' || v[i] > '9') return NULL;
        addr = addr * 10 + (uintptr_t)(v[i] - '0');
    }
    ferry_merge_operator *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (ferry_merge_operator *m = registry; m; m = m->next)
        if ((uintptr_t)m == addr) { found = m; atomic_fetch_add(&m->refs, 1); break; }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

void rdb_merge_release(ferry_merge_operator *m)
{
    if (m) unref(m);
}

const char *rdb_merge_name(const ferry_merge_operator *m)
{
    return m->name;
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
    ferry_merge_operator *m = st;
    ferry_merge_value out = {NULL, 0};
    int ok = m->fn(m->token, 0, key, klen, existing, existing ? (int64_t)elen : -1, n, (const void *const *)ops,
                   op_lens, &out);
    return done(&out, ok, success, new_len);
}

static char *partial_merge(void *st, const char *key, size_t klen, const char *const *ops, const size_t *op_lens,
                           int n, unsigned char *success, size_t *new_len)
{
    ferry_merge_operator *m = st;
    ferry_merge_value out = {NULL, 0};
    int ok = m->fn(m->token, 1, key, klen, NULL, -1, n, (const void *const *)ops, op_lens, &out);
    return done(&out, ok, success, new_len);
}

static void delete_value(void *st, const char *v, size_t vlen)
{
    (void)st; (void)vlen;
    if (v != empty_value) free((void *)v);
}

static void destroy(void *st)
{
    unref(st);
}

static const char *operator_name(void *st)
{
    return ((ferry_merge_operator *)st)->name;
}

rocksdb_mergeoperator_t *rdb_merge_operator(ferry_merge_operator *m)
{
    atomic_fetch_add(&m->refs, 1);
    return RDB.mergeoperator_create(m, destroy, full_merge, partial_merge, delete_value, operator_name);
}
