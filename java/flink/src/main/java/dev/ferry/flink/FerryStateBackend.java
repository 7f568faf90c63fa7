package dev.ferry.flink;

import java.io.IOException;
import java.util.Locale;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.IllegalConfigurationException;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.state.AbstractKeyedStateBackend;
import org.apache.flink.runtime.state.AbstractManagedMemoryStateBackend;
import org.apache.flink.runtime.state.ConfigurableStateBackend;
import org.apache.flink.runtime.state.DefaultOperatorStateBackendBuilder;
import org.apache.flink.runtime.state.OperatorStateBackend;

/**
 * Flink's keyed state in a Ferry store: RocksDB by default, LMDB when chosen
 * ({@link FerryOptions#ENGINE}). Operator state stays on the heap, as with Flink's built-in backends.
 *
 * <p>A job switches with {@code state.backend.type: dev.ferry.flink.FerryStateBackendFactory}, or by
 * giving an instance to the environment. Checkpoints and savepoints are full snapshots in Flink's
 * canonical savepoint format, which Flink's RocksDB and heap backends also restore. Timers live in the
 * store (a priority queue per key group) unless {@link #withHeapTimers()} keeps them on the heap.
 * RocksDB's block cache and write buffers are bounded by the slot's share of Flink's managed memory.
 *
 * <p>Instances are immutable: the {@code with...} methods and {@link #configure} return copies.
 *
 * <p>Thread safety: immutable; the keyed backends it creates are used by one task thread each.
 */
public class FerryStateBackend extends AbstractManagedMemoryStateBackend implements ConfigurableStateBackend {
    private static final long serialVersionUID = 1L;

    /** The engine: {@code rocksdb} or {@code lmdb}. */
    String engine = FerryOptions.ENGINE.defaultValue();
    /** {@code auto}, {@code jni} or {@code ffm}. */
    String binding = FerryOptions.BINDING.defaultValue();
    /** Whether timers stay on the heap. */
    boolean heapTimers;
    /** Whether the slot's managed memory bounds the native memory. */
    boolean managedMemory = FerryOptions.USE_MANAGED_MEMORY.defaultValue();
    /** A fixed size per slot, or -1. */
    long fixedMemoryPerSlot = -1;
    /** The share of the memory given to write buffers. */
    double writeBufferRatio = FerryOptions.WRITE_BUFFER_RATIO.defaultValue();
    /** LMDB's map size (and growth step). */
    long lmdbMapSize = FerryOptions.LMDB_MAP_SIZE.defaultValue().getBytes();
    /** Local directories, or null for the task manager's temporary directories. */
    String[] localDirectories;
    /** Whether checkpoints are incremental (RocksDB, timers in the store). */
    boolean incremental;
    /** RocksDB properties reported as metrics. */
    FerryNativeMetrics metrics = FerryNativeMetrics.NONE;

    /** Creates a backend with the defaults: RocksDB, timers in the store, managed memory. */
    public FerryStateBackend() {
    }

    private FerryStateBackend copy() {
        FerryStateBackend b = new FerryStateBackend();
        b.engine = engine;
        b.binding = binding;
        b.heapTimers = heapTimers;
        b.managedMemory = managedMemory;
        b.fixedMemoryPerSlot = fixedMemoryPerSlot;
        b.writeBufferRatio = writeBufferRatio;
        b.lmdbMapSize = lmdbMapSize;
        b.localDirectories = localDirectories;
        b.incremental = incremental;
        b.metrics = metrics;
        b.latencyTrackingConfigBuilder = latencyTrackingConfigBuilder;
        b.sizeTrackingConfigBuilder = sizeTrackingConfigBuilder;
        return b;
    }

    /** @return a copy that keeps keyed state in LMDB */
    public FerryStateBackend withLmdb() {
        FerryStateBackend b = copy();
        b.engine = "lmdb";
        return b;
    }

    /**
     * Chooses Ferry's binding for the stores.
     *
     * @param name {@code auto}, {@code jni} or {@code ffm}
     * @return a copy with that binding
     */
    public FerryStateBackend withBinding(String name) {
        FerryStateBackend b = copy();
        b.binding = checkBinding(name);
        return b;
    }

    /**
     * Makes checkpoints incremental: each uploads only the table files that the last completed
     * checkpoint did not (RocksDB with timers in the store; LMDB, or timers on the heap, keep full
     * snapshots). Savepoints stay canonical.
     *
     * @param on whether checkpoints are incremental
     * @return a copy with that setting
     */
    public FerryStateBackend withIncrementalCheckpoints(boolean on) {
        FerryStateBackend b = copy();
        b.incremental = on;
        return b;
    }

    /** @return whether checkpoints are incremental (where the engine and timers allow) */
    public boolean isIncrementalCheckpoints() {
        return incremental;
    }

    /** @return a copy that keeps timers on the heap (snapshotted with the keyed state) */
    public FerryStateBackend withHeapTimers() {
        FerryStateBackend b = copy();
        b.heapTimers = true;
        return b;
    }

