package dev.ferry.flink;

/** Flink's state backend suite on Ferry's RocksDB engine through the JNI binding. */
class RocksJniStateBackendTest extends FerryStateBackendSuite {
    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withBinding("jni");
    }
}
