package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Versioned tables in the DSL under TopologyTestDriver, on Ferry's versioned stores (RocksDB, LMDB) and on
 * Kafka's built-in versioned store, with the same input (out-of-order table updates and tombstones, some
 * later than the history retention; stream records out of order too): a versioned table forwarded to an
 * output topic, and a stream-table join (a temporal join: each stream record joins the table version valid
 * at its timestamp), must give the same output records (with timestamps) in the same order, the same
 * answers to {@code get(key, asOf)} through the metered store, and the same changelog; and the changelog
 * Kafka wrote, restored into a fresh store, must answer the same again (on the lines with Kafka test jars:
 * {@link #restoreAndCompare}).
 */
class VersionedTopologyComparisonTest {
    static final Duration HISTORY = Duration.ofSeconds(60);
    static final Duration SEGMENT = Duration.ofSeconds(15);
    static final String APP = "ferry-versioned-compare";

    @TempDir
    Path tmp;

    static VersionedBytesStoreSupplier supplier(String kind) {
        switch (kind) {
            case "builtin": return Stores.persistentVersionedKeyValueStore("prices", HISTORY, SEGMENT);
            case "rocksdb": return FerryStores.persistentVersionedKeyValueStore("prices", HISTORY, SEGMENT);
            case "lmdb": return FerryStores.lmdbVersionedKeyValueStore("prices", HISTORY, SEGMENT);
            default: throw new IllegalArgumentException(kind);
        }
    }

    private Properties props(String dir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        return p;
    }

    /** One input event: a table update (value null = tombstone) or an order on the stream. */
    record Event(boolean table, String key, String value, long ts) {
    }

    /** Time moves about 1 s per event; a quarter come up to 50 s late, a tenth 60-120 s late (past the history retention). */
    static List<Event> events(long seed, int n) {
        Random r = new Random(seed);
        List<Event> out = new ArrayList<>();
        long time = 1_000_000L;
        for (int i = 0; i < n; i++) {
            time += r.nextInt(2_000);
            int lateness = r.nextInt(100);
            long ts = lateness < 25 ? time - r.nextInt(50_000) : lateness < 35 ? time - 60_000 - r.nextInt(60_000) : time;
            String key = "item" + r.nextInt(8);
            boolean table = r.nextInt(5) < 2;
            String value = table ? (r.nextInt(8) == 0 ? null : "price" + i) : "order" + i;
            out.add(new Event(table, key, value, ts));
        }
        return out;
    }

    record Run(List<String> table, List<String> joined, List<String> asOf, List<ConsumerRecord<byte[], byte[]>> changelog) {
    }

    private Run run(String kind, List<Event> events) {
        StreamsBuilder b = new StreamsBuilder();
        KTable<String, String> prices = b.table("prices", Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(supplier(kind)).withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        prices.toStream().to("table-out", Produced.with(Serdes.String(), Serdes.String()));
        b.stream("orders", Consumed.with(Serdes.String(), Serdes.String()))
                .join(prices, (order, price) -> order + "+" + price, Joined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                .to("joined", Produced.with(Serdes.String(), Serdes.String()));
        try (TopologyTestDriver d = new TopologyTestDriver(b.build(), props(kind))) {
            TestInputTopic<String, String> table = d.createInputTopic("prices", Serdes.String().serializer(), Serdes.String().serializer());
            TestInputTopic<String, String> orders = d.createInputTopic("orders", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> tableOut = d.createOutputTopic("table-out", Serdes.String().deserializer(), Serdes.String().deserializer());
            TestOutputTopic<String, String> joinedOut = d.createOutputTopic("joined", Serdes.String().deserializer(), Serdes.String().deserializer());
            List<String> tableRecords = new ArrayList<>();
            List<String> joinedRecords = new ArrayList<>();
            List<String> asOf = new ArrayList<>();
            VersionedKeyValueStore<String, String> store = d.getVersionedKeyValueStore("prices");
            long maxTs = 0;
            int i = 0;
            for (Event e : events) {
                (e.table ? table : orders).pipeInput(e.key, e.value, Instant.ofEpochMilli(e.ts));
                maxTs = Math.max(maxTs, e.ts);
                tableOut.readRecordsToList().forEach(rec -> tableRecords.add(show(rec)));
                joinedOut.readRecordsToList().forEach(rec -> joinedRecords.add(show(rec)));
                if (i++ % 25 == 0) {
                    for (int k = 0; k < 8; k++) {
                        asOf.add(show(store.get("item" + k)));
                        for (long t = maxTs - 130_000; t <= maxTs + 1_000; t += 3_700) {
                            asOf.add("item" + k + "@" + t + "=" + show(store.get("item" + k, t)));
                        }
                    }
                }
            }
            List<ConsumerRecord<byte[], byte[]>> changelog = new ArrayList<>();
            TestOutputTopic<byte[], byte[]> cl = d.createOutputTopic(APP + "-prices-changelog", Serdes.ByteArray().deserializer(),
                    Serdes.ByteArray().deserializer());
            for (TestRecord<byte[], byte[]> rec : cl.readRecordsToList()) {
                changelog.add(new ConsumerRecord<>("cl", 0, changelog.size(), rec.timestamp(), TimestampType.CREATE_TIME, -1, -1,
                        rec.key(), rec.value(), new RecordHeaders(), java.util.Optional.empty()));
            }
            if (!kind.equals("builtin")) {
                assertTrue(Files.isDirectory(tmp.resolve(kind + "/" + APP + "/0_0/ferry/prices")), "the store is a Ferry store");
            }
            return new Run(tableRecords, joinedRecords, asOf, changelog);
        }
    }

    static String show(TestRecord<String, String> r) {
        return r.key() + "=" + r.value() + " at " + r.timestamp();
    }

    static String show(VersionedRecord<String> r) {
        return r == null ? "null" : r.value() + "@" + r.timestamp();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void versionedTableAndTemporalJoinAsTheBuiltInStore(long seed) throws Exception {
        List<Event> events = events(seed, 1_200);
        Run builtIn = run("builtin", events);
        assertTrue(builtIn.table.size() > 100 && builtIn.joined.size() > 100, builtIn.table.size() + " " + builtIn.joined.size());
        for (String kind : List.of("rocksdb", "lmdb")) {
            Run ferry = run(kind, events);
            assertEquals(builtIn.table, ferry.table, kind + ": versioned table output");
            assertEquals(builtIn.joined, ferry.joined, kind + ": stream-table join output");
            assertEquals(builtIn.asOf, ferry.asOf, kind + ": get and get as of");
            assertEquals(builtIn.changelog.size(), ferry.changelog.size(), kind + ": changelog");
            for (int i = 0; i < builtIn.changelog.size(); i++) {
                ConsumerRecord<byte[], byte[]> a = builtIn.changelog.get(i);
                ConsumerRecord<byte[], byte[]> c = ferry.changelog.get(i);
                assertEquals(hex(a.key()) + " " + hex(a.value()) + " " + a.timestamp(),
                        hex(c.key()) + " " + hex(c.value()) + " " + c.timestamp(),
                        kind + ": changelog record " + i);
            }
            // restore the changelog Kafka wrote into fresh stores: the same answers as the built-in store restored from it
            restoreAndCompare(Engine.valueOf(kind.toUpperCase(java.util.Locale.ROOT)), builtIn.changelog, seed);
        }
    }

    /**
     * Restores the changelog Kafka wrote into a fresh built-in store and a fresh Ferry store and compares their
     * answers. Opening the built-in versioned store outside a topology needs Kafka's InternalMockProcessorContext,
     * from the test jars that Kafka publishes up to 4.3 only: VersionedTopologyRestoreComparisonTest (module
     * java/kafka-streams-lines) does it there; on 4.4 this comparison of the restored stores is left out.
     */
    void restoreAndCompare(Engine engine, List<ConsumerRecord<byte[], byte[]>> changelog, long seed) throws Exception {
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void versionedStoresRefuseCaching(String kind) {
        assertThrows(IllegalStateException.class,
                () -> Stores.versionedKeyValueStoreBuilder(supplier(kind), Serdes.String(), Serdes.String()).withCachingEnabled());
        assertInstanceOf(VersionedBytesStoreSupplier.class, supplier(kind));
    }

    static String hex(byte[] b) {
        if (b == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }
}
