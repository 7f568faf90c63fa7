package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.ColumnFamilyOptions;
import dev.ferry.Cursor;
import dev.ferry.CursorOptions;
import dev.ferry.KeyRange;
import dev.ferry.Store;
import dev.ferry.WriteBatch;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RunnableFuture;
import java.util.stream.Stream;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.ReduceFunction;
import org.apache.flink.api.common.state.AggregatingStateDescriptor;
import org.apache.flink.api.common.state.ReducingStateDescriptor;
import org.apache.flink.api.common.state.State;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.SnapshotType;
import org.apache.flink.runtime.query.TaskKvStateRegistry;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointStreamWithResultProvider;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.FullSnapshotAsyncWriter;
import org.apache.flink.runtime.state.FullSnapshotResources;
import org.apache.flink.runtime.state.HeapPriorityQueuesManager;
import org.apache.flink.runtime.state.InternalKeyContext;
import org.apache.flink.runtime.state.KeyExtractorFunction;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.Keyed;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.PriorityComparable;
import org.apache.flink.runtime.state.PriorityComparator;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredPriorityQueueStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredStateMetaInfoBase;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SerializedCompositeKeyBuilder;
import org.apache.flink.runtime.state.SnapshotExecutionType;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.SnapshotStrategy;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.StateSnapshotTransformer.StateSnapshotTransformFactory;
import org.apache.flink.runtime.state.StateSnapshotTransformer;
import org.apache.flink.runtime.state.StreamCompressionDecorator;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueElement;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSnapshotRestoreWrapper;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueStateSnapshot;
import org.apache.flink.runtime.state.heap.KeyGroupPartitionedPriorityQueue;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlAwareSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.util.FileUtils;
import org.apache.flink.util.FlinkRuntimeException;
import org.apache.flink.util.IOUtils;
import org.apache.flink.util.ResourceGuard;
import org.apache.flink.util.StateMigrationException;

/**
 * Flink's keyed state in one Ferry store: one column family per state (and per timer queue kept in
 * the store), keys laid out (key group, key, namespace[, user key]) as Flink's RocksDB backend lays
 * them out. With RocksDB and timers in the store, checkpoints are the store's files (full, or
 * incremental); savepoints, and every snapshot of LMDB or heap timers, are full snapshots in Flink's
 * canonical format, written by Flink's own {@code FullSnapshotAsyncWriter} from a store snapshot,
 * asynchronously.
 *
 * <p>Thread safety: used by its task thread; the asynchronous part of a snapshot reads a store
 * snapshot on another thread.
 *
 * @param <K> the key type
 */
public final class FerryKeyedStateBackend<K> extends AbstractKeyedStateBackend<K> {
    /** Backend type identifier reported to Flink. */
    public static final String IDENTIFIER = "ferry";

    /** A state's column family and meta info. */
    static final class StateInfo {
        ColumnFamily cf;
        RegisteredStateMetaInfoBase meta;
        /** The time to live of the family's native TTL filter, or -1: none (also a family a restore opened). */
        long ttlMillis = -1;
        /** The timestamp offset of the family's native TTL filter, or -1. */
        int ttlOffset = -1;

        StateInfo(ColumnFamily cf, RegisteredStateMetaInfoBase meta) {
            this.cf = cf;
            this.meta = meta;
        }
    }

    private final Store store;
    private final Path directory;
    private final boolean lmdb;
    private final int keyGroupPrefixBytes;
    private final SerializedCompositeKeyBuilder<K> keyBuilder;
    private final LinkedHashMap<String, StateInfo> states;
    private final Map<String, FerryKvState<K, ?, ?>> created = new HashMap<>();
    private final Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> heapQueues;
    private final HeapPriorityQueuesManager heapQueuesManager;
    private final CursorOptions cursorOptions = CursorOptions.defaults();
    private final ResourceGuard guard = new ResourceGuard();
    private final List<AutoCloseable> resources;
    private final FerryNativeMetrics nativeMetrics;
    private final MetricGroup metricGroup;
    /**
     * Checkpoints made of the store's files (incremental, or full native), or null: every checkpoint is a
     * canonical full snapshot (LMDB, heap timers).
     */
    private final FerryIncrementalSnapshots<K> incremental;
    /** Native savepoints: every file uploaded, nothing shared with checkpoints; null where {@link #incremental} is. */
    private final FerryIncrementalSnapshots<K> nativeSavepoints;
    /**
     * The timer queues' puts and deletes not yet in the store, written in one native call when
     * {@link #TIMER_BATCH_OPS} or {@link #TIMER_BATCH_BYTES} are reached and before anything reads a timer
     * family ({@link #flushTimers()}): a queue's cursor, a snapshot or a checkpoint.
     */
    private final WriteBatch timerWrites = new WriteBatch();
    private boolean disposed;
    /**
     * Whether a state has Ferry's native TTL filter and the time comes from a TTL time provider other
     * than the wall clock: then the store's TTL clock is set to the provider's time before each read.
     */
    private boolean ttlClockFromProvider;

