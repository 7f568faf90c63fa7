package dev.ferry.bench.dbbench;

import dev.ferry.Engine;
import dev.ferry.StoreOptions;
import dev.ferry.bench.store.FerryPeer;
import dev.ferry.bench.store.KvStore;
import dev.ferry.bench.store.RocksJavaPeer;
import dev.ferry.internal.binding.Bindings;
import dev.ferry.internal.Engines;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * db_bench for Java: {@code ./ferry dbbench <db_bench flags>} runs RocksDB's db_bench workloads
 * through Ferry (JNI or FFM binding) or RocksJava and prints db_bench's result lines, so one
 * command line can be given to both this tool and C++ db_bench (see {@link CppDbBench} for the C++
 * side over the same engine binary). Benchmarks: fillseq, fillrandom, overwrite, readseq,
 * readreverse, readrandom, multireadrandom, seekrandom, readwhilewriting and stats, with db_bench's
 * key format ({@link Keys}), values ({@link Values}), random key sequences ({@link Mt64}, seeded
 * per thread as db_bench seeds them), per-thread stats and their merge ({@link Stats}).
 *
 * <p>Exit status: 0 on success, 1 on a bad command line or a failed benchmark.
 *
 * <p>Thread safety: one run per instance.
 */
public final class DbBench {
    private final Flags f;
    private final PrintStream out;
    private final PrintStream err;
    private final List<String> args;
    private final EngineOptions eo;
    private final String api;
    private final Path dbPath;
    private final long seedBase;
    private final int keySize;
    private final Values values;
    private final long writeRate;
    private KvStore backend;
    private EngineBinary engine;
    private String engineCheck = "";
    private String engineCache = "";
    private int totalThreadCount;
    private final List<String> jsonLines = new ArrayList<>();

    private DbBench(Flags f, List<String> args, PrintStream out, PrintStream err) {
        this.f = f;
        this.args = args;
        this.out = out;
        this.err = err;
        this.eo = new EngineOptions(f);
        this.api = f.str("api");
        switch (api) {
            case "ferry-jni", "ferry-ffm", "rocksjava", "rocksjava-reuse", "rocksjava-direct" -> { }
            default -> throw new Flags.FlagError("unknown --api=" + api + " (ferry-jni, ferry-ffm, rocksjava, rocksjava-reuse, rocksjava-direct)");
        }
        for (String spec : f.str("benchmarks").split(",", -1)) {
            String b = spec.isEmpty() ? spec : Bench.parse(spec).name;
            if (!b.isEmpty() && !Flags.BENCHMARKS.contains(b)) {
                throw new Flags.FlagError("unknown benchmark '" + b + "' (this tool implements: " + String.join(",", Flags.BENCHMARKS) + ")");
            }
        }
        if (f.int32("threads") < 1) {
            throw new Flags.FlagError("--threads=" + f.int32("threads") + ": at least 1");
        }
        if (f.int32("key_size") < 1 || f.int32("key_size") > 1024) {
            throw new Flags.FlagError("--key_size=" + f.int32("key_size") + ": 1 to 1024 here");
        }
        if (f.int64("num") < 1) {
            throw new Flags.FlagError("--num=" + f.int64("num") + ": at least 1 here");
        }
        if (f.int64("batch_size") < 1 || f.int64("batch_size") > 1_000_000) {
            throw new Flags.FlagError("--batch_size=" + f.int64("batch_size") + ": 1 to 1000000 here");
        }
        long wps = f.int64("writes_per_second");
        if (wps > 0 && f.isGiven("benchmark_write_rate_limit")) {
            throw new Flags.FlagError("give --writes_per_second or --benchmark_write_rate_limit, not both");
        }
        this.keySize = f.int32("key_size");
        this.writeRate = wps > 0 ? wps * (keySize + f.int32("value_size")) : f.int64("benchmark_write_rate_limit");
        String db = f.str("db");
        if (db.isEmpty()) {
            String tmp = System.getenv("TEST_TMPDIR");
            db = (tmp != null && !tmp.isEmpty() ? tmp : "/tmp/rocksdbtest-" + uid()) + "/dbbench";
        }
        this.dbPath = Path.of(db).toAbsolutePath();
        if (f.int64("seed") == 0) {
            seedBase = System.currentTimeMillis() * 1000;
            out.printf(Locale.ROOT, "Set seed to %d because --seed was 0%n", seedBase);
        } else {
            seedBase = f.int64("seed");
        }
        this.values = new Values(f.int32("value_size"), f.dbl("compression_ratio"));
    }

