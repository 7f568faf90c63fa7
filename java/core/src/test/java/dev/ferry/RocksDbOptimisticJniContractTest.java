package dev.ferry;

/** The whole store contract on a RocksDB store opened with optimistic transactions (TransactionMode.OPTIMISTIC), through JNI. */
class RocksDbOptimisticJniContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni").transactions(TransactionMode.OPTIMISTIC);
    }
}
