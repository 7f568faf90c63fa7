package dev.ferry.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Turns a results directory into {@code summary.csv}, {@code report.md} and PNG charts.
 *
 * <p>Input: {@code jmh-result.json} (or every {@code jmh-*.json}) written by JMH with
 * {@code -rf json}, plus {@code machine.txt}, {@code interleaved.txt}, {@code interleaved-gets.txt}, {@code parallel.txt},
 * {@code flink.csv}, {@code flink-job.csv} ({@link FlinkSection}), {@code callgrind.txt} ({@link CallgrindSection}) and {@code floor.txt} when present. Any of them may be missing: the report shows what there is,
 * so it can be re-rendered from a saved results directory at any time. Naming
 * convention read here (see benchmarks/README.md): the class is the workload family
 * ({@code ScanBench}, {@code GetBench}, {@code PutBench}, {@code BatchBench}, {@code CallBench};
 * peers prefix it with {@code RocksJava} or {@code LmdbJava}, which fixes the engine), the method
 * is the variant ({@code ferry}, {@code ferryScan}, {@code floor}, {@code rocksjavaBytes}, ...).
 * Scan scores are per whole scan and are divided by the {@code entries} parameter here, so every
 * {@code ns_per_op} in the summary is per entry (scans) or per call/get/put (the rest).
 * {@code ratio_to_native} divides by the in-process floor ({@code floor} method) of the same
 * family, engine, workload and value size measured in the same run.
 *
 * <p>Usage: {@code Report <results dir>} or {@code Report --merge <out.json> <in.json>...}.
 */
public final class Report {
    private Report() {
    }

    /** One summary row. */
    static final class Row {
        String family;
        String engine;
        String variant;
        String workload;
        String valueSize;
        int threads;
        double ns;
        double nsErr;
        double alloc = Double.NaN;
        double allocErr = Double.NaN;
        double ratio = Double.NaN;
        double ratioErr = Double.NaN;
        /** Kafka family: the built-in store's time over this row's (2.0 = twice as fast). */
        double speedup = Double.NaN;
        double speedupErr = Double.NaN;
        int samples;
    }

    /**
     * @param args a results directory, or --merge out in...
     * @throws IOException on I/O failure
     */
    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (args.length >= 2 && args[0].equals("--merge")) {
            List<Object> all = new ArrayList<>();
            for (int i = 2; i < args.length; i++) {
                all.addAll(list(Json.parse(Files.readString(Path.of(args[i])))));
            }
            Files.writeString(Path.of(args[1]), Json.write(all));
            return;
        }
        if (args.length != 1) {
            System.err.println("usage: Report <results dir> | Report --merge <out.json> <in.json>...");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        List<Object> results = new ArrayList<>();
        Path merged = dir.resolve("jmh-result.json");
        if (Files.exists(merged)) {
            results.addAll(list(Json.parse(Files.readString(merged))));
        } else {
            try (Stream<Path> s = Files.list(dir)) {
                for (Path p : s.filter(p -> p.getFileName().toString().matches("jmh-.*\\.json")).sorted().toList()) {
                    results.addAll(list(Json.parse(Files.readString(p))));
                }
            }
        }
        List<Row> rows = rows(results);
        ratios(rows);
        writeCsv(dir.resolve("summary.csv"), rows);
        List<Inter> inter = interleaved(dir);
        Map<String, List<String>> charts = charts(dir, rows, inter);
        writeMarkdown(dir, rows, inter, charts);
        System.out.println("report: " + rows.size() + " JMH rows, " + inter.size() + " interleaved lines -> " + dir.resolve("summary.csv")
                + ", " + dir.resolve("report.md") + ", " + charts.values().stream().mapToInt(List::size).sum() + " charts");
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return o instanceof List ? (List<Object>) o : List.of();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map ? (Map<String, Object>) o : Map.of();
    }

