package dev.ferry.bench.dbbench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * db_bench's command-line flags in gflags syntax: {@code --name=value} (or {@code -name=value},
 * or {@code --name value} for a non-boolean flag), booleans also as {@code --name},
 * {@code --noname} and {@code --name=true|false|1|0|yes|no|t|f|y|n}. Defaults are those of
 * RocksDB 11.8.1's {@code tools/db_bench_tool.cc} (where db_bench takes a default from
 * {@code Options()}, its value in 11.8.1), except {@code --benchmarks}, whose default here is the
 * list of benchmarks this tool implements. Flags marked "Java only" are not db_bench flags;
 * {@link CppDbBench} strips or translates them before it starts C++ db_bench.
 *
 * <p>An unknown flag, a db_bench flag this tool does not implement, a malformed value or a
 * positional argument is an error ({@link FlagError}), never ignored.
 *
 * <p>Thread safety: immutable after {@link #parse}.
 */
public final class Flags {
    /** Type of a flag's value, as gflags declares it. */
    public enum Kind {
        /** DEFINE_bool */
        BOOL,
        /** DEFINE_int32 */
        INT32,
        /** DEFINE_int64 */
        INT64,
        /** DEFINE_uint64 */
        UINT64,
        /** DEFINE_double */
        DOUBLE,
        /** DEFINE_string */
        STRING
    }

    /**
     * One flag.
     *
     * @param name name without dashes
     * @param kind value type
     * @param defaultValue default, as text
     * @param help one-line description
     * @param javaOnly true when C++ db_bench has no such flag
     */
    public record Def(String name, Kind kind, String defaultValue, String help, boolean javaOnly) {
    }

    /** A command line that cannot be parsed; the message says why. */
    public static final class FlagError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * Makes an error.
         *
         * @param message what is wrong
         */
        public FlagError(String message) {
            super(message);
        }
    }

    /** Benchmarks this tool implements, in db_bench's order. */
    public static final List<String> BENCHMARKS = List.of("fillseq", "fillrandom", "overwrite", "readseq",
            "readreverse", "readrandom", "multireadrandom", "seekrandom", "readwhilewriting", "stats");

    private static final Map<String, Def> DEFS = new LinkedHashMap<>();

    private static void def(String name, Kind kind, String dflt, String help) {
        DEFS.put(name, new Def(name, kind, dflt, help, false));
    }

    private static void javaOnly(String name, Kind kind, String dflt, String help) {
        DEFS.put(name, new Def(name, kind, dflt, help, true));
    }

    static {
        def("benchmarks", Kind.STRING, String.join(",", BENCHMARKS),
                "Comma-separated list of benchmarks to run, in order (supported: " + String.join(", ", BENCHMARKS) + ")");
        def("num", Kind.INT64, "1000000", "Number of key/values to place in database");
        def("reads", Kind.INT64, "-1", "Number of read operations to do. If negative, do FLAGS_num reads.");
        def("writes", Kind.INT64, "-1", "Number of write operations to do. If negative, do --num reads.");
        def("threads", Kind.INT32, "1", "Number of concurrent threads to run.");
        def("duration", Kind.INT32, "0", "Time in seconds for the random-ops tests to run. When 0 then num & reads determine the test duration");
        def("value_size", Kind.INT32, "100", "Size of each value in fixed distribution");
        def("key_size", Kind.INT32, "16", "size of each key");
        def("batch_size", Kind.INT64, "1", "Batch size");
        def("seek_nexts", Kind.INT32, "0", "How many times to call Next() after Seek() in seekrandom");
        def("seed", Kind.INT64, "0", "Seed base for random number generators. When 0 it is derived from the current time.");
        def("compression_ratio", Kind.DOUBLE, "0.5", "Arrange to generate values that shrink to this fraction of their original size after compression");
        def("compression_type", Kind.STRING, "snappy", "Algorithm to use to compress the database (none, snappy, zlib, bzip2, lz4, lz4hc, xpress, zstd)");
        def("db", Kind.STRING, "", "Use the db with the following name.");
        def("use_existing_db", Kind.BOOL, "false", "If true, do not destroy the existing database. Benchmarks that want a fresh database are skipped.");
        def("sync", Kind.BOOL, "false", "Sync all writes to disk");
        def("disable_wal", Kind.BOOL, "false", "If true, do not write WAL for write.");
        def("histogram", Kind.BOOL, "false", "Print histogram of operation timings");
        def("statistics", Kind.BOOL, "false", "Database statistics");
        def("progress_reports", Kind.BOOL, "true", "If true, report number of finished operations.");
        def("verify_checksum", Kind.BOOL, "true", "Verify checksum for every block read from storage");
        def("use_direct_reads", Kind.BOOL, "false", "Use O_DIRECT for reading data");
        def("benchmark_write_rate_limit", Kind.UINT64, "0", "If non-zero, rate-limit the writes going into RocksDB. This is the global rate in bytes/second.");
        // table and cache
        def("block_size", Kind.INT32, "4096", "Number of bytes in a block.");
        def("cache_size", Kind.INT64, String.valueOf(32L << 20), "Number of bytes to use as a cache of uncompressed data");
        def("cache_numshardbits", Kind.INT32, "-1", "Number of shards for the block cache is 2 ** cache_numshardbits. Negative means use default settings.");
        def("cache_type", Kind.STRING, "hyper_clock_cache", "Type of block cache (lru_cache, hyper_clock_cache, auto_hyper_clock_cache, fixed_hyper_clock_cache)");
        def("bloom_bits", Kind.INT32, "-1", "Bloom filter bits per key. Negative means use default. Zero disables.");
        def("cache_index_and_filter_blocks", Kind.BOOL, "false", "Cache index/filter blocks in block cache.");
        def("pin_top_level_index_and_filter", Kind.BOOL, "false", "Pin top-level index of partitioned index/filter blocks in block cache.");
        def("uniform_cv_threshold", Kind.DOUBLE, "-1", "Coefficient-of-variation threshold for marking blocks uniform (negative: never); RocksJava's BlockBasedTableConfig defaults to 0.2, C++ to -1");
        def("index_shortening_mode", Kind.INT64, "2", "Index key shortening: 0 none, 1 separators, 2 separators and successor");
        // DB and column family options
        def("write_buffer_size", Kind.INT64, "67108864", "Number of bytes to buffer in memtable before compacting");
        def("max_write_buffer_number", Kind.INT32, "2", "The number of in-memory memtables.");
        def("min_write_buffer_number_to_merge", Kind.INT32, "1", "The minimum number of write buffers that will be merged together before writing to storage.");
        def("target_file_size_base", Kind.INT64, "67108864", "Target file size at level-1");
        def("target_file_size_multiplier", Kind.INT32, "1", "A multiplier to compute target level-N file size (N >= 2)");
        def("max_bytes_for_level_base", Kind.UINT64, "268435456", "Max bytes for level-1");
        def("max_bytes_for_level_multiplier", Kind.DOUBLE, "10", "A multiplier to compute max bytes for level-N (N >= 2)");
        def("level_compaction_dynamic_level_bytes", Kind.BOOL, "false", "Whether level size base is dynamic");
        def("num_levels", Kind.INT32, "7", "The total number of levels");
        def("max_background_compactions", Kind.INT32, "-1", "The maximum number of concurrent background compactions that can occur in parallel.");
        def("max_background_flushes", Kind.INT32, "-1", "The maximum number of concurrent background flushes that can occur in parallel.");
        def("max_background_jobs", Kind.INT32, "2", "The maximum number of concurrent background jobs that can occur in parallel.");
        def("level0_file_num_compaction_trigger", Kind.INT32, "4", "Number of files in level-0 when compactions start.");
        def("level0_slowdown_writes_trigger", Kind.INT32, "20", "Number of files in level-0 that will slow down writes.");
        def("level0_stop_writes_trigger", Kind.INT32, "36", "Number of files in level-0 that will trigger put stop.");
        def("disable_auto_compactions", Kind.BOOL, "false", "Do not auto trigger compactions");
        def("open_files", Kind.INT32, "-1", "Maximum number of files to keep open at the same time");
        def("table_cache_numshardbits", Kind.INT32, "4", "");
        def("delayed_write_rate", Kind.UINT64, "8388608", "Limited bytes allowed to DB when soft_rate_limit or level0_slowdown_writes_trigger triggers");
        def("hard_pending_compaction_bytes_limit", Kind.UINT64, String.valueOf(128L << 30), "Stop writes if pending compaction bytes exceed this number");
        def("soft_pending_compaction_bytes_limit", Kind.UINT64, String.valueOf(64L << 30), "Slowdown writes if pending compaction bytes exceed this number");
        def("enable_pipelined_write", Kind.BOOL, "true", "Allow WAL and memtable writes to be pipelined");
        def("allow_concurrent_memtable_write", Kind.BOOL, "true", "Allow multi-writers to update mem tables in parallel.");
        def("dump_malloc_stats", Kind.BOOL, "true", "Dump malloc stats in LOG ");
        def("bytes_per_sync", Kind.UINT64, "0", "Allows OS to incrementally sync SST files to disk while they are being written, in the background.");
        def("wal_bytes_per_sync", Kind.UINT64, "0", "Allows OS to incrementally sync WAL files to disk while they are being written, in the background.");
        // Java only
        javaOnly("api", Kind.STRING, "ferry-jni", "Java only: who drives the engine: ferry-jni, ferry-ffm, rocksjava (byte[] loops, get(byte[])), "
                + "rocksjava-reuse (key(byte[])/value(byte[]) into reused arrays, get into a reused array), "
                + "rocksjava-direct (direct ByteBuffers)");
        javaOnly("writes_per_second", Kind.INT64, "0", "Java only (LevelDB's db_bench flag): the readwhilewriting writer's rate in puts/second; "
                + "sets --benchmark_write_rate_limit to it times (key_size + value_size)");
        javaOnly("json", Kind.STRING, "", "Java only: append one JSON line per benchmark result to this file");
    }

    private final Map<String, String> values;
    private final List<String> given;

    private Flags(Map<String, String> values, List<String> given) {
        this.values = values;
        this.given = given;
    }

    /** @return every flag this tool knows, in the order of {@code --help} */
    public static List<Def> definitions() {
        return List.copyOf(DEFS.values());
    }

    /**
     * Returns a flag's definition.
     *
     * @param name the name without dashes
     * @return the definition, or null when unknown
     */
    public static Def definition(String name) {
        return DEFS.get(name);
    }

    /** @return flags with every default */
    public static Flags defaults() {
        return parse(List.of());
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments
     * @return the flags
     * @throws FlagError on an unknown flag, a bad value or a positional argument
     */
    public static Flags parse(List<String> args) {
        Map<String, String> v = new LinkedHashMap<>();
        for (Def d : DEFS.values()) {
            v.put(d.name, d.defaultValue);
        }
        List<String> given = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("-") || a.equals("-") || a.equals("--")) {
                throw new FlagError("unexpected argument '" + a + "': flags look like --name=value (try --help)");
            }
            String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            String value = eq < 0 ? null : body.substring(eq + 1);
            Def d = DEFS.get(name);
            if (d == null && value == null && name.startsWith("no")) {
                Def b = DEFS.get(name.substring(2));
                if (b != null && b.kind == Kind.BOOL) {
                    v.put(b.name, "false");
                    given.add(b.name);
                    continue;
                }
            }
            if (d == null) {
                throw new FlagError(unknown(name));
            }
            if (value == null) {
                if (d.kind == Kind.BOOL) {
                    value = "true";
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new FlagError("flag '" + name + "' is missing its argument; flag description: " + d.help);
                }
            }
            v.put(d.name, normalize(d, value));
            given.add(d.name);
        }
        return new Flags(v, given);
    }

    private static String unknown(String name) {
        return "unknown command line flag '" + name + "' (./ferry dbbench --help lists the flags this tool implements;"
                + " other db_bench flags are refused, never ignored)";
    }

    /** Checks a value against the flag's type; returns it in canonical form. */
    private static String normalize(Def d, String value) {
        String bad = "illegal value '" + value + "' specified for " + d.kind.name().toLowerCase(Locale.ROOT) + " flag '" + d.name + "'";
        switch (d.kind) {
            case BOOL -> {
                String s = value.toLowerCase(Locale.ROOT);
                if (s.equals("true") || s.equals("t") || s.equals("yes") || s.equals("y") || s.equals("1")) {
                    return "true";
                }
                if (s.equals("false") || s.equals("f") || s.equals("no") || s.equals("n") || s.equals("0")) {
                    return "false";
                }
                throw new FlagError(bad);
            }
            case INT32, INT64, UINT64 -> {
                long n;
                try {
                    n = parseInteger(value, d.kind == Kind.UINT64);
                } catch (NumberFormatException e) {
                    throw new FlagError(bad);
                }
                if (d.kind == Kind.INT32 && (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE)) {
                    throw new FlagError(bad);
                }
                return d.kind == Kind.UINT64 ? Long.toUnsignedString(n) : Long.toString(n);
            }
            case DOUBLE -> {
                try {
                    return Double.toString(Double.parseDouble(value.trim()));
                } catch (NumberFormatException e) {
                    throw new FlagError(bad);
                }
            }
            default -> {
                return value;
            }
        }
    }

    /** Integers as gflags reads them (strtol base 0: decimal, 0x hex, leading 0 octal). */
    private static long parseInteger(String s, boolean unsigned) {
        String t = s.trim();
        if (t.isEmpty()) {
            throw new NumberFormatException("empty");
        }
        boolean neg = t.startsWith("-");
        if (neg || t.startsWith("+")) {
            t = t.substring(1);
        }
        if (neg && unsigned) {
            throw new NumberFormatException("negative");
        }
        int radix = 10;
        if (t.startsWith("0x") || t.startsWith("0X")) {
            radix = 16;
            t = t.substring(2);
        } else if (t.length() > 1 && t.startsWith("0")) {
            radix = 8;
            t = t.substring(1);
        }
        if (t.isEmpty() || t.startsWith("-") || t.startsWith("+")) {
            throw new NumberFormatException(s);
        }
        long n = unsigned ? Long.parseUnsignedLong(t, radix) : Long.parseLong((neg ? "-" : "") + t, radix);
        return n;
    }

    /** @return the names of the flags given on the command line, in order */
    public List<String> given() {
        return Collections.unmodifiableList(given);
    }

    /**
     * Tells whether a flag was given on the command line.
     *
     * @param name the flag
     * @return true when given
     */
    public boolean isGiven(String name) {
        return given.contains(name);
    }

    private String raw(String name, Kind... kinds) {
        Def d = DEFS.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no flag " + name);
        }
        for (Kind k : kinds) {
            if (d.kind == k) {
                return values.get(name);
            }
        }
        throw new IllegalArgumentException("flag " + name + " is " + d.kind);
    }

    /**
     * Returns a string flag.
     *
     * @param name the flag
     * @return its value
     */
    public String str(String name) {
        return raw(name, Kind.STRING);
    }

    /**
     * Returns a boolean flag.
     *
     * @param name the flag
     * @return its value
     */
    public boolean bool(String name) {
        return Boolean.parseBoolean(raw(name, Kind.BOOL));
    }

    /**
     * Returns an int32 flag.
     *
     * @param name the flag
     * @return its value
     */
    public int int32(String name) {
        return Integer.parseInt(raw(name, Kind.INT32));
    }

    /**
     * Returns an int64 or uint64 flag (a uint64 above {@code Long.MAX_VALUE} comes back negative:
     * read it as unsigned).
     *
     * @param name the flag
     * @return its value
     */
    public long int64(String name) {
        Def d = DEFS.get(name);
        String r = raw(name, Kind.INT64, Kind.UINT64, Kind.INT32);
        return d.kind == Kind.UINT64 ? Long.parseUnsignedLong(r) : Long.parseLong(r);
    }

    /**
     * Returns a double flag.
     *
     * @param name the flag
     * @return its value
     */
    public double dbl(String name) {
        return Double.parseDouble(raw(name, Kind.DOUBLE));
    }

    /**
     * Returns any flag's value as text.
     *
     * @param name the flag
     * @return its value
     */
    public String text(String name) {
        String r = values.get(name);
        if (r == null) {
            throw new IllegalArgumentException("no flag " + name);
        }
        return r;
    }

    /** @return {@code --help}: every flag with its type, default and description */
    public static String help() {
        StringBuilder b = new StringBuilder();
        b.append("db_bench for Java over Ferry or RocksJava: ./ferry dbbench --flag=value ...\n");
        b.append("Flags (gflags syntax: --name=value, booleans also --name, --noname, --name=true|false; defaults are db_bench's):\n\n");
        for (Def d : DEFS.values()) {
            b.append("  --").append(d.name).append(" (").append(d.help.isEmpty() ? "(no description)" : d.help).append(")\n");
            b.append("      type: ").append(d.kind.name().toLowerCase(Locale.ROOT)).append("  default: ")
                    .append(d.kind == Kind.STRING ? "\"" + d.defaultValue + "\"" : d.defaultValue).append('\n');
        }
        return b.toString();
    }
}
