package dev.ferry.spi;

import java.nio.ByteBuffer;

/**
 * The ferry C ABI as seen from Java: the methods of {@link NativeFunctions}, one per {@code ferry_*}
 * function of {@code native/include/ferry.h} in the header's order, taking handles and addresses as
 * {@code long}s, plus three binding helpers ({@link #name()}, {@link #address}, {@link #wrap}), the
 * only methods that are not a C function.
 *
 * <p>{@link NativeFunctions} and both bindings' calls ({@code dev.ferry.jni.JniFunctions},
 * {@code dev.ferry.ffm.internal.FfmFunctions}, {@code native/src/jni/functions.c}) are generated
 * from ferry.h by {@code native/gen/bindings.py}. Names: {@code ferry_a_b_c} is {@code aBC}
 * ({@code ferry_cf_list_all} is {@code cfListAll}); the JNI native behind it is {@code aBC0}.
 * Types: a pointer, {@code size_t}, {@code int64_t} and {@code uint64_t} are {@code long};
 * {@code int}, {@code int32_t} and {@code uint32_t} are {@code int} (an unsigned value above
 * {@link Integer#MAX_VALUE} is passed as its negative two's-complement {@code int}). Tests
 * ({@code GeneratedBindingsTest}, {@code NativeBoundaryTest}, {@code NativeBoundaryFfmTest}) fail
 * when a generated file is not what ferry.h gives, or when a method, native or descriptor
 * disagrees with its prototype.
 *
 * <p>This is an internal service interface shared by the JNI binding ({@code dev.ferry.jni}) and
 * the FFM binding ({@code dev.ferry.ffm}); applications use {@link dev.ferry.Store} instead.
 * Implementations perform no checks (but one: {@code storeOpen} gives {@code FERRY_EINVAL} for a
 * negative {@code cfsLen}): callers pass live handles and valid memory. Every method returns the C
 * function's result unchanged.
 *
 * <p>Thread safety: implementations are stateless and thread-safe; the handles passed follow
 * the threading rules of ferry.h.
 */
public interface NativeBinding extends NativeFunctions {

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

    /**
     * Returns the binding's {@code ferry_merge_fn} (ferry.h), the callback to register with
     * {@code ferry_merge_operator_create}: a C trampoline of the shim that attaches RocksDB's threads to the
     * JVM and calls the binding's Java dispatcher through JNI (FFM too: not an upcall stub). Its calls go to
     * {@code handler}; the first handler given stays (ferry-core gives one only).
     *
     * @param handler where the callback's merges go
     * @return the callback's address
     * @throws IllegalStateException when another handler was given before
     */
    long mergeCallback(MergeHandler handler);

    /**
     * Returns the binding's {@code ferry_filter_fn} (ferry.h), the callback to register with
     * {@code ferry_compaction_filter_create}: the shim's C trampoline, as for {@link #mergeCallback}. Its
     * calls go to {@code handler}; the first handler given stays (ferry-core gives one only).
     *
     * @param handler where the callback's calls go
     * @return the callback's address
     * @throws IllegalStateException when another handler was given before
     */
    long filterCallback(FilterHandler handler);

    /**
     * Returns the binding's {@code ferry_compare_fn} (ferry.h), the callback to register with
     * {@code ferry_comparator_create}: the shim's C trampoline, as for {@link #mergeCallback}. Its calls go
     * to {@code handler}; the first handler given stays (ferry-core gives one only).
     *
     * @param handler where the callback's comparisons go
     * @return the callback's address
     * @throws IllegalStateException when another handler was given before
     */
    long compareCallback(CompareHandler handler);
}
