package dev.ferry.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.AbstractStateBackend;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.SavepointResources;
import org.apache.flink.runtime.state.SavepointSnapshotStrategy;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.SnapshotExecutionType;
import org.apache.flink.runtime.state.SnapshotStrategyRunner;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Canonical savepoints move between Flink's built-in RocksDB backend and Ferry's, both ways: Value,
 * List and Map state and timers written by one are read back by the other, also into a smaller key
 * group range (rescaling).
 */
class SavepointInteropTest {
    static final int KEY_GROUPS = 128;
    static final int KEYS = 200;

    private final MockEnvironment env = new MockEnvironmentBuilder().build();
    private final List<CheckpointableKeyedStateBackend<?>> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (CheckpointableKeyedStateBackend<?> b : open) {
            b.dispose();
        }
        env.close();
    }

    private CheckpointableKeyedStateBackend<Integer> backend(AbstractStateBackend sb, KeyGroupRange range,
            Collection<KeyedStateHandle> restore) throws Exception {
        CheckpointableKeyedStateBackend<Integer> b = sb.createKeyedStateBackend(new KeyedStateBackendParametersImpl<>(
                env, new JobID(), "interop", IntSerializer.INSTANCE, KEY_GROUPS, range, env.getTaskKvStateRegistry(),
                TtlTimeProvider.DEFAULT, new UnregisteredMetricsGroup(), (name, value) -> { }, restore,
                new CloseableRegistry(), 0.4)); // each backend type takes its own share of the slot
        open.add(b);
        return b;
    }

    private static KeyedStateHandle savepoint(CheckpointableKeyedStateBackend<Integer> b) throws Exception {
        SavepointResources<Integer> resources = b.savepoint();
        return StateBackendTestBase.runSnapshot(new SnapshotStrategyRunner<>("savepoint",
                new SavepointSnapshotStrategy<>(resources.getSnapshotResources()), new CloseableRegistry(),
                SnapshotExecutionType.ASYNCHRONOUS).snapshot(1, 1, new MemCheckpointStreamFactory(64 << 20),
                CheckpointOptions.alignedNoTimeout(SavepointType.savepoint(SavepointFormatType.CANONICAL),
                        CheckpointStorageLocationReference.getDefault())), new SharedStateRegistryImpl());
    }

    private static final ValueStateDescriptor<Long> VALUE = new ValueStateDescriptor<>("value", Long.class);
    private static final ListStateDescriptor<String> LIST = new ListStateDescriptor<>("list", String.class);
    private static final MapStateDescriptor<Integer, String> MAP =
            new MapStateDescriptor<>("map", Integer.class, String.class);

    /** One serializer per test class, as one timer service keeps one. */
    private static final TimerSerializer<Integer, VoidNamespace> TIMERS =
            new TimerSerializer<>(IntSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE);

    private static TimerSerializer<Integer, VoidNamespace> timers() {
        return TIMERS;
    }

    static void write(CheckpointableKeyedStateBackend<Integer> b) throws Exception {
        write(b, 0, KEYS, KeyGroupRange.of(0, KEY_GROUPS - 1));
    }

    /**
     * Writes the keys of {@code [from, to)} whose key group lies in the range: a value, two list
     * elements, k % 5 map entries and a timer each.
     */
    static void write(CheckpointableKeyedStateBackend<Integer> b, int from, int to, KeyGroupRange range)
            throws Exception {
        ValueState<Long> value = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        ListState<String> list = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, LIST);
        MapState<Integer, String> map =
                b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, MAP);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> queue =
                b.create("_timer_state/event_user-timers", timers());
        for (int k = from; k < to; k++) {
            if (!range.contains(KeyGroupRangeAssignment.assignToKeyGroup(k, KEY_GROUPS))) {
                continue;
            }
            b.setCurrentKey(k);
            value.update(k * 10L);
            list.add("a" + k);
            list.add("b" + k);
            for (int u = 0; u < k % 5; u++) {
                map.put(u, "v" + k + "/" + u);
            }
            queue.add(new TimerHeapInternalTimer<>(1000L + k, k, VoidNamespace.INSTANCE));
        }
    }

    /** Checks the keys of the range; keys outside it must be absent. */
    static void check(CheckpointableKeyedStateBackend<Integer> b, KeyGroupRange range) throws Exception {
        ValueState<Long> value = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        ListState<String> list = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, LIST);
        MapState<Integer, String> map =
                b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, MAP);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> queue =
                b.create("_timer_state/event_user-timers", timers());
        List<Long> expectedTimers = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            if (!range.contains(KeyGroupRangeAssignment.assignToKeyGroup(k, KEY_GROUPS))) {
                continue;
            }
            expectedTimers.add(1000L + k);
            b.setCurrentKey(k);
            assertEquals(k * 10L, value.value());
            List<String> l = new ArrayList<>();
            list.get().forEach(l::add);
            assertEquals(List.of("a" + k, "b" + k), l);
            Map<Integer, String> m = new TreeMap<>();
            for (Map.Entry<Integer, String> e : map.entries()) {
                m.put(e.getKey(), e.getValue());
            }
            Map<Integer, String> expected = new TreeMap<>();
            for (int u = 0; u < k % 5; u++) {
                expected.put(u, "v" + k + "/" + u);
            }
            assertEquals(expected, m);
        }
        List<Long> polled = new ArrayList<>();
        for (TimerHeapInternalTimer<Integer, VoidNamespace> t; (t = queue.poll()) != null; ) {
            polled.add(t.getTimestamp());
        }
        assertEquals(expectedTimers, polled);
        assertTrue(queue.isEmpty());
    }

    private void roundTrip(AbstractStateBackend from, AbstractStateBackend to) throws Exception {
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(from, all, List.of());
        write(source);
        KeyedStateHandle sp = savepoint(source);
        check(backend(to, all, List.of(sp)), all);
        // rescaling: the lower half of the key groups only
        KeyGroupRange half = KeyGroupRange.of(0, KEY_GROUPS / 2 - 1);
        CheckpointableKeyedStateBackend<Integer> rescaled = backend(to, half, List.of(sp.getIntersection(half)));
        check(rescaled, half);
        ValueState<Long> value =
                rescaled.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        int outside = 0;
        while (half.contains(KeyGroupRangeAssignment.assignToKeyGroup(outside, KEY_GROUPS))) {
            outside++;
        }
        assertFalse(half.contains(KeyGroupRangeAssignment.assignToKeyGroup(outside, KEY_GROUPS)));
    }

    @Test
    void builtInSavepointRestoresOnFerry() throws Exception {
        roundTrip(new EmbeddedRocksDBStateBackend(), new FerryStateBackend());
    }

    @Test
    void ferrySavepointRestoresOnBuiltIn() throws Exception {
        roundTrip(new FerryStateBackend(), new EmbeddedRocksDBStateBackend());
    }

    @Test
    void ferryHeapTimersSavepointRestoresOnFerryStoreTimers() throws Exception {
        roundTrip(new FerryStateBackend().withHeapTimers(), new FerryStateBackend());
    }

    @Test
    void lmdbSavepointRestoresOnBuiltIn() throws Exception {
        roundTrip(new FerryStateBackend().withLmdb(), new EmbeddedRocksDBStateBackend());
    }

    @Test
    void ferryFullCheckpointRestoresAfterFailure() throws Exception {
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(new FerryStateBackend(), all, List.of());
        write(source);
        KeyedStateHandle checkpoint = StateBackendTestBase.runSnapshot(source.snapshot(7, 7,
                new MemCheckpointStreamFactory(64 << 20), CheckpointOptions.forCheckpointWithDefaultLocation()),
                new SharedStateRegistryImpl());
        source.dispose();
        open.remove(source);
        CheckpointableKeyedStateBackend<Integer> restored = backend(new FerryStateBackend(), all, List.of(checkpoint));
        check(restored, all);
        restored.setCurrentKey(KEYS + 1);
        ValueState<Long> value =
                restored.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, VALUE);
        assertNull(value.value());
    }

    @Test
    void builtInNativeCheckpointIsRefusedNamingTheCanonicalSavepoint() throws Exception {
        KeyGroupRange all = KeyGroupRange.of(0, KEY_GROUPS - 1);
        CheckpointableKeyedStateBackend<Integer> source = backend(new EmbeddedRocksDBStateBackend(), all, List.of());
        write(source);
        KeyedStateHandle checkpoint = StateBackendTestBase.runSnapshot(source.snapshot(3, 3,
                new MemCheckpointStreamFactory(64 << 20), CheckpointOptions.forCheckpointWithDefaultLocation()),
                new SharedStateRegistryImpl());
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> backend(new FerryStateBackend(), all, List.of(checkpoint)));
        assertTrue(String.valueOf(e.getMessage()).contains("canonical savepoint"), e.toString());
    }
}
