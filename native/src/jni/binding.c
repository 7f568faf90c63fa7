/* JNI glue for dev.ferry.jni.JniBinding: one thin wrapper per ferry_* function, in ferry.h's order (by
 * handle type), plus address0 and wrap0 for direct buffers. Java passes handles and addresses as jlong
 * and checks every result; no policy lives here. */
#include <jni.h>

#include "ferry.h"

#define JNI_FN(name) JNIEXPORT jint JNICALL Java_dev_ferry_jni_JniBinding_##name
#define P(x) ((void *)(intptr_t)(x))

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    return JNI_VERSION_1_8;
}

/* ---- library (no handle) ---- */

/* JniBinding.address0(ByteBuffer): address of a direct buffer (0 if not direct). */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_address0(JNIEnv *env, jclass cls, jobject buf)
{
    return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buf);
}

/* JniBinding.wrap0(long, int): a direct buffer over native memory the caller keeps alive. */
JNIEXPORT jobject JNICALL Java_dev_ferry_jni_JniBinding_wrap0(JNIEnv *env, jclass cls, jlong addr, jint len)
{
    return (*env)->NewDirectByteBuffer(env, P(addr), (jlong)len);
}

/* JniBinding.abiVersion0() */
JNI_FN(abiVersion0)(JNIEnv *env, jclass cls) { return ferry_abi_version(); }

/* JniBinding.strerror0: the address of ferry_strerror's static message. */
JNIEXPORT jlong JNICALL Java_dev_ferry_jni_JniBinding_strerror0(JNIEnv *env, jclass cls, jint rc)
{
    return (jlong)(intptr_t)ferry_strerror(rc);
}

/* JniBinding.noop0(): empty call, the JNI per-call floor. */
JNI_FN(noop0)(JNIEnv *env, jclass cls) { return ferry_noop(); }

/* JniBinding.engineAttach0 */
JNI_FN(engineAttach0)(JNIEnv *env, jclass cls, jint engine, jlong path, jlong err)
{
    return ferry_engine_attach(engine, P(path), P(err));
}

/* JniBinding.enginePath0 */
JNI_FN(enginePath0)(JNIEnv *env, jclass cls, jint engine, jlong dst, jlong cap)
{
    return ferry_engine_path(engine, P(dst), (size_t)cap);
}

/* ---- stores ---- */

/* JniBinding.storeOpen0 */
JNI_FN(storeOpen0)(JNIEnv *env, jclass cls, jint engine, jlong path, jlong opts, jint nopts, jlong extra, jlong cfs,
                   jlong cfs_len, jint ncfs, jlong out, jlong err)
{
    if (cfs_len < 0) return FERRY_EINVAL;
    return ferry_store_open(engine, P(path), P(opts), (uint32_t)nopts, P(extra), P(cfs), (size_t)cfs_len,
                            (uint32_t)ncfs, P(out), P(err));
}

/* JniBinding.storeClose0 */
JNI_FN(storeClose0)(JNIEnv *env, jclass cls, jlong s) { return ferry_store_close(P(s)); }

/* JniBinding.flush0 */
JNI_FN(flush0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong err) { return ferry_flush(P(s), (uint32_t)cf, P(err)); }

/* JniBinding.compactRange0 */
JNI_FN(compactRange0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong b, jlong blen, jlong e, jlong elen, jlong err)
{
    return ferry_compact_range(P(s), (uint32_t)cf, P(b), (size_t)blen, P(e), (size_t)elen, P(err));
}

/* JniBinding.property0 */
JNI_FN(property0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong name, jlong dst, jlong cap, jlong len_out, jlong err)
{
    return ferry_property(P(s), (uint32_t)cf, P(name), P(dst), (size_t)cap, P(len_out), P(err));
}

/* JniBinding.propertyInt0 */
JNI_FN(propertyInt0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong name, jlong out, jlong err)
{
    return ferry_property_int(P(s), (uint32_t)cf, P(name), P(out), P(err));
}

/* JniBinding.checkpoint0 */
JNI_FN(checkpoint0)(JNIEnv *env, jclass cls, jlong s, jlong dir, jint flags, jlong err)
{
    return ferry_checkpoint(P(s), P(dir), (uint32_t)flags, P(err));
}

