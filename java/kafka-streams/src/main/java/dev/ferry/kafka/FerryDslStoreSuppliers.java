package dev.ferry.kafka;

import dev.ferry.Engine;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Puts every DSL store of an application on Ferry's RocksDB stores at once, without a supplier per operator:
 * set {@code dsl.store.suppliers.class} ({@code StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG}) to this
 * class; {@link FerryLmdbDslStoreSuppliers} does the same with LMDB stores. The engine comes from the class,
 * not from the configuration: Kafka 4.4 calls {@link #configure} only when the {@code StreamsBuilder} has no
 * {@code TopologyConfig} ({@code TopologyConfig} instantiates the class and never configures it), so a
 * setting could not reach the suppliers on that path. {@link FerryStoreConfig#DSL_ENGINE}, if set, must name
 * the class's engine; {@link #configure} refuses any other.
 *
 * <p>Key-value, window and session stores come from {@link FerryStores} in the format the DSL asks for
 * (plain or timestamped). Session stores of emit-on-window-close aggregations are plain
 * {@link FerrySessionStore}s too (they answer the time-ordered {@code findSessions(earliestEnd, latestEnd)}
 * those processors call; Kafka never caches those stores). The window stores of emit-on-window-close
 * aggregations are {@link FerryTimeOrderedWindowStore}s (ordered by time, as Kafka's emit-final processors
 * read them), with Kafka's record cache on or off: under the cache, Kafka puts its key-ordered
 * {@code CachingWindowStore} over them (its time-ordered cache accepts only its own RocksDB store), and
 * the store then answers in that cache's order (see {@link FerryTimeOrderedWindowStore}). The header-carrying
 * formats ({@code dsl.store.format=HEADERS}, Kafka 4.4) get the stores of {@link FerryHeadersStores}. Kafka's
 * {@code DslStoreSuppliers} (4.4 too) has no method for versioned stores (the DSL makes one only from a
 * supplier in {@code Materialized.as(...)}): use {@link FerryStores#persistentVersionedKeyValueStore} or
 * {@link FerryStores#lmdbVersionedKeyValueStore} there. Suppression buffers are no business of the
 * suppliers: Kafka builds its in-memory buffer itself.
 *
 * <p>Thread safety: configured once, then read only.
 */
public class FerryDslStoreSuppliers implements DslStoreSuppliers {
    private final DslStoreSuppliers builtIn = new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    private final Engine engine;

    /** Makes the RocksDB suppliers; Kafka Streams instantiates the class by name. */
    public FerryDslStoreSuppliers() {
        this(Engine.ROCKSDB);
    }

    FerryDslStoreSuppliers(Engine engine) {
        this.engine = engine;
    }

    /**
     * The engine of the stores these suppliers make.
     *
     * @return {@link Engine#ROCKSDB} for this class, {@link Engine#LMDB} for {@link FerryLmdbDslStoreSuppliers}
     */
    public Engine engine() {
        return engine;
    }

    /**
     * Checks {@link FerryStoreConfig#DSL_ENGINE} against the class's engine.
     * Kafka 4.4 calls this only when the {@code StreamsBuilder} has no {@code TopologyConfig}.
     *
     * @param configs the application's configuration
     * @throws ConfigException when {@link FerryStoreConfig#DSL_ENGINE} is set to anything but this class's engine
     */
    @Override
    public void configure(Map<String, ?> configs) {
        builtIn.configure(configs);
        Object e = configs.get(FerryStoreConfig.DSL_ENGINE);
        if (e == null) {
            return;
        }
        Engine asked;
        switch (e.toString().trim().toLowerCase(Locale.ROOT)) {
            case "rocksdb": asked = Engine.ROCKSDB; break;
            case "lmdb": asked = Engine.LMDB; break;
            default: throw new ConfigException(FerryStoreConfig.DSL_ENGINE, e, "expected rocksdb or lmdb");
        }
        if (asked != engine) {
            throw new ConfigException(FerryStoreConfig.DSL_ENGINE, e, "dsl.store.suppliers.class is " + getClass().getName()
                    + ", which makes " + engine + " stores; for " + asked + " stores set dsl.store.suppliers.class to "
                    + (asked == Engine.LMDB ? FerryLmdbDslStoreSuppliers.class : FerryDslStoreSuppliers.class).getName()
                    + " (the engine comes from the class: Kafka does not configure the suppliers of a StreamsBuilder made with a TopologyConfig)");
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
        if (format == DslStoreFormat.HEADERS) {
            return FerryHeadersStores.timestampedKeyValueStoreWithHeaders(params.name(), engine);
        }
        return builtIn.keyValueStore(params); // a format this class does not know (a later Kafka's)
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        DslStoreFormat format = params.dslStoreFormat();
        boolean emitFinal = params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE;
        if (format == DslStoreFormat.HEADERS) {
            return emitFinal
                    ? FerryHeadersStores.timeOrderedWindowStoreWithHeaders(params.name(), engine, params.retentionPeriod(), params.windowSize(),
                            params.retainDuplicates())
                    : FerryHeadersStores.timestampedWindowStoreWithHeaders(params.name(), engine, params.retentionPeriod(), params.windowSize(),
                            params.retainDuplicates());
        }
        if (format != DslStoreFormat.TIMESTAMPED && format != DslStoreFormat.PLAIN) {
            return builtIn.windowStore(params); // a format this class does not know (a later Kafka's)
        }
        if (emitFinal) {
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
     * answers {@code findSessions(earliestEnd, latestEnd)} in time order, the read their emit path needs,
     * and Kafka's {@code SessionStoreMaterializer} never puts its cache over those stores (whatever
     * {@code statestore.cache.max.bytes} says).
     */
    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        if (params.storeFormat() == DslStoreFormat.HEADERS) {
            return FerryHeadersStores.sessionStoreWithHeaders(params.name(), engine, params.retentionPeriod());
        }
        SessionBytesStoreSupplier s = engine == Engine.ROCKSDB ? FerryStores.persistentSessionStore(params.name(), params.retentionPeriod())
                : FerryStores.lmdbSessionStore(params.name(), params.retentionPeriod());
        return params.emitStrategy().type() == EmitStrategy.StrategyType.ON_WINDOW_CLOSE
                ? new EmitFinalSessionSupplier((FerryStores.SessionSupplier) s) : s;
    }

    /**
     * The supplier of an emit-on-window-close session aggregation's store: a Ferry session store that does not
     * import a built-in store when switching, since Kafka keeps that aggregation in its time-ordered session
     * store, whose segments hold another layout (docs/kafka-streams.md, "Switching from the built-in store").
     */
    private static final class EmitFinalSessionSupplier extends FerryStores.SessionSupplier {
        EmitFinalSessionSupplier(FerryStores.SessionSupplier s) {
            super(s.name, s.engine, s.retention, "FerryStores");
        }

        @Override
        public SessionStore<Bytes, byte[]> get() {
            return ((FerrySessionStore) super.get()).withoutImport();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + engine + "]";
    }
}
