package dev.ferry.ffm;

import dev.ferry.StoreContract;
import dev.ferry.StoreOptions;

/** The contract on RocksDB through FFM. */
class RocksDbFfmContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("ffm");
    }
}
