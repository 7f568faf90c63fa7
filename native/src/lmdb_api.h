/* The subset of LMDB's C API (0.9.x ABI) that Ferry's lmdb engine uses, declared here so the
 * shim builds without lmdb.h. Functions are resolved at run time into ferry_mdb (lmdb/attach.c)
 * from the liblmdb shipped in org.lmdbjava:native. Values below are LMDB's ABI facts. */
#ifndef FERRY_LMDB_API_H
#define FERRY_LMDB_API_H

#include <stddef.h>
#include <sys/types.h>

typedef struct MDB_env MDB_env;       /* opaque */
typedef struct MDB_txn MDB_txn;       /* opaque */
typedef struct MDB_cursor MDB_cursor; /* opaque */
typedef unsigned int MDB_dbi;
/* mdb_env_open's file mode: mode_t, but int on Windows (lmdb.h's mdb_mode_t) */
#ifdef _WIN32
typedef int ferry_mdb_mode;
#else
typedef mode_t ferry_mdb_mode;
#endif

/* A key or value: length and address. */
typedef struct MDB_val {
    size_t mv_size;
    void *mv_data;
} MDB_val;

/* mdb_stat: B-tree statistics of one database. */
typedef struct MDB_stat {
    unsigned int ms_psize;
    unsigned int ms_depth;
    size_t ms_branch_pages;
    size_t ms_leaf_pages;
    size_t ms_overflow_pages;
    size_t ms_entries;
} MDB_stat;

/* mdb_env_info: environment-wide information. */
typedef struct MDB_envinfo {
    void *me_mapaddr;
    size_t me_mapsize;
    size_t me_last_pgno;
    size_t me_last_txnid;
    unsigned int me_maxreaders;
    unsigned int me_numreaders;
} MDB_envinfo;

/* Environment flags (mdb_env_open). */
#define MDB_NOSUBDIR    0x4000
#define MDB_NOSYNC      0x10000
#define MDB_RDONLY      0x20000
#define MDB_NOMETASYNC  0x40000
#define MDB_WRITEMAP    0x80000
#define MDB_MAPASYNC    0x100000
#define MDB_NOTLS       0x200000
#define MDB_NORDAHEAD   0x800000

/* mdb_env_copy2 flags. */
#define MDB_CP_COMPACT  0x01

/* Database flags (mdb_dbi_open). */
#define MDB_REVERSEKEY  0x02    /* made by another program: refused (lmdb/families.c) */
#define MDB_DUPSORT     0x04
#define MDB_INTEGERKEY  0x08    /* made by another program: refused (lmdb/families.c) */
#define MDB_DUPFIXED    0x10
#define MDB_INTEGERDUP  0x20
#define MDB_REVERSEDUP  0x40
#define MDB_CREATE      0x40000

/* A key comparison (mdb_set_compare): <0, 0, >0. */
typedef int(MDB_cmp_func)(const MDB_val *a, const MDB_val *b);

/* Write flags (mdb_put; MDB_NODUPDATA also for mdb_cursor_del). */
#define MDB_NOOVERWRITE 0x10
#define MDB_NODUPDATA   0x20
#define MDB_APPEND      0x20000
#define MDB_APPENDDUP   0x40000

/* Cursor operations (enum MDB_cursor_op values). */
#define MDB_FIRST        0
#define MDB_GET_BOTH_RANGE 3
#define MDB_GET_CURRENT  4
#define MDB_LAST         6
#define MDB_LAST_DUP     7
#define MDB_NEXT         8
#define MDB_NEXT_NODUP  11
#define MDB_PREV        12
#define MDB_SET         15
#define MDB_SET_KEY     16
#define MDB_SET_RANGE   17

