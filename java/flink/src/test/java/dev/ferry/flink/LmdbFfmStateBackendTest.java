package dev.ferry.flink;

/** Flink's state backend suite on Ferry's LMDB engine through the FFM binding (JDK 22+). */
class LmdbFfmStateBackendTest extends FerryStateBackendSuite {
    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withLmdb().withBinding("ffm");
    }
}
