/* The native floor: whole workloads run in C directly over the engines' C APIs, with no Java and
 * no Ferry in the loop. Used in-process through JNI (libferryfloor, one call per workload) and
 * out of process by the `floor` program. The engine functions are resolved with dlsym from the
 * engine object Ferry attached (in-process) or from a path given on the command line.
 *
 * Checksum of a scan (the same in every Java variant): for each entry
 *   klen + vlen + key[0] + key[klen-1] + val[0] + val[vlen-1]   (bytes unsigned)
 * summed as a 64-bit integer. Gets sum vlen + val[0] + val[vlen-1] of each found value. */
#ifndef FERRY_FLOOR_H
#define FERRY_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#define FLOOR_ROCKSDB 1
#define FLOOR_LMDB 2

typedef struct floor_db floor_db;

/* Resolve the engine's functions from lib_path. allow_load = 0: only an object already loaded
 * in this process is accepted (RTLD_NOLOAD); 1: load it if needed. 0 or -1 (message on stderr). */
int floor_attach(int engine, const char *lib_path, int allow_load);

/* Open a store. RocksDB: no compression, an LRU block cache of cache_bytes, read-only when
 * read_only, created when missing otherwise. LMDB: NOTLS (+RDONLY when read_only, NOSYNC
 * otherwise), map_size bytes (0 = keep the file's). NULL on failure (message on stderr). */
floor_db *floor_open(int engine, const char *path, int64_t cache_bytes, int64_t map_size, int read_only);
void floor_close(floor_db *db);

/* Scan the whole store; returns the checksum, *count the entries seen. */
int64_t floor_scan(floor_db *db, int reverse, int64_t *count);

/* n point reads of the klen-byte keys packed at keys; returns the checksum of found values,
 * *missing the number of absent keys. LMDB: one read transaction for all. */
int64_t floor_gets(floor_db *db, const uint8_t *keys, int n, int klen, int64_t *missing);

/* The same, each get in a fresh read view: LMDB renews one read transaction before every get and
 * resets it after (what reading the latest state costs); RocksDB: as floor_gets. */
int64_t floor_gets_fresh(floor_db *db, const uint8_t *keys, int n, int klen, int64_t *missing);

/* floor_gets (fresh = 0) or floor_gets_fresh (fresh = 1) that also copies every found value into
 * dst (its first cap bytes; a longer value is cut there) and sums length, first and last byte of the
 * copy: what a get that must deliver the whole value (Store.get's array) costs at least, without
 * allocating. Returns -1 on a failed read transaction or a NULL db, dst or keys. */
int64_t floor_gets_copy(floor_db *db, const uint8_t *keys, int n, int klen, int fresh, uint8_t *dst, int cap,
                        int64_t *missing);

/* n seeks, each on a fresh iterator (RocksDB) or a fresh cursor in a renewed read transaction
 * (LMDB), as db_bench's seekrandom does: seek to the key, then read nexts entries from there
 * (fewer at the end); returns the scan checksum of the entries read, *count their number. */
int64_t floor_seeks(floor_db *db, const uint8_t *keys, int n, int klen, int nexts, int64_t *count);

/* n puts of the packed keys, each with the vlen-byte value val. batch <= 1: one write per put
 * (LMDB: one transaction each); else batches of that many puts. 0 or -1. */
int floor_puts(floor_db *db, const uint8_t *keys, int n, int klen, const uint8_t *val, int vlen, int batch);

/* A forward scan of the whole store cut into nsplits sub-ranges at nsplits - 1 boundary keys (bounds:
 * records "u32 klen; key" back to back, in increasing order), run on threads threads (the caller's and
 * threads - 1 pthreads), each taking the next sub-range not yet taken (as Ferry's parallel scan does).
 * Each sub-range is read with an iterator of its own (RocksDB: one shared snapshot; LMDB: the threads'
 * read transactions, checked to read the same transaction id) from its lower bound (a seek) while the
 * key is below its upper bound. Returns the scan checksum, -1 on failure; counts (nsplits entries, may
 * be NULL) receives each sub-range's entry count. */
int64_t floor_scan_splits(floor_db *db, const uint8_t *bounds, int nsplits, int threads, int64_t *counts);

/* Does nothing: an in-process call floor for JNI. */
int floor_noop(void);

#endif
