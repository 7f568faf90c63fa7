package dev.ferry.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** gflags syntax, errors and db_bench's defaults. */
class FlagsTest {
    /** db_bench 11.8.1's defaults (tools/db_bench_tool.cc; Options() values where it takes them from Options()). */
    static final Map<String, String> DB_BENCH_DEFAULTS = Map.ofEntries(
            Map.entry("num", "1000000"), Map.entry("reads", "-1"), Map.entry("writes", "-1"), Map.entry("threads", "1"),
            Map.entry("duration", "0"), Map.entry("value_size", "100"), Map.entry("key_size", "16"),
            Map.entry("batch_size", "1"), Map.entry("seek_nexts", "0"), Map.entry("seed", "0"),
            Map.entry("compression_ratio", "0.5"), Map.entry("compression_type", "snappy"), Map.entry("db", ""),
            Map.entry("use_existing_db", "false"), Map.entry("sync", "false"), Map.entry("disable_wal", "false"),
            Map.entry("histogram", "false"), Map.entry("statistics", "false"), Map.entry("verify_checksum", "true"),
            Map.entry("use_direct_reads", "false"), Map.entry("benchmark_write_rate_limit", "0"),
            Map.entry("block_size", "4096"), Map.entry("cache_size", "33554432"), Map.entry("cache_numshardbits", "-1"),
            Map.entry("cache_type", "hyper_clock_cache"), Map.entry("bloom_bits", "-1"),
            Map.entry("write_buffer_size", "67108864"), Map.entry("max_write_buffer_number", "2"),
            Map.entry("target_file_size_base", "67108864"), Map.entry("max_bytes_for_level_base", "268435456"),
            Map.entry("num_levels", "7"), Map.entry("max_background_compactions", "-1"),
            Map.entry("level0_file_num_compaction_trigger", "4"), Map.entry("level0_slowdown_writes_trigger", "20"),
            Map.entry("level0_stop_writes_trigger", "36"), Map.entry("open_files", "-1"),
            Map.entry("progress_reports", "true"));

    @Test
    void defaultsAreDbBenchDefaults() {
        Flags f = Flags.defaults();
        for (Map.Entry<String, String> e : DB_BENCH_DEFAULTS.entrySet()) {
            String v = f.text(e.getKey());
            if (Flags.definition(e.getKey()).kind() == Flags.Kind.DOUBLE) {
                assertEquals(Double.parseDouble(e.getValue()), Double.parseDouble(v), e.getKey());
            } else {
                assertEquals(e.getValue(), v, e.getKey());
            }
        }
    }

    @Test
    void everyFlagTheIssueNamesIsImplemented() {
        for (String n : List.of("num", "reads", "threads", "duration", "value_size", "key_size", "block_size", "cache_size",
                "cache_numshardbits", "bloom_bits", "compression_type", "compression_ratio", "db", "use_existing_db", "sync",
                "disable_wal", "write_buffer_size", "target_file_size_base", "max_write_buffer_number",
                "max_background_compactions", "level0_file_num_compaction_trigger", "level0_slowdown_writes_trigger",
                "level0_stop_writes_trigger", "num_levels", "max_bytes_for_level_base", "open_files", "verify_checksum",
                "use_direct_reads", "histogram", "statistics", "seed", "batch_size", "seek_nexts",
                "benchmark_write_rate_limit", "writes_per_second", "api", "benchmarks")) {
            assertTrue(Flags.definition(n) != null, n);
        }
    }

    @Test
    void booleanForms() {
        assertTrue(Flags.parse(List.of("--histogram")).bool("histogram"));
        assertTrue(Flags.parse(List.of("-histogram")).bool("histogram"));
        assertTrue(Flags.parse(List.of("--histogram=true")).bool("histogram"));
        assertTrue(Flags.parse(List.of("--histogram=1")).bool("histogram"));
        assertTrue(Flags.parse(List.of("--histogram=yes")).bool("histogram"));
        assertFalse(Flags.parse(List.of("--histogram", "--nohistogram")).bool("histogram"));
        assertFalse(Flags.parse(List.of("--verify_checksum=false")).bool("verify_checksum"));
        assertFalse(Flags.parse(List.of("--noverify_checksum")).bool("verify_checksum"));
        assertFalse(Flags.parse(List.of("--verify_checksum=0")).bool("verify_checksum"));
        assertFalse(Flags.parse(List.of("-noprogress_reports")).bool("progress_reports"));
    }

    @Test
    void valueForms() {
        Flags f = Flags.parse(List.of("--num=1000", "-reads=5", "--threads", "4", "--db=/x/y", "--cache_size=0x100",
                "--compression_ratio=0.25", "--benchmarks=fillseq,readrandom", "--seed=-3"));
        assertEquals(1000, f.int64("num"));
        assertEquals(5, f.int64("reads"));
        assertEquals(4, f.int32("threads"));
        assertEquals("/x/y", f.str("db"));
        assertEquals(256, f.int64("cache_size"));
        assertEquals(0.25, f.dbl("compression_ratio"));
        assertEquals("fillseq,readrandom", f.str("benchmarks"));
        assertEquals(-3, f.int64("seed"));
        assertEquals(List.of("num", "reads", "threads", "db", "cache_size", "compression_ratio", "benchmarks", "seed"), f.given());
        assertEquals(7, Flags.parse(List.of("--num=1", "--num=7")).int64("num"), "the last of repeated flags wins");
    }

    @Test
    void unknownFlagIsAnError() {
        Flags.FlagError e = assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--num=10", "--nmu=5")));
        assertTrue(e.getMessage().contains("unknown command line flag 'nmu'"), e.getMessage());
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--mmap_read=1")), "a db_bench flag not implemented here");
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--nonum")), "--no only for booleans");
    }

    @Test
    void badValuesAreErrors() {
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--num=ten")));
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--threads=3000000000")), "int32 overflow");
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--histogram=maybe")));
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--compression_ratio=x")));
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--benchmark_write_rate_limit=-1")), "uint64");
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("--num")), "missing value");
        assertThrows(Flags.FlagError.class, () -> Flags.parse(List.of("readrandom")), "positional argument");
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        String h = Flags.help();
        for (Flags.Def d : Flags.definitions()) {
            assertTrue(h.contains("--" + d.name() + " ("), d.name());
        }
        assertTrue(h.contains("default: 1000000"));
    }
}
