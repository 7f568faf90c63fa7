/* LMDB engine tests: writes and batches, empty ranges, and the races of reads and writes with family
 * drops and commits. Part of test_lmdb (test_lmdb.h). */
#include "test_lmdb.h"

void test_writes(void)
{
    ferry_store *s = open_store("writes");
    char buf[64], longk[600];
    memset(longk, 'x', sizeof longk);
    /* key size checks */
    EQ(ferry_put(s, 0, longk, 512, "v", 1, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "512 bytes exceeds LMDB's maximum of 511") != NULL, "%s", err.message);
    EQ(ferry_put(s, 0, longk, 511, "v", 1, 0, &err), FERRY_OK);
    EQ(ferry_put(s, 0, NULL, 0, "v", 1, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_put(s, 0, "", 0, "v", 1, 0, &err), FERRY_EKEYSIZE);
    EQ(ferry_delete(s, 0, longk, 512, &err), FERRY_EKEYSIZE);
    EQ(ferry_delete(s, 0, "absent", 6, &err), FERRY_OK);
    EQ(ferry_delete(s, 0, longk, 511, &err), FERRY_OK);
    EQ(ferry_get(s, NULL, 0, longk, 511, 0, buf, sizeof buf, &(size_t){ 0 }, &err), FERRY_NOTFOUND);
    /* no merge operators, no SST ingestion */
    EQ(ferry_merge(s, 0, "m", 1, "v", 1, &err), FERRY_ENOTSUP);
    CHECK(strstr(err.message, "LMDB") != NULL, "%s", err.message);
    EQ(ferry_ingest(s, 0, "x.sst", 6, 1, 0, &err), FERRY_ENOTSUP);

    /* a merge record fails the whole batch */
    {
        uint8_t mb[64];
        size_t ml = rec(mb, 0, FERRY_OP_PUT, 0, "mp", 2, "v", 1);
        ml = rec(mb, ml, FERRY_OP_MERGE, 0, "mm", 2, "v", 1);
        EQ(ferry_write(s, mb, ml, 2, 0, &err), FERRY_ENOTSUP);
        EQ(ferry_get(s, NULL, 0, "mp", 2, 0, buf, sizeof buf, &(size_t){ 0 }, &err), FERRY_NOTFOUND);
    }

    /* batch atomicity: the last record's key is too long -> nothing applied */
    uint32_t fam;
    EQ(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &fam, &err), FERRY_OK);
    uint8_t b[4096];
    size_t len = 0;
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    len = rec(b, len, FERRY_OP_PUT, fam, "b2", 2, "two", 3);
    len = rec(b, len, FERRY_OP_PUT, 0, longk, 600, "x", 1);
    EQ(ferry_write(s, b, len, 3, 0, &err), FERRY_EKEYSIZE);
    CHECK(strstr(err.message, "record 2") != NULL, "%s", err.message);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, fam, "b2", buf, sizeof buf), FERRY_NOTFOUND);
    /* an engine failure mid-batch (a put over the key naming family "fam") aborts it all */
    len = 0;
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    len = rec(b, len, FERRY_OP_PUT, fam, "b2", 2, "two", 3);
    len = rec(b, len, FERRY_OP_PUT, 0, "fam", 3, "clobber", 7);
    CHECK(ferry_write(s, b, len, 3, 0, &err) < 0, "%s", err.message);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    EQ(get_s(s, NULL, fam, "b2", buf, sizeof buf), FERRY_NOTFOUND);
    /* malformed batches */
    len = rec(b, 0, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len - 1, 1, 0, &err), FERRY_EINVAL);
    EQ(ferry_write(s, b, len, 2, 0, &err), FERRY_EINVAL);
    EQ(ferry_write(s, b, 10, 1, 0, &err), FERRY_EINVAL);
    len = rec(b, 0, 9, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 1, 0, &err), FERRY_EINVAL);
    len = rec(b, 0, FERRY_OP_PUT, 99, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 1, 0, &err), FERRY_EINVAL);
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), FERRY_NOTFOUND);
    /* a good batch: put, delete, delete range */
    len = 0;
    char k[8];
    for (int i = 0; i < 10; i++) { snprintf(k, sizeof k, "r%d", i); len = rec(b, len, FERRY_OP_PUT, fam, k, 2, "v", 1); }
    len = rec(b, len, FERRY_OP_DELETE, fam, "r9", 2, NULL, 0);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "r1", 2, "r3", 2);
    len = rec(b, len, FERRY_OP_PUT, 0, "b1", 2, "one", 3);
    EQ(ferry_write(s, b, len, 13, 0, &err), FERRY_OK);
    EQ(ferry_write(s, b, 0, 0, 0, &err), FERRY_OK);
    uint64_t n;
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 7); /* r0 r3 r4 r5 r6 r7 r8 */
    EQ(get_s(s, NULL, 0, "b1", buf, sizeof buf), 3);
    /* delete_range [r4, r7) */
    EQ(ferry_delete_range(s, fam, "r4", 2, "r7", 2, &err), FERRY_OK);
    ferry_cursor *c;
    EQ(ferry_cursor_open(s, NULL, fam, NULL, 0, NULL, 0, 0, &c, &err), FERRY_OK);
    scan sc = scan_all(c, FERRY_FIRST, NULL, 0, 4096, 100);
    CHECK(strcmp(sc.text, "r0=v,r3=v,r7=v,r8=v,") == 0, "%s", sc.text);
    free(sc.text);
    ferry_cursor_close(c);
    EQ(ferry_delete_range(s, fam, "r3", 2, "\xff", 1, &err), FERRY_OK);
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 1);
    EQ(ferry_delete_range(s, fam, NULL, 0, "\xff", 1, &err), FERRY_OK); /* empty begin: the smallest key */
    EQ(ferry_property_int(s, fam, "lmdb.entries", &n, &err), FERRY_OK);
    EQ(n, 0);
    EQ(ferry_flush(s, 0, &err), FERRY_OK);
    EQ(ferry_compact_range(s, 0, NULL, 0, NULL, 0, &err), FERRY_OK);
    ferry_store_close(s);
}

