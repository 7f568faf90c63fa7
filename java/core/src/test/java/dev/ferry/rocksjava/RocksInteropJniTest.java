package dev.ferry.rocksjava;

/** The RocksJava interop contract through the JNI binding (the default without ferry-ffm). */
class RocksInteropJniTest extends RocksInteropContract {
    @Override
    protected String expectedBinding() {
        return "jni";
    }
}
