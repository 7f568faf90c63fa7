package dev.ferry.jni;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
import dev.ferry.spi.CallbackDispatch;
import dev.ferry.spi.CompareHandler;
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

    /** The merge and filter handlers the shim's trampolines reach through {@link #merge} and {@link #filter}. */
    private static final CallbackDispatch DISPATCH = new CallbackDispatch("JNI");

    @Override public long mergeCallback(MergeHandler handler) {
        return DISPATCH.installMerge(handler, JniBinding::mergeCallback0);
    }

    /**
     * Called by the shim's merge trampoline (native/src/jni/binding.c), on the thread RocksDB merges on.
     *
     * @return the merged value, or null (a failed merge); never throws
     */
    @SuppressWarnings("unused") // called from C
    private static byte[] merge(long token, int kind, byte[] key, byte[] existing, byte[][] operands) {
        return DISPATCH.merge(token, kind, key, existing, operands);
    }

    private static native long mergeCallback0();

    @Override public long filterCallback(FilterHandler handler) {
        return DISPATCH.installFilter(handler, JniBinding::filterCallback0);
    }

    /**
     * Called by the shim's compaction filter trampoline (native/src/jni/binding.c), on RocksDB's compaction
     * thread.
     *
     * @return the handler's answer, 0 on a failure; never throws
     */
    @SuppressWarnings("unused") // called from C
    private static long filter(long token, int kind, long arg, int level, byte[] key, byte[] value, byte[][] out) {
        return DISPATCH.filter(token, kind, arg, level, key, value, out);
    }

    private static native long filterCallback0();

    @Override public long compareCallback(CompareHandler handler) {
        return DISPATCH.installCompare(handler, JniBinding::compareCallback0);
    }

    /**
     * Called by the shim's comparator trampoline (native/src/jni/binding.c), on the thread RocksDB compares on.
     *
     * @return the order, or {@link CompareHandler#FAILED}; never throws
     */
    @SuppressWarnings("unused") // called from C
    private static long compare(long token, byte[] a, byte[] b) {
        return DISPATCH.compare(token, a, b);
    }

    private static native long compareCallback0();
    private static native long address0(ByteBuffer direct);
    private static native ByteBuffer wrap0(long address, int length);
}
