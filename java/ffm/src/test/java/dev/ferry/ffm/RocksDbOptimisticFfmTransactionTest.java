package dev.ferry.ffm;

import dev.ferry.StoreOptions;
import dev.ferry.TransactionContract;
import dev.ferry.TransactionMode;

/** Transactions on RocksDB, optimistic through FFM. */
class RocksDbOptimisticFfmTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("ffm").transactions(TransactionMode.OPTIMISTIC);
    }
}