/* Keys of family cf in order, "k,k,...," (at most cap bytes). */
static const char *keys_of(ferry_store *s, uint32_t cf)
{
    static char out[1024];
    ferry_cursor *c;
    out[0] = '\0';
    if (ferry_cursor_open(s, NULL, cf, NULL, 0, NULL, 0, 0, &c, &err) != FERRY_OK) return "(cursor failed)";
    uint8_t page[4096];
    entry e[128];
    uint32_t flags;
    if (ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 128, &err) >= 0) {
        uint32_t n = parse_page(page, e, &flags);
        size_t len = 0;
        for (uint32_t i = 0; i < n && len + e[i].klen + 2 < sizeof out; i++) {
            memcpy(out + len, e[i].k, e[i].klen);
            len += e[i].klen;
            out[len++] = ',';
            out[len] = '\0';
        }
    }
    ferry_cursor_close(c);
    return out;
}

/* [begin, end) with begin >= end in unsigned byte order is empty: a no-op, alone or in a
 * batch, whatever the end's pointer (an empty end is the empty key, not an open bound). */
void test_empty_ranges(void)
{
    ferry_store *s = open_store("empty-ranges");
    uint32_t fam;
    EQ(ferry_cf_create(s, "fam", 0, NULL, 0, NULL, &fam, &err), FERRY_OK);
    const char *ks[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) {
        EQ(put_s(s, 0, ks[i], "v"), FERRY_OK);
        EQ(put_s(s, fam, ks[i], "v"), FERRY_OK);
    }
    for (int f = 0; f < 2; f++) {
        uint32_t cf = f ? fam : 0;
        const char *all = f ? "a,b,c,d," : "a,b,c,d,fam,";
        EQ(ferry_delete_range(s, cf, "c", 1, "a", 1, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "reversed range: %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, NULL, 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "[b, NULL): %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, "", 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "[b, \"\"): %s", keys_of(s, cf));
        EQ(ferry_delete_range(s, cf, "b", 1, "b", 1, &err), FERRY_OK);
        EQ(ferry_delete_range(s, cf, "bb", 2, "b", 1, &err), FERRY_OK);
        EQ(ferry_delete_range(s, cf, NULL, 0, NULL, 0, &err), FERRY_OK);
        CHECK(strcmp(keys_of(s, cf), all) == 0, "empty ranges: %s", keys_of(s, cf));
    }
    /* in a batch: the empty ranges are skipped, the other records applied */
    uint8_t b[512];
    size_t len = 0;
    len = rec(b, len, FERRY_OP_PUT, fam, "e", 1, "v", 1);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "c", 1, "a", 1);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, fam, "b", 1, NULL, 0);
    len = rec(b, len, FERRY_OP_DELETE_RANGE, 0, "a", 1, NULL, 0);
    len = rec(b, len, FERRY_OP_PUT, fam, "f", 1, "v", 1);
    EQ(ferry_write(s, b, len, 5, 0, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "a,b,c,d,e,f,") == 0, "batch: %s", keys_of(s, fam));
    CHECK(strcmp(keys_of(s, 0), "a,b,c,d,fam,") == 0, "batch: %s", keys_of(s, 0));
    /* a cursor below the empty key sees nothing; a NULL bound is no bound */
    ferry_cursor *cur;
    uint8_t page[256];
    EQ(ferry_cursor_open(s, NULL, fam, NULL, 0, "", 0, 0, &cur, &err), FERRY_OK);
    EQ(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 0);
    EQ(ferry_cursor_fill(cur, FERRY_LAST, NULL, 0, page, sizeof page, 10, &err), 0);
    EQ(ferry_cursor_fill(cur, FERRY_SEEK_GE, "a", 1, page, sizeof page, 10, &err), 0);
    ferry_cursor_close(cur);
    EQ(ferry_cursor_open(s, NULL, fam, "", 0, NULL, 0, 0, &cur, &err), FERRY_OK);
    EQ(ferry_cursor_fill(cur, FERRY_FIRST, NULL, 0, page, sizeof page, 10, &err), 6);
    ferry_cursor_close(cur);
    /* an empty begin is the smallest key */
    EQ(ferry_delete_range(s, fam, NULL, 0, "c", 1, &err), FERRY_OK);
    CHECK(strcmp(keys_of(s, fam), "c,d,e,f,") == 0, "[\"\", c): %s", keys_of(s, fam));
    ferry_store_close(s);
}

