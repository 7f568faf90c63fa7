/* Shared by the native tests of the LMDB engine, one program (test_lmdb) in several files:
 * test_lmdb.c holds the harness (counters, CHECK/EQ), the helpers every section uses and main;
 * test_lmdb_<section>.c hold the tests, each declared here. */
#ifndef FERRY_TEST_LMDB_H
#define FERRY_TEST_LMDB_H

#include "ferry.h"
#include "lmdb_api.h"
#include "test_files.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- harness (test_lmdb.c) ---- */

extern int passed, failed;   /* assertions so far */
extern ferry_error err;      /* the error struct every call fills */
extern const char *scratch;  /* the scratch directory of this run */

#define CHECK(cond, ...) check_((cond), __FILE__, __LINE__, #cond, "" __VA_ARGS__)
#define EQ(a, b) eq_((long long)(a), (long long)(b), __FILE__, __LINE__, #a " == " #b)

void check_(int ok, const char *file, int line, const char *expr, const char *fmt, ...);
void eq_(long long a, long long b, const char *file, int line, const char *expr);

/* ---- helpers (test_lmdb.c) ---- */

typedef struct entry { const uint8_t *k, *v; uint32_t klen, vlen; } entry;
/* A whole scan, its entries copied out: "key=value" strings joined by ','. */
typedef struct scan { char *text; size_t len, cap; int n, pages, err; } scan;

#define NMANY 1000

char *dir_of(const char *name);
void opts_init(int64_t *o);
ferry_store *open_with(const char *name, const int64_t *o, int *rc_out);
ferry_store *open_store(const char *name);
int put_s(ferry_store *s, uint32_t cf, const char *k, const char *v);
int get_s(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const char *k, char *dst, size_t cap);
uint32_t parse_page(const uint8_t *page, entry *out, uint32_t *flags);
uint64_t page_used(const uint8_t *page);
void scan_add(scan *sc, const entry *e);
scan scan_all(ferry_cursor *c, int op, const void *key, size_t klen, size_t page_cap, uint32_t max);
int first_key_is(ferry_cursor *c, int op, const char *key, const char *want);
void many_key(int i, char *k);
char *expected(int from, int to, int reverse);
size_t rec(uint8_t *b, size_t len, uint32_t op, uint32_t cf, const void *a, uint32_t alen, const void *bb, uint32_t blen);

/* ---- tests, in the order main runs them ---- */

void test_attach(const char *lib);               /* test_lmdb.c */
void test_page_edges(void);                      /* test_lmdb_cursors.c */
void test_many(void);
void test_pointer_span(void);
void test_page_walk(void);
void test_huge_value(const char *lib);
void test_binary_and_get(void);
void test_writes(void);                          /* test_lmdb_writes.c */
void test_empty_ranges(void);
void test_drop_while_writing(void);
void test_drop_while_reading(void);
void test_reads_never_go_back(void);
void test_families(void);                        /* test_lmdb_stores.c */
void test_snapshots(void);
void test_snapshot_families(void);
void test_lazy_families(void);
void test_map_full(void);
void test_open_modes(void);
void test_checkpoint(void);
void test_utf8_paths(void);
void test_dupsort(void);                         /* test_lmdb_dupsort.c */
void test_cf_options(void);                      /* test_lmdb_stores.c */
void test_key_order(void);                       /* test_lmdb_order.c */
void test_callback_order(void);
void test_txn(void);                             /* test_lmdb_txn.c */
void test_txn_savepoints(void);
void test_null_handles(void);
void test_shared_memory_refused(void);           /* test_lmdb_stores.c */
void test_split_points(void);                    /* test_lmdb_txn.c */

#endif
