package dev.ferry.ffm;

import dev.ferry.Engine;
import dev.ferry.fuzz.MisuseFuzzContract;

/** The misuse fuzzer on ROCKSDB through FFM, with {@link Segments} operations. */
class RocksDbFfmMisuseFuzzTest extends MisuseFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.ROCKSDB;
    }

    @Override
    protected String binding() {
        return "ffm";
    }

    @Override
    protected String extensions() {
        return FfmMisuseOps.class.getName();
    }

    @Override
    protected String modules() {
        return "java/core,java/ffm";
    }
}
