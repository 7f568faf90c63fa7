package dev.ferry.bench.flash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * What {@code ./ferry reproduce flash} runs to reproduce "RocksJava Performance on Flash Storage"
 * (RocksDB wiki, May 2014): the published C++ db_bench command line of each of the four workloads,
 * the flags this reproduction passes instead (each published flag is passed with its published
 * value, replaced for a stated reason, or left out because RocksDB 11.8.1 or the Java tool no
 * longer has it), the sizes of a mode, and the ordered list of runs.
 *
 * <p>Every run gets the same flags whatever the tool: C++ db_bench, the Java db_bench through
 * RocksJava (the {@code byte[]} loop users write, and the best RocksJava loop), Ferry-JNI and
 * Ferry-FFM. fillseq is measured on each tool writing its own database; the reader workloads read
 * the one database C++ db_bench's fillseq wrote (compacted to rest first), readwhilewriting on a
 * fresh copy of it per run so that every tool reads the same data. With repeats, every cell runs
 * once per repeat with the tools' order rotated ({@link #order(List, int)}), so that run order is
 * not confounded with the tool.
 *
 * <p>Thread safety: immutable constants and pure functions.
 */
public final class FlashPlan {
    private FlashPlan() {
    }

    /** The page, and its history (the quoted command lines are from the May 2014 revisions). */
    public static final String SOURCE = "https://github.com/facebook/rocksdb/wiki/RocksJava-Performance-on-Flash-Storage";

    /** The four published workloads, in the published table's order. */
    public static final List<String> WORKLOADS = List.of("fillseq", "readrandom", "readwhilewriting", "readseq");

    /** The reader workloads (threads 1, cores, 32; read the shared database). */
    public static final List<String> READERS = List.of("readrandom", "readwhilewriting", "readseq");

    /** The published thread count of the reader workloads. */
    public static final int PUBLISHED_READERS = 32;

    /** The seed every run gets, so that every tool reads the same random keys. */
    public static final long SEED = 20140502L;

    /**
     * The published C++ db_bench command lines (RocksDB commit 61955a0, 2014), flags exactly as on
     * the page; the RocksJava lines differ only in the Java tool's spelling and its {@code --num}
     * meaning (the total over all threads) and in {@code --compression_ratio=0.5}.
     */
    public static final Map<String, String> PUBLISHED_CPP = published();

