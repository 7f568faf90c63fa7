package dev.ferry.flink;

import java.util.List;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;

/**
 * Flink's state backend suite on Ferry's LMDB engine through the JNI binding (JDK 17+), timers in the store
 * (heap timers, which do not depend on the engine or binding, run in {@link LmdbFfmStateBackendTest}).
 */
class LmdbJniStateBackendTest extends FerryStateBackendSuite {
    /** @return the timer modes: timers in the store */
    @Parameters(name = "heapTimers={0}")
    public static List<Object[]> modes() {
        return STORE;
    }

    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withLmdb().withBinding("jni");
    }
}
