package dev.ferry.ffm;

import dev.ferry.DifferentialFuzzContract;
import dev.ferry.Engine;

/** The differential fuzzer on ROCKSDB through FFM. */
class RocksDbFfmDifferentialFuzzTest extends DifferentialFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
