/* Callbacks of the binding's language (ferry.h: merge operators, compaction filters, comparators): the
 * handle the three kinds share, with its name check, its registry of open handles (by which an options
 * string's token is found), and its reference count; and the parsing of options strings that finds
 * those tokens. merge.c, filter.c and comparator.c add what RocksDB calls. */
#include "engine.h"

#include <string.h>

/* What each kind is called in messages, and its options-string token prefix. */
static const struct {
    const char *what;
    const char *prefix;
} kinds[RDB_CB_KINDS] = {
    [RDB_CB_MERGE] = {"merge operator", RDB_MERGE_TOKEN},
    [RDB_CB_FILTER] = {"compaction filter", RDB_FILTER_TOKEN},
    [RDB_CB_COMPARATOR] = {"comparator", RDB_COMPARATOR_TOKEN},
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rdb_cb *registry;

/* Is name one a callback may have? 1..FERRY_MERGE_NAME_MAX of [A-Za-z0-9_.-], not starting with
 * "ferry."; a comparator's not with "leveldb." or "rocksdb." either (RocksDB's own comparators: a store
 * opened with one of those names would be taken for bytewise or reverse). */
static int name_ok(rdb_cb_kind kind, const char *name, size_t n)
{
    if (n < 1 || n > FERRY_MERGE_NAME_MAX || strncmp(name, "ferry.", 6) == 0) return 0;
    if (kind == RDB_CB_COMPARATOR && (strncmp(name, "leveldb.", 8) == 0 || strncmp(name, "rocksdb.", 8) == 0))
        return 0;
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
                          "starting with \"ferry.\"%s", kinds[kind].what, (int)(n > 200 ? 200 : n), name,
                          FERRY_MERGE_NAME_MAX, kind == RDB_CB_COMPARATOR ? ", \"leveldb.\" or \"rocksdb.\"" : "");
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

/* ------------------------------------------------------------------ */
/* Options strings: their pairs, and the tokens that name callbacks    */

/* Is c blank in an options string? */
static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* One "key=value" of a RocksDB options string ("k=v;k2={...};..."): [k, k + kn) and [v, v + vn),
 * trimmed; a value in braces keeps them. Returns the position after the pair, NULL at the end. */
const char *rdb_next_option(const char *p, const char **k, size_t *kn, const char **v, size_t *vn)
{
    while (blank(*p) || *p == ';') p++;
    if (!*p) return NULL;
    *k = p;
    while (*p && *p != '=' && *p != ';') p++;
    const char *ke = p;
    while (ke > *k && blank(ke[-1])) ke--;
    *kn = (size_t)(ke - *k);
    *v = p;
    *vn = 0;
    if (*p != '=') return p;
    p++;
    while (blank(*p)) p++;
    *v = p;
    for (int depth = 0; *p && (depth > 0 || *p != ';'); p++) {
        if (*p == '{') depth++;
        else if (*p == '}' && depth > 0) depth--;
    }
    const char *ve = p;
    while (ve > *v && blank(ve[-1])) ve--;
    *vn = (size_t)(ve - *v);
    return p;
}

int rdb_key_is(const char *k, size_t kn, const char *name)
{
    return kn == strlen(name) && memcmp(k, name, kn) == 0;
}

/* The options string's compaction filter of the binding's language (the last compaction_filter_factory=
 * wins, as in RocksDB): *out holds a reference to it (release with rdb_filter_release), or NULL when the
 * string names none (another value is left to RocksDB's parser). FERRY_EINVAL for a closed handle. */
int rdb_check_filter(const char *extra, ferry_compaction_filter **out, ferry_error *err)
{
    const char *k, *v, *val = NULL;
    size_t kn, vn, valn = 0;
    *out = NULL;
    for (const char *p = extra; (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;)
        if (rdb_key_is(k, kn, "compaction_filter_factory")) { val = v; valn = vn; }
    if (!val) return FERRY_OK;
    int is_token;
    ferry_compaction_filter *f = rdb_filter_token(val, valn, &is_token);
    if (!is_token) return FERRY_OK;
    if (!f)
        return ferry_fail(err, FERRY_EINVAL, 0, "options string sets compaction_filter_factory=%.*s, which is not an "
                          "open compaction filter (closed, or not made by ferry_compaction_filter_create)",
                          (int)(valn > 200 ? 200 : valn), val);
    *out = f;
    return FERRY_OK;
}

/* A copy of the options string without its entries that name a callback (merge_operator,
 * compaction_filter_factory, comparator: RocksDB's parser does not know them; the caller sets them itself), or NULL when out of
 * memory. Free with free(). */
char *rdb_without_callbacks(const char *extra)
{
    size_t n = strlen(extra);
    char *out = malloc(n + 2);
    if (!out) return NULL;
    size_t o = 0;
    const char *k, *v;
    size_t kn, vn;
    for (const char *p = extra; (p = rdb_next_option(p, &k, &kn, &v, &vn)) != NULL;) {
        int is_token = 0;
        if (rdb_key_is(k, kn, "merge_operator")) rdb_merge_release(rdb_merge_token(v, vn, &is_token));
        if (rdb_key_is(k, kn, "compaction_filter_factory")) rdb_filter_release(rdb_filter_token(v, vn, &is_token));
        if (rdb_key_is(k, kn, "comparator")) rdb_cb_unref(rdb_cb_token(RDB_CB_COMPARATOR, v, vn, &is_token));
        if (is_token) continue;
        size_t len = (size_t)(p - k);   /* the entry as written, "k=v" */
        memcpy(out + o, k, len);
        o += len;
        out[o++] = ';';
    }
    out[o] = '\0';
    return out;
}
