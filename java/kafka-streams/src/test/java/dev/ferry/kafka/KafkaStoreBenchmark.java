package dev.ferry.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka Streams' built-in RocksDB store against Ferry's stores, through the same
 * {@code KeyValueStore<Bytes, byte[]>} interface, same data, same JVM: restoration of N changelog
 * records (batches of 1,000, as the restore consumer hands them over), full scans ({@code all()}),
 * 100-entry {@code range()} scans and point {@code get()}s. Not a test: run by hand
 * (docs/kafka-streams.md, "Measured").
 *
 * <p>Arguments: entries (default 500000), value bytes (default 100), rounds (default 5). Rounds
 * alternate between the stores; each figure is the median over the rounds.
 */
public final class KafkaStoreBenchmark {
    private KafkaStoreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
        int valueSize = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dir = Files.createTempDirectory("ferry-kafka-bench");
        Map<String, KeyValueBytesStoreSupplier> suppliers = new LinkedHashMap<>();
        suppliers.put("built-in RocksDB", Stores.persistentKeyValueStore("bench"));
        suppliers.put("Ferry RocksDB", FerryStores.persistentKeyValueStore("bench"));
        suppliers.put("Ferry LMDB", FerryStores.lmdbKeyValueStore("bench"));
        if (Boolean.getBoolean("bench.noWal")) { // what the write-ahead log costs Ferry-RocksDB
            suppliers.put("Ferry RocksDB, no WAL", FerryStores.persistentKeyValueStore("bench"));
        }

        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = String.format("k%015d", i).getBytes(StandardCharsets.US_ASCII);
        }
        Random r = new Random(1);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, r); // changelog order: as the keys were last updated
        List<List<ConsumerRecord<byte[], byte[]>>> batches = new ArrayList<>();
        for (int i = 0; i < n; i += 1000) {
            List<ConsumerRecord<byte[], byte[]>> b = new ArrayList<>();
            for (int j = i; j < Math.min(n, i + 1000); j++) {
                byte[] v = new byte[valueSize];
                r.nextBytes(v);
                b.add(new ConsumerRecord<>("bench-changelog", 0, j, keys[order.get(j)], v));
            }
            batches.add(b);
        }

        Map<String, KeyValueStore<Bytes, byte[]>> stores = new LinkedHashMap<>();
        Map<String, Double> restoreMs = new LinkedHashMap<>();
        for (Map.Entry<String, KeyValueBytesStoreSupplier> e : suppliers.entrySet()) {
            TestContext ctx = new TestContext(dir.resolve(e.getKey().replace(' ', '-')).toFile());
            ctx.configs.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "INFO");
            if (e.getKey().endsWith("no WAL")) {
                ctx.configs.put(FerryStoreConfig.OPTIONS_SETTER, NoWal.class);
            }
            KeyValueStore<Bytes, byte[]> s = e.getValue().get();
            s.init(ctx, s);
            long t0 = System.nanoTime();
            for (List<ConsumerRecord<byte[], byte[]>> b : batches) {
                if (ctx.restoreCallback instanceof RecordBatchingStateRestoreCallback) {
                    ((RecordBatchingStateRestoreCallback) ctx.restoreCallback).restoreBatch(b);
                } else {
                    List<KeyValue<byte[], byte[]>> kvs = new ArrayList<>(b.size());
                    for (ConsumerRecord<byte[], byte[]> c : b) {
                        kvs.add(KeyValue.pair(c.key(), c.value()));
                    }
                    ((BatchingStateRestoreCallback) ctx.restoreCallback).restoreAll(kvs);
                }
            }
            s.flush();
            restoreMs.put(e.getKey(), (System.nanoTime() - t0) / 1e6);
            stores.put(e.getKey(), s);
        }

        Map<String, List<Double>> all = new LinkedHashMap<>(), range = new LinkedHashMap<>(), get = new LinkedHashMap<>();
        long sink = 0;
        for (int round = 0; round < rounds + 1; round++) { // round 0 warms up
            for (Map.Entry<String, KeyValueStore<Bytes, byte[]>> e : stores.entrySet()) {
                KeyValueStore<Bytes, byte[]> s = e.getValue();
                long t0 = System.nanoTime();
                long seen = 0;
                try (KeyValueIterator<Bytes, byte[]> it = s.all()) {
                    while (it.hasNext()) {
                        KeyValue<Bytes, byte[]> kv = it.next();
                        sink += kv.key.get().length + kv.value[0];
                        seen++;
                    }
                }
                double allNs = (System.nanoTime() - t0) / (double) seen;
                if (seen != n) {
                    throw new IllegalStateException(e.getKey() + " scanned " + seen + " of " + n);
                }
                Random q = new Random(round);
                int ranges = 2000;
                t0 = System.nanoTime();
                seen = 0;
                for (int i = 0; i < ranges; i++) {
                    int from = q.nextInt(n - 100);
                    try (KeyValueIterator<Bytes, byte[]> it = s.range(Bytes.wrap(keys[from]), Bytes.wrap(keys[from + 99]))) {
                        while (it.hasNext()) {
                            sink += it.next().value[0];
                            seen++;
                        }
                    }
                }
                double rangeNs = (System.nanoTime() - t0) / (double) seen;
                int gets = 200_000;
                t0 = System.nanoTime();
                for (int i = 0; i < gets; i++) {
                    sink += s.get(Bytes.wrap(keys[q.nextInt(n)]))[0];
                }
                double getNs = (System.nanoTime() - t0) / (double) gets;
                if (round > 0) {
                    all.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(allNs);
                    range.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(rangeNs);
                    get.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(getNs);
                }
            }
        }
        for (KeyValueStore<Bytes, byte[]> s : stores.values()) {
            s.close();
        }
        String base = "built-in RocksDB";
        System.out.printf("%d entries, 16-byte keys, %d-byte values, %d rounds (median), JDK %s, binding %s%n",
                n, valueSize, rounds, Runtime.version(), System.getProperty("ferry.binding", "default"));
        System.out.println("| store | restore N (ms) | all() ns/entry | range(100) ns/entry | get ns/op | range speed-up vs built-in |");
        System.out.println("|---|---|---|---|---|---|");
        for (String k : stores.keySet()) {
            System.out.printf("| %s | %.0f | %.1f | %.1f | %.0f | %.2fx |%n", k, restoreMs.get(k), median(all.get(k)),
                    median(range.get(k)), median(get.get(k)), median(range.get(base)) / median(range.get(k)));
        }
        System.out.printf("all() speed-up vs built-in: Ferry RocksDB %.2fx, Ferry LMDB %.2fx (sink %d)%n",
                median(all.get(base)) / median(all.get("Ferry RocksDB")), median(all.get(base)) / median(all.get("Ferry LMDB")), sink);
        try (var walk = Files.walk(dir)) {
            walk.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Ferry-RocksDB without its write-ahead log, for comparison only (the store needs the log; see docs). */
    public static final class NoWal implements FerryStoreOptionsSetter {
        @Override
        public void setOptions(String storeName, dev.ferry.StoreOptions options, Map<String, Object> configs) {
            options.wal(false);
        }
    }

    private static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
