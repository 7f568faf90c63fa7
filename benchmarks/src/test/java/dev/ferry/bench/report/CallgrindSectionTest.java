package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's instruction-count section: parsed from benchmarks/callgrind's table, the scan rows explained. */
class CallgrindSectionTest {
    private static final List<String> LINES = List.of(
            "# callgrind: 100000 entries x 100 B, ops 20000 and 40000, 2026-11-29T03:33:35Z, git 8912799, valgrind-3.19.0",
            "engine   op                shim       engine  shim/eng",
            "rocksdb  get_latest        11455        11308     1.013",
            "rocksdb  scan               1673         1572     1.064",
            "rocksdb  rscan              2100         2153     0.975",
            "lmdb     scan                130          144     0.904",
            "some other line");

    @Test
    void everyCountIsARowWithItsRatio() {
        String md = CallgrindSection.markdown(LINES);
        assertTrue(md.startsWith("## Instructions per operation (callgrind)"), md);
        assertTrue(md.contains("| rocksdb | get_latest | 11,455 | 11,308 | 1.013 |"), md);
        assertTrue(md.contains("| lmdb | scan | 130 | 144 | 0.903 |"), md);
        assertTrue(md.contains("Run: callgrind: 100000 entries x 100 B"), md);
        assertEquals(4, CallgrindSection.parse(LINES).size());
    }

    @Test
    void aRocksDbScanAboveTheEngineLoopIsExplainedByItsExtraInstructions() {
        String md = CallgrindSection.markdown(LINES);
        assertTrue(md.contains("RocksDB scan-forward: Ferry's page fill runs 101 instructions per entry more than RocksDB's own "
                + "iterator loop (1.064x)"), md);
        assertTrue(md.contains("RocksDB scan-reverse: Ferry's page fill runs no more instructions per entry than RocksDB's own loop "
                + "(0.975x)"), md);
    }

    @Test
    void noFileOrNoCountsGiveNoSection(@TempDir Path dir) throws IOException {
        assertEquals("", CallgrindSection.markdown(dir));
        Files.write(dir.resolve("callgrind.txt"), List.of("# callgrind: nothing ran"));
        assertEquals("", CallgrindSection.markdown(dir));
    }
}
