package dev.ferry.ffm;

import dev.ferry.CrashDurabilityContract;
import dev.ferry.Engine;

/** Crash durability on LMDB through FFM. */
class LmdbFfmCrashDurabilityTest extends CrashDurabilityContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