typedef struct race_arg { ferry_store *s; uint32_t cf; int last_rc; long puts; } race_arg;

/* Put (alternately through ferry_put and ferry_write) into one family until a call fails. */
static void *put_until_dropped(void *p)
{
    race_arg *a = p;
    ferry_error e;
    char k[32];
    for (long i = 0;; i++) {
        snprintf(k, sizeof k, "k%ld", i % 64);
        if (i & 1) {
            uint8_t b[64];
            size_t n = rec(b, 0, FERRY_OP_PUT, a->cf, k, (uint32_t)strlen(k), "w", 1);
            a->last_rc = ferry_write(a->s, b, n, 1, 0, &e);
        } else {
            a->last_rc = ferry_put(a->s, a->cf, k, strlen(k), "v", 1, 0, &e);
        }
        if (a->last_rc != FERRY_OK) return NULL;
        __atomic_store_n(&a->puts, i + 1, __ATOMIC_RELAXED);
    }
}

/* A family dropped while another thread writes to it, then a new family created at once (LMDB
 * hands the new one the dropped one's handle number): the writer gets FERRY_ECFDROPPED and
 * none of its writes lands in the new family. */
void test_drop_while_writing(void)
{
    int64_t o[FERRY_OPT_COUNT];
    opts_init(o);
    o[FERRY_OPT_LMDB_FLAGS] = FERRY_LMDB_NOSYNC;
    ferry_store *s = open_with("drop-race", o, NULL);
    if (!s) { CHECK(0, "open: %s", err.message); return; }
    uint32_t fresh;
    EQ(ferry_cf_create(s, "fresh0", 0, NULL, 0, NULL, &fresh, &err), FERRY_OK);
    int bad = 0;
    for (int round = 1; round <= 60 && !bad; round++) {
        char name[32];
        race_arg a = { s, fresh, 0, 0 };
        pthread_t t;
        pthread_create(&t, NULL, put_until_dropped, &a);
        while (__atomic_load_n(&a.puts, __ATOMIC_RELAXED) < 1 + round % 5) plat_yield();
        EQ(ferry_cf_drop(s, a.cf, &err), FERRY_OK);
        snprintf(name, sizeof name, "fresh%d", round);
        EQ(ferry_cf_create(s, name, 0, NULL, 0, NULL, &fresh, &err), FERRY_OK);
        pthread_join(t, NULL);
        const char *got = keys_of(s, fresh);
        bad = a.last_rc != FERRY_ECFDROPPED || got[0] != '\0';
        CHECK(a.last_rc == FERRY_ECFDROPPED, "round %d: writer stopped with %d", round, a.last_rc);
        CHECK(got[0] == '\0', "round %d: writes to the dropped family landed in the new one: %s", round, got);
    }
    ferry_store_close(s);
}

