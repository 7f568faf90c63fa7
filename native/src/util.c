/* Shared helpers: error recording, the column-family table, input validation. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int ferry_fail(ferry_error *err, int code, int engine_code, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->engine_code = engine_code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int ferry_store_base_init(ferry_store *s, const ferry_engine_ops *ops, int engine, uint32_t named_max)
{
    s->ops = ops;
    s->engine = engine;
    s->cf_named = 0;
    s->cf_named_max = named_max;
    s->shared_cache = NULL;
    s->shared_wbm = NULL;
    atomic_init(&s->cf_count, 0);
    for (int i = 0; i < FERRY_CF_CHUNKS; i++) atomic_init(&s->cf_chunks[i], NULL);
    ferry_cf_slot *first = calloc(FERRY_CF_CHUNK0, sizeof *first);
    if (!first) return FERRY_ENOMEM;
    atomic_init(&s->cf_chunks[0], first);
    pthread_mutex_init(&s->cf_lock, NULL);
    return FERRY_OK;
}

int ferry_store_add_cf(ferry_store *s, const char *name, void *handle, int bits, uint32_t *id_out)
{
    uint32_t n = atomic_load_explicit(&s->cf_count, memory_order_relaxed);
    if (n >= FERRY_CF_ID_LIMIT) return FERRY_EDBSFULL;
    uint32_t x = n + FERRY_CF_CHUNK0;
    unsigned c = (unsigned)(31 - __builtin_clz(x)) - FERRY_CF_CHUNK0_SHIFT;
    if (!atomic_load_explicit(&s->cf_chunks[c], memory_order_relaxed)) {
        ferry_cf_slot *chunk = calloc((size_t)FERRY_CF_CHUNK0 << c, sizeof *chunk);
        if (!chunk) return FERRY_ENOMEM;
        /* published to readers by the release store of cf_count below */
        atomic_store_explicit(&s->cf_chunks[c], chunk, memory_order_release);
    }
    char *copy = strdup(name);
    if (!copy) return FERRY_ENOMEM;
    ferry_cf_slot *slot = ferry_slot(s, n);
    slot->handle = handle;
    slot->name = copy;
    atomic_init(&slot->dropped, 0);
    atomic_init(&slot->bits, bits);
    if (n > 0) s->cf_named++;
    atomic_store_explicit(&s->cf_count, n + 1, memory_order_release);
    if (id_out) *id_out = n;
    return FERRY_OK;
}

int ferry_store_find_cf(ferry_store *s, const char *name)
{
    uint32_t n = atomic_load_explicit(&s->cf_count, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        ferry_cf_slot *slot = ferry_slot(s, i);
        if (!atomic_load(&slot->dropped) && strcmp(slot->name, name) == 0) return (int)i;
    }
    return -1;
}

void ferry_store_base_free(ferry_store *s)
{
    if (!atomic_load(&s->cf_chunks[0])) return;
    uint32_t n = atomic_load(&s->cf_count);
    for (uint32_t i = 0; i < n; i++) free(ferry_slot(s, i)->name);
    for (int c = 0; c < FERRY_CF_CHUNKS; c++) {
        free(atomic_load(&s->cf_chunks[c]));
        atomic_store(&s->cf_chunks[c], NULL);
    }
    pthread_mutex_destroy(&s->cf_lock);
}

int ferry_keys_validate(uint32_t n, const void *keys, size_t keys_len, ferry_error *err)
{
    const uint8_t *p = keys, *end = p + keys_len;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl;
        if ((size_t)(end - p) < 4) return ferry_fail(err, FERRY_EINVAL, 0, "multi_get: key record %u truncated", i);
        memcpy(&kl, p, 4);
        if ((size_t)(end - p - 4) < kl) return ferry_fail(err, FERRY_EINVAL, 0, "multi_get: key %u overruns the buffer", i);
        p += 4 + kl;
    }
    return FERRY_OK;
}

int ferry_batch_validate(const void *ops, size_t len, uint32_t count, uint32_t ncf, const ferry_store *s,
                         ferry_error *err)
{
    const uint8_t *p = ops, *end = p + len;
    uint32_t seen = 0;
    while (p < end) {
        if ((size_t)(end - p) < FERRY_OP_HEADER)
            return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: header truncated", seen);
        uint32_t op, cf, alen, blen;
        memcpy(&op, p, 4); memcpy(&cf, p + 4, 4); memcpy(&alen, p + 8, 4); memcpy(&blen, p + 12, 4);
        if ((op < FERRY_OP_PUT || op > FERRY_OP_DELETE_RANGE) && op != FERRY_OP_DELETE_VALUE && op != FERRY_OP_MERGE)
            return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: bad op %u", seen, op);
        if (op == FERRY_OP_DELETE && blen != 0)
            return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: delete with a value", seen);
        if ((uint64_t)alen + blen > (uint64_t)(end - p - FERRY_OP_HEADER))
            return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u overruns the batch", seen);
        if (cf >= ncf) return ferry_fail(err, FERRY_EINVAL, 0, "batch record %u: no column family %u", seen, cf);
        if (s && atomic_load(&ferry_slot(s, cf)->dropped))
            return ferry_fail(err, FERRY_ECFDROPPED, 0, "batch record %u: column family '%s' was dropped", seen,
                              ferry_slot(s, cf)->name);
        p += FERRY_OP_HEADER + alen + blen;
        seen++;
    }
    if (seen != count) return ferry_fail(err, FERRY_EINVAL, 0, "batch holds %u records, count says %u", seen, count);
    return FERRY_OK;
}

/* Bytes the records take when every g neighbouring candidates make one record. */
static size_t split_bytes(const ferry_split_cand *c, size_t n, size_t g)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i += g) bytes += FERRY_SPLIT_HEADER + (i ? c[i].klen : 0);
    return bytes;
}

int ferry_split_pack(const ferry_split_cand *c, size_t n, uint32_t max, void *dst, size_t cap, size_t *len_out)
{
    *len_out = 0;
    if (n == 0) return 0;
    size_t g = (n + max - 1) / max;
    while (g < n && split_bytes(c, n, g) > cap) g = g > n / 2 ? n : 2 * g;
    uint8_t *p = dst;
    int count = 0;
    for (size_t i = 0; i < n; i += g) {
        uint64_t w = 0;
        for (size_t j = i; j < n && j < i + g; j++) w += c[j].weight;
        uint32_t kl = i ? (uint32_t)c[i].klen : 0;
        memcpy(p, &w, 8);
        memcpy(p + 8, &kl, 4);
        if (kl) memcpy(p + FERRY_SPLIT_HEADER, c[i].key, kl);
        p += FERRY_SPLIT_HEADER + kl;
        count++;
    }
    *len_out = (size_t)(p - (uint8_t *)dst);
    return count;
}
