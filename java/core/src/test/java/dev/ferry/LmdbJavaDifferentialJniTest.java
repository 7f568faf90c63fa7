package dev.ferry;

/** The lmdbjava differential tests with Ferry's JNI binding. */
class LmdbJavaDifferentialJniTest extends LmdbJavaDifferentialTest {
    @Override
    protected String binding() {
        return "jni";
    }
}
