package dev.ferry.bench.flink;

import dev.ferry.flink.FerryOptions;
import dev.ferry.flink.FerryStateBackendFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStreamFactory;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;

/**
 * Keyed state backends driven directly, without a job (as flink-benchmarks' state benchmarks do): one task's
 * keyed backend over all key groups, {@code Long} keys, created from a {@link StateBackend} with a mock task
 * environment that lends it {@link #MANAGED_MEMORY} bytes of managed memory. The same settings for every backend.
 *
 * <p>Backend names: {@code rocksdb} ({@link EmbeddedRocksDBStateBackend}, Flink's defaults), {@code ferry-jni} and
 * {@code ferry-ffm} (Ferry's backend, RocksDB engine, on that binding, its defaults). Not thread-safe.
 */
public final class Backends implements AutoCloseable {
    /** Managed memory lent to each backend (Flink's default share of a 1 GiB task manager is of this order). */
    public static final long MANAGED_MEMORY = 256L << 20;
    /** Maximum parallelism: the number of key groups. */
    public static final int MAX_PARALLELISM = 128;

    private final MockEnvironment env;
    private final Path dir;
    private final AbstractKeyedStateBackend<Long> backend;

    private Backends(String name, Collection<KeyedStateHandle> restore) throws Exception {
        dir = Files.createTempDirectory("ferry-flink-bench-");
        env = new MockEnvironmentBuilder().setTaskName("bench").setManagedMemorySize(MANAGED_MEMORY)
                .setMaxParallelism(MAX_PARALLELISM).build();
        StateBackend stateBackend = stateBackend(name, dir);
        backend = (AbstractKeyedStateBackend<Long>) stateBackend.createKeyedStateBackend(new KeyedStateBackendParametersImpl<>(
                env, new JobID(), "bench", LongSerializer.INSTANCE, MAX_PARALLELISM,
                KeyGroupRange.of(0, MAX_PARALLELISM - 1), env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT, new UnregisteredMetricsGroup(), (metric, value) -> { }, restore, new CloseableRegistry(),
                1.0));
    }

    /** Opens the keyed backend a name stands for (see the class comment). */
    public static Backends open(String name) throws Exception {
        return new Backends(name, List.of());
    }

    /** Opens the keyed backend a name stands for, restored from a snapshot (its own, or a canonical one of any backend). */
    public static Backends restore(String name, KeyedStateHandle snapshot) throws Exception {
        return new Backends(name, List.of(snapshot));
    }

    /**
     * Takes a full snapshot of the keyed backend (synchronous and asynchronous parts, run here) into files under
     * {@code target}, as a checkpoint does.
     *
     * @param target the checkpoint directory
     * @param id the checkpoint id
     * @return the snapshot's handle
     * @throws Exception if the snapshot fails
     */
    public KeyedStateHandle snapshot(Path target, long id) throws Exception {
        org.apache.flink.core.fs.Path where = new org.apache.flink.core.fs.Path(target.toUri());
        FsCheckpointStreamFactory streams = new FsCheckpointStreamFactory(where.getFileSystem(), where, where, 1 << 20, 1 << 20);
        RunnableFuture<SnapshotResult<KeyedStateHandle>> future = backend.snapshot(id, System.currentTimeMillis(), streams,
                CheckpointOptions.forCheckpointWithDefaultLocation());
        future.run();
        return future.get().getJobManagerOwnedSnapshot();
    }

    /** The state backend a name stands for, its working files under {@code dir}. */
    static StateBackend stateBackend(String name, Path dir) throws IOException {
        Configuration conf = new Configuration();
        ClassLoader loader = Backends.class.getClassLoader();
        switch (name) {
            case "rocksdb": {
                EmbeddedRocksDBStateBackend rocks = new EmbeddedRocksDBStateBackend(incremental());
                rocks.setDbStoragePath(dir.toString());
                return rocks;
            }
            case "ferry-jni":
            case "ferry-ffm": {
                conf.set(FerryOptions.BINDING, name.substring("ferry-".length()));
                conf.set(FerryOptions.LOCAL_DIRECTORIES, dir.toString());
                conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental());
                return new FerryStateBackendFactory().createFromConfig(conf, loader);
            }
            default:
                throw new IllegalArgumentException("backend: rocksdb, ferry-jni or ferry-ffm, not '" + name + "'");
        }
    }

    /**
     * Whether the backends take incremental checkpoints ({@code -Dbench.flink.incremental=true}): table files, as
     * both backends restore by opening them. Otherwise the backends' defaults: full checkpoints, which are table
     * files too on both (the built-in backend's native full snapshot; Ferry's on RocksDB with timers in the store).
     */
    static boolean incremental() {
        return Boolean.getBoolean("bench.flink.incremental");
    }

    /** The keyed backend. */
    public AbstractKeyedStateBackend<Long> keyed() {
        return backend;
    }

    @Override
    public void close() throws Exception {
        try {
            backend.dispose();
            backend.close();
        } finally {
            env.close();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
