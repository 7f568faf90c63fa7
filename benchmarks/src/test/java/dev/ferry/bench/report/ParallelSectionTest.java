package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's parallel-scan section: parsed from InterleavedParallel's lines, one row per JVM, the targets judged. */
class ParallelSectionTest {
    private static final List<String> LINES = List.of(
            "parallel engine=lmdb jvm_binding=jni split_n=8 splits=8 split_best_us=340.0 split_entries_min=24999 split_entries_max=25001"
                    + " min_to_mean=1.000 max_to_mean=1.000 counts=[24999, 25001, 25000, 25000, 25000, 25000, 25000, 25000]",
            "parallel engine=lmdb jvm_binding=jni value_size=100 threads=2 variant=floor best_ns_per_entry=28.00 ratio_to_floor=1.000"
                    + " ratio_to_floor_2t=1.750 speedup_vs_floor=1.00 round_ratios=1.000,1.000,1.000",
            "parallel engine=lmdb jvm_binding=jni value_size=100 threads=2 variant=floor-2t best_ns_per_entry=16.00 ratio_to_floor=0.571"
                    + " ratio_to_floor_2t=1.000 speedup_vs_floor=1.75 round_ratios=0.600,0.580,0.570",
            "parallel engine=lmdb jvm_binding=jni value_size=100 threads=2 variant=ferry-1t best_ns_per_entry=26.00 ratio_to_floor=0.929"
                    + " ratio_to_floor_2t=1.625 speedup_vs_floor=1.08 round_ratios=0.950,0.930,0.929",
            "parallel engine=lmdb jvm_binding=jni value_size=100 threads=2 variant=ferry-2t best_ns_per_entry=15.20 ratio_to_floor=0.543"
                    + " ratio_to_floor_2t=0.950 speedup_vs_floor=1.84 round_ratios=0.700,0.551,0.547",
            "some other line",
            "parallel engine=rocksdb jvm_binding=ffm split_n=8 splits=8 split_best_us=900.0 split_entries_min=20000 split_entries_max=31000"
                    + " min_to_mean=0.800 max_to_mean=1.240 counts=[...]");

    @Test
    void oneRowPerJvmWithTheRatioToTheTwoThreadFloorAndItsSpread() {
        String md = ParallelSection.markdown(LINES);
        assertTrue(md.startsWith("## Parallel scans, interleaved"), md);
        // rounds 2 and 3: 0.551/0.580 = 0.950, 0.547/0.570 = 0.960 -> half range 0.005
        assertTrue(md.contains("| lmdb | jni | 2 | 28.0 | 16.0 (1.75x) | 26.0 | 15.2 (1.84x) | 0.950 ± 0.005 | 1.000, 1.000 (8) |"), md);
        assertTrue(md.contains("lmdb jni, 2 threads: parallel scan <= 1.05x the 2-thread floor | 0.950 ± 0.005x | MET |"), md);
        assertTrue(md.contains("lmdb jni, 2 threads: parallel scan >= 1.8x the one-thread floor's rate | 1.84 ± 0.01x | MET |"), md);
        assertTrue(md.contains("lmdb jni: sub-ranges within 20% of their mean entry count | 0.00% | MET (exact counts) |"), md);
        // the rocksdb JVM printed its split only: no row
        assertTrue(!md.contains("| rocksdb |"), md);
    }

    @Test
    void spreadLeavesOutTheFirstRoundOfThreeOrMore() {
        assertEquals(0.05, ParallelSection.spread(List.of(9.0, 1.0, 1.1), List.of(1.0, 1.0, 1.0)), 1e-9);
        assertEquals(4.0, ParallelSection.spread(List.of(9.0, 1.0), List.of(1.0, 1.0)), 1e-9);
        assertTrue(Double.isNaN(ParallelSection.spread(List.of(1.0), List.of(1.0))));
    }

    @Test
    void noFileOrNoVariantGivesNoSection(@TempDir Path dir) throws IOException {
        assertEquals("", ParallelSection.markdown(dir));
        Files.writeString(dir.resolve("parallel.txt"), LINES.get(0) + "\n");
        assertEquals("", ParallelSection.markdown(dir));
    }
}
