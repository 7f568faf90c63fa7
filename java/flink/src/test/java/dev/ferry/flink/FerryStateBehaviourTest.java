package dev.ferry.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupedInternalPriorityQueue;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SharedStateRegistryImpl;
import org.apache.flink.runtime.state.StateBackendTestBase;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.streaming.api.operators.TimerHeapInternalTimer;
import org.apache.flink.streaming.api.operators.TimerSerializer;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Paths the suites reach only with small data: map iteration across the batches its cursors read
 * (with removals on the way, and a neighbouring key that must not show), and timer queues holding more
 * elements per key group than their in-memory cache, with adds below the head between polls; timer
 * writes held in the backend's batch until a read or a snapshot. On both engines, compared with a
 * {@code TreeMap} model.
 */
class FerryStateBehaviourTest {
    private final MockEnvironment env = new MockEnvironmentBuilder().build();
    private final List<CheckpointableKeyedStateBackend<?>> open = new ArrayList<>();
    private final SharedStateRegistryImpl registry = new SharedStateRegistryImpl();

    @AfterEach
    void close() throws Exception {
        for (CheckpointableKeyedStateBackend<?> b : open) {
            b.dispose();
        }
        registry.close();
        env.close();
    }

    private CheckpointableKeyedStateBackend<Integer> backend(String engine) throws Exception {
        return backend(engine, List.of());
    }

