package dev.ferry;

/** Power cut on LMDB through JNI. */
class LmdbJniPowerCutTest extends PowerCutContract {
    @Override
    protected Engine engine() {
        return Engine.LMDB;
    }

    @Override
    protected String binding() {
        return "jni";
    }
}