    FerryKeyedStateBackend(TaskKvStateRegistry kvStateRegistry, TypeSerializer<K> keySerializer,
            ClassLoader userCodeClassLoader, ExecutionConfig executionConfig, TtlTimeProvider ttlTimeProvider,
            LatencyTrackingStateConfig latencyTrackingStateConfig, SizeTrackingStateConfig sizeTrackingStateConfig,
            CloseableRegistry cancelStreamRegistry, StreamCompressionDecorator compression,
            InternalKeyContext<K> keyContext, Store store, Path directory, boolean lmdb,
            LinkedHashMap<String, StateInfo> states,
            Map<String, HeapPriorityQueueSnapshotRestoreWrapper<?>> heapQueues,
            HeapPriorityQueuesManager heapQueuesManager, List<AutoCloseable> resources, boolean nativeCheckpoints,
            boolean incremental, FerryNativeMetrics nativeMetrics, MetricGroup metricGroup) {
        super(kvStateRegistry, keySerializer, userCodeClassLoader, executionConfig, ttlTimeProvider,
                latencyTrackingStateConfig, sizeTrackingStateConfig, cancelStreamRegistry, compression, keyContext);
        this.store = store;
        this.directory = directory;
        this.lmdb = lmdb;
        this.keyGroupPrefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(
                keyContext.getNumberOfKeyGroups());
        this.keyBuilder = new SerializedCompositeKeyBuilder<>(keySerializer, keyGroupPrefixBytes, 32);
        this.states = states;
        this.incremental = nativeCheckpoints ? new FerryIncrementalSnapshots<>(this, directory, incremental) : null;
        this.nativeSavepoints = nativeCheckpoints ? new FerryIncrementalSnapshots<>(this, directory, false) : null;
        this.nativeMetrics = nativeMetrics;
        this.metricGroup = metricGroup;
        states.forEach((name, info) -> nativeMetrics.register(metricGroup, name, store, () -> currentFamily(name)));
        nativeMetrics.registerStatistics(metricGroup, store);
        this.heapQueues = heapQueues;
        this.heapQueuesManager = heapQueuesManager;
        this.resources = resources;
    }

    // ---- store access for the states ----

    Store store() {
        return store;
    }

    CursorOptions cursorOptions() {
        return cursorOptions;
    }

    SerializedCompositeKeyBuilder<K> keyBuilder() {
        return keyBuilder;
    }

    int keyGroupPrefixBytes() {
        return keyGroupPrefixBytes;
    }

    byte[] get(ColumnFamily cf, byte[] key) {
        syncTtlClock();
        return store.get(cf, key);
    }

    void put(ColumnFamily cf, byte[] key, byte[] value) {
        store.put(cf, key, value);
    }

    void delete(ColumnFamily cf, byte[] key) {
        store.delete(cf, key);
    }

