package dev.ferry.rocksjava;

/** The RocksJava interop contract through the FFM binding (the default on Java 22+ with ferry-ffm). */
class RocksInteropFfmTest extends RocksInteropContract {
    @Override
    protected String expectedBinding() {
        return "ffm";
    }
}
