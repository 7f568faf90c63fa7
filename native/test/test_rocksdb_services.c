/* RocksDB services (ferry.h "RocksDB services"): the WAL read back as write batches. */
#include "test_rocksdb.h"

/* RocksDB's fixed32/fixed64: little-endian whatever the host's order */
static uint32_t le_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le_u64(const uint8_t *p)
{
    return (uint64_t)le_u32(p) | (uint64_t)le_u32(p + 4) << 32;
}

/* The WAL gives back the batches written since a sequence number, each with its first sequence
 * number and RocksDB's own rep; a sequence number no longer in the WAL is FERRY_NOTFOUND. */
void test_wal(void)
{
    ferry_store *s = NULL;
    CHECK_RC(open_store("wal", &s), FERRY_OK);
    if (!s) return;
    uint64_t latest = 99;
    CHECK_RC(ferry_latest_sequence(s, &latest, &err), FERRY_OK);
    CHECK(latest == 0, "latest %llu", (unsigned long long)latest);
    ferry_wal *w = NULL;
    CHECK_RC(ferry_wal_open(s, 1, &w, &err), FERRY_OK);     /* nothing written yet: ends at once */
    uint8_t buf[256];
    uint64_t seq = 0;
    size_t len = 0;
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_wal_close(w), FERRY_OK);
    CHECK_RC(put_s(s, 0, "a", "1"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "b", "2"), FERRY_OK);
    uint8_t ops[128];
    size_t off = rec(ops, 0, FERRY_OP_PUT, 0, "c", "3");
    off = rec(ops, off, FERRY_OP_DELETE, 0, "a", NULL);
    CHECK_RC(ferry_write(s, ops, off, 2, 0, &err), FERRY_OK);
    CHECK_RC(ferry_latest_sequence(s, &latest, &err), FERRY_OK);
    CHECK(latest == 4, "latest %llu", (unsigned long long)latest);
    uint32_t id = 9;
    CHECK_RC(ferry_cf_engine_id(s, 0, &id, &err), FERRY_OK);
    CHECK(id == 0, "default family's id %u", id);
    CHECK_RC(ferry_wal_open(s, 2, &w, &err), FERRY_OK);
    CHECK_RC(ferry_wal_next(w, buf, 4, &seq, &len, &err), FERRY_ETOOSMALL);
    CHECK(seq == 2 && len > 12, "seq %llu len %zu", (unsigned long long)seq, len);
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_OK);
    /* the rep's header is little-endian on every platform (ferry.h): read it byte by byte */
    uint64_t hseq = le_u64(buf);
    uint32_t hcount = le_u32(buf + 8);
    CHECK(seq == 2 && hseq == 2 && hcount == 1 && buf[12] == 1 /* kTypeValue */ && buf[13] == 1 && buf[14] == 'b',
          "seq %llu count %u", (unsigned long long)hseq, hcount);
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_OK);
    hcount = le_u32(buf + 8);
    CHECK(seq == 3 && hcount == 2, "seq %llu count %u", (unsigned long long)seq, hcount);
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_wal_close(w), FERRY_OK);
    CHECK_RC(ferry_wal_open(s, 100, &w, &err), FERRY_OK);   /* beyond the latest: ends at once */
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_NOTFOUND);
    CHECK_RC(ferry_wal_close(w), FERRY_OK);
    /* a flush lets RocksDB delete the WAL file: its sequence numbers are gone */
    CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    CHECK_RC(put_s(s, 0, "d", "4"), FERRY_OK);
    CHECK_RC(ferry_wal_open(s, 1, &w, &err), FERRY_NOTFOUND);
    CHECK(w == NULL && strstr(err.message, "no longer in the WAL") != NULL, "%s", err.message);
    CHECK_RC(ferry_wal_open(s, 5, &w, &err), FERRY_OK);
    CHECK_RC(ferry_wal_next(w, buf, sizeof buf, &seq, &len, &err), FERRY_OK);
    CHECK(seq == 5, "seq %llu", (unsigned long long)seq);
    CHECK_RC(ferry_wal_close(w), FERRY_OK);
    CHECK_RC(ferry_wal_next(NULL, buf, sizeof buf, &seq, &len, &err), FERRY_EINVAL);
    CHECK_RC(ferry_wal_open(NULL, 1, &w, &err), FERRY_EINVAL);
    CHECK_RC(ferry_latest_sequence(s, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_cf_engine_id(s, 7, &id, &err), FERRY_EINVAL);
    CHECK_RC(ferry_wal_close(NULL), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}

/* Rate limiters and SST file managers: held by the stores that name them, refused to close while held,
 * checked at store open. */
void test_shared_services(void)
{
    ferry_rate_limiter *l = NULL;
    CHECK_RC(ferry_rate_limiter_create(0, 100000, 10, &l, &err), FERRY_EINVAL);
    CHECK_RC(ferry_rate_limiter_create(1 << 20, 100000, 101, &l, &err), FERRY_EINVAL);
    CHECK_RC(ferry_rate_limiter_create(1 << 20, 100000, 10, &l, &err), FERRY_OK);
    ferry_sst_manager *m = NULL;
    int have_sfm = ferry_sst_manager_create(0, 0, &m, &err) == FERRY_OK;
    if (!have_sfm) CHECK(err.code == FERRY_ENOTSUP && strstr(err.message, "10.1.3") != NULL, "%s", err.message);
    int64_t o[FERRY_OPT_COUNT];
    for (int i = 0; i < FERRY_OPT_COUNT; i++) o[i] = -1;
    o[FERRY_OPT_RATE_LIMITER] = (int64_t)(intptr_t)l;
    if (have_sfm) o[FERRY_OPT_SST_FILE_MANAGER] = (int64_t)(intptr_t)m;
    ferry_store *s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("services"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err),
             FERRY_OK);
    uint32_t stores = 0;
    CHECK_RC(ferry_rate_limiter_usage(l, &stores, &err), FERRY_OK);
    CHECK(stores == 1, "stores %u", stores);
    CHECK_RC(ferry_rate_limiter_close(l, &err), FERRY_EBUSY);
    if (s) {
        CHECK_RC(put_s(s, 0, "a", "1"), FERRY_OK);
        CHECK_RC(ferry_flush(s, 0, &err), FERRY_OK);
    }
    if (have_sfm) {
        uint64_t size = 0;
        uint32_t reached = 9;
        CHECK_RC(ferry_sst_manager_usage(m, &size, &reached, &stores, &err), FERRY_OK);
        CHECK(size > 0 && reached == 0 && stores == 1, "size %llu reached %u stores %u", (unsigned long long)size, reached,
              stores);
        CHECK_RC(ferry_sst_manager_close(m, &err), FERRY_EBUSY);
    }
    CHECK_RC(ferry_store_close(s), FERRY_OK);
    CHECK_RC(ferry_rate_limiter_usage(l, &stores, &err), FERRY_OK);
    CHECK(stores == 0, "stores %u", stores);
    CHECK_RC(ferry_rate_limiter_close(l, &err), FERRY_OK);
    CHECK_RC(ferry_rate_limiter_usage(l, &stores, &err), FERRY_EINVAL);
    if (have_sfm) CHECK_RC(ferry_sst_manager_close(m, &err), FERRY_OK);
    /* a closed limiter is refused by a store open */
    s = NULL;
    CHECK_RC(ferry_store_open(FERRY_ENGINE_ROCKSDB, dir("services2"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err),
             FERRY_EINVAL);
    CHECK(s == NULL, "opened");
    CHECK_RC(ferry_store_open(FERRY_ENGINE_LMDB, dir("services3"), o, FERRY_OPT_COUNT, NULL, NULL, 0, 0, &s, &err),
             FERRY_EINVAL);
}

/* PerfContext: the calling thread's counters by RocksDB's names, zeroed by a reset, counting at a level. */
void test_perf(void)
{
    CHECK_RC(ferry_perf_level(0, &err), FERRY_EINVAL);
    CHECK_RC(ferry_perf_level(5, &err), FERRY_EINVAL);
    CHECK_RC(ferry_perf_level(FERRY_PERF_COUNT, &err), FERRY_OK);
    CHECK_RC(ferry_perf_reset(&err), FERRY_OK);
    ferry_store *s = NULL;
    CHECK_RC(open_store("perf", &s), FERRY_OK);
    if (!s) return;
    char buf[16];
    CHECK_RC(put_s(s, 0, "a", "1"), FERRY_OK);
    CHECK_RC(put_s(s, 0, "b", "2"), FERRY_OK);
    CHECK_RC(get_s(s, NULL, 0, "a", buf, sizeof buf), FERRY_OK);
    size_t len = 0;
    CHECK_RC(ferry_perf_report(NULL, 0, &len, &err), FERRY_ETOOSMALL);
    char *text = malloc(len + 1);
    CHECK_RC(ferry_perf_report(text, len, &len, &err), FERRY_OK);
    text[len] = '\0';
    CHECK(strstr(text, "user_key_comparison_count = ") != NULL && strstr(text, "user_key_comparison_count = 0,") == NULL,
          "%.200s", text);
    CHECK_RC(ferry_perf_reset(&err), FERRY_OK);
    CHECK_RC(ferry_perf_report(text, len, &len, &err), FERRY_OK);
    text[len < 1 ? 0 : len] = '\0';
    CHECK(strstr(text, "user_key_comparison_count = 0,") != NULL, "%.200s", text);
    free(text);
    CHECK_RC(ferry_perf_report(NULL, 0, NULL, &err), FERRY_EINVAL);
    CHECK_RC(ferry_perf_level(FERRY_PERF_DISABLE, &err), FERRY_OK);
    CHECK_RC(ferry_store_close(s), FERRY_OK);
}
