package dev.ferry.flink;

import java.util.List;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Flink's own keyed state backend suite ({@code StateBackendTestBase}, flink-runtime's test jar) on
 * Ferry's backend, with timers in the store and on the heap. One subclass per engine and binding.
 * Excluded tests are overridden without {@code @TestTemplate} here, each with the reason
 * (docs/flink.md lists them).
 */
@ExtendWith(ParameterizedTestExtension.class)
abstract class FerryStateBackendSuite extends StateBackendTestBase<FerryStateBackend> {
    /** Whether timers stay on the heap. */
    @Parameter
    public boolean heapTimers;

    /** @return the timer modes: in the store, on the heap */
    @Parameters(name = "heapTimers={0}")
    public static List<Object[]> modes() {
        return List.of(new Object[] {false}, new Object[] {true});
    }

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
