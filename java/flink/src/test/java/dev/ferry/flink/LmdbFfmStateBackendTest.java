package dev.ferry.flink;

import java.util.List;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;

/** Flink's state backend suite on Ferry's LMDB engine through the FFM binding (JDK 22+). */
class LmdbFfmStateBackendTest extends FerryStateBackendSuite {
    /** @return the timer modes: timers in the store and on the heap */
    @Parameters(name = "heapTimers={0}")
    public static List<Object[]> modes() {
        return BOTH;
    }

    @Override
    FerryStateBackend backend() {
        return new FerryStateBackend().withLmdb().withBinding("ffm");
    }
}
