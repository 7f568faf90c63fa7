package dev.ferry.jni;

import dev.ferry.internal.Abi;
import dev.ferry.internal.NativeLibrary;
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

    private static native long address0(ByteBuffer direct);
    private static native ByteBuffer wrap0(long address, int length);
}
