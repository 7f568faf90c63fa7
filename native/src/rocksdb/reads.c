/* RocksDB engine: point reads (get, multi-get). */
#include "engine.h"

/* ------------------------------------------------------------------ */
/* Reads                                                               */

/* Pinned point read: copy min(vlen, cap) bytes, report the full length. */
int rdb_get_core(const rdb_ttl *ttl, rocksdb_t *db, const rocksdb_readoptions_t *ro, rocksdb_column_family_handle_t *cf,
                    const void *key, size_t klen, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    char *e = NULL;
    rocksdb_pinnableslice_t *v = RDB.get_pinned_cf(db, ro, cf, key, klen, &e);
    if (e) return rdb_error(err, e);
    if (!v) return FERRY_NOTFOUND;
    size_t vlen;
    const char *val = RDB.pinnableslice_value(v, &vlen);
    if (ttl && rdb_ttl_expired_at(ttl, val, vlen, rdb_ttl_now(ttl))) {
        RDB.pinnableslice_destroy(v);
        return FERRY_NOTFOUND;
    }
    if (cap) memcpy(dst, val, vlen < cap ? vlen : cap);
    *vlen_out = vlen;
    RDB.pinnableslice_destroy(v);
    return FERRY_OK;
}

/* Point reads in key order, packing values into dst until the next one does not fit. */
int rdb_multi_get_core(const rdb_ttl *ttl, rocksdb_t *db, const rocksdb_readoptions_t *ro,
                       rocksdb_column_family_handle_t *cf, uint32_t n, const void *keys, void *dst, size_t cap,
                       int64_t *lens_out, ferry_error *err)
{
    int64_t now = ttl ? rdb_ttl_now(ttl) : 0;
    const uint8_t *p = keys;
    uint8_t *out = dst;
    size_t used = 0;
    if (n > INT_MAX) n = INT_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl;
        memcpy(&kl, p, 4);
        const char *k = (const char *)p + 4;
        p += 4 + (size_t)kl;
        char *e = NULL;
        rocksdb_pinnableslice_t *v = RDB.get_pinned_cf(db, ro, cf, k, kl, &e);
        if (e) return rdb_error(err, e);
        if (!v) { lens_out[i] = -1; continue; }
        size_t vlen;
        const char *val = RDB.pinnableslice_value(v, &vlen);
        if (ttl && rdb_ttl_expired_at(ttl, val, vlen, now)) {
            RDB.pinnableslice_destroy(v);
            lens_out[i] = -1;
            continue;
        }
        if (vlen > cap - used) {
            RDB.pinnableslice_destroy(v);
            if (i > 0) return (int)i;
            lens_out[0] = (int64_t)vlen;
            return ferry_fail(err, FERRY_ETOOSMALL, 0, "value of %zu bytes does not fit in %zu", vlen, cap);
        }
        if (vlen) memcpy(out + used, val, vlen);
        used += vlen;
        lens_out[i] = (int64_t)vlen;
        RDB.pinnableslice_destroy(v);
    }
    return (int)n;
}

/* Read options for one point read with FERRY_CURSOR_NO_FILL_CACHE / NO_VERIFY_CHECKSUMS flags. */
static rocksdb_readoptions_t *flag_read_opts(ferry_snapshot *snap, uint32_t flags)
{
    rocksdb_readoptions_t *ro = RDB.readoptions_create();
    if (!ro) return NULL;
    if (snap) RDB.readoptions_set_snapshot(ro, ((rdb_snapshot *)snap)->snap);
    RDB.readoptions_set_fill_cache(ro, !(flags & FERRY_CURSOR_NO_FILL_CACHE));
    RDB.readoptions_set_verify_checksums(ro, !(flags & FERRY_CURSOR_NO_VERIFY_CHECKSUMS));
    return ro;
}

/* Store read: the store's or the snapshot's read options, or with flags options made for this call. */
int rdb_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, const void *key, size_t klen,
                   uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
{
    const rdb_ttl *ttl = rdb_slot_ttl(s, cf);
    if (!flags)
        return rdb_cmp_after(rdb_get_core(ttl, STORE(s)->db, rdb_read_opts(s, snap), CFH(cf), key, klen, dst, cap,
                                          vlen_out, err), err);
    rocksdb_readoptions_t *ro = flag_read_opts(snap, flags);
    if (!ro) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = rdb_get_core(ttl, STORE(s)->db, ro, CFH(cf), key, klen, dst, cap, vlen_out, err);
    RDB.readoptions_destroy(ro);
    return rdb_cmp_after(rc, err);
}

/* Store multi-read, read options as for rdb_get. */
int rdb_multi_get(ferry_store *s, ferry_snapshot *snap, ferry_cf_slot *cf, uint32_t n, const void *keys,
                         uint32_t flags, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
{
    const rdb_ttl *ttl = rdb_slot_ttl(s, cf);
    if (!flags)
        return rdb_cmp_after(rdb_multi_get_core(ttl, STORE(s)->db, rdb_read_opts(s, snap), CFH(cf), n, keys, dst, cap,
                                                lens_out, err), err);
    rocksdb_readoptions_t *ro = flag_read_opts(snap, flags);
    if (!ro) return ferry_fail(err, FERRY_ENOMEM, 0, "out of memory");
    int rc = rdb_multi_get_core(ttl, STORE(s)->db, ro, CFH(cf), n, keys, dst, cap, lens_out, err);
    RDB.readoptions_destroy(ro);
    return rdb_cmp_after(rc, err);
}
