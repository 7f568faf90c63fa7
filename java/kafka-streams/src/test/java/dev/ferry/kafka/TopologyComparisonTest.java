package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same topologies on a Ferry store and on Kafka Streams' built-in RocksDB store, driven by
 * TopologyTestDriver with the same input: outputs and final store contents must agree key for key.
 */
class TopologyComparisonTest {
    /** On a RAM file system where there is one: TopologyTestDriver commits (a synced write per store) after every record. */
    @TempDir(factory = RamTempDir.class)
    Path tmp;

    static KeyValueBytesStoreSupplier ferry(String kind, String name) {
        switch (kind) {
            case "rocksdb": return FerryStores.persistentKeyValueStore(name);
            case "rocksdb-timestamped": return FerryStores.persistentTimestampedKeyValueStore(name);
            case "lmdb": return FerryStores.lmdbKeyValueStore(name);
            case "lmdb-timestamped": return FerryStores.lmdbTimestampedKeyValueStore(name);
            default: throw new IllegalArgumentException(kind);
        }
    }

    private Properties props(String dir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-compare");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        return p;
    }

    static List<String> text(long seed, int lines) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines; i++) {
            StringBuilder sb = new StringBuilder();
            int n = 1 + r.nextInt(12);
            for (int j = 0; j < n; j++) {
                // skewed vocabulary: a few frequent words, a long tail
                int w = r.nextInt(4) == 0 ? r.nextInt(5) : r.nextInt(400);
                sb.append(j == 0 ? "" : (r.nextBoolean() ? " " : ", ")).append("w").append(w);
            }
            out.add(sb.toString());
        }
        return out;
    }

    static Topology wordCount(KeyValueBytesStoreSupplier supplier) {
        StreamsBuilder b = new StreamsBuilder();
        b.stream("text", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(v -> Arrays.asList(v.toLowerCase().split("\\W+")))
                .filter((k, w) -> !w.isEmpty())
                .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long>as(supplier).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream().to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    record Run(List<KeyValue<String, Long>> output, List<KeyValue<String, Long>> store, List<KeyValue<String, Long>> range) {
    }

    private Run runWordCount(KeyValueBytesStoreSupplier supplier, String dir, List<String> lines) {
        try (TopologyTestDriver d = new TopologyTestDriver(wordCount(supplier), props(dir))) {
            TestInputTopic<String, String> in = d.createInputTopic("text", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, Long> out = d.createOutputTopic("counts", Serdes.String().deserializer(), Serdes.Long().deserializer());
            for (int i = 0; i < lines.size(); i++) {
                in.pipeInput("line" + i, lines.get(i));
            }
            KeyValueStore<String, Long> s = d.getKeyValueStore("counts");
            List<KeyValue<String, Long>> all = drain(s.all());
            List<KeyValue<String, Long>> range = drain(s.range("w10", "w19"));
            return new Run(out.readKeyValuesToList(), all, range);
        }
    }

    static <K, V> List<KeyValue<K, V>> drain(KeyValueIterator<K, V> it) {
        List<KeyValue<K, V>> out = new ArrayList<>();
        try (it) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "rocksdb-timestamped", "lmdb", "lmdb-timestamped"})
    void wordCountMatchesTheBuiltInStore(String kind) {
        List<String> lines = text(19, 600);
        Run builtIn = runWordCount(Stores.persistentTimestampedKeyValueStore("counts"), "builtin", lines);
        Run ferry = runWordCount(ferry(kind, "counts"), "ferry", lines);
        assertTrue(builtIn.output.size() > 2_000, "the input makes many updates: " + builtIn.output.size());
        assertEquals(builtIn.output, ferry.output);
        assertEquals(builtIn.store, ferry.store);
        assertEquals(builtIn.range, ferry.range);
        assertFalse(ferry.range.isEmpty());
    }

    /** A processor that applies operations to its store and reports what reads see. */
    static final class OpsProcessor implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> ctx;
        private KeyValueStore<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            ctx = context;
            store = context.getStateStore("kv");
        }

        @Override
        public void process(Record<String, String> r) {
            String[] op = r.value().split(":", -1);
            String result;
            switch (op[0]) {
                case "put": store.put(r.key(), op[1]); result = "ok"; break;
                case "del": result = String.valueOf(store.delete(r.key())); break;
                case "pia": result = String.valueOf(store.putIfAbsent(r.key(), op[1])); break;
                case "putall": {
                    List<KeyValue<String, String>> batch = new ArrayList<>();
                    for (int i = 1; i < op.length; i++) {
                        batch.add(KeyValue.pair(op[i], op[i].isEmpty() ? null : "b" + i));
                    }
                    batch.removeIf(kv -> kv.key.isEmpty());
                    store.putAll(batch);
                    result = "ok";
                    break;
                }
                case "get": result = String.valueOf(store.get(r.key())); break;
                case "range": result = join(store.range(op[1], op[2])); break;
                case "rrange": result = join(store.reverseRange(op[1], op[2])); break;
                case "prefix": result = join(store.prefixScan(op[1], Serdes.String().serializer())); break;
                case "all": result = join(store.all()); break;
                case "rall": result = join(store.reverseAll()); break;
                case "upto": result = join(store.range(null, op[1])); break;
                default: throw new IllegalArgumentException(r.value());
            }
            ctx.forward(r.withValue(r.value() + " -> " + result));
        }

        static String join(KeyValueIterator<String, String> it) {
            try (it) {
                StringBuilder sb = new StringBuilder();
                it.forEachRemaining(kv -> sb.append(kv.key).append('=').append(kv.value).append(';'));
                return sb.toString();
            }
        }
    }

    static Topology ops(KeyValueBytesStoreSupplier supplier, boolean caching) {
        Topology t = new Topology();
        t.addSource("src", Serdes.String().deserializer(), Serdes.String().deserializer(), "ops");
        t.addProcessor("ops", OpsProcessor::new, "src");
        var builder = Stores.keyValueStoreBuilder(supplier, Serdes.String(), Serdes.String());
        t.addStateStore(caching ? builder.withCachingEnabled() : builder.withCachingDisabled(), "ops");
        t.addSink("sink", "results", Serdes.String().serializer(), Serdes.String().serializer(), "ops");
        return t;
    }

    static List<KeyValue<String, String>> randomOps(long seed, int n) {
        Random r = new Random(seed);
        List<KeyValue<String, String>> out = new ArrayList<>();
        Function<Integer, String> key = i -> String.format("k%03d", i);
        for (int i = 0; i < n; i++) {
            String k = key.apply(r.nextInt(300));
            int op = r.nextInt(100);
            String v;
            if (op < 40) {
                v = "put:v" + r.nextInt(1000);
            } else if (op < 50) {
                v = "del";
            } else if (op < 55) {
                v = "pia:p" + r.nextInt(1000);
            } else if (op < 58) {
                v = "putall:" + key.apply(r.nextInt(300)) + ":" + key.apply(r.nextInt(300)) + ":" + (r.nextBoolean() ? "" : key.apply(r.nextInt(300)));
            } else if (op < 68) {
                v = "get";
            } else {
                int a = r.nextInt(300), b = a + r.nextInt(40) - 5; // sometimes inverted
                String lo = key.apply(a), hi = key.apply(Math.max(0, b));
                switch (op % 6) {
                    case 0: v = "range:" + lo + ":" + hi; break;
                    case 1: v = "rrange:" + lo + ":" + hi; break;
                    case 2: v = "prefix:k" + r.nextInt(30); break;
                    case 3: v = op < 80 ? "all" : "upto:" + hi; break;
                    case 4: v = "rall"; break;
                    default: v = "range:" + lo + "x:" + hi; break;
                }
            }
            out.add(KeyValue.pair(k, v));
        }
        return out;
    }

    private List<String> runOps(KeyValueBytesStoreSupplier supplier, boolean caching, String dir, List<KeyValue<String, String>> ops) {
        Properties p = props(dir);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 4096 : 0);
        try (TopologyTestDriver d = new TopologyTestDriver(ops(supplier, caching), p)) {
            TestInputTopic<String, String> in = d.createInputTopic("ops", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = d.createOutputTopic("results", Serdes.String().deserializer(), Serdes.String().deserializer());
            List<String> results = new ArrayList<>();
            for (KeyValue<String, String> op : ops) {
                in.pipeInput(op.key, op.value);
                out.readValuesToList().forEach(results::add);
            }
            results.add("final: " + OpsProcessor.join(d.<String, String>getKeyValueStore("kv").all()));
            return results;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void rangeQueryTopologyMatchesTheBuiltInStore(String kind) {
        List<KeyValue<String, String>> ops = randomOps(7, 1500);
        for (boolean caching : new boolean[] {false, true}) {
            List<String> builtIn = runOps(Stores.persistentKeyValueStore("kv"), caching, "builtin-" + caching, ops);
            List<String> ferry = runOps(ferry(kind, "kv"), caching, "ferry-" + caching, ops);
            assertEquals(builtIn.size(), ferry.size());
            for (int i = 0; i < builtIn.size(); i++) {
                assertEquals(builtIn.get(i), ferry.get(i), "operation " + i + " (caching " + caching + ")");
            }
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("range:") && s.contains("=")), "some ranges are not empty");
        }
    }

    /**
     * One topology holding the built-in RocksDB store and a Ferry-RocksDB store: both run on the one
     * RocksDB library RocksJava loaded (rocksdbjni as kafka-streams brings it), and agree.
     */
    @Test
    void builtInAndFerryStoresShareOneRocksDbLibraryInOneTopology() throws IOException {
        StreamsBuilder b = new StreamsBuilder();
        var words = b.stream("text", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(v -> Arrays.asList(v.toLowerCase().split("\\W+")))
                .filter((k, w) -> !w.isEmpty())
                .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()));
        KTable<String, Long> builtIn = words.count(Materialized.<String, Long>as(Stores.persistentTimestampedKeyValueStore("builtin"))
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()));
        KTable<String, Long> ferry = words.count(Materialized.<String, Long>as(FerryStores.persistentTimestampedKeyValueStore("ferry"))
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()));
        builtIn.toStream().to("builtin-out", Produced.with(Serdes.String(), Serdes.Long()));
        ferry.toStream().to("ferry-out", Produced.with(Serdes.String(), Serdes.Long()));
        try (TopologyTestDriver d = new TopologyTestDriver(b.build(), props("both"))) {
            TestInputTopic<String, String> in = d.createInputTopic("text", Serdes.String().serializer(), Serdes.String().serializer());
            List<String> lines = text(5, 300);
            for (int i = 0; i < lines.size(); i++) {
                in.pipeInput("l" + i, lines.get(i));
            }
            assertEquals(drain(d.<String, Long>getKeyValueStore("builtin").all()), drain(d.<String, Long>getKeyValueStore("ferry").all()));
            assertEquals(d.createOutputTopic("builtin-out", Serdes.String().deserializer(), Serdes.Long().deserializer()).readKeyValuesToList(),
                    d.createOutputTopic("ferry-out", Serdes.String().deserializer(), Serdes.Long().deserializer()).readKeyValuesToList());
            assertTrue(Files.isDirectory(tmp.resolve("both/ferry-compare/0_0/rocksdb/builtin")), "the built-in store is RocksJava's");
            assertTrue(Files.isDirectory(tmp.resolve("both/ferry-compare/0_0/ferry/ferry")), "the Ferry store is Ferry's");
            Set<String> libs = new TreeSet<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                int at = line.indexOf('/');
                if (at >= 0 && line.contains("librocksdbjni")) {
                    libs.add(line.substring(at));
                }
            }
            assertEquals(1, libs.size(), "exactly one RocksDB library in the process: " + libs);
            String expected = System.getProperty("ferry.test.rocksdbjni.version");
            if (expected != null) {
                assertEquals(expected, org.rocksdb.RocksDB.rocksdbVersion().toString(),
                        "the rocksdbjni under test: " + libs.stream().collect(Collectors.joining()));
            }
        }
    }
}
