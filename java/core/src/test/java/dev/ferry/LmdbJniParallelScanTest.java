package dev.ferry;

/** Range splits and parallel scans on LMDB through JNI. */
class LmdbJniParallelScanTest extends ParallelScanContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("jni").mapSize(256L << 20);
    }
}