typedef struct read_race {
    ferry_store *s;
    uint32_t cf;          /* the family to read, published by the main thread */
    int stop;
    long reads;
    int bad_rc;           /* the first unexpected return code, 0 when none */
    char bad_msg[256];
} read_race;

/* Read one family in every way that looks its handle up (get, multi-get, cursor open and fill,
 * stat) until told to stop; anything but ok, not found or dropped is a failure. */
static void *read_until_stopped(void *p)
{
    read_race *a = p;
    ferry_error e;
    char buf[64];
    uint8_t page[4096];
    for (long i = 0; !__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE); i++) {
        uint32_t cf = __atomic_load_n(&a->cf, __ATOMIC_ACQUIRE);
        int rc;
        size_t vlen;
        switch (i % 4) {
        case 0:
            rc = ferry_get(a->s, NULL, cf, "k", 1, 0, buf, sizeof buf, &vlen, &e);
            break;
        case 1: {
            uint8_t keys[8] = { 0, 0, 0, 0, 'k' };
            uint32_t one = 1; /* the key record's u32 length: native order */
            memcpy(keys, &one, 4);
            int64_t lens[1];
            rc = ferry_multi_get(a->s, NULL, cf, 1, keys, 5, 0, buf, sizeof buf, lens, &e);
            if (rc == 1) rc = FERRY_OK;
            break;
        }
        case 2: {
            ferry_cursor *c;
            rc = ferry_cursor_open(a->s, NULL, cf, NULL, 0, NULL, 0, FERRY_CURSOR_POINTERS, &c, &e);
            if (rc == FERRY_OK) {
                rc = ferry_cursor_fill(c, FERRY_FIRST, NULL, 0, page, sizeof page, 16, &e);
                if (rc >= 0) rc = FERRY_OK;
                ferry_cursor_close(c);
            }
            break;
        }
        default: {
            uint64_t n;
            rc = ferry_property_int(a->s, cf, "lmdb.entries", &n, &e);
        }
        }
        if (rc != FERRY_OK && rc != FERRY_NOTFOUND && rc != FERRY_ECFDROPPED && !a->bad_rc) {
            a->bad_rc = rc;
            snprintf(a->bad_msg, sizeof a->bad_msg, "%.200s", e.message);
        }
        __atomic_add_fetch(&a->reads, 1, __ATOMIC_RELAXED); /* both readers count: a plain store of i + 1 could go back */
    }
    return NULL;
}

/* Families created and dropped (under one name, so LMDB reuses the handle number and the name's
 * memory) while two threads read them: a read sees the family or "dropped", never another
 * error, and nobody reads the name LMDB freed (a crash; ASan sees the free, not LMDB's read). */
void test_drop_while_reading(void)
{
    ferry_store *s = open_store("drop-read");
    if (!s) return;
    read_race a = { s, 0, 0, 0, 0, "" };
    uint32_t cf;
    EQ(ferry_cf_create(s, "churn", 0, NULL, 0, NULL, &cf, &err), FERRY_OK);
    EQ(put_s(s, cf, "k", "v"), FERRY_OK);
    __atomic_store_n(&a.cf, cf, __ATOMIC_RELEASE);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, read_until_stopped, &a);
    int rounds = 300, ok = 1;
    for (int r = 0; r < rounds && ok; r++) {
        while (__atomic_load_n(&a.reads, __ATOMIC_RELAXED) < r * 4) plat_yield();
        ok = ferry_cf_drop(s, cf, &err) == FERRY_OK && ferry_cf_create(s, "churn", 0, NULL, 0, NULL, &cf, &err) == FERRY_OK
             && put_s(s, cf, "k", "v") == FERRY_OK;
        __atomic_store_n(&a.cf, cf, __ATOMIC_RELEASE);
    }
    CHECK(ok, "drop/create failed: %s", err.message);
    __atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(a.bad_rc == 0, "a read racing a drop failed with %d: %s", a.bad_rc, a.bad_msg);
    CHECK(a.reads >= rounds, "readers made %ld reads", a.reads);
    ferry_store_close(s);
}

