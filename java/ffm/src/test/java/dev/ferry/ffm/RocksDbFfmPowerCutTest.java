package dev.ferry.ffm;

import dev.ferry.Engine;
import dev.ferry.PowerCutContract;

/** Power cut on RocksDB through FFM. */
class RocksDbFfmPowerCutTest extends PowerCutContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