    private static String uid() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("Uid:")) {
                    return l.split("\\s+")[2];
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return System.getProperty("user.name", "0");
    }

    /**
     * Runs the tool.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        int rc = run(Arrays.asList(args), System.out, System.err);
        System.out.flush();
        System.exit(rc);
    }

    /**
     * Runs the tool with given streams (for tests).
     *
     * @param args the command line
     * @param out result lines
     * @param err progress and errors
     * @return the exit status
     */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-help") || a.equals("--helpfull") || a.equals("-h")) {
                out.print(Flags.help());
                return 0;
            }
        }
        DbBench b;
        try {
            b = new DbBench(Flags.parse(args), args, out, err);
        } catch (Flags.FlagError e) {
            err.println("ERROR: " + e.getMessage());
            return 1;
        }
        try {
            b.runAll();
            return 0;
        } catch (Flags.FlagError e) {
            err.println("ERROR: " + e.getMessage());
            return 1;
        } catch (BenchmarkFailure e) {
            err.println(e.getMessage());
            return 1;
        } finally {
            b.closeBackend();
        }
    }

    /** A benchmark that could not finish; the message says why. */
    static final class BenchmarkFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BenchmarkFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---- database lifecycle ----

    private void destroy() {
        if (!Files.exists(dbPath)) {
            return;
        }
        org.rocksdb.RocksDB.loadLibrary();
        try (org.rocksdb.Options o = new org.rocksdb.Options()) {
            org.rocksdb.RocksDB.destroyDB(dbPath.toString(), o);
        } catch (org.rocksdb.RocksDBException e) {
            throw new BenchmarkFailure("cannot destroy " + dbPath + ": " + e.getMessage(), e);
        }
    }

    private void open() {
        try {
            backend = switch (api) {
                case "ferry-jni" -> openFerry("jni");
                case "ferry-ffm" -> openFerry("ffm");
                case "rocksjava" -> openRocksJava(RocksJavaPeer.Style.BYTES);
                case "rocksjava-reuse" -> openRocksJava(RocksJavaPeer.Style.REUSE);
                default -> openRocksJava(RocksJavaPeer.Style.DIRECT);
            };
        } catch (Flags.FlagError e) {
            throw e;
        } catch (RuntimeException e) {
            throw new BenchmarkFailure("open error: " + e.getMessage(), e);
        }
        engineCache = engineCache(backend);
        if (engine == null) {
            engine = EngineBinary.ofProcess("self").orElse(null);
            if (api.startsWith("ferry-")) {
                String attached = Engines.path(Bindings.byName(api.substring(6)), Engine.ROCKSDB);
                engineCheck = sameFile(attached, engine) ? "Ferry attached the same file"
                        : "WARNING: Ferry attached " + attached + ", not the mapped file";
            }
        }
    }

    /** Ferry over RocksDB: the options as one RocksDB options string, write options from --sync and --disable_wal. */
    private KvStore openFerry(String binding) {
        if (!f.bool("verify_checksum")) {
            throw new Flags.FlagError("--verify_checksum=false: Ferry's API has no read option for it (RocksJava has: --api=rocksjava)");
        }
        StoreOptions o = StoreOptions.rocksdb().createIfMissing(!f.bool("use_existing_db"))
                .wal(!f.bool("disable_wal")).syncWrites(f.bool("sync")).rocksdbOptions(eo.rocksdbOptionsString());
        return FerryPeer.openForDbBench(binding, dbPath, o, f.bool("statistics"));
    }

    /** RocksJava with the options set through its setters ({@link EngineOptions#rocksJava}). */
    private KvStore openRocksJava(RocksJavaPeer.Style style) {
        EngineOptions.RocksJava opts = eo.rocksJava(!f.bool("use_existing_db"));
        org.rocksdb.WriteOptions wo = new org.rocksdb.WriteOptions().setSync(f.bool("sync")).setDisableWAL(f.bool("disable_wal"));
        org.rocksdb.ReadOptions ro = new org.rocksdb.ReadOptions().setVerifyChecksums(f.bool("verify_checksum")).setFillCache(true);
        return RocksJavaPeer.openForDbBench(style, dbPath, opts.options, opts.statistics, opts, wo, ro);
    }

    /** The block cache as the engine reports it: "LRUCache, capacity 32.00 MB", or "none". */
    static String engineCache(KvStore b) {
        String es = b.property("rocksdb.block-cache-entry-stats").orElse("");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^Block cache (\\w+)@\\S+ capacity: (\\S+ \\S+)").matcher(es);
        return m.find() ? m.group(1) + ", capacity " + m.group(2) : "none";
    }

    private static boolean sameFile(String attached, EngineBinary e) {
        if (attached == null || e == null) {
            return false;
        }
        try {
            return Files.isSameFile(Path.of(attached), e.path());
        } catch (IOException x) {
            return false;
        }
    }

    private void closeBackend() {
        if (backend != null) {
            backend.close();
            backend = null;
        }
    }

    // ---- header ----

    private void printHeader() {
        err.println("RocksDB:    version " + org.rocksdb.RocksDB.rocksdbVersion());
        err.println("Date:       " + ZonedDateTime.now().format(DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ROOT)));
        String cpu = "?";
        String cache = "?";
        int cpus = 0;
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                int c = l.indexOf(':');
                if (c < 0) {
                    continue;
                }
                String k = l.substring(0, c).trim();
                if (k.equals("model name")) {
                    cpus++;
                    cpu = l.substring(c + 1).trim();
                } else if (k.equals("cache size")) {
                    cache = l.substring(c + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux: leave "?"
        }
        err.println("CPU:        " + cpus + " * " + cpu);
        err.println("CPUCache:   " + cache);
        int vs = f.int32("value_size");
        double ratio = f.dbl("compression_ratio");
        long num = f.int64("num");
        out.printf(Locale.ROOT, "Keys:       %d bytes each (+ 0 bytes user-defined timestamp)%n", keySize);
        out.printf(Locale.ROOT, "Values:     %d bytes each (%d bytes after compression)%n", vs, (int) (vs * ratio + 0.5));
        out.printf(Locale.ROOT, "Entries:    %d%n", num);
        out.printf(Locale.ROOT, "RawSize:    %.1f MB (estimated)%n", ((long) (keySize + vs) * num) / 1048576.0);
        out.printf(Locale.ROOT, "FileSize:   %.1f MB (estimated)%n", ((keySize + vs * ratio) * num) / 1048576.0);
        out.printf(Locale.ROOT, "Write rate: %s bytes/second%n", Long.toUnsignedString(writeRate));
        out.printf(Locale.ROOT, "Read rate: 0 ops/second%n");
        out.println("Compression: " + EngineOptions.compressionLabel(f.str("compression_type")));
        out.println("API:        " + api + " (Java " + Runtime.version() + ")");
        out.println("Block cache: " + eo.cacheNote(api.startsWith("ferry-")) + "; engine reports " + engineCache);
        out.println(engine == null ? "Engine:     (no librocksdbjni mapped in this process)" : engine.line()
                + (engineCheck.isEmpty() ? "" : "; " + engineCheck));
        out.println("------------------------------------------------");
        out.flush();
    }

    // ---- the run ----

    private void runAll() {
        if (!f.bool("use_existing_db")) {
            destroy();
        }
        open();
        printHeader();
        for (String spec : f.str("benchmarks").split(",", -1)) {
            if (spec.isEmpty()) {
                continue;
            }
            Bench b = Bench.parse(spec);
            String name = b.name;
            boolean fresh = name.equals("fillseq") || name.equals("fillrandom");
            if (fresh) {
                if (f.bool("use_existing_db")) {
                    out.printf(Locale.ROOT, "%-12s : skipped (--use_existing_db is true)%n", name);
                    continue;
                }
                closeBackend();
                destroy();
                open();
            }
            if (name.equals("stats")) {
                out.printf("%n%s%n", backend.property("rocksdb.stats").orElse("(failed)"));
                continue;
            }
            int threads = f.int32("threads");
            if (name.equals("multireadrandom")) {
                err.println("entries_per_batch = " + f.int64("batch_size"));
            }
            if (name.equals("readwhilewriting")) {
                threads++;
            }
            out.println("DB path: [" + dbPath + "]");
            if (b.warmup > 0) {
                out.printf(Locale.ROOT, "Warming up benchmark by running %d times%n", b.warmup);
            }
            for (int i = 0; i < b.warmup; i++) {
                Stats.Result r = runBenchmark(name, threads);
                Stats.print(r, out);
                json(r, threads, "warmup", i + 1);
            }
            if (b.repeat > 1) {
                out.printf(Locale.ROOT, "Running benchmark for %d times%n", b.repeat);
            }
            Stats.Combined combined = new Stats.Combined();
            for (int i = 0; i < b.repeat; i++) {
                Stats.Result r = runBenchmark(name, threads);
                Stats.print(r, out);
                json(r, threads, "run", i + 1);
                combined.add(r);
                combined.report(name, out);
            }
            if (b.repeat > 1) {
                combined.reportFinal(name, out);
            }
        }
        if (f.bool("statistics")) {
            out.printf("STATISTICS:%n%s%n", backend.statistics().orElse("(none)"));
        }
        writeJson();
    }

    /** A --benchmarks entry: a name with db_bench's optional "[X<repeats>-W<warm-ups>]" suffix. */
    static final class Bench {
        final String name;
        final int repeat;
        final int warmup;

        private Bench(String name, int repeat, int warmup) {
            this.name = name;
            this.repeat = repeat;
            this.warmup = warmup;
        }

        static Bench parse(String spec) {
            if (!spec.endsWith("]")) {
                return new Bench(spec, 1, 0);
            }
            int open = spec.indexOf('[');
            if (open < 0) {
                throw new Flags.FlagError("unknown benchmark arguments '" + spec + "'");
            }
            int repeat = 1;
            int warmup = 0;
            for (String a : spec.substring(open + 1, spec.length() - 1).split("-")) {
                try {
                    if (a.startsWith("X")) {
                        repeat = Integer.parseInt(a.substring(1));
                    } else if (a.startsWith("W")) {
                        warmup = Integer.parseInt(a.substring(1));
                    }
                } catch (NumberFormatException e) {
                    throw new Flags.FlagError("unknown benchmark arguments '" + spec + "'");
                }
            }
            return new Bench(spec.substring(0, open), repeat, warmup);
        }
    }

    /** One benchmark thread's state. */
    private static final class ThreadState {
        final int tid;
        final Mt64 rand;
        final Stats stats;

        ThreadState(int tid, long seed, Stats stats) {
            this.tid = tid;
            this.rand = new Mt64(seed);
            this.stats = stats;
        }
    }

    /** State shared by one benchmark's threads. */
    private static final class Shared {
        final int total;
        final AtomicInteger done = new AtomicInteger();
        final RateLimiter writeLimiter;

        Shared(int total, RateLimiter writeLimiter) {
            this.total = total;
            this.writeLimiter = writeLimiter;
        }
    }

    private Stats.Result runBenchmark(String name, int n) {
        Shared shared = new Shared(n, writeRate > 0 ? new RateLimiter(writeRate) : null);
        List<ThreadState> states = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            totalThreadCount++;
            states.add(new ThreadState(i, seedBase + totalThreadCount,
                    new Stats(f.bool("histogram"), f.bool("progress_reports"), err)));
        }
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (ThreadState t : states) {
            Thread th = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    t.stats.start();
                    try (KvStore.Reader reader = backend.reader()) {
                        method(name, t, shared, reader);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    t.stats.stop();
                    shared.done.incrementAndGet();
                }
            }, "dbbench-" + name + "-" + t.tid);
            threads.add(th);
            th.start();
        }
        try {
            ready.await();
            go.countDown();
            for (Thread th : threads) {
                th.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkFailure("interrupted", e);
        }
        if (failure.get() != null) {
            Throwable e = failure.get();
            throw new BenchmarkFailure("Fatal error during \"" + name + "\": " + e, e);
        }
        List<Stats> all = new ArrayList<>();
        for (ThreadState t : states) {
            all.add(t.stats);
        }
        return Stats.merge(all).result(name);
    }

    private long reads() {
        long r = f.int64("reads");
        return r < 0 ? f.int64("num") : r;
    }

    private void method(String name, ThreadState t, Shared shared, KvStore.Reader reader) {
        switch (name) {
            case "fillseq" -> doWrite(t, shared, false);
            case "fillrandom", "overwrite" -> doWrite(t, shared, true);
            case "readseq" -> t.stats.addBytes(reader.scan(false, reads(), t.stats));
            case "readreverse" -> t.stats.addBytes(reader.scan(true, reads(), t.stats));
            case "readrandom" -> readRandom(t, reader);
            case "multireadrandom" -> multiReadRandom(t, reader);
            case "seekrandom" -> seekRandom(t, reader);
            case "readwhilewriting" -> {
                if (t.tid > 0) {
                    readRandom(t, reader);
                } else {
                    bgWriter(t, shared);
                }
            }
            default -> throw new IllegalStateException(name);
        }
    }

    /** db_bench's loop control: stop after {@code maxOps} operations, or after {@code maxSeconds} when given. */
    private static final class Duration {
        private final long maxSeconds;
        private final long maxOps;
        private final long startMicros = Stats.nowMicros();
        private long ops;

        Duration(long maxSeconds, long maxOps) {
            this.maxSeconds = maxSeconds;
            this.maxOps = maxOps;
        }

        boolean done(long increment) {
            long inc = Math.max(1, increment);
            long prev = ops;
            ops += inc;
            if (maxSeconds > 0 && ops / 1000 != prev / 1000
                    && (Stats.nowMicros() - startMicros) / 1_000_000 >= maxSeconds) {
                return true;
            }
            return maxSeconds > 0 ? false : ops > maxOps;
        }
    }

    private void doWrite(ThreadState t, Shared shared, boolean random) {
        long writes = f.int64("writes") < 0 ? f.int64("num") : f.int64("writes");
        long num = f.int64("num");
        long numOps = writes == 0 ? num : writes;
        int batch = (int) f.int64("batch_size");
        int vs = values.valueSize();
        Duration d = new Duration(random ? f.int32("duration") : 0, numOps);
        byte[][] keys = new byte[batch][keySize];
        int[] offs = new int[batch];
        byte[] data = values.data();
        Values.Cursor gen = values.cursor();
        long next = 0;
        long bytes = 0;
        while (!d.done(batch)) {
            if (random) {
                t.rand.next(); // db_bench draws a database index per batch (one database: index 0)
            }
            for (int j = 0; j < batch; j++) {
                long k = random ? t.rand.nextMod(num) : next++;
                Keys.fill(k, keys[j], keySize);
                offs[j] = gen.next();
                bytes += vs + keySize;
            }
            if (shared.writeLimiter != null) {
                shared.writeLimiter.request((long) batch * (vs + keySize));
                t.stats.resetLastOpTime();
            }
            if (batch == 1) {
                backend.put(keys[0], data, offs[0], vs);
            } else {
                List<byte[]> bk = new ArrayList<>(batch);
                List<byte[]> bv = new ArrayList<>(batch);
                for (int j = 0; j < batch; j++) {
                    bk.add(keys[j]);
                    bv.add(Arrays.copyOfRange(data, offs[j], offs[j] + vs));
                }
                backend.write(bk, bv, 0, batch); // one atomic batch
            }
            t.stats.finishedOps(batch, Stats.Op.WRITE);
        }
        t.stats.addBytes(bytes);
    }

    private void readRandom(ThreadState t, KvStore.Reader reader) {
        long num = f.int64("num");
        Duration d = new Duration(f.int32("duration"), reads());
        byte[] key = new byte[keySize];
        long read = 0;
        long found = 0;
        long bytes = 0;
        while (!d.done(1)) {
            t.rand.next(); // db_bench draws a database per read (one database here)
            Keys.fill(t.rand.nextMod(num), key, keySize);
            read++;
            int n = reader.get(key);
            if (n >= 0) {
                found++;
                bytes += keySize + n;
            }
            t.stats.finishedOps(1, Stats.Op.READ);
        }
        t.stats.addBytes(bytes);
        t.stats.addMessage(String.format(Locale.ROOT, "(%d of %d found)%n", found, read));
    }

    private void multiReadRandom(ThreadState t, KvStore.Reader reader) {
        long num = f.int64("num");
        int batch = (int) f.int64("batch_size");
        Duration d = new Duration(f.int32("duration"), reads());
        byte[][] keys = new byte[batch][keySize];
        long[] bytes = new long[1];
        long read = 0;
        long found = 0;
        while (!d.done(batch)) {
            t.rand.next(); // db_bench draws a database per multi-get (one database here)
            for (int i = 0; i < batch; i++) {
                Keys.fill(t.rand.nextMod(num), keys[i], keySize);
            }
            found += reader.multiGet(keys, batch, bytes);
            read += batch;
            t.stats.finishedOps(batch, Stats.Op.READ);
        }
        t.stats.addBytes(bytes[0]);
        t.stats.addMessage(String.format(Locale.ROOT, "(%d of %d found)", found, read));
    }

    private void seekRandom(ThreadState t, KvStore.Reader reader) {
        long num = f.int64("num");
        int nexts = f.int32("seek_nexts");
        Duration d = new Duration(f.int32("duration"), reads());
        byte[] key = new byte[keySize];
        long[] bytes = new long[1];
        long read = 0;
        long found = 0;
        while (!d.done(1)) {
            Keys.fill(t.rand.nextMod(num), key, keySize);
            if (reader.seek(key, nexts, bytes)) {
                found++;
            }
            read++;
            t.stats.finishedOps(1, Stats.Op.SEEK);
        }
        t.stats.addBytes(bytes[0]);
        t.stats.addMessage(String.format(Locale.ROOT, "(%d of %d found)%n", found, read));
    }

    /** readwhilewriting's writer: random puts at the rate limit until every reader is done. */
    private void bgWriter(ThreadState t, Shared shared) {
        long num = f.int64("num");
        int vs = values.valueSize();
        byte[] key = new byte[keySize];
        byte[] data = values.data();
        Values.Cursor gen = values.cursor();
        RateLimiter limiter = writeRate > 0 ? new RateLimiter(writeRate) : null;
        t.stats.excludeFromMerge();
        long bytes = 0;
        while (shared.done.get() + 1 < shared.total) {
            t.rand.next(); // db_bench draws a database per put (one database here)
            Keys.fill(t.rand.nextMod(num), key, keySize);
            backend.put(key, data, gen.next(), vs);
            bytes += keySize + vs;
            t.stats.finishedOps(1, Stats.Op.WRITE);
            if (limiter != null) {
                limiter.request(keySize + vs);
            }
        }
        t.stats.addBytes(bytes);
    }

    // ---- machine-readable results ----

    private void json(Stats.Result r, int threads, String kind, int index) {
        Json j = new Json();
        j.put("tool", "java-dbbench").put("api", api).put("benchmark", r.name()).put("kind", kind).put("index", index)
                .put("micros_per_op", r.microsPerOp()).put("ops_per_sec", r.opsPerSec()).put("seconds", r.seconds())
                .put("operations", r.operations()).put("mb_per_sec", Double.isNaN(r.mbPerSec()) ? null : r.mbPerSec())
                .put("message", r.message().strip()).put("threads", threads).put("num", f.int64("num"))
                .put("reads", reads()).put("key_size", keySize).put("value_size", f.int32("value_size"))
                .put("batch_size", f.int64("batch_size")).put("seed", seedBase).put("db", dbPath.toString())
                .put("block_cache", eo.effectiveCacheType(api.startsWith("ferry-"))).put("engine_block_cache", engineCache)
                .put("engine_path", engine == null ? null : engine.path().toString())
                .put("engine_sha256", engine == null ? null : engine.sha256())
                .put("java", Runtime.version().toString()).put("args", String.join(" ", args));
        for (var e : r.histograms().entrySet()) {
            Histogram h = e.getValue();
            String p = "hist_" + e.getKey() + "_";
            j.put(p + "count", h.count()).put(p + "avg", h.average()).put(p + "p50", h.percentile(50))
                    .put(p + "p75", h.percentile(75)).put(p + "p99", h.percentile(99)).put(p + "p99_9", h.percentile(99.9))
                    .put(p + "p99_99", h.percentile(99.99)).put(p + "max", h.max());
        }
        jsonLines.add(j.toString());
    }

    private void writeJson() {
        String file = f.str("json");
        if (file.isEmpty() || jsonLines.isEmpty()) {
            return;
        }
        try {
            Path p = Path.of(file);
            if (p.toAbsolutePath().getParent() != null) {
                Files.createDirectories(p.toAbsolutePath().getParent());
            }
            Files.write(p, jsonLines, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new BenchmarkFailure("cannot write --json=" + file + ": " + e.getMessage(), e);
        }
    }

    /** @return the backend's property (for tests), or empty */
    Optional<String> property(String name) {
        return backend == null ? Optional.empty() : backend.property(name);
    }
}
