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
 * RocksDB's per-column-family properties and its statistics as Flink metrics, under the names and options
 * of Flink's RocksDB backend: {@code state.backend.rocksdb.metrics.<property>: true} registers a gauge
 * {@code rocksdb.<property>} in a group named after each state (or, with
 * {@code state.backend.rocksdb.metrics.column-family-as-variable: true}, under the variable
 * {@code column_family}); {@code num-files-at-level} registers {@code rocksdb.num-files-at-level0} to
 * {@code 6}. A statistics option ({@code block-cache-hit}, {@code bytes-written}, ... : {@link #TICKERS})
 * opens the store with RocksDB's statistics on and registers a gauge {@code rocksdb.<ticker>} (Flink's
 * name: {@code rocksdb.block_cache_hit}) in the backend's own group: the store's counter since it opened.
 * Gauges read RocksDB when the reporter asks; after the backend is disposed they read 0.
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

    /** The option of the per-level file counts (properties {@code num-files-at-level0} to {@code 6}). */
    static final String FILES_AT_LEVEL = "num-files-at-level";
    /**
     * The statistics options of Flink's RocksDB backend and RocksDB's ticker each reads: option suffix,
     * RocksDB's ticker name, Flink's metric name.
     */
    static final List<List<String>> TICKERS = List.of(
            List.of("block-cache-hit", "rocksdb.block.cache.hit", "rocksdb.block_cache_hit"),
            List.of("block-cache-miss", "rocksdb.block.cache.miss", "rocksdb.block_cache_miss"),
            List.of("bloom-filter-useful", "rocksdb.bloom.filter.useful", "rocksdb.bloom_filter_useful"),
            List.of("bloom-filter-full-positive", "rocksdb.bloom.filter.full.positive",
                    "rocksdb.bloom_filter_full_positive"),
            List.of("bloom-filter-full-true-positive", "rocksdb.bloom.filter.full.true.positive",
                    "rocksdb.bloom_filter_full_true_positive"),
            List.of("bytes-read", "rocksdb.bytes.read", "rocksdb.bytes_read"),
            List.of("iter-bytes-read", "rocksdb.db.iter.bytes.read", "rocksdb.iter_bytes_read"),
            List.of("bytes-written", "rocksdb.bytes.written", "rocksdb.bytes_written"),
            List.of("compaction-read-bytes", "rocksdb.compact.read.bytes", "rocksdb.compact_read_bytes"),
            List.of("compaction-write-bytes", "rocksdb.compact.write.bytes", "rocksdb.compact_write_bytes"),
            List.of("stall-micros", "rocksdb.stall.micros", "rocksdb.stall_micros"));

    /** No metrics. */
    static final FerryNativeMetrics NONE = new FerryNativeMetrics(List.of(), List.of(), false);

    private final List<String> enabled;
    /** The enabled rows of {@link #TICKERS}. */
    private final List<List<String>> tickers;
    private final boolean familyAsVariable;

    private FerryNativeMetrics(List<String> enabled, List<List<String>> tickers, boolean familyAsVariable) {
        this.enabled = enabled;
        this.tickers = tickers;
        this.familyAsVariable = familyAsVariable;
    }

    private static boolean on(ReadableConfig config, String suffix) {
        return config.getOptional(ConfigOptions.key(PREFIX + suffix).booleanType().noDefaultValue()).orElse(false);
    }

    /** @return the metrics a configuration enables */
    static FerryNativeMetrics from(ReadableConfig config) {
        List<String> on = new ArrayList<>();
        for (String p : PROPERTIES) {
            if (on(config, p)) {
                on.add(p);
            }
        }
        if (on(config, FILES_AT_LEVEL)) {
            for (int level = 0; level <= 6; level++) {
                on.add(FILES_AT_LEVEL + level);
            }
        }
        List<List<String>> t = new ArrayList<>();
        for (List<String> row : TICKERS) {
            if (on(config, row.get(0))) {
                t.add(row);
            }
        }
        return new FerryNativeMetrics(List.copyOf(on), List.copyOf(t), on(config, "column-family-as-variable"));
    }

    boolean isEmpty() {
        return enabled.isEmpty() && tickers.isEmpty();
    }

    /** @return whether the store must open with RocksDB's statistics on (a statistics metric is enabled) */
    boolean needsStatistics() {
        return !tickers.isEmpty();
    }

    /** Registers the enabled statistics gauges of the backend's store in its metric group. */
    void registerStatistics(MetricGroup metrics, Store store) {
        if (metrics == null) {
            return;
        }
        for (List<String> row : tickers) {
            String ticker = row.get(1);
            metrics.gauge(row.get(2), (Gauge<Long>) () -> ticker(store, ticker));
        }
    }

    private static long ticker(Store store, String ticker) {
        if (store.isClosed()) {
            return 0;
        }
        try {
            return store.statistics().tickers().getOrDefault(ticker, 0L);
        } catch (RuntimeException e) {
            return 0; // closed meanwhile
        }
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
