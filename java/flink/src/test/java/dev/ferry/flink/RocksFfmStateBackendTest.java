package dev.ferry.flink;

/** Flink's state backend suite on Ferry's RocksDB engine through the FFM binding (JDK 22+). */
class RocksFfmStateBackendTest extends FerryStateBackendSuite {
    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withBinding("ffm");
    }
}
