package dev.ferry.internal.binding;

import dev.ferry.internal.NativeLibrary;
import dev.ferry.jni.JniBinding;
import dev.ferry.spi.BindingProvider;
import dev.ferry.spi.EntryBuffers;
import dev.ferry.spi.NativeBinding;
import java.util.Locale;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Chooses the binding at run time: FFM on Java 22+ when ferry-ffm is present, JNI otherwise;
 * {@code -Dferry.binding=jni|ffm} overrides. On Java 17 no FFM class is touched.
 *
 * <p>ferry-ffm is found as a {@link BindingProvider} service (its module descriptor on the module
 * path, {@code META-INF/services} on the class path), else by its provider's class name on the
 * class path (for jars merged without their service files). The same provider supplies the scoped
 * entry buffers ({@link #entryBuffers()}), whichever binding makes the calls.
 *
 * <p>Thread safety: thread-safe.
 */
public final class Bindings {
    /** System property that forces a binding: {@code jni} or {@code ffm}. */
    public static final String PROPERTY = "ferry.binding";
    /** The FFM module's provider, for class paths that lost its service file (a merged jar). */
    private static final String FFM_PROVIDER = "dev.ferry.ffm.internal.FfmBindingProvider";

    private static volatile NativeBinding defaultBinding;
    /** The FFM provider once looked up; {@link #NONE} when there is none. */
    private static volatile BindingProvider ffmProvider;
    /** The FFM module's entry buffers once looked up; {@link #NO_BUFFERS} when there are none. */
    private static volatile Object entryBuffers;
    private static final Object NO_BUFFERS = new Object();
    private static final BindingProvider NONE = new BindingProvider() {
        @Override
        public String name() {
            return "none";
        }

        @Override
        public NativeBinding binding() {
            throw new IllegalStateException("no FFM binding");
        }
    };

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
     * @return true on Java 22+ with ferry-ffm on the class path or module path
     */
    public static boolean ffmAvailable() {
        return Runtime.version().feature() >= 22 && ffmProvider() != NONE;
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
            throw new UnsupportedOperationException("the FFM binding needs Java 22+ and dev.ferry:ferry-ffm on the class path or module path"
                    + " (running " + Runtime.version() + ")");
        }
        return ffmProvider().binding();
    }

    private static BindingProvider ffmProvider() {
        BindingProvider p = ffmProvider;
        if (p == null) {
            synchronized (Bindings.class) {
                p = ffmProvider;
                if (p == null) {
                    p = findFfm();
                    ffmProvider = p;
                }
            }
        }
        return p;
    }

    private static BindingProvider findFfm() {
        try {
            for (BindingProvider p : ServiceLoader.load(BindingProvider.class, Bindings.class.getClassLoader())) {
                if (p.name().equals("ffm")) {
                    return p;
                }
            }
        } catch (ServiceConfigurationError | LinkageError e) {
            // a provider that cannot load here: try the class name below
        }
        requireSupportedPlatform();
        try {
            Class<?> c = Class.forName(FFM_PROVIDER, false, Bindings.class.getClassLoader());
            return (BindingProvider) c.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            return NONE;
        }
    }

    /**
     * Returns the FFM module's scoped buffers over a cursor's current entry (looked up once).
     *
     * @return the buffers, or null below Java 22, without ferry-ffm, or when it cannot load here
     */
    public static EntryBuffers entryBuffers() {
        Object b = entryBuffers;
        if (b == null) {
            b = NO_BUFFERS;
            try {
                if (ffmAvailable()) {
                    EntryBuffers found = ffmProvider().entryBuffers();
                    b = found == null ? NO_BUFFERS : found;
                }
            } catch (RuntimeException | LinkageError e) {
                // no scoped buffers here: views copy
            }
            entryBuffers = b;
        }
        return b == NO_BUFFERS ? null : (EntryBuffers) b;
    }
}
