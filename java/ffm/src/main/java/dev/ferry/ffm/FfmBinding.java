package dev.ferry.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.NativeBinding;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * The FFM binding (Java 22+): each method calls one {@code ferry_*} function of
 * {@code native/include/ferry.h} through a downcall handle, with no glue code in between.
 *
 * <p>Every handle is a {@code private static final} constant built once from a
 * {@link FunctionDescriptor}, so the JIT sees it as a constant and inlines the call. Pointers and
 * {@code size_t} are passed as {@code long} ({@link ValueLayout#JAVA_LONG}): on the LP64 ABIs
 * (x86_64 and aarch64 System V, AAPCS64) and on Windows x64 a pointer is a 64-bit integer passed
 * in the same registers, so no {@link MemorySegment} is created per call. {@code int} and
 * {@code uint32_t} are {@link ValueLayout#JAVA_INT}; every function returns {@code int}.
 *
 * <p>{@link Linker.Option#critical(boolean) critical} handles (no thread-state transition, no
 * heap access) are used only for functions that cannot block or call back: {@code ferry_noop}
 * (for {@link #noopCritical()}), {@code ferry_abi_version}, {@code ferry_cf_count} and
 * {@code ferry_cf_name} (lock-free reads of the store's family table). Fills, gets, writes, opens
 * and closes may do I/O or page-fault and use plain handles.
 *
 * <p>If libferry cannot be loaded (or lacks a symbol), class initialisation still succeeds; the
 * {@link LinkageError} is kept and thrown, as the cause of an {@link UnsatisfiedLinkError}, by the
 * first call that needs the library.
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

    /** Set during class initialisation only, when libferry or one of its symbols is missing. */
    private static LinkageError loadError;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = openLibrary();

    private static final Linker.Option[] PLAIN = {};
    private static final Linker.Option[] CRITICAL = {Linker.Option.critical(false)};

    // int ferry_abi_version(void)
    private static final MethodHandle ABI_VERSION = downcall("ferry_abi_version", FunctionDescriptor.of(JAVA_INT), CRITICAL);
    // int ferry_noop(void)
    private static final MethodHandle NOOP = downcall("ferry_noop", FunctionDescriptor.of(JAVA_INT), PLAIN);
    private static final MethodHandle NOOP_CRITICAL = downcall("ferry_noop", FunctionDescriptor.of(JAVA_INT), CRITICAL);
    // int ferry_engine_attach(int engine, const char *lib_path, ferry_error *err)
    private static final MethodHandle ENGINE_ATTACH = downcall("ferry_engine_attach",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_engine_path(int engine, char *dst, size_t cap)
    private static final MethodHandle ENGINE_PATH = downcall("ferry_engine_path",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_store_open(int engine, const char *path, const int64_t *opts, uint32_t nopts,
    //                      const char *extra, ferry_store **out, ferry_error *err)
    private static final MethodHandle STORE_OPEN = downcall("ferry_store_open",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_store_close(ferry_store *s)
    private static final MethodHandle STORE_CLOSE = downcall("ferry_store_close",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_cf_count(ferry_store *s, uint32_t *out)
    private static final MethodHandle CF_COUNT = downcall("ferry_cf_count",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), CRITICAL);
    // int ferry_cf_name(ferry_store *s, uint32_t cf, char *dst, size_t cap, size_t *len_out)
    private static final MethodHandle CF_NAME = downcall("ferry_cf_name",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    // int ferry_cf_create(ferry_store *s, const char *name, uint32_t *id_out, ferry_error *err)
    private static final MethodHandle CF_CREATE = downcall("ferry_cf_create",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_cf_drop(ferry_store *s, uint32_t cf, ferry_error *err)
    private static final MethodHandle CF_DROP = downcall("ferry_cf_drop",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_snapshot_open(ferry_store *s, ferry_snapshot **out, ferry_error *err)
    private static final MethodHandle SNAPSHOT_OPEN = downcall("ferry_snapshot_open",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_snapshot_close(ferry_snapshot *snap)
    private static final MethodHandle SNAPSHOT_CLOSE = downcall("ferry_snapshot_close",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *key, size_t klen,
    //               void *dst, size_t cap, size_t *vlen_out, ferry_error *err)
    private static final MethodHandle GET = downcall("ferry_get",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_multi_get(ferry_store *s, ferry_snapshot *snap, uint32_t cf, uint32_t n, const void *keys,
    //                     size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
    private static final MethodHandle MULTI_GET = downcall("ferry_multi_get",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_put(ferry_store *s, uint32_t cf, const void *key, size_t klen, const void *val, size_t vlen,
    //               ferry_error *err)
    private static final MethodHandle PUT = downcall("ferry_put",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_delete(ferry_store *s, uint32_t cf, const void *key, size_t klen, ferry_error *err)
    private static final MethodHandle DELETE = downcall("ferry_delete",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_delete_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
    //                        size_t elen, ferry_error *err)
    private static final MethodHandle DELETE_RANGE = downcall("ferry_delete_range",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_write(ferry_store *s, const void *ops, size_t len, uint32_t count, ferry_error *err)
    private static final MethodHandle WRITE = downcall("ferry_write",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_flush(ferry_store *s, uint32_t cf, ferry_error *err)
    private static final MethodHandle FLUSH = downcall("ferry_flush",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_compact_range(ferry_store *s, uint32_t cf, const void *begin, size_t blen, const void *end,
    //                         size_t elen, ferry_error *err)
    private static final MethodHandle COMPACT_RANGE = downcall("ferry_compact_range",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_property(ferry_store *s, uint32_t cf, const char *name, char *dst, size_t cap, size_t *len_out,
    //                    ferry_error *err)
    private static final MethodHandle PROPERTY = downcall("ferry_property",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_property_int(ferry_store *s, uint32_t cf, const char *name, uint64_t *out, ferry_error *err)
    private static final MethodHandle PROPERTY_INT = downcall("ferry_property_int",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_cursor_open(ferry_store *s, ferry_snapshot *snap, uint32_t cf, const void *lower, size_t llen,
    //                       const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
    private static final MethodHandle CURSOR_OPEN = downcall("ferry_cursor_open",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_cursor_close(ferry_cursor *c)
    private static final MethodHandle CURSOR_CLOSE = downcall("ferry_cursor_close",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_cursor_fill(ferry_cursor *c, int op, const void *key, size_t klen, void *page, size_t cap,
    //                       uint32_t max_entries, ferry_error *err)
    private static final MethodHandle CURSOR_FILL = downcall("ferry_cursor_fill",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG), PLAIN);
    // RocksJava interop: handles are RocksJava's getNativeHandle() values; plain handles (the calls read the engine).
    // int ferry_rj_cursor_open(void *db, void *cf, const void *snapshot, const void *lower, size_t llen,
    //                          const void *upper, size_t ulen, uint32_t flags, ferry_cursor **out, ferry_error *err)
    private static final MethodHandle RJ_CURSOR_OPEN = downcall("ferry_rj_cursor_open",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_rj_cursor_wrap(void *iterator, ferry_cursor **out, ferry_error *err)
    private static final MethodHandle RJ_CURSOR_WRAP = downcall("ferry_rj_cursor_wrap",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_rj_cursor_forget(ferry_cursor *c)
    private static final MethodHandle RJ_CURSOR_FORGET = downcall("ferry_rj_cursor_forget",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG), PLAIN);
    // int ferry_rj_get(void *db, void *cf, const void *snapshot, const void *key, size_t klen, void *dst,
    //                  size_t cap, size_t *vlen_out, ferry_error *err)
    private static final MethodHandle RJ_GET = downcall("ferry_rj_get",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_rj_multi_get(void *db, void *cf, const void *snapshot, uint32_t n, const void *keys,
    //                        size_t keys_len, void *dst, size_t cap, int64_t *lens_out, ferry_error *err)
    private static final MethodHandle RJ_MULTI_GET = downcall("ferry_rj_multi_get",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG,
                    JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_rj_put(void *db, void *cf, const void *key, size_t klen, const void *val, size_t vlen, ferry_error *err)
    private static final MethodHandle RJ_PUT = downcall("ferry_rj_put",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), PLAIN);
    // int ferry_rj_write(void *db, void *const *cfs, uint32_t ncfs, const void *ops, size_t len, uint32_t count,
    //                    ferry_error *err)
    private static final MethodHandle RJ_WRITE = downcall("ferry_rj_write",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG), PLAIN);

    static {
        if (ABI_VERSION != null && loadError == null) {
            try {
                Abi.check((int) ABI_VERSION.invokeExact(), NativeLibrary.ferryPath());
            } catch (LinkageError e) {
                loadError = e;
            } catch (Throwable t) {
                loadError = linkageError("ferry_abi_version failed: " + t, t);
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
     * @return the error, or empty when every function was bound
     */
    public static Optional<LinkageError> loadError() {
        return Optional.ofNullable(loadError);
    }

    /**
     * Calls {@code ferry_noop} through a {@link Linker.Option#critical(boolean) critical} handle:
     * the floor of an FFM call without the thread-state transition, for benchmarks.
     *
     * @return 0
     */
    public static int noopCritical() {
        try {
            return (int) NOOP_CRITICAL.invokeExact();
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

    @Override
    public ByteBuffer wrap(long address, int length) {
        // A buffer made from a MemorySegment checks the segment's scope on every access, which
        // costs a scan over LMDB's map (read through 1 MiB windows) about 40% more than a plain
        // direct buffer. JNI's NewDirectByteBuffer, from the same libferry, makes plain ones;
        // lifetimes are enforced by the cursor, not by the buffer.
        return dev.ferry.jni.JniBinding.INSTANCE.wrap(address, length);
    }

    @Override
    public int abiVersion() {
        try {
            return (int) ABI_VERSION.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_abi_version", t);
        }
    }

    @Override
    public int noop() {
        try {
            return (int) NOOP.invokeExact();
        } catch (Throwable t) {
            throw failure("ferry_noop", t);
        }
    }

    @Override
    public int engineAttach(int engine, long pathAddr, long err) {
        try {
            return (int) ENGINE_ATTACH.invokeExact(engine, pathAddr, err);
        } catch (Throwable t) {
            throw failure("ferry_engine_attach", t);
        }
    }

    @Override
    public int enginePath(int engine, long dst, long cap) {
        try {
            return (int) ENGINE_PATH.invokeExact(engine, dst, cap);
        } catch (Throwable t) {
            throw failure("ferry_engine_path", t);
        }
    }

    @Override
    public int storeOpen(int engine, long path, long opts, int nopts, long extra, long out, long err) {
        try {
            return (int) STORE_OPEN.invokeExact(engine, path, opts, nopts, extra, out, err);
        } catch (Throwable t) {
            throw failure("ferry_store_open", t);
        }
    }

    @Override
    public int storeClose(long store) {
        try {
            return (int) STORE_CLOSE.invokeExact(store);
        } catch (Throwable t) {
            throw failure("ferry_store_close", t);
        }
    }

    @Override
    public int cfCount(long store, long out) {
        try {
            return (int) CF_COUNT.invokeExact(store, out);
        } catch (Throwable t) {
            throw failure("ferry_cf_count", t);
        }
    }

    @Override
    public int cfName(long store, int cf, long dst, long cap, long lenOut) {
        try {
            return (int) CF_NAME.invokeExact(store, cf, dst, cap, lenOut);
        } catch (Throwable t) {
            throw failure("ferry_cf_name", t);
        }
    }

    @Override
    public int cfCreate(long store, long name, long idOut, long err) {
        try {
            return (int) CF_CREATE.invokeExact(store, name, idOut, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_create", t);
        }
    }

    @Override
    public int cfDrop(long store, int cf, long err) {
        try {
            return (int) CF_DROP.invokeExact(store, cf, err);
        } catch (Throwable t) {
            throw failure("ferry_cf_drop", t);
        }
    }

    @Override
    public int snapshotOpen(long store, long out, long err) {
        try {
            return (int) SNAPSHOT_OPEN.invokeExact(store, out, err);
        } catch (Throwable t) {
            throw failure("ferry_snapshot_open", t);
        }
    }

    @Override
    public int snapshotClose(long snapshot) {
        try {
            return (int) SNAPSHOT_CLOSE.invokeExact(snapshot);
        } catch (Throwable t) {
            throw failure("ferry_snapshot_close", t);
        }
    }

    @Override
    public int get(long store, long snapshot, int cf, long key, long klen, long dst, long cap, long vlenOut, long err) {
        try {
            return (int) GET.invokeExact(store, snapshot, cf, key, klen, dst, cap, vlenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_get", t);
        }
    }

    @Override
    public int multiGet(long store, long snapshot, int cf, int n, long keys, long keysLen, long dst, long cap, long lensOut, long err) {
        try {
            return (int) MULTI_GET.invokeExact(store, snapshot, cf, n, keys, keysLen, dst, cap, lensOut, err);
        } catch (Throwable t) {
            throw failure("ferry_multi_get", t);
        }
    }

    @Override
    public int put(long store, int cf, long key, long klen, long val, long vlen, long err) {
        try {
            return (int) PUT.invokeExact(store, cf, key, klen, val, vlen, err);
        } catch (Throwable t) {
            throw failure("ferry_put", t);
        }
    }

    @Override
    public int delete(long store, int cf, long key, long klen, long err) {
        try {
            return (int) DELETE.invokeExact(store, cf, key, klen, err);
        } catch (Throwable t) {
            throw failure("ferry_delete", t);
        }
    }

    @Override
    public int deleteRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        try {
            return (int) DELETE_RANGE.invokeExact(store, cf, begin, blen, end, elen, err);
        } catch (Throwable t) {
            throw failure("ferry_delete_range", t);
        }
    }

    @Override
    public int write(long store, long ops, long len, int count, long err) {
        try {
            return (int) WRITE.invokeExact(store, ops, len, count, err);
        } catch (Throwable t) {
            throw failure("ferry_write", t);
        }
    }

    @Override
    public int flush(long store, int cf, long err) {
        try {
            return (int) FLUSH.invokeExact(store, cf, err);
        } catch (Throwable t) {
            throw failure("ferry_flush", t);
        }
    }

    @Override
    public int compactRange(long store, int cf, long begin, long blen, long end, long elen, long err) {
        try {
            return (int) COMPACT_RANGE.invokeExact(store, cf, begin, blen, end, elen, err);
        } catch (Throwable t) {
            throw failure("ferry_compact_range", t);
        }
    }

    @Override
    public int property(long store, int cf, long name, long dst, long cap, long lenOut, long err) {
        try {
            return (int) PROPERTY.invokeExact(store, cf, name, dst, cap, lenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_property", t);
        }
    }

    @Override
    public int propertyInt(long store, int cf, long name, long out, long err) {
        try {
            return (int) PROPERTY_INT.invokeExact(store, cf, name, out, err);
        } catch (Throwable t) {
            throw failure("ferry_property_int", t);
        }
    }

    @Override
    public int cursorOpen(long store, long snapshot, int cf, long lower, long llen, long upper, long ulen, int flags, long out, long err) {
        try {
            return (int) CURSOR_OPEN.invokeExact(store, snapshot, cf, lower, llen, upper, ulen, flags, out, err);
        } catch (Throwable t) {
            throw failure("ferry_cursor_open", t);
        }
    }

    @Override
    public int cursorClose(long cursor) {
        try {
            return (int) CURSOR_CLOSE.invokeExact(cursor);
        } catch (Throwable t) {
            throw failure("ferry_cursor_close", t);
        }
    }

    @Override
    public int cursorFill(long cursor, int op, long key, long klen, long page, long cap, int maxEntries, long err) {
        try {
            return (int) CURSOR_FILL.invokeExact(cursor, op, key, klen, page, cap, maxEntries, err);
        } catch (Throwable t) {
            throw failure("ferry_cursor_fill", t);
        }
    }

    @Override
    public int rjCursorOpen(long db, long cf, long snapshot, long lower, long llen, long upper, long ulen, int flags, long out, long err) {
        try {
            return (int) RJ_CURSOR_OPEN.invokeExact(db, cf, snapshot, lower, llen, upper, ulen, flags, out, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_open", t);
        }
    }

    @Override
    public int rjCursorWrap(long iterator, long out, long err) {
        try {
            return (int) RJ_CURSOR_WRAP.invokeExact(iterator, out, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_wrap", t);
        }
    }

    @Override
    public int rjCursorForget(long cursor) {
        try {
            return (int) RJ_CURSOR_FORGET.invokeExact(cursor);
        } catch (Throwable t) {
            throw failure("ferry_rj_cursor_forget", t);
        }
    }

    @Override
    public int rjGet(long db, long cf, long snapshot, long key, long klen, long dst, long cap, long vlenOut, long err) {
        try {
            return (int) RJ_GET.invokeExact(db, cf, snapshot, key, klen, dst, cap, vlenOut, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_get", t);
        }
    }

    @Override
    public int rjMultiGet(long db, long cf, long snapshot, int n, long keys, long keysLen, long dst, long cap, long lensOut, long err) {
        try {
            return (int) RJ_MULTI_GET.invokeExact(db, cf, snapshot, n, keys, keysLen, dst, cap, lensOut, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_multi_get", t);
        }
    }

    @Override
    public int rjPut(long db, long cf, long key, long klen, long val, long vlen, long err) {
        try {
            return (int) RJ_PUT.invokeExact(db, cf, key, klen, val, vlen, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_put", t);
        }
    }

    @Override
    public int rjWrite(long db, long cfs, int ncfs, long ops, long len, int count, long err) {
        try {
            return (int) RJ_WRITE.invokeExact(db, cfs, ncfs, ops, len, count, err);
        } catch (Throwable t) {
            throw failure("ferry_rj_write", t);
        }
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
            loadError = e;
        } catch (RuntimeException e) { // IllegalArgumentException (dlopen failed), IllegalCallerException, I/O
            loadError = linkageError("cannot load " + where + " for the FFM binding: " + e.getMessage(), e);
        }
        return null;
    }

    /** Returns the downcall handle of a function, or null (recording why) when it cannot be bound. */
    private static MethodHandle downcall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        if (LIB == null) {
            return null;
        }
        try {
            MemorySegment symbol = LIB.find(name).orElse(null);
            if (symbol == null) {
                if (loadError == null) {
                    loadError = new UnsatisfiedLinkError("libferry at " + NativeLibrary.ferryPath()
                            + " has no symbol " + name + " (stale or foreign library?)");
                }
                return null;
            }
            return LINKER.downcallHandle(symbol, descriptor, options);
        } catch (LinkageError e) {
            if (loadError == null) {
                loadError = e;
            }
        } catch (RuntimeException e) {
            if (loadError == null) {
                loadError = linkageError("cannot bind " + name + ": " + e.getMessage(), e);
            }
        }
        return null;
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
