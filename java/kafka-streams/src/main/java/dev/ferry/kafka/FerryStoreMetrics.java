package dev.ferry.kafka;

import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.LmdbStats;
import dev.ferry.Statistics;
import dev.ferry.Store;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.state.internals.metrics.RocksDBMetrics;
import org.apache.kafka.streams.state.internals.metrics.RocksDBMetrics.RocksDBMetricContext;
import org.apache.kafka.streams.state.internals.metrics.RocksDBMetricsRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' state store metrics for a Ferry store, in group {@code stream-state-metrics} with
 * the tags {@code thread-id}, {@code task-id} and {@code <scope>-state-id}.
 *
 * <p>On RocksDB they are the built-in RocksDB store's, registered through Kafka's own
 * {@link RocksDBMetrics} (so names, descriptions, tags and recording levels are Kafka's by
 * construction) under the built-in store's scopes ({@code rocksdb}, {@code rocksdb-window},
 * {@code rocksdb-session}):
 * <ul>
 *   <li>the statistics-based metrics of KIP-471 (recording level DEBUG), recorded from the store's
 *       RocksDB statistics ({@link Store#statistics()}) each time Kafka Streams runs its RocksDB
 *       metrics recording trigger (once a minute, when {@code metrics.recording.level} is DEBUG):
 *       Ferry's recorder joins that trigger beside the built-in stores' recorders;</li>
 *   <li>the property-based metrics of KIP-607 (INFO), gauges that read RocksDB's properties when
 *       the metric is read, summed over the store's column families as RocksDB's aggregated
 *       properties are (the block cache ones and the database-wide counters read once).</li>
 * </ul>
 * As in the built-in store, statistics are collected only when {@code metrics.recording.level} is
 * DEBUG ({@link #statisticsWanted(Map)}).
 *
 * <p>On LMDB (scopes {@code lmdb}, {@code lmdb-window}, {@code lmdb-session}, level INFO, read when
 * the metric is read): {@code estimate-num-keys} (exact: the entries of the store's families),
 * {@code data-file-size}, {@code map-size}, {@code map-size-used}, {@code num-readers} and
 * {@code max-readers}. LMDB keeps no counters, so there are no statistics-based ones.
 *
 * <p>Metrics are removed with the rest of the store's metrics when Kafka's metered store closes;
 * {@link #stop()} takes the recorder out of the trigger.
 *
 * <p>Thread safety: the recorder runs on Kafka's trigger thread and gauges on whatever thread reads
 * the metrics, concurrently with the store's own thread; a read that meets a closed store reports
 * nothing (recorder) or 0 (gauges), as the built-in store's do once it has closed.
 */
final class FerryStoreMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(FerryStoreMetrics.class);

    /** LMDB: the number of keys (entries of the store's data and offsets families). */
    static final String LMDB_NUM_KEYS = "estimate-num-keys";
    /** LMDB: the size of the data file. */
    static final String LMDB_DATA_FILE_SIZE = "data-file-size";
    /** LMDB: the map size (the most the data file may grow to before the map grows). */
    static final String LMDB_MAP_SIZE = "map-size";
    /** LMDB: the part of the map in use: (last page + 1) x page size. */
    static final String LMDB_MAP_SIZE_USED = "map-size-used";
    /** LMDB: reader slots in use. */
    static final String LMDB_NUM_READERS = "num-readers";
    /** LMDB: the size of the reader table. */
    static final String LMDB_MAX_READERS = "max-readers";

    /**
     * RocksDB's empty-histogram minimum (a histogram starts its minimum at its last bucket's limit,
     * 1.3e19): what the built-in store reports as {@code memtable-flush-time-min} and
     * {@code compaction-time-min} before the first flush or compaction.
     */
    static final double EMPTY_HISTOGRAM_MIN = 1.3e19;

    // RocksDB's names of the tickers and histograms the statistics-based metrics read
    static final String BYTES_WRITTEN = "rocksdb.bytes.written";
    static final String BYTES_READ = "rocksdb.bytes.read";
    static final String FLUSH_WRITE_BYTES = "rocksdb.flush.write.bytes";
    static final String MEMTABLE_HIT = "rocksdb.memtable.hit";
    static final String MEMTABLE_MISS = "rocksdb.memtable.miss";
    static final String BLOCK_CACHE_DATA_HIT = "rocksdb.block.cache.data.hit";
    static final String BLOCK_CACHE_DATA_MISS = "rocksdb.block.cache.data.miss";
    static final String BLOCK_CACHE_INDEX_HIT = "rocksdb.block.cache.index.hit";
    static final String BLOCK_CACHE_INDEX_MISS = "rocksdb.block.cache.index.miss";
    static final String BLOCK_CACHE_FILTER_HIT = "rocksdb.block.cache.filter.hit";
    static final String BLOCK_CACHE_FILTER_MISS = "rocksdb.block.cache.filter.miss";
    static final String STALL_MICROS = "rocksdb.stall.micros";
    static final String COMPACT_WRITE_BYTES = "rocksdb.compact.write.bytes";
    static final String COMPACT_READ_BYTES = "rocksdb.compact.read.bytes";
    static final String NO_FILE_ERRORS = "rocksdb.no.file.errors";
    static final String FLUSH_TIME = "rocksdb.db.flush.micros";
    static final String COMPACTION_TIME = "rocksdb.compaction.times.micros";
    /** Every ticker the recorder reads. */
    static final List<String> TICKERS = List.of(BYTES_WRITTEN, BYTES_READ, FLUSH_WRITE_BYTES, MEMTABLE_HIT, MEMTABLE_MISS,
            BLOCK_CACHE_DATA_HIT, BLOCK_CACHE_DATA_MISS, BLOCK_CACHE_INDEX_HIT, BLOCK_CACHE_INDEX_MISS,
            BLOCK_CACHE_FILTER_HIT, BLOCK_CACHE_FILTER_MISS, STALL_MICROS, COMPACT_WRITE_BYTES, COMPACT_READ_BYTES,
            NO_FILE_ERRORS);
    /** Every histogram the recorder reads. */
    static final List<String> HISTOGRAMS = List.of(FLUSH_TIME, COMPACTION_TIME);

    private final FerryStateStore store;
    private final StreamsMetricsImpl streamsMetrics;
    private final Recorder recorder;

    private FerryStoreMetrics(FerryStateStore store, StreamsMetricsImpl streamsMetrics, Recorder recorder) {
        this.store = store;
        this.streamsMetrics = streamsMetrics;
        this.recorder = recorder;
    }

    /**
     * The metrics scope of a Ferry store: the built-in RocksDB store's on RocksDB, {@code lmdb...}
     * on LMDB. Kafka's tag is {@code <scope>-state-id}.
     *
     * @param engine the store's engine
     * @param kind {@code ""} (key-value), {@code "-window"} or {@code "-session"}
     * @return the scope
     */
    static String scope(Engine engine, String kind) {
        return (engine == Engine.ROCKSDB ? "rocksdb" : "lmdb") + kind;
    }

    /** The scope of a store, from its kind. */
    static String scope(FerryStateStore store) {
        String kind = store instanceof FerryWindowStore ? "-window" : store instanceof FerrySessionStore ? "-session" : "";
        return scope(store.engine(), kind);
    }

    /**
     * Whether a RocksDB store collects statistics: as the built-in store, exactly when
     * {@code metrics.recording.level} is DEBUG.
     *
     * @param configs the application's configuration
     * @return true at DEBUG
     */
    static boolean statisticsWanted(Map<String, Object> configs) {
        Object level = configs.get(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG);
        return level != null && RecordingLevel.forName(level.toString()) == RecordingLevel.DEBUG;
    }

    /**
     * Registers a freshly opened store's metrics with Kafka Streams.
     *
     * @param store the store, open
     * @param context its context; without Kafka's {@link StreamsMetricsImpl} (a context outside
     *        Kafka Streams) no metrics are registered
     * @param dir the Ferry store's directory
     * @return the registration, to {@link #stop()} when the store closes, or null
     */
    static FerryStoreMetrics start(FerryStateStore store, StateStoreContext context, Path dir) {
        if (!(context.metrics() instanceof StreamsMetricsImpl) || context.taskId() == null) {
            return null;
        }
        try {
            return register(store, context, dir);
        } catch (RuntimeException e) { // the metrics must not keep the store from opening
            LOG.warn("Ferry store {} of task {} reports no RocksDB or LMDB metrics", store.name(), context.taskId(), e);
            return null;
        }
    }

    private static FerryStoreMetrics register(FerryStateStore store, StateStoreContext context, Path dir) {
        StreamsMetricsImpl metrics = (StreamsMetricsImpl) context.metrics();
        TaskId task = context.taskId();
        String scope = scope(store);
        RocksDBMetricContext ctx = new RocksDBMetricContext(task.toString(), scope, store.name());
        if (store.engine() == Engine.LMDB) {
            addLmdbGauges(store, metrics, ctx, dir);
            return new FerryStoreMetrics(store, metrics, null);
        }
        addRocksDbGauges(store, metrics, ctx);
        boolean statistics = statisticsWanted(context.appConfigs()) && statisticsOn(store);
        Recorder r = new Recorder(store, task, scope, metrics, ctx, statistics);
        try {
            metrics.rocksDBMetricsRecordingTrigger().addMetricsRecorder(r);
        } catch (IllegalStateException e) {
            // another open store of this name in this task (a store opened twice without a close
            // between): the metrics must not keep this one from opening; it records none
            LOG.warn("Ferry store {} of task {} records no RocksDB statistics metrics: {}", store.name(), task, e.getMessage());
            return new FerryStoreMetrics(store, metrics, null);
        }
        return new FerryStoreMetrics(store, metrics, r);
    }

    /** Whether the store was opened with statistics (an options setter may have turned them off). */
    private static boolean statisticsOn(FerryStateStore store) {
        try {
            store.checkOpen().statistics();
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Takes the recorder out of Kafka's recording trigger (the store is closing). Idempotent. */
    void stop() {
        Recorder r = recorder;
        if (r != null && r.stop()) {
            streamsMetrics.rocksDBMetricsRecordingTrigger().removeMetricsRecorder(r);
        }
    }

    @Override
    public String toString() {
        return "FerryStoreMetrics[" + store + "]";
    }

    // ---- RocksDB: properties (KIP-607, INFO) ----

    private static void addRocksDbGauges(FerryStateStore store, StreamsMetricsImpl m, RocksDBMetricContext c) {
        RocksDBMetrics.addNumImmutableMemTableMetric(m, c, summed(store, "rocksdb.num-immutable-mem-table"));
        RocksDBMetrics.addCurSizeActiveMemTable(m, c, summed(store, "rocksdb.cur-size-active-mem-table"));
        RocksDBMetrics.addCurSizeAllMemTables(m, c, summed(store, "rocksdb.cur-size-all-mem-tables"));
        RocksDBMetrics.addSizeAllMemTables(m, c, summed(store, "rocksdb.size-all-mem-tables"));
        RocksDBMetrics.addNumEntriesActiveMemTableMetric(m, c, summed(store, "rocksdb.num-entries-active-mem-table"));
        RocksDBMetrics.addNumDeletesActiveMemTableMetric(m, c, summed(store, "rocksdb.num-deletes-active-mem-table"));
        RocksDBMetrics.addNumEntriesImmMemTablesMetric(m, c, summed(store, "rocksdb.num-entries-imm-mem-tables"));
        RocksDBMetrics.addNumDeletesImmMemTablesMetric(m, c, summed(store, "rocksdb.num-deletes-imm-mem-tables"));
        RocksDBMetrics.addMemTableFlushPending(m, c, summed(store, "rocksdb.mem-table-flush-pending"));
        RocksDBMetrics.addNumRunningFlushesMetric(m, c, once(store, "rocksdb.num-running-flushes"));
        RocksDBMetrics.addCompactionPendingMetric(m, c, summed(store, "rocksdb.compaction-pending"));
        RocksDBMetrics.addNumRunningCompactionsMetric(m, c, once(store, "rocksdb.num-running-compactions"));
        RocksDBMetrics.addEstimatePendingCompactionBytesMetric(m, c, summed(store, "rocksdb.estimate-pending-compaction-bytes"));
        RocksDBMetrics.addTotalSstFilesSizeMetric(m, c, summed(store, "rocksdb.total-sst-files-size"));
        RocksDBMetrics.addLiveSstFilesSizeMetric(m, c, summed(store, "rocksdb.live-sst-files-size"));
        RocksDBMetrics.addNumLiveVersionMetric(m, c, summed(store, "rocksdb.num-live-versions"));
        RocksDBMetrics.addEstimateNumKeysMetric(m, c, summed(store, "rocksdb.estimate-num-keys"));
        RocksDBMetrics.addEstimateTableReadersMemMetric(m, c, summed(store, "rocksdb.estimate-table-readers-mem"));
        RocksDBMetrics.addBackgroundErrorsMetric(m, c, once(store, "rocksdb.background-errors"));
        // every family of a Ferry store shares the store's one block cache: read it once
        RocksDBMetrics.addBlockCacheCapacityMetric(m, c, once(store, "rocksdb.block-cache-capacity"));
        RocksDBMetrics.addBlockCacheUsageMetric(m, c, once(store, "rocksdb.block-cache-usage"));
        RocksDBMetrics.addBlockCachePinnedUsageMetric(m, c, once(store, "rocksdb.block-cache-pinned-usage"));
    }

    /** A property of each column family, summed (RocksDB's aggregated property). */
    private static Gauge<BigInteger> summed(FerryStateStore store, String property) {
        return gauge(store, property, s -> {
            long sum = 0;
            for (ColumnFamily cf : s.columnFamilies()) {
                sum += s.propertyLong(cf, property).orElse(0);
            }
            return sum;
        });
    }

    /** A property of the whole database (or of the block cache the families share), read once. */
    private static Gauge<BigInteger> once(FerryStateStore store, String property) {
        return gauge(store, property, s -> s.propertyLong(store.data(), property).orElse(0));
    }

    /**
     * A gauge over the open store: RocksDB's properties are unsigned 64-bit integers, so the value
     * is a {@link BigInteger} of the unsigned value, as the built-in store reports them. 0 once the
     * store has closed; an engine error throws {@link ProcessorStateException}.
     */
    private static Gauge<BigInteger> gauge(FerryStateStore store, String what, ToLongFunction<Store> read) {
        return (config, now) -> {
            if (!store.isOpen()) {
                return BigInteger.ZERO;
            }
            long v;
            try {
                v = read.applyAsLong(store.openStore());
            } catch (RuntimeException e) {
                if (!store.isOpen()) { // raced with close()
                    return BigInteger.ZERO;
                }
                throw new ProcessorStateException("Error recording metric " + what + " of Ferry store " + store.name(), e);
            }
            return v >= 0 ? BigInteger.valueOf(v) : BigInteger.valueOf(v).add(BigInteger.ONE.shiftLeft(64));
        };
    }

    // ---- LMDB ----

    private static void addLmdbGauges(FerryStateStore store, StreamsMetricsImpl m, RocksDBMetricContext c, Path dir) {
        addLmdb(m, c, LMDB_NUM_KEYS, "Number of keys in the store (exact on LMDB)", gauge(store, LMDB_NUM_KEYS, s -> {
            long sum = 0;
            for (ColumnFamily cf : s.columnFamilies()) {
                if (!cf.equals(s.defaultColumnFamily())) { // LMDB's main tree holds the names of the others
                    sum += s.propertyLong(cf, "lmdb.entries").orElse(0);
                }
            }
            return sum;
        }));
        Path file = dir.resolve("data.mdb");
        addLmdb(m, c, LMDB_DATA_FILE_SIZE, "Size in bytes of the store's LMDB data file", gauge(store, LMDB_DATA_FILE_SIZE, s -> {
            try {
                return Files.size(file);
            } catch (NoSuchFileException e) {
                return 0;
            } catch (IOException e) {
                throw new ProcessorStateException("cannot read the size of " + file, e);
            }
        }));
        addLmdb(m, c, LMDB_MAP_SIZE, "Size in bytes of the LMDB map (what the data file may grow to before the map grows)",
                gauge(store, LMDB_MAP_SIZE, s -> stats(s, store).mapSize()));
        addLmdb(m, c, LMDB_MAP_SIZE_USED, "Bytes of the LMDB map in use (pages up to the last one used, free pages included)",
                gauge(store, LMDB_MAP_SIZE_USED, s -> {
                    LmdbStats st = stats(s, store);
                    return (st.lastPage() + 1) * st.pageSize();
                }));
        addLmdb(m, c, LMDB_NUM_READERS, "Number of LMDB reader slots in use",
                gauge(store, LMDB_NUM_READERS, s -> stats(s, store).readers()));
        addLmdb(m, c, LMDB_MAX_READERS, "Size of the LMDB reader table",
                gauge(store, LMDB_MAX_READERS, s -> stats(s, store).maxReaders()));
    }

    private static LmdbStats stats(Store s, FerryStateStore store) {
        return s.lmdbStats(store.data());
    }

    private static void addLmdb(StreamsMetricsImpl m, RocksDBMetricContext c, String name, String description,
                                Gauge<BigInteger> gauge) {
        m.addStoreLevelMutableMetric(c.taskName(), c.metricsScope(), c.storeName(), name, description,
                RecordingLevel.INFO, gauge);
    }

    // ---- RocksDB: statistics (KIP-471, DEBUG) ----

    /**
     * Records the statistics-based metrics when Kafka's {@code RocksDBMetricsRecordingTrigger}
     * runs it, as the built-in store's {@link RocksDBMetricsRecorder} does. It is one (a subclass)
     * because the trigger takes nothing else; none of the superclass's state or methods is used
     * (its {@code init} is never called: the sensors and gauges are this class's).
     *
     * <p>What each metric records, as the built-in recorder: the tickers' increase since the last
     * recording (bytes written and read, flushed, read and written by compactions, stall time, file
     * errors); hit ratios of that increase (0 without hits); the flush and compaction time
     * histograms since open (average = sum / count, maximum = the histogram's). Differences:
     * RocksDB's statistics listing, which Ferry reads, gives no histogram minimum, so
     * {@code memtable-flush-time-min} and {@code compaction-time-min} are the smallest average of
     * the samples between two recordings (exact when a recording interval holds at most one flush
     * or compaction, an upper bound of the true minimum otherwise); before the first sample they
     * report RocksDB's empty-histogram minimum (1.3e19), as the built-in store does. And
     * {@code number-open-files} records -1 per recording, as the built-in store does since RocksDB
     * stopped counting open files.
     */
    static final class Recorder extends RocksDBMetricsRecorder {
        private final FerryStateStore store;
        private final TaskId task;
        private final boolean statistics;
        private final Sensor bytesWritten;
        private final Sensor bytesRead;
        private final Sensor memtableBytesFlushed;
        private final Sensor memtableHitRatio;
        private final Sensor memtableFlushTimeAvg;
        private final Sensor memtableFlushTimeMin;
        private final Sensor memtableFlushTimeMax;
        private final Sensor writeStallDuration;
        private final Sensor blockCacheDataHitRatio;
        private final Sensor blockCacheIndexHitRatio;
        private final Sensor blockCacheFilterHitRatio;
        private final Sensor bytesReadCompaction;
        private final Sensor bytesWrittenCompaction;
        private final Sensor compactionTimeAvg;
        private final Sensor compactionTimeMin;
        private final Sensor compactionTimeMax;
        private final Sensor numberOfOpenFiles;
        private final Sensor numberOfFileErrors;
        /** The tickers at the last recording. */
        private final Map<String, Long> last = new HashMap<>();
        private final HistogramMin flushMin = new HistogramMin();
        private final HistogramMin compactionMin = new HistogramMin();
        private boolean stopped;

        Recorder(FerryStateStore store, TaskId task, String scope, StreamsMetricsImpl m, RocksDBMetricContext c,
                 boolean statistics) {
            super(scope, store.name());
            this.store = store;
            this.task = task;
            this.statistics = statistics;
            bytesWritten = RocksDBMetrics.bytesWrittenToDatabaseSensor(m, c);
            bytesRead = RocksDBMetrics.bytesReadFromDatabaseSensor(m, c);
            memtableBytesFlushed = RocksDBMetrics.memtableBytesFlushedSensor(m, c);
            memtableHitRatio = RocksDBMetrics.memtableHitRatioSensor(m, c);
            memtableFlushTimeAvg = RocksDBMetrics.memtableAvgFlushTimeSensor(m, c);
            memtableFlushTimeMin = RocksDBMetrics.memtableMinFlushTimeSensor(m, c);
            memtableFlushTimeMax = RocksDBMetrics.memtableMaxFlushTimeSensor(m, c);
            writeStallDuration = RocksDBMetrics.writeStallDurationSensor(m, c);
            blockCacheDataHitRatio = RocksDBMetrics.blockCacheDataHitRatioSensor(m, c);
            blockCacheIndexHitRatio = RocksDBMetrics.blockCacheIndexHitRatioSensor(m, c);
            blockCacheFilterHitRatio = RocksDBMetrics.blockCacheFilterHitRatioSensor(m, c);
            bytesWrittenCompaction = RocksDBMetrics.bytesWrittenDuringCompactionSensor(m, c);
            bytesReadCompaction = RocksDBMetrics.bytesReadDuringCompactionSensor(m, c);
            compactionTimeAvg = RocksDBMetrics.compactionTimeAvgSensor(m, c);
            compactionTimeMin = RocksDBMetrics.compactionTimeMinSensor(m, c);
            compactionTimeMax = RocksDBMetrics.compactionTimeMaxSensor(m, c);
            numberOfOpenFiles = RocksDBMetrics.numberOfOpenFilesSensor(m, c);
            numberOfFileErrors = RocksDBMetrics.numberOfFileErrorsSensor(m, c);
        }

        @Override
        public String storeName() {
            return store.name();
        }

        @Override
        public TaskId taskId() {
            return task;
        }

        /** @return true the first time: the caller then takes the recorder out of the trigger */
        synchronized boolean stop() {
            boolean was = !stopped;
            stopped = true;
            return was;
        }

        /**
         * Records the statistics since the last recording. Never throws: the trigger runs every
         * store's recorder in one loop on a scheduled executor, which an exception would stop.
         */
        @Override
        public synchronized void record(long now) {
            if (!statistics || stopped || !store.isOpen()) {
                return;
            }
            Statistics s;
            try {
                s = store.openStore().statistics();
            } catch (RuntimeException e) {
                if (store.isOpen()) {
                    LOG.warn("Cannot read the RocksDB statistics of Ferry store {} of task {}: {}", store.name(), task, e.toString());
                }
                return;
            }
            Map<String, Long> t = s.tickers();
            bytesWritten.record(delta(t, BYTES_WRITTEN), now);
            bytesRead.record(delta(t, BYTES_READ), now);
            memtableBytesFlushed.record(delta(t, FLUSH_WRITE_BYTES), now);
            memtableHitRatio.record(ratio(delta(t, MEMTABLE_HIT), delta(t, MEMTABLE_MISS)), now);
            blockCacheDataHitRatio.record(ratio(delta(t, BLOCK_CACHE_DATA_HIT), delta(t, BLOCK_CACHE_DATA_MISS)), now);
            blockCacheIndexHitRatio.record(ratio(delta(t, BLOCK_CACHE_INDEX_HIT), delta(t, BLOCK_CACHE_INDEX_MISS)), now);
            blockCacheFilterHitRatio.record(ratio(delta(t, BLOCK_CACHE_FILTER_HIT), delta(t, BLOCK_CACHE_FILTER_MISS)), now);
            writeStallDuration.record(delta(t, STALL_MICROS), now);
            bytesWrittenCompaction.record(delta(t, COMPACT_WRITE_BYTES), now);
            bytesReadCompaction.record(delta(t, COMPACT_READ_BYTES), now);
            numberOfOpenFiles.record(-1, now);
            numberOfFileErrors.record(delta(t, NO_FILE_ERRORS), now);
            Statistics.Histogram flush = s.histograms().get(FLUSH_TIME);
            memtableFlushTimeAvg.record(flush == null ? 0 : flush.average(), now);
            memtableFlushTimeMin.record(flushMin.update(flush), now);
            memtableFlushTimeMax.record(flush == null ? 0 : flush.max(), now);
            Statistics.Histogram compaction = s.histograms().get(COMPACTION_TIME);
            compactionTimeAvg.record(compaction == null ? 0 : compaction.average(), now);
            compactionTimeMin.record(compactionMin.update(compaction), now);
            compactionTimeMax.record(compaction == null ? 0 : compaction.max(), now);
        }

        /** A ticker's increase since the last recording (a ticker this RocksDB lacks counts 0). */
        private long delta(Map<String, Long> tickers, String name) {
            long now = tickers.getOrDefault(name, 0L);
            Long before = last.put(name, now);
            return before == null ? now : now - before;
        }

        private static double ratio(long hits, long misses) {
            return hits == 0 ? 0 : (double) hits / (hits + misses);
        }

        @Override
        public String toString() {
            return "FerryStoreMetrics.Recorder[" + store.name() + ", task " + task + "]";
        }
    }

    /** The minimum of a histogram, estimated from the samples between two recordings (see {@link Recorder}). */
    static final class HistogramMin {
        private long count;
        private long sum;
        private double min = EMPTY_HISTOGRAM_MIN;

        /**
         * @param h the histogram now (null: the running RocksDB has none of that name)
         * @return the minimum so far
         */
        double update(Statistics.Histogram h) {
            if (h != null && h.count() > count) {
                double avg = (double) (h.sum() - sum) / (h.count() - count);
                min = Math.min(min, avg);
                count = h.count();
                sum = h.sum();
            }
            return min;
        }
    }
}
