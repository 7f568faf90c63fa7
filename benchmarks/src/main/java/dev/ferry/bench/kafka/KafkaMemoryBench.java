package dev.ferry.bench.kafka;

import dev.ferry.kafka.FerryStoreConfig;
import dev.ferry.kafka.FerryStores;
import dev.ferry.kafka.KafkaBoundedMemoryRecipe;
import dev.ferry.kafka.TestContext;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Native memory of a Kafka Streams application with many RocksDB stores (issue 33.1): {@code stores}
 * key-value stores (20 partitions x 3 stores by default), each opened in its task directory through the
 * store suppliers and a {@link TestContext}, written round-robin with 16-byte keys and 1,000-byte random
 * values until {@code total} bytes are written, flushing every store each 30 s as Kafka Streams' commits do
 * (then 100,000 random gets), in four setups, each in a JVM of its own:
 * <ul>
 *   <li>{@code ferry-default}: Ferry's RocksDB stores with their defaults (a 50 MiB block cache and
 *       RocksDB's memtables per store);
 *   <li>{@code ferry-budget}: Ferry's stores sharing one budget of {@code budget} bytes
 *       ({@code ferry.rocksdb.memory.total.bytes}, memtable fraction 0.5, index/filter fraction 0.1);
 *   <li>{@code kafka-default}: Kafka's built-in RocksDB store with its defaults;
 *   <li>{@code kafka-bounded}: the built-in store with Kafka's documented bounded-memory recipe
 *       ({@link KafkaBoundedMemoryRecipe}: one LRUCache of {@code budget} bytes and a WriteBufferManager of
 *       half of it charged to the cache, index and filter blocks in the cache with high priority).
 * </ul>
 * The child samples its resident set (VmRSS) every 100 ms; the heap is fixed and pre-touched
 * ({@code -Xms=-Xmx, -XX:+AlwaysPreTouch}), so the growth of RSS over the baseline taken before the
 * first store opens is the stores' native memory (RocksDB's memtables, caches, index and filter
 * blocks, table readers, allocator slack). Reported: peak and end-of-run growth, in MiB.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar dev.ferry.bench.kafka.KafkaMemoryBench
 * [stores=60] [totalMiB=2048] [budgetMiB=256] [variants=ferry-default,ferry-budget,kafka-default,kafka-bounded]}.
 */
public final class KafkaMemoryBench {
    static final int KEY = 16;
    static final int VALUE = 1000;
    static final String[] NAMES = {"a", "b", "c"};
    /** Kafka Streams' default commit.interval.ms (30 s): a commit flushes every store. */
    static final long COMMIT_NANOS = 30_000_000_000L;

