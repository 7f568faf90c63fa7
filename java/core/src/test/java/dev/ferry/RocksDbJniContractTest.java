package dev.ferry;

/** The contract on RocksDB through JNI. */
class RocksDbJniContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni");
    }
}
