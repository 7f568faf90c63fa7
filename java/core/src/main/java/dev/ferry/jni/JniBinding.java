package dev.ferry.jni;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.FilterHandler;
import dev.ferry.spi.MergeHandler;
import dev.ferry.spi.NativeBinding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The JNI binding: loads libferry and checks its ABI version. Its calls of the {@code ferry_*}
 * functions are {@link JniFunctions}', generated from ferry.h by {@code native/gen/bindings.py}
 * (each a thin wrapper over a {@code private static native} with a {@code 0} suffix, taking
 * {@code long} handles and addresses and returning the C result unchanged); this class adds the
 * binding helpers, whose natives are in {@code native/src/jni/binding.c}.
 *
 * <p>Thread safety: stateless and thread-safe.
 */
public final class JniBinding extends JniFunctions implements NativeBinding {

    /** The single instance. */
    public static final JniBinding INSTANCE = new JniBinding();

    static {
        NativeLibrary.loadForJni();
        Abi.check(INSTANCE.abiVersion(), NativeLibrary.ferryPath());
    }

    private JniBinding() {
    }

    @Override public String name() { return "jni"; }

    @Override public long address(ByteBuffer direct) { return address0(direct); }

    @Override public ByteBuffer wrap(long address, int length) {
        return wrap0(address, length).order(ByteOrder.nativeOrder());
    }

    /** The handler of {@link #mergeCallback}, set once. */
    private static volatile MergeHandler mergeHandler;
    /** The shim's merge trampoline, 0 until asked for. */
    private static long mergeTrampoline;

    @Override public synchronized long mergeCallback(MergeHandler handler) {
        if (mergeHandler != null && mergeHandler != handler) {
            throw new IllegalStateException("the JNI binding has a merge handler already");
        }
        if (mergeTrampoline == 0) {
            long address = mergeCallback0();
            if (address == 0) {
                throw new IllegalStateException("libferry could not set up its merge callback");
            }
            mergeTrampoline = address;
        }
        mergeHandler = handler;
        return mergeTrampoline;
    }

    /**
     * Called by the shim's merge trampoline (native/src/jni/binding.c), on the thread RocksDB merges on.
     *
     * @return the merged value, or null (a failed merge); never throws
     */
    @SuppressWarnings("unused") // called from C
    private static byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands) {
        try {
            MergeHandler h = mergeHandler;
            return h == null ? null : h.merge(token, kind, key, existing, operands);
        } catch (Throwable t) { // the handler throws nothing; an Error (stack overflow) must not reach RocksDB
            return null;
        }
    }

    private static native long mergeCallback0();

    /** The handler of {@link #filterCallback}, set once. */
    private static volatile FilterHandler filterHandler;
    /** The shim's compaction filter trampoline, 0 until asked for. */
    private static long filterTrampoline;

    @Override public synchronized long filterCallback(FilterHandler handler) {
        if (filterHandler != null && filterHandler != handler) {
            throw new IllegalStateException("the JNI binding has a filter handler already");
        }
        if (filterTrampoline == 0) {
            long address = filterCallback0();
            if (address == 0) {
                throw new IllegalStateException("libferry could not set up its compaction filter callback");
            }
            filterTrampoline = address;
        }
        filterHandler = handler;
        return filterTrampoline;
    }

    /**
     * Called by the shim's compaction filter trampoline (native/src/jni/binding.c), on RocksDB's compaction
     * thread.
     *
     * @return the handler's answer, 0 on a failure; never throws
     */
    @SuppressWarnings("unused") // called from C
    private static long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out) {
        try {
            FilterHandler h = filterHandler;
            return h == null ? 0 : h.filter(token, kind, arg, level, key, value, out);
        } catch (Throwable t) { // the handler throws nothing; an Error (stack overflow) must not reach RocksDB
            return 0;
        }
    }

    private static native long filterCallback0();
    private static native long address0(ByteBuffer direct);
    private static native ByteBuffer wrap0(long address, int length);
}
