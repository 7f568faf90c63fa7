package dev.ferry.flink;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PlaceholderStreamStateHandle;
import org.apache.flink.runtime.state.SnapshotResources;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategy;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.ResourceGuard;

/**
 * Checkpoints of a RocksDB store made of its files, incremental or full (native). The synchronous part
 * writes a Ferry checkpoint (hard links of the table files, copies of the manifest and options) next to
 * the store. Incremental: the asynchronous part uploads the table files that the last completed
 * checkpoint did not upload (the others are sent as placeholders, which Flink's shared state registry
 * resolves) as shared state, the other files as private state, and the states' meta info. Full: every
 * file is uploaded as private state, as Flink's RocksDB backend does for its native full checkpoints.
 * Flink's {@code IncrementalRemoteKeyedStateHandle} carries both; a restore opens the files.
 *
 * <p>Thread safety: {@link #syncPrepareResources} and the notifications on the task thread; uploads on
 * the asynchronous snapshot thread.
 */
final class FerryIncrementalSnapshots<K>
        implements SnapshotStrategy<KeyedStateHandle, FerryIncrementalSnapshots.Resources> {
    private static final String TABLE_SUFFIX = ".sst";

    private final FerryKeyedStateBackend<K> backend;
    private final Path root;
    /** Whether checkpoints upload only new table files; false: every file, every time. */
    private final boolean incremental;
    private final UUID backendId = UUID.randomUUID();
    /** Table files of the last completed checkpoint: name to uploaded handle. */
    private volatile Map<String, StreamStateHandle> confirmed = Map.of();
    /** Table files of checkpoints not yet confirmed, by checkpoint id. */
    private final Map<Long, Map<String, StreamStateHandle>> pending = new ConcurrentHashMap<>();

    FerryIncrementalSnapshots(FerryKeyedStateBackend<K> backend, Path root, boolean incremental) {
        this.backend = backend;
        this.root = root;
        this.incremental = incremental;
    }

    /** What one checkpoint uploads: its local checkpoint directory, the meta info, the files to reuse. */
    static final class Resources implements SnapshotResources {
        final Path dir;
        final List<StateMetaInfoSnapshot> metaInfos;
        final Map<String, StreamStateHandle> base;

        Resources(Path dir, List<StateMetaInfoSnapshot> metaInfos, Map<String, StreamStateHandle> base) {
            this.dir = dir;
            this.metaInfos = metaInfos;
            this.base = base;
        }

        @Override
        public void release() {
            try {
                FileUtils.deleteDirectory(dir.toFile());
            } catch (IOException e) {
                // removed with the backend's directory
            }
        }
    }

    @Override
    public Resources syncPrepareResources(long checkpointId) throws Exception {
        List<StateMetaInfoSnapshot> metaInfos = new ArrayList<>();
        for (FerryKeyedStateBackend.StateInfo info : backend.states().values()) {
            metaInfos.add(info.meta.snapshot());
        }
        backend.flushTimers();
        ResourceGuard.Lease lease = backend.lease();
        Path dir = root.resolve("chk-" + checkpointId + "-" + UUID.randomUUID());
        try {
            // not synced: the directory is a staging copy, read by the asynchronous part, which uploads
            // the files to the checkpoint storage (durable there), and deleted after it; after a crash
            // Flink restores from the storage, never from this directory
            backend.store().checkpoint(dir, false, false);
        } finally {
            // the asynchronous part reads the checkpoint's files, not the store: the lease ends here, on
            // every outcome (it was kept on an Error, such as a NoSuchMethodError from a stale ferry-core
            // jar, and the task's dispose then waited for it forever)
            lease.close();
        }
        return new Resources(dir, metaInfos, incremental ? confirmed : Map.of());
    }

    @Override
    public SnapshotResultSupplier<KeyedStateHandle> asyncSnapshot(Resources resources, long checkpointId,
            long timestamp, CheckpointStreamFactory streamFactory, CheckpointOptions checkpointOptions) {
        if (resources.metaInfos.isEmpty()) {
            return registry -> SnapshotResult.empty();
        }
        return registry -> {
            List<HandleAndLocalPath> shared = new ArrayList<>();
            List<HandleAndLocalPath> own = new ArrayList<>();
            Map<String, StreamStateHandle> tables = new HashMap<>();
            long uploaded = 0;
            List<Path> files;
            try (Stream<Path> list = Files.list(resources.dir)) {
                files = list.sorted().toList();
            }
            List<Path> sends = new ArrayList<>();
            List<CheckpointedStateScope> scopes = new ArrayList<>();
            for (Path file : files) {
                String name = file.getFileName().toString();
                boolean table = incremental && name.endsWith(TABLE_SUFFIX);
                if (!table || !resources.base.containsKey(name)) {
                    sends.add(file);
                    scopes.add(table ? CheckpointedStateScope.SHARED : CheckpointedStateScope.EXCLUSIVE);
                }
            }
            List<StreamStateHandle> sent = uploadAll(sends, scopes, streamFactory, registry);
            int next = 0;
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (incremental && name.endsWith(TABLE_SUFFIX)) {
                    StreamStateHandle previous = resources.base.get(name);
                    if (previous != null) {
                        shared.add(HandleAndLocalPath.of(new PlaceholderStreamStateHandle(
                                previous.getStreamStateHandleID(), previous.getStateSize(), false), name));
                        tables.put(name, previous);
                        continue;
                    }
                    StreamStateHandle h = sent.get(next++);
                    shared.add(HandleAndLocalPath.of(h, name));
                    tables.put(name, h);
                    uploaded += h.getStateSize();
                } else {
                    StreamStateHandle h = sent.get(next++);
                    own.add(HandleAndLocalPath.of(h, name));
                    uploaded += h.getStateSize();
                }
            }
            StreamStateHandle meta = writeMeta(resources.metaInfos, streamFactory, registry);
            uploaded += meta.getStateSize();
            if (incremental) {
                pending.put(checkpointId, tables);
            }
            return SnapshotResult.of(new IncrementalRemoteKeyedStateHandle(backendId, backend.getKeyGroupRange(),
                    checkpointId, shared, own, meta, uploaded));
        };
    }

    /**
     * Uploads files, {@link FerryIncrementalRestore#TRANSFER_THREADS} at a time as Flink's RocksDB backend
     * uploads its own, and returns their handles in the order of {@code files}.
     */
    private static List<StreamStateHandle> uploadAll(List<Path> files, List<CheckpointedStateScope> scopes,
            CheckpointStreamFactory factory, CloseableRegistry registry) throws IOException {
        List<StreamStateHandle> handles = new ArrayList<>();
        if (files.size() <= 1) {
            for (int i = 0; i < files.size(); i++) {
                handles.add(upload(files.get(i), scopes.get(i), factory, registry));
            }
            return handles;
        }
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(
                Math.min(FerryIncrementalRestore.TRANSFER_THREADS, files.size()), r -> {
                    Thread t = new Thread(r, "ferry-checkpoint-transfer-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        try {
            List<Future<StreamStateHandle>> sends = new ArrayList<>();
            for (int i = 0; i < files.size(); i++) {
                Path file = files.get(i);
                CheckpointedStateScope scope = scopes.get(i);
                sends.add(pool.submit(() -> upload(file, scope, factory, registry)));
            }
            for (Future<StreamStateHandle> f : sends) {
                handles.add(f.get());
            }
            return handles;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while uploading the checkpoint's files");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("Cannot upload the checkpoint's files", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    private static StreamStateHandle upload(Path file, CheckpointedStateScope scope, CheckpointStreamFactory factory,
            CloseableRegistry registry) throws IOException {
        CheckpointStateOutputStream out = factory.createCheckpointStateOutputStream(scope);
        registry.registerCloseable(out);
        try (InputStream in = Files.newInputStream(file)) {
            in.transferTo(out);
            if (!registry.unregisterCloseable(out)) {
                throw new IOException("The checkpoint was cancelled");
            }
            return out.closeAndGetHandle();
        } catch (IOException | RuntimeException e) {
            IOUtils.closeQuietly(out);
            throw e;
        }
    }

    private StreamStateHandle writeMeta(List<StateMetaInfoSnapshot> metaInfos, CheckpointStreamFactory factory,
            CloseableRegistry registry) throws IOException {
        CheckpointStateOutputStream out = factory.createCheckpointStateOutputStream(CheckpointedStateScope.EXCLUSIVE);
        registry.registerCloseable(out);
        try {
            new KeyedBackendSerializationProxy<>(backend.getKeySerializer(), metaInfos, false)
                    .write(new DataOutputViewStreamWrapper(out));
            if (!registry.unregisterCloseable(out)) {
                throw new IOException("The checkpoint was cancelled");
            }
            return out.closeAndGetHandle();
        } catch (IOException | RuntimeException e) {
            IOUtils.closeQuietly(out);
            throw e;
        }
    }

    /** A checkpoint completed: its table files are the base of the next one. */
    void completed(long checkpointId) {
        Map<String, StreamStateHandle> tables = pending.remove(checkpointId);
        if (tables != null) {
            confirmed = tables;
        }
        pending.keySet().removeIf(id -> id < checkpointId);
    }

    /** A checkpoint was aborted: its uploads are not reused. */
    void aborted(long checkpointId) {
        pending.remove(checkpointId);
    }
}