/* Reads racing commits: each reader's gets and snapshots must never see the counter go back.
 * LMDB 0.9 begins a read transaction by reading the last transaction id and then the meta page
 * of that id's parity; a reader descheduled in between can copy the meta of a transaction two
 * commits later, which was not yet published, and its next read, begun after, sees the commit
 * before it: a value going back. The engine retries a read begin that two commit steps
 * overlapped (see read_acquire). */
typedef struct counter_race {
    ferry_store *s;
    int stop;
    int started;
    long reads;
    int went_back;
    uint64_t seen, then;
} counter_race;

static uint64_t read_counter(ferry_store *s, ferry_snapshot *snap, int *rc)
{
    uint64_t v = 0;
    size_t vlen = 0;
    ferry_error e;
    *rc = ferry_get(s, snap, 0, "n", 1, 0, &v, sizeof v, &vlen, &e);
    return v;
}

static void *read_counter_until_stopped(void *arg)
{
    counter_race *a = arg;
    uint64_t last = 0;
    __atomic_add_fetch(&a->started, 1, __ATOMIC_ACQ_REL);
    for (long i = 0; !__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE); i++) {
        int rc;
        ferry_snapshot *snap = NULL;
        ferry_error e;
        if ((i & 7) == 7 && ferry_snapshot_open(a->s, &snap, &e) != FERRY_OK) snap = NULL;
        uint64_t v = read_counter(a->s, snap, &rc);
        if (snap) ferry_snapshot_close(snap);
        if (rc == FERRY_OK && v < last && !__atomic_exchange_n(&a->went_back, 1, __ATOMIC_ACQ_REL)) {
            a->seen = last;
            a->then = v;
        }
        if (rc == FERRY_OK && v > last) last = v;
        __atomic_add_fetch(&a->reads, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

void test_reads_never_go_back(void)
{
    ferry_store *s = open_store("go-back");
    if (!s) return;
    counter_race a = { s, 0, 0, 0, 0, 0, 0 };
    enum { READERS = 6 };
    pthread_t t[READERS];
    uint64_t n = 0;
    EQ(ferry_put(s, 0, "n", 1, &n, sizeof n, 0, &err), FERRY_OK);
    for (int i = 0; i < READERS; i++) pthread_create(&t[i], NULL, read_counter_until_stopped, &a);
    int ok = 1;
    /* 20,000 commits; 35 s of the test under qemu-user, where ctest sets FERRY_TEST_RACE_COMMITS
     * lower (native/test/CMakeLists.txt). */
    const char *env = getenv("FERRY_TEST_RACE_COMMITS");
    const uint64_t COMMITS = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 20000;
    /* The race needs readers running while the commits go on: wait until every reader has started, and
     * on a loaded machine (where the commits can outrun descheduled readers) go on committing past
     * COMMITS until the readers have made 1,000 reads, up to 50 times COMMITS. */
    while (__atomic_load_n(&a.started, __ATOMIC_ACQUIRE) < READERS) sched_yield();
    for (n = 1; ok && !__atomic_load_n(&a.went_back, __ATOMIC_ACQUIRE)
                && (n <= COMMITS || (__atomic_load_n(&a.reads, __ATOMIC_RELAXED) <= 1000 && n <= 50 * COMMITS)); n++)
        ok = ferry_put(s, 0, "n", 1, &n, sizeof n, 0, &err) == FERRY_OK;
    CHECK(ok, "put failed: %s", err.message);
    __atomic_store_n(&a.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++) pthread_join(t[i], NULL);
    CHECK(!a.went_back, "a reader saw the counter at %llu, then at %llu", (unsigned long long)a.seen,
          (unsigned long long)a.then);
    CHECK(a.reads > 1000, "readers made %ld reads", a.reads);
    ferry_store_close(s);
}
