/**
 * Ferry's FFM binding (Java 22+): the ferry C ABI called through {@code java.lang.foreign}.
 * Ferry's core ({@code dev.ferry}) binds it as a service when this module is on the module path;
 * applications do not use its package directly. Grant it native access with
 * {@code --enable-native-access=dev.ferry.ffm} (with {@code dev.ferry}).
 */
module dev.ferry.ffm {
    requires transitive dev.ferry;

    exports dev.ferry.ffm;
    // the provider (binding and scoped entry buffers): a service, found by name only on class paths
    // that lost the service file (merged jars); not API
    exports dev.ferry.ffm.internal to dev.ferry;

    provides dev.ferry.spi.BindingProvider with dev.ferry.ffm.internal.FfmBindingProvider;
}
