package dev.ferry.flink;

import dev.ferry.ColumnFamily;
import dev.ferry.Store;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * RocksDB's per-column-family properties as Flink metrics, under the names and options of Flink's RocksDB
 * backend: {@code state.backend.rocksdb.metrics.<property>: true} registers a gauge
 * {@code rocksdb.<property>} in a group named after each state (or, with
 * {@code state.backend.rocksdb.metrics.column-family-as-variable: true}, under the variable
 * {@code column_family}). Gauges read the property when the reporter asks; after the backend is disposed
 * they read 0.
 *
 * <p>Thread safety: immutable; gauges may be read from any thread (Ferry's property reads are).
 */
final class FerryNativeMetrics implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final String PREFIX = "state.backend.rocksdb.metrics.";
    /** The numeric per-family properties Flink's RocksDB backend offers as metrics. */
    static final List<String> PROPERTIES = List.of("num-immutable-mem-table", "mem-table-flush-pending",
            "compaction-pending", "background-errors", "cur-size-active-mem-table", "cur-size-all-mem-tables",
            "size-all-mem-tables", "num-entries-active-mem-table", "num-entries-imm-mem-tables",
            "num-deletes-active-mem-table", "num-deletes-imm-mem-tables", "estimate-num-keys",
            "estimate-table-readers-mem", "num-snapshots", "num-live-versions", "estimate-live-data-size",
            "total-sst-files-size", "live-sst-files-size", "estimate-pending-compaction-bytes",
            "num-running-compactions", "num-running-flushes", "actual-delayed-write-rate", "is-write-stopped",
            "block-cache-capacity", "block-cache-usage", "block-cache-pinned-usage");

    /** No metrics. */
    static final FerryNativeMetrics NONE = new FerryNativeMetrics(List.of(), false);

    private final List<String> enabled;
    private final boolean familyAsVariable;

    private FerryNativeMetrics(List<String> enabled, boolean familyAsVariable) {
        this.enabled = enabled;
        this.familyAsVariable = familyAsVariable;
    }

    /** @return the metrics a configuration enables */
    static FerryNativeMetrics from(ReadableConfig config) {
        List<String> on = new ArrayList<>();
        for (String p : PROPERTIES) {
            if (config.getOptional(ConfigOptions.key(PREFIX + p).booleanType().noDefaultValue()).orElse(false)) {
                on.add(p);
            }
        }
        boolean asVariable = config.getOptional(ConfigOptions.key(PREFIX + "column-family-as-variable")
                .booleanType().noDefaultValue()).orElse(false);
        return new FerryNativeMetrics(List.copyOf(on), asVariable);
    }

    boolean isEmpty() {
        return enabled.isEmpty();
    }

    /** Registers the enabled gauges of one state's column family (read through {@code cf}: a family may be rebuilt). */
    void register(MetricGroup metrics, String stateName, Store store, Supplier<ColumnFamily> cf) {
        if (enabled.isEmpty() || metrics == null) {
            return;
        }
        MetricGroup group = familyAsVariable ? metrics.addGroup("column_family", stateName)
                : metrics.addGroup(stateName);
        for (String p : enabled) {
            String property = "rocksdb." + p;
            group.gauge(property, (Gauge<Long>) () -> read(store, cf.get(), property));
        }
    }

    private static long read(Store store, ColumnFamily cf, String property) {
        if (store.isClosed() || cf == null || cf.isDropped()) {
            return 0;
        }
        try {
            return store.propertyLong(cf, property).orElse(0);
        } catch (RuntimeException e) {
            return 0; // closed meanwhile
        }
    }
}
