package dev.ferry.flink;

import java.util.List;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Flink's own keyed state backend suite ({@code StateBackendTestBase}, flink-runtime's test jar) on
 * Ferry's backend, with timers in the store or on the heap. One subclass per engine and binding, each
 * naming its timer modes in a {@code @Parameters} method: heap timers (engine-independent) run on LMDB,
 * whose stores open fastest; RocksDB's classes run with timers in the store, one with full snapshots and
 * one with incremental checkpoints.
 */
@ExtendWith(ParameterizedTestExtension.class)
abstract class FerryStateBackendSuite extends StateBackendTestBase<FerryStateBackend> {
    /** Whether timers stay on the heap. */
    @Parameter
    public boolean heapTimers;

    /** Timers in the store and on the heap. */
    static final List<Object[]> BOTH = List.of(new Object[] {false}, new Object[] {true});
    /** Timers in the store only. */
    static final List<Object[]> STORE = List.<Object[]>of(new Object[] {false});

    /** @return the backend of this subclass's engine and binding */
    abstract FerryStateBackend backend();

    @Override
    protected ConfigurableStateBackend getStateBackend() {
        FerryStateBackend b = backend();
        return heapTimers ? b.withHeapTimers() : b;
    }

    @Override
    protected CheckpointStorage getCheckpointStorage() {
        return new JobManagerCheckpointStorage(64 << 20);
    }

    @Override
    protected boolean isSerializerPresenceRequiredOnRestore() {
        return false;
    }

    @Override
    protected boolean supportsAsynchronousSnapshots() {
        return true;
    }

    @Override
    protected boolean isSafeToReuseKVState() {
        return !heapTimers;
    }
}
