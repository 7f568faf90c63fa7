/* LMDB engine tests: families, snapshots, open modes and options, map size, paths, checkpoints,
 * per-family options and the refused shared-memory options. Part of test_lmdb (test_lmdb.h). */
#include "test_lmdb.h"

void test_families(void)
{
    ferry_store *s = open_store("fams");
    uint32_t a, b, n;
    char name[64], buf[64];
    size_t nl;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_cf_name(s, 0, name, sizeof name, &nl), FERRY_OK);
    CHECK(strcmp(name, "default") == 0);
    EQ(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "beta", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "alpha", 0, NULL, 0, NULL, &n, &err), FERRY_EEXISTS);
    CHECK(a == 1 && b == 2);
    /* names are keys of the default family: at most LMDB's key size */
    char longname[600];
    memset(longname, 'n', sizeof longname);
    longname[512] = '\0';
    EQ(ferry_cf_create(s, longname, 0, NULL, 0, NULL, &n, &err), FERRY_EINVAL);
    CHECK(strstr(err.message, "512 bytes") && strstr(err.message, "511"), "%s", err.message);
    EQ(ferry_cf_create(s, "", 0, NULL, 0, NULL, &n, &err), FERRY_EINVAL);
    EQ(put_s(s, a, "k", "in-alpha"), FERRY_OK);
    EQ(put_s(s, b, "k", "in-beta"), FERRY_OK);
    EQ(put_s(s, 0, "k", "in-default"), FERRY_OK);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), 8);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), 7);
    CHECK(strcmp(buf, "in-beta") == 0);
    EQ(ferry_cf_drop(s, b, &err), FERRY_OK);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(put_s(s, b, "k", "v"), FERRY_ECFDROPPED);
    EQ(ferry_cf_drop(s, b, &err), FERRY_ECFDROPPED);
    EQ(ferry_cf_drop(s, 0, &err), FERRY_EINVAL);
    EQ(ferry_cf_name(s, b, name, sizeof name, &nl), FERRY_ECFDROPPED);
    EQ(ferry_cf_create(s, "gamma", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(put_s(s, b, "g", "in-gamma"), FERRY_OK);
    ferry_store_close(s);

    s = open_store("fams");
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    int ida = -1, idg = -1;
    for (uint32_t i = 0; i < n; i++) {
        ferry_cf_name(s, i, name, sizeof name, &nl);
        if (strcmp(name, "alpha") == 0) ida = (int)i;
        if (strcmp(name, "gamma") == 0) idg = (int)i;
        CHECK(strcmp(name, "beta") != 0);
    }
    CHECK(ida > 0 && idg > 0);
    if (ida > 0) EQ(get_s(s, NULL, (uint32_t)ida, "k", buf, sizeof buf), 8);
    if (idg > 0) EQ(get_s(s, NULL, (uint32_t)idg, "g", buf, sizeof buf), 8);
    EQ(get_s(s, NULL, 0, "k", buf, sizeof buf), 10);
    ferry_store_close(s);

    /* max dbs: 1 named database allowed */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 1;
    int rc;
    s = open_with("fams-small", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        EQ(ferry_cf_create(s, "one", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
        EQ(ferry_cf_create(s, "two", 0, NULL, 0, NULL, &b, &err), FERRY_EDBSFULL);
        ferry_store_close(s);
    }

    /* dropped families do not count toward max dbs, and ids stay unique: a dropped id keeps
     * failing with FERRY_ECFDROPPED and never names a later family */
    o[FERRY_OPT_MAX_DBS] = 2;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    s = open_with("fams-churn", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    uint32_t c, d, e;
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    EQ(ferry_cf_drop(s, a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_drop(s, b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "d", 0, NULL, 0, NULL, &d, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "e", 0, NULL, 0, NULL, &e, &err), FERRY_EDBSFULL);
    CHECK(strstr(err.message, "too many column families: 2 live, maxColumnFamilies is 2 (dropped families do not count")
          != NULL, "%s", err.message);
    CHECK(a != c && a != d && b != c && b != d && c != d, "ids %u %u %u %u", a, b, c, d);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(put_s(s, b, "k", "v"), FERRY_ECFDROPPED);
    EQ(put_s(s, c, "k", "in-c"), FERRY_OK);
    /* a default-family key named like a dropped family (with a value the size of LMDB's family
     * record) is user data: a range delete removes it */
    char rec48[48];
    memset(rec48, 7, sizeof rec48);
    EQ(ferry_put(s, 0, "a", 1, rec48, sizeof rec48, 0, &err), FERRY_OK);
    EQ(ferry_delete_range(s, 0, "a", 1, "a\x01", 2, &err), FERRY_OK);
    EQ(get_s(s, NULL, 0, "a", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_cf_drop(s, d, &err), FERRY_OK);
    /* enough churn to fill several chunks of the slot table */
    uint32_t id = 0;
    int bad = 0;
    for (int i = 0; i < 300 && !bad; i++) {
        snprintf(name, sizeof name, "churn%d", i % 2);
        int crc = ferry_cf_create(s, name, 0, NULL, 0, NULL, &id, &err);
        if (crc == FERRY_OK) crc = put_s(s, id, "k", name);
        if (crc == FERRY_OK) crc = get_s(s, NULL, id, "k", buf, sizeof buf) == (int)strlen(name) ? FERRY_OK : -1;
        if (crc == FERRY_OK) crc = ferry_cf_drop(s, id, &err);
        bad = crc != FERRY_OK;
        CHECK(!bad, "cycle %d: %d %s", i, crc, err.message);
    }
    CHECK(id == d + 300, "last id %u", id);
    EQ(get_s(s, NULL, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, NULL, id, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, NULL, c, "k", buf, sizeof buf), 4);
    EQ(ferry_cf_name(s, a, name, sizeof name, &nl), FERRY_ECFDROPPED);
    CHECK(strcmp(name, "a") == 0, "%s", name);
    EQ(ferry_cf_create(s, "d2", 0, NULL, 0, NULL, &d, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "e", 0, NULL, 0, NULL, &e, &err), FERRY_EDBSFULL);
    ferry_store_close(s);
    s = open_with("fams-churn", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    ferry_store_close(s);
}

void test_snapshots(void)
{
    ferry_store *s = open_store("snaps");
    char buf[64];
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(put_s(s, 0, "b", "2"), FERRY_OK);
    EQ(put_s(s, 0, "a", "changed"), FERRY_OK);
    EQ(get_s(s, snap, 0, "b", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, snap, 0, "a", buf, sizeof buf), 1);
    EQ(get_s(s, NULL, 0, "a", buf, sizeof buf), 7);
    /* a cursor on the snapshot and two plain cursors at once, in this one thread */
    ferry_cursor *c1, *c2, *c3;
    EQ(ferry_cursor_open(s, snap, 0, NULL, 0, NULL, 0, 0, &c1, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c2, &err), FERRY_OK);
    EQ(ferry_cursor_open(s, NULL, 0, NULL, 0, NULL, 0, 0, &c3, &err), FERRY_OK);
    EQ(put_s(s, 0, "c", "3"), FERRY_OK);
    uint8_t page[256];
    EQ(ferry_cursor_fill(c1, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 1);
    EQ(ferry_cursor_fill(c2, FERRY_FIRST, NULL, 0, page, sizeof page, 1, &err), 1);
    EQ(ferry_cursor_fill(c3, FERRY_FIRST, NULL, 0, page, sizeof page, 100, &err), 2);
    EQ(ferry_cursor_fill(c2, FERRY_NEXT, NULL, 0, page, sizeof page, 100, &err), 1);
    ferry_cursor_close(c3);
    ferry_cursor_close(c2);
    ferry_cursor_close(c1);
    /* many snapshots at once in one thread */
    ferry_snapshot *many[40];
    int ok = 1;
    for (int i = 0; i < 40; i++) ok &= ferry_snapshot_open(s, &many[i], &err) == FERRY_OK;
    CHECK(ok, "%s", err.message);
    for (int i = 0; i < 40; i++) ok &= get_s(s, many[i], 0, "c", buf, sizeof buf) == 1;
    CHECK(ok);
    for (int i = 0; i < 40; i++) ferry_snapshot_close(many[i]);
    ferry_snapshot_close(snap);
    ferry_snapshot_close(NULL);
    ferry_cursor_close(NULL);
    ferry_store_close(s);
}

/* A snapshot never reads a family created after it: LMDB gives a dropped database's handle
 * number to the next one, so the snapshot's read transaction would read the dropped family
 * through the new family's id. Every snapshot read of such a family fails with FERRY_EINVAL;
 * one of a family dropped since fails with FERRY_ECFDROPPED. */
/* A store whose default family holds more than FERRY_LMDB_FAMILY_SCAN_MAX records gives its other
 * families slots when they are asked for, by name or all at once, not at open; views begun before a
 * family got its slot do not read it; creating a family that exists unlisted is refused. */
void test_lazy_families(void)
{
    ferry_store *s = open_store("lazy-families");
    uint32_t a, b, id, n;
    char buf[64];
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", FERRY_CF_DUPSORT, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    int bad = 0;
    for (int i = 0; i <= FERRY_LMDB_FAMILY_SCAN_MAX; i++) {
        char k[16];
        snprintf(k, sizeof k, "key%06d", i);
        bad += put_s(s, 0, k, "v") != FERRY_OK;
    }
    EQ(bad, 0);
    EQ(ferry_store_close(s), FERRY_OK);

    s = open_store("lazy-families");
    uint64_t listed = 9;
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_property_int(s, 0, "lmdb.families-listed", &listed, &err), FERRY_OK);
    EQ(listed, 0);
    EQ(get_s(s, NULL, 0, "key000007", buf, sizeof buf), 1);
    ferry_snapshot *snap = NULL;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "a", &id, &err), FERRY_OK);
    EQ(id, 1);
    EQ(get_s(s, NULL, id, "k", buf, sizeof buf), 4);
    CHECK(strcmp(buf, "in-a") == 0, "a/k = '%s'", buf);
    EQ(get_s(s, snap, id, "k", buf, sizeof buf), FERRY_EINVAL);
    CHECK(strstr(err.message, "first looked up after it") != NULL, "%s", err.message);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    uint32_t again = 99;
    EQ(ferry_cf_find(s, "a", &again, &err), FERRY_OK);
    EQ(again, id);
    EQ(ferry_cf_find(s, "nope", &again, &err), FERRY_NOTFOUND);
    EQ(ferry_cf_find(s, "key000007", &again, &err), FERRY_NOTFOUND); /* a record, not a family */
    EQ(ferry_cf_find(s, "", &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(NULL, "a", &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, NULL, &again, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, "a", NULL, &err), FERRY_EINVAL);
    uint32_t dup;
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &dup, &err), FERRY_EEXISTS);   /* exists, not listed yet */
    EQ(ferry_cf_create(s, "key000007", 0, NULL, 0, NULL, &dup, &err), FERRY_EEXISTS); /* a record of that name */
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 2);
    EQ(ferry_cf_list_all(s, &err), FERRY_OK);
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    size_t len = 0;
    EQ(ferry_cf_name(s, 2, buf, sizeof buf, &len), FERRY_OK);
    CHECK(strcmp(buf, "b") == 0, "family 2 is '%s'", buf);
    uint32_t flags = 0;
    EQ(ferry_cf_flags(s, 2, &flags, &err), FERRY_OK);
    EQ(flags, FERRY_CF_DUPSORT);
    EQ(ferry_property_int(s, 0, "lmdb.families-listed", &listed, &err), FERRY_OK);
    EQ(listed, 1);
    EQ(ferry_cf_list_all(s, &err), FERRY_OK);
    EQ(ferry_cf_count(s, &n), FERRY_OK);
    EQ(n, 3);
    EQ(ferry_cf_list_all(NULL, &err), FERRY_EINVAL);
    EQ(ferry_cf_find(s, "b", &again, &err), FERRY_OK);
    EQ(again, 2);
    EQ(ferry_cf_drop(s, 1, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "a", &again, &err), FERRY_NOTFOUND);
    EQ(ferry_store_close(s), FERRY_OK);

    /* room for one named family: the open works, the second family found is one too many */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 1;
    s = open_store("lazy-families");
    uint32_t c;
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
    int rc;
    s = open_with("lazy-families", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_cf_find(s, "b", &id, &err), FERRY_OK);
    EQ(ferry_cf_find(s, "c", &id, &err), FERRY_EDBSFULL);
    EQ(ferry_cf_list_all(s, &err), FERRY_EDBSFULL);
    EQ(ferry_store_close(s), FERRY_OK);
}

void test_snapshot_families(void)
{
    ferry_store *s = open_store("snap-families");
    uint32_t a, b, c;
    char buf[64];
    EQ(ferry_cf_create(s, "a", 0, NULL, 0, NULL, &a, &err), FERRY_OK);
    EQ(put_s(s, a, "k", "in-a"), FERRY_OK);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(get_s(s, snap, a, "k", buf, sizeof buf), 4);
    EQ(ferry_cf_drop(s, a, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "b", 0, NULL, 0, NULL, &b, &err), FERRY_OK);
    EQ(ferry_cf_create(s, "c", 0, NULL, 0, NULL, &c, &err), FERRY_OK);
    EQ(put_s(s, c, "k", "in-c"), FERRY_OK);
    EQ(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_EINVAL);
    CHECK(strstr(err.message, "column family 'b' was created after this snapshot") != NULL, "%s", err.message);
    EQ(get_s(s, snap, c, "k", buf, sizeof buf), FERRY_EINVAL);
    uint8_t keys[8] = {0, 0, 0, 0, 'k'};
    uint32_t one = 1; /* the key record's u32 length: native order */
    memcpy(keys, &one, 4);
    int64_t lens[1];
    EQ(ferry_multi_get(s, snap, b, 1, keys, 5, 0, buf, sizeof buf, lens, &err), FERRY_EINVAL);
    CHECK(strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    ferry_cursor *cur = NULL;
    EQ(ferry_cursor_open(s, snap, b, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_EINVAL);
    CHECK(cur == NULL && strstr(err.message, "created after this snapshot") != NULL, "%s", err.message);
    EQ(get_s(s, snap, a, "k", buf, sizeof buf), FERRY_ECFDROPPED);
    EQ(get_s(s, snap, 0, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    /* a snapshot taken now reads them */
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(get_s(s, snap, b, "k", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, snap, c, "k", buf, sizeof buf), 4);
    EQ(ferry_cursor_open(s, snap, c, NULL, 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    if (cur) ferry_cursor_close(cur);
    EQ(ferry_snapshot_close(snap), FERRY_OK);
    ferry_store_close(s);
}

void test_map_full(void)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = 256 * 1024;
    int rc;
    ferry_store *s = open_with("tiny", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    static char val[100 * 1024];
    memset(val, 'm', sizeof val);
    char k[16];
    int i;
    for (i = 0; i < 10; i++) {
        snprintf(k, sizeof k, "big%d", i);
        rc = ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err);
        if (rc) break;
    }
    EQ(rc, FERRY_EMAPFULL);
    CHECK(strstr(err.message, "FERRY_OPT_AUTO_GROW") != NULL, "%s", err.message);
    int failed_at = i;
    ferry_store_close(s);

    /* the same write succeeds with auto-grow, but not while a read transaction is open */
    o[FERRY_OPT_AUTO_GROW] = 1024 * 1024;
    s = open_with("tiny", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    snprintf(k, sizeof k, "big%d", failed_at);
    ferry_snapshot *snap;
    EQ(ferry_snapshot_open(s, &snap, &err), FERRY_OK);
    EQ(ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err), FERRY_EMAPFULL);
    CHECK(strstr(err.message, "read transaction") != NULL, "%s", err.message);
    ferry_snapshot_close(snap);
    uint64_t before = 0, after = 0;
    ferry_property_int(s, 0, "lmdb.map-size", &before, &err);
    EQ(ferry_put(s, 0, k, strlen(k), val, sizeof val, 0, &err), FERRY_OK);
    ferry_property_int(s, 0, "lmdb.map-size", &after, &err);
    CHECK(after > before, "%llu -> %llu", (unsigned long long)before, (unsigned long long)after);
    /* a big batch needs several steps */
    size_t blen = 0, cap = 40 * (sizeof val + 32);
    uint8_t *b = malloc(cap);
    for (int j = 0; j < 40; j++) {
        snprintf(k, sizeof k, "batch%d", j);
        blen = rec(b, blen, FERRY_OP_PUT, 0, k, (uint32_t)strlen(k), val, sizeof val);
    }
    EQ(ferry_write(s, b, blen, 40, 0, &err), FERRY_OK);
    free(b);
    char small[8];
    size_t vlen;
    EQ(ferry_get(s, NULL, 0, "batch39", 7, 0, small, sizeof small, &vlen, &err), FERRY_OK);
    EQ(vlen, sizeof val);
    ferry_store_close(s);
}

void test_open_modes(void)
{
    int64_t o[FERRY_OPT_COUNT];
    int rc;
    ferry_store *s = open_store("modes");
    EQ(put_s(s, 0, "k", "v"), FERRY_OK);
    uint32_t id;
    EQ(ferry_cf_create(s, "side", 0, NULL, 0, NULL, &id, &err), FERRY_OK);
    ferry_store_close(s);

    opts_init(o);
    o[FERRY_OPT_ERROR_IF_EXISTS] = 1;
    s = open_with("modes", o, &rc);
    EQ(rc, FERRY_EEXISTS);
    CHECK(s == NULL);

    /* a missing store: FERRY_NOTFOUND naming the path and the option (RocksDB gives the same) */
    opts_init(o);
    o[FERRY_OPT_CREATE_IF_MISSING] = 0;
    s = open_with("absent/deeper", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "createIfMissing") != NULL && strstr(err.message, "FERRY_OPT_CREATE_IF_MISSING")
          && strstr(err.message, dir_of("absent/deeper")) != NULL, "%s", err.message);
    int64_t dflt[FERRY_OPT_COUNT];
    opts_init(dflt);
    s = open_with("modes-empty-dir", dflt, &rc); /* then a directory without data.mdb */
    EQ(rc, FERRY_OK);
    ferry_store_close(s);
    char data[1200];
    snprintf(data, sizeof data, "%s/data.mdb", dir_of("modes-empty-dir"));
    plat_unlink(data);
    s = open_with("modes-empty-dir", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "data.mdb") != NULL, "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    s = open_with("absent/deeper", o, &rc);
    EQ(rc, FERRY_NOTFOUND);
    CHECK(s == NULL && strstr(err.message, "read-only") != NULL, "%s", err.message);
    /* a map size that cannot be mapped names the option */
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = INT64_MAX;
    s = open_with("huge-map", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "map size") && strstr(err.message, "mapSize")
          && strstr(err.message, "9223372036854775807"), "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_MAX_DBS] = 40000;
    s = open_with("huge-map", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "maxColumnFamilies"), "%s", err.message);

    opts_init(o);
    s = open_with("created/deeper", o, &rc); /* create_if_missing makes the directories */
    EQ(rc, FERRY_OK);
    ferry_store_close(s);

    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NORDAHEAD;
    s = open_with("modes", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        char buf[8];
        uint32_t n;
        EQ(get_s(s, NULL, 0, "k", buf, sizeof buf), 1);
        EQ(ferry_cf_count(s, &n), FERRY_OK);
        EQ(n, 2);
        EQ(put_s(s, 0, "k", "w"), FERRY_EREADONLY);
        EQ(ferry_delete(s, 0, "k", 1, &err), FERRY_EREADONLY);
        EQ(ferry_cf_create(s, "more", 0, NULL, 0, NULL, &id, &err), FERRY_EREADONLY);
        EQ(ferry_flush(s, 0, &err), FERRY_OK);
        ferry_store_close(s);
    }

    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC | FERRY_LMDB_NOMETASYNC | FERRY_LMDB_WRITEMAP | FERRY_LMDB_NOTLS;
    o[FERRY_OPT_MAX_READERS] = 8;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_OK);
    if (s) {
        EQ(put_s(s, 0, "k", "v"), FERRY_OK);
        EQ(ferry_flush(s, 0, &err), FERRY_OK);
        uint64_t n;
        EQ(ferry_property_int(s, 0, "lmdb.max-readers", &n, &err), FERRY_OK);
        EQ(n, 8);
        ferry_store_close(s);
    }
    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = 0x100;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_MAP_SIZE] = 0;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    /* a sync per commit and NOSYNC contradict each other */
    opts_init(o);
    o[FERRY_OPT_SYNC] = 1;
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    s = open_with("flags", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "NOSYNC"), "%s", err.message);

    /* a directory holding a RocksDB store is refused, naming it, and left as it was */
    char path[4096];
    snprintf(path, sizeof path, "%s", dir_of("rocks"));
    plat_mkdir(path);
    char current[4200];
    snprintf(current, sizeof current, "%s/CURRENT", path);
    FILE *f = fopen(current, "w");
    CHECK(f != NULL, "cannot create %s", current);
    if (f) fclose(f);
    opts_init(o);
    s = open_with("rocks", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "holds a RocksDB store (CURRENT found)") && strstr(err.message, path),
          "%s", err.message);
    char mdb_file[4200];
    snprintf(mdb_file, sizeof mdb_file, "%s/data.mdb", path);
    CHECK(!plat_stat(mdb_file, NULL), "data.mdb created beside a RocksDB store");
}

/* Paths are UTF-8 (as Java passes them), on every platform: a store in a directory whose name is not
 * ASCII (created with its parents), reopened, checkpointed into another such directory, and the
 * names as the file system lists them are the UTF-8 bytes given (on Windows each goes through
 * UTF-16: a conversion through the ANSI code page would change them). */
void test_utf8_paths(void)
{
    const char *name = "utf8-\xc3\xbc\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac";   /* utf8-üé-日本 */
    char sub[256], ckpt[1200];
    snprintf(sub, sizeof sub, "%s/deeper-\xce\xb1", name);                      /* .../deeper-α */
    ferry_store *s = open_store(sub);
    EQ(put_s(s, 0, "k", "v"), FERRY_OK);
    snprintf(ckpt, sizeof ckpt, "%s/ckpt-\xe2\x82\xac", dir_of(name));          /* .../ckpt-€ */
    EQ(ferry_checkpoint(s, ckpt, 0, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, ckpt, 0, &err), FERRY_EEXISTS);
    ferry_store_close(s);
    char v[8];
    s = open_store(sub);
    EQ(get_s(s, NULL, 0, "k", v, sizeof v), 1);
    ferry_store_close(s);
    ferry_store *c = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, ckpt, NULL, 0, NULL, NULL, 0, 0, &c, &err), FERRY_OK);
    if (c) {
        EQ(get_s(c, NULL, 0, "k", v, sizeof v), 1);
        ferry_store_close(c);
    }
    int seen = 0;
    plat_dir *d = plat_dir_open(scratch, NULL);
    CHECK(d != NULL, "list %s", scratch);
    for (const char *n; d && (n = plat_dir_next(d)) != NULL;) seen += strcmp(n, name) == 0;
    plat_dir_close(d);
    EQ(seen, 1);
    seen = 0;
    d = plat_dir_open(dir_of(name), NULL);
    for (const char *n; d && (n = plat_dir_next(d)) != NULL;)
        seen += strcmp(n, "deeper-\xce\xb1") == 0 || strcmp(n, "ckpt-\xe2\x82\xac") == 0;
    plat_dir_close(d);
    EQ(seen, 2);
}

