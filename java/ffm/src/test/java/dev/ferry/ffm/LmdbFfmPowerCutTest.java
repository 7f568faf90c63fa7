package dev.ferry.ffm;

import dev.ferry.Engine;
import dev.ferry.PowerCutContract;

/** Power cut on LMDB through FFM. */
class LmdbFfmPowerCutTest extends PowerCutContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
