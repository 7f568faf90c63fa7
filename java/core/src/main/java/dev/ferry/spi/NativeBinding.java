package dev.ferry.spi;

import java.nio.ByteBuffer;

/**
 * The ferry C ABI as seen from Java: one method per {@code ferry_*} function of
 * {@code native/include/ferry.h}, in the header's order (by the handle a function acts on: library,
 * store, column family, reads, writes, snapshot, transaction, cursor, backups, SST writer, RocksJava
 * interop, shared memory), taking handles and addresses as {@code long}s.
 *
 * <p>Names: {@code ferry_a_b_c} is {@code aBC} ({@code ferry_cf_list_all} is {@link #cfListAll});
 * the JNI native behind it is {@code aBC0}. Types: a pointer, {@code size_t}, {@code int64_t} and
 * {@code uint64_t} are {@code long}; {@code int}, {@code int32_t} and {@code uint32_t} are
 * {@code int} (an unsigned value above {@link Integer#MAX_VALUE} is passed as its negative
 * two's-complement {@code int}). {@link #name()}, {@link #address} and {@link #wrap} are the only
 * methods that are not a C function. A test ({@code NativeBoundaryTest}) parses ferry.h and fails
 * on any function without its method, any method without its function, and any parameter whose
 * Java type does not match its C type, here and in both bindings.
 *
 * <p>This is an internal service interface shared by the JNI binding ({@code dev.ferry.jni}) and
 * the FFM binding ({@code dev.ferry.ffm}); applications use {@link dev.ferry.Store} instead.
 * Implementations perform no checks: callers pass live handles and valid memory. Every method
 * returns the C function's result unchanged.
 *
 * <p>Thread safety: implementations are stateless and thread-safe; the handles passed follow
 * the threading rules of ferry.h.
 */
public interface NativeBinding {

    // ---- binding helpers (no C function)

    /**
     * Returns the binding's short name.
     *
     * @return {@code "jni"} or {@code "ffm"}
     */
    String name();

    /**
     * Returns the native address of a direct buffer (resolve once, then pass {@code long}s).
     *
     * @param direct a direct buffer
     * @return the address of its first byte
     */
    long address(ByteBuffer direct);

    /**
     * Wraps native memory that the caller keeps alive in a direct buffer, native byte order.
     *
     * @param address first byte
     * @param length number of bytes, at most {@link Integer#MAX_VALUE}
     * @return a buffer over that memory
     */
    ByteBuffer wrap(long address, int length);

    // ---- library (no handle)

    /** @return {@code ferry_abi_version()} */
    int abiVersion();

    /**
     * {@code ferry_strerror}.
     *
     * @param rc a FERRY_* code
     * @return the address of a static NUL-terminated message (never 0)
     */
    long strerror(int rc);

    /** @return {@code ferry_noop()}: the per-call overhead floor */
    int noop();

    /** @see "ferry_engine_attach" @param engine engine id @param pathAddr C string or 0 @param err error struct @return rc */
    int engineAttach(int engine, long pathAddr, long err);

    /** @see "ferry_engine_path" @param engine engine id @param dst buffer @param cap capacity @return length or rc */
    int enginePath(int engine, long dst, long cap);

    // ---- stores

    /**
     * {@code ferry_store_open}.
     *
     * @param engine engine id
     * @param path C string
     * @param opts int64 options
     * @param nopts number of options
     * @param extra C string or 0
     * @param cfs family records or 0
     * @param cfsLen their length in bytes (a negative value gives {@code EINVAL})
     * @param ncfs number of records
     * @param out receives the handle
     * @param err error struct
     * @return rc
     */
    int storeOpen(int engine, long path, long opts, int nopts, long extra, long cfs, long cfsLen, int ncfs, long out,
            long err);

    /** @param store handle @return rc */
    int storeClose(long store);

    /** @param store handle @param cf id @param err error struct @return rc */
    int flush(long store, int cf, long err);

    /** @param store handle @param cf id @param begin address or 0 @param blen length @param end address or 0 @param elen length @param err error struct @return rc */
    int compactRange(long store, int cf, long begin, long blen, long end, long elen, long err);

    /** @param store handle @param cf id @param name C string @param dst buffer @param cap capacity @param lenOut size_t slot @param err error struct @return rc */
    int property(long store, int cf, long name, long dst, long cap, long lenOut, long err);

    /** @param store handle @param cf id @param name C string @param out u64 slot @param err error struct @return rc */
    int propertyInt(long store, int cf, long name, long out, long err);

