package org.apache.kafka.streams.state.internals;

import dev.ferry.Engine;
import org.junit.jupiter.api.Nested;

/**
 * Kafka 4.3.0's own store test suites, from its published test jar, on Ferry-Lmdb's stores: one
 * nested class per suite and store kind (docs/kafka-streams.md, "Kafka's own store test suites").
 * The binding is the one Ferry picks (FFM on JDK 22+, JNI on JDK 17, {@code -Dferry.binding} overrides).
 */
class FerryLmdbStoreSuitesTest {
    @Nested
    class KeyValue extends FerryKeyValueStoreSuite {
        KeyValue() {
            super(Engine.LMDB, FerrySuiteStores.KeyValueKind.PLAIN);
        }
    }

    @Nested
    class CachingKeyValue extends FerryKeyValueStoreSuite {
        CachingKeyValue() {
            super(Engine.LMDB, FerrySuiteStores.KeyValueKind.CACHING);
        }
    }

    @Nested
    class LoggedKeyValue extends FerryKeyValueStoreSuite {
        LoggedKeyValue() {
            super(Engine.LMDB, FerrySuiteStores.KeyValueKind.LOGGED);
        }
    }

    @Nested
    class TimestampedKeyValue extends FerryKeyValueStoreSuite {
        TimestampedKeyValue() {
            super(Engine.LMDB, FerrySuiteStores.KeyValueKind.TIMESTAMPED);
        }
    }

    @Nested
    class Window extends FerryWindowStoreSuite {
        Window() {
            super(Engine.LMDB, false);
        }
    }

    @Nested
    class TimestampedWindow extends FerryWindowStoreSuite {
        TimestampedWindow() {
            super(Engine.LMDB, true);
        }
    }

    @Nested
    class Session extends FerrySessionStoreSuite {
        Session() {
            super(Engine.LMDB);
        }
    }
}