    /**
     * Gives each slot a fixed memory size instead of its managed memory share.
     *
     * @param bytes the size in bytes
     * @return a copy with that size
     */
    public FerryStateBackend withFixedMemoryPerSlot(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("fixed memory per slot must be positive: " + bytes);
        }
        FerryStateBackend b = copy();
        b.fixedMemoryPerSlot = bytes;
        return b;
    }

    /** @return the engine, {@code rocksdb} or {@code lmdb} */
    public String getEngine() {
        return engine;
    }

    /** @return the binding, {@code auto}, {@code jni} or {@code ffm} */
    public String getBinding() {
        return binding;
    }

    /** @return whether timers stay on the heap */
    public boolean isHeapTimers() {
        return heapTimers;
    }

    private static String checkBinding(String name) {
        String b = name.trim().toLowerCase(Locale.ROOT);
        if (!b.equals("auto") && !b.equals("jni") && !b.equals("ffm")) {
            throw new IllegalConfigurationException(FerryOptions.BINDING.key() + ": auto, jni or ffm, not " + name);
        }
        return b;
    }

    @Override
    public FerryStateBackend configure(ReadableConfig config, ClassLoader classLoader)
            throws IllegalConfigurationException {
        FerryStateBackend b = copy();
        String e = config.getOptional(FerryOptions.ENGINE).orElse(engine).trim().toLowerCase(Locale.ROOT);
        if (!e.equals("rocksdb") && !e.equals("lmdb")) {
            throw new IllegalConfigurationException(FerryOptions.ENGINE.key() + ": rocksdb or lmdb, not " + e);
        }
        b.engine = e;
        b.binding = checkBinding(config.getOptional(FerryOptions.BINDING).orElse(binding));
        config.getOptional(FerryOptions.TIMER_SERVICE).ifPresent(t -> {
            String v = t.trim().toUpperCase(Locale.ROOT);
            if (!v.equals("HEAP") && !v.equals("ROCKSDB")) {
                throw new IllegalConfigurationException(FerryOptions.TIMER_SERVICE.key() + ": ROCKSDB or HEAP, not " + t);
            }
            b.heapTimers = v.equals("HEAP");
        });
        b.managedMemory = config.getOptional(FerryOptions.USE_MANAGED_MEMORY).orElse(managedMemory);
        config.getOptional(FerryOptions.FIXED_MEMORY_PER_SLOT).map(MemorySize::getBytes)
                .ifPresent(v -> b.fixedMemoryPerSlot = v);
        double ratio = config.getOptional(FerryOptions.WRITE_BUFFER_RATIO).orElse(writeBufferRatio);
        if (!(ratio > 0 && ratio < 1)) {
            throw new IllegalConfigurationException(FerryOptions.WRITE_BUFFER_RATIO.key() + " must lie in (0, 1): " + ratio);
        }
        b.writeBufferRatio = ratio;
        b.lmdbMapSize = config.getOptional(FerryOptions.LMDB_MAP_SIZE).map(MemorySize::getBytes).orElse(lmdbMapSize);
        b.incremental = config.getOptional(CheckpointingOptions.INCREMENTAL_CHECKPOINTS).orElse(incremental);
        FerryNativeMetrics m = FerryNativeMetrics.from(config);
        if (!m.isEmpty()) {
            b.metrics = m;
        }
        config.getOptional(FerryOptions.LOCAL_DIRECTORIES).ifPresent(d -> b.localDirectories = d.split("[,;]"));
        b.latencyTrackingConfigBuilder = latencyTrackingConfigBuilder.configure(config);
        b.sizeTrackingConfigBuilder = sizeTrackingConfigBuilder.configure(config);
        return b;
    }

    @Override
    public boolean useManagedMemory() {
        return "rocksdb".equals(engine) && managedMemory;
    }

    @Override
    public boolean supportsNoClaimRestoreMode() {
        return true;
    }

    @Override
    public boolean supportsSavepointFormat(SavepointFormatType formatType) {
        // native: the store's files, as the native checkpoints (RocksDB with timers in the store)
        return formatType == SavepointFormatType.CANONICAL || "rocksdb".equals(engine) && !heapTimers;
    }

    @Override
    public <K> AbstractKeyedStateBackend<K> createKeyedStateBackend(KeyedStateBackendParameters<K> parameters)
            throws IOException {
        return new FerryBackendBuilder<>(this, parameters,
                latencyTrackingConfigBuilder.setMetricGroup(parameters.getMetricGroup()).build(),
                sizeTrackingConfigBuilder.setMetricGroup(parameters.getMetricGroup()).build()).build();
    }

    @Override
    public OperatorStateBackend createOperatorStateBackend(OperatorStateBackendParameters parameters)
            throws Exception {
        return new DefaultOperatorStateBackendBuilder(
                        parameters.getEnv().getUserCodeClassLoader().asClassLoader(),
                        parameters.getEnv().getExecutionConfig(),
                        true,
                        parameters.getStateHandles(),
                        parameters.getCancelStreamRegistry())
                .build();
    }

    @Override
    public String toString() {
        return "FerryStateBackend{engine=" + engine + ", binding=" + binding + ", timers="
                + (heapTimers ? "heap" : "store") + ", incremental=" + incremental + "}";
    }
}
