package dev.ferry.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.FerryException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyedStateBackendParametersImpl;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The backend's resources and configuration: RocksDB memory bounded by the slot's managed memory and
 * shared by the slot's backends, the factory switching a job by {@code state.backend.type}, RocksDB
 * properties as metrics under Flink's names, and a key over LMDB's limit failing with an exception.
 */
class FerryBackendResourcesTest {
    private static final long MANAGED = 64L << 20;
    private final MockEnvironment env = new MockEnvironmentBuilder().setManagedMemorySize(MANAGED).build();
    private final List<FerryKeyedStateBackend<Integer>> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (FerryKeyedStateBackend<Integer> b : open) {
            b.dispose();
        }
        env.close();
    }

    private FerryKeyedStateBackend<Integer> backend(FerryStateBackend sb, double fraction) throws Exception {
        return backend(sb, fraction, new UnregisteredMetricsGroup());
    }

    private FerryKeyedStateBackend<Integer> backend(FerryStateBackend sb, double fraction, MetricGroup metrics)
            throws Exception {
        FerryKeyedStateBackend<Integer> b = (FerryKeyedStateBackend<Integer>) sb.createKeyedStateBackend(
                new KeyedStateBackendParametersImpl<>(env, new JobID(), "op", IntSerializer.INSTANCE, 128,
                        KeyGroupRange.of(0, 127), env.getTaskKvStateRegistry(), TtlTimeProvider.DEFAULT,
                        metrics, (n, v) -> { }, List.of(), new CloseableRegistry(), fraction));
        open.add(b);
        return b;
    }

    @Test
    void rocksDbMemoryIsTheSlotsManagedShareAndShared() throws Exception {
        FerryKeyedStateBackend<Integer> a = backend(new FerryStateBackend(), 0.5);
        FerryKeyedStateBackend<Integer> b = backend(new FerryStateBackend(), 0.5);
        FerryMemory memory = a.memory();
        assertEquals(MANAGED / 2, memory.cache.capacity());
        assertEquals(MANAGED / 4, memory.writeBuffers.bufferSize());
        assertSame(memory, b.memory());
        assertEquals(2, memory.cache.openStores());
    }

    @Test
    void lmdbTakesNoManagedMemory() throws Exception {
        FerryStateBackend lmdb = new FerryStateBackend().withLmdb();
        assertFalse(lmdb.useManagedMemory());
        assertTrue(new FerryStateBackend().useManagedMemory());
        assertNull(backend(lmdb, 0.5).memory());
    }

    @Test
    void factoryReadsTheOptions() throws Exception {
        Configuration config = new Configuration();
        config.setString("state.backend.type", FerryStateBackendFactory.class.getName());
        config.setString("state.backend.ferry.engine", "lmdb");
        config.setString("state.backend.ferry.timer-service.factory", "HEAP");
        config.setString("state.backend.ferry.binding", "jni");
        Object loaded = StateBackendLoader.loadStateBackendFromConfig(config, getClass().getClassLoader(), null);
        FerryStateBackend b = (FerryStateBackend) loaded;
        assertEquals("lmdb", b.getEngine());
        assertEquals("jni", b.getBinding());
        assertTrue(b.isHeapTimers());
        // Flink's RocksDB backend's key, when Ferry's is not set
        Configuration builtIn = new Configuration();
        builtIn.setString("state.backend.type", FerryStateBackendFactory.class.getName());
        builtIn.setString("state.backend.rocksdb.timer-service.factory", "HEAP");
        FerryStateBackend fromBuiltIn = (FerryStateBackend) StateBackendLoader.loadStateBackendFromConfig(builtIn,
                getClass().getClassLoader(), null);
        assertTrue(fromBuiltIn.isHeapTimers());
        assertEquals("rocksdb", fromBuiltIn.getEngine());
        config.setString("state.backend.ferry.engine", "leveldb");
        assertThrows(Exception.class,
                () -> StateBackendLoader.loadStateBackendFromConfig(config, getClass().getClassLoader(), null));
    }

    /** Keeps the gauges registered through it, by their dotted path. */
    private static final class CapturingGroup extends UnregisteredMetricsGroup {
        final Map<String, Gauge<?>> gauges;
        private final String path;

        CapturingGroup(Map<String, Gauge<?>> gauges, String path) {
            this.gauges = gauges;
            this.path = path;
        }

        @Override
        public MetricGroup addGroup(String name) {
            return new CapturingGroup(gauges, path + name + ".");
        }

        @Override
        public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
            gauges.put(path + name, gauge);
            return gauge;
        }
    }

    @Test
    void rocksDbPropertiesAreMetricsUnderFlinksNames() throws Exception {
        Configuration config = new Configuration();
        config.setString("state.backend.rocksdb.metrics.estimate-num-keys", "true");
        FerryStateBackend sb = new FerryStateBackend().configure(config, getClass().getClassLoader());
        CapturingGroup metrics = new CapturingGroup(new HashMap<>(), "");
        FerryKeyedStateBackend<Integer> b = backend(sb, 0.5, metrics);
        ValueState<Integer> value = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>("counts", Integer.class));
        for (int k = 0; k < 100; k++) {
            b.setCurrentKey(k);
            value.update(k);
        }
        Gauge<?> keys = metrics.gauges.get("counts.rocksdb.estimate-num-keys");
        assertEquals(Set.of("counts.rocksdb.estimate-num-keys"), metrics.gauges.keySet());
        assertEquals(100L, keys.getValue());
        b.dispose();
        open.remove(b);
        assertEquals(0L, keys.getValue());
    }

    @Test
    void rocksDbStatisticsAndFilesPerLevelAreMetricsUnderFlinksNames() throws Exception {
        Configuration config = new Configuration();
        config.setString("state.backend.rocksdb.metrics.bytes-written", "true");
        config.setString("state.backend.rocksdb.metrics.bytes-read", "true");
        config.setString("state.backend.rocksdb.metrics.block-cache-miss", "true");
        config.setString("state.backend.rocksdb.metrics.stall-micros", "true");
        config.setString("state.backend.rocksdb.metrics.num-files-at-level", "true");
        FerryStateBackend sb = new FerryStateBackend().configure(config, getClass().getClassLoader());
        CapturingGroup metrics = new CapturingGroup(new HashMap<>(), "");
        FerryKeyedStateBackend<Integer> b = backend(sb, 0.5, metrics);
        ValueState<Integer> value = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new ValueStateDescriptor<>("counts", Integer.class));
        Set<String> expected = new java.util.HashSet<>(Set.of("rocksdb.bytes_written", "rocksdb.bytes_read",
                "rocksdb.block_cache_miss", "rocksdb.stall_micros"));
        for (int level = 0; level <= 6; level++) {
            expected.add("counts.rocksdb.num-files-at-level" + level);
        }
        assertEquals(expected, metrics.gauges.keySet());
        Gauge<?> written = metrics.gauges.get("rocksdb.bytes_written");
        Gauge<?> read = metrics.gauges.get("rocksdb.bytes_read");
        assertEquals(0L, written.getValue());
        for (int k = 0; k < 100; k++) {
            b.setCurrentKey(k);
            value.update(k);
        }
        long w = (Long) written.getValue();
        assertTrue(w > 100 * 4, "bytes written after 100 updates: " + w);
        b.setCurrentKey(7);
        assertEquals(7, value.value());
        assertTrue((Long) read.getValue() > 0, "bytes read after a get");
        assertEquals(0L, metrics.gauges.get("counts.rocksdb.num-files-at-level0").getValue());
        b.dispose();
        open.remove(b);
        assertEquals(0L, written.getValue());
    }

    @Test
    void keyOverLmdbsLimitThrows() throws Exception {
        FerryKeyedStateBackend<Integer> b = backend(new FerryStateBackend().withLmdb(), 0.5);
        MapState<String, Integer> map = b.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
                new MapStateDescriptor<>("map", String.class, Integer.class));
        b.setCurrentKey(1);
        map.put("short", 1);
        String longKey = "k".repeat(600);
        assertThrows(FerryException.InvalidArgument.class, () -> map.put(longKey, 2));
        assertEquals(Map.entry("short", 1), map.entries().iterator().next());
    }
}
