package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.LmdbFlag;
import dev.ferry.MergeOperator;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.WriteBatch;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.memory.OpaqueMemoryResource;
import org.apache.flink.runtime.state.AbstractStateBackend;
import org.apache.flink.runtime.state.BackendBuildingException;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.HeapPriorityQueuesManager;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.InternalKeyContextImpl;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.StateBackend.KeyedStateBackendParameters;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSet;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;
import org.apache.flink.runtime.state.restore.FullSnapshotRestoreOperation;
import org.apache.flink.runtime.state.restore.KeyGroup;
import org.apache.flink.runtime.state.restore.KeyGroupEntry;
import org.apache.flink.runtime.state.restore.SavepointRestoreResult;
import org.apache.flink.runtime.state.restore.ThrowingIterator;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.IOUtils;

/**
 * Opens the store of one keyed backend, bounds its memory, and restores full snapshots into it
 * (only the key groups of the backend's range: rescaling needs nothing more).
 *
 * <p>Thread safety: used once, by the task thread.
 */
final class FerryBackendBuilder<K> {
    /** The memory manager's name for the slot's shared Ferry memory. */
    static final String MANAGED_MEMORY_TYPE = "state-ferry-managed-memory";
    /** Entries per write batch when restoring. */
    private static final int RESTORE_BATCH = 4096;

    private final FerryStateBackend config;
    private final KeyedStateBackendParameters<K> p;
    private final LatencyTrackingStateConfig latency;
    private final SizeTrackingStateConfig size;

    FerryBackendBuilder(FerryStateBackend config, KeyedStateBackendParameters<K> parameters,
            LatencyTrackingStateConfig latency, SizeTrackingStateConfig size) {
        this.config = config;
        this.p = parameters;
        this.latency = latency;
        this.size = size;
    }

    FerryKeyedStateBackend<K> build() throws IOException {
        Environment env = p.getEnv();
        boolean lmdb = "lmdb".equals(config.engine);
        String binding = "auto".equals(config.binding) ? null : config.binding;
        List<AutoCloseable> resources = new ArrayList<>();
        Path dir = null;
        Store store = null;
        try {
            dir = directory(env);
            StoreOptions options;
            if (lmdb) {
                options = StoreOptions.lmdb().mapSize(config.lmdbMapSize).autoGrow(config.lmdbMapSize)
                        .maxColumnFamilies(4096).lmdbFlags(EnumSet.of(LmdbFlag.NOTLS));
            } else {
                // no WAL and no flush at close: the state is recovered from checkpoints, and a closed
                // backend's directory is deleted
                options = StoreOptions.rocksdb().wal(false).mergeOperator(MergeOperator.STRING_APPEND)
                        .rocksdbOptions("avoid_flush_during_shutdown=true");
                if (config.metrics.needsStatistics()) {
                    options.statistics(true);   // a statistics metric reads RocksDB's tickers
                }
                FerryMemory memory = memory(env, binding, resources);
                if (memory != null) {
                    options.blockCache(memory.cache).writeBufferManager(memory.writeBuffers)
                            .cacheIndexAndFilterBlocks(true);
                }
            }
            if (binding != null) {
                options.binding(binding);
            }

            KeyGroupRange range = p.getKeyGroupRange();
            int numberOfKeyGroups = p.getNumberOfKeyGroups();
            LinkedHashMap<String, FerryKeyedStateBackend.StateInfo> states = new LinkedHashMap<>();
            Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> heapQueues = null;
            HeapPriorityQueuesManager heapManager = null;
            HeapPriorityQueueSetFactory heapFactory = null;
            if (config.heapTimers) {
                heapQueues = new HashMap<>();
                heapFactory = new HeapPriorityQueueSetFactory(range, numberOfKeyGroups, 128);
                heapManager = new HeapPriorityQueuesManager(heapQueues, heapFactory, range, numberOfKeyGroups);
            }
            // a restore checks the key serializer against the snapshot's and may reconfigure it
            StateSerializerProvider<K> keySerializer =
                    StateSerializerProvider.fromNewRegisteredSerializer(p.getKeySerializer());
            List<KeyedStateHandle> full = new ArrayList<>();
            List<IncrementalRemoteKeyedStateHandle> incremental = new ArrayList<>();
            classify(full, incremental);
            Path db = dir.resolve("db");
            if (!incremental.isEmpty()) {
                if (lmdb) {
                    throw new BackendBuildingException("Incremental checkpoints are RocksDB's: an LMDB backend "
                            + "restores full checkpoints and canonical savepoints");
                }
                store = new FerryIncrementalRestore<>(dir, db, options, binding, range, numberOfKeyGroups,
                        env.getUserCodeClassLoader().asClassLoader(), keySerializer, states).restore(incremental);
            } else {
                store = Store.open(db, options);
                restore(store, full, states, heapQueues, heapFactory, keySerializer);
            }

            return new FerryKeyedStateBackend<>(p.getKvStateRegistry(), keySerializer.currentSchemaSerializer(),
                    env.getUserCodeClassLoader().asClassLoader(), env.getExecutionConfig(), p.getTtlTimeProvider(),
                    latency, size, new CloseableRegistry(), // the backend's own: the task closes p's after the restore
                    AbstractStateBackend.getCompressionDecorator(env.getExecutionConfig()),
                    new InternalKeyContextImpl<>(range, numberOfKeyGroups), store, dir, lmdb, states,
                    heapQueues, heapManager, resources, !lmdb && !config.heapTimers, config.incremental,
                    lmdb ? FerryNativeMetrics.NONE : config.metrics, p.getMetricGroup());
        } catch (Throwable t) {
            IOUtils.closeQuietly(store);
            for (AutoCloseable r : resources) {
                IOUtils.closeQuietly(r);
            }
            if (dir != null) {
                try {
                    FileUtils.deleteDirectory(dir.toFile());
                } catch (IOException ignored) {
                    // left for the task manager's temporary files
                }
            }
            if (t instanceof BackendBuildingException) {
                throw (BackendBuildingException) t;
            }
            throw new BackendBuildingException("Cannot build Ferry's keyed state backend: " + t.getMessage(), t);
        }
    }

