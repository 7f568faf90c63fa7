/* Shared by the native tests of the RocksDB engine, one program (test_rocksdb) in several files:
 * test_rocksdb.c holds the harness (counters, CHECK/CHECK_RC), the helpers every section uses and main;
 * test_rocksdb_<section>.c hold the tests, each declared here. */
#ifndef FERRY_TEST_ROCKSDB_H
#define FERRY_TEST_ROCKSDB_H

#include "ferry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LSAN_DISABLE() __lsan_disable()
#define LSAN_ENABLE() __lsan_enable()
#else
#define LSAN_DISABLE() ((void)0)
#define LSAN_ENABLE() ((void)0)
#endif

/* ---- harness (test_rocksdb.c) ---- */

extern int passed, failed;   /* assertions so far */
extern ferry_error err;      /* the error struct every call fills */
extern char scratch[4096];   /* the scratch directory of this run */
extern const char *libpath;  /* librocksdbjni */
/* FERRY_OPT_TRANSACTIONS of the stores open_store opens (the main tests run in every mode) */
extern int txn_mode;

#define CHECK(cond, ...) do { \
    if (cond) passed++; \
    else { failed++; printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); printf(__VA_ARGS__); printf("\n"); } \
} while (0)
#define CHECK_RC(call, want) do { \
    int rc_ = (call); \
    CHECK(rc_ == (want), "rc %d (%s), want %d; %s", rc_, ferry_strerror(rc_), (want), err.message); \
} while (0)

/* ---- helpers (test_rocksdb.c) ---- */

typedef struct hdr { uint32_t count, flags; uint64_t used; } hdr;

void run(const char *cmd);
const char *dir(const char *name);
int open_store(const char *name, ferry_store **s);
int put_s(ferry_store *s, uint32_t cf, const char *k, const char *v);
int get_s(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *k, char *buf, size_t cap);
hdr page_hdr(const uint8_t *p);
size_t page_entry(const uint8_t *p, size_t off, const uint8_t **k, uint32_t *kl, const uint8_t **v, uint32_t *vl);
int scan(ferry_cursor *c, int first, const void *key, size_t klen, int cont, size_t cap,
         uint32_t max, char *out, size_t outcap);
size_t rec(uint8_t *b, size_t off, uint32_t op, uint32_t cf, const char *a, const char *bb);

/* ---- tests, in the order main runs them ---- */

void test_discovery(void);                             /* test_rocksdb.c */
void test_no_c_api(const char *fake);
void test_attach(void);
void test_txn(void);                                   /* test_rocksdb_txn.c */
void test_txn_savepoints(void);
void test_empty_and_one(ferry_store *s);               /* test_rocksdb_reads.c: in each txn_mode */
void test_big_entry(ferry_store *s, uint32_t cf);
void test_many(ferry_store *s, uint32_t cf);
void test_binary(ferry_store *s, uint32_t cf);
void test_get_multi(ferry_store *s);
void test_write(ferry_store *s, uint32_t cf);
void test_snapshot(ferry_store *s);
void test_props(ferry_store *s);
void test_empty_ranges(void);                          /* test_rocksdb_families.c */
void test_refused_options(void);
void test_drop_while_writing(void);
void test_families(void);
void test_family_churn(void);
void test_snapshot_families(void);
void test_open_options(void);
void test_checkpoint(void);                            /* test_rocksdb_admin.c */
void test_backups(void);
void test_lmdb_only_flags(void);                       /* test_rocksdb_families.c */
void test_merge(void);                                 /* test_rocksdb_admin.c */
void test_read_only_compacted(void);
void test_read_only_beside_writer(void);
void test_cf_options(void);                            /* test_rocksdb_families.c */
void test_sst(void);                                   /* test_rocksdb_admin.c */
void test_rocksjava(void);                             /* test_rocksdb_interop.c */
void test_shared_memory(void);                         /* test_rocksdb_admin.c */
void test_split_points(void);                          /* test_rocksdb_txn.c */
void test_key_order(void);                             /* test_rocksdb_order.c */
void test_key_order_txn(void);
void test_ttl(void);                                  /* test_rocksdb_ttl.c */
void test_ttl_store(void);
void test_secondary(void);
void test_wal(void);                                  /* test_rocksdb_services.c */
void test_shared_services(void);
void test_perf(void);
void test_pointer_pages(void);                         /* test_rocksdb_pinned.c */

#endif
