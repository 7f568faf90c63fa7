package dev.ferry.spi;

/**
 * A service that supplies a {@link NativeBinding} other than the built-in JNI one: ferry-ffm
 * provides the FFM binding through it. Ferry finds providers with {@link java.util.ServiceLoader}
 * ({@code provides} in a module descriptor on the module path, {@code META-INF/services} on the
 * class path), so an FFM module on the module path is bound without being named anywhere.
 *
 * <p>This is an internal service interface; applications choose a binding with
 * {@code -Dferry.binding=jni|ffm}, not through it.
 *
 * <p>Thread safety: implementations are stateless and thread-safe.
 */
public interface BindingProvider {

    /**
     * Returns the name of the binding this provider supplies.
     *
     * @return e.g. {@code "ffm"}
     */
    String name();

    /**
     * Returns the binding, creating it on first use.
     *
     * @return the binding
     */
    NativeBinding binding();

    /**
     * Returns the provider's scoped buffers over a cursor's current entry, used by
     * {@code View.asByteBuffer()} whichever binding makes the calls. Asking does not load
     * libferry.
     *
     * @return the buffers, or null when this provider has none (then views copy)
     */
    default EntryBuffers entryBuffers() {
        return null;
    }
}
