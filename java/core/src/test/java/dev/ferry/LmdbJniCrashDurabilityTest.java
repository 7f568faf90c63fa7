package dev.ferry;

/** Crash durability on LMDB through JNI. */
class LmdbJniCrashDurabilityTest extends CrashDurabilityContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
