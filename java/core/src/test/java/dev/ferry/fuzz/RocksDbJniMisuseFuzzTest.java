package dev.ferry.fuzz;

import dev.ferry.Engine;

/** The misuse fuzzer on RocksDB through JNI, RocksInterop included (also run on JDK 17). */
class RocksDbJniMisuseFuzzTest extends MisuseFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