/* ---- column families ---- */

/* JniBinding.cfCount0 */
JNI_FN(cfCount0)(JNIEnv *env, jclass cls, jlong s, jlong out) { return ferry_cf_count(P(s), P(out)); }

/* JniBinding.cfName0 */
JNI_FN(cfName0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong dst, jlong cap, jlong len_out)
{
    return ferry_cf_name(P(s), (uint32_t)cf, P(dst), (size_t)cap, P(len_out));
}

/* JniBinding.cfCreate0 */
JNI_FN(cfCreate0)(JNIEnv *env, jclass cls, jlong s, jlong name, jint flags, jlong opts, jint nopts, jlong extra,
                  jlong id_out, jlong err)
{
    return ferry_cf_create(P(s), P(name), (uint32_t)flags, P(opts), (uint32_t)nopts, P(extra), P(id_out), P(err));
}

/* JniBinding.cfFind0 */
JNI_FN(cfFind0)(JNIEnv *env, jclass cls, jlong s, jlong name, jlong id_out, jlong err)
{
    return ferry_cf_find(P(s), P(name), P(id_out), P(err));
}

/* JniBinding.cfListAll0 */
JNI_FN(cfListAll0)(JNIEnv *env, jclass cls, jlong s, jlong err) { return ferry_cf_list_all(P(s), P(err)); }

/* JniBinding.cfDrop0 */
JNI_FN(cfDrop0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong err) { return ferry_cf_drop(P(s), (uint32_t)cf, P(err)); }

/* JniBinding.cfFlags0 */
JNI_FN(cfFlags0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong out, jlong err)
{
    return ferry_cf_flags(P(s), (uint32_t)cf, P(out), P(err));
}

/* ---- reads (a store and a view: 0, a snapshot or a transaction) ---- */

/* JniBinding.get0 */
JNI_FN(get0)(JNIEnv *env, jclass cls, jlong s, jlong snap, jint cf, jlong key, jlong klen, jint flags, jlong dst,
             jlong cap, jlong vlen_out, jlong err)
{
    return ferry_get(P(s), P(snap), (uint32_t)cf, P(key), (size_t)klen, (uint32_t)flags, P(dst), (size_t)cap,
                     P(vlen_out), P(err));
}

/* JniBinding.multiGet0 */
JNI_FN(multiGet0)(JNIEnv *env, jclass cls, jlong s, jlong snap, jint cf, jint n, jlong keys, jlong keys_len,
                  jint flags, jlong dst, jlong cap, jlong lens_out, jlong err)
{
    return ferry_multi_get(P(s), P(snap), (uint32_t)cf, (uint32_t)n, P(keys), (size_t)keys_len, (uint32_t)flags,
                           P(dst), (size_t)cap, P(lens_out), P(err));
}

/* JniBinding.valueCount0 */
JNI_FN(valueCount0)(JNIEnv *env, jclass cls, jlong s, jlong snap, jint cf, jlong key, jlong klen, jlong out, jlong err)
{
    return ferry_value_count(P(s), P(snap), (uint32_t)cf, P(key), (size_t)klen, P(out), P(err));
}

/* JniBinding.splitPoints0 */
JNI_FN(splitPoints0)(JNIEnv *env, jclass cls, jlong s, jlong snap, jint cf, jlong lower, jlong llen, jlong upper,
                     jlong ulen, jint max, jlong dst, jlong cap, jlong len_out, jlong err)
{
    return ferry_split_points(P(s), P(snap), (uint32_t)cf, P(lower), (size_t)llen, P(upper), (size_t)ulen,
                              (uint32_t)max, P(dst), (size_t)cap, P(len_out), P(err));
}

/* ---- writes ---- */

/* JniBinding.put0 */
JNI_FN(put0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong key, jlong klen, jlong val, jlong vlen, jint flags,
             jlong err)
{
    return ferry_put(P(s), (uint32_t)cf, P(key), (size_t)klen, P(val), (size_t)vlen, (uint32_t)flags, P(err));
}

