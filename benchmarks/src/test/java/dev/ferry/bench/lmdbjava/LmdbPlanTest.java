package dev.ferry.bench.lmdbjava;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.bench.store.Stores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plan runs what the suite published (every store in test 4, Chronicle Map unordered), and the report shows failures. */
class LmdbPlanTest {
    @Test
    void quickRunsEveryStoreInTest4WithBothKeyTypesAndOrders() {
        List<LmdbPlan.Case> cases = LmdbPlan.cases(LmdbPlan.Mode.QUICK, List.of("4", "5", "2", "1"), Stores.SUITE, 0);
        for (String g : List.of("4-intKey-seq", "4-intKey-rnd", "4-strKey-seq", "4-strKey-rnd")) {
            Set<String> stores = new HashSet<>();
            cases.stream().filter(c -> c.group().equals(g)).forEach(c -> stores.add(c.store()));
            assertEquals(new HashSet<>(Stores.SUITE), stores, g);
        }
        for (LmdbPlan.Case c : cases) {
            if (c.store().equals("chronicle")) {
                assertEquals(Workloads.UNORDERED, c.workloads(), "Chronicle Map runs write and readKey only");
            }
            assertEquals("write", c.workloads().get(0));
            if (c.test().equals("5")) {
                assertEquals(2026, c.valSize());
                assertTrue(c.intKey());
            }
        }
        assertTrue(cases.stream().anyMatch(c -> c.test().equals("2") && c.valSize() == 2027));
        assertTrue(cases.stream().anyMatch(c -> c.test().equals("1") && c.lmdb().sync() && !c.lmdb().writeMap()));
    }

    @Test
    void specsCarryTheSuitesSettings() {
        SuiteData d = new SuiteData(1000, true, true, 100, false, 1);
        String lmdb = LmdbPlan.spec("lmdbjava", d, true, LmdbPlan.Lmdb.PUBLISHED);
        assertTrue(lmdb.startsWith("lmdbjava:nosync,writemap,append,map="), lmdb);
        assertFalse(LmdbPlan.spec("lmdbjava", d, false, LmdbPlan.Lmdb.PUBLISHED).contains("append"));
        assertEquals("rocksjava:nocompression", LmdbPlan.spec("rocksjava", d, true, LmdbPlan.Lmdb.PUBLISHED));
        assertEquals("chronicle:entries=1000,key=4,value=100", LmdbPlan.spec("chronicle", d, true, LmdbPlan.Lmdb.PUBLISHED));
        assertThrows(IllegalArgumentException.class, () -> LmdbPlan.cases(LmdbPlan.Mode.QUICK, List.of("3"), Stores.SUITE, 0));
    }

    @Test
    void stringKeysAreSixteenZeroPaddedDigitsAndRandomKeysDistinct() {
        SuiteData s = new SuiteData(10, false, true, 8, false, 1);
        assertEquals("0000000000000007", new String(s.key(7), StandardCharsets.US_ASCII));
        SuiteData r = new SuiteData(20_000, true, false, 8, false, 1);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < r.size(); i++) {
            byte[] k = r.key(i);
            int v = (k[0] & 0xFF) << 24 | (k[1] & 0xFF) << 16 | (k[2] & 0xFF) << 8 | (k[3] & 0xFF);
            assertTrue(v >= 0);
            assertTrue(seen.add(v), "distinct");
        }
    }

    @Test
    void reportListsFailedStoresAndDrawsCharts(@TempDir Path dir) throws Exception {
        String ok = String.join("\t", "4", "4-intKey-seq", "lmdbjava", "1000", "100", "4", "write", "ok", "1.5", "1.6", "1.5,1.7", "1000", "171000", "2.0");
        String ok2 = String.join("\t", "4", "4-intKey-seq", "lmdbjava", "1000", "100", "4", "readSeq", "ok", "0.5", "0.6", "0.5,0.7", "99", "171000", "2.0");
        String bad = String.join("\t", "4", "4-intKey-seq", "mvstore", "1000", "100", "4", "write", "failed: java.lang.OutOfMemoryError: x (raw/1.txt)", "", "",
                "", "", "", "2.0");
        String rocks = String.join("\t", "4", "4-intKey-seq", "rocksjava", "1000", "100", "4", "write", "ok", "40", "41", "40", "1000", "107000", "2.0");
        Files.writeString(dir.resolve("results.tsv"), String.join("\n", LmdbRun.HEADER, ok, ok2, bad, rocks) + "\n");
        LmdbReport.write(dir);
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("## Stores that failed here"), md);
        assertTrue(md.contains("mvstore (write): failed: java.lang.OutOfMemoryError"), md);
        assertTrue(md.contains("| mvstore | failed |"), md);
        assertTrue(md.contains("write: lmdbjava < rocksjava | lwjgl-lmdb < lmdbjava"), md); // ours | published (1M, 2016)
        assertTrue(Files.size(dir.resolve("4-intKey-seq.png")) > 0);
    }
}
