package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ferry.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The reads Kafka's emit-on-window-close processors depend on: a {@link FerryTimeOrderedWindowStore}
 * hands out windows by start time, then key (also after restoring Kafka's key-first changelog keys),
 * and a {@link FerrySessionStore} hands out the sessions ending in a range by end, start and key.
 */
class TimeOrderedStoresTest {
    static final long RETENTION = 600_000;
    static final long SEGMENT = 60_000;

    @TempDir
    Path tmp;

    static Bytes b(String s) {
        return Bytes.wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static List<String> windows(KeyValueIterator<Windowed<Bytes>, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(kv -> out.add(new String(kv.key.key().get(), java.nio.charset.StandardCharsets.UTF_8) + "@"
                    + kv.key.window().start() + "-" + kv.key.window().end() + "=" + new String(kv.value, java.nio.charset.StandardCharsets.UTF_8)));
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void timeOrderedWindowsComeBackByStartThenKeyAlsoAfterRestoring(Engine engine) {
        List<String> expected = List.of("a@0-1000=a0", "bb@0-1000=b0", "a@61000-62000=a61", "b@61000-62000=b61", "a@130000-131000=a130");
        List<KeyValue<byte[], byte[]>> changelog = new ArrayList<>();
        try (FerryTimeOrderedWindowStore s = new FerryTimeOrderedWindowStore("w", engine, RETENTION, SEGMENT, 1_000, false)) {
            s.init(new TestContext(tmp.resolve("live").toFile()), s);
            Object[][] puts = {{"a", 130_000L}, {"bb", 0L}, {"b", 61_000L}, {"a", 0L}, {"a", 61_000L}, {"zz", 5_000L}};
            for (Object[] p : puts) {
                String key = (String) p[0];
                long t = (Long) p[1];
                String v = key.charAt(0) + String.valueOf(t / 1000);
                s.put(b(key), v.getBytes(java.nio.charset.StandardCharsets.UTF_8), t);
                changelog.add(KeyValue.pair(FerryWindowStore.storeKey(b(key).get(), t, 0), v.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            s.put(b("zz"), null, 5_000L); // a delete
            changelog.add(KeyValue.pair(FerryWindowStore.storeKey(b("zz").get(), 5_000L, 0), null));
            assertEquals(expected, windows(s.fetchAll(0, 200_000)));
            assertEquals(expected, windows(s.all()));
            assertEquals(List.of("a@61000-62000=a61", "b@61000-62000=b61"), windows(s.fetchAll(1, 61_000)));
            assertEquals(List.of("a@0-1000=a0", "a@61000-62000=a61", "a@130000-131000=a130"), windows(s.fetch(b("a"), b("a"), 0, 200_000)));
            assertEquals(List.of("b@61000-62000=b61", "bb@0-1000=b0"), windows(s.backwardFetch(b("b"), b("bb"), 0, 100_000)));
            assertEquals("a61", new String(s.fetch(b("a"), 61_000L), java.nio.charset.StandardCharsets.UTF_8));
        }
        try (FerryTimeOrderedWindowStore r = new FerryTimeOrderedWindowStore("w", engine, RETENTION, SEGMENT, 1_000, false)) {
            TestContext ctx = new TestContext(tmp.resolve("restored").toFile());
            r.init(ctx, r);
            ((BatchingStateRestoreCallback) ctx.restoreCallback).restoreAll(changelog);
            assertEquals(expected, windows(r.all()));
        }
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void sessionsEndingInARangeComeBackByEndStartAndKey(Engine engine) {
        try (FerrySessionStore s = new FerrySessionStore("s", engine, RETENTION, SEGMENT)) {
            s.init(new TestContext(tmp.toFile()), s);
            Object[][] puts = {{"b", 0L, 10_000L}, {"a", 5_000L, 10_000L}, {"a", 0L, 10_000L}, {"c", 0L, 3_000L},
                    {"a", 70_000L, 70_000L}, {"bb", 20_000L, 65_000L}};
            for (Object[] p : puts) {
                s.put(new Windowed<>(b((String) p[0]), new SessionWindow((Long) p[1], (Long) p[2])), ((String) p[0]).getBytes());
            }
            assertEquals(List.of("c@0-3000=c", "a@0-10000=a", "b@0-10000=b", "a@5000-10000=a", "bb@20000-65000=bb", "a@70000-70000=a"),
                    windows(s.findSessions(0, 100_000)));
            assertEquals(List.of("a@0-10000=a", "b@0-10000=b", "a@5000-10000=a", "bb@20000-65000=bb"), windows(s.findSessions(4_000, 69_999)));
            assertEquals(List.of(), windows(s.findSessions(70_001, 100_000)));
        }
    }
}