    private Path directory(Environment env) throws IOException {
        String[] bases = config.localDirectories != null ? config.localDirectories
                : env.getTaskManagerInfo().getTmpDirectories();
        String base = bases[ThreadLocalRandom.current().nextInt(bases.length)].trim();
        String op = p.getOperatorIdentifier().replaceAll("[^A-Za-z0-9_-]", "_");
        if (op.length() > 60) {
            op = op.substring(0, 60);
        }
        Path parent = new File(base).toPath();
        Files.createDirectories(parent);
        return Files.createTempDirectory(parent, "ferry_job_" + p.getJobID() + "_op_" + op + "_");
    }

    private FerryMemory memory(Environment env, String binding, List<AutoCloseable> resources) throws Exception {
        if (config.fixedMemoryPerSlot > 0) {
            OpaqueMemoryResource<FerryMemory> r = env.getMemoryManager().getExternalSharedMemoryResource(
                    MANAGED_MEMORY_TYPE, bytes -> new FerryMemory(bytes, config.writeBufferRatio, binding),
                    config.fixedMemoryPerSlot);
            resources.add(r);
            return r.getResourceHandle();
        }
        if (!config.managedMemory || p.getManagedMemoryFraction() <= 0 || env.getMemoryManager() == null) {
            return null;
        }
        OpaqueMemoryResource<FerryMemory> r = env.getMemoryManager().getSharedMemoryResourceForManagedMemory(
                MANAGED_MEMORY_TYPE, bytes -> new FerryMemory(bytes, config.writeBufferRatio, binding),
                p.getManagedMemoryFraction());
        resources.add(r);
        return r.getResourceHandle();
    }