/* A checkpoint (plain and compacting) holds the state when it was taken, in every family, and
 * opens as a store; an existing directory is refused; backups are not LMDB's. */
void test_checkpoint(void)
{
    ferry_store *s = open_store("ckpt-src");
    uint32_t cf;
    EQ(ferry_cf_create(s, "other", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    EQ(put_s(s, 0, "a", "1"), FERRY_OK);
    EQ(put_s(s, cf, "b", "2"), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("ckpt-plain"), 0, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("ckpt-plain"), 0, &err), FERRY_EEXISTS);
    EQ(ferry_checkpoint(s, dir_of("ckpt-compact"), FERRY_CHECKPOINT_COMPACT, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("ckpt-nosync"), FERRY_CHECKPOINT_COMPACT | FERRY_CHECKPOINT_NO_SYNC, &err), FERRY_OK);
    EQ(ferry_checkpoint(s, dir_of("no-parent/ckpt"), 0, &err), FERRY_EIO);
    FILE *f = fopen(dir_of("a-file"), "w");
    if (f) fclose(f);
    EQ(ferry_checkpoint(s, dir_of("a-file/ckpt"), 0, &err), FERRY_EIO); /* ENOTDIR: not "exists" */
    CHECK(!plat_stat(dir_of("no-parent"), NULL), "a failed checkpoint left a directory");
    EQ(put_s(s, 0, "a", "later"), FERRY_OK);
    EQ(put_s(s, cf, "c", "later"), FERRY_OK);
    const char *copies[] = {"ckpt-plain", "ckpt-compact", "ckpt-nosync"};
    for (int i = 0; i < 3; i++) {
        ferry_store *c = open_store(copies[i]);
        char buf[32], name[32];
        size_t len = 0;
        EQ(ferry_cf_name(c, 1, name, sizeof name, &len), FERRY_OK);
        CHECK(strcmp(name, "other") == 0, "%s: family 1 is '%s'", copies[i], name);
        EQ(get_s(c, NULL, 0, "a", buf, sizeof buf), 1);
        CHECK(strcmp(buf, "1") == 0, "%s: a = '%s'", copies[i], buf);
        EQ(get_s(c, NULL, 1, "b", buf, sizeof buf), 1);
        EQ(get_s(c, NULL, 1, "c", buf, sizeof buf), FERRY_NOTFOUND);
        EQ(ferry_store_close(c), FERRY_OK);
    }
    EQ(ferry_backups_create(NULL, s, &cf, &err), FERRY_EINVAL);
    EQ(ferry_store_close(s), FERRY_OK);
    /* a read-only environment is copied too */
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_READ_ONLY] = 1;
    int rc;
    s = open_with("ckpt-src", o, &rc);
    EQ(rc, FERRY_OK);
    if (!s) return;
    EQ(ferry_checkpoint(s, dir_of("ckpt-ro"), 0, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
    ferry_store *c = open_store("ckpt-ro");
    char buf[32];
    EQ(get_s(c, NULL, 0, "a", buf, sizeof buf), 5);
    CHECK(strcmp(buf, "later") == 0, "read-only copy: a = '%s'", buf);
    EQ(ferry_store_close(c), FERRY_OK);
}

/* Per-family options are RocksDB's: any setting is FERRY_ENOTSUP, none at all a plain family. */
void test_cf_options(void)
{
    ferry_store *s = open_store("cfopts");
    int64_t lz4[FERRY_CFOPT_COUNT] = { FERRY_COMPRESSION_LZ4, -1, -1, -1, -1, -1, -1 };
    int64_t none[FERRY_CFOPT_COUNT] = { -1, -1, -1, -1, -1, -1, -1 };
    uint32_t cf = 0, flags = 0;
    EQ(ferry_cf_create(s, "a", 0, lz4, FERRY_CFOPT_COUNT, NULL, &cf, &err), FERRY_ENOTSUP);
    EQ(strstr(err.message, "RocksDB") != NULL, 1);
    EQ(ferry_cf_create(s, "a", 0, none, FERRY_CFOPT_COUNT, "merge_operator=uint64add", &cf, &err), FERRY_ENOTSUP);
    EQ(ferry_cf_create(s, "a", 0, lz4, FERRY_CFOPT_COUNT + 1, NULL, &cf, &err), FERRY_EINVAL);
    EQ(ferry_cf_create(s, "a", FERRY_CF_DUPSORT, none, FERRY_CFOPT_COUNT, "", &cf, &err), FERRY_OK);
    EQ(ferry_cf_flags(s, cf, &flags, &err), FERRY_OK);
    EQ(flags, FERRY_CF_DUPSORT);
    /* read flags mean nothing to LMDB: the reads answer as without them */
    char v[8];
    size_t vlen = 0;
    EQ(put_s(s, cf, "k", "v"), FERRY_OK);
    EQ(ferry_get(s, NULL, cf, "k", 1, FERRY_CURSOR_NO_FILL_CACHE | FERRY_CURSOR_NO_VERIFY_CHECKSUMS, v, sizeof v, &vlen,
                  &err), FERRY_OK);
    EQ(vlen == 1 && v[0] == 'v', 1);
    EQ(ferry_get(s, NULL, cf, "k", 1, FERRY_CURSOR_POINTERS, v, sizeof v, &vlen, &err), FERRY_EINVAL);
    EQ(ferry_store_close(s), FERRY_OK);
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    uint8_t rec[128];
    uint32_t nl = 1, el = 0;
    memcpy(rec, &nl, 4);
    memcpy(rec + 4, &el, 4);
    memcpy(rec + 8, lz4, sizeof lz4);
    rec[FERRY_CFDESC_HEADER] = 'a';
    s = NULL;
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts"), o, FERRY_OPT_COUNT, NULL, rec, FERRY_CFDESC_HEADER + 1, 1,
                         &s, &err), FERRY_ENOTSUP);
    EQ(s == NULL, 1);
    o[FERRY_OPT_CREATE_IF_MISSING] = 0;   /* a missing store is NOTFOUND before the records are judged */
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts-missing"), o, FERRY_OPT_COUNT, NULL, rec,
                         FERRY_CFDESC_HEADER + 1, 1, &s, &err), FERRY_NOTFOUND);
    o[FERRY_OPT_CREATE_IF_MISSING] = -1;
    memcpy(rec + 8, none, sizeof none);
    EQ(ferry_store_open(FERRY_ENGINE_LMDB, dir_of("cfopts"), o, FERRY_OPT_COUNT, NULL, rec, FERRY_CFDESC_HEADER + 1, 1,
                         &s, &err), FERRY_OK);
    EQ(ferry_store_close(s), FERRY_OK);
}