/* Return codes. */
#define MDB_SUCCESS           0
#define MDB_KEYEXIST         (-30799)
#define MDB_NOTFOUND         (-30798)
#define MDB_PAGE_NOTFOUND    (-30797)
#define MDB_CORRUPTED        (-30796)
#define MDB_PANIC            (-30795)
#define MDB_VERSION_MISMATCH (-30794)
#define MDB_INVALID          (-30793)
#define MDB_MAP_FULL         (-30792)
#define MDB_DBS_FULL         (-30791)
#define MDB_READERS_FULL     (-30790)
#define MDB_TXN_FULL         (-30788)
#define MDB_MAP_RESIZED      (-30785)
#define MDB_INCOMPATIBLE     (-30784)
#define MDB_BAD_RSLOT        (-30783)
#define MDB_BAD_TXN          (-30782)
#define MDB_BAD_VALSIZE      (-30781)
#define MDB_BAD_DBI          (-30780)

/* X-macro of the functions Ferry resolves: X(return type, name, parameter list). */
#define FERRY_MDB_FUNCS(X)                                                                        \
    X(char *, mdb_strerror, (int err))                                                            \
    X(int, mdb_env_create, (MDB_env **env))                                                       \
    X(int, mdb_env_open, (MDB_env *env, const char *path, unsigned int flags, ferry_mdb_mode mode))     \
    X(void, mdb_env_close, (MDB_env *env))                                                        \
    X(int, mdb_env_set_mapsize, (MDB_env *env, size_t size))                                      \
    X(int, mdb_env_set_maxdbs, (MDB_env *env, MDB_dbi dbs))                                       \
    X(int, mdb_env_set_maxreaders, (MDB_env *env, unsigned int readers))                          \
    X(int, mdb_env_get_maxkeysize, (MDB_env *env))                                                \
    X(int, mdb_env_info, (MDB_env *env, MDB_envinfo *info))                                       \
    X(int, mdb_env_stat, (MDB_env *env, MDB_stat *stat))                                          \
    X(int, mdb_env_sync, (MDB_env *env, int force))                                               \
    X(int, mdb_env_copy2, (MDB_env *env, const char *path, unsigned int flags))                   \
    X(int, mdb_txn_begin, (MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn))     \
    X(int, mdb_txn_commit, (MDB_txn *txn))                                                        \
    X(void, mdb_txn_abort, (MDB_txn *txn))                                                        \
    X(void, mdb_txn_reset, (MDB_txn *txn))                                                        \
    X(int, mdb_txn_renew, (MDB_txn *txn))                                                         \
    X(int, mdb_dbi_open, (MDB_txn *txn, const char *name, unsigned int flags, MDB_dbi *dbi))      \
    X(int, mdb_drop, (MDB_txn *txn, MDB_dbi dbi, int del))                                        \
    X(int, mdb_stat, (MDB_txn *txn, MDB_dbi dbi, MDB_stat *stat))                                 \
    X(int, mdb_get, (MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data))                     \
    X(int, mdb_put, (MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data, unsigned int flags)) \
    X(int, mdb_del, (MDB_txn *txn, MDB_dbi dbi, MDB_val *key, MDB_val *data))                     \
    X(int, mdb_cursor_open, (MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor))                     \
    X(void, mdb_cursor_close, (MDB_cursor *cursor))                                               \
    X(int, mdb_cursor_get, (MDB_cursor *cursor, MDB_val *key, MDB_val *data, int op))             \
    X(int, mdb_cursor_del, (MDB_cursor *cursor, unsigned int flags))                              \
    X(int, mdb_cursor_count, (MDB_cursor *cursor, size_t *countp))                                \
    X(int, mdb_dbi_flags, (MDB_txn *txn, MDB_dbi dbi, unsigned int *flags))                       \
    X(int, mdb_set_compare, (MDB_txn *txn, MDB_dbi dbi, MDB_cmp_func *cmp))

/* The resolved table. */
typedef struct ferry_mdb_api {
#define FERRY_MDB_FIELD(ret, name, params) ret(*name) params;
    FERRY_MDB_FUNCS(FERRY_MDB_FIELD)
#undef FERRY_MDB_FIELD
} ferry_mdb_api;

#endif /* FERRY_LMDB_API_H */
