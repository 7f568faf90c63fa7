package dev.ferry.flink;

/**
 * {@link FerryTtlStateTest} (Flink's TTL suite and cleanup by compaction) on the FFM binding, with timers
 * on the heap: its checkpoints are canonical full snapshots, so the suite's tests of cleanup in full
 * snapshots run, and the restore before a compaction is a canonical one.
 */
class FerryTtlFfmStateTest extends FerryTtlStateTest {
    @Override
    String binding() {
        return "ffm";
    }

    @Override
    FerryStateBackend backend() {
        return super.backend().withHeapTimers();
    }

    /** @return true: with timers on the heap, checkpoints are canonical full snapshots (cleaned up) */
    @Override
    public boolean isSavepoint() {
        return true;
    }
}