void test_shared_memory_refused(void)
{
    int64_t o[FERRY_OPT_COUNT];
    int rc;
    int64_t fake = 0;
    opts_init(o);
    o[FERRY_OPT_BLOCK_CACHE] = (int64_t)(intptr_t)&fake;
    ferry_store *s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    CHECK(s == NULL && strstr(err.message, "RocksDB's") != NULL, "%s", err.message);
    opts_init(o);
    o[FERRY_OPT_WRITE_BUFFER_MANAGER] = (int64_t)(intptr_t)&fake;
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_CACHE_INDEX_AND_FILTER] = 1;
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_EINVAL);
    opts_init(o);
    o[FERRY_OPT_CACHE_INDEX_AND_FILTER] = 0;   /* off: accepted */
    s = open_with("shared", o, &rc);
    EQ(rc, FERRY_OK);
    ferry_store_close(s);
    ferry_cache *c = NULL;
    /* no RocksDB attached in this program */
    EQ(ferry_cache_create(1 << 20, 0, -1, &c, &err), FERRY_ENOENGINE);
    CHECK(c == NULL);
    EQ(ferry_cache_close((ferry_cache *)(void *)&fake, &err), FERRY_EINVAL);
    EQ(ferry_wbm_close((ferry_wbm *)(void *)&fake, &err), FERRY_EINVAL);
}