    /** Sorts the handles to restore: full snapshots, or incremental checkpoints of this backend. */
    private void classify(List<KeyedStateHandle> full, List<IncrementalRemoteKeyedStateHandle> incremental)
            throws BackendBuildingException {
        for (KeyedStateHandle h : p.getStateHandles()) {
            if (h instanceof KeyGroupsStateHandle) {
                full.add(h);
            } else if (h instanceof IncrementalRemoteKeyedStateHandle) {
                incremental.add((IncrementalRemoteKeyedStateHandle) h);
            } else if (h != null) {
                throw new BackendBuildingException("Ferry's state backend restores its full and incremental "
                        + "checkpoints and canonical savepoints; this is a " + h.getClass().getName()
                        + ": take a canonical savepoint with the backend that wrote it and restore from that.");
            }
        }
        if (!full.isEmpty() && !incremental.isEmpty()) {
            throw new BackendBuildingException("A restore mixes full snapshots and incremental checkpoints");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void restore(Store store, List<KeyedStateHandle> handles,
            LinkedHashMap<String, FerryKeyedStateBackend.StateInfo> states,
            Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> heapQueues, HeapPriorityQueueSetFactory heapFactory,
            StateSerializerProvider<K> keySerializer) throws Exception {
        if (handles.isEmpty()) {
            return;
        }
        int prefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(p.getNumberOfKeyGroups());
        FullSnapshotRestoreOperation<K> op = new FullSnapshotRestoreOperation<>(p.getKeyGroupRange(),
                p.getEnv().getUserCodeClassLoader().asClassLoader(), handles,
                keySerializer);
        DataInputDeserializer in = new DataInputDeserializer();
        try (ThrowingIterator<SavepointRestoreResult> results = op.restore()) {
            while (results.hasNext()) {
                SavepointRestoreResult result = results.next();
                List<StateMetaInfoSnapshot> metas = result.getStateMetaInfoSnapshots();
                ColumnFamily[] cfs = new ColumnFamily[metas.size()];
                HeapPriorityQueueSnapshotRestoreWrapper[] queues = new HeapPriorityQueueSnapshotRestoreWrapper[metas.size()];
                for (int i = 0; i < metas.size(); i++) {
                    StateMetaInfoSnapshot m = metas.get(i);
                    boolean queue = m.getBackendStateType() == StateMetaInfoSnapshot.BackendStateType.PRIORITY_QUEUE;
                    if (queue && heapQueues != null) {
                        queues[i] = heapQueues.computeIfAbsent(m.getName(), n -> {
                            RegisteredPriorityQueueStateBackendMetaInfo meta = new RegisteredPriorityQueueStateBackendMetaInfo(m);
                            HeapPriorityQueueSet set = heapFactory.create(n, meta.getElementSerializer());
                            return new HeapPriorityQueueSnapshotRestoreWrapper(set, meta,
                                    KeyExtractorFunction.forKeyedObjects(), p.getKeyGroupRange(),
                                    p.getNumberOfKeyGroups());
                        });
                        continue;
                    }
                    FerryKeyedStateBackend.StateInfo info = states.get(m.getName());
                    if (info == null) {
                        info = new FerryKeyedStateBackend.StateInfo(
                                store.createColumnFamily(FerryKeyedStateBackend.familyName(m.getName())),
                                RegisteredStateMetaInfoBase.fromMetaInfoSnapshot(m));
                        states.put(m.getName(), info);
                    }
                    cfs[i] = info.cf;
                }
                try (ThrowingIterator<KeyGroup> groups = result.getRestoredKeyGroups();
                        WriteBatch batch = new WriteBatch()) {
                    while (groups.hasNext()) {
                        try (ThrowingIterator<KeyGroupEntry> entries = groups.next().getKeyGroupEntries()) {
                            while (entries.hasNext()) {
                                KeyGroupEntry e = entries.next();
                                int id = e.getKvStateId();
                                if (queues[id] != null) {
                                    in.setBuffer(e.getKey());
                                    in.skipBytesToRead(prefixBytes);
                                    HeapPriorityQueueSnapshotRestoreWrapper<HeapPriorityQueueElement> q = queues[id];
                                    TypeSerializer<HeapPriorityQueueElement> s = q.getMetaInfo().getElementSerializer();
                                    q.getPriorityQueue().add(s.deserialize(in));
                                } else if (cfs[id] != null) {
                                    batch.put(cfs[id], e.getKey(), e.getValue());
                                    if (batch.count() >= RESTORE_BATCH) {
                                        store.write(batch);
                                        batch.clear();
                                    }
                                } else {
                                    throw new IllegalStateException("Unknown state id " + id + " in the snapshot");
                                }
                            }
                        }
                    }
                    if (batch.count() > 0) {
                        store.write(batch);
                    }
                }
            }
        }
    }
}
