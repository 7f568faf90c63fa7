package dev.ferry.flink;

import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.runtime.state.ttl.StateBackendTestContext;
import org.apache.flink.runtime.state.ttl.TtlStateTestBase;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;

/**
 * Flink's TTL state suite ({@code TtlStateTestBase}) on Ferry's RocksDB backend (JNI): expiry on read,
 * update types, visibility, and cleanup in full snapshots. Incremental cleanup is the heap backend's
 * strategy: not offered, so its tests expect no cleanup.
 */
class FerryTtlStateTest extends TtlStateTestBase {
    @Override
    protected StateBackendTestContext createStateBackendTestContext(TtlTimeProvider timeProvider) {
        return new StateBackendTestContext(timeProvider) {
            @Override
            protected StateBackend createStateBackend() {
                return new FerryStateBackend().withBinding("jni");
            }

            @Override
            protected CheckpointStorage createCheckpointStorage() {
                return new JobManagerCheckpointStorage(64 << 20);
            }
        };
    }
}
