package dev.ferry.kafka;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * A bare StateStoreContext for opening a store outside a topology; keeps the restore callback. Also
 * used by the benchmarks' KafkaBench (through this module's test jar).
 */
public final class TestContext implements StateStoreContext {
    final File stateDir;
    /** The application's configuration the store sees (Kafka's default metrics recording level preset). */
    public final Map<String, Object> configs = new HashMap<>();
    /** The callback the store registered. */
    public StateRestoreCallback restoreCallback;

    /** @param stateDir the task's state directory */
    public TestContext(File stateDir) {
        this.stateDir = stateDir;
        configs.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "INFO"); // what Kafka's built-in RocksDB store reads
    }

    @Override
    public String applicationId() {
        return "ferry-test";
    }

    @Override
    public TaskId taskId() {
        return new TaskId(0, 0);
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return Optional.empty();
    }

    @Override
    public Serde<?> keySerde() {
        return Serdes.ByteArray();
    }

    @Override
    public Serde<?> valueSerde() {
        return Serdes.ByteArray();
    }

    @Override
    public File stateDir() {
        return stateDir;
    }

    private StreamsMetricsImpl metrics;

    @Override
    public synchronized StreamsMetrics metrics() {
        if (metrics == null) { // what Kafka's built-in RocksDB store needs to open
            metrics = new StreamsMetricsImpl(new Metrics(), "ferry-test", Time.SYSTEM);
        }
        return metrics;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback) {
        restoreCallback = callback;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback, CommitCallback commitCallback) {
        restoreCallback = callback;
    }

    @Override
    public Map<String, Object> appConfigs() {
        return configs;
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        Map<String, Object> m = new HashMap<>();
        configs.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                m.put(k.substring(prefix.length()), v);
            }
        });
        return m;
    }
}
