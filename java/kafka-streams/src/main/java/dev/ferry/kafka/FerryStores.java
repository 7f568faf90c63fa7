package dev.ferry.kafka;

import dev.ferry.Engine;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.VersionedKeyValueToBytesStoreAdapter;

/**
 * Suppliers of Ferry state stores for Kafka Streams, the counterparts of
 * {@code Stores.persistentKeyValueStore(name)}, {@code Stores.persistentWindowStore(...)},
 * {@code Stores.persistentSessionStore(...)} and {@code Stores.persistentVersionedKeyValueStore(...)}:
 *
 * <pre>{@code
 * // Processor API
 * builder.addStateStore(Stores.keyValueStoreBuilder(FerryStores.persistentKeyValueStore("counts"),
 *         Serdes.String(), Serdes.Long()));
 * // DSL
 * stream.groupByKey().count(Materialized.as(FerryStores.persistentTimestampedKeyValueStore("counts")));
 * // windowed and session-windowed aggregations
 * stream.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(size, grace))
 *         .count(Materialized.as(FerryStores.persistentTimestampedWindowStore("per-minute", retention, size, false)));
 * stream.groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(gap, grace))
 *         .count(Materialized.as(FerryStores.persistentSessionStore("sessions", retention)));
 * // versioned tables (KIP-889)
 * builder.table("prices", Materialized.as(FerryStores.persistentVersionedKeyValueStore("prices", historyRetention)));
 * }</pre>
 *
 * <p>Each supplier's {@code get()} returns a new, unopened store for one partition; the store
 * reads its options from the application's configuration ({@link FerryStoreConfig}).
 */
public final class FerryStores {
    /** How this class's suppliers name themselves in {@code toString}. */
    private static final String LABEL = "FerryStores";

    private FerryStores() {
    }