    static double num(Object o) {
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        if (o instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    static List<Row> rows(List<Object> results) {
        List<Row> rows = new ArrayList<>();
        for (Object o : results) {
            Map<String, Object> r = map(o);
            String bench = String.valueOf(r.get("benchmark"));
            String[] parts = bench.split("\\.");
            String cls = parts[parts.length - 2];
            String method = parts[parts.length - 1];
            Map<String, Object> params = map(r.get("params"));
            Row row = new Row();
            String fixedEngine = null;
            String base = cls;
            if (cls.startsWith("RocksJava")) {
                fixedEngine = "rocksdb";
                base = cls.substring("RocksJava".length());
            } else if (cls.startsWith("LmdbJava")) {
                fixedEngine = "lmdb";
                base = cls.substring("LmdbJava".length());
            }
            row.family = base.replace("Bench", "").toLowerCase(Locale.ROOT);
            Object eng = params.get("engine");
            row.engine = fixedEngine != null ? fixedEngine : eng != null ? eng.toString().toLowerCase(Locale.ROOT) : "-";
            String binding = params.get("binding") == null ? null : params.get("binding").toString();
            row.valueSize = params.get("valueSize") == null ? "-" : params.get("valueSize").toString();
            row.threads = (int) num(r.get("threads"));
            switch (row.family) {
                case "scan" -> row.workload = "scan-" + params.getOrDefault("direction", "forward");
                case "get" -> row.workload = "get-random";
                case "put", "batch" -> row.workload = row.family + "-" + params.getOrDefault("order", "seq");
                case "call" -> row.workload = method.toLowerCase(Locale.ROOT).contains("noop") ? "noop" : method;
                default -> row.workload = row.family;
            }
            if (row.family.equals("ingest")) { // IngestBench: bulk loads of a new RocksDB store
                row.engine = "rocksdb";
                row.workload = "bulk-load";
            }
            if (row.family.equals("kafka")) { // KafkaBench (Ferry's stores), RocksJavaKafkaBench (Kafka's built-in store)
                row.workload = method;
                row.variant = fixedEngine != null ? "kafka-builtin" : "ferry-" + binding;
            }
            boolean interop = cls.equals("InteropScanBench");
            if (interop) {
                // RocksJava's own iterator loop vs the same iterator wrapped by Ferry, same JVM
                row.family = "scan";
                row.engine = "rocksdb";
                row.workload = "scan-forward";
            }
            if (interop) {
                row.variant = method.equals("rocksjavaInterop") ? "rocksjava-interop-" + binding : method + "@interop-" + binding;
            } else if (row.family.equals("call") && row.workload.equals("noop")) {
                row.variant = switch (method) {
                    case "jniNoop" -> "jni";
                    case "ffmNoop" -> "ffm";
                    case "ffmNoopCritical" -> "ffm-critical";
                    default -> method;
                };
            } else if (row.family.equals("kafka")) {
                // named above
            } else if (method.equals("floor") || fixedEngine != null || binding == null) {
                row.variant = method;
            } else if (row.family.equals("call")) {
                row.variant = "ferry-" + binding;
            } else {
                row.variant = method + "-" + binding;
            }
            Map<String, Object> pm = map(r.get("primaryMetric"));
            double div = 1;
            if (params.get("entries") != null && (row.family.equals("scan") || row.family.equals("ingest")
                    || row.family.equals("kafka") && (method.equals("all") || method.equals("restore")))) {
                div = num(params.get("entries"));
            }
            String unit = String.valueOf(pm.get("scoreUnit"));
            double toNs = unit.startsWith("us") ? 1e3 : unit.startsWith("ms") ? 1e6 : unit.startsWith("s/") ? 1e9 : 1;
            row.ns = num(pm.get("score")) * toNs / div;
            row.nsErr = num(pm.get("scoreError")) * toNs / div;
            row.samples = list(pm.get("rawData")).stream().mapToInt(x -> list(x).size()).sum();
            Map<String, Object> sec = map(r.get("secondaryMetrics"));
            for (Map.Entry<String, Object> e : sec.entrySet()) {
                if (e.getKey().endsWith("gc.alloc.rate.norm")) {
                    row.alloc = num(map(e.getValue()).get("score")) / div;
                    row.allocErr = num(map(e.getValue()).get("scoreError")) / div;
                }
            }
            rows.add(row);
        }
        return rows;
    }

    static String key(Row r) {
        return r.family + "|" + r.engine + "|" + r.workload + "|" + r.valueSize;
    }

    static void ratios(List<Row> rows) {
        for (Row r : rows) { // Kafka stores: against Kafka's built-in store on the same workload and data
            if (!r.family.equals("kafka")) {
                continue;
            }
            for (Row b : rows) {
                if (b.family.equals("kafka") && b.variant.equals("kafka-builtin") && b.workload.equals(r.workload)
                        && b.valueSize.equals(r.valueSize)) {
                    r.speedup = b.ns / r.ns;
                    r.speedupErr = r == b ? Double.NaN : quotientErr(b.ns, b.nsErr, r.ns, r.nsErr);
                }
            }
        }
        Map<String, double[]> floors = new TreeMap<>();
        for (Row r : rows) {
            if (r.variant.equals("floor")) {
                double[] a = floors.computeIfAbsent(key(r), k -> new double[3]);
                a[0] += r.ns;
                a[1] += r.nsErr;
                a[2]++;
            }
        }
        for (Row r : rows) {
            double[] f = floors.get(key(r));
            if (f != null && f[2] > 0) {
                double fns = f[0] / f[2];
                double ferr = f[1] / f[2];
                r.ratio = r.ns / fns;
                double rel = Math.hypot(r.nsErr / r.ns, ferr / fns);
                r.ratioErr = r.variant.equals("floor") ? Double.NaN : r.ratio * rel; // the floor is 1 by definition
            }
        }
    }

    static String f(double v, int digits) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    static void writeCsv(Path p, List<Row> rows) throws IOException {
        StringBuilder sb = new StringBuilder(
                "engine,binding_or_peer,workload,key_size,value_size,threads,ns_per_op,ns_per_op_error,ops_per_s,ratio_to_native,ratio_error,alloc_bytes_per_op,alloc_error,family\n");
        for (Row r : rows) {
            sb.append(r.engine).append(',').append(r.variant).append(',').append(r.workload).append(',')
                    .append(r.family.equals("call") && r.workload.equals("noop") ? "-" : "16").append(',')
                    .append(r.valueSize).append(',').append(r.threads).append(',')
                    .append(f(r.ns, 3)).append(',').append(f(r.nsErr, 3)).append(',')
                    .append(f(1e9 / r.ns, 0)).append(',').append(f(r.ratio, 3)).append(',').append(f(r.ratioErr, 3)).append(',')
                    .append(f(r.alloc, 3)).append(',').append(f(r.allocErr, 3)).append(',').append(r.family).append('\n');
        }
        Files.writeString(p, sb.toString(), StandardCharsets.UTF_8);
    }

    /** Who a variant is: Ferry, a peer library or the C floor. Fixes colour and order in charts and tables. */
    enum Kind {
        FERRY("Ferry"), PEER("peers"), FLOOR("C floor");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * @param variant a variant's name as the report prints it
     * @return whose code it runs
     */
    static Kind kind(String variant) {
        if (variant.startsWith("floor")) {
            return Kind.FLOOR;
        }
        if (variant.startsWith("rocksjava-interop-")) {
            return Kind.FERRY; // RocksJava's iterator, read through Ferry
        }
        if (variant.startsWith("rocksjava") || variant.startsWith("lmdbjava") || variant.equals("kafka-builtin")) {
            return Kind.PEER;
        }
        return Kind.FERRY;
    }

    /**
     * @param variant a variant's name as the report prints it
     * @return the name with the binding and page size made generic ({@code ferry-jni-into} to
     *     {@code ferry-<binding>-into}), the form the glossary explains
     */
    static String generic(String variant) {
        return variant.replaceAll("-(jni|ffm)(?=$|-)", "-<binding>").replaceAll("-page\\d+$", "-page<bytes>");
    }

    /** Display order inside each kind; names not listed come after, by name. */
    private static final List<String> ORDER = List.of("ferry-<binding>", "ferryScan-<binding>", "ferryInto-<binding>",
            "ferry-<binding>-into", "ferry-<binding>-snapshot", "ferry-<binding>-multiget", "ferry-<binding>-steps", "ferry-<binding>-pointers", "ferry-<binding>-rw", "ferry-<binding>-novalue",
            "ferry-<binding>-page<bytes>", "rocksjava-interop-<binding>", "jni", "ffm", "ffm-critical", "rocksjavaBytes",
            "rocksjavaReuse", "rocksjavaDirect", "rocksjavaBytes@interop-<binding>", "rocksjava", "lmdbjava", "floor", "floor-copy", "floor-fresh", "floor-fresh-copy");

    /** Ferry first, then the peers, then the floor; a fixed order within each, never alphabetical alone. */
    static final Comparator<String> VARIANT_ORDER = Comparator.<String>comparingInt(v -> kind(v).ordinal())
            .thenComparingInt(v -> {
                int i = ORDER.indexOf(generic(v));
                return i < 0 ? ORDER.size() : i;
            })
            .thenComparingInt(v -> v.contains("ffm") ? 1 : 0) // jni before ffm
            .thenComparing(Comparator.naturalOrder());

    /**
     * What each variant name means, by family ({@code scan}, {@code get}, {@code seek}, {@code put},
     * {@code batch}, {@code call}); family {@code *} applies to any. Keys are generic names.
     */
    static final Map<String, String> GLOSSARY = new LinkedHashMap<>();

    static {
        g("*", "floor", "the C floor: the same work as a C loop over the same engine binary, data and options, called in-process "
                + "(one JNI call for a whole scan or a batch of operations, so Java's share is negligible). The reference every "
                + "\"x floor\" divides by.");
        g("get", "floor-fresh", "LMDB only: the C floor with its read transaction renewed and reset around every get, what reading "
                + "the latest state costs (`floor` reads every key inside one read transaction, as a snapshot does).");
        g("get", "floor-copy", "the C floor copying every value it reads into one reused buffer (`floor` reads only a value's first "
                + "and last byte; `Store.get` must deliver every byte): the least a get that returns the whole value costs.");
        g("get", "floor-fresh-copy", "LMDB only: `floor-fresh` copying every value, as `floor-copy`.");
        g("scan", "ferry-<binding>", "Ferry's `Cursor` loop (`first()`/`next()`, or `last()`/`prev()` in reverse) through the JNI or "
                + "FFM binding: one native call fills a page of entries, Java reads key and value views over it.");
        g("scan", "ferryScan-<binding>", "Ferry's `Store.scan(range, visitor)`: a forward scan calling back once per entry, over the same pages.");
        g("scan", "ferry-<binding>-page<bytes>", "the Ferry cursor loop with pages of that many bytes (`-Dferry.bench.pageSizes`).");
        g("scan", "ferry-<binding>-pointers", "RocksDB: the Ferry cursor loop over pointer pages (`CursorOptions.pointers(true)`: "
                + "values read where RocksDB's pinned blocks hold them, not copied; `-Dferry.bench.pointers=true`), on a read-write "
                + "copy of the data set (RocksDB serves the compacted data set opened read-only in its compacted-DB mode, where "
                + "Ferry keeps copy pages).");
        g("scan", "ferry-<binding>-rw", "RocksDB: the Ferry cursor loop over copy pages on the read-write copy that `ferry-<binding>-pointers` "
                + "reads (`-Dferry.bench.pointers=true`).");
        g("scan", "ferry-<binding>-novalue", "diagnostic: the Ferry cursor loop reading keys and value lengths but no value byte "
                + "(`-Dferry.bench.noValueBytes=true`); not the same work as the floor, so its ratio is not a result.");
        g("scan", "ferry-<binding>-steps", "LMDB: the Ferry cursor loop with the leaf-page walk off (`CursorOptions.pageWalk(false)`): "
                + "every entry stepped by `mdb_cursor_get`.");
        g("scan", "rocksjava-interop-<binding>", "a RocksJava `RocksIterator` wrapped by Ferry (`RocksInterop.wrap`) and read as a Ferry "
                + "cursor: what existing RocksJava code gains by switching its loop.");
        g("scan", "rocksjavaBytes", "RocksJava's plain loop: `isValid()`, `key()`, `value()` (two new `byte[]` per entry), `next()`.");
        g("scan", "rocksjavaReuse", "RocksJava's loop reading `key(byte[])` and `value(byte[])` into reused arrays.");
        g("scan", "rocksjavaDirect", "RocksJava's loop reading `key(ByteBuffer)` and `value(ByteBuffer)` into reused direct buffers.");
        g("scan", "rocksjavaBytes@interop-<binding>", "`rocksjavaBytes` as measured by `InteropScanBench`, beside "
                + "`rocksjava-interop-<binding>` in the same JVM.");
        g("scan", "lmdbjava", "lmdbjava's cursor loop (`first()`/`next()` or `last()`/`prev()`, key and value as `ByteBuffer`s).");
        g("get", "ferry-<binding>", "Ferry's `Store.get(key)`: the latest state, a new `byte[]` per value.");
        g("get", "ferryInto-<binding>", "Ferry's `Store.get(cf, key, ByteBuffer)` into a reused direct buffer.");
        g("get", "ferry-<binding>-into", "Ferry's `Store.get(cf, key, ByteBuffer)` into a reused direct buffer.");
        g("get", "ferry-<binding>-snapshot", "Ferry's `Snapshot.get(key)`, one snapshot per pass (LMDB: one read transaction, as `floor`).");
        g("get", "ferry-<binding>-multiget", "Ferry's `Store.multiGet`, 100 keys per call.");
        g("get", "rocksjava", "RocksJava's `RocksDB.get(byte[])`.");
        g("get", "lmdbjava", "lmdbjava's `Dbi.get(txn, key)`, one read transaction per 1,000 gets.");
        g("seek", "floor", "the C floor: a new engine iterator (cursor) per seek, 10 entries read from the key on, closed.");
        g("seek", "ferry-<binding>", "a new Ferry cursor per seek, `seek(key)` and 10 entries read, closed (db_bench's seekrandom).");
        g("seek", "rocksjava", "a new RocksJava `RocksIterator` per seek, `seek(key)` and 10 entries read, closed.");
        g("seek", "lmdbjava", "a new lmdbjava cursor per seek, 10 entries read, closed.");
        g("put", "ferry-<binding>", "Ferry's `Store.put` of one entry into a fresh store.");
        g("put", "rocksjava", "RocksJava's `RocksDB.put(WriteOptions, key, value)`.");
        g("put", "lmdbjava", "lmdbjava's `Dbi.put(key, value)`, one write transaction each.");
        g("batch", "ferry-<binding>", "a reused Ferry `WriteBatch` of 1,000 puts committed by `Store.write`; time per put.");
        g("batch", "rocksjava", "a RocksJava `WriteBatch` of 1,000 puts and `RocksDB.write`; time per put.");
        g("batch", "lmdbjava", "1,000 lmdbjava puts in one write transaction; time per put.");
        g("txn", "ferry-<binding>", "one Ferry transaction: `beginTransaction`, `getForUpdate`, `put`, `commit`, `close` (RocksDB: "
                + "a pessimistic TransactionDB store; LMDB: its write transaction); time per transaction.");
        g("txn", "rocksjava", "one RocksJava `TransactionDB` transaction: `beginTransaction`, `getForUpdate`, `put`, `commit`, `close`.");
        g("txn", "lmdbjava", "one lmdbjava write transaction: `txnWrite`, `Dbi.get`, `Dbi.put`, `commit`, `close`.");
        g("ingest", "batch-<binding>", "Ferry `WriteBatch`es of 10,000 sorted entries with the write-ahead log, then `Store.flush()`: "
                + "a new store until its data is in table files; time per entry, store open and close included.");
        g("ingest", "batchNoWal-<binding>", "the same with `StoreOptions.wal(false)`.");
        g("ingest", "sst-<binding>", "Ferry's `SstFileWriter` writing the sorted entries to one file, then `Store.ingest(cf, files, move)` into the new store.");
        g("kafka", "ferry-<binding>", "Ferry's Kafka Streams store (`FerryStores.persistentKeyValueStore` on RocksDB, "
                + "`FerryStores.lmdbKeyValueStore` on LMDB, default configuration) through `KeyValueStore<Bytes, byte[]>`, on that binding.");
        g("kafka", "kafka-builtin", "Kafka Streams' built-in RocksDB store (`Stores.persistentKeyValueStore`: RocksJava, Kafka's "
                + "default RocksDB configuration) through the same interface, same data.");
        g("call", "jni", "an empty C function (`ferry_noop`) called through JNI.");
        g("call", "ffm", "an empty C function (`ferry_noop`) called through an FFM downcall handle.");
        g("call", "ffm-critical", "an empty C function called through an FFM handle made with `Linker.Option.critical(true)` (no thread "
                + "state change).");
        g("call", "ferry-<binding>", "one Ferry call through the JNI or FFM binding, the one the workload names: `get` (`Store.get`), "
                + "`put` (`Store.put`), `cursorStep` (`Cursor.next()` with its share of page refills), `pageFill` (one native page fill, "
                + "no Java walk).");
    }

    private static void g(String family, String name, String text) {
        GLOSSARY.put(family + "|" + name, text);
    }

    /**
     * @param family the family a name appears in
     * @param variant the name as printed
     * @return what it means, or null when the glossary does not know it
     */
    static String explain(String family, String variant) {
        String n = generic(variant);
        String t = GLOSSARY.get(family + "|" + n);
        return t != null ? t : GLOSSARY.get("*|" + n);
    }

    /** One line of interleaved.txt or interleaved-gets.txt. */
    record Inter(String family, String engine, String jvm, String valueSize, String workload, String variant, double ns, double ratio,
            double ratioErr) {
    }

    /**
     * Reads the interleaved runs' lines (scans, gets and seeks).
     *
     * @param dir the results directory
     * @return one entry per line, in file order
     * @throws IOException on I/O failure
     */
    static List<Inter> interleaved(Path dir) throws IOException {
        List<Inter> out = new ArrayList<>();
        for (String file : List.of("interleaved.txt", "interleaved-gets.txt")) {
            Path p = dir.resolve(file);
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                Inter i = parseInter(line);
                if (i != null) {
                    out.add(i);
                }
            }
        }
        return out;
    }

    /**
     * @param line a line printed by {@code Interleaved} or {@code InterleavedGets}
     * @return it parsed, or null for any other line; {@code ratioErr} is NaN when the line has none
     */
    static Inter parseInter(String line) {
        boolean gets = line.startsWith("interleaved-gets ");
        if (!gets && !line.startsWith("interleaved ")) {
            return null;
        }
        Map<String, String> kv = new LinkedHashMap<>();
        for (String tok : line.substring(line.indexOf(' ') + 1).split(" ")) {
            int eq = tok.indexOf('=');
            if (eq > 0) {
                kv.put(tok.substring(0, eq), tok.substring(eq + 1));
            }
        }
        String ns = kv.getOrDefault("best_ns_per_entry", kv.getOrDefault("best_ns_per_get", kv.get("best_ns_per_seek")));
        if (ns == null || kv.get("variant") == null || kv.get("ratio_to_floor") == null) {
            return null;
        }
        String workload = gets ? kv.getOrDefault("workload", "get") : "scan-" + kv.get("direction");
        String family = !gets ? "scan" : workload.startsWith("seek") ? "seek" : "get";
        return new Inter(family, kv.get("engine"), kv.get("jvm_binding"), kv.get("value_size"), workload, kv.get("variant"),
                num(ns), num(kv.get("ratio_to_floor")), kv.containsKey("ratio_err") ? num(kv.get("ratio_err")) : Double.NaN);
    }

    /**
     * Judges a figure against a target, taking its error into account: MET only when the figure
     * minus (or plus) its error still meets the target, MISSED only when the figure plus (or minus)
     * its error still misses it, UNDECIDED when the target lies inside the error, and never MET when
     * the error is as large as the figure itself.
     *
     * @param value the figure
     * @param err its error (half-width); NaN when unknown
     * @param limit the target
     * @param atMost true when the figure must be at most the limit, false when at least
     * @return the verdict, one of MET, MISSED, UNDECIDED, NOT JUDGED, with a reason where needed
     */
    static String verdict(double value, double err, double limit, boolean atMost) {
        if (Double.isNaN(value)) {
            return "NO DATA";
        }
        if (!Double.isNaN(err) && Math.abs(err) >= Math.abs(value)) {
            return "NOT JUDGED (error as large as the figure)";
        }
        boolean holds = atMost ? value <= limit : value >= limit;
        if (Double.isNaN(err)) {
            return (holds ? "MET" : "MISSED") + " (no error estimate)";
        }
        double e = Math.abs(err);
        boolean worstHolds = atMost ? value + e <= limit : value - e >= limit;
        boolean bestHolds = atMost ? value - e <= limit : value + e >= limit;
        if (worstHolds) {
            return "MET";
        }
        if (!bestHolds) {
            return "MISSED";
        }
        return "UNDECIDED (the target is inside the error)";
    }

    /**
     * @param a a ratio
     * @param ae its error
     * @param b another ratio
     * @param be its error
     * @return the error of a / b from the two relative errors (NaN when either is unknown)
     */
    static double quotientErr(double a, double ae, double b, double be) {
        return (a / b) * Math.hypot(ae / a, be / b);
    }

    /** The peer a Ferry figure is compared to: RocksJava's plain loop, or lmdbjava. */
    static String peerOf(String family, String engine) {
        if (engine.equals("lmdb")) {
            return "lmdbjava";
        }
        return family.equals("scan") ? "rocksjavaBytes" : "rocksjava";
    }

    private static String pm(double v, double e, int digits) {
        return f(v, digits) + (Double.isNaN(e) ? "" : " ± " + f(e, digits));
    }

    static String targets(List<Inter> inter, List<Row> rows) {
        StringBuilder t = new StringBuilder("## Targets\n\n")
                .append("The project's targets, judged on this run. Scan ratios come from the interleaved runs (the figures of record); "
                        + "allocation, empty calls and the JMH interop pair from JMH. A verdict takes the error into account: MET only "
                        + "when the figure still meets the target at the unfavourable end of its error, MISSED only when it still misses "
                        + "it at the favourable end, UNDECIDED in between, and a figure whose error is as large as itself is never MET. "
                        + "Speed-ups are peer time over Ferry time (2.0 = twice as fast).\n\n")
                .append("| target | measured | verdict |\n|---|---|---|\n");
        Map<String, Inter> byKey = new LinkedHashMap<>();
        for (Inter i : inter) {
            byKey.put(i.family + "|" + i.engine + "|" + i.jvm + "|" + i.valueSize + "|" + i.workload + "|" + i.variant, i);
        }
        boolean rocksForward = false;
        for (Inter i : inter) {
            if (!i.family.equals("scan")) {
                continue;
            }
            String jvm = "scan|" + i.engine + "|" + i.jvm + "|" + i.valueSize + "|" + i.workload + "|";
            String what = i.engine + " " + i.valueSize + " B " + i.workload + ", " + i.variant;
            if (i.variant.startsWith("rocksjava-interop-")) {
                Inter loop = byKey.get(jvm + "rocksjavaBytes");
                if (loop != null) {
                    double sp = loop.ratio / i.ratio;
                    double se = quotientErr(loop.ratio, loop.ratioErr, i.ratio, i.ratioErr);
                    t.append("| RocksJava iterator wrapped by Ferry (").append(i.jvm).append(", ").append(i.valueSize)
                            .append(" B, interleaved) >= 2x faster than the same iterator's loop | ").append(pm(sp, se, 2)).append("x | ")
                            .append(verdict(sp, se, 2.0, false)).append(" |\n");
                }
                continue;
            }
            if (!i.variant.equals("ferry-" + i.jvm)) {
                continue;
            }
            t.append("| ").append(what).append(" <= 1.05x floor | ").append(pm(i.ratio, i.ratioErr, 2)).append("x | ")
                    .append(verdict(i.ratio, i.ratioErr, 1.05, true)).append(" |\n");
            if (i.engine.equals("rocksdb") && i.workload.equals("scan-forward")) {
                t.append("| ").append(what).append(" <= 1.00x floor (issue 46) | ").append(pm(i.ratio, i.ratioErr, 2)).append("x | ")
                        .append(verdict(i.ratio, i.ratioErr, 1.00, true)).append(" |\n");
                rocksForward = true;
            }
            String peer = peerOf("scan", i.engine);
            double want = i.engine.equals("rocksdb") ? 2.0 : 1.7;
            Inter p = byKey.get(jvm + peer);
            if (p != null) {
                double sp = p.ratio / i.ratio;
                double se = quotientErr(p.ratio, p.ratioErr, i.ratio, i.ratioErr);
                t.append("| ").append(what).append(" >= ").append(f(want, 1)).append("x faster than ").append(peer).append(" | ")
                        .append(pm(sp, se, 2)).append("x | ").append(verdict(sp, se, want, false)).append(" |\n");
            }
        }
        for (Row r : rows) {
            if (r.family.equals("kafka") && r.workload.equals("range100") && r.variant.startsWith("ferry-")) {
                t.append("| Kafka Streams store on ").append(r.engine).append(", ").append(r.variant).append(", ").append(r.valueSize)
                        .append(" B: range() of 100 >= 1.5x faster than Kafka's built-in RocksDB store (JMH) | ")
                        .append(pm(r.speedup, r.speedupErr, 2)).append("x | ").append(verdict(r.speedup, r.speedupErr, 1.5, false)).append(" |\n");
            }
            if (r.family.equals("kafka") && r.workload.equals("restore") && r.variant.startsWith("ferry-")) {
                t.append("| Kafka Streams store on ").append(r.engine).append(", ").append(r.variant).append(", ").append(r.valueSize)
                        .append(" B: restore >= 1.5x faster than Kafka's built-in RocksDB store (JMH) | ")
                        .append(pm(r.speedup, r.speedupErr, 2)).append("x | ").append(verdict(r.speedup, r.speedupErr, 1.5, false)).append(" |\n");
            }
            if (r.family.equals("scan") && r.variant.startsWith("ferry") && !Double.isNaN(r.alloc)) {
                t.append("| ").append(r.engine).append(' ').append(r.valueSize).append(" B ").append(r.workload).append(", ").append(r.variant)
                        .append(": no allocation per entry (< 0.1 B/entry) | ").append(pm(r.alloc, r.allocErr, 4)).append(" B/entry | ")
                        .append(verdict(r.alloc, r.allocErr, 0.1, true)).append(" |\n");
            }
            if (r.variant.equals("ffm-critical")) {
                t.append("| empty FFM critical downcall <= 6 ns | ").append(pm(r.ns, r.nsErr, 1)).append(" ns | ")
                        .append(verdict(r.ns, r.nsErr, 6, true)).append(" |\n");
            }
            if (r.variant.startsWith("rocksjava-interop-")) {
                String b = r.variant.substring("rocksjava-interop-".length());
                for (Row o : rows) {
                    if (o.variant.equals("rocksjavaBytes@interop-" + b) && o.valueSize.equals(r.valueSize)) {
                        double sp = o.ns / r.ns;
                        double se = quotientErr(o.ns, o.nsErr, r.ns, r.nsErr);
                        t.append("| RocksJava iterator wrapped by Ferry (").append(b).append(", ").append(r.valueSize)
                                .append(" B, JMH) >= 2x faster than the same iterator's loop | ").append(pm(sp, se, 2)).append("x | ")
                                .append(verdict(sp, se, 2.0, false)).append(" |\n");
                    }
                }
            }
        }
        if (rocksForward) {
            t.append("\nRocksDB forward scans at or below the floor (issue 46): Ferry's fill makes the same four C API calls per "
                    + "entry as the floor's loop (valid, key, value, next; the C API has no call that does two of them) and writes "
                    + "each entry into the page on top, so in instructions it cannot go below the floor's loop. Where the "
                    + "callgrind phase ran, the section \"Instructions per operation\" gives this build's count per entry against the "
                    + "engine's loop; docs/benchmarks.md (\"RocksDB fill loops and the pin bound\") splits it.\n");
        }
        t.append("\nAllocation: `-prof gc` bytes per scan divided by the entries scanned. Each scan opens a cursor and so allocates "
                + "a few KB once (cursor, views, guard, offset array); an allocation per entry would add at least "
                + "16 B/entry (the smallest object), so below 0.1 B/entry there is none.\n");
        return t.toString();
    }

    /** Machine facts from machine.txt: key to value; indented lines are joined to the key above. */
    static Map<String, String> machine(Path dir) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        Path p = dir.resolve("machine.txt");
        if (!Files.exists(p)) {
            return m;
        }
        String last = null;
        for (String line : Files.readAllLines(p)) {
            if (line.startsWith(" ") && last != null) {
                m.merge(last + " version", line.strip(), (a, b) -> a + "; " + b);
                continue;
            }
            int c = line.indexOf(": ");
            if (c > 0) {
                last = line.substring(0, c);
                m.merge(last, line.substring(c + 2).strip(), (a, b) -> a + "; " + b);
            } else if (line.startsWith("note:")) {
                m.merge("notes", line.substring(5).strip(), (a, b) -> a + "; " + b);
            }
        }
        return m;
    }

    static void writeMarkdown(Path dir, List<Row> rows, List<Inter> inter, Map<String, List<String>> charts) throws IOException {
        Map<String, String> m = machine(dir);
        String mode = m.getOrDefault("mode", "");
        boolean quick = mode.startsWith("quick");
        StringBuilder sb = new StringBuilder("# Ferry benchmark report\n\n");
        if (quick) {
            sb.append("> **Quick mode: a smoke run.** One JMH fork, short iterations, ").append(kv(mode, "entries"))
                    .append(" entries, few interleaved rounds. It shows that the suite runs and roughly where things stand; its numbers "
                            + "are not claims. `./ferry report --full` gives figures to publish.\n\n");
        }
        sb.append("## What was compared\n\n")
                .append("Ferry is a Java library over RocksDB and LMDB with two bindings to its C shim: JNI (`jni`, JDK 17+) and the "
                        + "Foreign Function & Memory API (`ffm`, JDK 22+). This run measures Ferry through both bindings beside, in the "
                        + "same run and on the same data:\n\n"
                        + "- the libraries a Java user would pick instead (the **peers**): RocksJava for RocksDB, lmdbjava for LMDB;\n"
                        + "- the **C floor**: a C loop doing the same work over the same engine binary (the RocksDB inside rocksdbjni, "
                        + "the LMDB inside org.lmdbjava:native), with the same data and options and no Java in the loop.\n\n"
                        + "Every figure is a time: nanoseconds per entry for scans, per operation otherwise. **Lower is better.** "
                        + "\"x floor\" divides a time by the floor's time in the same run: 1.00 is as fast as C, 1.50 is 50% slower. "
                        + "Scans are measured twice: *interleaved* (each JVM runs floor, Ferry and the peers in turn, round after round, "
                        + "and keeps the best pass of each: a slow phase of the machine hits all of them, so these ratios are the figures "
                        + "of record; ± is half the range of the per-round ratios, without the first, warm-up round) and with JMH (± is JMH's 99.9% confidence half-width; "
                        + "separate JMH runs are minutes apart and drift more). Every variant checks a checksum of what it read against "
                        + "the floor's, so all did the same work.\n\n");
        sb.append("## Machine and run\n\n| | |\n|---|---|\n");
        row(sb, "CPU", m.get("cpu"));
        row(sb, "cores", m.get("cores"));
        if (m.containsKey("memory")) {
            String[] mem = m.get("memory").split(" ");
            row(sb, "memory", mem[0].matches("\\d+") ? f(Long.parseLong(mem[0]) / 1048576.0, 1) + " GiB" : m.get("memory"));
        }
        row(sb, "kernel", m.get("kernel"));
        row(sb, "load average at start", m.get("load"));
        String jdk = m.getOrDefault("jdk version", m.get("jdk"));
        row(sb, "JDK (every JVM of the run)", jdk == null ? null : jdk.split("; ")[0] + (jdk.contains("; ") ? " (" + jdk.split("; ")[1] + ")" : ""));
        row(sb, "engines", (m.containsKey("rocksdbjni") ? "rocksdbjni " + m.get("rocksdbjni") : "")
                + (m.containsKey("lmdb native (org.lmdbjava:native)") ? ", org.lmdbjava:native " + m.get("lmdb native (org.lmdbjava:native)") : ""));
        row(sb, "peers", (m.containsKey("rocksdbjni") ? "RocksJava " + m.get("rocksdbjni") : "")
                + (m.containsKey("lmdbjava") ? ", lmdbjava " + m.get("lmdbjava") : ""));
        row(sb, "commit", m.get("git"));
        row(sb, "date (UTC)", m.get("date"));
        row(sb, "command", m.get("command") == null ? null : "`" + m.get("command") + "`");
        row(sb, "mode", mode);
        row(sb, "notes", m.get("notes"));
        sb.append('\n');
        sb.append(headline(inter, rows));
        sb.append(glossary(inter, rows));
        sb.append(interleavedSections(inter, charts));
        sb.append(ParallelSection.markdown(dir));
        sb.append(FlinkSection.markdown(dir));
        sb.append(CallgrindSection.markdown(dir));
        sb.append(jmhSections(rows, charts));
        Path floor = dir.resolve("floor.txt");
        if (Files.exists(floor)) {
            sb.append("## Out-of-process floor (C program)\n\nThe floor as a standalone C program (best and median of its repetitions), "
                    + "a check that the in-process floor is not slowed by its JVM.\n\n```\n").append(Files.readString(floor).strip()).append("\n```\n\n");
        }
        sb.append(targets(inter, rows));
        Files.writeString(dir.resolve("report.md"), sb.toString(), StandardCharsets.UTF_8);
    }

    private static String kv(String line, String key) {
        for (String tok : line.split(" ")) {
            if (tok.startsWith(key + "=")) {
                return tok.substring(key.length() + 1);
            }
        }
        return "?";
    }

    private static void row(StringBuilder sb, String k, String v) {
        if (v != null && !v.isBlank()) {
            sb.append("| ").append(k).append(" | ").append(v.replace("|", "\\|")).append(" |\n");
        }
    }

    /** The headline table: Ferry and its peer against the floor, per interleaved JVM; JMH when there is no interleaved run. */
    static String headline(List<Inter> inter, List<Row> rows) {
        StringBuilder sb = new StringBuilder("## Headline ratios\n\n");
        List<Inter> ferry = inter.stream().filter(i -> !i.family.equals("seek") && i.variant.equals("ferry-" + i.jvm)).toList();
        if (!ferry.isEmpty()) {
            sb.append("Time as a multiple of the C floor's, measured interleaved in one JVM per engine and binding (lower is better; "
                    + "± is half the range of the per-round ratios after the warm-up round). Ferry is the `ferry-<binding>` variant (scans: the cursor loop; gets: "
                    + "`Store.get`), the peer is RocksJava's plain loop or lmdbjava. \"Ferry / peer\" is Ferry's time over the peer's: "
                    + "0.50 means Ferry takes half the time.\n\n")
                    .append("| engine | workload | value B | binding | Ferry x floor | peer | peer x floor | Ferry / peer |\n")
                    .append("|---|---|---:|---|---:|---|---:|---:|\n");
            for (Inter i : ferry) {
                String peer = peerOf(i.family, i.engine);
                Inter p = inter.stream().filter(o -> o.family.equals(i.family) && o.engine.equals(i.engine) && o.jvm.equals(i.jvm)
                        && o.valueSize.equals(i.valueSize) && o.workload.equals(i.workload) && o.variant.equals(peer)).findFirst().orElse(null);
                sb.append("| ").append(i.engine).append(" | ").append(i.workload).append(" | ").append(i.valueSize).append(" | ").append(i.jvm)
                        .append(" | **").append(pm(i.ratio, i.ratioErr, 2)).append("** | ").append(p == null ? "-" : peer).append(" | ")
                        .append(p == null ? "" : pm(p.ratio, p.ratioErr, 2)).append(" | ")
                        .append(p == null ? "" : pm(i.ratio / p.ratio, quotientErr(i.ratio, i.ratioErr, p.ratio, p.ratioErr), 2)).append(" |\n");
            }
        } else {
            sb.append("No interleaved run in this directory: JMH ratios to the floor of the same family, engine, workload and value "
                    + "size (± from JMH's errors of both).\n\n| engine | workload | value B | variant | x floor |\n|---|---|---:|---|---:|\n");
            rows.stream().filter(r -> (r.family.equals("scan") || r.family.equals("get")) && !Double.isNaN(r.ratio) && !r.variant.equals("floor"))
                    .sorted(Comparator.comparing((Row r) -> r.engine + r.workload + r.valueSize).thenComparing(r -> r.variant, VARIANT_ORDER))
                    .forEach(r -> sb.append("| ").append(r.engine).append(" | ").append(r.workload).append(" | ").append(r.valueSize)
                            .append(" | ").append(r.variant).append(" | ").append(pm(r.ratio, r.ratioErr, 2)).append(" |\n"));
        }
        return sb.append('\n').toString();
    }

    /** Every variant name the report prints, explained once. */
    static String glossary(List<Inter> inter, List<Row> rows) {
        List<String> families = List.of("scan", "get", "seek", "put", "batch", "ingest", "txn", "kafka", "call");
        Comparator<String> byFamily = Comparator.comparingInt(f -> families.indexOf(f) < 0 ? families.size() : families.indexOf(f));
        Map<String, Set<String>> names = new TreeMap<>(VARIANT_ORDER); // generic name -> families
        for (Inter i : inter) {
            names.computeIfAbsent(generic(i.variant), k -> new TreeSet<>(byFamily.thenComparing(Comparator.naturalOrder()))).add(i.family);
        }
        for (Row r : rows) {
            names.computeIfAbsent(generic(r.variant), k -> new TreeSet<>(byFamily.thenComparing(Comparator.naturalOrder()))).add(r.family);
        }
        StringBuilder sb = new StringBuilder("## Glossary\n\n")
                .append("`<binding>` is `jni` or `ffm`: the Ferry binding the variant, or the JVM of an interleaved run, used. "
                        + "Workloads: `scan-forward`/`scan-reverse` (the whole store in key order, or reversed), `get-random` / `get` "
                        + "(100,000 random existing keys), `seek10` (a seek and 10 entries), `put-seq`/`put-random` and "
                        + "`batch-seq`/`batch-random` (writes in key order or random order into a fresh store), `bulk-load` (sorted "
                        + "entries loaded into a new store until they are in table files), `txn` (a transaction "
                        + "reading one of 10,000 keys for update and writing it back), `range100`/`all`/`get`/`restore` (a Kafka Streams store: "
                        + "a `range()` of 100 keys from a random start, a full `all()` scan, a random `get`, restoring the data set from "
                        + "changelog batches of 1,000 into a fresh store), `noop` (an empty call), "
                        + "`cursorStep`, `pageFill`.\n\n");
        for (Map.Entry<String, Set<String>> e : names.entrySet()) {
            Map<String, List<String>> byText = new LinkedHashMap<>();
            for (String fam : e.getValue()) {
                String text = explain(fam, e.getKey());
                byText.computeIfAbsent(text == null ? "(not described: see benchmarks/README.md)" : text, k -> new ArrayList<>()).add(fam);
            }
            for (Map.Entry<String, List<String>> t : byText.entrySet()) {
                sb.append("- `").append(e.getKey()).append('`').append(byText.size() > 1 ? " (" + String.join(", ", t.getValue()) + ")" : "")
                        .append(" [").append(kind(e.getKey()).label).append("]: ").append(t.getKey()).append('\n');
            }
        }
        return sb.append('\n').toString();
    }

    static String interleavedSections(List<Inter> inter, Map<String, List<String>> charts) {
        StringBuilder sb = new StringBuilder();
        for (String fam : List.of("scan", "get", "seek")) {
            List<Inter> is = inter.stream().filter(i -> i.family.equals(fam)).toList();
            if (is.isEmpty()) {
                continue;
            }
            sb.append(switch (fam) {
                case "scan" -> "## Scans, interleaved (figures of record)\n\n";
                case "get" -> "## Point reads, interleaved\n\n";
                default -> "## Seeks, interleaved\n\n";
            });
            sb.append("Best pass of each variant in ns per ").append(fam.equals("scan") ? "entry" : fam.equals("get") ? "get" : "seek")
                    .append(" and its ratio to the floor of the same JVM (± half the range of the per-round ratios after the warm-up round).\n\n")
                    .append("| engine | value B | workload | JVM | variant | best ns | x floor |\n|---|---:|---|---|---|---:|---:|\n");
            is.stream().sorted(Comparator.comparing((Inter i) -> i.engine).reversed().thenComparing(i -> i.valueSize)
                    .thenComparing(i -> i.workload).thenComparing(i -> i.jvm, Comparator.reverseOrder()).thenComparing(i -> i.variant, VARIANT_ORDER))
                    .forEach(i -> sb.append("| ").append(i.engine).append(" | ").append(i.valueSize).append(" | ").append(i.workload)
                            .append(" | ").append(i.jvm).append(" | ").append(i.variant).append(" | ").append(f(i.ns, i.ns < 100 ? 1 : 0))
                            .append(" | ").append(pm(i.ratio, i.ratioErr, 2)).append(" |\n"));
            sb.append('\n');
            for (String c : charts.getOrDefault("interleaved-" + fam, List.of())) {
                sb.append("![").append(c).append("](").append(c).append(")\n\n");
            }
        }
        return sb.toString();
    }

    static String jmhSections(List<Row> rows, Map<String, List<String>> charts) {
        StringBuilder sb = new StringBuilder();
        Map<String, List<Row>> fam = new LinkedHashMap<>();
        for (String f : List.of("scan", "get", "put", "batch", "ingest", "txn", "kafka", "call")) {
            fam.put(f, new ArrayList<>());
        }
        for (Row r : rows) {
            fam.computeIfAbsent(r.family, k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Row>> e : fam.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            if (e.getKey().equals("kafka")) {
                sb.append(kafkaSection(e.getValue(), charts.getOrDefault("jmh-kafka", List.of())));
                continue;
            }
            sb.append("## ").append(switch (e.getKey()) {
                case "scan" -> "Scans, JMH (ns per entry)";
                case "get" -> "Random gets, JMH (ns per get)";
                case "put" -> "Single puts, JMH (ns per put)";
                case "batch" -> "Batched puts, JMH (ns per put)";
                case "txn" -> "Transactions, JMH (ns per read-modify-write transaction, commit included)";
                case "ingest" -> "Bulk load of a new RocksDB store, JMH (ns per entry until the data is in table files)";
                case "call" -> "Per call, JMH (ns per call)";
                default -> e.getKey() + ", JMH";
            }).append("\n\n");
            sb.append("| engine | value B | workload | variant | ns/op | ± | ops/s | x floor | B/op |\n");
            sb.append("|---|---:|---|---|---:|---:|---:|---:|---:|\n");
            e.getValue().stream()
                    .sorted(Comparator.comparing((Row r) -> r.engine).reversed().thenComparing(r -> r.valueSize).thenComparing(r -> r.workload)
                            .thenComparing(r -> r.variant, VARIANT_ORDER))
                    .forEach(r -> sb.append("| ").append(r.engine).append(" | ").append(r.valueSize).append(" | ").append(r.workload)
                            .append(" | ").append(r.variant).append(" | ").append(f(r.ns, r.ns < 100 ? 2 : 1)).append(" | ")
                            .append(f(r.nsErr, r.ns < 100 ? 2 : 1)).append(" | ").append(f(1e9 / r.ns, 0)).append(" | ")
                            .append(Double.isNaN(r.ratio) ? "" : pm(r.ratio, r.ratioErr, 2)).append(" | ")
                            .append(f(r.alloc, r.family.equals("scan") ? 3 : 0)).append(" |\n"));
            sb.append('\n');
            for (String c : charts.getOrDefault("jmh-" + e.getKey(), List.of())) {
                sb.append("![").append(c).append("](").append(c).append(")\n\n");
            }
        }
        return sb.toString();
    }

    /** A bar's label: the variant, and for Ferry's Kafka stores (one chart for both engines) the engine too. */
    static String chartLabel(Row r) {
        return r.family.equals("kafka") && !r.variant.equals("kafka-builtin") ? r.variant + "-" + r.engine : r.variant;
    }

    /** Kafka Streams stores: each workload's time and its speed-up over Kafka's built-in store. */
    static String kafkaSection(List<Row> rows, List<String> charts) {
        StringBuilder sb = new StringBuilder("## Kafka Streams state stores, JMH\n\n")
                .append("Through Kafka's `KeyValueStore<Bytes, byte[]>` interface, same data and JVM settings (16-byte keys, random values, "
                        + "restored in shuffled order from changelog batches of 1,000 and flushed). ns per entry for `range100` and `all`, "
                        + "per `get`, per restored record for `restore`. Speed-up: the built-in store's time over the row's (2.00 = twice "
                        + "as fast); ± from JMH's errors of both. docs/kafka-streams.md says what each store is configured with.\n\n")
                .append("| workload | value B | store | engine | ns | ± | speed-up vs built-in |\n|---|---:|---|---|---:|---:|---:|\n");
        List<String> order = List.of("range100", "all", "get", "restore");
        rows.stream().sorted(Comparator.comparingInt((Row r) -> order.indexOf(r.workload)).thenComparing(r -> r.valueSize)
                        .thenComparing((Row r) -> r.variant.equals("kafka-builtin") ? 0 : 1).thenComparing(r -> r.engine, Comparator.reverseOrder())
                        .thenComparing(r -> r.variant, VARIANT_ORDER))
                .forEach(r -> sb.append("| ").append(r.workload).append(" | ").append(r.valueSize).append(" | ").append(r.variant)
                        .append(" | ").append(r.engine).append(" | ").append(f(r.ns, r.ns < 100 ? 1 : 0)).append(" | ")
                        .append(f(r.nsErr, r.ns < 100 ? 1 : 0)).append(" | ").append(pm(r.speedup, r.speedupErr, 2)).append(" |\n"));
        sb.append('\n');
        for (String c : charts) {
            sb.append("![").append(c).append("](").append(c).append(")\n\n");
        }
        return sb.toString();
    }

    /**
     * Draws the charts: the interleaved runs as ratios to the floor (one chart per engine and
     * family, one linear scale shared by all of them), and JMH results in ns or µs, one chart per
     * family, engine, value size and workload (so no chart mixes per-call nanoseconds with
     * microsecond operations); the JMH scan charts of one engine share one scale.
     *
     * @return chart file names by section ({@code interleaved-scan}, {@code jmh-get}, ...)
     */
    static Map<String, List<String>> charts(Path dir, List<Row> rows, List<Inter> inter) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        // the axis reaches the highest error bar, but no further than twice the highest bar: a noisy
        // round must not flatten every bar of the family (taller error bars are cut at the top)
        double maxRatio = Math.min(inter.stream().mapToDouble(i -> i.ratio + (Double.isNaN(i.ratioErr) ? 0 : i.ratioErr)).max().orElse(1),
                2 * inter.stream().mapToDouble(Inter::ratio).max().orElse(1));
        for (String fam : List.of("scan", "get", "seek")) {
            for (String engine : List.of("rocksdb", "lmdb")) {
                List<Inter> is = inter.stream().filter(i -> i.family.equals(fam) && i.engine.equals(engine)).toList();
                if (is.isEmpty()) {
                    continue;
                }
                List<String> cases = is.stream().sorted(Comparator.comparing((Inter i) -> i.valueSize).thenComparing(i -> i.workload)
                        .thenComparing(i -> i.jvm, Comparator.reverseOrder())).map(Report::caseOf).distinct().toList();
                List<String> variants = is.stream().map(i -> generic(i.variant)).distinct().sorted(VARIANT_ORDER).toList();
                List<BarChart.Series> series = new ArrayList<>();
                for (String v : variants) {
                    List<Double> ys = new ArrayList<>();
                    List<Double> es = new ArrayList<>();
                    for (String c : cases) {
                        Inter hit = is.stream().filter(i -> caseOf(i).equals(c) && generic(i.variant).equals(v)).findFirst().orElse(null);
                        ys.add(hit == null ? Double.NaN : hit.ratio);
                        es.add(hit == null || Double.isNaN(hit.ratioErr) ? 0.0 : hit.ratioErr);
                    }
                    series.add(new BarChart.Series(v, kind(v).ordinal(), ys, es));
                }
                String what = switch (fam) {
                    case "scan" -> "scans";
                    case "get" -> "random gets";
                    default -> "seeks";
                };
                String name = "chart-interleaved-" + fam + "-" + engine + ".png";
                String title = (engine.equals("rocksdb") ? "RocksDB" : "LMDB") + " " + what + ", interleaved: time / C floor's time (lower is better)";
                save(dir, name, title, "value size, workload, JVM binding", "x floor (1.0 = C)", cases, series, 0, maxRatio * 1.1, true,
                        out.computeIfAbsent("interleaved-" + fam, k -> new ArrayList<>()));
            }
        }
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) {
            // scans of one engine (both directions, every value size) share an axis; other workloads
            // (seq and random writes, each kind of call) differ by decades and get one each
            // (Kafka stores: one chart per workload with every store, whatever its engine)
            String scaleKey = r.family + "|" + (r.family.equals("kafka") ? "" : r.engine) + (r.family.equals("scan") ? "" : "|" + r.workload);
            groups.computeIfAbsent(scaleKey, k -> new ArrayList<>()).add(r);
        }
        for (List<Row> scale : groups.values()) {
            double maxNs = Math.min(scale.stream().mapToDouble(r -> r.ns + (Double.isNaN(r.nsErr) ? 0 : r.nsErr)).max().orElse(1),
                    2 * scale.stream().mapToDouble(r -> r.ns).max().orElse(1));
            // one unit per scale: microseconds where the family's bars reach 10,000 ns
            double div = maxNs >= 1e4 ? 1e3 : 1;
            String u = div == 1 ? "ns" : "µs";
            double max = maxNs / div;
            Map<String, List<Row>> charts = new LinkedHashMap<>();
            scale.stream().sorted(Comparator.comparing((Row r) -> r.valueSize).thenComparing(r -> r.workload))
                    .forEach(r -> charts.computeIfAbsent(r.valueSize + "|" + r.workload, k -> new ArrayList<>()).add(r));
            for (List<Row> rs : charts.values()) {
                Row r0 = rs.get(0);
                List<String> xs = rs.stream().map(Report::chartLabel).distinct().sorted(VARIANT_ORDER).toList();
                List<BarChart.Series> series = new ArrayList<>();
                for (Kind k : Kind.values()) {
                    List<Double> ys = new ArrayList<>();
                    List<Double> es = new ArrayList<>();
                    for (String v : xs) {
                        Row hit = kind(v) != k ? null : rs.stream().filter(r -> chartLabel(r).equals(v)).findFirst().orElse(null);
                        ys.add(hit == null ? Double.NaN : hit.ns / div);
                        es.add(hit == null || Double.isNaN(hit.nsErr) ? 0.0 : hit.nsErr / div);
                    }
                    series.add(new BarChart.Series(k.label, k.ordinal(), ys, es));
                }
                boolean kafka = r0.family.equals("kafka");
                String unit = u + (r0.family.equals("scan") ? " per entry" : r0.family.equals("call") ? " per call"
                        : r0.family.equals("get") ? " per get" : r0.family.equals("txn") ? " per transaction"
                        : r0.family.equals("ingest") ? " per entry"
                        : !kafka ? " per put" : r0.workload.equals("get") ? " per get" : r0.workload.equals("restore") ? " per record"
                        : " per entry");
                String where = kafka ? "Kafka Streams store " + r0.valueSize + " B "
                        : r0.engine.equals("-") ? "" : (r0.engine.equals("rocksdb") ? "RocksDB " : "LMDB ")
                        + (r0.valueSize.equals("-") ? "" : r0.valueSize + " B ");
                String name = "chart-jmh-" + r0.family + "-" + (r0.engine.equals("-") || kafka ? "" : r0.engine + "-")
                        + (r0.valueSize.equals("-") ? "" : r0.valueSize + "-") + r0.workload + ".png";
                String title = (r0.workload.equals("noop") ? "empty downcall (ferry_noop)" : where + r0.workload) + ", JMH: " + unit
                        + " (lower is better)";
                save(dir, name, title, "variant", unit, xs, series, 0, max * 1.1, false, out.computeIfAbsent("jmh-" + r0.family, k -> new ArrayList<>()));
            }
        }
        return out;
    }

    private static String caseOf(Inter i) {
        return i.valueSize + " B " + i.workload.replace("scan-", "") + ", " + i.jvm;
    }

    private static void save(Path dir, String name, String title, String xTitle, String yTitle, List<String> xs, List<BarChart.Series> series,
            double yMin, double yMax, boolean grouped, List<String> out) {
        String failed = BarChart.saveKinds(dir.resolve(name), title, xTitle, yTitle, xs, series, yMin, yMax, grouped);
        if (failed == null) {
            out.add(name);
        } else {
            System.err.println("report: chart " + name + " failed: " + failed);
        }
    }
}
