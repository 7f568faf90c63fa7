package dev.ferry.kafka;

import dev.ferry.Engine;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link FerryKeyValueStore} that keeps values in Kafka Streams' timestamped format (an 8-byte
 * timestamp before the value), so {@code Stores.timestampedKeyValueStoreBuilder} and the DSL use it
 * as is, without the adapter that converts each value of a plain store. Start it on an empty state
 * directory: it does not convert values a plain store wrote (see docs/kafka-streams.md).
 */
public class FerryTimestampedKeyValueStore extends FerryKeyValueStore implements TimestampedBytesStore {
    /**
     * Makes a store; it opens in {@code init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     */
    public FerryTimestampedKeyValueStore(String name, Engine engine) {
        super(name, engine);
    }
}