    /**
     * A persistent key-value store on Ferry-RocksDB (needs {@code org.rocksdb:rocksdbjni}, which
     * kafka-streams brings).
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
        return new Supplier(name, Engine.ROCKSDB, false, LABEL);
    }

    /**
     * A persistent key-value store on Ferry-RocksDB that keeps values with their timestamps, for
     * {@code Stores.timestampedKeyValueStoreBuilder} and the DSL.
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return new Supplier(name, Engine.ROCKSDB, true, LABEL);
    }

    /**
     * A persistent key-value store on Ferry-LMDB (needs {@code org.lmdbjava:native}).
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier lmdbKeyValueStore(String name) {
        return new Supplier(name, Engine.LMDB, false, LABEL);
    }

    /**
     * A persistent key-value store on Ferry-LMDB that keeps values with their timestamps.
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier lmdbTimestampedKeyValueStore(String name) {
        return new Supplier(name, Engine.LMDB, true, LABEL);
    }

    /**
     * A persistent window store on Ferry-RocksDB, the counterpart of
     * {@code Stores.persistentWindowStore}: same arguments, same checks, same segment interval
     * ({@code max(retention / 2, 60 s)}).
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept (at least the window size plus the grace period)
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting (stream-stream joins)
     * @return the supplier
     * @throws IllegalArgumentException on a negative or unrepresentable duration, or a retention period
     *         smaller than the window size
     */
    public static WindowBytesStoreSupplier persistentWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                                 boolean retainDuplicates) {
        return window(name, Engine.ROCKSDB, retentionPeriod, windowSize, retainDuplicates, false);
    }

    /**
     * A persistent window store on Ferry-RocksDB that keeps values with their timestamps, for
     * {@code Stores.timestampedWindowStoreBuilder} and the DSL (the counterpart of
     * {@code Stores.persistentTimestampedWindowStore}).
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTimestampedWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                                            boolean retainDuplicates) {
        return window(name, Engine.ROCKSDB, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent window store on Ferry-LMDB.
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier lmdbWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                           boolean retainDuplicates) {
        return window(name, Engine.LMDB, retentionPeriod, windowSize, retainDuplicates, false);
    }

    /**
     * A persistent window store on Ferry-LMDB that keeps values with their timestamps.
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier lmdbTimestampedWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                                      boolean retainDuplicates) {
        return window(name, Engine.LMDB, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent session store on Ferry-RocksDB, the counterpart of
     * {@code Stores.persistentSessionStore}: same checks, same segment interval
     * ({@code max(retention / 2, 60 s)}).
     *
     * @param name the store's name
     * @param retentionPeriod how long sessions are kept after they end (at least the inactivity gap plus the grace period)
     * @return the supplier
     * @throws IllegalArgumentException on a negative or unrepresentable duration
     */
    public static SessionBytesStoreSupplier persistentSessionStore(String name, Duration retentionPeriod) {
        return new SessionSupplier(name, Engine.ROCKSDB, millis(retentionPeriod, "retentionPeriod"), LABEL);
    }

    /**
     * A persistent session store on Ferry-LMDB.
     *
     * @param name the store's name
     * @param retentionPeriod how long sessions are kept after they end
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentSessionStore}
     */
    public static SessionBytesStoreSupplier lmdbSessionStore(String name, Duration retentionPeriod) {
        return new SessionSupplier(name, Engine.LMDB, millis(retentionPeriod, "retentionPeriod"), LABEL);
    }

    /**
     * A persistent versioned key-value store (KIP-889) on Ferry-RocksDB, the counterpart of
     * {@code Stores.persistentVersionedKeyValueStore(name, historyRetention)}: same checks, same default
     * segment interval. For {@code Stores.versionedKeyValueStoreBuilder} and the DSL
     * ({@code Materialized.as(...)} of a versioned table).
     *
     * @param name the store's name
     * @param historyRetention how long old record versions stay queryable; also the grace period:
     *        writes older than the observed stream time minus it are dropped
     * @return the supplier
     * @throws IllegalArgumentException on a negative or unrepresentable duration
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(String name, Duration historyRetention) {
        return versioned(name, Engine.ROCKSDB, historyRetention, null);
    }

    /**
     * A persistent versioned key-value store on Ferry-RocksDB with a given segment interval, the
     * counterpart of {@code Stores.persistentVersionedKeyValueStore(name, historyRetention, segmentInterval)}.
     *
     * @param name the store's name
     * @param historyRetention how long old record versions stay queryable (and the grace period)
     * @param segmentInterval the time span of one history segment (old versions expire a segment at a time)
     * @return the supplier
     * @throws IllegalArgumentException on a negative or unrepresentable duration, or a zero segment interval
     */
    public static VersionedBytesStoreSupplier persistentVersionedKeyValueStore(String name, Duration historyRetention,
                                                                              Duration segmentInterval) {
        return versioned(name, Engine.ROCKSDB, historyRetention, Objects.requireNonNull(segmentInterval, "segmentInterval cannot be null"));
    }

    /**
     * A persistent versioned key-value store on Ferry-LMDB (needs {@code org.lmdbjava:native}).
     *
     * @param name the store's name
     * @param historyRetention how long old record versions stay queryable (and the grace period)
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentVersionedKeyValueStore(String, Duration)}
     */
    public static VersionedBytesStoreSupplier lmdbVersionedKeyValueStore(String name, Duration historyRetention) {
        return versioned(name, Engine.LMDB, historyRetention, null);
    }

    /**
     * A persistent versioned key-value store on Ferry-LMDB with a given segment interval.
     *
     * @param name the store's name
     * @param historyRetention how long old record versions stay queryable (and the grace period)
     * @param segmentInterval the time span of one history segment
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentVersionedKeyValueStore(String, Duration, Duration)}
     */
    public static VersionedBytesStoreSupplier lmdbVersionedKeyValueStore(String name, Duration historyRetention,
                                                                        Duration segmentInterval) {
        return versioned(name, Engine.LMDB, historyRetention, Objects.requireNonNull(segmentInterval, "segmentInterval cannot be null"));
    }

    private static VersionedBytesStoreSupplier versioned(String name, Engine engine, Duration historyRetention, Duration segmentInterval) {
        Objects.requireNonNull(name, "name cannot be null");
        long retention = millis(historyRetention, "historyRetention");
        long interval;
        if (segmentInterval == null) {
            interval = versionedSegmentInterval(retention);
        } else {
            interval = millis(segmentInterval, "segmentInterval");
            if (interval < 1) {
                throw new IllegalArgumentException("segmentInterval cannot be zero or negative");
            }
        }
        return new VersionedSupplier(name, engine, retention, interval);
    }

    /** The built-in versioned store's default segment interval for a history retention. */
    static long versionedSegmentInterval(long historyRetention) {
        if (historyRetention <= 60_000L) {
            return Math.max(historyRetention / 3, 2_000L);
        } else if (historyRetention <= 300_000L) {
            return Math.max(historyRetention / 5, 20_000L);
        } else if (historyRetention <= 3_600_000L) {
            return Math.max(historyRetention / 12, 60_000L);
        }
        return Math.max(historyRetention / 24, 300_000L);
    }

    private static WindowBytesStoreSupplier window(String name, Engine engine, Duration retentionPeriod, Duration windowSize,
                                                   boolean retainDuplicates, boolean timestamped) {
        Objects.requireNonNull(name, "name cannot be null");
        long retention = millis(retentionPeriod, "retentionPeriod");
        long size = millis(windowSize, "windowSize");
        if (size > retention) {
            throw new IllegalArgumentException("The retention period of the window store " + name
                    + " must be no smaller than its window size. Got size=[" + size + "], retention=[" + retention + "]");
        }
        return new WindowSupplier(name, engine, retention, segmentInterval(retention), size, retainDuplicates,
                timestamped ? WindowLayout.TIMESTAMPED : WindowLayout.PLAIN, LABEL);
    }

    /**
     * A supplier of Ferry-RocksDB window stores ordered by time ({@link FerryTimeOrderedWindowStore}): the
     * store the DSL's emit-on-window-close aggregations want (the counterpart of Kafka's internal
     * {@code RocksDbIndexedTimeOrderedWindowBytesStoreSupplier}); values in the timestamped format.
     * Arguments and checks as {@link #persistentWindowStore}.
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier persistentTimeOrderedWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                                            boolean retainDuplicates) {
        return timeOrdered(name, Engine.ROCKSDB, retentionPeriod, windowSize, retainDuplicates);
    }

    /**
     * As {@link #persistentTimeOrderedWindowStore}, on Ferry-LMDB.
     *
     * @param name the store's name
     * @param retentionPeriod how long windows are kept
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     * @throws IllegalArgumentException as {@link #persistentWindowStore}
     */
    public static WindowBytesStoreSupplier lmdbTimeOrderedWindowStore(String name, Duration retentionPeriod, Duration windowSize,
                                                                      boolean retainDuplicates) {
        return timeOrdered(name, Engine.LMDB, retentionPeriod, windowSize, retainDuplicates);
    }

    private static WindowBytesStoreSupplier timeOrdered(String name, Engine engine, Duration retentionPeriod, Duration windowSize,
                                                        boolean retainDuplicates) {
        WindowSupplier checked = (WindowSupplier) window(name, engine, retentionPeriod, windowSize, retainDuplicates, true);
        return new WindowSupplier(name, engine, checked.retention, checked.segmentInterval, checked.windowSize, retainDuplicates,
                WindowLayout.TIME_ORDERED, LABEL);
    }

    /** The window stores a {@link WindowSupplier} makes. */
    enum WindowLayout { PLAIN, TIMESTAMPED, TIME_ORDERED }

    private static long millis(Duration d, String what) {
        Objects.requireNonNull(d, what + " cannot be null");
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " cannot be represented as long milliseconds: " + d, e);
        }
        if (ms < 0) {
            throw new IllegalArgumentException(what + " cannot be negative");
        }
        return ms;
    }

    /** The built-in stores' default segment interval: half the retention period, at least a minute. */
    static long segmentInterval(long retention) {
        return Math.max(retention / 2, 60_000L);
    }

    /**
     * A window supplier of this class's checks and segment interval, for {@link FerryHeadersStores}.
     *
     * @return the checked supplier, whose values a headers supplier takes
     */
    static WindowSupplier checkedWindow(String name, Engine engine, Duration retentionPeriod, Duration windowSize,
                                        boolean retainDuplicates) {
        return (WindowSupplier) window(name, engine, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /** @return a session store's retention in milliseconds, checked as this class checks it */
    static long checkedRetention(Duration retentionPeriod) {
        return millis(retentionPeriod, "retentionPeriod");
    }

    private static String scope(Engine engine, String kind) {
        return FerryStoreMetrics.scope(engine, kind);
    }

    /**
     * The window stores' supplier; {@link FerryHeadersStores} extends it for the headers format (its own
     * {@code get()}, so that this class names no type of Kafka 4.4 and loads on older lines).
     */
    static class WindowSupplier implements WindowBytesStoreSupplier {
        final String name;
        final Engine engine;
        final long retention;
        final long segmentInterval;
        final long windowSize;
        final boolean retainDuplicates;
        final WindowLayout layout;
        private final String label;

        WindowSupplier(String name, Engine engine, long retention, long segmentInterval, long windowSize, boolean retainDuplicates,
                       WindowLayout layout, String label) {
            this.name = name;
            this.engine = engine;
            this.retention = retention;
            this.segmentInterval = segmentInterval;
            this.windowSize = windowSize;
            this.retainDuplicates = retainDuplicates;
            this.layout = layout;
            this.label = label;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public WindowStore<Bytes, byte[]> get() {
            switch (layout) {
                case TIMESTAMPED: return new FerryTimestampedWindowStore(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
                case TIME_ORDERED: return new FerryTimeOrderedWindowStore(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
                default: return new FerryWindowStore(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
            }
        }

        @Override
        public String metricsScope() {
            return scope(engine, "-window");
        }

        @Override
        public long segmentIntervalMs() {
            return segmentInterval;
        }

        @Override
        public long windowSize() {
            return windowSize;
        }

        @Override
        public boolean retainDuplicates() {
            return retainDuplicates;
        }

        @Override
        public long retentionPeriod() {
            return retention;
        }

        @Override
        public String toString() {
            return label + "[" + name + ", " + engine + ", window " + windowSize + " ms, retention " + retention + " ms"
                    + (retainDuplicates ? ", duplicates" : "") + ", " + layout.name().toLowerCase(java.util.Locale.ROOT) + "]";
        }
    }

    /** The session stores' supplier; {@link FerryHeadersStores} extends it for the headers format (as {@link WindowSupplier}). */
    static class SessionSupplier implements SessionBytesStoreSupplier {
        final String name;
        final Engine engine;
        final long retention;
        private final String label;

        SessionSupplier(String name, Engine engine, long retention, String label) {
            this.name = Objects.requireNonNull(name, "name cannot be null");
            this.engine = engine;
            this.retention = retention;
            this.label = label;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public SessionStore<Bytes, byte[]> get() {
            return new FerrySessionStore(name, engine, retention, segmentIntervalMs());
        }

        @Override
        public String metricsScope() {
            return scope(engine, "-session");
        }

        @Override
        public long segmentIntervalMs() {
            return segmentInterval(retention);
        }

        @Override
        public long retentionPeriod() {
            return retention;
        }

        @Override
        public String toString() {
            return label + "[" + name + ", " + engine + ", session, retention " + retention + " ms]";
        }
    }

    private static final class VersionedSupplier implements VersionedBytesStoreSupplier {
        private final String name;
        private final Engine engine;
        private final long historyRetention;
        private final long segmentInterval;

        VersionedSupplier(String name, Engine engine, long historyRetention, long segmentInterval) {
            this.name = name;
            this.engine = engine;
            this.historyRetention = historyRetention;
            this.segmentInterval = segmentInterval;
        }

        @Override
        public String name() {
            return name;
        }

        /** @return a new, unopened store, wrapped (as Kafka wraps its own) in Kafka's bytes-store adapter */
        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new VersionedKeyValueToBytesStoreAdapter(new FerryVersionedKeyValueStore(name, engine, historyRetention, segmentInterval));
        }

        @Override
        public String metricsScope() {
            return scope(engine, "");
        }

        @Override
        public long historyRetentionMs() {
            return historyRetention;
        }

        /** @return the segment interval in milliseconds */
        public long segmentIntervalMs() {
            return segmentInterval;
        }

        @Override
        public String toString() {
            return "FerryStores[" + name + ", " + engine + ", versioned, history " + historyRetention + " ms, segment "
                    + segmentInterval + " ms]";
        }
    }

    /** The key-value stores' supplier; {@link FerryHeadersStores} extends it for the headers format (as {@link WindowSupplier}). */
    static class Supplier implements KeyValueBytesStoreSupplier {
        final String name;
        final Engine engine;
        private final boolean timestamped;
        private final String label;

        Supplier(String name, Engine engine, boolean timestamped, String label) {
            this.name = Objects.requireNonNull(name, "name cannot be null");
            this.engine = engine;
            this.timestamped = timestamped;
            this.label = label;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return timestamped ? new FerryTimestampedKeyValueStore(name, engine) : new FerryKeyValueStore(name, engine);
        }

        @Override
        public String metricsScope() {
            return scope(engine, "");
        }

        @Override
        public String toString() {
            return label + "[" + name + ", " + engine + (timestamped ? ", timestamped" : "") + "]";
        }
    }
}
