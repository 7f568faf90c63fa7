package org.apache.kafka.streams.state.internals;

import dev.ferry.Engine;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.state.SessionStore;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@link AbstractSessionBytesStoreTest} on a Ferry session store, plugged in where
 * {@code RocksDBSessionStoreTest} plugs in {@code Stores.persistentSessionStore}: same name, same
 * builder, and the RocksDB session store's expectations ({@link StoreType#RocksDBSessionStore}).
 *
 * <p>Kafka's tests run unchanged, except the ones overridden below: two run after one added line
 * (marked), one with the time-ordered store's expectations, one is excluded with its reason (docs/kafka-streams.md, "Kafka's own store test
 * suites").
 */
abstract class FerrySessionStoreSuite extends AbstractSessionBytesStoreTest {
    private final Engine engine;

    FerrySessionStoreSuite(Engine engine) {
        this.engine = engine;
    }

    @Override
    @Test
    @Disabled("reads (expecting empty) and restores a session store after close(), then reads the restored data: "
            + "the built-in segmented store reopens segments on the restore; a closed Ferry store stays closed and "
            + "throws InvalidStateStoreException, as Kafka's StateStore contract and its key-value stores do")
    public void shouldRestore() {
    }

    /**
     * Kafka's test, after closing the fixture's store (the one added line): the test opens a second
     * store of the same name in the same state directory while the fixture's is open. The built-in
     * segmented store opens nothing before its first put; Ferry opens its one store at {@code init}
     * and refuses a second open of an open store.
     */
    @Override
    @Test
    public void shouldFetchAndIterateOverExactBinaryKeys() {
        sessionStore.close(); // added for Ferry
        super.shouldFetchAndIterateOverExactBinaryKeys();
    }

    /** Kafka's test, after closing the fixture's store (the one added line), as {@link #shouldFetchAndIterateOverExactBinaryKeys}. */
    @Override
    @Test
    public void shouldBackwardFetchAndIterateOverExactBinaryKeys() {
        sessionStore.close(); // added for Ferry
        super.shouldBackwardFetchAndIterateOverExactBinaryKeys();
    }

    /** While true, {@link #storeType} answers as Kafka's time-ordered session store (see {@link #shouldFindSessionsForTimeRange}). */
    private boolean timeOrderedExpectations;

    /**
     * Kafka's test with the time-ordered session store's expectations: Ferry's session store answers
     * {@code findSessions(earliestSessionEndTime, latestSessionEndTime)} (what Kafka's emit-on-window-close
     * session aggregation reads), which Kafka's plain RocksDB session store refuses with
     * UnsupportedOperationException; so Kafka's body here checks the sessions it returns, as it does for
     * {@code RocksDBTimeOrderedSessionStoreWithIndex}. The fixture was built before, as the plain store's.
     */
    @Override
    @Test
    public void shouldFindSessionsForTimeRange() {
        timeOrderedExpectations = true;
        try {
            super.shouldFindSessionsForTimeRange();
        } finally {
            timeOrderedExpectations = false;
        }
    }

    @Override
    StoreType storeType() {
        return timeOrderedExpectations ? StoreType.RocksDBTimeOrderedSessionStoreWithIndex : StoreType.RocksDBSessionStore;
    }

    @Override
    <K, V> SessionStore<K, V> buildSessionStore(long retentionPeriod, Serde<K> keySerde, Serde<V> valueSerde) {
        return FerrySuiteStores.sessionStore(engine, "rocksDB session store", retentionPeriod, keySerde, valueSerde);
    }
}
