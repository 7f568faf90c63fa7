package dev.ferry.ffm.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.NativeBinding;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * The FFM binding (Java 22+): each method calls one {@code ferry_*} function of
 * {@code native/include/ferry.h} through a downcall handle, with no glue code in between: this
 * binding loads libferry with {@link SymbolLookup#libraryLookup} and never touches JNI (no
 * {@code System.load}, no {@code dev.ferry.jni} class). {@link Fn} lists the functions in ferry.h's
 * order with their C prototypes; {@code NativeBoundaryFfmTest} parses ferry.h and fails on a
 * descriptor whose layouts differ from its prototype's.
 *
 * <p>Every handle is a {@code static final} constant built once from a {@link FunctionDescriptor},
 * so the JIT sees it as a constant and inlines the call. Each lives in its own holder class and is
 * made on the function's first call, not when this class initialises: a new descriptor shape costs
 * the JDK a generated class and stub, and a short-lived process that opens one store should pay
 * only for the functions it calls. When the class initialises it starts a daemon thread,
 * {@code ferry-ffm-warm}, that checks libferry's ABI and makes the handles of opening a store and
 * its first put, get and close while the caller loads the engine library; it ends when done and
 * {@code -Dferry.ffm.warm=false} turns it off. Pointers and
 * {@code size_t} are passed as {@code long} ({@link ValueLayout#JAVA_LONG}): on the LP64 ABIs
 * (x86_64 and aarch64 System V, AAPCS64) and on Windows x64 a pointer is a 64-bit integer passed
 * in the same registers, so no {@link MemorySegment} is created per call. {@code int} and
 * {@code uint32_t} are {@link ValueLayout#JAVA_INT}; every function returns {@code int}.
 *
 * <p>{@link Linker.Option#critical(boolean) critical} handles (no thread-state transition, no
 * heap access) are used only for functions that cannot block or call back: {@code ferry_noop}
 * (for {@link #noopCritical()}), {@code ferry_abi_version}, {@code ferry_cf_count} and
 * {@code ferry_cf_name} (lock-free reads of the store's family table) and {@code ferry_strerror} (a
 * static string). Fills, gets, writes, opens
 * and closes may do I/O or page-fault and use plain handles.
 *
 * <p>If libferry cannot be loaded (or lacks a symbol), class initialisation still succeeds; the
 * {@link LinkageError} is kept and thrown, as the cause of an {@link UnsatisfiedLinkError}, by the
 * first call that needs the library. Symbols are all looked up during class initialisation and
 * {@link #loadError()} waits for the ABI check, so it reports a missing symbol or a mismatched
 * library before any call; no handle but {@code ferry_abi_version}'s is made for a mismatched one.
 *
 * <p>Needs native access: run with {@code --enable-native-access=ALL-UNNAMED} (class path) or
 * {@code --enable-native-access=dev.ferry.ffm} (module path), or put
 * {@code Enable-Native-Access: ALL-UNNAMED} in the application's main jar; the JDK honours that
 * attribute only in the main jar of {@code java -jar}, not in this library jar.
 *
 * <p>Thread safety: stateless and thread-safe.
 */
@SuppressWarnings("restricted") // binding native code is this class's purpose
public final class FfmBinding implements NativeBinding {

    /**
     * The first reason libferry cannot be used: set while the class initialises (library or a
     * symbol missing, ABI mismatch) or, later, when a function's handle cannot be made.
     */
    private static volatile LinkageError loadError;

    /**
     * System property: {@code false} stops this class from starting, when it initialises, a
     * background thread that checks libferry's ABI and makes the handles {@link dev.ferry.Store#open}
     * and the first reads and writes need (each is then made by its first call instead).
     */
    public static final String WARM_PROPERTY = "ferry.ffm.warm";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = openLibrary();

    private static final Linker.Option[] PLAIN = {};
    private static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};

    static {
        if (LIB != null) {
            // Every symbol is looked up now (dlsym, cheap), so a stale library is reported at once;
            // the handles themselves are made on first call (see the holder classes below).
            for (Fn fn : Fn.values()) {
                if (LIB.find(fn.symbol).isEmpty()) {
                    recordLoadError(new UnsatisfiedLinkError("libferry at " + NativeLibrary.ferryPath()
                            + " has no symbol " + fn.symbol + " (stale or foreign library?)"));
                    break;
                }
            }
        }
        if (loadError == null && Boolean.parseBoolean(System.getProperty(WARM_PROPERTY, "true"))) {
            try {
                Thread t = new Thread(FfmBinding::warm, "ferry-ffm-warm");
                t.setDaemon(true);
                t.start();
            } catch (RuntimeException | OutOfMemoryError e) {
                // no thread to be had: each handle is then made by its function's first call
            }
        }
    }

    /** The single instance. */
    public static final FfmBinding INSTANCE = new FfmBinding();

    private FfmBinding() {
    }

    /**
     * Returns the error that kept libferry from loading, if any (the calls that need the library
     * throw it as their cause).
     *
     * @return the error, or empty when libferry loaded, has every symbol and its ABI matches (and no
     *         handle made since has failed)
     */
    public static Optional<LinkageError> loadError() {
        AbiCheck.ensure();
        return Optional.ofNullable(loadError);
    }

    /**
     * The background warm-up: the JDK's first downcall handle (its linker's own start-up, tens of
     * milliseconds) and the ABI check, then the handles of opening a store, its first put and get
     * and its close, in that order, while the thread that opens the store loads the engine
     * library. A caller that reaches a handle first makes it itself; one that reaches it while this
     * thread is making it waits for it (the JVM's class initialisation lock), so nothing is made
     * twice and nothing is called before the ABI check.
     */
    private static void warm() {
        AbiCheck.ensure();
        MethodHandle[] made = {EngineAttach.H, StoreOpen.H, CfCount.H, CfName.H, Put.H, Get.H, StoreClose.H};
        assert made.length == 7;
    }

    /**
     * Checks libferry's ABI version once, before any handle but ferry_abi_version's own is made;
     * records a mismatch as the load error (then no further handle is made and every call throws).
     */
    private static final class AbiCheck {
        static {
            if (loadError == null) {
                try {
                    Abi.check((int) AbiVersion.H.invokeExact(), NativeLibrary.ferryPath());
                } catch (LinkageError e) {
                    recordLoadError(e);
                } catch (Throwable t) {
                    recordLoadError(linkageError("ferry_abi_version failed: " + t, t));
                }
            }
        }

        /** Does nothing; calling it initialises the class, which runs the check (once). */
        static void ensure() {
        }
    }

    /**
     * Calls {@code ferry_noop} through a {@link Linker.Option#critical(boolean) critical} handle:
     * the floor of an FFM call without the thread-state transition, for benchmarks.
     *
     * @return 0
     */
    public static int noopCritical() {
        try {
            return (int) NoopCritical.H.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_noop", t);
        }
    }

    @Override
    public String name() {
        return "ffm";
    }

    /**
     * {@inheritDoc}
     *
     * <p>The result is the address of index 0 whatever the buffer's position, like JNI's
     * {@code GetDirectBufferAddress}; a heap buffer gives 0.
     */
    @Override
    public long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            return 0;
        }
        // ofBuffer covers position..limit: step back to index 0.
        return MemorySegment.ofBuffer(direct).address() - direct.position();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The buffer is made from a global-scope {@link MemorySegment}, so it checks that scope on
     * each access (JNI's {@code NewDirectByteBuffer} makes one that does not). That once cost a
     * scan that read LMDB's map through such buffers about 40% more; no scan reads through them
     * now (cursor pages and views read memory through {@code dev.ferry.internal.Mem}), and the one
     * caller, {@code View.copyTo(ByteBuffer)}, copies the whole view in one bulk transfer.
     */
    @Override
    public ByteBuffer wrap(long address, int length) {
        return MemorySegment.ofAddress(address).reinterpret(length).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    @Override
    public int abiVersion() {
        try {
            return (int) AbiVersion.H.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_abi_version", t);
        }
    }

    @Override
    public long strerror(int rc) {
        try {
            return (long) Strerror.H.invokeExact(rc);
        } catch (Throwable t) {
            throw failure("ferry_strerror", t);
        }
    }

    @Override
    public int noop() {
        try {
            return (int) Noop.H.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_noop", t);
        }
    }

    @Override
    public int engineAttach(int engine, long pathAddr, long err) {
        try {
            return (int) EngineAttach.H.invokeExact(engine, pathAddr, err);
        } catch (Throwable t) {
            throw failure("ferry_engine_attach", t);
        }
    }

    @Override
    public int enginePath(int engine, long dst, long cap) {
        try {
            return (int) EnginePath.H.invokeExact(engine, dst, cap);
        } catch (Throwable t) {
            throw failure("ferry_engine_path", t);
        }
    }

    @Override
    public int storeOpen(int engine, long path, long opts, int nopts, long extra, long cfs, long cfsLen, int ncfs,
            long out, long err) {
        if (cfsLen < 0) {
            return Abi.EINVAL;
        }
        try {
            return (int) StoreOpen.H.invokeExact(engine, path, opts, nopts, extra, cfs, cfsLen, ncfs, out, err);
        } catch (Throwable t) {
            throw failure("ferry_store_open", t);
        }
    }

    @Override
    public int storeClose(long store) {
        try {
            return (int) StoreClose.H.invokeExact(store);
        } catch (Throwable t) {
            throw failure("ferry_store_close", t);
        }
    }

    @Override
    public int flush(long store, int cf, long err) {
        try {
            return (int) Flush.H.invokeExact(store, cf, err);
        } catch (Throwable t) {
            throw failure("ferry_flush", t);
        }
    }

    @Override
    public int compactRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        try {
            return (int) CompactRange.H.invokeExact(store, cf, begin, blen, end, elen, err);
        } catch (Throwable t) {
            throw failure("ferry_compact_range", t);
        }
    }

    @Override
    public int property(long store, int cf, long name, long dst, long cap, long lenOut, long err) {
        try {
            return (int) Property.H.invokeExact(store, cf, name, dst, cap, lenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_property", t);
        }
    }

    @Override
    public int propertyInt(long store, int cf, long name, long out, long err) {
        try {
            return (int) PropertyInt.H.invokeExact(store, cf, name, out, err);
        } catch (Throwable t) {
            throw failure("ferry_property_int", t);
        }
    }

    @Override
    public int checkpoint(long store, long dir, int flags, long err) {
        try {
            return (int) Checkpoint.H.invokeExact(store, dir, flags, err);
        } catch (Throwable t) {
            throw failure("ferry_checkpoint", t);
        }
    }

    @Override
    public int cfCount(long store, long out) {
        try {
            return (int) CfCount.H.invokeExact(store, out);
        } catch (Throwable t) {
            throw failure("ferry_cf_count", t);
        }
    }

    @Override
    public int cfName(long store, int cf, long dst, long cap, long lenOut) {
        try {
            return (int) CfName.H.invokeExact(store, cf, dst, cap, lenOut);
        } catch (Throwable t) {
            throw failure("ferry_cf_name", t);
        }
    }

    @Override
    public int cfCreate(long store, long name, int flags, long opts, int nopts, long extra, long idOut, long err) {
        try {
            return (int) CfCreate.H.invokeExact(store, name, flags, opts, nopts, extra, idOut, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_create", t);
        }
    }

    @Override
    public int cfFind(long store, long name, long idOut, long err) {
        try {
            return (int) CfFind.H.invokeExact(store, name, idOut, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_find", t);
        }
    }

    @Override
    public int cfListAll(long store, long err) {
        try {
            return (int) CfListAll.H.invokeExact(store, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_list_all", t);
        }
    }

    @Override
    public int cfDrop(long store, int cf, long err) {
        try {
            return (int) CfDrop.H.invokeExact(store, cf, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_drop", t);
        }
    }

    @Override
    public int cfFlags(long store, int cf, long out, long err) {
        try {
            return (int) CfFlags.H.invokeExact(store, cf, out, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_flags", t);
        }
    }

    @Override
    public int get(long store, long snapshot, int cf, long key, long klen, int flags, long dst, long cap, long vlenOut,
            long err) {
        try {
            return (int) Get.H.invokeExact(store, snapshot, cf, key, klen, flags, dst, cap, vlenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_get", t);
        }
    }

    @Override
    public int multiGet(long store, long snapshot, int cf, int n, long keys, long keysLen, int flags, long dst,
            long cap, long lensOut, long err) {
        try {
            return (int) MultiGet.H.invokeExact(store, snapshot, cf, n, keys, keysLen, flags, dst, cap, lensOut, err);
        } catch (Throwable t) {
            throw failure("ferry_multi_get", t);
        }
    }

    @Override
    public int valueCount(long store, long snapshot, int cf, long key, long klen, long out, long err) {
        try {
            return (int) ValueCount.H.invokeExact(store, snapshot, cf, key, klen, out, err);
        } catch (Throwable t) {
            throw failure("ferry_value_count", t);
        }
    }

    @Override
    public int splitPoints(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen, int max,
            long dst, long cap, long lenOut, long err) {
        try {
            return (int) SplitPoints.H.invokeExact(store, snapshot, cf, lower, llen, upper, ulen, max, dst, cap, lenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_split_points", t);
        }
    }

    @Override
    public int put(long store, int cf, long key, long klen, long val, long vlen, int flags, long err) {
        try {
            return (int) Put.H.invokeExact(store, cf, key, klen, val, vlen, flags, err);
        } catch (Throwable t) {
            throw failure("ferry_put", t);
        }
    }

    @Override
    public int merge(long store, int cf, long key, long klen, long operand, long olen, long err) {
        try {
            return (int) Merge.H.invokeExact(store, cf, key, klen, operand, olen, err);
        } catch (Throwable t) {
            throw failure("ferry_merge", t);
        }
    }

    @Override
    public int delete(long store, int cf, long key, long klen, long err) {
        try {
            return (int) Delete.H.invokeExact(store, cf, key, klen, err);
        } catch (Throwable t) {
            throw failure("ferry_delete", t);
        }
    }

    @Override
    public int deleteRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        try {
            return (int) DeleteRange.H.invokeExact(store, cf, begin, blen, end, elen, err);
        } catch (Throwable t) {
            throw failure("ferry_delete_range", t);
        }
    }

    @Override
    public int write(long store, long ops, long len, int count, int flags, long err) {
        try {
            return (int) Write.H.invokeExact(store, ops, len, count, flags, err);
        } catch (Throwable t) {
            throw failure("ferry_write", t);
        }
    }

    @Override
    public int snapshotOpen(long store, long out, long err) {
        try {
            return (int) SnapshotOpen.H.invokeExact(store, out, err);
        } catch (Throwable t) {
            throw failure("ferry_snapshot_open", t);
        }
    }

    @Override
    public int snapshotClose(long snapshot) {
        try {
            return (int) SnapshotClose.H.invokeExact(snapshot);
        } catch (Throwable t) {
            throw failure("ferry_snapshot_close", t);
        }
    }

    @Override
    public int txnBegin(long store, int flags, long timeoutMs, long out, long err) {
        try {
            return (int) TxnBegin.H.invokeExact(store, flags, timeoutMs, out, err);
        } catch (Throwable t) {
            throw failure("ferry_txn_begin", t);
        }
    }

    @Override
    public int txnWrite(long txn, long ops, long len, int count, long err) {
        try {
            return (int) TxnWrite.H.invokeExact(txn, ops, len, count, err);
        } catch (Throwable t) {
            throw failure("ferry_txn_write", t);
        }
    }

    @Override
    public int txnGetForUpdate(long txn, int cf, long key, long klen, long dst, long cap, long vlenOut, long err) {
        try {
            return (int) TxnGetForUpdate.H.invokeExact(txn, cf, key, klen, dst, cap, vlenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_txn_get_for_update", t);
        }
    }

    @Override
    public int txnCommit(long txn, long err) {
        try {
            return (int) TxnCommit.H.invokeExact(txn, err);
        } catch (Throwable t) {
            throw failure("ferry_txn_commit", t);
        }
    }

    @Override
    public int txnClose(long txn) {
        try {
            return (int) TxnClose.H.invokeExact(txn);
        } catch (Throwable t) {
            throw failure("ferry_txn_close", t);
        }
    }

    @Override
    public int txnAbandon(long txn) {
        try {
            return (int) TxnAbandon.H.invokeExact(txn);
        } catch (Throwable t) {
            throw failure("ferry_txn_abandon", t);
        }
    }

    @Override
    public int cursorOpen(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen, int flags,
            long out, long err) {
        try {
            return (int) CursorOpen.H.invokeExact(store, snapshot, cf, lower, llen, upper, ulen, flags, out, err);
        } catch (Throwable t) {
            throw failure("ferry_cursor_open", t);
        }
    }

    @Override
    public int cursorClose(long cursor) {
        try {
            return (int) CursorClose.H.invokeExact(cursor);
        } catch (Throwable t) {
            throw failure("ferry_cursor_close", t);
        }
    }

    @Override
    public int cursorFill(long cursor, int op, long key, long klen, long page, long cap, int maxEntries, long err) {
        try {
            return (int) CursorFill.H.invokeExact(cursor, op, key, klen, page, cap, maxEntries, err);
        } catch (Throwable t) {
            throw failure("ferry_cursor_fill", t);
        }
    }

    @Override
    public int backupsOpen(long dir, long out, long err) {
        try {
            return (int) BackupsOpen.H.invokeExact(dir, out, err);
        } catch (Throwable t) {
            throw failure("ferry_backups_open", t);
        }
    }

    @Override
    public int backupsClose(long backups) {
        try {
            return (int) BackupsClose.H.invokeExact(backups);
        } catch (Throwable t) {
            throw failure("ferry_backups_close", t);
        }
    }

    @Override
    public int backupsCreate(long backups, long store, long idOut, long err) {
        try {
            return (int) BackupsCreate.H.invokeExact(backups, store, idOut, err);
        } catch (Throwable t) {
            throw failure("ferry_backups_create", t);
        }
    }

    @Override
    public int backupsList(long backups, long dst, long cap, long countOut, long err) {
        try {
            return (int) BackupsList.H.invokeExact(backups, dst, cap, countOut, err);
        } catch (Throwable t) {
            throw failure("ferry_backups_list", t);
        }
    }

    @Override
    public int backupsRestore(long backups, int id, long dbDir, long err) {
        try {
            return (int) BackupsRestore.H.invokeExact(backups, id, dbDir, err);
        } catch (Throwable t) {
            throw failure("ferry_backups_restore", t);
        }
    }

    @Override
    public int backupsPurge(long backups, int keep, long err) {
        try {
            return (int) BackupsPurge.H.invokeExact(backups, keep, err);
        } catch (Throwable t) {
            throw failure("ferry_backups_purge", t);
        }
    }

    @Override
    public int sstOpen(long path, long extra, long out, long err) {
        try {
            return (int) SstOpen.H.invokeExact(path, extra, out, err);
        } catch (Throwable t) {
            throw failure("ferry_sst_open", t);
        }
    }

    @Override
    public int sstPut(long writer, long key, long klen, long val, long vlen, long err) {
        try {
            return (int) SstPut.H.invokeExact(writer, key, klen, val, vlen, err);
        } catch (Throwable t) {
            throw failure("ferry_sst_put", t);
        }
    }

    @Override
    public int sstMerge(long writer, long key, long klen, long operand, long olen, long err) {
        try {
            return (int) SstMerge.H.invokeExact(writer, key, klen, operand, olen, err);
        } catch (Throwable t) {
            throw failure("ferry_sst_merge", t);
        }
    }

    @Override
    public int sstDelete(long writer, long key, long klen, long err) {
        try {
            return (int) SstDelete.H.invokeExact(writer, key, klen, err);
        } catch (Throwable t) {
            throw failure("ferry_sst_delete", t);
        }
    }

    @Override
    public int sstFinish(long writer, long sizeOut, long err) {
        try {
            return (int) SstFinish.H.invokeExact(writer, sizeOut, err);
        } catch (Throwable t) {
            throw failure("ferry_sst_finish", t);
        }
    }

    @Override
    public int sstClose(long writer) {
        try {
            return (int) SstClose.H.invokeExact(writer);
        } catch (Throwable t) {
            throw failure("ferry_sst_close", t);
        }
    }

    @Override
    public int ingest(long store, int cf, long paths, long len, int n, int flags, long err) {
        try {
            return (int) Ingest.H.invokeExact(store, cf, paths, len, n, flags, err);
        } catch (Throwable t) {
            throw failure("ferry_ingest", t);
        }
    }

    @Override
    public int rjCursorOpen(long db, long cf, long snapshot, long lower, long llen, long upper, long ulen, int flags,
            long out, long err) {
        try {
            return (int) RjCursorOpen.H.invokeExact(db, cf, snapshot, lower, llen, upper, ulen, flags, out, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_open", t);
        }
    }

    @Override
    public int rjCursorWrap(long iterator, long out, long err) {
        try {
            return (int) RjCursorWrap.H.invokeExact(iterator, out, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_wrap", t);
        }
    }

    @Override
    public int rjCursorForget(long cursor) {
        try {
            return (int) RjCursorForget.H.invokeExact(cursor);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_forget", t);
        }
    }

    @Override
    public int rjGet(long db, long cf, long snapshot, long key, long klen, long dst, long cap, long vlenOut, long err) {
        try {
            return (int) RjGet.H.invokeExact(db, cf, snapshot, key, klen, dst, cap, vlenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_get", t);
        }
    }

    @Override
    public int rjMultiGet(long db, long cf, long snapshot, int n, long keys, long keysLen, long dst, long cap,
            long lensOut, long err) {
        try {
            return (int) RjMultiGet.H.invokeExact(db, cf, snapshot, n, keys, keysLen, dst, cap, lensOut, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_multi_get", t);
        }
    }

    @Override
    public int rjPut(long db, long cf, long key, long klen, long val, long vlen, long err) {
        try {
            return (int) RjPut.H.invokeExact(db, cf, key, klen, val, vlen, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_put", t);
        }
    }

    @Override
    public int rjWrite(long db, long cfs, int ncfs, long ops, long len, int count, long err) {
        try {
            return (int) RjWrite.H.invokeExact(db, cfs, ncfs, ops, len, count, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_write", t);
        }
    }

    @Override
    public int cacheCreate(long capacity, int flags, long highPriPpm, long out, long err) {
        try {
            return (int) CacheCreate.H.invokeExact(capacity, flags, highPriPpm, out, err);
        } catch (Throwable t) {
            throw failure("ferry_cache_create", t);
        }
    }

    @Override
    public int cacheUsage(long cache, long usageOut, long pinnedOut, long storesOut, long wbmsOut) {
        try {
            return (int) CacheUsage.H.invokeExact(cache, usageOut, pinnedOut, storesOut, wbmsOut);
        } catch (Throwable t) {
            throw failure("ferry_cache_usage", t);
        }
    }

    @Override
    public int cacheClose(long cache, long err) {
        try {
            return (int) CacheClose.H.invokeExact(cache, err);
        } catch (Throwable t) {
            throw failure("ferry_cache_close", t);
        }
    }

    @Override
    public int wbmCreate(long cache, long bufferSize, int flags, long out, long err) {
        try {
            return (int) WbmCreate.H.invokeExact(cache, bufferSize, flags, out, err);
        } catch (Throwable t) {
            throw failure("ferry_wbm_create", t);
        }
    }

    @Override
    public int wbmUsage(long wbm, long usageOut, long storesOut) {
        try {
            return (int) WbmUsage.H.invokeExact(wbm, usageOut, storesOut);
        } catch (Throwable t) {
            throw failure("ferry_wbm_usage", t);
        }
    }

    @Override
    public int wbmClose(long wbm, long err) {
        try {
            return (int) WbmClose.H.invokeExact(wbm, err);
        } catch (Throwable t) {
            throw failure("ferry_wbm_close", t);
        }
    }

    // ---------------------------------------------------------------- functions

    /**
     * The functions of libferry this binding calls, in ferry.h's order: symbol, whether the handle is
     * {@link Linker.Option#critical(boolean) critical}, and the C signature as a descriptor (pointers,
     * {@code size_t} and 64-bit integers {@code JAVA_LONG}; {@code int} and 32-bit integers
     * {@code JAVA_INT}). Package-private for {@code NativeBoundaryFfmTest}, which checks each
     * descriptor against its prototype in ferry.h; nothing here loads the library.
     */
    enum Fn {
        // int ferry_abi_version(void)
        ABI_VERSION("ferry_abi_version", true, JAVA_INT),

        // const char *ferry_strerror(int rc)
        STRERROR("ferry_strerror", true, JAVA_LONG, JAVA_INT),

        // int ferry_noop(void)
        NOOP("ferry_noop", false, JAVA_INT),
        NOOP_CRITICAL("ferry_noop", true, JAVA_INT),

        // int ferry_engine_attach(int engine, const char *lib_path, ferry_error *err)
        ENGINE_ATTACH("ferry_engine_attach", false, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_engine_path(int engine, char *dst, size_t cap)
        ENGINE_PATH("ferry_engine_path", false, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_store_open(int engine, const char *path, const int64_t *opts, uint32_t nopts, const char *extra,
        //                       const void *cfs, size_t cfs_len, uint32_t ncfs, ferry_store **out, ferry_error *err)
        STORE_OPEN("ferry_store_open", false, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_store_close(ferry_store *s)
        STORE_CLOSE("ferry_store_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_flush(ferry_store *s, uint32_t cf, ferry_error *err)
        FLUSH("ferry_flush", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_compact_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
        //                          size_t elen, ferry_error *err)
        COMPACT_RANGE("ferry_compact_range", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG),

        // int ferry_property(ferry_store *s, uint32_t cf, const char *name, char *dst, size_t cap, size_t *len_out,
        //                     ferry_error *err)
        PROPERTY("ferry_property", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG),

        // int ferry_property_int(ferry_store *s, uint32_t cf, const char *name, uint64_t *out, ferry_error *err)
        PROPERTY_INT("ferry_property_int", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_checkpoint(ferry_store *s, const char *dir, uint32_t flags, ferry_error *err)
        CHECKPOINT("ferry_checkpoint", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_cf_count(ferry_store *s, uint32_t *out)
        CF_COUNT("ferry_cf_count", true, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_cf_name(ferry_store *s, uint32_t cf, char *dst, size_t cap, size_t *len_out)
        CF_NAME("ferry_cf_name", true, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_cf_create(ferry_store *s, const char *name, uint32_t flags, const int64_t *opts, uint32_t nopts,
        //                      const char *extra, uint32_t *id_out, ferry_error *err)
        CF_CREATE("ferry_cf_create", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_LONG),

        // int ferry_cf_find(ferry_store *s, const char *name, uint32_t *id_out, ferry_error *err)
        CF_FIND("ferry_cf_find", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_cf_list_all(ferry_store *s, ferry_error *err)
        CF_LIST_ALL("ferry_cf_list_all", false, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_cf_drop(ferry_store *s, uint32_t cf, ferry_error *err)
        CF_DROP("ferry_cf_drop", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_cf_flags(ferry_store *s, uint32_t cf, uint32_t *out, ferry_error *err)
        CF_FLAGS("ferry_cf_flags", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
        //                uint32_t flags, void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
        GET("ferry_get", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_multi_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, uint32_t n, const void *keys,
        //                      size_t keys_len, uint32_t flags, void *dst, size_t cap, int64_t *lens_out,
        //                      ferry_error *err)
        MULTI_GET("ferry_multi_get", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_value_count(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
        //                        uint64_t *out, ferry_error *err)
        VALUE_COUNT("ferry_value_count", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG),

        // int ferry_split_points(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
        //                         const void *upper, size_t ulen, uint32_t max, void *dst, size_t cap,
        //                         size_t *len_out, ferry_error *err)
        SPLIT_POINTS("ferry_split_points", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_put(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *val, size_t vlen,
        //                uint32_t flags, ferry_error *err)
        PUT("ferry_put", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_LONG),

        // int ferry_merge(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *operand, size_t olen,
        //                  ferry_error *err)
        MERGE("ferry_merge", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG),

        // int ferry_delete(ferry_store *s, uint32_t cf, const void *key, size_t klen, ferry_error *err)
        DELETE("ferry_delete", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_delete_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
        //                         size_t elen, ferry_error *err)
        DELETE_RANGE("ferry_delete_range", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG),

        // int ferry_write(ferry_store *s, const void *ops, size_t len, uint32_t count, uint32_t flags,
        //                  ferry_error *err)
        WRITE("ferry_write", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG),

        // int ferry_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
        SNAPSHOT_OPEN("ferry_snapshot_open", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_snapshot_close(ferry_snapshot *snap)
        SNAPSHOT_CLOSE("ferry_snapshot_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_txn_begin(ferry_store *s, uint32_t flags, int64_t timeout_ms, ferry_txn **out, ferry_error *err)
        TXN_BEGIN("ferry_txn_begin", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_txn_write(ferry_txn *txn, const void *ops, size_t len, uint32_t count, ferry_error *err)
        TXN_WRITE("ferry_txn_write", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_txn_get_for_update(ferry_txn *txn, uint32_t cf, const void *key, size_t klen, void *dst,
        //                               size_t cap, size_t *vlen_out, ferry_error *err)
        TXN_GET_FOR_UPDATE("ferry_txn_get_for_update", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_txn_commit(ferry_txn *txn, ferry_error *err)
        TXN_COMMIT("ferry_txn_commit", false, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_txn_close(ferry_txn *txn)
        TXN_CLOSE("ferry_txn_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_txn_abandon(ferry_txn *txn)
        TXN_ABANDON("ferry_txn_abandon", false, JAVA_INT, JAVA_LONG),

        // int ferry_cursor_open(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
        //                        const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
        CURSOR_OPEN("ferry_cursor_open", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_cursor_close(ferry_cursor *c)
        CURSOR_CLOSE("ferry_cursor_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_cursor_fill(ferry_cursor *c, int op, const void *key, size_t klen, void *page, size_t cap,
        //                        uint32_t max_entries, ferry_error *err)
        CURSOR_FILL("ferry_cursor_fill", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_backups_open(const char *dir, ferry_backups **out, ferry_error *err)
        BACKUPS_OPEN("ferry_backups_open", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_backups_close(ferry_backups *b)
        BACKUPS_CLOSE("ferry_backups_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_backups_create(ferry_backups *b, ferry_store *s, uint32_t *id_out, ferry_error *err)
        BACKUPS_CREATE("ferry_backups_create", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_backups_list(ferry_backups *b, void *dst, size_t cap, uint32_t *count_out, ferry_error *err)
        BACKUPS_LIST("ferry_backups_list", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_backups_restore(ferry_backups *b, uint32_t id, const char *db_dir, ferry_error *err)
        BACKUPS_RESTORE("ferry_backups_restore", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_backups_purge(ferry_backups *b, uint32_t keep, ferry_error *err)
        BACKUPS_PURGE("ferry_backups_purge", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG),

        // int ferry_sst_open(const char *path, const char *extra, ferry_sst_writer **out, ferry_error *err)
        SST_OPEN("ferry_sst_open", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_sst_put(ferry_sst_writer *w, const void *key, size_t klen, const void *val, size_t vlen,
        //                    ferry_error *err)
        SST_PUT("ferry_sst_put", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_sst_merge(ferry_sst_writer *w, const void *key, size_t klen, const void *operand, size_t olen,
        //                      ferry_error *err)
        SST_MERGE("ferry_sst_merge", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_sst_delete(ferry_sst_writer *w, const void *key, size_t klen, ferry_error *err)
        SST_DELETE("ferry_sst_delete", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_sst_finish(ferry_sst_writer *w, uint64_t *size_out, ferry_error *err)
        SST_FINISH("ferry_sst_finish", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_sst_close(ferry_sst_writer *w)
        SST_CLOSE("ferry_sst_close", false, JAVA_INT, JAVA_LONG),

        // int ferry_ingest(ferry_store *s, uint32_t cf, const char *paths, size_t len, uint32_t n, uint32_t flags,
        //                   ferry_error *err)
        INGEST("ferry_ingest", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT,
                JAVA_LONG),

        // int ferry_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
        //                           const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out,
        //                           ferry_error *err)
        RJ_CURSOR_OPEN("ferry_rj_cursor_open", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

        // int ferry_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err)
        RJ_CURSOR_WRAP("ferry_rj_cursor_wrap", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_rj_cursor_forget(ferry_cursor *c)
        RJ_CURSOR_FORGET("ferry_rj_cursor_forget", false, JAVA_INT, JAVA_LONG),

        // int ferry_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst,
        //                   size_t cap, size_t *vlen_out, ferry_error *err)
        RJ_GET("ferry_rj_get", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
        //                         size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
        RJ_MULTI_GET("ferry_rj_multi_get", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),

        // int ferry_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen,
        //                   ferry_error *err)
        RJ_PUT("ferry_rj_put", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG),

        // int ferry_rj_write(void *db, void *const *cfs, uint32_t ncfs, const void *ops, size_t len, uint32_t count,
        //                     ferry_error *err)
        RJ_WRITE("ferry_rj_write", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT,
                JAVA_LONG),

        // int ferry_cache_create(uint64_t capacity, uint32_t flags, int64_t high_pri_ppm, ferry_cache **out,
        //                        ferry_error *err)
        CACHE_CREATE("ferry_cache_create", false, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        // int ferry_cache_usage(ferry_cache *c, uint64_t *usage_out, uint64_t *pinned_out, uint32_t *stores_out,
        //                       uint32_t *wbms_out)
        CACHE_USAGE("ferry_cache_usage", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        // int ferry_cache_close(ferry_cache *c, ferry_error *err)
        CACHE_CLOSE("ferry_cache_close", false, JAVA_INT, JAVA_LONG, JAVA_LONG),
        // int ferry_wbm_create(ferry_cache *cache, uint64_t buffer_size, uint32_t flags, ferry_wbm **out, ferry_error *err)
        WBM_CREATE("ferry_wbm_create", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),
        // int ferry_wbm_usage(ferry_wbm *w, uint64_t *usage_out, uint32_t *stores_out)
        WBM_USAGE("ferry_wbm_usage", false, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
        // int ferry_wbm_close(ferry_wbm *w, ferry_error *err)
        WBM_CLOSE("ferry_wbm_close", false, JAVA_INT, JAVA_LONG, JAVA_LONG);

        final String symbol;
        final boolean critical;
        final FunctionDescriptor descriptor;

        Fn(String symbol, boolean critical, MemoryLayout result, MemoryLayout... args) {
            this.symbol = symbol;
            this.critical = critical;
            this.descriptor = FunctionDescriptor.of(result, args);
        }
    }

    // One holder class per function. The JVM initialises a class when it is first used, so a
    // function's downcall handle is made by its first call (or by the warm-up thread), and H is
    // still a static final constant that the JIT folds into the call site. Each new descriptor
    // shape costs the JDK a generated class, a stub and LambdaForms, several ms each: making every
    // handle up front (33 then; one per Fn constant, 59 now) tripled the time to the first Store.open.
    private static final class AbiVersion {
        static final MethodHandle H = bind(Fn.ABI_VERSION);
    }
    private static final class Strerror {
        static final MethodHandle H = bind(Fn.STRERROR);
    }
    private static final class Noop {
        static final MethodHandle H = bind(Fn.NOOP);
    }
    private static final class NoopCritical {
        static final MethodHandle H = bind(Fn.NOOP_CRITICAL);
    }
    private static final class EngineAttach {
        static final MethodHandle H = bind(Fn.ENGINE_ATTACH);
    }
    private static final class EnginePath {
        static final MethodHandle H = bind(Fn.ENGINE_PATH);
    }
    private static final class StoreOpen {
        static final MethodHandle H = bind(Fn.STORE_OPEN);
    }
    private static final class StoreClose {
        static final MethodHandle H = bind(Fn.STORE_CLOSE);
    }
    private static final class Flush {
        static final MethodHandle H = bind(Fn.FLUSH);
    }
    private static final class CompactRange {
        static final MethodHandle H = bind(Fn.COMPACT_RANGE);
    }
    private static final class Property {
        static final MethodHandle H = bind(Fn.PROPERTY);
    }
    private static final class PropertyInt {
        static final MethodHandle H = bind(Fn.PROPERTY_INT);
    }
    private static final class Checkpoint {
        static final MethodHandle H = bind(Fn.CHECKPOINT);
    }
    private static final class CfCount {
        static final MethodHandle H = bind(Fn.CF_COUNT);
    }
    private static final class CfName {
        static final MethodHandle H = bind(Fn.CF_NAME);
    }
    private static final class CfCreate {
        static final MethodHandle H = bind(Fn.CF_CREATE);
    }
    private static final class CfFind {
        static final MethodHandle H = bind(Fn.CF_FIND);
    }
    private static final class CfListAll {
        static final MethodHandle H = bind(Fn.CF_LIST_ALL);
    }
    private static final class CfDrop {
        static final MethodHandle H = bind(Fn.CF_DROP);
    }
    private static final class CfFlags {
        static final MethodHandle H = bind(Fn.CF_FLAGS);
    }
    private static final class Get {
        static final MethodHandle H = bind(Fn.GET);
    }
    private static final class MultiGet {
        static final MethodHandle H = bind(Fn.MULTI_GET);
    }
    private static final class ValueCount {
        static final MethodHandle H = bind(Fn.VALUE_COUNT);
    }
    private static final class SplitPoints {
        static final MethodHandle H = bind(Fn.SPLIT_POINTS);
    }
    private static final class Put {
        static final MethodHandle H = bind(Fn.PUT);
    }
    private static final class Merge {
        static final MethodHandle H = bind(Fn.MERGE);
    }
    private static final class Delete {
        static final MethodHandle H = bind(Fn.DELETE);
    }
    private static final class DeleteRange {
        static final MethodHandle H = bind(Fn.DELETE_RANGE);
    }
    private static final class Write {
        static final MethodHandle H = bind(Fn.WRITE);
    }
    private static final class SnapshotOpen {
        static final MethodHandle H = bind(Fn.SNAPSHOT_OPEN);
    }
    private static final class SnapshotClose {
        static final MethodHandle H = bind(Fn.SNAPSHOT_CLOSE);
    }
    private static final class TxnBegin {
        static final MethodHandle H = bind(Fn.TXN_BEGIN);
    }
    private static final class TxnWrite {
        static final MethodHandle H = bind(Fn.TXN_WRITE);
    }
    private static final class TxnGetForUpdate {
        static final MethodHandle H = bind(Fn.TXN_GET_FOR_UPDATE);
    }
    private static final class TxnCommit {
        static final MethodHandle H = bind(Fn.TXN_COMMIT);
    }
    private static final class TxnClose {
        static final MethodHandle H = bind(Fn.TXN_CLOSE);
    }
    private static final class TxnAbandon {
        static final MethodHandle H = bind(Fn.TXN_ABANDON);
    }
    private static final class CursorOpen {
        static final MethodHandle H = bind(Fn.CURSOR_OPEN);
    }
    private static final class CursorClose {
        static final MethodHandle H = bind(Fn.CURSOR_CLOSE);
    }
    private static final class CursorFill {
        static final MethodHandle H = bind(Fn.CURSOR_FILL);
    }
    private static final class BackupsOpen {
        static final MethodHandle H = bind(Fn.BACKUPS_OPEN);
    }
    private static final class BackupsClose {
        static final MethodHandle H = bind(Fn.BACKUPS_CLOSE);
    }
    private static final class BackupsCreate {
        static final MethodHandle H = bind(Fn.BACKUPS_CREATE);
    }
    private static final class BackupsList {
        static final MethodHandle H = bind(Fn.BACKUPS_LIST);
    }
    private static final class BackupsRestore {
        static final MethodHandle H = bind(Fn.BACKUPS_RESTORE);
    }
    private static final class BackupsPurge {
        static final MethodHandle H = bind(Fn.BACKUPS_PURGE);
    }
    private static final class SstOpen {
        static final MethodHandle H = bind(Fn.SST_OPEN);
    }
    private static final class SstPut {
        static final MethodHandle H = bind(Fn.SST_PUT);
    }
    private static final class SstMerge {
        static final MethodHandle H = bind(Fn.SST_MERGE);
    }
    private static final class SstDelete {
        static final MethodHandle H = bind(Fn.SST_DELETE);
    }
    private static final class SstFinish {
        static final MethodHandle H = bind(Fn.SST_FINISH);
    }
    private static final class SstClose {
        static final MethodHandle H = bind(Fn.SST_CLOSE);
    }
    private static final class Ingest {
        static final MethodHandle H = bind(Fn.INGEST);
    }
    private static final class RjCursorOpen {
        static final MethodHandle H = bind(Fn.RJ_CURSOR_OPEN);
    }
    private static final class RjCursorWrap {
        static final MethodHandle H = bind(Fn.RJ_CURSOR_WRAP);
    }
    private static final class RjCursorForget {
        static final MethodHandle H = bind(Fn.RJ_CURSOR_FORGET);
    }
    private static final class RjGet {
        static final MethodHandle H = bind(Fn.RJ_GET);
    }
    private static final class RjMultiGet {
        static final MethodHandle H = bind(Fn.RJ_MULTI_GET);
    }
    private static final class RjPut {
        static final MethodHandle H = bind(Fn.RJ_PUT);
    }
    private static final class RjWrite {
        static final MethodHandle H = bind(Fn.RJ_WRITE);
    }
    private static final class CacheCreate {
        static final MethodHandle H = bind(Fn.CACHE_CREATE);
    }
    private static final class CacheUsage {
        static final MethodHandle H = bind(Fn.CACHE_USAGE);
    }
    private static final class CacheClose {
        static final MethodHandle H = bind(Fn.CACHE_CLOSE);
    }
    private static final class WbmCreate {
        static final MethodHandle H = bind(Fn.WBM_CREATE);
    }
    private static final class WbmUsage {
        static final MethodHandle H = bind(Fn.WBM_USAGE);
    }
    private static final class WbmClose {
        static final MethodHandle H = bind(Fn.WBM_CLOSE);
    }


    // ---------------------------------------------------------------- loading

    private static SymbolLookup openLibrary() {
        String where = "libferry";
        try {
            if (ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
                throw new UnsatisfiedLinkError("the FFM binding passes pointers as 64-bit longs; this platform has "
                        + ValueLayout.ADDRESS.byteSize() + "-byte pointers");
            }
            where = NativeLibrary.ferryPath().toString();
            return SymbolLookup.libraryLookup(NativeLibrary.ferryPath(), Arena.global());
        } catch (LinkageError e) {
            recordLoadError(e);
        } catch (RuntimeException e) { // IllegalArgumentException (dlopen failed), IllegalCallerException, I/O
            recordLoadError(linkageError("cannot load " + where + " for the FFM binding: " + e.getMessage(), e));
        }
        return null;
    }

    /**
     * Returns the downcall handle of a function, or null (recording why) when it cannot be made.
     * Called once per function, by the initialiser of its holder class.
     */
    private static MethodHandle bind(Fn fn) {
        if (fn != Fn.ABI_VERSION) {
            AbiCheck.ensure();
        }
        if (LIB == null || (fn != Fn.ABI_VERSION && loadError != null)) {
            return null;
        }
        try {
            MemorySegment symbol = LIB.find(fn.symbol).orElse(null);
            if (symbol == null) {
                recordLoadError(new UnsatisfiedLinkError("libferry at " + NativeLibrary.ferryPath()
                        + " has no symbol " + fn.symbol + " (stale or foreign library?)"));
                return null;
            }
            return LINKER.downcallHandle(symbol, fn.descriptor, fn.critical ? CRITICAL : PLAIN);
        } catch (LinkageError e) {
            recordLoadError(e);
        } catch (RuntimeException e) {
            recordLoadError(linkageError("cannot bind " + fn.symbol + ": " + e.getMessage(), e));
        }
        return null;
    }

    /** Keeps the first load error (later ones are consequences or repeats). */
    private static synchronized void recordLoadError(LinkageError e) {
        if (loadError == null) {
            loadError = e;
        }
    }

    private static LinkageError linkageError(String message, Throwable cause) {
        LinkageError e = new UnsatisfiedLinkError(message);
        e.initCause(cause);
        return e;
    }

    /**
     * Turns whatever a downcall threw into the error to raise. Downcalls with matching types throw
     * nothing of their own, so this runs only when libferry did not load (the handle is null) or on
     * a bug.
     */
    private static Error failure(String function, Throwable t) {
        LinkageError cause = loadError;
        if (cause != null) {
            return linkageError(function + " is unavailable: " + cause.getMessage(), cause);
        }
        if (t instanceof Error e) {
            return e;
        }
        return new AssertionError("downcall " + function + " failed", t);
    }
}
