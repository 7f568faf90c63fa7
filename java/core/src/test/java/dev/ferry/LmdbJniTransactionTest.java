package dev.ferry;

/** Transactions on LMDB through JNI. */
class LmdbJniTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("jni").mapSize(256L << 20).autoGrow(64L << 20);
    }
}
