package dev.ferry;

/** Transactions on RocksDB, pessimistic through JNI. */
class RocksDbPessimisticJniTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni").transactions(TransactionMode.PESSIMISTIC).lockTimeout(200);
    }
}