    /**
     * {@code ferry_checkpoint}.
     *
     * @param store handle
     * @param dir NUL-terminated directory path
     * @param flags FERRY_CHECKPOINT_*
     * @param err error struct
     * @return rc
     */
    int checkpoint(long store, long dir, int flags, long err);

    // ---- column families

    /** @param store handle @param out u32 slot @return rc */
    int cfCount(long store, long out);

    /** @param store handle @param cf id @param dst buffer @param cap capacity @param lenOut size_t slot @return rc */
    int cfName(long store, int cf, long dst, long cap, long lenOut);

    /**
     * {@code ferry_cf_create}.
     *
     * @param store handle
     * @param name C string
     * @param flags FERRY_CF_*
     * @param opts int64 FERRY_CFOPT_* values or 0
     * @param nopts number of options
     * @param extra C string or 0
     * @param idOut u32 slot
     * @param err error struct
     * @return rc
     */
    int cfCreate(long store, long name, int flags, long opts, int nopts, long extra, long idOut, long err);

    /**
     * {@code ferry_cf_find}.
     *
     * @param store handle
     * @param name C string
     * @param idOut u32 slot
     * @param err error struct
     * @return rc ({@code NOTFOUND} when there is no such family)
     */
    int cfFind(long store, long name, long idOut, long err);

    /**
     * {@code ferry_cf_list_all}.
     *
     * @param store handle
     * @param err error struct
     * @return rc
     */
    int cfListAll(long store, long err);

    /** @param store handle @param cf id @param err error struct @return rc */
    int cfDrop(long store, int cf, long err);

    /** @param store handle @param cf id @param out u32 slot @param err error struct @return rc */
    int cfFlags(long store, int cf, long out, long err);

    // ---- reads: the snapshot argument is 0 (latest), a snapshot or a transaction handle (FERRY_TXN_VIEW)

    /**
     * {@code ferry_get}.
     *
     * @param store handle
     * @param snapshot snapshot, transaction or 0
     * @param cf family id
     * @param key key address
     * @param klen key length
     * @param flags 0 or FERRY_CURSOR_NO_FILL_CACHE / NO_VERIFY_CHECKSUMS
     * @param dst destination
     * @param cap destination capacity
     * @param vlenOut size_t slot
     * @param err error struct
     * @return rc
     */
    int get(long store, long snapshot, int cf, long key, long klen, int flags, long dst, long cap, long vlenOut, long err);

    /**
     * {@code ferry_multi_get}.
     *
     * @param store handle
     * @param snapshot snapshot, transaction or 0
     * @param cf family id
     * @param n key count
     * @param keys packed keys
     * @param keysLen their length
     * @param flags 0 or FERRY_CURSOR_NO_FILL_CACHE / NO_VERIFY_CHECKSUMS
     * @param dst destination
     * @param cap destination capacity
     * @param lensOut int64 array
     * @param err error struct
     * @return keys answered or rc
     */
    int multiGet(long store, long snapshot, int cf, int n, long keys, long keysLen, int flags, long dst, long cap,
            long lensOut, long err);

    /** @param store handle @param snapshot snapshot, transaction or 0 @param cf id @param key address @param klen length @param out u64 slot @param err error struct @return rc */
    int valueCount(long store, long snapshot, int cf, long key, long klen, long out, long err);

    /**
     * {@code ferry_split_points}.
     *
     * @param store handle
     * @param snapshot snapshot or 0
     * @param cf family id
     * @param lower lower bound address or 0
     * @param llen its length
     * @param upper upper bound address or 0
     * @param ulen its length
     * @param max most records wanted
     * @param dst destination
     * @param cap destination capacity
     * @param lenOut size_t slot for the bytes written
     * @param err error struct
     * @return records written or rc
     */
    int splitPoints(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen, int max, long dst,
            long cap, long lenOut, long err);

    // ---- writes

    /** @param store handle @param cf id @param key address @param klen length @param val address @param vlen length @param flags 0 or FERRY_WRITE_* @param err error struct @return rc */
    int put(long store, int cf, long key, long klen, long val, long vlen, int flags, long err);

    /** @param store handle @param cf id @param key address @param klen length @param operand address @param olen length @param err error struct @return rc */
    int merge(long store, int cf, long key, long klen, long operand, long olen, long err);

    /** @param store handle @param cf id @param key address @param klen length @param err error struct @return rc */
    int delete(long store, int cf, long key, long klen, long err);

