package dev.ferry.ffm.internal;

import dev.ferry.spi.CallbackDispatch;
import dev.ferry.spi.CompareHandler;
import dev.ferry.spi.FilterHandler;
import dev.ferry.spi.MergeHandler;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The FFM binding's {@code ferry_merge_fn}, {@code ferry_filter_fn} and {@code ferry_compare_fn} (ferry.h): libferry's C trampolines,
 * which call {@link #merge} and {@link #filter} through JNI, as the JNI binding's do. Not an upcall stub: the JDK detaches the RocksDB flush and
 * compaction threads its upcalls attached when they end, and a thread of RocksDB's pool ending while the
 * JVM exits (RocksDB joins its pool in a C exit handler) then waits forever for a lock the exiting JVM
 * holds, so the JVM never exits. The trampoline attaches those threads itself, as daemons, and skips the
 * detach once the process is exiting (native/src/jni/binding.c).
 *
 * <p>Thread safety: thread-safe.
 */
final class FfmMergeDispatch {
    /** libferry's entry (not in ferry.h): {@code void *ferry_jvm_merge_callback(const char *dispatcher)}. */
    private static final String SYMBOL = "ferry_jvm_merge_callback";
    /** libferry's entry (not in ferry.h): {@code void *ferry_jvm_filter_callback(const char *dispatcher)}. */
    private static final String FILTER_SYMBOL = "ferry_jvm_filter_callback";
    /** libferry's entry (not in ferry.h): {@code void *ferry_jvm_compare_callback(const char *dispatcher)}. */
    private static final String COMPARE_SYMBOL = "ferry_jvm_compare_callback";
    /** This class's binary name. */
    private static final String NAME = FfmMergeDispatch.class.getName();

    /** The handlers libferry's trampolines reach through {@link #merge} and {@link #filter}. */
    private static final CallbackDispatch DISPATCH = new CallbackDispatch("FFM");

    private FfmMergeDispatch() {
    }

    /** See {@link dev.ferry.spi.NativeBinding#mergeCallback}. */
    static long address(MergeHandler h) {
        return DISPATCH.installMerge(h, () -> setUp(SYMBOL));
    }

    /**
     * Called by libferry's merge trampoline through JNI, on the thread RocksDB merges on.
     *
     * @return the merged value, or null (a failed merge); never throws
     */
    @SuppressWarnings("unused") // called from C
    private static byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands) {
        return DISPATCH.merge(token, kind, key, existing, operands);
    }

    /** Calls libferry's entry {@code symbol}, which caches this class's dispatch methods: the trampoline's address. */
    private static long setUp(String symbol) {
        MethodHandle setup = FfmBinding.bindHelper(symbol, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        long address;
        // libferry loads this class by name through the calling thread's context class loader: ours
        Thread self = Thread.currentThread();
        ClassLoader before = self.getContextClassLoader();
        try (Arena arena = Arena.ofConfined()) {
            self.setContextClassLoader(FfmMergeDispatch.class.getClassLoader());
            MemorySegment name = arena.allocateFrom(NAME);
            address = (long) setup.invokeExact(name.address());
        } catch (Throwable t) {
            throw new IllegalStateException("libferry could not set up its callback (" + symbol + ")", t);
        } finally {
            self.setContextClassLoader(before);
        }
        if (address == 0) {
            throw new IllegalStateException("libferry could not set up its callback " + symbol + " (no JVM found"
                    + " through JNI, or " + NAME + " not loadable by its own class loader)");
        }
        return address;
    }

    /** See {@link dev.ferry.spi.NativeBinding#filterCallback}. */
    static long filterAddress(FilterHandler h) {
        return DISPATCH.installFilter(h, () -> setUp(FILTER_SYMBOL));
    }

    /**
     * Called by libferry's compaction filter trampoline through JNI, on RocksDB's compaction thread.
     *
     * @return the handler's answer, 0 on a failure; never throws
     */
    @SuppressWarnings("unused") // called from C
    private static long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out) {
        return DISPATCH.filter(token, kind, arg, level, key, value, out);
    }

    /** See {@link dev.ferry.spi.NativeBinding#compareCallback}. */
    static long compareAddress(CompareHandler h) {
        return DISPATCH.installCompare(h, () -> setUp(COMPARE_SYMBOL));
    }

    /**
     * Called by libferry's comparator trampoline through JNI, on the thread RocksDB compares on.
     *
     * @return the order, or {@link CompareHandler#FAILED}; never throws
     */
    @SuppressWarnings("unused") // called from C
    private static long compare(long token, byte[] a, byte[] b) {
        return DISPATCH.compare(token, a, b);
    }
}
