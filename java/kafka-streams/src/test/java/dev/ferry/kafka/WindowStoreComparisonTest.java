package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The window and session stores' contract against Kafka Streams' built-in RocksDB window and session
 * stores: a processor applies the same random operations (puts over a stream time that runs past the
 * retention period many times, deletes, every kind of fetch, forwards and backwards, open and
 * inverted key ranges, keys that are prefixes of others and keys with bytes above 0x7F) to a Ferry store
 * and to a built-in one under TopologyTestDriver, and every result must be the same, in the same
 * order.
 */
class WindowStoreComparisonTest {
    static final Duration RETENTION = Duration.ofMinutes(3); // segments of 90 s, as the built-in store makes them
    static final Duration SIZE = Duration.ofSeconds(50);
    static final String[] KEYS = {"k", "k1", "k10", "k11", "k2", "k20", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "ka", "kb", "k\u00ff", "k\u00e9x", "l", "a"};

    @TempDir
    Path tmp;

    private Properties props(String dir, boolean caching) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "ferry-window-compare");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        p.put(StreamsConfig.STATE_DIR_CONFIG, tmp.resolve(dir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, caching ? 2048 : 0);
        return p;
    }

    static WindowBytesStoreSupplier windowSupplier(String kind, boolean dups) {
        switch (kind) {
            case "builtin": return Stores.persistentWindowStore("w", RETENTION, SIZE, dups);
            case "rocksdb": return FerryStores.persistentWindowStore("w", RETENTION, SIZE, dups);
            case "lmdb": return FerryStores.lmdbWindowStore("w", RETENTION, SIZE, dups);
            default: throw new IllegalArgumentException(kind);
        }
    }

    static SessionBytesStoreSupplier sessionSupplier(String kind) {
        switch (kind) {
            case "builtin": return Stores.persistentSessionStore("s", RETENTION);
            case "rocksdb": return FerryStores.persistentSessionStore("s", RETENTION);
            case "lmdb": return FerryStores.lmdbSessionStore("s", RETENTION);
            default: throw new IllegalArgumentException(kind);
        }
    }

    static String str(String s) {
        return s.equals("null") ? null : s;
    }

    static String join(WindowStoreIterator<String> it) {
        StringBuilder sb = new StringBuilder();
        try (it) {
            if (it.hasNext()) {
                sb.append("peek ").append(it.peekNextKey()).append(": ");
            }
            it.forEachRemaining(kv -> sb.append(kv.key).append('=').append(kv.value).append(';'));
        }
        return sb.toString();
    }

    static String joinWindowed(KeyValueIterator<Windowed<String>, String> it) {
        StringBuilder sb = new StringBuilder();
        try (it) {
            if (it.hasNext()) {
                sb.append("peek ").append(it.peekNextKey()).append(": ");
            }
            it.forEachRemaining(kv -> sb.append(kv.key.key()).append('@').append(kv.key.window().start()).append('-')
                    .append(kv.key.window().end()).append('=').append(kv.value).append(';'));
        }
        return sb.toString();
    }

    /** Applies "op|arg|..." records to the window store "w" and forwards what each returned. */
    static final class WindowOps implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> ctx;
        private WindowStore<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            ctx = context;
            store = context.getStateStore("w");
        }

        @Override
        public void process(Record<String, String> r) {
            String[] a = r.value().split("\\|", -1);
            String result;
            switch (a[0]) {
                case "put": store.put(a[1], a[3].isEmpty() ? null : a[3], Long.parseLong(a[2])); result = "ok"; break;
                case "get": result = String.valueOf(store.fetch(a[1], Long.parseLong(a[2]))); break;
                case "fetch": result = join(store.fetch(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))); break;
                case "bfetch": result = join(store.backwardFetch(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))); break;
                case "range": result = joinWindowed(store.fetch(str(a[1]), str(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]))); break;
                case "brange": result = joinWindowed(store.backwardFetch(str(a[1]), str(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]))); break;
                case "fetchall": result = joinWindowed(store.fetchAll(Long.parseLong(a[1]), Long.parseLong(a[2]))); break;
                case "bfetchall": result = joinWindowed(store.backwardFetchAll(Long.parseLong(a[1]), Long.parseLong(a[2]))); break;
                case "all": result = joinWindowed(store.all()); break;
                case "ball": result = joinWindowed(store.backwardAll()); break;
                default: throw new IllegalArgumentException(r.value());
            }
            ctx.forward(r.withValue(r.value() + " -> " + result));
        }
    }

    /** Applies "op|arg|..." records to the session store "s" and forwards what each returned. */
    static final class SessionOps implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> ctx;
        private SessionStore<String, String> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            ctx = context;
            store = context.getStateStore("s");
        }

        static Windowed<String> session(String key, String start, String end) {
            return new Windowed<>(key, new org.apache.kafka.streams.kstream.internals.SessionWindow(Long.parseLong(start), Long.parseLong(end)));
        }

        @Override
        public void process(Record<String, String> r) {
            String[] a = r.value().split("\\|", -1);
            String result;
            switch (a[0]) {
                case "put": store.put(session(a[1], a[2], a[3]), a[4].isEmpty() ? null : a[4]); result = "ok"; break;
                case "remove": store.remove(session(a[1], a[2], a[3])); result = "ok"; break;
                case "get": result = String.valueOf(store.fetchSession(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))); break;
                case "find": result = joinWindowed(store.findSessions(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))); break;
                case "bfind": result = joinWindowed(store.backwardFindSessions(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))); break;
                case "frange": result = joinWindowed(store.findSessions(str(a[1]), str(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]))); break;
                case "bfrange": result = joinWindowed(store.backwardFindSessions(str(a[1]), str(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4]))); break;
                case "fetch": result = joinWindowed(store.fetch(a[1])); break;
                case "bfetch": result = joinWindowed(store.backwardFetch(a[1])); break;
                case "fetchrange": result = joinWindowed(store.fetch(str(a[1]), str(a[2]))); break;
                case "bfetchrange": result = joinWindowed(store.backwardFetch(str(a[1]), str(a[2]))); break;
                default: throw new IllegalArgumentException(r.value());
            }
            ctx.forward(r.withValue(r.value() + " -> " + result));
        }
    }

    static Topology windowTopology(WindowBytesStoreSupplier supplier, boolean caching) {
        Topology t = new Topology();
        t.addSource("src", Serdes.String().deserializer(), Serdes.String().deserializer(), "ops");
        t.addProcessor("ops", WindowOps::new, "src");
        var b = Stores.windowStoreBuilder(supplier, Serdes.String(), Serdes.String());
        t.addStateStore(caching ? b.withCachingEnabled() : b.withCachingDisabled(), "ops");
        t.addSink("sink", "results", Serdes.String().serializer(), Serdes.String().serializer(), "ops");
        return t;
    }

    static Topology sessionTopology(SessionBytesStoreSupplier supplier, boolean caching) {
        Topology t = new Topology();
        t.addSource("src", Serdes.String().deserializer(), Serdes.String().deserializer(), "ops");
        t.addProcessor("ops", SessionOps::new, "src");
        var b = Stores.sessionStoreBuilder(supplier, Serdes.String(), Serdes.String());
        t.addStateStore(caching ? b.withCachingEnabled() : b.withCachingDisabled(), "ops");
        t.addSink("sink", "results", Serdes.String().serializer(), Serdes.String().serializer(), "ops");
        return t;
    }

    /** A stream time that advances about 1.5 s per operation (past the 3-minute retention every 120 operations), with late records. */
    static long time(Random r, int i) {
        long t = i * 1_500L + (r.nextInt(4) == 0 ? -r.nextInt(240_000) : r.nextInt(5_000));
        return Math.max(0, t);
    }

    static String key(Random r) {
        return KEYS[r.nextInt(KEYS.length)];
    }

    static String keyOrNull(Random r) {
        return r.nextInt(8) == 0 ? "null" : key(r);
    }

    static List<String> windowOps(long seed, int n) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>();
        List<String> written = new ArrayList<>(); // "key|ts" of earlier puts, to read them back
        for (int i = 0; i < n; i++) {
            long t = time(r, i);
            int op = r.nextInt(100);
            long from = Math.max(0, t - r.nextInt(400_000));
            long to = from + r.nextInt(300_000);
            if (op < 45) {
                long start = t - t % 10_000; // window starts on a grid, so puts meet earlier windows
                String v = r.nextInt(10) == 0 ? "" : "v" + i;
                out.add("put|" + key(r) + "|" + start + "|" + v);
                written.add(out.get(out.size() - 1).split("\\|")[1] + "|" + start);
            } else if (op < 52 && !written.isEmpty()) {
                out.add("get|" + written.get(r.nextInt(written.size())));
            } else if (op < 60) {
                out.add("fetch|" + key(r) + "|" + from + "|" + to);
            } else if (op < 66) {
                out.add("bfetch|" + key(r) + "|" + from + "|" + to);
            } else if (op < 76) {
                out.add("range|" + keyOrNull(r) + "|" + keyOrNull(r) + "|" + from + "|" + to);
            } else if (op < 82) {
                out.add("brange|" + keyOrNull(r) + "|" + keyOrNull(r) + "|" + from + "|" + to);
            } else if (op < 87) {
                out.add("fetchall|" + from + "|" + (r.nextInt(5) == 0 ? from - 1 : to));
            } else if (op < 91) {
                out.add("bfetchall|" + from + "|" + to);
            } else if (op < 96) {
                out.add("all");
            } else {
                out.add("ball");
            }
        }
        return out;
    }

    static List<String> sessionOps(long seed, int n) {
        Random r = new Random(seed);
        List<String> out = new ArrayList<>();
        List<String> written = new ArrayList<>(); // "key|start|end" of earlier puts
        for (int i = 0; i < n; i++) {
            long t = time(r, i);
            int op = r.nextInt(100);
            long earliestEnd = Math.max(0, t - r.nextInt(400_000));
            long latestStart = earliestEnd + r.nextInt(300_000) - 50_000;
            if (op < 40) {
                long end = t;
                long start = Math.max(0, end - r.nextInt(3) * r.nextInt(60_000));
                String v = r.nextInt(12) == 0 ? "" : "v" + i;
                String s = key(r) + "|" + start + "|" + end;
                out.add("put|" + s + "|" + v);
                written.add(s);
            } else if (op < 46 && !written.isEmpty()) {
                out.add("remove|" + written.get(r.nextInt(written.size())));
            } else if (op < 54 && !written.isEmpty()) {
                out.add("get|" + written.get(r.nextInt(written.size())));
            } else if (op < 62) {
                out.add("find|" + key(r) + "|" + earliestEnd + "|" + Math.max(0, latestStart)); // negative: both stores throw
            } else if (op < 68) {
                out.add("bfind|" + key(r) + "|" + earliestEnd + "|" + Math.max(0, latestStart));
            } else if (op < 78) {
                out.add("frange|" + keyOrNull(r) + "|" + keyOrNull(r) + "|" + earliestEnd + "|" + latestStart);
            } else if (op < 84) {
                out.add("bfrange|" + keyOrNull(r) + "|" + keyOrNull(r) + "|" + earliestEnd + "|" + latestStart);
            } else if (op < 89) {
                out.add("fetch|" + key(r));
            } else if (op < 92) {
                out.add("bfetch|" + key(r));
            } else if (op < 97) {
                out.add("fetchrange|" + keyOrNull(r) + "|" + keyOrNull(r));
            } else {
                out.add("bfetchrange|" + keyOrNull(r) + "|" + keyOrNull(r));
            }
        }
        return out;
    }

    private List<String> run(Topology topology, String dir, boolean caching, List<String> ops) {
        try (TopologyTestDriver d = new TopologyTestDriver(topology, props(dir, caching))) {
            TestInputTopic<String, String> in = d.createInputTopic("ops", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = d.createOutputTopic("results", Serdes.String().deserializer(), Serdes.String().deserializer());
            List<String> results = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) {
                in.pipeInput("op" + i, ops.get(i));
                results.addAll(out.readValuesToList());
            }
            // records put into expired segments: the task's dropped-records metric, as the built-in store counts them
            double dropped = d.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("dropped-records-total"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
            results.add("dropped-records-total " + dropped);
            return results;
        }
    }

    private static void assertSameResults(List<String> builtIn, List<String> ferry, String what) {
        assertEquals(builtIn.size(), ferry.size(), what);
        for (int i = 0; i < builtIn.size(); i++) {
            assertEquals(builtIn.get(i), ferry.get(i), what + ", operation " + i);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void windowStoreAnswersAsTheBuiltInStore(String kind) {
        List<String> ops = windowOps(11, 1_600);
        for (boolean caching : new boolean[] {false, true}) {
            List<String> builtIn = run(windowTopology(windowSupplier("builtin", false), caching), "wb" + caching, caching, ops);
            List<String> ferry = run(windowTopology(windowSupplier(kind, false), caching), "wf" + caching, caching, ops);
            assertSameResults(builtIn, ferry, kind + ", caching " + caching);
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("range|") && s.contains("=")), "some ranges are not empty");
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("get|") && !s.endsWith("-> null")), "some gets find a value");
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("get|") && s.endsWith("-> null")), "some gets find an expired window");
            assertTrue(builtIn.get(builtIn.size() - 1).matches("dropped-records-total [1-9].*"), "some puts were too late: " + builtIn.get(builtIn.size() - 1));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void windowStoreWithDuplicatesAnswersAsTheBuiltInStore(String kind) {
        List<String> ops = windowOps(12, 1_200);
        List<String> builtIn = run(windowTopology(windowSupplier("builtin", true), false), "db", false, ops);
        List<String> ferry = run(windowTopology(windowSupplier(kind, true), false), "df", false, ops);
        assertSameResults(builtIn, ferry, kind + " with duplicates");
        assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("fetch|") && s.split(";").length > 2), "some fetches return duplicates");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rocksdb", "lmdb"})
    void sessionStoreAnswersAsTheBuiltInStore(String kind) {
        for (boolean caching : new boolean[] {false, true}) {
            List<String> ops = sessionOps(13, 1_600);
            if (caching) {
                // Kafka's caching layer (not the store) throws "segment interval has changed" on a backward
                // find whose latest start lies before the segment of the latest session end: ask those up to
                // the end of time, as SessionStore.backwardFetch does
                ops.replaceAll(op -> op.startsWith("bfind|") || op.startsWith("bfrange|")
                        ? op.substring(0, op.lastIndexOf('|') + 1) + Long.MAX_VALUE : op);
            }
            List<String> builtIn = run(sessionTopology(sessionSupplier("builtin"), caching), "sb" + caching, caching, ops);
            List<String> ferry = run(sessionTopology(sessionSupplier(kind), caching), "sf" + caching, caching, ops);
            assertSameResults(builtIn, ferry, kind + ", caching " + caching);
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("frange|") && s.contains("=")), "some ranges are not empty");
            assertTrue(builtIn.stream().anyMatch(s -> s.startsWith("get|") && !s.endsWith("-> null")), "some gets find a session");
        }
    }
}
