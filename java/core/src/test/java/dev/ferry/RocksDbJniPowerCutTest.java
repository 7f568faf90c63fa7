package dev.ferry;

/** Power cut on RocksDB through JNI. */
class RocksDbJniPowerCutTest extends PowerCutContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
