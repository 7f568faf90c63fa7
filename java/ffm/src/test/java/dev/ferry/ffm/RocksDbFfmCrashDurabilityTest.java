package dev.ferry.ffm;

import dev.ferry.CrashDurabilityContract;
import dev.ferry.Engine;

/** Crash durability on ROCKSDB through FFM. */
class RocksDbFfmCrashDurabilityTest extends CrashDurabilityContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