    private static Map<String, String> published() {
        String tail = " --write_buffer_size=134217728 --target_file_size_base=67108864 --max_write_buffer_number=3"
                + " --max_background_compactions=20 --level0_file_num_compaction_trigger=4"
                + " --level0_slowdown_writes_trigger=8 --level0_stop_writes_trigger=12 --num_levels=6"
                + " --delete_obsolete_files_period_micros=300000000";
        Map<String, String> m = new LinkedHashMap<>();
        m.put("fillseq", "--benchmarks=fillseq --disable_seek_compaction=1 --mmap_read=0 --statistics=0 --histogram=0 --threads=1"
                + " --value_size=800 --block_size=65536 --cache_size=1048576 --bloom_bits=10 --cache_numshardbits=4"
                + " --open_files=500000 --verify_checksum=1 --db=/rocksdb-bench/cc/b2 --sync=0 --disable_wal=1"
                + " --compression_ratio=50 --disable_data_sync=0" + tail + " --min_level_to_compress=0"
                + " --max_grandparent_overlap_factor=10 --max_bytes_for_level_base=10485760 --use_existing_db=0 --num=1000000000");
        m.put("readrandom", "--benchmarks=readrandom --disable_seek_compaction=1 --mmap_read=0 --threads=32 --value_size=800"
                + " --block_size=4096 --cache_size=1048576 --bloom_bits=10 --cache_numshardbits=6 --open_files=500000"
                + " --verify_checksum=1 --db=/rocksdb-bench/cc/b2 --sync=0 --disable_wal=1 --compression_type=none"
                + " --compression_ratio=50 --disable_data_sync=0" + tail + " --min_level_to_compress=2"
                + " --max_grandparent_overlap_factor=10 --max_bytes_for_level_base=10485760 --use_existing_db=1 --num=31250000");
        m.put("readwhilewriting", "--benchmarks=readwhilewriting --disable_seek_compaction=1 --mmap_read=0 --threads=32"
                + " --value_size=800 --block_size=4096 --cache_size=1048576 --bloom_bits=10 --cache_numshardbits=6"
                + " --open_files=500000 --verify_checksum=1 --db=/rocksdb-bench/cc/b2 --sync=0 --disable_wal=1"
                + " --compression_ratio=50 --disable_data_sync=0" + tail + " --min_level_to_compress=2"
                + " --max_grandparent_overlap_factor=10 --max_bytes_for_level_base=10485760 --writes_per_second=10000"
                + " --use_existing_db=1 --num=31250000");
        m.put("readseq", "--benchmarks=readseq --disable_seek_compaction=1 --mmap_read=0 --threads=32 --value_size=800"
                + " --block_size=4096 --cache_size=1048576 --bloom_bits=10 --cache_numshardbits=6 --open_files=500000"
                + " --verify_checksum=1 --db=/rocksdb-bench/cc/b2 --sync=0 --disable_wal=1 --compression_type=none"
                + " --compression_ratio=50 --disable_data_sync=0" + tail + " --min_level_to_compress=2"
                + " --max_grandparent_overlap_factor=10 --max_bytes_for_level_base=10485760 --use_existing_db=1"
                + " --threads=32 --num=1000000000");
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * The published figures, operations per second.
     *
     * @param workload the db_bench benchmark
     * @param rocksJava RocksJava's figure
     * @param cpp C++ db_bench's figure
     * @param label the published table's row name
     */
    public record Published(String workload, double rocksJava, double cpp, String label) {
        /** @return RocksJava's throughput relative to C++'s, minus one (-0.108 = 10.8% slower) */
        public double diff() {
            return rocksJava / cpp - 1;
        }
    }

    /** The published table (1B keys of 16 B, values 800 B, 40-core Xeon E5-2660 v2, flash, JDK 7). */
    public static final List<Published> PUBLISHED = List.of(
            new Published("fillseq", 369e3, 371e3, "1 sequential writer"),
            new Published("readrandom", 270e3, 303e3, "32 random readers"),
            new Published("readwhilewriting", 206e3, 336e3, "32 random readers with 1 random writer at 10K writes/s"),
            new Published("readseq", 2.12e6, 6.84e6, "32 sequential readers"));

    /**
     * What became of one published flag.
     *
     * @param flag the flag's name
     * @param passed what is passed instead ("" when it is left out)
     * @param why the reason
     */
    public record Deviation(String flag, String passed, String why) {
    }

    /** Published flags that are not passed, with the reason (the same for every workload). */
    public static final Map<String, String> LEFT_OUT = leftOut();

    private static Map<String, String> leftOut() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("disable_seek_compaction", "seek compaction is gone from RocksDB; db_bench 11.8.1 keeps the flag as 'not used'");
        m.put("mmap_read", "published 0 = the default of both tools (the Java tool does not implement mmap reads)");
        m.put("statistics", "published 0 for C++ (RocksJava ran with 1); left at the default false on every tool");
        m.put("disable_data_sync", "option removed from RocksDB (db_bench 11.8.1 has no such flag)");
        m.put("delete_obsolete_files_period_micros", "db_bench 11.8.1: 'Ignored'; not a flag of the Java tool");
        m.put("min_level_to_compress", "not a flag of the Java tool; fillseq's 0 compresses every level, which is what "
                + "--compression_type does alone; the readers' 2 only concerns files written during the run "
                + "(readwhilewriting's flushes), which are compressed with snappy here");
        m.put("max_grandparent_overlap_factor", "option removed from RocksDB (db_bench 11.8.1 has no such flag)");
        return java.util.Collections.unmodifiableMap(m);
    }