/* JniBinding.merge0 */
JNI_FN(merge0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong key, jlong klen, jlong op, jlong olen, jlong err)
{
    return ferry_merge(P(s), (uint32_t)cf, P(key), (size_t)klen, P(op), (size_t)olen, P(err));
}

/* JniBinding.delete0 */
JNI_FN(delete0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong key, jlong klen, jlong err)
{
    return ferry_delete(P(s), (uint32_t)cf, P(key), (size_t)klen, P(err));
}

/* JniBinding.deleteRange0 */
JNI_FN(deleteRange0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong b, jlong blen, jlong e, jlong elen, jlong err)
{
    return ferry_delete_range(P(s), (uint32_t)cf, P(b), (size_t)blen, P(e), (size_t)elen, P(err));
}

/* JniBinding.write0 */
JNI_FN(write0)(JNIEnv *env, jclass cls, jlong s, jlong ops, jlong len, jint count, jint flags, jlong err)
{
    return ferry_write(P(s), P(ops), (size_t)len, (uint32_t)count, (uint32_t)flags, P(err));
}

/* ---- snapshots ---- */

/* JniBinding.snapshotOpen0 */
JNI_FN(snapshotOpen0)(JNIEnv *env, jclass cls, jlong s, jlong out, jlong err) { return ferry_snapshot_open(P(s), P(out), P(err)); }

/* JniBinding.snapshotClose0 */
JNI_FN(snapshotClose0)(JNIEnv *env, jclass cls, jlong snap) { return ferry_snapshot_close(P(snap)); }

/* ---- transactions ---- */

/* JniBinding.txnBegin0 */
JNI_FN(txnBegin0)(JNIEnv *env, jclass cls, jlong s, jint flags, jlong timeout_ms, jlong out, jlong err)
{
    return ferry_txn_begin(P(s), (uint32_t)flags, (int64_t)timeout_ms, P(out), P(err));
}

/* JniBinding.txnWrite0 */
JNI_FN(txnWrite0)(JNIEnv *env, jclass cls, jlong t, jlong ops, jlong len, jint count, jlong err)
{
    return ferry_txn_write(P(t), P(ops), (size_t)len, (uint32_t)count, P(err));
}

/* JniBinding.txnGetForUpdate0 */
JNI_FN(txnGetForUpdate0)(JNIEnv *env, jclass cls, jlong t, jint cf, jlong k, jlong klen, jlong dst, jlong cap,
                         jlong vlen_out, jlong err)
{
    return ferry_txn_get_for_update(P(t), (uint32_t)cf, P(k), (size_t)klen, P(dst), (size_t)cap, P(vlen_out), P(err));
}

/* JniBinding.txnCommit0 */
JNI_FN(txnCommit0)(JNIEnv *env, jclass cls, jlong t, jlong err) { return ferry_txn_commit(P(t), P(err)); }

/* JniBinding.txnClose0 */
JNI_FN(txnClose0)(JNIEnv *env, jclass cls, jlong t) { return ferry_txn_close(P(t)); }

/* JniBinding.txnAbandon0 */
JNI_FN(txnAbandon0)(JNIEnv *env, jclass cls, jlong t) { return ferry_txn_abandon(P(t)); }

/* ---- cursors ---- */

/* JniBinding.cursorOpen0 */
JNI_FN(cursorOpen0)(JNIEnv *env, jclass cls, jlong s, jlong snap, jint cf, jlong lower, jlong llen, jlong upper,
                    jlong ulen, jint flags, jlong out, jlong err)
{
    return ferry_cursor_open(P(s), P(snap), (uint32_t)cf, P(lower), (size_t)llen, P(upper), (size_t)ulen,
                             (uint32_t)flags, P(out), P(err));
}

/* JniBinding.cursorClose0 */
JNI_FN(cursorClose0)(JNIEnv *env, jclass cls, jlong c) { return ferry_cursor_close(P(c)); }

