package dev.ferry.fuzz;

import dev.ferry.Engine;

/** The misuse fuzzer on LMDB through JNI (also run on JDK 17). */
class LmdbJniMisuseFuzzTest extends MisuseFuzzContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
