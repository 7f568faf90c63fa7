package dev.ferry;

/** Transactions on RocksDB, optimistic through JNI. */
class RocksDbOptimisticJniTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni").transactions(TransactionMode.OPTIMISTIC);
    }
}
