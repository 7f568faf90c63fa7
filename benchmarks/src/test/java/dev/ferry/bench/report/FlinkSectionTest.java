package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's Flink section: FlinkInterleaved's and FlinkJobThroughput's CSVs, one row per workload, targets judged. */
class FlinkSectionTest {
    private static final String HEADER = "backend,workload,best,median,unit,speedup,speedup_error";

    @Test
    void oneRowPerWorkloadAndTheTargetsJudgedOnTheSpeedUp(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("flink.csv"), List.of(HEADER,
                "rocksdb,mapEntries,800.000,820.000,ns/op,1.0000,0.0000",
                "ferry-jni,mapEntries,400.000,410.000,ns/op,2.0000,0.1000",
                "rocksdb,valueGet,300.000,310.000,ns/op,1.0000,0.0000",
                "ferry-jni,valueGet,330.000,331.000,ns/op,0.9000,0.0100",
                "rocksdb,restore,120.000,125.000,ms,1.0000,0.0000",
                "ferry-jni,restore,118.000,121.000,ms,1.0200,0.0500"));
        Files.write(dir.resolve("flink-job.csv"), List.of(HEADER,
                "rocksdb,job,250000.0,240000.0,events/s,1.0000,0.0000",
                "ferry-jni,job,300000.0,290000.0,events/s,1.2000,0.0300"));
        String md = FlinkSection.markdown(dir);
        assertTrue(md.startsWith("## Flink keyed state backend"), md);
        assertTrue(md.contains("| mapEntries | ns/op | 800 | 400 | **2.00 ± 0.10** |"), md);
        assertTrue(md.contains("| job | events/s | 250000 | 300000 | **1.20 ± 0.03** |"), md);
        assertTrue(md.contains("| map iteration >= 1.3x | ferry-jni | mapEntries | 2.00 ± 0.10 | MET |"), md);
        assertTrue(md.contains("| point operation >= 0.95x | ferry-jni | valueGet | 0.90 ± 0.01 | MISSED |"), md);
        assertTrue(md.contains("| restore no slower (>= 1.0x) | ferry-jni | restore | 1.02 ± 0.05 | UNDECIDED"), md);
    }

    @Test
    void noFileGivesNoSection(@TempDir Path dir) throws IOException {
        assertEquals("", FlinkSection.markdown(dir));
        Files.write(dir.resolve("flink.csv"), List.of(HEADER));
        assertEquals("", FlinkSection.markdown(dir));
    }
}
