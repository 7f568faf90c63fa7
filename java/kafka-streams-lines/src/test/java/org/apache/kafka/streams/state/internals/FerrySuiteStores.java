package org.apache.kafka.streams.state.internals;

import dev.ferry.Engine;
import dev.ferry.kafka.FerryStores;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Ferry's suppliers, where Kafka's own subclasses of its store suites plug in theirs
 * ({@code Stores.persistentKeyValueStore}, {@code Stores.persistentWindowStore},
 * {@code Stores.persistentSessionStore}), on one engine; the same builders wrap them (metered,
 * logged, cached) as in Kafka's subclasses.
 */
final class FerrySuiteStores {
    /** How a key-value store is wrapped and which Ferry store sits underneath. */
    enum KeyValueKind {
        /** {@code RocksDBStoreTest}: metered over the store. */
        PLAIN,
        /** {@code CachingInMemoryKeyValueStoreTest}'s builder (a persistent store with caching). */
        CACHING,
        /** {@code InMemoryKeyValueLoggedStoreTest}'s builder: with a changelog. */
        LOGGED,
        /** The timestamped store ({@code RocksDBTimestampedStoreTest}) under the same builder. */
        TIMESTAMPED
    }

    private FerrySuiteStores() {
    }

    static KeyValueBytesStoreSupplier keyValueSupplier(Engine engine, String name, boolean timestamped) {
        if (engine == Engine.ROCKSDB) {
            return timestamped ? FerryStores.persistentTimestampedKeyValueStore(name) : FerryStores.persistentKeyValueStore(name);
        }
        return timestamped ? FerryStores.lmdbTimestampedKeyValueStore(name) : FerryStores.lmdbKeyValueStore(name);
    }

    static <K, V> KeyValueStore<K, V> keyValueStore(Engine engine, KeyValueKind kind, String name, Serde<K> keySerde,
                                                    Serde<V> valueSerde) {
        StoreBuilder<KeyValueStore<K, V>> builder =
                Stores.keyValueStoreBuilder(keyValueSupplier(engine, name, kind == KeyValueKind.TIMESTAMPED), keySerde, valueSerde);
        if (kind == KeyValueKind.CACHING) {
            builder = builder.withCachingEnabled();
        } else if (kind == KeyValueKind.LOGGED) {
            builder = builder.withLoggingEnabled(java.util.Collections.singletonMap("retention.ms", "1000"));
        }
        return builder.build();
    }

    static <K, V> WindowStore<K, V> windowStore(Engine engine, boolean timestamped, String name, long retentionPeriod, long windowSize,
                                                boolean retainDuplicates, Serde<K> keySerde, Serde<V> valueSerde) {
        Duration retention = Duration.ofMillis(retentionPeriod);
        Duration size = Duration.ofMillis(windowSize);
        WindowBytesStoreSupplier supplier;
        if (engine == Engine.ROCKSDB) {
            supplier = timestamped ? FerryStores.persistentTimestampedWindowStore(name, retention, size, retainDuplicates)
                    : FerryStores.persistentWindowStore(name, retention, size, retainDuplicates);
        } else {
            supplier = timestamped ? FerryStores.lmdbTimestampedWindowStore(name, retention, size, retainDuplicates)
                    : FerryStores.lmdbWindowStore(name, retention, size, retainDuplicates);
        }
        return Stores.windowStoreBuilder(supplier, keySerde, valueSerde).build();
    }

    static <K, V> SessionStore<K, V> sessionStore(Engine engine, String name, long retentionPeriod, Serde<K> keySerde,
                                                  Serde<V> valueSerde) {
        Duration retention = Duration.ofMillis(retentionPeriod);
        return Stores.sessionStoreBuilder(engine == Engine.ROCKSDB ? FerryStores.persistentSessionStore(name, retention)
                : FerryStores.lmdbSessionStore(name, retention), keySerde, valueSerde).build();
    }
}
