package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The import of Kafka's built-in segmented window and session stores (one RocksDB per time segment in
 * {@code <task>/<name>/<name>.<start>}) into Ferry's window and session stores that open without one of their
 * own (SegmentedImport), outside a topology: entries over several segments, the committed offset, both
 * engines; and the cases that must restore instead (another segment interval, an emit-final
 * session store).
 */
class SegmentedImportTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-w-changelog", 0);
    private static final Duration RETENTION = Duration.ofMinutes(10);
    private static final Duration SIZE = Duration.ofMinutes(1);
    /** The segment interval both sides take for that retention: max(retention / 2, 60 s). */
    private static final long INTERVAL = 300_000;
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    /** The entries of a window or session store, each as hex key (window key schema or session key) and hex value, in its order. */
    @SuppressWarnings("unchecked")
    private static List<String> content(StateStore s) {
        List<String> out = new ArrayList<>();
        HexFormat hex = HexFormat.of();
        if (s instanceof WindowStore) {
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ((WindowStore<Bytes, byte[]>) s).all()) {
                it.forEachRemaining(kv -> out.add(kv.key.key() + "@" + kv.key.window().start() + "=" + hex.formatHex(kv.value)));
            }
        } else {
            try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ((SessionStore<Bytes, byte[]>) s).findSessions(null, null, 0, Long.MAX_VALUE)) {
                it.forEachRemaining(kv -> out.add(kv.key.key() + "@" + kv.key.window().start() + "-" + kv.key.window().end()
                        + "=" + hex.formatHex(kv.value)));
            }
        }
        return out;
    }

    /**
     * Fills a built-in store of a kind in {@code taskDir} with entries spread over three segments, commits an
     * offset at a third of them and another at the end (Kafka writes each commit into every open segment), closes
     * it; returns its content as a restart finds it.
     */
    @SuppressWarnings("unchecked")
    private static List<String> builtIn(Path taskDir, String kind) {
        StateStore s = openBuiltIn(taskDir, kind);
        Random r = new Random(3);
        try {
            for (int i = 0; i < 3_000; i++) {
                byte[] k = new byte[1 + r.nextInt(12)];
                r.nextBytes(k);
                byte[] v = new byte[8 + r.nextInt(40)];
                r.nextBytes(v);
                long t = T0 + i * 200L; // 600 s: three segments of 300 s
                if (s instanceof WindowStore) {
                    ((WindowStore<Bytes, byte[]>) s).put(Bytes.wrap(k), v, t - t % SIZE.toMillis());
                } else {
                    ((SessionStore<Bytes, byte[]>) s).put(new Windowed<>(Bytes.wrap(k), new SessionWindow(t - r.nextInt(5_000), t)), v);
                }
                if (i == 1_000) {
                    s.commit(Map.of(CHANGELOG, 100L));
                }
            }
            s.commit(Map.of(CHANGELOG, 3_000L));
        } finally {
            s.close();
        }
        // what it holds after a restart (its stream time, which hides expired windows, lives in memory only)
        StateStore again = openBuiltIn(taskDir, kind);
        try {
            return content(again);
        } finally {
            again.close();
        }
    }

    private static StateStore openBuiltIn(Path taskDir, String kind) {
        StateStore s = switch (kind) {
            case "window" -> Stores.persistentWindowStore("w", RETENTION, SIZE, false).get();
            case "timestamped" -> Stores.persistentTimestampedWindowStore("w", RETENTION, SIZE, false).get();
            default -> Stores.persistentSessionStore("w", RETENTION).get();
        };
        s.init(internal(new TestContext(taskDir.toFile())), s);
        return s;
    }

    /**
     * The context as an {@code InternalProcessorContext}, which Kafka's segmented stores require: the
     * {@link TestContext}'s methods, the current wall-clock time, and empty answers for the rest (which these
     * stores do not call outside a task).
     */
    static StateStoreContext internal(TestContext base) {
        return (StateStoreContext) Proxy.newProxyInstance(SegmentedImportTest.class.getClassLoader(),
                new Class<?>[] {InternalProcessorContext.class}, (proxy, m, args) -> {
                    Method own;
                    try {
                        own = TestContext.class.getMethod(m.getName(), m.getParameterTypes());
                    } catch (NoSuchMethodException e) {
                        own = null;
                    }
                    if (own != null) { // TestContext's, or a StateStoreContext default over them
                        try {
                            return own.invoke(base, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    }
                    Class<?> t = m.getReturnType();
                    if (m.getName().equals("currentSystemTimeMs")) {
                        return System.currentTimeMillis();
                    } else if (t == long.class) {
                        return 0L;
                    } else if (t == int.class) {
                        return 0;
                    } else if (t == boolean.class) {
                        return false;
                    } else if (t == Optional.class) {
                        return Optional.empty();
                    }
                    return null;
                });
    }

    private static StateStore ferry(Engine engine, String kind, Path taskDir) {
        boolean lmdb = engine == Engine.LMDB;
        StateStore s = switch (kind) {
            case "window" -> (lmdb ? FerryStores.lmdbWindowStore("w", RETENTION, SIZE, false)
                    : FerryStores.persistentWindowStore("w", RETENTION, SIZE, false)).get();
            case "timestamped" -> (lmdb ? FerryStores.lmdbTimestampedWindowStore("w", RETENTION, SIZE, false)
                    : FerryStores.persistentTimestampedWindowStore("w", RETENTION, SIZE, false)).get();
            default -> (lmdb ? FerryStores.lmdbSessionStore("w", RETENTION) : FerryStores.persistentSessionStore("w", RETENTION)).get();
        };
        s.init(new TestContext(taskDir.toFile()), s);
        return s;
    }

    /** Equal lists, reported by their sizes and first difference (the lists are long). */
    private static void assertSameEntries(List<String> expected, List<String> actual) {
        int i = 0;
        while (i < expected.size() && i < actual.size() && expected.get(i).equals(actual.get(i))) {
            i++;
        }
        if (i < expected.size() || i < actual.size()) {
            throw new AssertionError("every entry, in the built-in store's order: " + expected.size() + " expected, " + actual.size()
                    + " read; the first difference at " + i + ": " + (i < expected.size() ? expected.get(i) : "none") + " / "
                    + (i < actual.size() ? actual.get(i) : "none"));
        }
    }

    private static long segments(Path builtIn) throws java.io.IOException {
        try (Stream<Path> l = Files.list(builtIn)) {
            return l.count();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"ROCKSDB,window", "ROCKSDB,timestamped", "ROCKSDB,session", "LMDB,window", "LMDB,timestamped", "LMDB,session"})
    void importsEverySegmentsEntriesAndTheCommittedOffset(Engine engine, String kind) throws Exception {
        List<String> expected = builtIn(tmp, kind);
        assertTrue(segments(tmp.resolve("w")) >= 2, "the built-in store holds several segments");
        assertTrue(expected.size() > 2_000, "the built-in store holds the entries (a few keys repeat in a window)");
        StateStore s = ferry(engine, kind, tmp);
        try {
            assertEquals(3_000L, ((FerryStateStore) s).committedOffset(CHANGELOG), "the last committed offset");
            assertSameEntries(expected, content(s));
            assertEquals(List.of(T0 / INTERVAL, T0 / INTERVAL + 1, T0 / INTERVAL + 2), ((FerrySegmentedStore) s).segmentIds());
        } finally {
            s.close();
        }
        assertTrue(Files.isDirectory(tmp.resolve("w")), "the built-in store stays");
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("w" + BuiltInImport.TEMP_SUFFIX)));
    }

    @Test
    void aStoreOfAnotherSegmentIntervalRestoresInstead() {
        builtIn(tmp, "timestamped");
        // a tenth of the interval: a built-in segment's keys fall into several Ferry segments, out of key order
        FerryTimestampedWindowStore s = new FerryTimestampedWindowStore("w", Engine.ROCKSDB, RETENTION.toMillis(), INTERVAL / 10,
                SIZE.toMillis(), false);
        s.init(new TestContext(tmp.toFile()), s);
        try {
            assertNull(s.committedOffset(CHANGELOG), "nothing imported: the store restores from the changelog");
            assertEquals(List.of(), content(s));
        } finally {
            s.close();
        }
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("w" + BuiltInImport.TEMP_SUFFIX)), "the partial import is gone");
    }

    @Test
    void theSessionStoreOfAnEmitFinalAggregationDoesNotImport() {
        builtIn(tmp, "session"); // stands for Kafka's time-ordered session store, whose segments hold another layout
        FerrySessionStore s = new FerrySessionStore("w", Engine.ROCKSDB, RETENTION.toMillis(), INTERVAL).withoutImport();
        s.init(new TestContext(tmp.toFile()), s);
        try {
            assertNull(s.committedOffset(CHANGELOG));
            assertEquals(List.of(), content(s));
        } finally {
            s.close();
        }
    }

    @Test
    void theDslSuppliersGiveAnEmitFinalSessionAggregationAStoreThatDoesNotImport() {
        org.apache.kafka.streams.state.DslSessionParams eager = new org.apache.kafka.streams.state.DslSessionParams("w", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowUpdate());
        org.apache.kafka.streams.state.DslSessionParams emitFinal = new org.apache.kafka.streams.state.DslSessionParams("w", RETENTION,
                org.apache.kafka.streams.kstream.EmitStrategy.onWindowClose());
        FerryDslStoreSuppliers suppliers = new FerryDslStoreSuppliers();
        assertTrue(((FerrySessionStore) suppliers.sessionStore(eager).get()).importsBuiltIn());
        assertFalse(((FerrySessionStore) suppliers.sessionStore(emitFinal).get()).importsBuiltIn());
    }
}