    /** @param store handle @param cf id @param begin address @param blen length @param end address @param elen length @param err error struct @return rc */
    int deleteRange(long store, int cf, long begin, long blen, long end, long elen, long err);

    /** @param store handle @param ops records @param len bytes @param count records @param flags 0 or FERRY_WRITE_* @param err error struct @return rc */
    int write(long store, long ops, long len, int count, int flags, long err);

    // ---- snapshots

    /** @param store handle @param out handle slot @param err error struct @return rc */
    int snapshotOpen(long store, long out, long err);

    /** @param snapshot handle @return rc */
    int snapshotClose(long snapshot);

    // ---- write transactions

    /** @param store handle @param flags 0 @param timeoutMs FERRY lock wait (-1, 0, ms) @param out handle slot @param err error struct @return rc */
    int txnBegin(long store, int flags, long timeoutMs, long out, long err);

    /** @param txn handle @param ops records @param len bytes @param count records @param err error struct @return rc */
    int txnWrite(long txn, long ops, long len, int count, long err);

    /**
     * {@code ferry_txn_get_for_update}.
     *
     * @param txn handle
     * @param cf family id
     * @param key key address
     * @param klen key length
     * @param dst destination
     * @param cap destination capacity
     * @param vlenOut size_t slot
     * @param err error struct
     * @return rc
     */
    int txnGetForUpdate(long txn, int cf, long key, long klen, long dst, long cap, long vlenOut, long err);

    /** @param txn handle @param err error struct @return rc */
    int txnCommit(long txn, long err);

    /** @param txn handle @return rc */
    int txnClose(long txn);

    /** @param txn handle @return rc */
    int txnAbandon(long txn);

    // ---- cursors

    /**
     * {@code ferry_cursor_open}.
     *
     * @param store handle
     * @param snapshot snapshot, transaction or 0
     * @param cf family id
     * @param lower address or 0
     * @param llen length
     * @param upper address or 0
     * @param ulen length
     * @param flags FERRY_CURSOR_*
     * @param out handle slot
     * @param err error struct
     * @return rc
     */
    int cursorOpen(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen, int flags, long out, long err);

    /** @param cursor handle @return rc */
    int cursorClose(long cursor);

    /**
     * {@code ferry_cursor_fill}.
     *
     * @param cursor handle
     * @param op FERRY_FIRST..FERRY_SEEK_PAIR_LT
     * @param key seek key address or 0
     * @param klen its length
     * @param page page address
     * @param cap page capacity
     * @param maxEntries entry limit
     * @param err error struct
     * @return entries written or rc
     */
    int cursorFill(long cursor, int op, long key, long klen, long page, long cap, int maxEntries, long err);

    // ---- backups (RocksDB)

    /** @param dir NUL-terminated backup directory @param out handle slot @param err error struct @return rc */
    int backupsOpen(long dir, long out, long err);

    /** @param backups handle @return rc */
    int backupsClose(long backups);

    /** @param backups handle @param store store handle @param idOut uint32 slot @param err error struct @return rc */
    int backupsCreate(long backups, long store, long idOut, long err);

    /**
     * {@code ferry_backups_list}.
     *
     * @param backups handle
     * @param dst destination for FERRY_BACKUP_INFO_SIZE-byte records
     * @param cap its capacity
     * @param countOut uint32 slot: the number of backups
     * @param err error struct
     * @return rc
     */
    int backupsList(long backups, long dst, long cap, long countOut, long err);

    /** @param backups handle @param id backup id, 0 for the latest @param dbDir NUL-terminated directory @param err error struct @return rc */
    int backupsRestore(long backups, int id, long dbDir, long err);

    /** @param backups handle @param keep backups to keep @param err error struct @return rc */
    int backupsPurge(long backups, int keep, long err);

    // ---- SST files and ingestion (RocksDB)

    /** @param path NUL-terminated file @param extra options C string or 0 @param out handle slot @param err error struct @return rc */
    int sstOpen(long path, long extra, long out, long err);

    /** @param writer handle @param key address @param klen length @param val address @param vlen length @param err error struct @return rc */
    int sstPut(long writer, long key, long klen, long val, long vlen, long err);

    /** @param writer handle @param key address @param klen length @param operand address @param olen length @param err error struct @return rc */
    int sstMerge(long writer, long key, long klen, long operand, long olen, long err);

    /** @param writer handle @param key address @param klen length @param err error struct @return rc */
    int sstDelete(long writer, long key, long klen, long err);

