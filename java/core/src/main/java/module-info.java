/**
 * Ferry: fast, safe Java access to RocksDB and LMDB through one small C shim.
 *
 * <p>The API is {@link dev.ferry.Store} and its companions in {@code dev.ferry};
 * {@code dev.ferry.rocksjava} lets Ferry's cursors and point calls run over a RocksJava database
 * the application already has open.
 *
 * <p>The engine jars are optional: add {@code org.rocksdb:rocksdbjni} (module {@code rocksdbjni})
 * for RocksDB and {@code org.lmdbjava:native} for LMDB. The latter cannot be a module (its name
 * is not a Java identifier): keep it on the class path, where Ferry finds its library. The FFM
 * binding (module {@code dev.ferry.ffm}, Java 22+) is used when it is on the module path. Grant
 * native access with {@code --enable-native-access=dev.ferry,dev.ferry.ffm,rocksdbjni}.
 */
module dev.ferry {
    exports dev.ferry;
    exports dev.ferry.rocksjava;
    exports dev.ferry.internal to dev.ferry.ffm;
    exports dev.ferry.internal.binding to dev.ferry.ffm;
    exports dev.ferry.spi to dev.ferry.ffm;
    exports dev.ferry.jni to dev.ferry.ffm;

    // sun.misc.Unsafe reads native memory on Java 17-21 (dev.ferry.internal.Mem)
    requires jdk.unsupported;
    requires static rocksdbjni;
    requires static org.agrona.core;

    uses dev.ferry.spi.BindingProvider;
}
