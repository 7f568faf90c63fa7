/* RocksDB engine tests: families (and their options, their churn, a drop while writing), empty
 * ranges, open options and the ones refused. Part of test_rocksdb (test_rocksdb.h). */
#include "test_rocksdb.h"

/* Keys of family cf, one "%s\n" line each. */
static const char *keys_of(ferry_store *s, uint32_t cf)
{
    static char out[1024];
    ferry_cursor *c;
    if (ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err) != FERRY_OK) return "(cursor failed)";
    scan(c, FERRY_FIRST, NULL, 0, FERRY_NEXT, 4096, 1000, out, sizeof out);
    ferry_cursor_close(c);
    return out;
}

/* [begin, end) with begin >= end in unsigned byte order is empty: a no-op, alone or in a
 * batch. RocksDB rejects begin > end only after writing its WAL and then refuses every later
 * write, so the shim must never pass such a range on. */
void test_empty_ranges(void)
{
    ferry_store *s;
    CHECK_RC(open_store("empty-ranges", &s), FERRY_OK);
    if (!s) return;
    uint32_t fam;
    CHECK_RC(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &fam, &err), FERRY_OK);
    const char *ks[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        CHECK_RC(put_s(s, 0, ks[i], "v"), FERRY_OK);
        CHECK_RC(put_s(s, fam, ks[i], "v"), FERRY_OK);
    }
    const char *all = "a\nb\nc\nd\n";
    CHECK_RC(ferry_delete_range(s, fam, "c", 1, "a", 1, &err), FERRY_OK);
    CHECK_RC(put_s(s, 0, "later", "v"), FERRY_OK); /* the store still takes writes */
    CHECK_RC(ferry_delete_range(s, fam, "b", 1, NULL, 0, &err), FERRY_OK);
    CHECK_RC(ferry_delete_range(s, fam, "b", 1, "", 0, &err), FERRY_OK);
    CHECK_RC(ferry_delete_range(s, fam, "b", 1, "b", 1, &err), FERRY_OK);
    CHECK_RC(ferry_delete_range(s, fam, "bb", 2, "b", 1, &err), FERRY_OK);
    CHECK_RC(ferry_delete_range(s, fam, NULL, 0, NULL, 0, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), all) == 0, "after empty ranges: %s", keys_of(s, fam));
    CHECK_RC(put_s(s, fam, "later", "v"), FERRY_OK);
    CHECK_RC(ferry_delete(s, fam, "later", 5, &err), FERRY_OK);
    /* in a batch: the empty ranges are skipped, the other records applied */
    uint8_t b[512];
    size_t n = 0;
    n = rec(b, n, FERRY_OP_PUT, fam, "e", "v");
    n = rec(b, n, FERRY_OP_DELETE_RANGE, fam, "c", "a");
    n = rec(b, n, FERRY_OP_DELETE_RANGE, fam, "b", NULL);
    n = rec(b, n, FERRY_OP_DELETE_RANGE, 0, "z", "y");
    n = rec(b, n, FERRY_OP_PUT, fam, "f", "v");
    CHECK_RC(ferry_write(s, b, n, 5, 0, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "a\nb\nc\nd\ne\nf\n") == 0, "batch: %s", keys_of(s, fam));
    CHECK_RC(put_s(s, 0, "later2", "v"), FERRY_OK);
    /* a cursor below the empty key sees nothing; a NULL bound is no bound */
    ferry_cursor *cur;
    uint8_t page[256];
    CHECK_RC(ferry_cursor_open(s, NULL, fam, NULL, 0, "", 0, 0, &cur, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 0);
    CHECK_RC(ferry_cursor_fill(cur, FERRY_LAST, NULL, 0, page, sizeof page, 10, &err), 0);
    ferry_cursor_close(cur);
    CHECK_RC(ferry_cursor_open(s, NULL, fam, "", 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    CHECK_RC(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 6);
    ferry_cursor_close(cur);
    /* an empty begin is the smallest key */
    CHECK_RC(ferry_delete_range(s, fam, NULL, 0, "c", 1, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "c\nd\ne\nf\n") == 0, "[\"\", c): %s", keys_of(s, fam));
    CHECK_RC(ferry_store_close(s), FERRY_OK);
    /* and the WAL replays cleanly */
    CHECK_RC(open_store("empty-ranges", &s), FERRY_OK);
    if (!s) return;
    char buf[8];
    CHECK_RC(get_s(s, NULL, 0, "later2", buf, sizeof buf), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* Options Ferry cannot honour are refused at open: another comparator (Ferry orders keys as
 * unsigned bytes) or a table format without range deletes (RocksDB would fail a range delete
 * after its WAL write and then refuse every write). */
void test_refused_options(void)
{
    const char *bad[] = {
        "comparator=rocksdb.ReverseBytewiseComparator",
        " comparator = leveldb.BytewiseComparator.u64ts ;",
        "table_factory=PlainTable;allow_mmap_reads=true",
        "write_buffer_size=1048576;table_factory={id=CuckooTable}",
        "comparator=leveldb.BytewiseComparator;comparator=rocksdb.ReverseBytewiseComparator", /* the last one wins */
    };
    char name[32];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ferry_store *s = NULL;
        snprintf(name, sizeof name, "refused%zu", i);
        CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir(name), NULL, 0, bad[i], NULL, 0, 0, &s, &err), FERRY_EINVAL);
        CHECK(s == NULL && strstr(err.message, "options string sets") != NULL, "%s: %s", bad[i], err.message);
        if (s) ferry_store_close(s);
    }
    const char *good[] = {
        "comparator=leveldb.BytewiseComparator",
        "table_factory=BlockBasedTable;block_based_table_factory={block_size=8192}",
        "write_buffer_size=1048576; comparator = leveldb.BytewiseComparator ;",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ferry_store *s = NULL;
        snprintf(name, sizeof name, "accepted%zu", i);
        CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir(name), NULL, 0, good[i], NULL, 0, 0, &s, &err), FERRY_OK);
        if (!s) continue;
        CHECK_RC(ferry_delete_range(s, 0, "a", 1, "b", 1, &err), FERRY_OK);
        CHECK_RC(put_s(s, 0, "k", "v"), FERRY_OK);
        ferry_store_close(s);
    }
}

