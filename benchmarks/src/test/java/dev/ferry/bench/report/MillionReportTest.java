package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MillionReportTest {
    private static final String HEADER = "system\tround\tposition\tstatus\tload_s\tget_us\tbest_us\tstorage_bytes\tseconds\n";

    private static Path results(Path dir, String lines, int rounds) throws Exception {
        Files.writeString(dir.resolve("results.tsv"), HEADER + lines);
        Files.writeString(dir.resolve("plan.txt"), "mode: full\nentries: 1000000\ngets: 100000\nrepeats: 3\nbatch: 1000\nrounds: " + rounds + "\n");
        Files.writeString(dir.resolve("machine.txt"), "cpu: test\n");
        return dir;
    }

    @Test
    void rowsTakeTheMedianOfTheRoundsBestsAndKeepFailuresAndRowsNotRun(@TempDir Path dir) throws Exception {
        results(dir, """
                treemap\t1\t1\tok\t1.0\t0.9,0.5,0.6\t0.5\t-1\t3
                treemap\t2\t2\tok\t1.0\t0.8,0.7,0.9\t0.7\t-1\t3
                treemap\t3\t1\tok\t1.0\t0.3,0.4,0.9\t0.3\t-1\t3
                mariadb\t1\t2\tfailed: MariaDB server not installed\t\t\t\t\t0
                lmdbjava\t1\t3\tok\t2.0\t3,2,2.5\t2\t4096\t5
                """, 3);
        List<MillionReport.Row> rows = MillionReport.rows(MillionReport.read(dir.resolve("results.tsv")));
        MillionReport.Row tm = rows.stream().filter(r -> r.system().name().equals("treemap")).findFirst().orElseThrow();
        assertEquals(0.5, tm.medianMicros(), 1e-9);
        assertEquals(0.3, tm.minMicros(), 1e-9);
        assertEquals(0.7, tm.maxMicros(), 1e-9);
        MillionReport.Row maria = rows.stream().filter(r -> r.system().name().equals("mariadb")).findFirst().orElseThrow();
        assertTrue(Double.isNaN(maria.medianMicros()));
        assertTrue(maria.status().startsWith("failed: MariaDB server not installed"), maria.status());
        for (String notRun : List.of("bergdb", "mongodb", "riak")) {
            assertTrue(rows.stream().anyMatch(r -> r.system().name().equals(notRun) && r.status().startsWith("not run")), notRun);
        }
        assertTrue(rows.stream().noneMatch(r -> r.system().name().equals("je")), "systems this run left out get no row");
        assertEquals(List.of("treemap", "lmdbjava"), MillionReport.ordering(rows).stream().map(r -> r.system().name()).toList());
    }

    @Test
    void writeMakesSummaryReportAndChart(@TempDir Path dir) throws Exception {
        results(dir, """
                treemap\t1\t1\tok\t1.0\t0.9,0.5,0.6\t0.5\t-1\t3
                mariadb\t1\t2\tok\t30.0\t80,60,70\t60\t50000000\t60
                ferry-lmdb-ffm\t1\t3\tok\t2.0\t3,2,2.5\t2\t4096\t5
                """, 1);
        MillionReport.write(dir);
        List<String> csv = Files.readAllLines(dir.resolve("summary.csv"));
        assertTrue(csv.get(0).startsWith("system,label,kind,runs,ok_runs,us_per_get_median"));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("mariadb,") && l.contains(",60.0000,")), String.join("\n", csv));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("riak,") && l.contains("a little more than 1 ms")));
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("| Riak | not run | not run |"), md);
        assertTrue(md.contains("TreeMap (synchronized) 0.50 < Ferry-LMDB FFM 2.00 < MariaDB"), md);
        assertTrue(md.contains("every in-process system was faster than the server, as published"), md);
        assertTrue(md.contains("0.90, 0.50, 0.60"), "one round: the three repeats are shown");
        assertTrue(Files.size(dir.resolve("chart-million.png")) > 1000);
    }

    @Test
    void aSlowerInProcessSystemThanTheServerIsCalledOut(@TempDir Path dir) throws Exception {
        results(dir, """
                je-tx\t1\t1\tok\t1.0\t90,95,99\t90\t10\t3
                mariadb\t1\t2\tok\t30.0\t80,60,70\t60\t50000000\t60
                """, 1);
        MillionReport.write(dir);
        assertTrue(Files.readString(dir.resolve("report.md")).contains("an in-process system was slower than the server, unlike the post"));
    }
}
