package dev.ferry.kafka;

import dev.ferry.Engine;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStore;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Suppliers of Ferry state stores in Kafka Streams' header-carrying formats (KIP-1271/1285,
 * {@code dsl.store.format=HEADERS} on Kafka 4.4): the counterparts of Kafka's
 * {@code RocksDBKeyValueHeadersBytesStoreSupplier}, {@code RocksDbWindowHeadersBytesStoreSupplier},
 * {@code RocksDbIndexedTimeOrderedWindowBytesStoreWithHeadersSupplier} and
 * {@code RocksDbSessionHeadersBytesStoreSupplier}. {@link FerryDslStoreSuppliers} hands them out when the DSL
 * asks for the headers format; for the Processor API use them with Kafka's
 * {@code Stores.timestampedKeyValueStoreWithHeadersBuilder}, {@code Stores.timestampedWindowStoreWithHeadersBuilder}
 * or {@code Stores.sessionStoreWithHeadersBuilder}.
 *
 * <p>The suppliers are {@link HeadersBytesStoreSupplier}s and their stores {@link HeadersBytesStore}s, so
 * Kafka uses the stores as they are (no format adapter over them) and converts restored changelog records to
 * the headers format before the store sees them. The stores keep each value as Kafka's headers layer hands it
 * over (headers, timestamp and value in Kafka's layout) and are otherwise the stores of {@link FerryStores}.
 * Start them on an empty state directory: they do not convert values another format wrote, and a key-value
 * store does not import a built-in store ({@code ferry.import.builtin} skips them).
 *
 * <p>Each supplier's {@code get()} returns a new, unopened store for one partition.
 */
public final class FerryHeadersStores {
    /** How this class's suppliers name themselves in {@code toString}. */
    private static final String LABEL = "FerryHeadersStores";

    private FerryHeadersStores() {
    }

    /**
     * A persistent key-value store in the headers format (Kafka's {@code TimestampedKeyValueStoreWithHeaders}).
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @return the supplier
     */
    public static KeyValueBytesStoreSupplier timestampedKeyValueStoreWithHeaders(String name, Engine engine) {
        return new KeyValueSupplier(name, Objects.requireNonNull(engine, "engine cannot be null"));
    }

    /**
     * A persistent window store in the headers format (Kafka's {@code TimestampedWindowStoreWithHeaders}).
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long windows are kept; at least the window size
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept (stream-stream joins) instead of overwriting
     * @return the supplier
     */
    public static WindowBytesStoreSupplier timestampedWindowStoreWithHeaders(String name, Engine engine, Duration retentionPeriod,
                                                                             Duration windowSize, boolean retainDuplicates) {
        return window(name, engine, retentionPeriod, windowSize, retainDuplicates, false);
    }

    /**
     * A persistent window store ordered by time in the headers format, what emit-on-window-close windowed
     * aggregations read (see {@link FerryTimeOrderedWindowStore}).
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long windows are kept; at least the window size
     * @param windowSize the size of the windows
     * @param retainDuplicates whether every put is kept instead of overwriting
     * @return the supplier
     */
    public static WindowBytesStoreSupplier timeOrderedWindowStoreWithHeaders(String name, Engine engine, Duration retentionPeriod,
                                                                             Duration windowSize, boolean retainDuplicates) {
        return window(name, engine, retentionPeriod, windowSize, retainDuplicates, true);
    }

    /**
     * A persistent session store in the headers format (Kafka's {@code SessionStoreWithHeaders}).
     *
     * @param name the store's name
     * @param engine the engine it runs on
     * @param retentionPeriod how long sessions are kept
     * @return the supplier
     */
    public static SessionBytesStoreSupplier sessionStoreWithHeaders(String name, Engine engine, Duration retentionPeriod) {
        Objects.requireNonNull(engine, "engine cannot be null");
        return new SessionSupplier(name, engine, FerryStores.checkedRetention(retentionPeriod));
    }

    private static WindowBytesStoreSupplier window(String name, Engine engine, Duration retentionPeriod, Duration windowSize,
                                                   boolean retainDuplicates, boolean timeOrdered) {
        Objects.requireNonNull(engine, "engine cannot be null");
        // FerryStores checks the arguments and picks the segment interval as for the other formats
        FerryStores.WindowSupplier checked = FerryStores.checkedWindow(name, engine, retentionPeriod, windowSize, retainDuplicates);
        return new WindowSupplier(checked, timeOrdered ? FerryStores.WindowLayout.TIME_ORDERED : FerryStores.WindowLayout.TIMESTAMPED);
    }

    /** A {@link FerryKeyValueStore} holding values in the headers format. */
    static final class HeadersKeyValueStore extends FerryKeyValueStore implements HeadersBytesStore {
        HeadersKeyValueStore(String name, Engine engine) {
            super(name, engine);
        }
    }

    /** A {@link FerryWindowStore} holding values in the headers format. */
    static final class HeadersWindowStore extends FerryWindowStore implements TimestampedBytesStore, HeadersBytesStore {
        HeadersWindowStore(String name, Engine engine, long retention, long segmentInterval, long windowSize, boolean retainDuplicates) {
            super(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
        }
    }

    /** A {@link FerryTimeOrderedWindowStore} holding values in the headers format. */
    static final class HeadersTimeOrderedWindowStore extends FerryTimeOrderedWindowStore implements HeadersBytesStore {
        HeadersTimeOrderedWindowStore(String name, Engine engine, long retention, long segmentInterval, long windowSize,
                                      boolean retainDuplicates) {
            super(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
        }
    }

    /** A {@link FerrySessionStore} holding values in the headers format. */
    static final class HeadersSessionStore extends FerrySessionStore implements HeadersBytesStore {
        HeadersSessionStore(String name, Engine engine, long retention, long segmentInterval) {
            super(name, engine, retention, segmentInterval);
        }
    }

    /** {@link FerryStores}' key-value supplier, marked as the headers format and making {@link HeadersKeyValueStore}s. */
    private static final class KeyValueSupplier extends FerryStores.Supplier implements HeadersBytesStoreSupplier {
        KeyValueSupplier(String name, Engine engine) {
            super(name, engine, true, LABEL);
        }

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new HeadersKeyValueStore(name, engine);
        }
    }

    /** {@link FerryStores}' window supplier, marked as the headers format and making its headers stores. */
    private static final class WindowSupplier extends FerryStores.WindowSupplier implements HeadersBytesStoreSupplier {
        WindowSupplier(FerryStores.WindowSupplier checked, FerryStores.WindowLayout layout) {
            super(checked.name, checked.engine, checked.retention, checked.segmentInterval, checked.windowSize, checked.retainDuplicates,
                    layout, LABEL);
        }

        @Override
        public WindowStore<Bytes, byte[]> get() {
            return layout == FerryStores.WindowLayout.TIME_ORDERED
                    ? new HeadersTimeOrderedWindowStore(name, engine, retention, segmentInterval, windowSize, retainDuplicates)
                    : new HeadersWindowStore(name, engine, retention, segmentInterval, windowSize, retainDuplicates);
        }
    }

    /** {@link FerryStores}' session supplier, marked as the headers format and making {@link HeadersSessionStore}s. */
    private static final class SessionSupplier extends FerryStores.SessionSupplier implements HeadersBytesStoreSupplier {
        SessionSupplier(String name, Engine engine, long retention) {
            super(name, engine, retention, LABEL);
        }

        @Override
        public SessionStore<Bytes, byte[]> get() {
            return new HeadersSessionStore(name, engine, retention, segmentIntervalMs());
        }
    }
}
