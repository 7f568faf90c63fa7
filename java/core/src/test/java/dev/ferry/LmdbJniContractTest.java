package dev.ferry;

/** The contract on LMDB through JNI. */
class LmdbJniContractTest extends StoreContract {
    @Override
    protected StoreOptions options() {
        return StoreOptions.lmdb().binding("jni").mapSize(256L << 20).maxColumnFamilies(16);
    }
}
