/* RocksDB engine: key orders of column families (FERRY_CFOPT_KEY_ORDER): RocksDB's built-in reverse
 * bytewise comparator and the shim's unsigned 64-bit big-endian one, both native (no Java per compare). */
#include "engine.h"

/* Numeric order of 8-byte big-endian keys; any other key (which Ferry's writes refuse, but a file
 * written elsewhere may hold) in bytewise order, so the order is total and the same as bytewise. */
static int u64_compare(void *st, const char *a, size_t al, const char *b, size_t bl)
{
    (void)st;
    if (al == 8 && bl == 8) {
        uint64_t x = 0, y = 0;
        for (int i = 0; i < 8; i++) {
            x = x << 8 | (uint8_t)a[i];
            y = y << 8 | (uint8_t)b[i];
        }
        return (x > y) - (x < y);
    }
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static const char *u64_name(void *st)
{
    (void)st;
    return "ferry.Uint64BigEndianComparator";
}

static void u64_destroy(void *st) { (void)st; }

/* One comparator for the process: RocksDB's options keep a raw pointer to it, so it outlives every store. */
static pthread_mutex_t u64_lock = PTHREAD_MUTEX_INITIALIZER;
static rocksdb_comparator_t *u64_cmp;

static rocksdb_comparator_t *u64_comparator(void)
{
    pthread_mutex_lock(&u64_lock);
    if (!u64_cmp) u64_cmp = RDB.comparator_create(NULL, u64_destroy, u64_compare, u64_name);
    rocksdb_comparator_t *c = u64_cmp;
    pthread_mutex_unlock(&u64_lock);
    return c;
}

int rdb_order_check(const char *name, int64_t order, ferry_error *err)
{
    if (order < -1 || order > FERRY_ORDER_U64_BE)
        return ferry_fail(err, FERRY_EINVAL, 0, "column family '%s': unknown key order %lld (FERRY_CFOPT_KEY_ORDER)",
                          name, (long long)order);
    return FERRY_OK;
}

int rdb_order_apply(rocksdb_options_t **f, int64_t order, ferry_error *err)
{
    if (order == FERRY_ORDER_REVERSE) {
        /* RocksDB's own built-in, by name (RocksJava's REVERSE_BYTEWISE_COMPARATOR is the same object) */
        rocksdb_options_t *r = RDB.options_create();
        char *e = NULL;
        RDB.get_options_from_string(*f, "comparator=rocksdb.ReverseBytewiseComparator", r, &e);
        if (e) {
            RDB.options_destroy(r);
            return rdb_error(err, e);
        }
        RDB.options_destroy(*f);
        *f = r;
    } else if (order == FERRY_ORDER_U64_BE) {
        rocksdb_comparator_t *c = u64_comparator();
        if (!c) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
        RDB.options_set_comparator(*f, c);
    }
    return FERRY_OK;
}

int rdb_cf_flags(ferry_store *s, ferry_cf_slot *cf, uint32_t *out, ferry_error *err)
{
    (void)s;
    (void)err;
    int order = ferry_slot_order(cf);
    *out = order == FERRY_ORDER_REVERSE ? FERRY_CF_ORDER_REVERSE : order == FERRY_ORDER_U64_BE ? FERRY_CF_ORDER_U64_BE
         : order == FERRY_ORDER_CALLBACK ? FERRY_CF_ORDER_CALLBACK : 0;
    return FERRY_OK;
}

int rdb_order_error(const char *path, char *e, ferry_error *err)
{
    int rc = rdb_open_error(path, e, err);
    if (err && rc == FERRY_EENGINEARG && strstr(err->message, "does not match existing comparator")) {
        char msg[FERRY_ERRMSG_CAP];
        snprintf(msg, sizeof msg, "%s", err->message);
        ferry_fail(err, rc, err->engine_code, "RocksDB store %s: a column family is opened with another key order than "
                   "it was created with: give each family its ColumnFamilyOptions.keyOrder or javaComparator (FERRY_CFOPT_KEY_ORDER, "
                   "a ferry_comparator) at every open (RocksDB: %.700s)", path, msg);
    }
    return rc;
}
