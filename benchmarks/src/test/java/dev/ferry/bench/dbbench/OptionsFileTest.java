package dev.ferry.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flags reach the engine the same way through Ferry's options string and RocksJava's setters:
 * RocksDB's own OPTIONS file in the database directory is the same for both (and, in
 * {@link CrossToolTest}, the same as C++ db_bench's).
 */
class OptionsFileTest {
    /** Flag sets whose OPTIONS files are compared. */
    static final List<String> FLAG_SETS = List.of(
            "",
            "--bloom_bits=10 --block_size=8192 --cache_size=1048576 --cache_numshardbits=4 --compression_type=lz4"
                    + " --write_buffer_size=4194304 --target_file_size_base=2097152 --max_write_buffer_number=3"
                    + " --max_background_compactions=2 --level0_file_num_compaction_trigger=2 --level0_slowdown_writes_trigger=8"
                    + " --level0_stop_writes_trigger=12 --num_levels=5 --max_bytes_for_level_base=10485760 --open_files=500"
                    + " --use_direct_reads --disable_wal --cache_type=lru_cache --cache_index_and_filter_blocks",
            "--bloom_bits=0 --cache_size=0 --statistics --compression_type=none --index_shortening_mode=1"
                    + " --level_compaction_dynamic_level_bytes --uniform_cv_threshold=0.3 --max_bytes_for_level_multiplier=8"
                    + " --disable_auto_compactions");

    @TempDir
    Path tmp;

    /**
     * The latest OPTIONS file of a database, without comments, version lines and db_bench's listener, and
     * with Ferry's merge-refusing operator read as none.
     *
     * @param db the database
     * @return its lines
     * @throws IOException on read errors
     */
    static List<String> options(Path db) throws IOException {
        Path latest;
        try (Stream<Path> s = Files.list(db)) {
            latest = s.filter(p -> p.getFileName().toString().startsWith("OPTIONS-")).sorted().reduce((a, b) -> b).orElseThrow();
        }
        List<String> r = new ArrayList<>();
        for (String l : Files.readAllLines(latest)) {
            String t = l.strip();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith("rocksdb_version") || t.startsWith("options_file_version")
                    || t.startsWith("listeners=")) {
                continue;
            }
            // Ferry gives every RocksDB store without a merge operator one of its own that refuses
            // merges (operands from elsewhere then fail reads instead of crashing RocksDB); no
            // workload here merges, so it is never called: the configuration compared is the same
            r.add(t.equals("merge_operator=ferry.NoMergeOperator") ? "merge_operator=nullptr" : t);
        }
        return r;
    }

    static List<String> args(String flags, Path db, String api) {
        List<String> a = new ArrayList<>(List.of("--benchmarks=fillseq", "--num=100", "--seed=7", "--progress_reports=false",
                "--db=" + db, "--api=" + api));
        if (!flags.isEmpty()) {
            a.addAll(List.of(flags.split(" ")));
        }
        return a;
    }

    @Test
    void ferryAndRocksJavaWriteTheSameOptionsFile() throws IOException {
        int i = 0;
        for (String flags : FLAG_SETS) {
            Path a = tmp.resolve("ferry" + i);
            Path b = tmp.resolve("rocksjava" + i++);
            FormatVectorsTest.run(args(flags, a, "ferry-jni"));
            FormatVectorsTest.run(args(flags, b, "rocksjava"));
            assertEquals(options(b), options(a), flags);
            assertTrue(options(a).contains("write_buffer_size=" + Flags.parse(args(flags, a, "ferry-jni")).int64("write_buffer_size")));
        }
    }

    @Test
    void blockCacheHasTheSizeAndTypeAsked() {
        String ferry = FormatVectorsTest.run(List.of("--benchmarks=fillseq", "--num=10", "--seed=1", "--progress_reports=false",
                "--db=" + tmp.resolve("f"), "--cache_size=3145728", "--api=ferry-ffm"));
        assertTrue(ferry.contains("; engine reports LRUCache, capacity 3.00 MB\n"), ferry);
        String rj = FormatVectorsTest.run(List.of("--benchmarks=fillseq", "--num=10", "--seed=1", "--progress_reports=false",
                "--db=" + tmp.resolve("r"), "--cache_size=3145728", "--api=rocksjava"));
        assertTrue(rj.contains("; engine reports AutoHyperClockCache, capacity 3.00 MB\n"), rj);
        String none = FormatVectorsTest.run(List.of("--benchmarks=fillseq", "--num=10", "--seed=1", "--progress_reports=false",
                "--db=" + tmp.resolve("n"), "--cache_size=0", "--api=ferry-jni"));
        assertTrue(none.contains("Block cache: none (--cache_size=0); engine reports none\n"), none);
    }
}
