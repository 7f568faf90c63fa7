package dev.ferry;

/** Crash durability on ROCKSDB through JNI. */
class RocksDbJniCrashDurabilityTest extends CrashDurabilityContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
