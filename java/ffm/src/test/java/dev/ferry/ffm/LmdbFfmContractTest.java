package dev.ferry.ffm;

import dev.ferry.StoreContract;
import dev.ferry.StoreOptions;

/** The contract on LMDB through FFM. */
class LmdbFfmContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("ffm").mapSize(256L << 20).maxColumnFamilies(16);
    }
}
