package dev.ferry;

/** The differential fuzzer on LMDB through JNI. */
class LmdbJniDifferentialFuzzTest extends DifferentialFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
