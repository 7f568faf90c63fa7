/* Compaction filters of the binding's language (ferry.h, "Compaction filters of the binding's language"):
 * the handles, their registry, and the filter factory RocksDB asks for one filter per compaction, whose
 * calls go to the handle's callback (a binding's C trampoline). */
#include "engine.h"

#include <string.h>

struct ferry_compaction_filter {
    int64_t token;
    ferry_filter_fn fn;
    atomic_int refs;                  /* the handle's own (until closed) + one per factory and filter */
    ferry_compaction_filter *next;    /* registry of open handles */
    char name[FERRY_MERGE_NAME_MAX + 1];
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ferry_compaction_filter *registry;

static void unref(ferry_compaction_filter *f)
{
    if (atomic_fetch_sub(&f->refs, 1) == 1) free(f);
}

int ferry_compaction_filter_create(const char *name, int64_t token, void *callback, ferry_compaction_filter **out,
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
        return ferry_fail(err, FERRY_EINVAL, 0, "compaction filter name '%.*s': 1 to %d letters, digits, '_', '.' or "
                          "'-', not starting with \"ferry.\"", (int)(n > 200 ? 200 : n), name, FERRY_MERGE_NAME_MAX);
    ferry_compaction_filter *f = calloc(1, sizeof *f);
    if (!f) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memcpy(f->name, name, n + 1);
    f->token = token;
    f->fn = (ferry_filter_fn)(intptr_t)callback;
    atomic_init(&f->refs, 1);
    pthread_mutex_lock(&registry_lock);
    f->next = registry;
    registry = f;
    pthread_mutex_unlock(&registry_lock);
    *out = f;
    return FERRY_OK;
}

int ferry_compaction_filter_close(ferry_compaction_filter *f)
{
    if (!f) return FERRY_OK;
    int found = 0;
    pthread_mutex_lock(&registry_lock);
    for (ferry_compaction_filter **p = &registry; *p; p = &(*p)->next)
        if (*p == f) { *p = f->next; found = 1; break; }
    pthread_mutex_unlock(&registry_lock);
    if (found) unref(f);
    return FERRY_OK;
}

/* The open handle whose "compaction_filter_factory=" value is v (vn bytes), with a reference for the
 * caller, or NULL (*is_token says whether v is a token at all). */
ferry_compaction_filter *rdb_filter_token(const char *v, size_t vn, int *is_token)
{
    static const char prefix[] = RDB_FILTER_TOKEN;
    size_t pn = sizeof prefix - 1;
    *is_token = vn > pn && memcmp(v, prefix, pn) == 0;
    if (!*is_token || vn - pn > 20) return NULL;
    uintptr_t addr = 0;
    for (size_t i = pn; i < vn; i++) {
        if (v[i] < '0' || v[i] > '9') return NULL;
        addr = addr * 10 + (uintptr_t)(v[i] - '0');
    }
    ferry_compaction_filter *found = NULL;
    pthread_mutex_lock(&registry_lock);
    for (ferry_compaction_filter *f = registry; f; f = f->next)
        if ((uintptr_t)f == addr) { found = f; atomic_fetch_add(&f->refs, 1); break; }
    pthread_mutex_unlock(&registry_lock);
    return found;
}

void rdb_filter_release(ferry_compaction_filter *f)
{
    if (f) unref(f);
}

/* RocksDB's side: one factory per options object (its state a reference to the handle), one filter per
 * compaction (its state a compaction, below). */

typedef struct compaction {
    ferry_compaction_filter *f;       /* a reference */
    int64_t id;                       /* the callback's id of this compaction, 0: keep everything */
    char *value;                      /* the last changed value: RocksDB copies it and frees nothing */
} compaction;

static unsigned char filter_entry(void *st, int level, const char *key, size_t klen, const char *value, size_t vlen,
                                  char **new_value, size_t *new_len, unsigned char *changed)
{
    compaction *c = st;
    *changed = 0;
    if (!c || c->id == 0) return 0;
    ferry_merge_value out = {NULL, 0};
    int64_t d = c->f->fn(c->f->token, FERRY_FILTER_ENTRY, c->id, level, key, klen, value, vlen, &out);
    if (d == FERRY_FILTER_CHANGE && out.data) {
        free(c->value);
        c->value = out.data;
        *new_value = out.data;
        *new_len = out.len;
        *changed = 1;
        return 0;
    }
    free(out.data);
    return d == FERRY_FILTER_REMOVE;
}

static void filter_destroy(void *st)
{
    compaction *c = st;
    if (!c) return;
    if (c->id != 0) c->f->fn(c->f->token, FERRY_FILTER_END, c->id, 0, NULL, 0, NULL, 0, NULL);
    free(c->value);
    unref(c->f);
    free(c);
}

static const char *filter_name(void *st)
{
    compaction *c = st;
    return c ? c->f->name : "ferry.CompactionFilter";
}

static rocksdb_compactionfilter_t *create_filter(void *st, rocksdb_compactionfiltercontext_t *ctx)
{
    ferry_compaction_filter *f = st;
    compaction *c = calloc(1, sizeof *c);
    if (c) {                          /* out of memory: a filter that keeps everything */
        atomic_fetch_add(&f->refs, 1);
        c->f = f;
        int64_t flags = (RDB.compactionfiltercontext_is_full_compaction(ctx) ? FERRY_FILTER_FULL : 0)
                        | (RDB.compactionfiltercontext_is_manual_compaction(ctx) ? FERRY_FILTER_MANUAL : 0);
        c->id = f->fn(f->token, FERRY_FILTER_BEGIN, flags, 0, NULL, 0, NULL, 0, NULL);
        if (c->id < 0) c->id = 0;
    }
    return RDB.compactionfilter_create(c, filter_destroy, filter_entry, filter_name);
}

static void factory_destroy(void *st)
{
    unref(st);
}

static const char *factory_name(void *st)
{
    return ((ferry_compaction_filter *)st)->name;
}

rocksdb_compactionfilterfactory_t *rdb_filter_factory(ferry_compaction_filter *f)
{
    atomic_fetch_add(&f->refs, 1);
    return RDB.compactionfilterfactory_create(f, factory_destroy, create_filter, factory_name);
}
