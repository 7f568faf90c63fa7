package dev.ferry.bench.kafka;

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
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

/**
 * What a state store sees of Kafka Streams when it opens, outside a topology: a state directory,
 * the application's configuration and metrics (Kafka's built-in RocksDB store registers its
 * metrics there), and the restore callback the store registers, which the restore benchmark drives.
 */
final class BenchContext implements StateStoreContext {
    private final File stateDir;
    private final Map<String, Object> configs;
    private final StreamsMetricsImpl metrics = new StreamsMetricsImpl(new Metrics(), "ferry-bench", Time.SYSTEM);
    StateRestoreCallback restoreCallback;

    BenchContext(File stateDir, Map<String, Object> configs) {
        this.stateDir = stateDir;
        this.configs = new HashMap<>(configs);
        // Kafka Streams' default, which its built-in RocksDB store reads when it opens
        this.configs.putIfAbsent(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "INFO");
    }

    @Override
    public String applicationId() {
        return "ferry-bench";
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

    @Override
    public StreamsMetrics metrics() {
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
