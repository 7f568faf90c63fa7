package dev.ferry.kafka;

import dev.ferry.Engine;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Puts every DSL store of an application on Ferry at once, without a supplier per operator: set
 * {@code dsl.store.suppliers.class} ({@code StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG}) to this
 * class, and optionally {@link FerryStoreConfig#DSL_ENGINE} to {@code lmdb} (default {@code rocksdb}).
 * Key-value, window and session stores come from {@link FerryStores} in the format the DSL asks for
 * (plain or timestamped); when the application runs without Kafka's record cache
 * ({@code statestore.cache.max.bytes=0}), the window stores of emit-on-window-close aggregations are
 * {@link FerryTimeOrderedWindowStore}s (ordered by time, as Kafka's emit-final processors read them), and
 * their session stores plain {@link FerrySessionStore}s (which answer the time-ordered
 * {@code findSessions(earliestEnd, latestEnd)} those processors call); with the cache on, those two stay
 * Kafka's built-in time-ordered stores (see {@code recordCacheOff}). The header-carrying formats
 * ({@code dsl.store.format=HEADERS}) stay Kafka's built-in RocksDB stores too. Kafka's {@code DslStoreSuppliers}
 * (4.4 too) has no method for versioned stores (the DSL makes one only from a supplier in
 * {@code Materialized.as(...)}): use {@link FerryStores#persistentVersionedKeyValueStore} or
 * {@link FerryStores#lmdbVersionedKeyValueStore} there. Suppression buffers are no business of the
 * suppliers: Kafka builds its in-memory buffer itself.
 *
 * <p>Thread safety: configured once, then read only.
 */
public class FerryDslStoreSuppliers implements DslStoreSuppliers {
    private final DslStoreSuppliers builtIn = new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    private Engine engine = Engine.ROCKSDB;
    /**
     * Whether the application runs without Kafka's record cache ({@code statestore.cache.max.bytes=0}). Only
     * then do emit-on-window-close aggregations get Ferry's stores: with the cache on, Kafka puts its
     * key-ordered {@code CachingWindowStore} over any window store but its own time-ordered one, and the
     * outputs then differ from the built-in store's (EveryDslStoreTest); until that is solved, such
     * aggregations keep Kafka's built-in time-ordered stores, which Kafka caches in time order.
     */
    private boolean recordCacheOff;

    /** Makes the suppliers; Kafka Streams instantiates the class by name and calls {@link #configure}. */
    public FerryDslStoreSuppliers() {
    }

    /**
     * Reads {@link FerryStoreConfig#DSL_ENGINE}.
     *
     * @param configs the application's configuration
     * @throws ConfigException on an engine name other than {@code rocksdb} or {@code lmdb}
     */
    @Override
    public void configure(Map<String, ?> configs) {
        builtIn.configure(configs);
        Object cache = configs.containsKey("statestore.cache.max.bytes") ? configs.get("statestore.cache.max.bytes")
                : configs.get("cache.max.bytes.buffering");
        recordCacheOff = cache != null && cache.toString().trim().equals("0");
        Object e = configs.get(FerryStoreConfig.DSL_ENGINE);
        if (e == null) {
            engine = Engine.ROCKSDB;
            return;
        }
        switch (e.toString().trim().toLowerCase(Locale.ROOT)) {
            case "rocksdb": engine = Engine.ROCKSDB; break;
            case "lmdb": engine = Engine.LMDB; break;
            default: throw new ConfigException(FerryStoreConfig.DSL_ENGINE, e, "expected rocksdb or lmdb");
        }
    }

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format == DslStoreFormat.TIMESTAMPED) {
            return engine == Engine.ROCKSDB ? FerryStores.persistentTimestampedKeyValueStore(params.name())
                    : FerryStores.lmdbTimestampedKeyValueStore(params.name());
        }
        if (format == DslStoreFormat.PLAIN) {
            return engine == Engine.ROCKSDB ? FerryStores.persistentKeyValueStore(params.name()) : FerryStores.lmdbKeyValueStore(params.name());
        }
        return builtIn.keyValueStore(params);
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        if (format != DslStoreFormat.TIMESTAMPED && format != DslStoreFormat.PLAIN) {
            return builtIn.windowStore(params);
        }
        if (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE) {
            if (!recordCacheOff) {
                return builtIn.windowStore(params); // see recordCacheOff
            }
            // what Kafka's emit-final aggregations read their closed windows from: a store ordered by time
            return engine == Engine.ROCKSDB
                    ? FerryStores.persistentTimeOrderedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates())
                    : FerryStores.lmdbTimeOrderedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates());
        }
        boolean timestamped = format == DslStoreFormat.TIMESTAMPED;
        if (engine == Engine.ROCKSDB) {
            return timestamped
                    ? FerryStores.persistentTimestampedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates())
                    : FerryStores.persistentWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates());
        }
        return timestamped
                ? FerryStores.lmdbTimestampedWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates())
                : FerryStores.lmdbWindowStore(params.name(), params.retentionPeriod(), params.windowSize(), params.retainDuplicates());
    }

    /**
     * A Ferry session store; for emit-on-window-close aggregations too, since every Ferry session store
     * answers {@code findSessions(earliestEnd, latestEnd)} in time order, the read their emit path needs.
     */
    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        if (params.storeFormat() == DslStoreFormat.HEADERS
                || (params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE && !recordCacheOff)) {
            return builtIn.sessionStore(params);
        }
        return engine == Engine.ROCKSDB ? FerryStores.persistentSessionStore(params.name(), params.retentionPeriod())
                : FerryStores.lmdbSessionStore(params.name(), params.retentionPeriod());
    }

    @Override
    public String toString() {
        return "FerryDslStoreSuppliers[" + engine + "]";
    }
}
