/* The ABI layer's own helpers, shared by ferry.c and ferry_admin.c (argument checks, family slots,
 * the registry of shared caches and write buffer managers). Not for the engines. */
#ifndef FERRY_DISPATCH_H
#define FERRY_DISPATCH_H

#include "internal.h"

#define CHECK(cond) do { if (!(cond)) return FERRY_EINVAL; } while (0)
#define CHECK_E(cond, err, msg) do { if (!(cond)) return ferry_fail((err), FERRY_EINVAL, 0, "%s", (msg)); } while (0)
/* A (pointer, length) pair is valid when the pointer is set or the length is 0. */
#define BYTES_OK(p, n) ((p) != NULL || (n) == 0)

/* ferry_store_open's family records (ferry.c): parse into n descriptions (free with cf_descs_free). */
FERRY_HIDDEN int cf_descs_parse(const void *cfs, size_t len, uint32_t n, ferry_cf_desc **out, ferry_error *err);
FERRY_HIDDEN void cf_descs_free(ferry_cf_desc *d, uint32_t n);

/* Resolve a cf id to a live slot, or return an error code. */
FERRY_HIDDEN int ferry_cf_slot_check(ferry_store *s, uint32_t cf, ferry_cf_slot **slot, ferry_error *err);

#define SLOT(s, cf, err) \
    ferry_cf_slot *slot = NULL; \
    do { int rc_ = ferry_cf_slot_check((s), (cf), &slot, (err)); if (rc_) return rc_; } while (0)

#define WRITABLE(s, err) \
    do { if ((s)->read_only) return ferry_fail((err), FERRY_EREADONLY, 0, "store is open read-only"); } while (0)

/* ferry_admin.c: take the shared cache and write buffer manager a store open names (opts), and give
 * them back at close or when the open fails. */
FERRY_HIDDEN int ferry_shared_acquire(int engine, int64_t *o, ferry_cache **c_out, ferry_wbm **w_out, ferry_error *err);
FERRY_HIDDEN void ferry_shared_release(ferry_cache *c, ferry_wbm *w);

/* ferry_services.c: the same for a store's rate limiter and SST file manager (FERRY_OPT_RATE_LIMITER,
 * FERRY_OPT_SST_FILE_MANAGER); an LMDB store naming one is FERRY_EINVAL. */
FERRY_HIDDEN int ferry_services_acquire(int engine, int64_t *o, ferry_rate_limiter **l_out, ferry_sst_manager **m_out,
                                        ferry_error *err);
FERRY_HIDDEN void ferry_services_release(ferry_rate_limiter *l, ferry_sst_manager *m);

#endif /* FERRY_DISPATCH_H */
