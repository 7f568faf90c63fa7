package dev.ferry.ffm;

import dev.ferry.DifferentialFuzzContract;
import dev.ferry.Engine;

/** The differential fuzzer on LMDB through FFM. */
class LmdbFfmDifferentialFuzzTest extends DifferentialFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }
}
