package dev.ferry.internal;

import dev.ferry.jni.JniBinding;
import dev.ferry.spi.NativeBinding;
import java.util.Locale;

/**
 * Chooses the binding at run time: FFM on Java 22+ when {@code dev.ferry.ffm} is on the class
 * path, JNI otherwise; {@code -Dferry.binding=jni|ffm} overrides. On Java 17 no FFM class is
 * touched.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Bindings {
    /** System property that forces a binding: {@code jni} or {@code ffm}. */
    public static final String PROPERTY = "ferry.binding";
    private static final String FFM_CLASS = "dev.ferry.ffm.FfmBinding";

    private static volatile NativeBinding defaultBinding;

    private Bindings() {
    }

    /**
     * Returns the default binding (chosen once).
     *
     * @return the binding
     * @throws dev.ferry.FerryException on a platform Ferry's jar has no libferry for (see
     *     {@link NativeLibrary#platform()}), unless {@code -Dferry.native.lib} is set
     */
    public static NativeBinding defaultBinding() {
        NativeBinding b = defaultBinding;
        if (b == null) {
            synchronized (Bindings.class) {
                b = defaultBinding;
                if (b == null) {
                    String forced = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
                    if (forced.isEmpty()) {
                        b = ffmAvailable() ? ffm() : jni();
                    } else {
                        b = byName(forced);
                    }
                    defaultBinding = b;
                }
            }
        }
        return b;
    }

    /**
     * Returns a binding by name.
     *
     * @param name {@code jni} or {@code ffm}
     * @return the binding
     * @throws IllegalArgumentException for other names
     * @throws UnsupportedOperationException for {@code ffm} below Java 22 or without the module
     * @throws dev.ferry.FerryException on an unsupported platform (see {@link #jni()})
     */
    public static NativeBinding byName(String name) {
        switch (name) {
            case "jni": return jni();
            case "ffm": return ffm();
            default: throw new IllegalArgumentException("unknown binding '" + name + "' (expected jni or ffm)");
        }
    }

    /**
     * Returns the JNI binding.
     *
     * @return the binding
     * @throws dev.ferry.FerryException on a platform Ferry's jar has no libferry for (see
     *     {@link NativeLibrary#platform()}), unless {@code -Dferry.native.lib} is set
     */
    public static NativeBinding jni() {
        requireSupportedPlatform();
        return JniBinding.INSTANCE;
    }

    /** Fails with a FerryException naming this platform when the jar has no libferry for it and none is set. */
    private static void requireSupportedPlatform() {
        if (System.getProperty(NativeLibrary.LIB_PROPERTY, "").isEmpty()) {
            NativeLibrary.platform();
        }
    }

    /**
     * Tells whether the FFM binding can be used here.
     *
     * @return true on Java 22+ with ferry-ffm on the class path
     */
    public static boolean ffmAvailable() {
        if (Runtime.version().feature() < 22) {
            return false;
        }
        try {
            Class.forName(FFM_CLASS, false, Bindings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Returns the FFM binding.
     *
     * @return the binding
     * @throws UnsupportedOperationException below Java 22 or without ferry-ffm
     * @throws dev.ferry.FerryException on an unsupported platform (see {@link #jni()})
     */
    public static NativeBinding ffm() {
        if (!ffmAvailable()) {
            throw new UnsupportedOperationException("the FFM binding needs Java 22+ and dev.ferry:ferry-ffm on the class path (running "
                    + Runtime.version() + ")");
        }
        requireSupportedPlatform();
        try {
            return (NativeBinding) Class.forName(FFM_CLASS).getField("INSTANCE").get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load " + FFM_CLASS, e);
        }
    }
}
