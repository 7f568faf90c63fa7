package dev.ferry.jni;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.NativeBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The JNI binding: each method is a thin wrapper over one {@code ferry_*} function
 * ({@code native/src/jni/binding.c}), in ferry.h's order. Natives are {@code private static},
 * named after their method with a {@code 0} suffix, take {@code long} handles and addresses, and
 * return the C result unchanged.
 *
 * <p>Thread safety: stateless and thread-safe.
 */
public final class JniBinding implements NativeBinding {

    /** The single instance. */
    public static final JniBinding INSTANCE = new JniBinding();

    static {
        NativeLibrary.loadForJni();
        Abi.check(abiVersion0(), NativeLibrary.ferryPath());
    }

    private JniBinding() {
    }

    @Override public String name() { return "jni"; }

    @Override public long address(ByteBuffer direct) { return address0(direct); }

    @Override public ByteBuffer wrap(long address, int length) {
        return wrap0(address, length).order(ByteOrder.nativeOrder());
    }

    @Override public int abiVersion() { return abiVersion0(); }
    @Override public long strerror(int rc) { return strerror0(rc); }
    @Override public int noop() { return noop0(); }
    @Override public int engineAttach(int engine, long pathAddr, long err) {
        return engineAttach0(engine, pathAddr, err);
    }
    @Override public int enginePath(int engine, long dst, long cap) { return enginePath0(engine, dst, cap); }
    @Override public int storeOpen(int engine, long path, long opts, int nopts, long extra, long cfs, long cfsLen,
            int ncfs, long out, long err) {
        return storeOpen0(engine, path, opts, nopts, extra, cfs, cfsLen, ncfs, out, err);
    }
    @Override public int storeClose(long store) { return storeClose0(store); }
    @Override public int flush(long store, int cf, long err) { return flush0(store, cf, err); }
    @Override public int compactRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        return compactRange0(store, cf, begin, blen, end, elen, err);
    }
    @Override public int property(long store, int cf, long name, long dst, long cap, long lenOut, long err) {
        return property0(store, cf, name, dst, cap, lenOut, err);
    }
    @Override public int propertyInt(long store, int cf, long name, long out, long err) {
        return propertyInt0(store, cf, name, out, err);
    }
    @Override public int checkpoint(long store, long dir, int flags, long err) {
        return checkpoint0(store, dir, flags, err);
    }
    @Override public int cfCount(long store, long out) { return cfCount0(store, out); }
    @Override public int cfName(long store, int cf, long dst, long cap, long lenOut) {
        return cfName0(store, cf, dst, cap, lenOut);
    }
    @Override public int cfCreate(long store, long name, int flags, long opts, int nopts, long extra, long idOut,
            long err) {
        return cfCreate0(store, name, flags, opts, nopts, extra, idOut, err);
    }
    @Override public int cfFind(long store, long name, long idOut, long err) {
        return cfFind0(store, name, idOut, err);
    }
    @Override public int cfListAll(long store, long err) { return cfListAll0(store, err); }
    @Override public int cfDrop(long store, int cf, long err) { return cfDrop0(store, cf, err); }
    @Override public int cfFlags(long store, int cf, long out, long err) { return cfFlags0(store, cf, out, err); }
    @Override public int get(long store, long snapshot, int cf, long key, long klen, int flags, long dst, long cap,
            long vlenOut, long err) {
        return get0(store, snapshot, cf, key, klen, flags, dst, cap, vlenOut, err);
    }
    @Override public int multiGet(long store, long snapshot, int cf, int n, long keys, long keysLen, int flags,
            long dst, long cap, long lensOut, long err) {
        return multiGet0(store, snapshot, cf, n, keys, keysLen, flags, dst, cap, lensOut, err);
    }
    @Override public int valueCount(long store, long snapshot, int cf, long key, long klen, long out, long err) {
        return valueCount0(store, snapshot, cf, key, klen, out, err);
    }
    @Override public int splitPoints(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen,
            int max, long dst, long cap, long lenOut, long err) {
        return splitPoints0(store, snapshot, cf, lower, llen, upper, ulen, max, dst, cap, lenOut, err);
    }
    @Override public int put(long store, int cf, long key, long klen, long val, long vlen, int flags, long err) {
        return put0(store, cf, key, klen, val, vlen, flags, err);
    }
    @Override public int merge(long store, int cf, long key, long klen, long operand, long olen, long err) {
        return merge0(store, cf, key, klen, operand, olen, err);
    }
    @Override public int delete(long store, int cf, long key, long klen, long err) {
        return delete0(store, cf, key, klen, err);
    }
    @Override public int deleteRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        return deleteRange0(store, cf, begin, blen, end, elen, err);
    }
    @Override public int write(long store, long ops, long len, int count, int flags, long err) {
        return write0(store, ops, len, count, flags, err);
    }
    @Override public int snapshotOpen(long store, long out, long err) { return snapshotOpen0(store, out, err); }
    @Override public int snapshotClose(long snapshot) { return snapshotClose0(snapshot); }
    @Override public int txnBegin(long store, int flags, long timeoutMs, long out, long err) {
        return txnBegin0(store, flags, timeoutMs, out, err);
    }
    @Override public int txnWrite(long txn, long ops, long len, int count, long err) {
        return txnWrite0(txn, ops, len, count, err);
    }
    @Override public int txnGetForUpdate(long txn, int cf, long key, long klen, long dst, long cap, long vlenOut,
            long err) {
        return txnGetForUpdate0(txn, cf, key, klen, dst, cap, vlenOut, err);
    }
    @Override public int txnCommit(long txn, long err) { return txnCommit0(txn, err); }
    @Override public int txnClose(long txn) { return txnClose0(txn); }
    @Override public int txnAbandon(long txn) { return txnAbandon0(txn); }
    @Override public int cursorOpen(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen,
            int flags, long out, long err) {
        return cursorOpen0(store, snapshot, cf, lower, llen, upper, ulen, flags, out, err);
    }
    @Override public int cursorClose(long cursor) { return cursorClose0(cursor); }
    @Override public int cursorFill(long cursor, int op, long key, long klen, long page, long cap, int maxEntries,
            long err) {
        return cursorFill0(cursor, op, key, klen, page, cap, maxEntries, err);
    }
    @Override public int backupsOpen(long dir, long out, long err) { return backupsOpen0(dir, out, err); }
    @Override public int backupsClose(long backups) { return backupsClose0(backups); }
    @Override public int backupsCreate(long backups, long store, long idOut, long err) {
        return backupsCreate0(backups, store, idOut, err);
    }
    @Override public int backupsList(long backups, long dst, long cap, long countOut, long err) {
        return backupsList0(backups, dst, cap, countOut, err);
    }
    @Override public int backupsRestore(long backups, int id, long dbDir, long err) {
        return backupsRestore0(backups, id, dbDir, err);
    }
    @Override public int backupsPurge(long backups, int keep, long err) { return backupsPurge0(backups, keep, err); }
    @Override public int sstOpen(long path, long extra, long out, long err) { return sstOpen0(path, extra, out, err); }
    @Override public int sstPut(long writer, long key, long klen, long val, long vlen, long err) {
        return sstPut0(writer, key, klen, val, vlen, err);
    }
    @Override public int sstMerge(long writer, long key, long klen, long operand, long olen, long err) {
        return sstMerge0(writer, key, klen, operand, olen, err);
    }
    @Override public int sstDelete(long writer, long key, long klen, long err) {
        return sstDelete0(writer, key, klen, err);
    }
    @Override public int sstFinish(long writer, long sizeOut, long err) { return sstFinish0(writer, sizeOut, err); }
    @Override public int sstClose(long writer) { return sstClose0(writer); }
    @Override public int ingest(long store, int cf, long paths, long len, int n, int flags, long err) {
        return ingest0(store, cf, paths, len, n, flags, err);
    }
    @Override public int rjCursorOpen(long db, long cf, long snapshot, long lower, long llen, long upper, long ulen,
            int flags, long out, long err) {
        return rjCursorOpen0(db, cf, snapshot, lower, llen, upper, ulen, flags, out, err);
    }
    @Override public int rjCursorWrap(long iterator, long out, long err) { return rjCursorWrap0(iterator, out, err); }
    @Override public int rjCursorForget(long cursor) { return rjCursorForget0(cursor); }
    @Override public int rjGet(long db, long cf, long snapshot, long key, long klen, long dst, long cap, long vlenOut,
            long err) {
        return rjGet0(db, cf, snapshot, key, klen, dst, cap, vlenOut, err);
    }
    @Override public int rjMultiGet(long db, long cf, long snapshot, int n, long keys, long keysLen, long dst,
            long cap, long lensOut, long err) {
        return rjMultiGet0(db, cf, snapshot, n, keys, keysLen, dst, cap, lensOut, err);
    }
    @Override public int rjPut(long db, long cf, long key, long klen, long val, long vlen, long err) {
        return rjPut0(db, cf, key, klen, val, vlen, err);
    }
    @Override public int rjWrite(long db, long cfs, int ncfs, long ops, long len, int count, long err) {
        return rjWrite0(db, cfs, ncfs, ops, len, count, err);
    }
    @Override public int cacheCreate(long capacity, int flags, long highPriPpm, long out, long err) {
        return cacheCreate0(capacity, flags, highPriPpm, out, err);
    }
    @Override public int cacheUsage(long cache, long usageOut, long pinnedOut, long storesOut, long wbmsOut) {
        return cacheUsage0(cache, usageOut, pinnedOut, storesOut, wbmsOut);
    }
    @Override public int cacheClose(long cache, long err) { return cacheClose0(cache, err); }
    @Override public int wbmCreate(long cache, long bufferSize, int flags, long out, long err) {
        return wbmCreate0(cache, bufferSize, flags, out, err);
    }
    @Override public int wbmUsage(long wbm, long usageOut, long storesOut) { return wbmUsage0(wbm, usageOut, storesOut); }
    @Override public int wbmClose(long wbm, long err) { return wbmClose0(wbm, err); }

    private static native long address0(ByteBuffer direct);
    private static native ByteBuffer wrap0(long address, int length);
    private static native int abiVersion0();
    private static native long strerror0(int rc);
    private static native int noop0();
    private static native int engineAttach0(int engine, long pathAddr, long err);
    private static native int enginePath0(int engine, long dst, long cap);
    private static native int storeOpen0(int engine, long path, long opts, int nopts, long extra, long cfs,
            long cfsLen, int ncfs, long out, long err);
    private static native int storeClose0(long store);
    private static native int flush0(long store, int cf, long err);
    private static native int compactRange0(long store, int cf, long begin, long blen, long end, long elen, long err);
    private static native int property0(long store, int cf, long name, long dst, long cap, long lenOut, long err);
    private static native int propertyInt0(long store, int cf, long name, long out, long err);
    private static native int checkpoint0(long store, long dir, int flags, long err);
    private static native int cfCount0(long store, long out);
    private static native int cfName0(long store, int cf, long dst, long cap, long lenOut);
    private static native int cfCreate0(long store, long name, int flags, long opts, int nopts, long extra, long idOut,
            long err);
    private static native int cfFind0(long store, long name, long idOut, long err);
    private static native int cfListAll0(long store, long err);
    private static native int cfDrop0(long store, int cf, long err);
    private static native int cfFlags0(long store, int cf, long out, long err);
    private static native int get0(long store, long snapshot, int cf, long key, long klen, int flags, long dst,
            long cap, long vlenOut, long err);
    private static native int multiGet0(long store, long snapshot, int cf, int n, long keys, long keysLen, int flags,
            long dst, long cap, long lensOut, long err);
    private static native int valueCount0(long store, long snapshot, int cf, long key, long klen, long out, long err);
    private static native int splitPoints0(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen,
            int max, long dst, long cap, long lenOut, long err);
    private static native int put0(long store, int cf, long key, long klen, long val, long vlen, int flags, long err);
    private static native int merge0(long store, int cf, long key, long klen, long operand, long olen, long err);
    private static native int delete0(long store, int cf, long key, long klen, long err);
    private static native int deleteRange0(long store, int cf, long begin, long blen, long end, long elen, long err);
    private static native int write0(long store, long ops, long len, int count, int flags, long err);
    private static native int snapshotOpen0(long store, long out, long err);
    private static native int snapshotClose0(long snapshot);
    private static native int txnBegin0(long store, int flags, long timeoutMs, long out, long err);
    private static native int txnWrite0(long txn, long ops, long len, int count, long err);
    private static native int txnGetForUpdate0(long txn, int cf, long key, long klen, long dst, long cap, long vlenOut,
            long err);
    private static native int txnCommit0(long txn, long err);
    private static native int txnClose0(long txn);
    private static native int txnAbandon0(long txn);
    private static native int cursorOpen0(long store, long snapshot, int cf, long lower, long llen, long upper,
            long ulen, int flags, long out, long err);
    private static native int cursorClose0(long cursor);
    private static native int cursorFill0(long cursor, int op, long key, long klen, long page, long cap,
            int maxEntries, long err);
    private static native int backupsOpen0(long dir, long out, long err);
    private static native int backupsClose0(long backups);
    private static native int backupsCreate0(long backups, long store, long idOut, long err);
    private static native int backupsList0(long backups, long dst, long cap, long countOut, long err);
    private static native int backupsRestore0(long backups, int id, long dbDir, long err);
    private static native int backupsPurge0(long backups, int keep, long err);
    private static native int sstOpen0(long path, long extra, long out, long err);
    private static native int sstPut0(long writer, long key, long klen, long val, long vlen, long err);
    private static native int sstMerge0(long writer, long key, long klen, long operand, long olen, long err);
    private static native int sstDelete0(long writer, long key, long klen, long err);
    private static native int sstFinish0(long writer, long sizeOut, long err);
    private static native int sstClose0(long writer);
    private static native int ingest0(long store, int cf, long paths, long len, int n, int flags, long err);
    private static native int rjCursorOpen0(long db, long cf, long snapshot, long lower, long llen, long upper,
            long ulen, int flags, long out, long err);
    private static native int rjCursorWrap0(long iterator, long out, long err);
    private static native int rjCursorForget0(long cursor);
    private static native int rjGet0(long db, long cf, long snapshot, long key, long klen, long dst, long cap,
            long vlenOut, long err);
    private static native int rjMultiGet0(long db, long cf, long snapshot, int n, long keys, long keysLen, long dst,
            long cap, long lensOut, long err);
    private static native int rjPut0(long db, long cf, long key, long klen, long val, long vlen, long err);
    private static native int rjWrite0(long db, long cfs, int ncfs, long ops, long len, int count, long err);
    private static native int cacheCreate0(long capacity, int flags, long highPriPpm, long out, long err);
    private static native int cacheUsage0(long cache, long usageOut, long pinnedOut, long storesOut, long wbmsOut);
    private static native int cacheClose0(long cache, long err);
    private static native int wbmCreate0(long cache, long bufferSize, int flags, long out, long err);
    private static native int wbmUsage0(long wbm, long usageOut, long storesOut);
    private static native int wbmClose0(long wbm, long err);
}
