package dev.ferry.flink;

import java.util.List;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.StateBackendMigrationTestBase;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameter;
import org.apache.flink.testutils.junit.extensions.parameterized.ParameterizedTestExtension;
import org.apache.flink.testutils.junit.extensions.parameterized.Parameters;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Flink's serializer upgrade and state migration suite ({@code StateBackendMigrationTestBase}) on
 * Ferry's backend: RocksDB through FFM, and LMDB.
 */
@ExtendWith(ParameterizedTestExtension.class)
class FerryMigrationTest extends StateBackendMigrationTestBase<FerryStateBackend> {
    /** The engine. */
    @Parameter
    public String engine;

    /** @return the engines */
    @Parameters(name = "engine={0}")
    public static List<Object[]> engines() {
        return List.of(new Object[] {"rocksdb"}, new Object[] {"lmdb"});
    }

    @Override
    protected FerryStateBackend getStateBackend() {
        FerryStateBackend b = new FerryStateBackend().withBinding("ffm");
        return engine.equals("lmdb") ? b.withLmdb() : b;
    }

    @Override
    protected CheckpointStorage getCheckpointStorage() {
        return new JobManagerCheckpointStorage(64 << 20);
    }
}
