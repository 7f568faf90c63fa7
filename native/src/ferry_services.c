/* The C ABI's RocksDB services (ferry.h "RocksDB services"): the write-ahead log, rate limiters, SST file
 * managers and PerfContext. Argument checks, then the engine through its engine-wide table (the store's
 * engine, or RocksDB's for the functions that name no store). */
#include "dispatch.h"
#include <stdint.h>
#include <stdlib.h>

int ferry_latest_sequence(ferry_store *s, uint64_t *out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->latest_sequence(s, out, err);
}

int ferry_cf_engine_id(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    SLOT(s, cf, err);
    return lib->cf_engine_id(s, slot, out, err);
}

int ferry_wal_open(ferry_store *s, uint64_t since, ferry_wal **out, ferry_error *err)
{
    CHECK_E(s != NULL, err, "store is NULL");
    CHECK_E(out != NULL, err, "out is NULL");
    *out = NULL;
    const ferry_engine_lib *lib = ferry_engine_lib_of(s->engine);
    CHECK_E(lib != NULL, err, "store has an unknown engine");
    return lib->wal_open(s, since, out, err);
}

int ferry_wal_next(ferry_wal *w, void *dst, size_t cap, uint64_t *seq_out, size_t *len_out, ferry_error *err)
{
    CHECK_E(w != NULL, err, "WAL iterator is NULL");
    CHECK_E(BYTES_OK(dst, cap), err, "dst is NULL");
    CHECK_E(seq_out != NULL && len_out != NULL, err, "seq_out or len_out is NULL");
    return ferry_engine_lib_of(w->store->engine)->wal_next(w, dst, cap, seq_out, len_out, err);
}

int ferry_wal_close(ferry_wal *w)
{
    return w ? ferry_engine_lib_of(w->store->engine)->wal_close(w) : FERRY_OK;
}

