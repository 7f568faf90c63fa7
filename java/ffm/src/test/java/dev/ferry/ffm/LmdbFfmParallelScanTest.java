package dev.ferry.ffm;

import dev.ferry.ParallelScanContract;
import dev.ferry.StoreOptions;

/** Range splits and parallel scans on LMDB through FFM. */
class LmdbFfmParallelScanTest extends ParallelScanContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("ffm").mapSize(256L << 20);
    }
}