    /** Parses a published command line into flag name to value (a repeated flag keeps its last value). */
    static Map<String, String> parse(String cmd) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String a : cmd.trim().split("\\s+")) {
            String body = a.substring(2);
            int eq = body.indexOf('=');
            m.put(body.substring(0, eq), body.substring(eq + 1));
        }
        return m;
    }

    /** A mode's sizes. */
    public enum Mode {
        /** a smoke run: small data, short runs, about 6 minutes of runs on 2 cores */
        QUICK,
        /** data far beyond the block cache, read from the disk with O_DIRECT; about an hour on 2 cores */
        FULL
    }

    /** Bytes a database entry takes on disk (16 B key, 800 B value at compression ratio 0.5, snappy), measured here. */
    public static final long BYTES_PER_ENTRY = 460;

    /**
     * The sizes of a run.
     *
     * @param num entries in every database (--num)
     * @param durationSeconds --duration of readrandom and readwhilewriting
     * @param seqReadsTotal entries readseq reads per run, over all its threads
     * @param seqWarmup whether readseq runs one warm-up pass first ({@code readseq[X1-W1]})
     * @param why how the sizes were chosen
     */
    public record Sizes(long num, int durationSeconds, long seqReadsTotal, boolean seqWarmup, String why) {
        /** @return the estimated size of one database on disk, bytes */
        public long dbBytes() {
            return num * BYTES_PER_ENTRY;
        }

        /** @return the disk space a run needs at its peak: the shared database, a fill, a readwhilewriting copy's growth */
        public long neededBytes() {
            return 3 * dbBytes() + (512L << 20);
        }
    }

    /** Entries of a full run when the disk has room: about 4.6 GB per database. */
    public static final long FULL_NUM = 10_000_000L;

    /**
     * The sizes of a mode on a disk with the given free space.
     *
     * @param mode quick or full
     * @param freeBytes usable bytes on the data directory's file system
     * @param numOverride entries to use instead of the mode's (0: the mode's)
     * @param durationOverride seconds to use instead of the mode's (0: the mode's)
     * @return the sizes, with the reasons
     * @throws IllegalStateException when the disk cannot hold the run
     */
    public static Sizes sizes(Mode mode, long freeBytes, long numOverride, int durationOverride) {
        long num;
        int duration;
        String why;
        if (mode == Mode.QUICK) {
            num = 300_000;
            duration = 8;
            why = "quick: a smoke run (about 6 minutes of runs on 2 cores); 300,000 entries (about 140 MB on disk), "
                    + "8-second random-read runs, readseq reads the database once per run after one warm-up pass. "
                    + "Far beyond the 1 MiB block cache and read with O_DIRECT like full, but short runs: not a claim";
        } else {
            num = FULL_NUM;
            duration = 60;
            long fit = (freeBytes - (2L << 30) - (512L << 20)) / (3 * BYTES_PER_ENTRY);
            if (fit < num) {
                num = Math.max(1_000_000L, fit / 1_000_000L * 1_000_000L);
            }
            why = String.format(Locale.ROOT, "full: %,d entries (about %.1f GB per database at %d B per entry on disk), "
                    + "%,dx the 1 MiB block cache, and read with O_DIRECT, so reads come from the disk, not the OS page cache; "
                    + "the run needs about 3 databases of space at its peak (the shared one, a tool's own fillseq, a "
                    + "readwhilewriting copy growing by compaction) and %.1f GB were free; 10 million entries when room allows "
                    + "keeps the whole run near an hour on 2 cores; 60-second random-read runs; readseq reads the database once per run",
                    num, num * BYTES_PER_ENTRY / 1e9, BYTES_PER_ENTRY, num * BYTES_PER_ENTRY >> 20, freeBytes / 1e9);
        }
        if (numOverride > 0) {
            num = numOverride;
            why += String.format(Locale.ROOT, "; --num %,d given on the command line", numOverride);
        }
        if (durationOverride > 0) {
            duration = durationOverride;
            why += "; --duration " + durationOverride + " given on the command line";
        }
        Sizes s = new Sizes(num, duration, num, mode == Mode.QUICK, why);
        if (s.neededBytes() + (1L << 30) > freeBytes) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "not enough disk: %,d entries need about %.1f GB and 1 GB to spare, %.1f GB free", num, s.neededBytes() / 1e9, freeBytes / 1e9));
        }
        return s;
    }

    /** Reader thread counts: 1, the cores, and the published 32, without repeats. */
    public static List<Integer> readerThreads(int cores) {
        return List.copyOf(new TreeSet<>(List.of(1, Math.max(1, cores), PUBLISHED_READERS)));
    }

    /**
     * The flags one run gets (the same on every tool), and what became of each published flag.
     *
     * @param workload one of {@link #WORKLOADS}
     * @param threads --threads
     * @param s the sizes
     * @param db the database directory
     * @param deviations receives what became of each published flag that is not passed as published (may be null)
     * @return the command line for {@code ./ferry dbbench} and {@code ./ferry dbbench-cpp}
     */
    public static List<String> flags(String workload, int threads, Sizes s, Path db, List<Deviation> deviations) {
        String cmd = PUBLISHED_CPP.get(workload);
        if (cmd == null) {
            throw new IllegalArgumentException("unknown workload " + workload + " (" + WORKLOADS + ")");
        }
        boolean reader = !workload.equals("fillseq");
        List<Deviation> dev = deviations != null ? deviations : new ArrayList<>();
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : parse(cmd).entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            if (LEFT_OUT.containsKey(k)) {
                dev.add(new Deviation(k + "=" + v, "", LEFT_OUT.get(k)));
                continue;
            }
            switch (k) {
                case "benchmarks" -> {
                    if (workload.equals("readseq") && s.seqWarmup()) {
                        out.add("--benchmarks=readseq[X1-W1]");
                        dev.add(new Deviation(k + "=" + v, "--benchmarks=readseq[X1-W1]", "quick: one warm-up pass first (db_bench's "
                                + "syntax, on every tool), so that a short scan does not measure the JVM's interpreter; the "
                                + "published scans read 1B entries each, where that start-up does not count"));
                    } else {
                        out.add("--benchmarks=" + v);
                    }
                }
                case "threads" -> {
                    out.add("--threads=" + threads);
                    if (threads != Integer.parseInt(v)) {
                        dev.add(new Deviation(k + "=" + v, "--threads=" + threads, "readers run at 1 thread, the cores and the published 32"));
                    }
                }
                case "db" -> out.add("--db=" + db);
                case "histogram" -> {
                    out.add("--histogram=1");
                    if (!v.equals("1")) {
                        dev.add(new Deviation(k + "=" + v, "--histogram=1", "latency percentiles on every tool (RocksJava ran with it; "
                                + "it times each operation on both sides alike)"));
                    }
                }
                case "compression_ratio" -> {
                    out.add("--compression_ratio=0.5");
                    dev.add(new Deviation(k + "=" + v, "--compression_ratio=0.5", "C++ was given 50 (values from 5,000 random bytes: "
                            + "incompressible), RocksJava 0.5; every tool must read the same data, so db_bench's default 0.5 for all"));
                }
                case "num" -> {
                    out.add("--num=" + s.num());
                    dev.add(new Deviation(k + "=" + v, "--num=" + s.num(), switch (workload) {
                        case "fillseq" -> "sized to this machine (1B entries of 816 B = 816 GB raw)";
                        case "readseq" -> "the database's size; published, each of the 32 threads read all 1B entries (C++ db_bench's "
                                + "--num counts per thread); here --reads bounds the run";
                        default -> "the whole database's key range; published, C++ --num=31250000 (1B/32: C++ db_bench's --num counts "
                                + "per thread) also narrowed the random keys to the first 31.25M of the 1B; here --duration bounds the run";
                    }));
                }
                default -> out.add("--" + k + "=" + v);
            }
        }
        if (!cmd.contains("--histogram=")) {
            out.add("--histogram=1");
            dev.add(new Deviation("histogram (not given: off)", "--histogram=1", "latency percentiles on every tool (RocksJava ran "
                    + "with it; it times each operation on both sides alike)"));
        }
        out.add("--key_size=16");
        dev.add(new Deviation("key_size (not given: default 16)", "--key_size=16", "the published 16-byte keys, made explicit"));
        if (!cmd.contains("--compression_type=")) {
            out.add("--compression_type=snappy");
            dev.add(new Deviation("compression_type (not given: default snappy)", "--compression_type=snappy",
                    "the default made explicit (both tools' default too)"));
        }
        out.add("--cache_type=lru_cache");
        dev.add(new Deviation("cache_type (not given: the 2014 LRU cache)", "--cache_type=lru_cache",
                "db_bench 11.8.1 defaults to hyper_clock_cache, which Ferry's options cannot make; LRU as in 2014"));
        if (reader) {
            out.add("--use_direct_reads=1");
            dev.add(new Deviation("use_direct_reads (not given)", "--use_direct_reads=1", "O_DIRECT reads: the page cache of a "
                    + "machine with more RAM than the database would otherwise serve the reads (the published 800 GB did not fit 144 GB)"));
            if (workload.equals("readseq")) {
                long per = Math.max(1, s.seqReadsTotal() / threads);
                out.add("--reads=" + per);
                dev.add(new Deviation("reads (not given: each thread reads the whole database)", "--reads=" + per,
                        "each thread reads the first " + per + " entries, so a run reads the database about once in total"));
            } else {
                out.add("--duration=" + s.durationSeconds());
                dev.add(new Deviation("duration (not given: a count of reads)", "--duration=" + s.durationSeconds(),
                        "runs of a fixed length"));
            }
        }
        out.add("--seed=" + SEED);
        out.add("--progress_reports=false");
        return out;
    }

    /** Whether a run is a measurement or a preparation step. */
    public enum Kind {
        /** a measured run: its results go into the report */
        MEASURE,
        /** a preparation step (compaction to rest): output kept, not reported */
        PREPARE
    }

    /** The C++ tool's name in plans, CSVs and reports. */
    public static final String CPP = "c++";

    /**
     * One run.
     *
     * @param index 1-based position
     * @param kind measure or prepare
     * @param api {@link #CPP} or a Java tool {@code --api}
     * @param workload the benchmark
     * @param threads --threads
     * @param args the command line given to the tool (without --api and --json)
     * @param db the database directory it uses
     * @param dbSetup what to do with the database first: "fresh" (delete it), "copy" (copy the shared one), "shared"
     * @param repeat the 1-based repeat it belongs to
     * @param position its 1-based place among the tools of its cell in this repeat (0 for a preparation step)
     */
    public record Run(int index, Kind kind, String api, String workload, int threads, List<String> args, Path db, String dbSetup,
            int repeat, int position) {
        /** @return a file-name stem for this run's raw outputs, ending in {@code -r<repeat>p<position>} for a measured cell */
        public String stem() {
            String s = String.format(Locale.ROOT, "%02d-%s-t%d-%s", index, workload, threads, api.equals(CPP) ? "cpp" : api);
            return position > 0 ? s + "-r" + repeat + "p" + position : s;
        }
    }

    /**
     * The order the tools of a cell run in, in a repeat: the list rotated to start at tool
     * {@code repeat mod T}, so that over T repeats (or any multiple) each tool runs in each place
     * equally often. Repeat 0 is the list as given (C++ first), the order of a single run.
     *
     * @param tools the cell's tools, C++ first
     * @param repeat the 0-based repeat
     * @return the tools in this repeat's order
     */
    public static List<String> order(List<String> tools, int repeat) {
        int t = tools.size();
        List<String> out = new ArrayList<>(t);
        for (int i = 0; i < t; i++) {
            out.add(tools.get((repeat + i) % t));
        }
        return out;
    }

    /** The runs of a single repeat; see {@link #runs(Sizes, int, Path, List, List, List, List, int)}. */
    public static List<Run> runs(Sizes s, int cores, Path data, List<String> javaFillApis, List<String> readerApis,
            List<String> workloads, List<Integer> threads) {
        return runs(s, cores, data, javaFillApis, readerApis, workloads, threads, 1);
    }

    /**
     * The runs in order. Repeat 1: C++ fillseq writes the shared database (and is fillseq's C++
     * figure), C++ db_bench waits for its compactions to finish, each Java API's fillseq writes its
     * own database, then for each reader workload and thread count every tool in turn. Every
     * further repeat runs every cell again with the tools in the order {@link #order(List, int)}
     * gives: fillseq with each tool, C++ too, writing a fresh database of its own (a fill always
     * creates its database), the readers on the same shared database as repeat 1.
     *
     * @param s the sizes
     * @param cores the machine's cores
     * @param data the directory for databases
     * @param javaFillApis the Java APIs measured on fillseq
     * @param readerApis the Java APIs measured on the reader workloads
     * @param workloads the workloads to measure (a subset of {@link #WORKLOADS})
     * @param threads reader thread counts (empty: {@link #readerThreads(int)})
     * @param repeats how many times every cell runs (at least 1)
     * @return the runs
     */
    public static List<Run> runs(Sizes s, int cores, Path data, List<String> javaFillApis, List<String> readerApis,
            List<String> workloads, List<Integer> threads, int repeats) {
        if (repeats < 1) {
            throw new IllegalArgumentException("repeats must be at least 1, not " + repeats);
        }
        Path shared = data.resolve("shared");
        Path own = data.resolve("fill");
        Path copy = data.resolve("rww");
        List<Run> runs = new ArrayList<>();
        boolean fill = workloads.contains("fillseq");
        List<String> fillTools = new ArrayList<>();
        fillTools.add(CPP);
        fillTools.addAll(javaFillApis);
        List<String> apis = new ArrayList<>();
        apis.add(CPP);
        apis.addAll(readerApis);
        List<Integer> ts = threads.isEmpty() ? readerThreads(cores) : threads;
        for (int r = 0; r < repeats; r++) {
            int rep = r + 1;
            if (r == 0) {
                runs.add(new Run(runs.size() + 1, fill ? Kind.MEASURE : Kind.PREPARE, CPP, "fillseq", 1, flags("fillseq", 1, s, shared, null),
                        shared, "fresh", rep, fill ? 1 : 0));
                List<String> wait = new ArrayList<>(flags("fillseq", 1, s, shared, null));
                wait.replaceAll(a -> a.startsWith("--benchmarks=") ? "--benchmarks=waitforcompaction"
                        : a.startsWith("--use_existing_db=") ? "--use_existing_db=1" : a);
                runs.add(new Run(runs.size() + 1, Kind.PREPARE, CPP, "waitforcompaction", 1, wait, shared, "shared", rep, 0));
            }
            if (fill) {
                List<String> order = order(fillTools, r);
                for (int p = 0; p < order.size(); p++) {
                    String api = order.get(p);
                    if (r == 0 && api.equals(CPP)) {
                        continue; // repeat 1's C++ fill wrote the shared database above
                    }
                    runs.add(new Run(runs.size() + 1, Kind.MEASURE, api, "fillseq", 1, flags("fillseq", 1, s, own, null), own, "fresh",
                            rep, p + 1));
                }
            }
            for (String w : READERS) {
                if (!workloads.contains(w)) {
                    continue;
                }
                boolean rww = w.equals("readwhilewriting");
                Path db = rww ? copy : shared;
                for (int t : ts) {
                    List<String> order = order(apis, r);
                    for (int p = 0; p < order.size(); p++) {
                        runs.add(new Run(runs.size() + 1, Kind.MEASURE, order.get(p), w, t, flags(w, t, s, db, null), db,
                                rww ? "copy" : "shared", rep, p + 1));
                    }
                }
            }
        }
        return runs;
    }
}
