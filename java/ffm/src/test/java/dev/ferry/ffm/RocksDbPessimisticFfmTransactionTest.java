package dev.ferry.ffm;

import dev.ferry.StoreOptions;
import dev.ferry.TransactionContract;
import dev.ferry.TransactionMode;

/** Transactions on RocksDB, pessimistic through FFM. */
class RocksDbPessimisticFfmTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("ffm").transactions(TransactionMode.PESSIMISTIC).lockTimeout(200);
    }
}
