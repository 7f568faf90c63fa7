package dev.ferry;

/** The differential fuzzer on ROCKSDB through JNI. */
class RocksDbJniDifferentialFuzzTest extends DifferentialFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
