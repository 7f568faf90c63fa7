package dev.ferry.flink;

import java.util.List;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;

/** Flink's state backend suite on Ferry's RocksDB engine through the JNI binding, with incremental checkpoints. */
class RocksJniStateBackendTest extends FerryStateBackendSuite {
    /** @return the timer modes: timers in the store */
    @Parameters(name = "heapTimers={0}")
    public static List<Object[]> modes() {
        return STORE;
    }

    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withBinding("jni").withIncrementalCheckpoints(true);
    }
}