typedef struct race_arg { ferry_store *s; uint32_t cf; int last_rc; long puts; } race_arg;

/* Put into one family until it reports the family dropped (or anything else). */
static void *put_until_dropped(void *p)
{
    race_arg *a = p;
    ferry_error e;
    char k[32];
    for (a->puts = 0;; a->puts++) {
        snprintf(k, sizeof k, "k%ld", a->puts % 64);
        a->last_rc = ferry_put(a->s, a->cf, k, strlen(k), "v", 1, 0, &e);
        if (a->last_rc != FERRY_OK) return NULL;
        uint8_t b[64];
        size_t n = rec(b, 0, FERRY_OP_PUT, a->cf, k, "w");
        a->last_rc = ferry_write(a->s, b, n, 1, 0, &e);
        if (a->last_rc != FERRY_OK) return NULL;
    }
}

/* A family dropped while another thread writes to it: the writer gets FERRY_ECFDROPPED and
 * the store keeps taking writes (RocksDB fails a write to a dropped family after its WAL
 * write, and then refuses every later write, unless the shim keeps them apart). */
void test_drop_while_writing(void)
{
    ferry_store *s;
    CHECK_RC(open_store("drop-race", &s), FERRY_OK);
    if (!s) return;
    int rounds_bad = 0;
    for (int round = 0; round < 40 && rounds_bad == 0; round++) {
        char name[32];
        snprintf(name, sizeof name, "f%d", round);
        race_arg a = { s, 0, 0, 0 };
        CHECK_RC(ferry_cf_create(s, name, 0, NULL, 0, NULL, &a.cf, &err), FERRY_OK);
        pthread_t t;
        pthread_create(&t, NULL, put_until_dropped, &a);
        while (__atomic_load_n(&a.puts, __ATOMIC_RELAXED) < 1 + round % 7) sched_yield();
        CHECK_RC(ferry_cf_drop(s, a.cf, &err), FERRY_OK);
        pthread_join(t, NULL);
        if (a.last_rc != FERRY_ECFDROPPED) rounds_bad++;
        CHECK(a.last_rc == FERRY_ECFDROPPED, "round %d: writer stopped with %d", round, a.last_rc);
        int rc = put_s(s, 0, "after", "v");
        if (rc != FERRY_OK) rounds_bad++;
        CHECK(rc == FERRY_OK, "round %d: the store refuses writes after the drop: %s", round, err.message);
    }
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* A snapshot never reads a family created after it: LMDB gives a dropped database's handle
 * number to the next one, so the snapshot's read transaction would read the dropped family
 * through the new family's id. Every snapshot read of such a family fails with FERRY_EINVAL;
 * one of a family dropped since fails with FERRY_ECFDROPPED. */
void test_snapshot_families(void)
{
    ferry_store *s;
    CHECK_RC(open_store("snap-families", &s), FERRY_OK);
    if (!s) return;
    uint32_t a, b, c;
    char buf[64];
    CHECK_RC(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    CHECK_RC(put_s(s, a, "k", "in-a"), FERRY_OK);
    /* RocksDB lists its families at open: a lookup by name finds the slot, listing adds nothing */
    uint32_t found = 99, count = 0;
    CHECK_RC(ferry_cf_find(s, "a", &found, &err), FERRY_OK);
    CHECK(found == a, "found id %u, created %u", found, a);
    CHECK_RC(ferry_cf_find(s, "nope", &found, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_cf_find(s, "", &found, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_find(NULL, "a", &found, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_list_all(s, &err), FERRY_OK);
    CHECK_RC(ferry_cf_list_all(NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_count(s, &count), FERRY_OK);
    CHECK(count == 2, "%u ids after listing", count);
    ferry_snapshot *snap;
    CHECK_RC(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    CHECK_RC(get_s(s, snap, a, "k", buf, sizeof buf), FERRY_OK);
    CHECK_RC(ferry_cf_drop(s, a, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    CHECK_RC(put_s(s, c, "k", "in-c"), FERRY_OK);
    CHECK_RC(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_EINVAL);
    CHECK(strstr(err.message, "column family 'b' was created after this snapshot") != NULL, "%s", err.message);
    CHECK_RC(get_s(s, snap, c, "k", buf, sizeof buf), FERRY_EINVAL);
    uint8_t keys[8] = {0, 0, 0, 0, 'k'};
    uint32_t one = 1; /* the key record's u32 length: native order */
    memcpy(keys, &one, 4);
    int64_t lens[1];
    CHECK_RC(ferry_multi_get(s, snap, b, 1, keys, 5, 0, buf, sizeof buf, lens, &err), FERRY_EINVAL);
    CHECK(strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    ferry_cursor *cur = NULL;
    CHECK_RC(ferry_cursor_open(s, snap, b, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_EINVAL);
    CHECK(cur == NULL && strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    CHECK_RC(get_s(s, snap, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    CHECK_RC(get_s(s, snap, 0, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(ferry_snapshot_close(snap), FERRY_OK);
    /* a snapshot taken now reads them */
    CHECK_RC(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    CHECK_RC(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(get_s(s, snap, c, "k", buf, sizeof buf), FERRY_OK);
    CHECK_RC(ferry_cursor_open(s, snap, c, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    if (cur) ferry_cursor_close(cur);
    CHECK_RC(ferry_snapshot_close(snap), FERRY_OK);
    ferry_store_close(s);
}

void test_families(void)
{
    ferry_store *s;
    char buf[64];
    CHECK_RC(open_store("cf", &s), FERRY_OK);
    uint32_t a, b, c, n;
    CHECK_RC(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "beta", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "gamma", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    CHECK(a == 1 && b == 2 && c == 3, "cf ids %u %u %u", a, b, c);
    CHECK_RC(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &n, &err), FERRY_EEXISTS);
    CHECK_RC(put_s(s, a, "k", "in-alpha"), FERRY_OK);
    CHECK_RC(put_s(s, c, "k", "in-gamma"), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK(get_s(s, NULL, a, "k", buf, sizeof buf) == FERRY_OK && strcmp(buf, "in-alpha") == 0, "cf get");
    CHECK_RC(ferry_cf_drop(s, b, &err), FERRY_OK);
    CHECK_RC(ferry_cf_drop(s, b, &err), FERRY_ECFDROPPED);
    CHECK_RC(ferry_cf_drop(s, 0, &err), FERRY_EINVAL);
    CHECK_RC(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    CHECK_RC(put_s(s, b, "k", "v"), FERRY_ECFDROPPED);
    ferry_cursor *cur;
    CHECK_RC(ferry_cursor_open(s, NULL, b, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_ECFDROPPED);
    CHECK_RC(ferry_get(s, NULL, 99, "k", 1, 0, buf, sizeof buf, &(size_t){0}, &err), FERRY_EINVAL);
    /* a family can be created again under a dropped name */
    uint32_t b2;
    CHECK_RC(ferry_cf_create(s, "beta", 0, NULL, 0, NULL, &b2, &err), FERRY_OK);
    CHECK(b2 == 4, "recreated id %u", b2);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    CHECK_RC(open_store("cf", &s), FERRY_OK);
    CHECK_RC(ferry_cf_count(s, &n), FERRY_OK);
    CHECK(n == 4, "families after reopen: %u", n);
    size_t len;
    int seen_alpha = -1, seen_gamma = -1, seen_beta = -1;
    CHECK(ferry_cf_name(s, 0, buf, sizeof buf, &len) == FERRY_OK && strcmp(buf, "default") == 0, "cf 0 is default");
    for (uint32_t i = 1; i < n; i++) {
        if (ferry_cf_name(s, i, buf, sizeof buf, &len) != FERRY_OK) continue;
        if (!strcmp(buf, "alpha")) seen_alpha = (int)i;
        if (!strcmp(buf, "beta")) seen_beta = (int)i;
        if (!strcmp(buf, "gamma")) seen_gamma = (int)i;
    }
    CHECK(seen_alpha > 0 && seen_beta > 0 && seen_gamma > 0, "reopened families %d %d %d", seen_alpha, seen_beta, seen_gamma);
    if (seen_gamma > 0)
        CHECK(get_s(s, NULL, (uint32_t)seen_gamma, "k", buf, sizeof buf) == FERRY_OK && strcmp(buf, "in-gamma") == 0,
              "data survives reopen");
    if (seen_beta > 0) CHECK_RC(get_s(s, NULL, (uint32_t)seen_beta, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    /* read-only */
    int64_t ro[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) ro[i] = -1;
    ro[FERRY_OPT_READ_ONLY] = 1;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("cf"), ro, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    CHECK_RC(ferry_cf_count(s, &n), FERRY_OK);
    CHECK(n == 4, "read-only families %u", n);
    CHECK_RC(put_s(s, 0, "k", "v"), FERRY_EREADONLY);
    CHECK_RC(ferry_delete(s, 0, "k", 1, &err), FERRY_EREADONLY);
    CHECK_RC(ferry_write(s, NULL, 0, 0, 0, &err), FERRY_EREADONLY);
    CHECK_RC(ferry_cf_create(s, "delta", 0, NULL, 0, NULL, &n, &err), FERRY_EREADONLY);
    CHECK_RC(ferry_cf_drop(s, 1, &err), FERRY_EREADONLY);
    if (seen_alpha > 0)
        CHECK(get_s(s, NULL, (uint32_t)seen_alpha, "k", buf, sizeof buf) == FERRY_OK && strcmp(buf, "in-alpha") == 0,
              "read-only get");
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* Dropped families do not count toward any limit, and ids stay unique: a dropped id keeps
 * failing with FERRY_ECFDROPPED and never names a later family. RocksDB has no limit on live
 * families; before, the shim's table of 4096 slots filled with dropped ones. */
void test_family_churn(void)
{
    ferry_store *s;
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_WAL] = 0; /* family churn only: keep it quick */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("churn"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (!s) return;
    uint32_t first = 0, id = 0, keep;
    char name[32], buf[16];
    CHECK_RC(ferry_cf_create(s, "keep", 0, NULL, 0, NULL, &keep, &err), FERRY_OK);
    CHECK_RC(put_s(s, keep, "k", "kept"), FERRY_OK);
    int bad = 0;
    /* 100 cycles go past the slot table's first chunk (64 ids) in 0.2 s. RocksDB keeps a dropped
     * family's data structures until its handle is destroyed (the shim does that at close), and
     * each create then costs more: 200 cycles take 4 s, FERRY_TEST_CF_CHURN=5000 (past the old
     * 4096-slot table) about 3 minutes. */
    const char *env = getenv("FERRY_TEST_CF_CHURN");
    const uint32_t CYCLES = env && atoi(env) > 0 ? (uint32_t)atoi(env) : 100;
    for (uint32_t i = 0; i < CYCLES && !bad; i++) {
        snprintf(name, sizeof name, "churn%d", i % 3);
        int rc = ferry_cf_create(s, name, 0, NULL, 0, NULL, &id, &err);
        if (rc == FERRY_OK) rc = put_s(s, id, "k", name);
        if (rc == FERRY_OK) rc = ferry_cf_drop(s, id, &err);
        if (rc != FERRY_OK) { bad = 1; CHECK_RC(rc, FERRY_OK); printf("  at cycle %u\n", i); }
        if (i == 0) first = id;
    }
    CHECK(id == keep + CYCLES, "last id %u", id);
    CHECK_RC(get_s(s, NULL, first, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    CHECK_RC(put_s(s, id, "k", "v"), FERRY_ECFDROPPED);
    uint32_t again;
    CHECK_RC(ferry_cf_create(s, "churn0", 0, NULL, 0, NULL, &again, &err), FERRY_OK);
    CHECK(again == id + 1, "new id %u", again);
    CHECK_RC(get_s(s, NULL, again, "k", buf, sizeof buf), FERRY_NOTFOUND);
    CHECK(get_s(s, NULL, keep, "k", buf, sizeof buf) == FERRY_OK && strcmp(buf, "kept") == 0, "kept family: %s", buf);
    size_t len;
    CHECK_RC(ferry_cf_name(s, first, buf, sizeof buf, &len), FERRY_ECFDROPPED);
    CHECK(strcmp(buf, "churn0") == 0, "dropped family's name: %s", buf);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

void test_open_options(void)
{
    ferry_store *s = NULL;
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_ERROR_IF_EXISTS] = 1;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("cf"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_EEXISTS);
    CHECK(err.engine_code == 4 && s == NULL, "error_if_exists engine code %d", err.engine_code);
    o[FERRY_OPT_ERROR_IF_EXISTS] = -1;
    o[FERRY_OPT_CREATE_IF_MISSING] = 0;
    /* a missing store: FERRY_NOTFOUND naming the path and the option (LMDB gives the same) */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("missing"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, dir("missing")) && strstr(err.message, "createIfMissing")
          && strstr(err.message, "FERRY_OPT_CREATE_IF_MISSING"), "missing db: %d %s", err.engine_code, err.message);
    o[FERRY_OPT_READ_ONLY] = 1;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("missing"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "read-only"), "read-only missing db: %s", err.message);
    struct stat st;
    CHECK(stat(dir("missing"), &st) != 0, "a failed open leaves no directory");
    /* every option set */
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_BLOCK_CACHE_BYTES] = 8 << 20;
    o[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_LZ4;
    o[FERRY_OPT_WAL] = 0;
    o[FERRY_OPT_SYNC] = 0;
    o[FERRY_OPT_BLOOM_BITS] = 10;
    o[FERRY_OPT_MAX_OPEN_FILES] = 100;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("opts"), o, FERRY_OPT_COUNT,
                              "write_buffer_size=1048576;max_write_buffer_number=3", NULL, 0, 0, &s, &err), FERRY_OK);
    if (s) {
        char buf[16];
        CHECK_RC(put_s(s, 0, "o", "opts"), FERRY_OK);
        CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
        CHECK(get_s(s, NULL, 0, "o", buf, sizeof buf) == FERRY_OK && !strcmp(buf, "opts"), "get after flush");
        ferry_store_close(s);
        s = NULL;
    }
    o[FERRY_OPT_COMPRESSION] = FERRY_COMPRESSION_ZSTD;
    o[FERRY_OPT_SYNC] = 1;
    o[FERRY_OPT_WAL] = 1;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("opts"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_OK);
    if (s) {
        CHECK_RC(put_s(s, 0, "o2", "zstd"), FERRY_OK);
        ferry_store_close(s);
        s = NULL;
    }
    o[FERRY_OPT_COMPRESSION] = 42;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("opts"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("opts"), NULL, 0, "no_such_option=1", NULL, 0, 0, &s, &err), FERRY_EENGINEARG);
    CHECK(err.engine_code == 4, "bad options string code %d", err.engine_code);
    /* the directory lock: a second open of the same store fails with FERRY_EBUSY, saying so */
    ferry_store *s1 = NULL, *s2 = NULL;
    CHECK_RC(open_store("opts", &s1), FERRY_OK);
    CHECK(open_store("opts", &s2) == FERRY_EBUSY && s2 == NULL && err.engine_code == 5
          && strstr(err.message, "is already open in this process"), "second open: %s", err.message);
    ferry_store_close(s1);
}

/* Duplicate keys and LMDB's write flags are refused; sync and no-WAL writes land. */
void test_lmdb_only_flags(void)
{
    ferry_store *s = NULL;
    CHECK_RC(open_store("lmdb-only", &s), FERRY_OK);
    if (!s) return;
    uint32_t cf = 0, flags = 9;
    CHECK_RC(ferry_cf_create(s, "d", FERRY_CF_DUPSORT, NULL, 0, NULL, &cf, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "LMDB") != NULL, "%s", err.message);
    CHECK_RC(ferry_cf_create(s, "d", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    CHECK_RC(ferry_cf_flags(s, cf, &flags, &err), FERRY_OK);
    CHECK(flags == 0, "%s", err.message);
    CHECK_RC(ferry_put(s, cf, "k", 1, "v", 1, FERRY_WRITE_NO_OVERWRITE, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "transaction") != NULL, "%s", err.message);
    CHECK_RC(ferry_put(s, cf, "k", 1, "v", 1, FERRY_WRITE_NO_DUP_DATA, &err), FERRY_ENOTSUP);
    CHECK_RC(ferry_put(s, cf, "k", 1, "v", 1, FERRY_WRITE_APPEND, &err), FERRY_ENOTSUP);
    CHECK_RC(ferry_put(s, cf, "k", 1, "v", 1, 0x100, &err), FERRY_EINVAL);
    CHECK_RC(ferry_put(s, cf, "k", 1, "v1", 2, FERRY_WRITE_SYNC, &err), FERRY_OK);
    CHECK_RC(ferry_put(s, cf, "n", 1, "v2", 2, FERRY_WRITE_NO_WAL, &err), FERRY_OK);
    uint64_t count = 9;
    CHECK_RC(ferry_value_count(s, NULL, cf, "k", 1, &count, &err), FERRY_OK);
    CHECK(count == 1, "%s", err.message);
    CHECK_RC(ferry_value_count(s, NULL, cf, "zz", 2, &count, &err), FERRY_OK);
    CHECK(count == 0, "%s", err.message);
    uint8_t rec[32];
    uint32_t hdr[4] = { FERRY_OP_DELETE_VALUE, cf, 1, 2 };
    memcpy(rec, hdr, 16);
    memcpy(rec + 16, "kv1", 3);
    CHECK_RC(ferry_write(s, rec, 19, 1, 0, &err), FERRY_ENOTSUP);
    hdr[0] = FERRY_OP_PUT;
    memcpy(rec, hdr, 16);
    memcpy(rec + 16, "kv9", 3);
    CHECK_RC(ferry_write(s, rec, 19, 1, FERRY_WRITE_SYNC | FERRY_WRITE_NO_WAL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_write(s, rec, 19, 1, FERRY_WRITE_SYNC, &err), FERRY_OK);
    CHECK_RC(ferry_write(s, rec, 19, 1, FERRY_WRITE_NO_OVERWRITE, &err), FERRY_ENOTSUP);
    char buf[8];
    CHECK_RC(get_s(s, NULL, cf, "k", buf, sizeof buf), FERRY_OK);
    CHECK(strcmp(buf, "v9") == 0, "%s", err.message);
    CHECK_RC(get_s(s, NULL, cf, "n", buf, sizeof buf), FERRY_OK);
    CHECK(strcmp(buf, "v2") == 0, "%s", err.message);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* Append a ferry_store_open family record to b at *n. */
static void cf_rec(uint8_t *b, size_t *n, const char *name, const int64_t *o, const char *extra)
{
    uint32_t nl = (uint32_t)strlen(name), el = extra ? (uint32_t)strlen(extra) : 0;
    memcpy(b + *n, &nl, 4);
    memcpy(b + *n + 4, &el, 4);
    memcpy(b + *n + 8, o, 8 * FERRY_CFOPT_COUNT);
    memcpy(b + *n + FERRY_CFDESC_HEADER, name, nl);
    if (el) memcpy(b + *n + FERRY_CFDESC_HEADER + nl, extra, el);
    *n += FERRY_CFDESC_HEADER + nl + el;
}

/* Per-family options: a family with a prefix extractor, bloom filter, block size and LZ4 reads
 * back; a family with a merge operator merges while the default one refuses; bad values and
 * malformed records are argument errors; the merge operator is needed again at reopen. */
void test_cf_options(void)
{
    ferry_store *s = NULL;
    CHECK_RC(open_store("cfopts", &s), FERRY_OK);
    if (!s) return;
    int64_t o[FERRY_CFOPT_COUNT] = { FERRY_COMPRESSION_LZ4, 10, 8192, 4, -1, -1, -1 };
    int64_t none[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, -1, -1 };
    uint32_t p = 0, m = 0, u = 0;
    CHECK_RC(ferry_cf_create(s, "p", 0, o, FERRY_CFOPT_COUNT, NULL, &p, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "m", 0, none, FERRY_CFOPT_COUNT, "merge_operator=uint64add", &m, &err), FERRY_OK);
    char key[16], buf[64];
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof key, "k%03d-%d", i % 7, i);
        CHECK_RC(put_s(s, p, key, key), FERRY_OK);
    }
    CHECK_RC(ferry_flush(s, p, &err), FERRY_OK);
    CHECK_RC(get_s(s, NULL, p, "k003-10", buf, sizeof buf), FERRY_OK);
    CHECK(strcmp(buf, "k003-10") == 0, "got %s", buf);
    CHECK_RC(get_s(s, NULL, p, "k009-1", buf, sizeof buf), FERRY_NOTFOUND);
    uint64_t one = 1, got = 0;
    size_t vlen = 0;
    CHECK_RC(ferry_merge(s, m, "n", 1, &one, 8, &err), FERRY_OK);
    CHECK_RC(ferry_merge(s, m, "n", 1, &one, 8, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, NULL, m, "n", 1, 0, &got, 8, &vlen, &err), FERRY_OK);
    CHECK(got == 2, "uint64add gives %llu", (unsigned long long)got);
    CHECK_RC(ferry_merge(s, 0, "n", 1, &one, 8, &err), FERRY_ENOTSUP);
    CHECK_RC(ferry_merge(s, p, "n", 1, &one, 8, &err), FERRY_ENOTSUP);
    /* point reads with read flags */
    uint32_t rf = FERRY_CURSOR_NO_FILL_CACHE | FERRY_CURSOR_NO_VERIFY_CHECKSUMS;
    got = 0;
    CHECK_RC(ferry_get(s, NULL, m, "n", 1, rf, &got, 8, &vlen, &err), FERRY_OK);
    CHECK(got == 2, "get2 gives %llu", (unsigned long long)got);
    CHECK_RC(ferry_get(s, NULL, p, "k003-10", 7, FERRY_CURSOR_NO_FILL_CACHE, buf, sizeof buf, &vlen, &err), FERRY_OK);
    CHECK(vlen == 7 && memcmp(buf, "k003-10", 7) == 0, "get2 value");
    CHECK_RC(ferry_get(s, NULL, p, "zz", 2, rf, buf, sizeof buf, &vlen, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_get(s, NULL, p, "zz", 2, FERRY_CURSOR_POINTERS, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);
    CHECK_RC(ferry_get(s, NULL, p, "zz", 2, 0xffffffffu, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);
    CHECK_RC(ferry_get(NULL, NULL, p, "zz", 2, rf, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);
    CHECK_RC(ferry_get(s, NULL, p, NULL, 2, rf, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);
    CHECK_RC(ferry_get(s, NULL, p, "zz", 2, rf, buf, sizeof buf, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_get(s, NULL, 999, "zz", 2, rf, buf, sizeof buf, &vlen, &err), FERRY_EINVAL);
    ferry_snapshot *snap = NULL;
    CHECK_RC(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    CHECK_RC(ferry_merge(s, m, "n", 1, &one, 8, &err), FERRY_OK);
    CHECK_RC(ferry_get(s, snap, m, "n", 1, rf, &got, 8, &vlen, &err), FERRY_OK);
    CHECK(got == 2, "get2 at a snapshot gives %llu", (unsigned long long)got);
    uint8_t keys[32];
    uint32_t kl = 1;
    memcpy(keys, &kl, 4); keys[4] = 'n';
    memcpy(keys + 5, &kl, 4); keys[9] = 'x';
    int64_t lens[2];
    uint8_t vals[64];
    CHECK_RC(ferry_multi_get(s, snap, m, 2, keys, 10, rf, vals, sizeof vals, lens, &err), 2);
    CHECK(lens[0] == 8 && lens[1] == -1, "multi_get2 lens %lld %lld", (long long)lens[0], (long long)lens[1]);
    CHECK_RC(ferry_multi_get(s, NULL, m, 2, keys, 10, rf, vals, sizeof vals, lens, &err), 2);
    memcpy(&got, vals, 8);
    CHECK(got == 3, "multi_get2 gives %llu", (unsigned long long)got);
    CHECK_RC(ferry_multi_get(s, NULL, m, 2, keys, 9, rf, vals, sizeof vals, lens, &err), FERRY_EINVAL);
    CHECK_RC(ferry_multi_get(s, NULL, m, 2, keys, 10, 0x100, vals, sizeof vals, lens, &err), FERRY_EINVAL);
    CHECK_RC(ferry_multi_get(NULL, NULL, m, 2, keys, 10, rf, vals, sizeof vals, lens, &err), FERRY_EINVAL);
    CHECK_RC(ferry_multi_get(s, NULL, m, 2, NULL, 10, rf, vals, sizeof vals, lens, &err), FERRY_EINVAL);
    CHECK_RC(ferry_multi_get(s, NULL, m, 2, keys, 10, rf, vals, sizeof vals, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_multi_get(s, NULL, m, 0, keys, 10, rf, vals, sizeof vals, lens, &err), FERRY_EINVAL);
    CHECK_RC(ferry_snapshot_close(snap), FERRY_OK);
    one = 1;

    /* bad values, NULLs and garbage */
    int64_t bad[][FERRY_CFOPT_COUNT] = {
        { 9, -1, -1, -1, -1, -1, -1 }, { -2, -1, -1, -1, -1, -1, -1 }, { -1, FERRY_CFOPT_MAX_BLOOM_BITS + 1, -1, -1, -1, -1, -1 }, { -1, -2, -1, -1, -1, -1, -1 },
        { -1, -1, 0, -1, -1, -1, -1 }, { -1, -1, (int64_t)FERRY_CFOPT_MAX_BLOCK_SIZE + 1, -1, -1, -1, -1 },
        { -1, -1, -1, FERRY_CFOPT_MAX_PREFIX_LEN + 1, -1, -1, -1 }, { -1, -1, -1, -5, -1, -1, -1 },
        { INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX, -1, -1, -1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_RC(ferry_cf_create(s, "x", 0, bad[i], FERRY_CFOPT_COUNT, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, o, FERRY_CFOPT_COUNT + 1, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, NULL, 2, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, none, 4, "merge_operator=sortlist", &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, none, 4, "comparator=x", &u, &err), FERRY_EINVAL);
    CHECK(ferry_cf_create(s, "x", 0, none, 4, "no such option=1", &u, &err) != FERRY_OK, "garbage options string");
    CHECK_RC(ferry_cf_create(s, "x", FERRY_CF_DUPSORT, o, 4, NULL, &u, &err), FERRY_ENOTSUP);
    CHECK_RC(ferry_cf_create(NULL, "x", 0, o, 4, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, NULL, 0, o, 4, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "", 0, o, 4, NULL, &u, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "x", 0, o, 4, NULL, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_create(s, "p", 0, o, 4, NULL, &u, NULL), FERRY_EEXISTS);
    /* an empty set of options is a plain family */
    CHECK_RC(ferry_cf_create(s, "plain", 0, NULL, 0, NULL, &u, &err), FERRY_OK);
    CHECK_RC(ferry_cf_create(s, "plain2", 0, none, 4, "", &u, &err), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);

    /* reopen: family m without its merge operator is refused; with it, its operands merge on */
    s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("cfopts"), NULL, 0, NULL, NULL, 0, 0, &s, &err), FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "'m'") != NULL, "%s", err.message);
    uint8_t rec[1024];
    size_t n = 0;
    cf_rec(rec, &n, "m", none, "merge_operator=uint64add");
    cf_rec(rec, &n, "p", o, NULL);
    cf_rec(rec, &n, "not-there", o, NULL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("cfopts"), NULL, 0, NULL, rec, n, 3, &s, &err), FERRY_OK);
    if (s) {
        CHECK_RC(ferry_merge(s, m, "n", 1, &one, 8, &err), FERRY_OK);
        CHECK_RC(ferry_get(s, NULL, m, "n", 1, 0, &got, 8, &vlen, &err), FERRY_OK);
        CHECK(got == 4, "uint64add after reopen gives %llu", (unsigned long long)got);
        CHECK_RC(get_s(s, NULL, p, "k006-200", buf, sizeof buf), FERRY_NOTFOUND);
        CHECK_RC(get_s(s, NULL, p, "k006-6", buf, sizeof buf), FERRY_OK);
        CHECK_RC(ferry_merge(s, 0, "n", 1, &one, 8, &err), FERRY_ENOTSUP);
        CHECK_RC(ferry_store_close(s), FERRY_OK);
    }
    /* malformed records */
    s = (ferry_store *)1;
    const char *d = dir("cfopts");
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, NULL, 0, 1, &s, &err), FERRY_EINVAL);
    CHECK(s == NULL, "out not cleared");
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, n, 2, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, n - 1, 3, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, n, 4, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, n, UINT32_MAX, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, 7, 0, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, SIZE_MAX, 1, &s, &err), FERRY_EINVAL);
    uint8_t two[512];
    size_t tn = 0;
    cf_rec(two, &tn, "m", none, "merge_operator=uint64add");
    cf_rec(two, &tn, "m", none, NULL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, two, tn, 2, &s, &err), FERRY_EINVAL);
    tn = 0;
    uint32_t big = UINT32_MAX;
    cf_rec(two, &tn, "m", none, NULL);
    memcpy(two, &big, 4);   /* name length beyond the buffer */
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, two, tn, 1, &s, &err), FERRY_EINVAL);
    memcpy(two + 4, &big, 4);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, two, tn, 1, &s, &err), FERRY_EINVAL);
    tn = 0;
    cf_rec(two, &tn, "m", bad[2], "merge_operator=uint64add");
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, two, tn, 1, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, NULL, NULL, 0, NULL, rec, n, 3, &s, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, d, NULL, 0, NULL, rec, n, 3, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_store_open(77, d, NULL, 0, NULL, rec, n, 3, &s, NULL), FERRY_EINVAL);
    CHECK(s == NULL, "out not cleared");
}
