package dev.ferry.kafka;

import dev.ferry.Engine;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Suppliers of Ferry state stores for Kafka Streams, the counterparts of
 * {@code Stores.persistentKeyValueStore(name)}:
 *
 * <pre>{@code
 * // Processor API
 * builder.addStateStore(Stores.keyValueStoreBuilder(FerryStores.persistentKeyValueStore("counts"),
 *         Serdes.String(), Serdes.Long()));
 * // DSL
 * stream.groupByKey().count(Materialized.as(FerryStores.persistentTimestampedKeyValueStore("counts")));
 * }</pre>
 *
 * <p>Each supplier's {@code get()} returns a new, unopened store for one partition; the store
 * reads its options from the application's configuration ({@link FerryStoreConfig}).
 */
public final class FerryStores {
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
        return new Supplier(name, Engine.ROCKSDB, false);
    }

    /**
     * A persistent key-value store on Ferry-RocksDB that keeps values with their timestamps, for
     * {@code Stores.timestampedKeyValueStoreBuilder} and the DSL.
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return new Supplier(name, Engine.ROCKSDB, true);
    }

    /**
     * A persistent key-value store on Ferry-LMDB (needs {@code org.lmdbjava:native}).
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier lmdbKeyValueStore(String name) {
        return new Supplier(name, Engine.LMDB, false);
    }

    /**
     * A persistent key-value store on Ferry-LMDB that keeps values with their timestamps.
     *
     * @param name the store's name
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier lmdbTimestampedKeyValueStore(String name) {
        return new Supplier(name, Engine.LMDB, true);
    }

    private static final class Supplier implements KeyValueBytesStoreSupplier {
        private final String name;
        private final Engine engine;
        private final boolean timestamped;

        Supplier(String name, Engine engine, boolean timestamped) {
            this.name = Objects.requireNonNull(name, "name cannot be null");
            this.engine = engine;
            this.timestamped = timestamped;
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
            return engine == Engine.ROCKSDB ? "ferry-rocksdb" : "ferry-lmdb";
        }

        @Override
        public String toString() {
            return "FerryStores[" + name + ", " + engine + (timestamped ? ", timestamped" : "") + "]";
        }
    }
}
