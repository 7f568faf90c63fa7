package dev.ferry;

/** Range splits and parallel scans on RocksDB through JNI. */
class RocksDbJniParallelScanTest extends ParallelScanContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.rocksdb().binding("jni");
    }
}
