/* Shared helpers: error recording, the column-family table, input validation. */
#include "internal.h"
#include "platform.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    s->shared_limiter = NULL;
    s->shared_sfm = NULL;
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
        if (s && (op == FERRY_OP_PUT || op == FERRY_OP_MERGE) && alen != 8
                && ferry_slot_order(ferry_slot(s, cf)) == FERRY_ORDER_U64_BE)
            return ferry_fail(err, FERRY_EKEYSIZE, 0, "batch record %u: a key of %u bytes in column family '%s', whose "
                              "keys are 8-byte unsigned integers (FERRY_ORDER_U64_BE)", seen, alen, ferry_slot(s, cf)->name);
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

int ferry_u64_key_fail(const ferry_cf_slot *slot, size_t klen, ferry_error *err)
{
    return ferry_fail(err, FERRY_EKEYSIZE, 0, "a key of %zu bytes in column family '%s', whose keys are 8-byte unsigned "
                      "integers, big-endian (FERRY_ORDER_U64_BE)", klen, slot->name);
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

/* ---- making directory trees durable (store opens, checkpoints, backups, restores) */

/* After a read-write open: make the store's directory and every directory above it durable (fsync
 * each), so that the store's files and the directories Ferry, the Java binding or the engine
 * created for it keep their names after an OS crash or power cut. Neither engine does it: LMDB
 * never syncs a directory (a new store's data.mdb could vanish with every synced commit in it) and
 * RocksDB syncs the store's own directory but not its name in the parent. Found by the power-cut
 * test (docs/testing.md). Fails only when a sync itself fails (an I/O error). */
int ferry_sync_store_dirs(const char *path, ferry_error *err)
{
    size_t n = strlen(path);
    char *p = malloc(n + 2);
    if (!p) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    memcpy(p, path, n + 1);
    int rc = 0;
    for (;;) {
        while (n > 1 && plat_is_sep(p[n - 1])) p[--n] = '\0';
        int e = plat_sync_dir(n ? p : ".");
        if (e) {
            rc = ferry_fail(err, FERRY_EIO, e, "cannot sync directory %s (making the store's files durable): %s",
                            n ? p : ".", strerror(e));
            break;
        }
        char *slash = NULL;
        for (char *c = p; *c; c++)
            if (plat_is_sep(*c)) slash = c;
        if (!slash) { /* a relative path: its last directory is the working directory */
            if (strcmp(p, ".") != 0 && n) { p[0] = '.'; p[1] = '\0'; n = 1; continue; }
            break;
        }
        if (slash == p) {
            if (n > 1) { p[1] = '\0'; n = 1; continue; }
            break;
        }
        *slash = '\0';
        n = (size_t)(slash - p);
    }
    free(p);
    return rc;
}

/* fsync every regular file and directory under dir (not dir itself). Links are not followed (a
 * link to a directory would sync a tree outside dir; a dangling one cannot be synced) and other
 * kinds of file are skipped; an entry that vanishes during the walk (ENOENT: a file the engine
 * removed meanwhile) has nothing left to sync. nested: dir itself was found by the walk, and may
 * have vanished too. */
static int sync_under(const char *dir, int nested, ferry_error *err)
{
    int de = 0;
    plat_dir *d = plat_dir_open(dir, &de);
    if (!d && nested && de == ENOENT) return FERRY_OK;
    if (!d) return ferry_fail(err, FERRY_EIO, de, "cannot sync directory %s: %s", dir, strerror(de));
    size_t n = strlen(dir);
    int rc = FERRY_OK;
    for (const char *name; rc == FERRY_OK && (name = plat_dir_next(d)) != NULL;) {
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        size_t m = n + strlen(name) + 2;
        char *f = malloc(m);
        if (!f) { rc = ferry_fail(err, FERRY_ENOMEM, 0, "out of memory"); break; }
        snprintf(f, m, "%s/%s", dir, name);
        int x = 0, kind = plat_lstat(f, &x);
        if (kind == PLAT_DIR) {
            rc = sync_under(f, 1, err);
            if (rc == FERRY_OK) x = plat_sync_dir(f);
        } else if (kind == PLAT_FILE) {
            x = plat_sync_file(f);
        }
        if (x == ENOENT) x = 0;
        if (x && rc == FERRY_OK) rc = ferry_fail(err, FERRY_EIO, x, "cannot sync %s: %s", f, strerror(x));
        free(f);
    }
    plat_dir_close(d);
    return rc;
}

/* After a checkpoint, a backup or a restore: every file and directory of the tree, and the
 * directories above it, durable. Neither engine promises it: mdb_env_copy2 syncs neither the copy
 * nor its name, a RocksDB checkpoint directory renamed into place is not synced in its parent, and
 * a backup directory's new entries were lost. Found by the power-cut test (docs/testing.md). */
int ferry_sync_tree(const char *dir, ferry_error *err)
{
    int rc = sync_under(dir, 0, err);
    return rc == FERRY_OK ? ferry_sync_store_dirs(dir, err) : rc;
}