    private CheckpointableKeyedStateBackend<Integer> backend(String engine, Collection<KeyedStateHandle> restore)
            throws Exception {
        FerryStateBackend sb = engine.equals("lmdb") ? new FerryStateBackend().withLmdb() : new FerryStateBackend();
        CheckpointableKeyedStateBackend<Integer> b = sb.createKeyedStateBackend(new KeyedStateBackendParametersImpl<>(
                env, new JobID(), "behaviour", IntSerializer.INSTANCE, 128, KeyGroupRange.of(0, 127),
                env.getTaskKvStateRegistry(), TtlTimeProvider.DEFAULT, new UnregisteredMetricsGroup(), (n, v) -> { },
                restore, new CloseableRegistry(), 1.0));
        open.add(b);
        return b;
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void mapIterationCrossesBatchesAndStaysInItsKey(String engine) throws Exception {
        CheckpointableKeyedStateBackend<Integer> b = backend(engine);
        MapState<Integer, String> map = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>("m", Integer.class, String.class));
        int n = FerryMapState.BATCH * 4 + 17;
        TreeMap<Integer, String> model = new TreeMap<>();
        for (int key : new int[] {1, 2}) {
            b.setCurrentKey(key);
            for (int u = 0; u < n; u++) {
                map.put(u, key + ":" + u);
            }
        }
        b.setCurrentKey(1);
        for (int u = 0; u < n; u++) {
            model.put(u, "1:" + u);
        }
        TreeMap<Integer, String> seen = new TreeMap<>();
        for (Map.Entry<Integer, String> e : map.entries()) {
            seen.put(e.getKey(), e.getValue());
        }
        assertEquals(model, seen);

        // remove every other entry while iterating, and rewrite the rest through their entries
        Iterator<Map.Entry<Integer, String>> it = map.iterator();
        int i = 0;
        while (it.hasNext()) {
            Map.Entry<Integer, String> e = it.next();
            if (i++ % 2 == 0) {
                it.remove();
                model.remove(e.getKey());
            } else {
                e.setValue("x" + e.getKey());
                model.put(e.getKey(), "x" + e.getKey());
            }
        }
        assertEquals(n, i);
        TreeSet<Integer> keys = new TreeSet<>();
        map.keys().forEach(keys::add);
        assertEquals(model.keySet(), keys);
        List<String> values = new ArrayList<>();
        map.values().forEach(values::add);
        assertEquals(new ArrayList<>(model.values()), values);
        assertFalse(map.contains(0));
        assertTrue(map.contains(1));

        b.setCurrentKey(2);
        int other = 0;
        for (Map.Entry<Integer, String> e : map.entries()) {
            assertEquals("2:" + e.getKey(), e.getValue());
            other++;
        }
        assertEquals(n, other);
        map.clear();
        assertTrue(map.isEmpty());
        b.setCurrentKey(1);
        assertFalse(map.isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void timerQueueBeyondItsCacheKeepsOrder(String engine) throws Exception {
        CheckpointableKeyedStateBackend<Integer> b = backend(engine);
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> queue = b.create("timers",
                new TimerSerializer<>(IntSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE));
        Random random = new Random(42);
        TreeMap<Long, Integer> model = new TreeMap<>();
        // one key: every timer in one key group, far more than the cache holds
        for (int t = 0; t < FerryPriorityQueueSet.CACHE * 6; t++) {
            long ts = random.nextInt(1_000_000);
            queue.add(new TimerHeapInternalTimer<>(ts, 7, VoidNamespace.INSTANCE));
            model.merge(ts, 1, Integer::sum);
        }
        assertEquals(model.size(), queue.size());
        List<Long> polled = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        for (int round = 0; !model.isEmpty(); round++) {
            TimerHeapInternalTimer<Integer, VoidNamespace> t = queue.poll();
            long ts = model.pollFirstEntry().getKey();
            expected.add(ts);
            polled.add(t.getTimestamp());
            if (round % 50 == 0) {
                // a timer below everything queued becomes the head
                long low = ts + 1;
                if (!model.containsKey(low)) {
                    assertTrue(queue.add(new TimerHeapInternalTimer<>(low, 7, VoidNamespace.INSTANCE)));
                    model.put(low, 1);
                }
            }
        }
        assertEquals(expected, polled);
        assertTrue(queue.isEmpty());
        assertEquals(null, queue.poll());
    }

    private static KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> timers(
            CheckpointableKeyedStateBackend<Integer> b) {
        return b.create("timers", new TimerSerializer<>(IntSerializer.INSTANCE, VoidNamespaceSerializer.INSTANCE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void timerWritesWaitInABatchUntilAReadOrASnapshot(String engine) throws Exception {
        CheckpointableKeyedStateBackend<Integer> b = backend(engine);
        FerryKeyedStateBackend<Integer> ferry = (FerryKeyedStateBackend<Integer>) b;
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> queue = timers(b);
        assertEquals(null, queue.peek());
        int n = FerryKeyedStateBackend.TIMER_BATCH_OPS / 2;
        for (int t = 0; t < n; t++) {
            queue.add(new TimerHeapInternalTimer<>(t, t, VoidNamespace.INSTANCE));
        }
        assertEquals(n, ferry.pendingTimerWrites());
        // the iterator reads the store: the batch is written first
        int seen = 0;
        try (CloseableIterator<TimerHeapInternalTimer<Integer, VoidNamespace>> it = queue.iterator()) {
            while (it.hasNext()) {
                it.next();
                seen++;
            }
        }
        assertEquals(n, seen);
        assertEquals(0, ferry.pendingTimerWrites());
        for (int t = 0; t < n / 2; t++) {
            assertEquals(t, queue.poll().getTimestamp());
        }
        assertEquals(n / 2, ferry.pendingTimerWrites());
        // more writes than a batch holds: full batches are written on the way
        for (int t = n; t < n + 3 * FerryKeyedStateBackend.TIMER_BATCH_OPS; t++) {
            queue.add(new TimerHeapInternalTimer<>(t, t, VoidNamespace.INSTANCE));
        }
        assertTrue(ferry.pendingTimerWrites() < FerryKeyedStateBackend.TIMER_BATCH_OPS);
        assertTrue(ferry.pendingTimerWrites() > 0);
        // a snapshot taken with writes still batched holds them
        KeyedStateHandle handle = StateBackendTestBase.runSnapshot(b.snapshot(1, 1,
                new MemCheckpointStreamFactory(64 << 20), CheckpointOptions.forCheckpointWithDefaultLocation()),
                registry);
        assertEquals(0, ferry.pendingTimerWrites());
        KeyGroupedInternalPriorityQueue<TimerHeapInternalTimer<Integer, VoidNamespace>> restored =
                timers(backend(engine, List.of(handle)));
        int total = n + 3 * FerryKeyedStateBackend.TIMER_BATCH_OPS;
        assertEquals(total - n / 2, restored.size());
        for (int t = n / 2; t < total; t++) {
            assertEquals(t, restored.poll().getTimestamp());
        }
        assertEquals(null, restored.poll());
    }
}
