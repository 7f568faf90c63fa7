/* Callbacks of the binding's language (ferry.h: merge operators, compaction filters): the
 * handle both kinds share, with its name check, its registry of open handles (by which an options
 * string's token is found), and its reference count. merge.c and filter.c add what
 * RocksDB calls. */
#include "engine.h"

#include <string.h>

/* What each kind is called in messages, and its options-string token prefix. */
static const struct {
    const char *what;
    const char *prefix;
} kinds[RDB_CB_KINDS] = {
    [RDB_CB_MERGE] = {"merge operator", RDB_MERGE_TOKEN},
    [RDB_CB_FILTER] = {"compaction filter", RDB_FILTER_TOKEN},
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rdb_cb *registry;

/* Is name one a callback may have? 1..FERRY_MERGE_NAME_MAX of [A-Za-z0-9_.-], not starting with
 * "ferry.". */
static int name_ok(rdb_cb_kind kind, const char *name, size_t n)
{
    (void)kind;
    if (n < 1 || n > FERRY_MERGE_NAME_MAX || strncmp(name, "ferry.", 6) == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
              || c == '-'))
            return 0;
    }
    return 1;
}

int rdb_cb_create(rdb_cb_kind kind, const char *name, int64_t token, void *callback, rdb_cb **out, ferry_error *err)
{
    if (!name || !callback || !out) return ferry_fail(err, FERRY_EINVAL, 0, "name, callback or out is NULL");
    size_t n = strlen(name);
    if (!name_ok(kind, name, n))
        return ferry_fail(err, FERRY_EINVAL, 0, "%s name '%.*s': 1 to %d letters, digits, '_', '.' or '-', not "
                          "starting with \"ferry.\"", kinds[kind].what, (int)(n > 200 ? 200 : n), name,
                          FERRY_MERGE_NAME_MAX);
    rdb_cb *cb = calloc(1, sizeof *cb);
    if (!cb) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memcpy(cb->name, name, n + 1);
    cb->kind = kind;
    cb->token = token;
    cb->fn = callback;
    atomic_init(&cb->refs, 1);
    pthread_mutex_lock(&registry_lock);
    cb->next = registry;
    registry = cb;
    pthread_mutex_unlock(&registry_lock);
    *out = cb;
    return FERRY_OK;
}

void rdb_cb_close(rdb_cb *cb)
{
    if (!cb) return;
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (rdb_cb **p = &registry; *p; p = &(*p)->next)
        if (*p == cb) { *p = cb->next; found = 1; break; }
    pthread_mutex_unlock(&registry_lock);
    if (found) rdb_cb_unref(cb);
}

void rdb_cb_ref(rdb_cb *cb)
{
    atomic_fetch_add(&cb->refs, 1);
}

void rdb_cb_unref(rdb_cb *cb)
{
    if (!cb || atomic_fetch_sub(&cb->refs, 1) != 1) return;
    free(cb);
}

rdb_cb *rdb_cb_token(rdb_cb_kind kind, const char *v, size_t vn, int *is_token)
{
    const char *prefix = kinds[kind].prefix;
    size_t pn = strlen(prefix);
    *is_token = vn > pn && memcmp(v, prefix, pn) == 0;
    if (!*is_token || vn - pn > 20) return NULL;
    uintptr_t addr = 0;
    for (size_t i = pn; i < vn; i++) {
        if (v[i] < '0' || v[i] > '9') return NULL;
        addr = addr * 10 + (uintptr_t)(v[i] - '0');
    }
    rdb_cb *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (rdb_cb *cb = registry; cb; cb = cb->next)
        if ((uintptr_t)cb == addr && cb->kind == kind) { found = cb; rdb_cb_ref(cb); break; }
    pthread_mutex_unlock(&registry_lock);
    return found;
}
