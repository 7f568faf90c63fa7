package dev.ferry;

/** The RocksJava differential tests with Ferry's JNI binding. */
class RocksJavaDifferentialJniTest extends RocksJavaDifferentialTest {
    @Override
    protected String binding() {
        return "jni";
    }
}
