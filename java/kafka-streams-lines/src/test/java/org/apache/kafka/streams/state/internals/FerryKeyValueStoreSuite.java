package org.apache.kafka.streams.state.internals;

import dev.ferry.Engine;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Kafka's {@link AbstractKeyValueStoreTest}, unchanged, on a Ferry key-value store: the store is
 * built as Kafka's own subclasses build theirs (same names, same builder), with Ferry's supplier.
 */
abstract class FerryKeyValueStoreSuite extends AbstractKeyValueStoreTest {
    private final Engine engine;
    private final FerrySuiteStores.KeyValueKind kind;

    FerryKeyValueStoreSuite(Engine engine, FerrySuiteStores.KeyValueKind kind) {
        this.engine = engine;
        this.kind = kind;
    }

    @SuppressWarnings("unchecked")
    @Override
    protected <K, V> KeyValueStore<K, V> createKeyValueStore(StateStoreContext context) {
        String name = kind == FerrySuiteStores.KeyValueKind.CACHING ? "cache-store" : "my-store";
        KeyValueStore<K, V> store = FerrySuiteStores.keyValueStore(engine, kind, name, (Serde<K>) context.keySerde(),
                (Serde<V>) context.valueSerde());
        store.init(context, store);
        return store;
    }
}