    /** @param writer handle @param sizeOut uint64 slot @param err error struct @return rc */
    int sstFinish(long writer, long sizeOut, long err);

    /** @param writer handle @return rc */
    int sstClose(long writer);

    /**
     * {@code ferry_ingest}.
     *
     * @param store handle
     * @param cf id
     * @param paths n NUL-terminated paths back to back
     * @param len their bytes
     * @param n number of paths
     * @param flags FERRY_INGEST_*
     * @param err error struct
     * @return rc
     */
    int ingest(long store, int cf, long paths, long len, int n, int flags, long err);

    // ---- RocksJava interop: handles are RocksJava's getNativeHandle() values

    /**
     * {@code ferry_rj_cursor_open}.
     *
     * @param db rocksdb::DB*
     * @param cf rocksdb::ColumnFamilyHandle*
     * @param snapshot const rocksdb::Snapshot* or 0
     * @param lower address or 0
     * @param llen length
     * @param upper address or 0
     * @param ulen length
     * @param flags FERRY_CURSOR_*
     * @param out handle slot
     * @param err error struct
     * @return rc
     */
    int rjCursorOpen(long db, long cf, long snapshot, long lower, long llen, long upper, long ulen, int flags, long out, long err);

    /** @param iterator rocksdb::Iterator* @param out handle slot @param err error struct @return rc */
    int rjCursorWrap(long iterator, long out, long err);

    /** @param cursor an interop cursor whose DB is closed @return rc */
    int rjCursorForget(long cursor);

    /**
     * {@code ferry_rj_get}.
     *
     * @param db rocksdb::DB*
     * @param cf rocksdb::ColumnFamilyHandle*
     * @param snapshot const rocksdb::Snapshot* or 0
     * @param key key address
     * @param klen key length
     * @param dst destination
     * @param cap destination capacity
     * @param vlenOut size_t slot
     * @param err error struct
     * @return rc
     */
    int rjGet(long db, long cf, long snapshot, long key, long klen, long dst, long cap, long vlenOut, long err);

    /**
     * {@code ferry_rj_multi_get}.
     *
     * @param db rocksdb::DB*
     * @param cf rocksdb::ColumnFamilyHandle*
     * @param snapshot const rocksdb::Snapshot* or 0
     * @param n key count
     * @param keys packed keys
     * @param keysLen their length
     * @param dst destination
     * @param cap destination capacity
     * @param lensOut int64 array
     * @param err error struct
     * @return keys answered or rc
     */
    int rjMultiGet(long db, long cf, long snapshot, int n, long keys, long keysLen, long dst, long cap, long lensOut, long err);

    /** @param db rocksdb::DB* @param cf rocksdb::ColumnFamilyHandle* @param key address @param klen length @param val address @param vlen length @param err error struct @return rc */
    int rjPut(long db, long cf, long key, long klen, long val, long vlen, long err);

    /** @param db rocksdb::DB* @param cfs array of ColumnFamilyHandle* @param ncfs its length @param ops records @param len bytes @param count records @param err error struct @return rc */
    int rjWrite(long db, long cfs, int ncfs, long ops, long len, int count, long err);

    // ---- shared memory (RocksDB): block caches, write buffer managers

    /** @param capacity bytes @param flags FERRY_CACHE_* @param highPriPpm high-priority share in ppm, -1 default @param out handle slot @param err error struct @return rc */
    int cacheCreate(long capacity, int flags, long highPriPpm, long out, long err);

    /** @param cache handle @param usageOut uint64 slot or 0 @param pinnedOut uint64 slot or 0 @param storesOut uint32 slot or 0 @param wbmsOut uint32 slot or 0 @return rc */
    int cacheUsage(long cache, long usageOut, long pinnedOut, long storesOut, long wbmsOut);

    /** @param cache handle @param err error struct @return rc (FERRY_EBUSY while held) */
    int cacheClose(long cache, long err);

    /** @param cache cache handle or 0 @param bufferSize bytes @param flags FERRY_WBM_* @param out handle slot @param err error struct @return rc */
    int wbmCreate(long cache, long bufferSize, int flags, long out, long err);

    /** @param wbm handle @param usageOut uint64 slot or 0 @param storesOut uint32 slot or 0 @return rc */
    int wbmUsage(long wbm, long usageOut, long storesOut);

    /** @param wbm handle @param err error struct @return rc (FERRY_EBUSY while held) */
    int wbmClose(long wbm, long err);
}