    private KafkaMemoryBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]) << 20, Long.parseLong(args[4]) << 20,
                    Path.of(args[5]));
            return;
        }
        int stores = 60;
        long totalMiB = 2048;
        long budgetMiB = 256;
        String variants = "ferry-default,ferry-budget,kafka-default,kafka-bounded";
        for (String a : args) {
            String[] kv = a.split("=", 2);
            switch (kv[0]) {
                case "stores" -> stores = Integer.parseInt(kv[1]);
                case "totalMiB" -> totalMiB = Long.parseLong(kv[1]);
                case "budgetMiB" -> budgetMiB = Long.parseLong(kv[1]);
                case "variants" -> variants = kv[1];
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        System.out.printf("%d stores, %d MiB written (%d-byte keys, %d-byte values), budget %d MiB, heap fixed at 256 MiB%n",
                stores, totalMiB, KEY, VALUE, budgetMiB);
        System.out.println("| setup | peak native MiB | native at end MiB | write s | MB/s |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (String v : variants.split(",")) {
            Path dir = Files.createTempDirectory("ferry-kafka-memory");
            try {
                List<String> cmd = new ArrayList<>(List.of(java, "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch",
                        "--enable-native-access=ALL-UNNAMED", "-Dkafka.recipe.total.bytes=" + (budgetMiB << 20)));
                for (String k : System.getProperties().stringPropertyNames()) { // attribution knobs (BenchOptions)
                    if (k.startsWith("bench.")) {
                        cmd.add("-D" + k + "=" + System.getProperty(k));
                    }
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), KafkaMemoryBench.class.getName(), "child", v,
                        String.valueOf(stores), String.valueOf(totalMiB), String.valueOf(budgetMiB), dir.toString()));
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                String result = null;
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null;) {
                        if (line.startsWith("| ")) {
                            result = line;
                        } else if (!line.contains("SLF4J")) {
                            System.err.println("  " + v + ": " + line);
                        }
                    }
                }
                int rc = p.waitFor();
                System.out.println(result != null && rc == 0 ? result : "| " + v + " | failed (exit " + rc + ") | | | |");
            } finally {
                delete(dir);
            }
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }

    /** This process's resident set as the kernel splits it: anonymous and file-backed pages, KiB (Linux /proc). */
    static String rssParts() {
        try {
            StringBuilder b = new StringBuilder();
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("RssAnon:") || l.startsWith("RssFile:") || l.startsWith("RssShmem:")) {
                    b.append(l.replaceAll("\\s+", " ")).append("; ");
                }
            }
            return b.toString();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * glibc's malloc account (mallinfo2, all arenas): bytes in use in the arenas and in mmapped chunks, and
     * free bytes the arenas hold (memory freed but not given back: resident where it was touched), MiB.
     */
    static String mallinfo() {
        try {
            java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
            var fn = linker.defaultLookup().find("mallinfo2");
            if (fn.isEmpty()) {
                return "";
            }
            var layout = java.lang.foreign.MemoryLayout.structLayout(java.util.stream.IntStream.range(0, 10)
                    .mapToObj(i -> java.lang.foreign.ValueLayout.JAVA_LONG).toArray(java.lang.foreign.MemoryLayout[]::new));
            var h = linker.downcallHandle(fn.get(), java.lang.foreign.FunctionDescriptor.of(layout));
            try (var arena = java.lang.foreign.Arena.ofConfined()) {
                var m = (java.lang.foreign.MemorySegment) h.invoke((java.lang.foreign.SegmentAllocator) arena);
                long arenaBytes = m.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 0);
                long mmapped = m.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 4);
                long inUse = m.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 7);
                long free = m.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 8);
                return String.format("malloc: arenas %d MiB (in use %d, free %d), mmapped %d MiB; ", arenaBytes >> 20,
                        inUse >> 20, free >> 20, mmapped >> 20);
            }
        } catch (Throwable t) {
            return "mallinfo2: " + t + "; ";
        }
    }

    /** Calls glibc's malloc_trim(0) (gives the arenas' free pages back to the system); false where there is none. */
    static boolean mallocTrim() {
        try {
            java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
            var fn = linker.defaultLookup().find("malloc_trim");
            if (fn.isEmpty()) {
                return false;
            }
            linker.downcallHandle(fn.get(), java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT,
                    java.lang.foreign.ValueLayout.JAVA_LONG)).invoke(0L);
            return true;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Resident set size of this process in bytes (Linux /proc). */
    static long rss() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmRSS:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) << 10;
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    static void configure(TestContext ctx, String variant, long budget) {
        ctx.configs.put(StreamsConfig.APPLICATION_ID_CONFIG, "memory-bench");
        if (variant.startsWith("ferry") && BenchOptions.active()) {
            ctx.configs.put(FerryStoreConfig.OPTIONS_SETTER, BenchOptions.class);
        }
        switch (variant) {
            case "ferry-budget" -> ctx.configs.put(FerryStoreConfig.ROCKSDB_MEMORY_TOTAL_BYTES, budget);
            case "kafka-bounded" -> ctx.configs.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, KafkaBoundedMemoryRecipe.class);
            default -> { }
        }
    }

    /**
     * RocksDB's account of the stores' memory at the end of the run, from their KIP-607 metrics (the
     * built-in store's and Ferry's report the same names): memtables (summed), table readers beyond
     * the cache (summed), block cache usage and pinned usage (the largest one store reports: with a
     * shared cache every store reports the one cache), and the table files on disk.
     */
    static String attribution(List<TestContext> contexts, Path dir, long openKiB) throws IOException {
        Map<String, java.math.BigInteger> sum = new java.util.TreeMap<>();
        Map<String, java.math.BigInteger> max = new java.util.TreeMap<>();
        for (TestContext ctx : contexts) {
            for (var e : ((org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl) ctx.metrics())
                    .metrics().entrySet()) {
                if (!e.getKey().group().equals("stream-state-metrics") || !(e.getValue().metricValue() instanceof java.math.BigInteger v)) {
                    continue;
                }
                sum.merge(e.getKey().name(), v, java.math.BigInteger::add);
                max.merge(e.getKey().name(), v, java.math.BigInteger::max);
            }
        }
        long sst;
        try (Stream<Path> s = Files.walk(dir)) {
            sst = s.filter(f -> f.toString().endsWith(".sst")).count();
        }
        return String.format(rssParts() + mallinfo() + "open %d KiB; memtables %s MiB (cur-size-all-mem-tables), table readers %s MiB, "
                + "block cache usage %s MiB (sum %s), pinned %s MiB (sum %s), %d table files, %s MiB in them",
                openKiB, mib(sum.get("cur-size-all-mem-tables")), mib(sum.get("estimate-table-readers-mem")),
                mib(max.get("block-cache-usage")), mib(sum.get("block-cache-usage")), mib(max.get("block-cache-pinned-usage")),
                mib(sum.get("block-cache-pinned-usage")), sst, mib(sum.get("total-sst-files-size")));
    }

    private static String mib(java.math.BigInteger b) {
        return b == null ? "-" : String.format("%.1f", b.doubleValue() / (1 << 20));
    }

    /**
     * Ferry-only knobs for attributing the memory (system properties, forwarded to the child):
     * {@code bench.wal=false} opens the stores without the write-ahead log, {@code bench.rocksdb=<options string>}
     * adds RocksDB options ({@link dev.ferry.StoreOptions#rocksdbOptions}).
     */
    public static final class BenchOptions implements dev.ferry.kafka.FerryStoreOptionsSetter {
        static boolean active() {
            return System.getProperty("bench.wal") != null || System.getProperty("bench.rocksdb") != null;
        }

        @Override
        public void setOptions(String storeName, dev.ferry.StoreOptions options, Map<String, Object> configs) {
            if (System.getProperty("bench.wal") != null) {
                options.wal(Boolean.parseBoolean(System.getProperty("bench.wal")));
            }
            if (System.getProperty("bench.rocksdb") != null) {
                options.rocksdbOptions(System.getProperty("bench.rocksdb"));
            }
        }
    }

    @SuppressWarnings("unchecked")
    static KeyValueStore<Bytes, byte[]> open(String variant, String name, TestContext ctx) {
        KeyValueStore<Bytes, byte[]> s = (KeyValueStore<Bytes, byte[]>) (variant.startsWith("ferry")
                ? FerryStores.persistentKeyValueStore(name).get()
                : Stores.persistentKeyValueStore(name).get());
        s.init(ctx, s);
        return s;
    }

    static void child(String variant, int n, long total, long budget, Path dir) throws Exception {
        // warm-up: load the engine, Kafka's and Ferry's classes and code with one store, so that the baseline
        // below holds them and the growth is the stores' own
        TestContext warm = new TestContext(dir.resolve("warm-up").toFile());
        configure(warm, variant, budget);
        KeyValueStore<Bytes, byte[]> w = open(variant, "w", warm);
        w.put(Bytes.wrap(new byte[KEY]), new byte[VALUE]);
        w.flush();
        w.get(Bytes.wrap(new byte[KEY]));
        w.close();
        System.gc();
        Thread.sleep(200);
        long base = rss();
        long[] peak = {base};
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                long r = rss();
                synchronized (peak) {
                    peak[0] = Math.max(peak[0], r);
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.setDaemon(true);
        sampler.start();
        List<KeyValueStore<Bytes, byte[]>> stores = new ArrayList<>();
        List<TestContext> contexts = new ArrayList<>();
        int partitions = (n + NAMES.length - 1) / NAMES.length;
        for (int p = 0; p < partitions && stores.size() < n; p++) {
            TestContext ctx = new TestContext(dir.resolve("0_" + p).toFile());
            configure(ctx, variant, budget);
            contexts.add(ctx);
            for (int i = 0; i < NAMES.length && stores.size() < n; i++) {
                stores.add(open(variant, NAMES[i], ctx));
            }
        }
        Thread.sleep(200);
        long opened = rss();
        SplittableRandom random = new SplittableRandom(7);
        byte[] value = new byte[VALUE];
        long records = total / (KEY + VALUE);
        long t0 = System.nanoTime();
        long lastCommit = t0;
        for (long r = 0; r < records; r++) {
            KeyValueStore<Bytes, byte[]> s = stores.get((int) (r % stores.size()));
            byte[] key = String.format("k%015d", r / stores.size()).getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < VALUE; i += 8) {
                long x = random.nextLong();
                for (int j = 0; j < 8 && i + j < VALUE; j++) {
                    value[i + j] = (byte) (x >>> (8 * j));
                }
            }
            s.put(Bytes.wrap(key), value.clone());
            if ((r & 1023) == 0 && System.nanoTime() - lastCommit > COMMIT_NANOS) {
                for (KeyValueStore<Bytes, byte[]> st : stores) {
                    st.flush();   // Kafka Streams commits, and flushes its stores, every 30 s by default
                }
                lastCommit = System.nanoTime();
            }
        }
        // read back a sample of keys: the caches and index blocks come into play
        for (long r = 0; r < Math.min(records, 100_000); r++) {
            long k = random.nextLong(records);
            stores.get((int) (k % stores.size())).get(Bytes.wrap(
                    String.format("k%015d", k / stores.size()).getBytes(StandardCharsets.US_ASCII)));
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(500);
        long end = rss();
        sampler.interrupt();
        long pk;
        synchronized (peak) {
            pk = Math.max(peak[0], end);
        }
        // where the memory is, by RocksDB's own account (the stores' KIP-607 metrics, both store kinds)
        System.out.printf("attribution: %s%n", attribution(contexts, dir, (opened - base) >> 10));
        if (mallocTrim()) { // what of the growth is memory the allocator holds freed: glibc gives it back
            Thread.sleep(200);
            System.out.printf("attribution: after malloc_trim(0) native %d MiB (%s%s)%n", (rss() - base) >> 20, rssParts(), mallinfo());
        }
        for (KeyValueStore<Bytes, byte[]> s : stores) {
            s.close();
        }
        System.out.printf("| %s | %d | %d | %.1f | %.1f |%n", variant, (pk - base) >> 20, (end - base) >> 20, secs,
                records * (KEY + VALUE) / secs / 1e6);
    }
}
