package dev.ferry.ffm;

import dev.ferry.StoreOptions;
import dev.ferry.TransactionContract;

/** Transactions on LMDB through FFM. */
class LmdbFfmTransactionTest extends TransactionContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("ffm").mapSize(256L << 20).autoGrow(64L << 20);
    }
}