/* JniBinding.cursorFill0: the page call. */
JNI_FN(cursorFill0)(JNIEnv *env, jclass cls, jlong c, jint op, jlong key, jlong klen, jlong page, jlong cap,
                    jint max_entries, jlong err)
{
    return ferry_cursor_fill(P(c), op, P(key), (size_t)klen, P(page), (size_t)cap, (uint32_t)max_entries, P(err));
}

/* ---- backups ---- */

/* JniBinding.backupsOpen0 */
JNI_FN(backupsOpen0)(JNIEnv *env, jclass cls, jlong dir, jlong out, jlong err) { return ferry_backups_open(P(dir), P(out), P(err)); }

/* JniBinding.backupsClose0 */
JNI_FN(backupsClose0)(JNIEnv *env, jclass cls, jlong b) { return ferry_backups_close(P(b)); }

/* JniBinding.backupsCreate0 */
JNI_FN(backupsCreate0)(JNIEnv *env, jclass cls, jlong b, jlong s, jlong id_out, jlong err)
{
    return ferry_backups_create(P(b), P(s), P(id_out), P(err));
}

/* JniBinding.backupsList0 */
JNI_FN(backupsList0)(JNIEnv *env, jclass cls, jlong b, jlong dst, jlong cap, jlong count_out, jlong err)
{
    return ferry_backups_list(P(b), P(dst), (size_t)cap, P(count_out), P(err));
}

/* JniBinding.backupsRestore0 */
JNI_FN(backupsRestore0)(JNIEnv *env, jclass cls, jlong b, jint id, jlong db_dir, jlong err)
{
    return ferry_backups_restore(P(b), (uint32_t)id, P(db_dir), P(err));
}

/* JniBinding.backupsPurge0 */
JNI_FN(backupsPurge0)(JNIEnv *env, jclass cls, jlong b, jint keep, jlong err)
{
    return ferry_backups_purge(P(b), (uint32_t)keep, P(err));
}

/* ---- SST files and ingestion ---- */

/* JniBinding.sstOpen0 */
JNI_FN(sstOpen0)(JNIEnv *env, jclass cls, jlong path, jlong extra, jlong out, jlong err)
{
    return ferry_sst_open(P(path), P(extra), P(out), P(err));
}

/* JniBinding.sstPut0 */
JNI_FN(sstPut0)(JNIEnv *env, jclass cls, jlong w, jlong key, jlong klen, jlong val, jlong vlen, jlong err)
{
    return ferry_sst_put(P(w), P(key), (size_t)klen, P(val), (size_t)vlen, P(err));
}

/* JniBinding.sstMerge0 */
JNI_FN(sstMerge0)(JNIEnv *env, jclass cls, jlong w, jlong key, jlong klen, jlong op, jlong olen, jlong err)
{
    return ferry_sst_merge(P(w), P(key), (size_t)klen, P(op), (size_t)olen, P(err));
}

/* JniBinding.sstDelete0 */
JNI_FN(sstDelete0)(JNIEnv *env, jclass cls, jlong w, jlong key, jlong klen, jlong err)
{
    return ferry_sst_delete(P(w), P(key), (size_t)klen, P(err));
}

/* JniBinding.sstFinish0 */
JNI_FN(sstFinish0)(JNIEnv *env, jclass cls, jlong w, jlong size_out, jlong err)
{
    return ferry_sst_finish(P(w), P(size_out), P(err));
}

/* JniBinding.sstClose0 */
JNI_FN(sstClose0)(JNIEnv *env, jclass cls, jlong w) { return ferry_sst_close(P(w)); }

/* JniBinding.ingest0 */
JNI_FN(ingest0)(JNIEnv *env, jclass cls, jlong s, jint cf, jlong paths, jlong len, jint n, jint flags, jlong err)
{
    return ferry_ingest(P(s), (uint32_t)cf, P(paths), (size_t)len, (uint32_t)n, (uint32_t)flags, P(err));
}

/* ---- RocksJava interop (handles are RocksJava's getNativeHandle() values) ---- */

/* JniBinding.rjCursorOpen0 */
JNI_FN(rjCursorOpen0)(JNIEnv *env, jclass cls, jlong db, jlong cf, jlong snap, jlong lower, jlong llen, jlong upper,
                      jlong ulen, jint flags, jlong out, jlong err)
{
    return ferry_rj_cursor_open(P(db), P(cf), P(snap), P(lower), (size_t)llen, P(upper), (size_t)ulen,
                                (uint32_t)flags, P(out), P(err));
}

