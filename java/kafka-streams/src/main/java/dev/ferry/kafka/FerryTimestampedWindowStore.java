package dev.ferry.kafka;

import dev.ferry.Engine;
import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link FerryWindowStore} that keeps values in Kafka Streams' timestamped format (an 8-byte
 * timestamp before the value), so {@code Stores.timestampedWindowStoreBuilder} and the DSL's windowed
 * aggregations use it as is, without the adapter that converts each value of a plain store. Start it
 * on an empty state directory: it does not convert values a plain store wrote.
 */
public class FerryTimestampedWindowStore extends FerryWindowStore implements TimestampedBytesStore {
    /**
     * Makes a store; it opens in {@code init}. Use {@link FerryStores} rather than this constructor.
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long records are kept, in milliseconds of stream time
     * @param segmentInterval the width of a time segment in milliseconds
     * @param windowSize the size of the windows, in milliseconds
     * @param retainDuplicates whether every put is kept (joins) instead of overwriting
     */
    public FerryTimestampedWindowStore(String name, Engine engine, long retentionPeriod, long segmentInterval, long windowSize,
                                       boolean retainDuplicates) {
        super(name, engine, retentionPeriod, segmentInterval, windowSize, retainDuplicates);
    }
}
