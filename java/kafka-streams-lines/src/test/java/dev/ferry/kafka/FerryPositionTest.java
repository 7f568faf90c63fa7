package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.Engine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.internals.MockStreamsMetrics;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.ThreadCache;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRecordCollector;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The query {@link Position} (IQv2's position bounds) survives a restart, as the built-in stores
 * keep theirs: written beside the changelog offsets at each commit (and at close), read back at
 * init. Every store kind, both engines.
 */
class FerryPositionTest {
    @TempDir
    Path tmp;

    /** A store kind: how to make one, and one write of a record. */
    private record Kind(String name, Supplier<StateStore> make, Consumer<StateStore> write) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> kinds() {
        return Stream.of(Engine.ROCKSDB, Engine.LMDB).flatMap(engine -> Stream.of(
                Arguments.of(engine, new Kind("key-value", () -> (StateStore) (engine == Engine.ROCKSDB
                        ? FerryStores.persistentKeyValueStore("kv") : FerryStores.lmdbKeyValueStore("kv")).get(),
                        s -> kv(s).put(Bytes.wrap(bytes("k")), bytes("v")))),
                Arguments.of(engine, new Kind("window", () -> (StateStore) (engine == Engine.ROCKSDB
                        ? FerryStores.persistentWindowStore("w", Duration.ofMinutes(5), Duration.ofSeconds(1), false)
                        : FerryStores.lmdbWindowStore("w", Duration.ofMinutes(5), Duration.ofSeconds(1), false)).get(),
                        s -> window(s).put(Bytes.wrap(bytes("k")), bytes("v"), 1_000L))),
                Arguments.of(engine, new Kind("session", () -> (StateStore) (engine == Engine.ROCKSDB
                        ? FerryStores.persistentSessionStore("s", Duration.ofMinutes(5))
                        : FerryStores.lmdbSessionStore("s", Duration.ofMinutes(5))).get(),
                        s -> session(s).put(new Windowed<>(Bytes.wrap(bytes("k")), new SessionWindow(1_000L, 2_000L)), bytes("v"))))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kinds")
    void positionSurvivesCommitAndRestart(Engine engine, Kind kind) {
        InternalMockProcessorContext<?, ?> ctx = context();
        StateStore store = kind.make().get();
        store.init(ctx, store);
        ctx.setRecordContext(new ProcessorRecordContext(0L, 7L, 0, "input", new RecordHeaders()));
        kind.write().accept(store);
        ctx.setRecordContext(new ProcessorRecordContext(0L, 3L, 1, "input", new RecordHeaders()));
        kind.write().accept(store);
        ctx.setRecordContext(new ProcessorRecordContext(0L, 9L, 0, "input", new RecordHeaders()));
        kind.write().accept(store);
        Position expected = Position.emptyPosition().withComponent("input", 0, 9L).withComponent("input", 1, 3L);
        assertEquals(expected, store.getPosition());
        store.commit(Map.of());
        store.close();

        StateStore reopened = kind.make().get();
        reopened.init(context(), reopened);
        try {
            assertEquals(expected, reopened.getPosition());
        } finally {
            reopened.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kinds")
    void positionWrittenAfterLastCommitSurvivesClose(Engine engine, Kind kind) {
        InternalMockProcessorContext<?, ?> ctx = context();
        StateStore store = kind.make().get();
        store.init(ctx, store);
        ctx.setRecordContext(new ProcessorRecordContext(0L, 4L, 0, "input", new RecordHeaders()));
        kind.write().accept(store);
        store.commit(Map.of());
        ctx.setRecordContext(new ProcessorRecordContext(0L, 5L, 0, "input", new RecordHeaders()));
        kind.write().accept(store);
        store.close();

        StateStore reopened = kind.make().get();
        reopened.init(context(), reopened);
        try {
            assertEquals(Position.emptyPosition().withComponent("input", 0, 5L), reopened.getPosition());
        } finally {
            reopened.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("kinds")
    void newStoreStartsAtEmptyPosition(Engine engine, Kind kind) {
        StateStore store = kind.make().get();
        store.init(context(), store);
        try {
            assertEquals(Position.emptyPosition(), store.getPosition());
        } finally {
            store.close();
        }
    }

    private InternalMockProcessorContext<?, ?> context() {
        return new InternalMockProcessorContext<>(tmp.toFile(), Serdes.ByteArray(), Serdes.ByteArray(), new MockRecordCollector(),
                new ThreadCache(new LogContext("position-test "), 0, new MockStreamsMetrics(new Metrics())));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private static KeyValueStore<Bytes, byte[]> kv(StateStore s) {
        return (KeyValueStore<Bytes, byte[]>) s;
    }

    @SuppressWarnings("unchecked")
    private static WindowStore<Bytes, byte[]> window(StateStore s) {
        return (WindowStore<Bytes, byte[]>) s;
    }

    @SuppressWarnings("unchecked")
    private static SessionStore<Bytes, byte[]> session(StateStore s) {
        return (SessionStore<Bytes, byte[]>) s;
    }
}