/* JniBinding.rjCursorWrap0 */
JNI_FN(rjCursorWrap0)(JNIEnv *env, jclass cls, jlong it, jlong out, jlong err)
{
    return ferry_rj_cursor_wrap(P(it), P(out), P(err));
}

/* JniBinding.rjCursorForget0 */
JNI_FN(rjCursorForget0)(JNIEnv *env, jclass cls, jlong c) { return ferry_rj_cursor_forget(P(c)); }

/* JniBinding.rjGet0 */
JNI_FN(rjGet0)(JNIEnv *env, jclass cls, jlong db, jlong cf, jlong snap, jlong key, jlong klen, jlong dst, jlong cap,
               jlong vlen_out, jlong err)
{
    return ferry_rj_get(P(db), P(cf), P(snap), P(key), (size_t)klen, P(dst), (size_t)cap, P(vlen_out), P(err));
}

/* JniBinding.rjMultiGet0 */
JNI_FN(rjMultiGet0)(JNIEnv *env, jclass cls, jlong db, jlong cf, jlong snap, jint n, jlong keys, jlong keys_len,
                    jlong dst, jlong cap, jlong lens_out, jlong err)
{
    return ferry_rj_multi_get(P(db), P(cf), P(snap), (uint32_t)n, P(keys), (size_t)keys_len, P(dst), (size_t)cap,
                              P(lens_out), P(err));
}

/* JniBinding.rjPut0 */
JNI_FN(rjPut0)(JNIEnv *env, jclass cls, jlong db, jlong cf, jlong key, jlong klen, jlong val, jlong vlen, jlong err)
{
    return ferry_rj_put(P(db), P(cf), P(key), (size_t)klen, P(val), (size_t)vlen, P(err));
}

/* JniBinding.rjWrite0 */
JNI_FN(rjWrite0)(JNIEnv *env, jclass cls, jlong db, jlong cfs, jint ncfs, jlong ops, jlong len, jint count, jlong err)
{
    return ferry_rj_write(P(db), P(cfs), (uint32_t)ncfs, P(ops), (size_t)len, (uint32_t)count, P(err));
}

/* ---- shared memory (RocksDB): block caches, write buffer managers ---- */

/* JniBinding.cacheCreate0 */
JNI_FN(cacheCreate0)(JNIEnv *env, jclass cls, jlong capacity, jint flags, jlong high_pri_ppm, jlong out, jlong err)
{
    return ferry_cache_create((uint64_t)capacity, (uint32_t)flags, (int64_t)high_pri_ppm, P(out), P(err));
}

/* JniBinding.cacheUsage0 */
JNI_FN(cacheUsage0)(JNIEnv *env, jclass cls, jlong c, jlong usage_out, jlong pinned_out, jlong stores_out,
                    jlong wbms_out)
{
    return ferry_cache_usage(P(c), P(usage_out), P(pinned_out), P(stores_out), P(wbms_out));
}

/* JniBinding.cacheClose0 */
JNI_FN(cacheClose0)(JNIEnv *env, jclass cls, jlong c, jlong err) { return ferry_cache_close(P(c), P(err)); }

/* JniBinding.wbmCreate0 */
JNI_FN(wbmCreate0)(JNIEnv *env, jclass cls, jlong cache, jlong size, jint flags, jlong out, jlong err)
{
    return ferry_wbm_create(P(cache), (uint64_t)size, (uint32_t)flags, P(out), P(err));
}

/* JniBinding.wbmUsage0 */
JNI_FN(wbmUsage0)(JNIEnv *env, jclass cls, jlong w, jlong usage_out, jlong stores_out)
{
    return ferry_wbm_usage(P(w), P(usage_out), P(stores_out));
}

/* JniBinding.wbmClose0 */
JNI_FN(wbmClose0)(JNIEnv *env, jclass cls, jlong w, jlong err) { return ferry_wbm_close(P(w), P(err)); }
