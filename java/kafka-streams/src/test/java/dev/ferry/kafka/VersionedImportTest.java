package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ColumnFamily;
import dev.ferry.Engine;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The import of Kafka's built-in versioned store ({@code RocksDBVersionedStore}, one RocksDB store in
 * {@code <task>/rocksdb/<name>}) into Ferry's versioned store that opens without one of its own (VersionedImport),
 * outside a topology: a built-in store written through Kafka's own class with several versions per key, out-of-order
 * versions, tombstones and deletes, over a stream time that passes the history retention several times; the
 * Ferry store answers every {@code get(key)} and {@code get(key, asOf)} inside the history retention as the built-in
 * store answered before it stopped, carries the committed offset, and holds no segment wholly older than the
 * retention. Both engines; and the cases that must restore instead (another segment interval, a store left open
 * under exactly-once).
 */
class VersionedImportTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-v-changelog", 0);
    private static final long RETENTION = 10_000;
    private static final long INTERVAL = 2_000;
    private static final int KEYS = 60;

    @TempDir
    Path tmp;

    /** What the built-in store answered before it stopped, and its stream time then. */
    private record Answers(List<String> answers, long streamTime) {
    }

    private static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static String show(VersionedRecord<byte[]> r) {
        return r == null ? "null" : new String(r.value(), StandardCharsets.UTF_8) + "@" + r.timestamp() + " to " + r.validTo();
    }

    /** Every key's latest version, and its version as of every 250 ms inside the history retention and a little beyond the stream time. */
    private static List<String> answers(VersionedKeyValueStore<Bytes, byte[]> s, long streamTime) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            Bytes key = Bytes.wrap(key(k));
            out.add("k" + k + " latest: " + show(s.get(key)));
            for (long t = streamTime - RETENTION; t <= streamTime + 500; t += 250) {
                out.add("k" + k + " as of " + t + ": " + show(s.get(key, t)));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static VersionedKeyValueStore<Bytes, byte[]> inner(StateStore adapter) throws ReflectiveOperationException {
        java.lang.reflect.Field f = adapter.getClass().getDeclaredField("inner");
        f.setAccessible(true);
        return (VersionedKeyValueStore<Bytes, byte[]>) f.get(adapter);
    }

    /**
     * Writes a built-in versioned store "v" in {@code taskDir} through Kafka's RocksDBVersionedStore in two runs (the
     * second, after a restart, goes on for twice the history retention: the first run's segments stay on disk, since
     * the built-in store drops only segments it made since it opened), commits an offset, and returns what it answers
     * just before it closes.
     */
    private static Answers builtIn(Path taskDir) throws Exception {
        Random r = new Random(42);
        long streamTime = 0;
        List<String> answers = null;
        for (int run = 1; run <= 2; run++) {
            KeyValueStore<Bytes, byte[]> adapter = Stores.persistentVersionedKeyValueStore("v", Duration.ofMillis(RETENTION),
                    Duration.ofMillis(INTERVAL)).get();
            adapter.init(SegmentedImportTest.internal(new TestContext(taskDir.toFile())), adapter);
            try {
                VersionedKeyValueStore<Bytes, byte[]> s = inner(adapter);
                for (int i = 0; i < 2_000; i++) {
                    streamTime += r.nextInt(20); // 20 s a run: the retention twice over, 10 segments
                    Bytes key = Bytes.wrap(key(r.nextInt(KEYS)));
                    int op = r.nextInt(100);
                    long ts = op < 70 ? streamTime : Math.max(0, streamTime - r.nextInt((int) RETENTION + 2_000)); // out of order, some too late
                    if (op < 85) {
                        s.put(key, ("v" + run + "." + i).getBytes(StandardCharsets.UTF_8), ts);
                    } else if (op < 93) {
                        s.put(key, null, ts); // a tombstone
                    } else {
                        s.delete(key, ts);
                    }
                }
                adapter.commit(Map.of(CHANGELOG, run * 2_000L));
                answers = answers(s, streamTime);
            } finally {
                adapter.close();
            }
        }
        return new Answers(answers, streamTime);
    }

    /** The segment ids of the built-in store's history rows on disk (read through a read-only Ferry store). */
    private static java.util.SortedSet<Long> builtInSegments(Path taskDir) {
        java.util.SortedSet<Long> ids = new java.util.TreeSet<>();
        try (Store b = Store.open(taskDir.resolve("rocksdb").resolve("v"), StoreOptions.rocksdb().readOnly(true).createIfMissing(false));
             dev.ferry.Cursor c = b.cursor(b.columnFamilies().stream().filter(cf -> cf.name().equals("default")).findFirst().orElseThrow(),
                     dev.ferry.KeyRange.all(), null)) {
            while (c.next()) {
                long id = ByteBuffer.wrap(c.keyBytes()).getLong();
                if (id >= 0) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }

    private static FerryVersionedKeyValueStore ferry(Engine engine, Path taskDir, long interval, TestContext ctx) throws Exception {
        StateStore adapter = (engine == Engine.ROCKSDB
                ? FerryStores.persistentVersionedKeyValueStore("v", Duration.ofMillis(RETENTION), Duration.ofMillis(interval))
                : FerryStores.lmdbVersionedKeyValueStore("v", Duration.ofMillis(RETENTION), Duration.ofMillis(interval))).get();
        adapter.init(ctx, adapter);
        java.lang.reflect.Field f = adapter.getClass().getDeclaredField("inner");
        f.setAccessible(true);
        return (FerryVersionedKeyValueStore) f.get(adapter);
    }

    @ParameterizedTest
    @EnumSource(Engine.class)
    void importsLatestValuesHistoryAndOffsetsAndAnswersAsTheBuiltInStore(Engine engine) throws Exception {
        Answers before = builtIn(tmp);
        long minLive = (before.streamTime() - RETENTION) / INTERVAL;
        List<Long> live = new ArrayList<>(builtInSegments(tmp));
        assertTrue(live.get(0) >= minLive - 1 && live.size() >= RETENTION / INTERVAL, live + ": the built-in store's segments, "
                + "the expired ones dropped");
        // a row of an expired segment the built-in store left behind (it drops only the segments it knows of since it opened):
        // in Kafka's row layout, [next timestamp][min timestamp][timestamp][value size][value]
        try (Store b = Store.open(tmp.resolve("rocksdb").resolve("v"), StoreOptions.rocksdb().createIfMissing(false))) {
            ColumnFamily data = b.columnFamilies().stream().filter(cf -> cf.name().equals("default")).findFirst().orElseThrow();
            b.put(data, ByteBuffer.allocate(Long.BYTES + 2).putLong(1).put(key(0)).array(),
                    ByteBuffer.allocate(8 + 8 + 12 + 1).putLong(2_500).putLong(2_100).putLong(2_100).putInt(1).put((byte) 'x').array());
        }
        assertEquals(1L, builtInSegments(tmp).first());
        assertTrue(before.answers().stream().anyMatch(a -> a.contains(" as of ") && !a.endsWith("null") && !a.endsWith(" to " + Long.MAX_VALUE)),
                "some answers are old versions");
        assertTrue(before.answers().stream().anyMatch(a -> a.contains(" as of ") && a.endsWith("null")), "some answers are no version");
        FerryVersionedKeyValueStore s = ferry(engine, tmp, INTERVAL, new TestContext(tmp.toFile()));
        try {
            assertEquals(4_000L, s.committedOffset(CHANGELOG), "the committed offset");
            List<String> after = answers(s, before.streamTime());
            assertEquals(before.answers().size(), after.size());
            for (int i = 0; i < after.size(); i++) {
                assertEquals(before.answers().get(i), after.get(i), "answer " + i);
            }
            assertEquals(live, s.segmentIds(), "the built-in store's live segments, not the expired one");
        } finally {
            s.close();
        }
        assertTrue(Files.isRegularFile(tmp.resolve("rocksdb").resolve("v").resolve("CURRENT")), "the built-in store stays");
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("v" + BuiltInImport.TEMP_SUFFIX)));
    }

    @Test
    void aStoreOfAnotherSegmentIntervalRestoresInstead() throws Exception {
        builtIn(tmp);
        FerryVersionedKeyValueStore s = ferry(Engine.ROCKSDB, tmp, INTERVAL * 3, new TestContext(tmp.toFile()));
        try {
            assertNull(s.committedOffset(CHANGELOG), "nothing imported: the store restores from the changelog");
            assertNull(s.get(Bytes.wrap(key(0))));
            assertEquals(List.of(), s.segmentIds());
        } finally {
            s.close();
        }
        assertFalse(Files.exists(tmp.resolve("ferry").resolve("v" + BuiltInImport.TEMP_SUFFIX)), "the partial import is gone");
    }

    @Test
    void underExactlyOnceABuiltInStoreLeftOpenRestoresInstead() throws Exception {
        builtIn(tmp);
        // mark it open, as a crash leaves it (Kafka 4.3+'s status: 1 open, 0 closed)
        try (Store b = Store.open(tmp.resolve("rocksdb").resolve("v"), StoreOptions.rocksdb().createIfMissing(false))) {
            ColumnFamily offsets = b.columnFamilies().stream().filter(cf -> cf.name().equals(BuiltInImport.OFFSETS_FAMILY)).findFirst()
                    .orElseThrow();
            b.put(offsets, FerryStateStore.STATUS_KEY, ByteBuffer.allocate(Long.BYTES).putLong(1).array());
        }
        TestContext eos = new TestContext(tmp.toFile());
        eos.configs.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        FerryVersionedKeyValueStore s = ferry(Engine.LMDB, tmp, INTERVAL, eos);
        try {
            assertNull(s.committedOffset(CHANGELOG), "nothing imported: the store restores from the changelog");
            assertNull(s.get(Bytes.wrap(key(0))));
        } finally {
            s.close();
        }
    }
}