    void deleteAll(ColumnFamily cf, List<byte[]> keys) {
        if (keys.isEmpty()) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (byte[] k : keys) {
                batch.delete(cf, k);
            }
            store.write(batch);
        }
    }

    // ---- timer queue writes, batched ----

    /** Timer writes gathered before the batch is written. */
    static final int TIMER_BATCH_OPS = 1024;
    /** Encoded bytes of timer writes gathered before the batch is written. */
    static final int TIMER_BATCH_BYTES = 1 << 20;
    private static final byte[] EMPTY_VALUE = new byte[0];

    /** Queues a timer put (an element as a key with an empty value) in the timer batch. */
    void timerPut(ColumnFamily cf, byte[] key) {
        timerWrites.put(cf, key, EMPTY_VALUE);
        flushTimersIfFull();
    }

    /** Queues a timer delete in the timer batch. */
    void timerDelete(ColumnFamily cf, byte[] key) {
        timerWrites.delete(cf, key);
        flushTimersIfFull();
    }

    private void flushTimersIfFull() {
        if (timerWrites.count() >= TIMER_BATCH_OPS || timerWrites.sizeInBytes() >= TIMER_BATCH_BYTES) {
            flushTimers();
        }
    }

    /** Writes the batched timer writes to the store; called before any read of a timer family. */
    void flushTimers() {
        if (timerWrites.count() > 0) {
            store.write(timerWrites);
            timerWrites.clear();
        }
    }

    /** @return the timer writes batched and not yet in the store */
    int pendingTimerWrites() {
        return timerWrites.count();
    }

    /** Appends list elements (already delimited) to a list value: a merge on RocksDB, read and write on LMDB. */
    void append(ColumnFamily cf, byte[] key, byte[] elements) {
        if (!lmdb) {
            store.merge(cf, key, elements);
            return;
        }
        byte[] old = store.get(cf, key);
        if (old == null || old.length == 0) {
            store.put(cf, key, elements);
            return;
        }
        byte[] joined = new byte[old.length + 1 + elements.length];
        System.arraycopy(old, 0, joined, 0, old.length);
        joined[old.length] = ',';
        System.arraycopy(elements, 0, joined, old.length + 1, elements.length);
        store.put(cf, key, joined);
    }

    /**
     * The column family name of a state: its name's UTF-8 bytes in hex, so that any state name makes a
     * valid, distinct family name (also {@code "default"}), and a store restored from an incremental
     * checkpoint finds its states' families by name.
     *
     * @param stateName the state's name
     * @return the family's name
     */
    static String familyName(String stateName) {
        return "state-" + java.util.HexFormat.of().formatHex(stateName.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** Suffix of the name of a state's family rebuilt with a native TTL filter (see {@link #fitNativeTtl}). */
    private static final String REBUILT = ".rebuilt";

    /**
     * The family of a state in a store: named by {@link #familyName}, or that name with {@link #REBUILT}
     * (a family rebuilt for a TTL filter; a store has one of the two).
     *
     * @param store the store
     * @param stateName the state's name
     * @return the family, if the store has one for the state
     */
    static java.util.Optional<ColumnFamily> stateFamily(Store store, String stateName) {
        java.util.Optional<ColumnFamily> cf = store.columnFamily(familyName(stateName));
        return cf.isPresent() ? cf : store.columnFamily(familyName(stateName) + REBUILT);
    }

    /** @return a state's current family, or null once the state is gone (the metrics' gauges read it) */
    private ColumnFamily currentFamily(String stateName) {
        StateInfo info = states.get(stateName);
        return info == null ? null : info.cf;
    }

    /**
     * A cursor over a state's family, the TTL clock set first (see {@link #syncTtlClock()}).
     *
     * @param cf the family
     * @param range the keys
     * @return the cursor
     */
    Cursor cursor(ColumnFamily cf, KeyRange range) {
        syncTtlClock();
        return store.cursor(cf, range, cursorOptions);
    }

    /**
     * Sets the store's TTL clock to the TTL time provider's time, when a state has Ferry's native TTL
     * filter and the provider is not the wall clock (a test's manual clock): the filter hides and drops
     * values by the store's clock, and Flink's TTL wrappers expire them by the provider's.
     */
    void syncTtlClock() {
        if (ttlClockFromProvider) {
            store.setTtlClock(Math.max(0, ttlTimeProvider.currentTimestamp()));
        }
    }

    /**
     * The byte offset of the TTL timestamp in the stored values of a state whose expired values Ferry's
     * native TTL filter may hide from reads and drop at compactions, or -1 when it may not. It may when
     * the engine is RocksDB, the state's TTL asks for compaction-filter cleanup, and expired values are
     * never returned ({@code NeverReturnExpired}: with {@code ReturnExpiredIfNotCleanedUp} hiding them
     * on reads would change what the state returns). Value, reducing and aggregating state keep the
     * timestamp at byte 0 of the value (Flink's {@code TtlValue}); map state at byte 1, after the null
     * flag. List state keeps one timestamp per element: not a single value's, so -1.
     *
     * @param desc the state's descriptor, or null (a timer queue)
     * @return the offset, or -1
     */
    int nativeTtlOffset(StateDescriptor<?, ?> desc) {
        StateTtlConfig ttl = desc == null ? StateTtlConfig.DISABLED : desc.getTtlConfig();
        if (lmdb || !ttl.isEnabled() || !ttl.getCleanupStrategies().inRocksdbCompactFilter()
                || ttl.getStateVisibility() != StateTtlConfig.StateVisibility.NeverReturnExpired) {
            return -1;
        }
        switch (desc.getType()) {
            case VALUE:
            case REDUCING:
            case AGGREGATING:
                return 0;
            case MAP:
                return 1;
            default:
                return -1;
        }
    }

    /** @return the time to live in milliseconds, saturated at {@code Long.MAX_VALUE}, at least 1 */
    private static long ttlMillis(StateTtlConfig ttl) {
        try {
            return Math.max(1, ttl.getTimeToLive().toMillis());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** @return a new state for a timer queue, its family's metrics registered */
    private StateInfo newInfo(String stateName, RegisteredStateMetaInfoBase meta) {
        return newInfo(stateName, null, meta);
    }

    /** @return a new state, its family created (with Ferry's TTL filter when it fits) and its metrics registered */
    private StateInfo newInfo(String stateName, StateDescriptor<?, ?> desc, RegisteredStateMetaInfoBase meta) {
        int offset = nativeTtlOffset(desc);
        StateInfo info;
        if (offset >= 0) {
            long ms = ttlMillis(desc.getTtlConfig());
            info = new StateInfo(store.createColumnFamily(familyName(stateName), ColumnFamilyOptions.of().ttl(ms, offset)),
                    meta);
            info.ttlMillis = ms;
            info.ttlOffset = offset;
            ttlClockFromProvider |= ttlTimeProvider != TtlTimeProvider.DEFAULT;
            syncTtlClock();
        } else {
            info = new StateInfo(store.createColumnFamily(familyName(stateName)), meta);
        }
        nativeMetrics.register(metricGroup, stateName, store, () -> currentFamily(stateName));
        return info;
    }

    /**
     * Gives a state's family the native TTL filter its descriptor asks for, when the family has another
     * (or none: a family created or opened by a restore, before the descriptor was known). A family's
     * compaction filter is fixed when it is created, so the family is rebuilt: its entries are copied into
     * a new family with the filter (named {@link #familyName} or that name with {@link #REBUILT}, whichever
     * the old one is not), and the old family is dropped.
     */
    private void fitNativeTtl(String stateName, StateInfo info, StateDescriptor<?, ?> desc) {
        int offset = nativeTtlOffset(desc);
        long ms = offset >= 0 ? ttlMillis(desc.getTtlConfig()) : -1;
        if (info.ttlMillis == ms && info.ttlOffset == offset) {
            return;
        }
        ColumnFamily old = info.cf;
        String name = familyName(stateName);
        if (old.name().equals(name)) {
            name = name + REBUILT;
        }
        ColumnFamily cf = offset >= 0 ? store.createColumnFamily(name, ColumnFamilyOptions.of().ttl(ms, offset))
                : store.createColumnFamily(name);
        try (Cursor c = store.cursor(old, KeyRange.all(), cursorOptions); WriteBatch batch = new WriteBatch()) {
            while (c.next()) {
                batch.put(cf, c.keyBytes(), c.valueBytes());
                if (batch.count() >= 4096) {
                    store.write(batch);
                    batch.clear();
                }
            }
            if (batch.count() > 0) {
                store.write(batch);
            }
        }
        store.dropColumnFamily(old);
        info.cf = cf;
        info.ttlMillis = ms;
        info.ttlOffset = offset;
        if (offset >= 0) {
            ttlClockFromProvider |= ttlTimeProvider != TtlTimeProvider.DEFAULT;
            syncTtlClock();
        }
    }

    /** @return the states, in registration order */
    LinkedHashMap<String, StateInfo> states() {
        return states;
    }

    /** @return the lease that keeps the store open while a snapshot reads it */
    ResourceGuard.Lease lease() throws IOException {
        return guard.acquireResource();
    }

    // ---- keys ----

    @Override
    public void setCurrentKey(K newKey) {
        super.setCurrentKey(newKey);
        keyBuilder.setKeyAndKeyGroup(getCurrentKey(), getCurrentKeyGroupIndex());
    }

    @Override
    public void setCurrentKeyAndKeyGroup(K newKey, int newKeyGroupIndex) {
        super.setCurrentKeyAndKeyGroup(newKey, newKeyGroupIndex);
        keyBuilder.setKeyAndKeyGroup(getCurrentKey(), getCurrentKeyGroupIndex());
    }

    @Override
    public <N> Stream<K> getKeys(String state, N namespace) {
        return getKeys(List.of(state), namespace);
    }

    @Override
    public <N> Stream<K> getKeys(List<String> stateNames, N namespace) {
        List<K> keys = new ArrayList<>();
        java.util.Set<K> seen = new java.util.HashSet<>();
        for (String name : stateNames) {
            for (Tuple2<K, N> kn : this.<N>keysAndNamespaces(name)) {
                if (kn.f1.equals(namespace) && seen.add(kn.f0)) {
                    keys.add(kn.f0);
                }
            }
        }
        return keys.stream();
    }

    @Override
    public <N> Stream<Tuple2<K, N>> getKeysAndNamespaces(String state) {
        return this.<N>keysAndNamespaces(state).stream();
    }

    /** Every distinct (key, namespace) of a state, in store order. */
    @SuppressWarnings("unchecked")
    private <N> List<Tuple2<K, N>> keysAndNamespaces(String name) {
        StateInfo info = states.get(name);
        List<Tuple2<K, N>> out = new ArrayList<>();
        if (info == null || !(info.meta instanceof RegisteredKeyValueStateBackendMetaInfo)) {
            return out;
        }
        TypeSerializer<N> nsSerializer =
                ((RegisteredKeyValueStateBackendMetaInfo<N, ?>) info.meta).getNamespaceSerializer();
        boolean ambiguous = CompositeKeySerializationUtils.isAmbiguousKeyPossible(keySerializer, nsSerializer);
        DataInputDeserializer in = new DataInputDeserializer();
        Tuple2<K, N> previous = null;
        try (Cursor c = store.cursor(info.cf, KeyRange.all(), cursorOptions)) {
            while (c.next()) {
                in.setBuffer(c.keyBytes());
                CompositeKeySerializationUtils.readKeyGroup(keyGroupPrefixBytes, in);
                K key = CompositeKeySerializationUtils.readKey(keySerializer, in, ambiguous);
                N ns = CompositeKeySerializationUtils.readNamespace(nsSerializer, in, ambiguous);
                Tuple2<K, N> kn = Tuple2.of(key, ns);
                if (!kn.equals(previous)) {
                    out.add(kn);
                    previous = kn;
                }
            }
        } catch (IOException e) {
            throw new FlinkRuntimeException("Cannot read the keys of state " + name, e);
        }
        return out;
    }

    // ---- states ----

    @Override
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            TypeSerializer<N> namespaceSerializer, StateDescriptor<S, SV> stateDesc,
            StateSnapshotTransformFactory<SEV> snapshotTransformFactory) throws Exception {
        return createOrUpdateInternalState(namespaceSerializer, stateDesc, snapshotTransformFactory, false);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public <N, SV, SEV, S extends State, IS extends S> IS createOrUpdateInternalState(
            TypeSerializer<N> namespaceSerializer, StateDescriptor<S, SV> stateDesc,
            StateSnapshotTransformFactory<SEV> snapshotTransformFactory, boolean allowFutureMetadataUpdates)
            throws Exception {
        String name = stateDesc.getName();
        StateInfo info = states.get(name);
        RegisteredKeyValueStateBackendMetaInfo<N, SV> meta;
        if (info != null) {
            if (!(info.meta instanceof RegisteredKeyValueStateBackendMetaInfo)) {
                throw new StateMigrationException("State " + name + " is a priority queue, not a keyed state");
            }
            meta = (RegisteredKeyValueStateBackendMetaInfo<N, SV>) info.meta;
            updateRestoredMeta(info, meta, stateDesc, namespaceSerializer);
            fitNativeTtl(name, info, stateDesc);
        } else {
            meta = new RegisteredKeyValueStateBackendMetaInfo<>(stateDesc.getType(), name, namespaceSerializer,
                    stateDesc.getSerializer(), StateSnapshotTransformFactory.noTransform());
            info = newInfo(name, stateDesc, meta);
            states.put(name, info);
        }
        if (allowFutureMetadataUpdates) {
            meta = meta.withSerializerUpgradesAllowed();
            info.meta = meta;
        }
        // snapshot transforms (TTL cleanup in full snapshots) work on the stored bytes: a list's
        // elements one by one, a map value inside its null flag, other values as they are
        StateSnapshotTransformFactory transform = snapshotTransformFactory;
        if (stateDesc.getType() == StateDescriptor.Type.LIST) {
            transform = SerializedTransforms.forList(snapshotTransformFactory,
                    ((ListSerializer) meta.getStateSerializer()).getElementSerializer());
        } else if (stateDesc.getType() == StateDescriptor.Type.MAP) {
            transform = SerializedTransforms.forMap(snapshotTransformFactory);
        }
        meta.updateSnapshotTransformFactory(transform);

        FerryKvState<K, N, SV> state = (FerryKvState<K, N, SV>) created.get(name);
        if (state == null) {
            state = newState(stateDesc, info.cf, meta);
            created.put(name, state);
        } else {
            state.update(info.cf, meta);
            if (state instanceof FerryReducingState) {
                ((FerryReducingState) state).reduceFunction(((ReducingStateDescriptor) stateDesc).getReduceFunction());
            } else if (state instanceof FerryAggregatingState) {
                ((FerryAggregatingState) state).aggregateFunction(
                        ((AggregatingStateDescriptor) stateDesc).getAggregateFunction());
            }
        }
        return (IS) state;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <N, SV, S extends State> FerryKvState<K, N, SV> newState(StateDescriptor<S, SV> desc, ColumnFamily cf,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> meta) {
        TypeSerializer<N> ns = meta.getNamespaceSerializer();
        TypeSerializer<SV> vs = meta.getStateSerializer();
        switch (desc.getType()) {
            case VALUE:
                return new FerryValueState<>(this, cf, ns, vs, desc.getDefaultValue());
            case LIST:
                return (FerryKvState) new FerryListState<>(this, cf, ns, (TypeSerializer) vs);
            case MAP:
                return (FerryKvState) new FerryMapState<>(this, cf, ns, (TypeSerializer) vs);
            case REDUCING:
                return new FerryReducingState<>(this, cf, ns, vs,
                        (ReduceFunction<SV>) ((ReducingStateDescriptor) desc).getReduceFunction());
            case AGGREGATING:
                return (FerryKvState) new FerryAggregatingState<>(this, cf, ns, vs,
                        (AggregateFunction) ((AggregatingStateDescriptor) desc).getAggregateFunction());
            default:
                throw new FlinkRuntimeException("State " + desc.getClass() + " is not supported by " + getClass());
        }
    }

    /** Checks a restored state's serializers against the new ones, and migrates its values when needed. */
    private <N, SV, S extends State> void updateRestoredMeta(StateInfo info,
            RegisteredKeyValueStateBackendMetaInfo<N, SV> meta, StateDescriptor<S, SV> desc,
            TypeSerializer<N> namespaceSerializer) throws Exception {
        TypeSerializer<N> previousNs = meta.getNamespaceSerializer();
        TypeSerializerSchemaCompatibility<N> nsCompat = meta.updateNamespaceSerializer(namespaceSerializer);
        if (nsCompat.isCompatibleAfterMigration() || nsCompat.isIncompatible()) {
            throw new StateMigrationException("The new namespace serializer (" + namespaceSerializer
                    + ") must be compatible with the old namespace serializer (" + previousNs + ").");
        }
        meta.checkStateMetaInfo(desc);
        TypeSerializer<SV> previous = meta.getStateSerializer();
        TypeSerializerSchemaCompatibility<SV> compat = meta.updateStateSerializer(desc.getSerializer());
        if (compat.isCompatibleAfterMigration()) {
            migrate(info, meta, desc);
        } else if (compat.isIncompatible()) {
            throw new StateMigrationException("The new state serializer (" + desc.getSerializer()
                    + ") must not be incompatible with the old state serializer (" + previous + ").");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private <N, SV, S extends State> void migrate(StateInfo info, RegisteredKeyValueStateBackendMetaInfo<N, SV> meta,
            StateDescriptor<S, SV> desc) throws Exception {
        if (desc.getType() == StateDescriptor.Type.MAP) {
            TypeSerializerSnapshot<SV> prior = meta.getPreviousStateSerializerSnapshot();
            MapSerializerSnapshot<?, ?> mapSnapshot = (MapSerializerSnapshot<?, ?>) prior;
            MapSerializer<?, ?> newMap = (MapSerializer<?, ?>) meta.getStateSerializer();
            TypeSerializerSchemaCompatibility keyCompat = ((TypeSerializer) newMap.getKeySerializer())
                    .snapshotConfiguration().resolveSchemaCompatibility(mapSnapshot.getKeySerializerSnapshot());
            if (!keyCompat.isCompatibleAsIs()) {
                throw new StateMigrationException("The new serializer for a MapState requires state migration in "
                        + "order for the job to proceed, since the key schema has changed. However, migration for "
                        + "MapState currently only allows value schema evolutions.");
            }
        }
        TypeSerializer<SV> priorSerializer = (TypeSerializer<SV>)
                TtlAwareSerializer.wrapTtlAwareSerializer(meta.getPreviousStateSerializer());
        TypeSerializer<SV> nextSerializer = (TypeSerializer<SV>)
                TtlAwareSerializer.wrapTtlAwareSerializer(meta.getStateSerializer());
        FerryKvState<K, N, SV> state = (FerryKvState<K, N, SV>) created.get(desc.getName());
        if (state == null) {
            state = newState(desc, info.cf, meta);
        }
        DataOutputSerializer out = new DataOutputSerializer(256);
        List<byte[][]> rewritten = new ArrayList<>();
        try (Cursor c = store.cursor(info.cf, KeyRange.all(), cursorOptions)) {
            while (c.next()) {
                out.clear();
                try {
                    state.migrateValue(c.valueBytes(), priorSerializer, nextSerializer, ttlTimeProvider, out);
                } catch (Exception e) {
                    throw new StateMigrationException("Error while trying to migrate Ferry state.", e);
                }
                rewritten.add(new byte[][] {c.keyBytes(), out.getCopyOfBuffer()});
                if (rewritten.size() >= 1024) {
                    writeAll(info.cf, rewritten);
                }
            }
        }
        writeAll(info.cf, rewritten);
    }

    private void writeAll(ColumnFamily cf, List<byte[][]> entries) {
        if (entries.isEmpty()) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (byte[][] kv : entries) {
                batch.put(cf, kv[0], kv[1]);
            }
            store.write(batch);
        }
        entries.clear();
    }

    // ---- timers ----

    @Override
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(String stateName, TypeSerializer<T> byteOrderedElementSerializer) {
        return create(stateName, byteOrderedElementSerializer, false);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends HeapPriorityQueueElement & PriorityComparable<? super T> & Keyed<?>>
            KeyGroupedInternalPriorityQueue<T> create(String stateName, TypeSerializer<T> serializer,
                    boolean allowFutureMetadataUpdates) {
        if (heapQueuesManager != null) {
            return heapQueuesManager.createOrUpdate(stateName, serializer, allowFutureMetadataUpdates);
        }
        StateInfo info = states.get(stateName);
        RegisteredPriorityQueueStateBackendMetaInfo<T> meta;
        if (info == null) {
            meta = new RegisteredPriorityQueueStateBackendMetaInfo<>(stateName, serializer);
            info = newInfo(stateName, meta);
            states.put(stateName, info);
        } else {
            if (!(info.meta instanceof RegisteredPriorityQueueStateBackendMetaInfo)) {
                throw new FlinkRuntimeException("State " + stateName + " is a keyed state, not a priority queue");
            }
            meta = (RegisteredPriorityQueueStateBackendMetaInfo<T>) info.meta;
            TypeSerializer<T> current = meta.getElementSerializer();
            if (current != serializer && !current.equals(serializer)) {
                // elements are store keys: they cannot be migrated, only checked, as the built-in backend does
                TypeSerializerSchemaCompatibility<T> compat = meta.updateElementSerializer(serializer);
                if (compat.isIncompatible()) {
                    throw new FlinkRuntimeException(new StateMigrationException(
                            "The new priority queue serializer must not be incompatible."));
                }
                meta = new RegisteredPriorityQueueStateBackendMetaInfo<>(stateName, serializer);
            }
        }
        if (allowFutureMetadataUpdates) {
            meta = meta.withSerializerUpgradesAllowed();
        }
        info.meta = meta;
        ColumnFamily cf = info.cf;
        TypeSerializer<T> elements = meta.getElementSerializer();
        KeyGroupPartitionedPriorityQueue.PartitionQueueSetFactory<T, FerryPriorityQueueSet<T>> perGroup =
                (keyGroup, numKeyGroups, keyExtractor, comparator) -> new FerryPriorityQueueSet<>(this, cf,
                        elements.duplicate(), keyGroup, keyGroupPrefixBytes);
        return new KeyGroupPartitionedPriorityQueue<T, FerryPriorityQueueSet<T>>(
                KeyExtractorFunction.forKeyedObjects(), PriorityComparator.forPriorityComparableObjects(), perGroup,
                keyGroupRange, numberOfKeyGroups);
    }

    // ---- snapshots ----

    @Override
    public RunnableFuture<SnapshotResult<KeyedStateHandle>> snapshot(long checkpointId, long timestamp,
            CheckpointStreamFactory streamFactory, CheckpointOptions checkpointOptions) throws Exception {
        SnapshotType type = checkpointOptions.getCheckpointType();
        if (incremental != null && !type.isSavepoint()) {
            return new SnapshotStrategyRunner<>("Ferry native checkpoint", incremental, cancelStreamRegistry,
                    SnapshotExecutionType.ASYNCHRONOUS).snapshot(checkpointId, timestamp, streamFactory,
                    checkpointOptions);
        }
        if (type instanceof SavepointType && ((SavepointType) type).getFormatType() == SavepointFormatType.NATIVE) {
            if (nativeSavepoints == null) {
                throw new UnsupportedOperationException("A native savepoint needs Ferry's RocksDB backend with timers"
                        + " in the store (this backend: " + (lmdb ? "LMDB" : "timers on the heap")
                        + "); take a canonical savepoint");
            }
            // the store's files, every one uploaded into the savepoint (self-contained, as Flink's RocksDB
            // backend's native savepoints)
            return new SnapshotStrategyRunner<>("Ferry native savepoint", nativeSavepoints, cancelStreamRegistry,
                    SnapshotExecutionType.ASYNCHRONOUS).snapshot(checkpointId, timestamp, streamFactory,
                    checkpointOptions);
        }
        SnapshotStrategy<KeyedStateHandle, FullSnapshotResources<K>> strategy = new SnapshotStrategy<>() {
            @Override
            public FullSnapshotResources<K> syncPrepareResources(long id) throws Exception {
                return fullSnapshotResources();
            }

            @Override
            public SnapshotResultSupplier<KeyedStateHandle> asyncSnapshot(FullSnapshotResources<K> resources,
                    long id, long ts, CheckpointStreamFactory factory, CheckpointOptions options) {
                if (resources.getMetaInfoSnapshots().isEmpty()) {
                    return registry -> SnapshotResult.empty();
                }
                return new FullSnapshotAsyncWriter<>(type,
                        () -> CheckpointStreamWithResultProvider.createSimpleStream(
                                CheckpointedStateScope.EXCLUSIVE, factory),
                        resources);
            }
        };
        return new SnapshotStrategyRunner<>("Ferry full snapshot", strategy, cancelStreamRegistry,
                SnapshotExecutionType.ASYNCHRONOUS).snapshot(checkpointId, timestamp, streamFactory, checkpointOptions);
    }

    @Override
    public SavepointResources<K> savepoint() throws Exception {
        return new SavepointResources<>(fullSnapshotResources(), SnapshotExecutionType.ASYNCHRONOUS);
    }

    /** Takes the store snapshot and copies the meta info and heap timers: the synchronous part. */
    private FerrySnapshotResources<K> fullSnapshotResources() throws IOException {
        flushTimers();
        List<StateMetaInfoSnapshot> metaInfos = new ArrayList<>();
        List<FerrySnapshotResources.StoreState> storeStates = new ArrayList<>();
        for (StateInfo info : states.values()) {
            metaInfos.add(info.meta.snapshot());
            StateSnapshotTransformer<byte[]> transformer = null;
            if (info.meta instanceof RegisteredKeyValueStateBackendMetaInfo) {
                transformer = ((RegisteredKeyValueStateBackendMetaInfo<?, ?>) info.meta)
                        .getStateSnapshotTransformFactory().createForSerializedState().orElse(null);
            }
            storeStates.add(new FerrySnapshotResources.StoreState(info.cf, transformer));
        }
        List<HeapPriorityQueueStateSnapshot<?>> queues = new ArrayList<>();
        if (heapQueues != null) {
            for (HeapPriorityQueueSnapshotRestoreWrapper<?> q : heapQueues.values()) {
                metaInfos.add(q.getMetaInfo().snapshot());
                queues.add(q.stateSnapshot());
            }
        }
        ResourceGuard.Lease lease = guard.acquireResource();
        try {
            return new FerrySnapshotResources<>(this, store.snapshot(), lease, metaInfos, storeStates, queues);
        } catch (RuntimeException | Error e) {
            // any throwable: a lease left open makes the backend's dispose wait for it forever
            lease.close();
            throw e;
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (incremental != null) {
            incremental.completed(checkpointId);
        }
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        if (incremental != null) {
            incremental.aborted(checkpointId);
        }
    }

    @Override
    public int numKeyValueStateEntries() {
        int count = 0;
        for (StateInfo info : states.values()) {
            if (!(info.meta instanceof RegisteredKeyValueStateBackendMetaInfo)) {
                continue;
            }
            try (Cursor c = store.cursor(info.cf, KeyRange.all(), cursorOptions)) {
                while (c.next()) {
                    count++;
                }
            }
        }
        return count;
    }

    @Override
    public boolean requiresLegacySynchronousTimerSnapshots(SnapshotType checkpointType) {
        return false;
    }

    @Override
    public boolean isSafeToReuseKVState() {
        return heapQueuesManager == null;
    }

    @Override
    public String getBackendTypeIdentifier() {
        return IDENTIFIER;
    }

    /** @return the slot's shared memory of this backend's store, or null (LMDB, or no managed memory) */
    FerryMemory memory() {
        for (AutoCloseable r : resources) {
            if (r instanceof org.apache.flink.runtime.memory.OpaqueMemoryResource) {
                Object h = ((org.apache.flink.runtime.memory.OpaqueMemoryResource<?>) r).getResourceHandle();
                if (h instanceof FerryMemory) {
                    return (FerryMemory) h;
                }
            }
        }
        return null;
    }

    /** @return the engine's name, {@code rocksdb} or {@code lmdb} */
    public String engine() {
        return lmdb ? "lmdb" : "rocksdb";
    }

    @Override
    public void dispose() {
        if (disposed) {
            return;
        }
        disposed = true;
        super.dispose();
        // waits for snapshots in flight to release their store snapshots
        guard.close();
        // the store and its directory go: batched timer writes are dropped, not written
        timerWrites.close();
        created.clear();
        states.clear();
        IOUtils.closeQuietly(store);
        for (AutoCloseable r : resources) {
            IOUtils.closeQuietly(r);
        }
        try {
            FileUtils.deleteDirectory(directory.toFile());
        } catch (IOException e) {
            // a leftover directory is removed with the task manager's temporary files
        }
    }
}
