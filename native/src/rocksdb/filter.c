/* Compaction filters of the binding's language (ferry.h, "Compaction filters of the binding's language"):
 * the handles (callback.c's) and the filter factory RocksDB asks for one filter per compaction, whose
 * calls go to the handle's callback (a binding's C trampoline). */
#include "engine.h"

#include <string.h>

int ferry_compaction_filter_create(const char *name, int64_t token, void *callback, ferry_compaction_filter **out,
                                   ferry_error *err)
{
    return rdb_cb_create(RDB_CB_FILTER, name, token, callback, (rdb_cb **)out, err);
}

int ferry_compaction_filter_close(ferry_compaction_filter *f)
{
    if (f) rdb_cb_close(&f->cb);
    return FERRY_OK;
}

static int64_t call(rdb_cb *f, int32_t kind, int64_t arg, int32_t level, const char *key, size_t klen,
                    const char *value, size_t vlen, ferry_merge_value *out)
{
    return ((ferry_filter_fn)(intptr_t)f->fn)(f->token, kind, arg, level, key, klen, value, vlen, out);
}

/* RocksDB's side: one factory per options object (its state a reference to the handle), one filter per
 * compaction (its state a compaction, below). */

typedef struct compaction {
    rdb_cb *f;                        /* a reference */
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
    int64_t d = call(c->f, FERRY_FILTER_ENTRY, c->id, level, key, klen, value, vlen, &out);
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
    if (c->id != 0) call(c->f, FERRY_FILTER_END, c->id, 0, NULL, 0, NULL, 0, NULL);
    free(c->value);
    rdb_cb_unref(c->f);
    free(c);
}

static const char *filter_name(void *st)
{
    compaction *c = st;
    return c ? c->f->name : "ferry.CompactionFilter";
}

static rocksdb_compactionfilter_t *create_filter(void *st, rocksdb_compactionfiltercontext_t *ctx)
{
    rdb_cb *f = st;
    compaction *c = calloc(1, sizeof *c);
    if (c) {                          /* out of memory: a filter that keeps everything */
        rdb_cb_ref(f);
        c->f = f;
        int64_t flags = (RDB.compactionfiltercontext_is_full_compaction(ctx) ? FERRY_FILTER_FULL : 0)
                        | (RDB.compactionfiltercontext_is_manual_compaction(ctx) ? FERRY_FILTER_MANUAL : 0);
        c->id = call(f, FERRY_FILTER_BEGIN, flags, 0, NULL, 0, NULL, 0, NULL);
        if (c->id < 0) c->id = 0;
    }
    return RDB.compactionfilter_create(c, filter_destroy, filter_entry, filter_name);
}

static void factory_destroy(void *st)
{
    rdb_cb_unref(st);
}

static const char *factory_name(void *st)
{
    return ((rdb_cb *)st)->name;
}

rocksdb_compactionfilterfactory_t *rdb_filter_factory(ferry_compaction_filter *f)
{
    rdb_cb_ref(&f->cb);
    return RDB.compactionfilterfactory_create(&f->cb, factory_destroy, create_filter, factory_name);
}
