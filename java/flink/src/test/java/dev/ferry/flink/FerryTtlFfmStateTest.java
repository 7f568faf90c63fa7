package dev.ferry.flink;

/** {@link FerryTtlStateTest} (Flink's TTL suite and cleanup by compaction) on the FFM binding. */
class FerryTtlFfmStateTest extends FerryTtlStateTest {
    @Override
    String binding() {
        return "ffm";
    }
}
