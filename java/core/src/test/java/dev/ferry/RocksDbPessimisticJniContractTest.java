package dev.ferry;

/** The whole store contract on a RocksDB store opened with pessimistic transactions (TransactionMode.PESSIMISTIC), through JNI. */
class RocksDbPessimisticJniContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni").transactions(TransactionMode.PESSIMISTIC);
    }
}
