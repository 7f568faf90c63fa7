package dev.ferry.ffm;

import dev.ferry.ParallelScanContract;
import dev.ferry.StoreOptions;

/** Range splits and parallel scans on RocksDB through FFM. */
class RocksDbFfmParallelScanTest extends ParallelScanContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("ffm");
    }
}
