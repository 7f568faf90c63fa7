package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark report: target verdicts, the interleaved lines, the glossary, and a whole report from canned results. */
class ReportTest {
    @TempDir
    Path dir;

    @Test
    void verdictMetOnlyWhenTheUnfavourableEndOfTheErrorMeetsTheTarget() {
        assertEquals("MET", Report.verdict(0.90, 0.05, 1.05, true));
        assertEquals("MISSED", Report.verdict(1.20, 0.05, 1.05, true));
        assertTrue(Report.verdict(1.02, 0.05, 1.05, true).startsWith("UNDECIDED"));
        assertTrue(Report.verdict(1.08, 0.05, 1.05, true).startsWith("UNDECIDED"));
        assertEquals("MET", Report.verdict(2.5, 0.2, 2.0, false));
        assertEquals("MISSED", Report.verdict(1.5, 0.2, 2.0, false));
        assertTrue(Report.verdict(2.1, 0.2, 2.0, false).startsWith("UNDECIDED"));
    }

    @Test
    void figureWithErrorAsLargeAsItselfIsNeverMet() {
        // all of these would be MET on the figure alone
        assertTrue(Report.verdict(0.002, 0.004, 0.1, true).startsWith("NOT JUDGED"));
        assertTrue(Report.verdict(4.6, 4.6, 6, true).startsWith("NOT JUDGED"));
        assertTrue(Report.verdict(2.71, 3.0, 2.0, false).startsWith("NOT JUDGED"));
        assertTrue(Report.verdict(1.0, -1.5, 1.05, true).startsWith("NOT JUDGED"));
    }

    @Test
    void verdictWithoutErrorSaysSo() {
        assertEquals("MET (no error estimate)", Report.verdict(0.9, Double.NaN, 1.05, true));
        assertEquals("MISSED (no error estimate)", Report.verdict(1.2, Double.NaN, 1.05, true));
        assertEquals("NO DATA", Report.verdict(Double.NaN, 0.1, 1.05, true));
    }

    @Test
    void interleavedLinesParseWithAndWithoutError() {
        Report.Inter a = Report.parseInter("interleaved engine=lmdb jvm_binding=ffm value_size=100 direction=reverse variant=lmdbjava "
                + "best_ns_per_entry=30.60 ratio_to_floor=1.729");
        assertEquals("scan", a.family());
        assertEquals("scan-reverse", a.workload());
        assertEquals(1.729, a.ratio(), 1e-9);
        assertTrue(Double.isNaN(a.ratioErr()));
        Report.Inter b = Report.parseInter("interleaved-gets engine=rocksdb jvm_binding=jni value_size=100 variant=ferry-jni-into "
                + "best_ns_per_get=2856.0 ratio_to_floor=1.066 ratio_err=0.031");
        assertEquals("get", b.family());
        assertEquals(0.031, b.ratioErr(), 1e-9);
        Report.Inter c = Report.parseInter("interleaved-gets engine=lmdb jvm_binding=jni value_size=100 workload=seek10 variant=floor "
                + "best_ns_per_seek=1726.0 ratio_to_floor=1.000 ratio_err=0.000");
        assertEquals("seek", c.family());
        assertEquals("seek10", c.workload());
        assertNull(Report.parseInter("==== [21:44:00] interleaved scans: ROCKSDB"));
    }

    @Test
    void everyVariantTheBenchmarksPrintIsInTheGlossary() {
        String[][] names = {
            {"scan", "floor"}, {"scan", "ferry-jni"}, {"scan", "ferry-ffm"}, {"scan", "ferryScan-jni"}, {"scan", "ferry-ffm-page4096"},
            {"scan", "ferry-jni-steps"}, {"scan", "ferry-ffm-pointers"}, {"scan", "ferry-jni-novalue"}, {"scan", "ferry-ffm-rw"}, {"scan", "rocksjava-interop-jni"}, {"scan", "rocksjavaBytes"}, {"scan", "rocksjavaReuse"},
            {"scan", "rocksjavaDirect"}, {"scan", "rocksjavaBytes@interop-ffm"}, {"scan", "lmdbjava"},
            {"get", "floor"}, {"get", "floor-fresh"}, {"get", "floor-copy"}, {"get", "floor-fresh-copy"}, {"get", "ferry-jni"}, {"get", "ferryInto-ffm"}, {"get", "ferry-jni-into"},
            {"get", "ferry-ffm-snapshot"}, {"get", "ferry-jni-multiget"}, {"get", "rocksjava"}, {"get", "lmdbjava"},
            {"seek", "floor"}, {"seek", "ferry-jni"}, {"seek", "rocksjava"}, {"seek", "lmdbjava"},
            {"put", "floor"}, {"put", "ferry-jni"}, {"put", "rocksjava"}, {"put", "lmdbjava"},
            {"batch", "floor"}, {"batch", "ferry-ffm"}, {"batch", "rocksjava"}, {"batch", "lmdbjava"},
            {"call", "jni"}, {"call", "ffm"}, {"call", "ffm-critical"}, {"call", "ferry-jni"},
            {"ingest", "batch-jni"}, {"ingest", "batchNoWal-ffm"}, {"ingest", "sst-jni"},
            {"kafka", "ferry-jni"}, {"kafka", "ferry-ffm"}, {"kafka", "kafka-builtin"},
        };
        for (String[] n : names) {
            assertNotNull(Report.explain(n[0], n[1]), n[0] + " " + n[1]);
        }
    }

    @Test
    void ferryComesFirstThenPeersThenTheFloor() {
        List<String> v = new ArrayList<>(List.of("floor", "rocksjavaBytes", "lmdbjava", "ferry-jni", "rocksjava-interop-jni", "ffm-critical", "jni"));
        v.sort(Report.VARIANT_ORDER);
        assertEquals(List.of("ferry-jni", "rocksjava-interop-jni", "jni", "ffm-critical", "rocksjavaBytes", "lmdbjava", "floor"), v);
    }

    @Test
    void reportFromCannedResultsOpensWithTheSummaryAndEndsWithTheTargets() throws IOException {
        Files.writeString(dir.resolve("machine.txt"), String.join("\n",
                "date: 2026-11-22T21:43:19Z", "command: benchmarks/run --quick",
                "mode: quick entries=200000 value_sizes=100 forks=1 iterations=-wi 3 extra=", "cpu: Some CPU", "cores: 2",
                "memory: 24684096 kB", "kernel: Linux 6.1 x86_64", "jdk: /opt/jdk", "  openjdk version \"25.0.3\" 2026-04-21 LTS",
                "rocksdbjni: 11.8.1", "lmdbjava: 0.9.3", "lmdb native (org.lmdbjava:native): 0.9.33-5", "git: abc1234", ""));
        Files.writeString(dir.resolve("interleaved.txt"), String.join("\n",
                "interleaved engine=rocksdb jvm_binding=jni value_size=100 direction=forward variant=floor best_ns_per_entry=200.00 ratio_to_floor=1.000 ratio_err=0.000",
                "interleaved engine=rocksdb jvm_binding=jni value_size=100 direction=forward variant=ferry-jni best_ns_per_entry=204.00 ratio_to_floor=1.020 ratio_err=1.500",
                "interleaved engine=rocksdb jvm_binding=jni value_size=100 direction=forward variant=rocksjavaBytes best_ns_per_entry=300.00 ratio_to_floor=1.500 ratio_err=0.050",
                ""));
        Files.writeString(dir.resolve("jmh-calls.json"), "[{\"benchmark\":\"dev.ferry.bench.CallBench.ffmNoopCritical\",\"mode\":\"avgt\","
                + "\"threads\":1,\"forks\":1,\"params\":{},\"primaryMetric\":{\"score\":4.6,\"scoreError\":0.4,\"scoreUnit\":\"ns/op\","
                + "\"rawData\":[[4.5,4.7]]},\"secondaryMetrics\":{}}]");
        Report.main(new String[] {dir.toString()});
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.indexOf("Quick mode: a smoke run") < md.indexOf("## What was compared"), md);
        assertTrue(md.contains("Lower is better"));
        assertTrue(md.contains("| CPU | Some CPU |") && md.contains("| commit | abc1234 |"));
        int headline = md.indexOf("## Headline ratios");
        int glossary = md.indexOf("## Glossary");
        int targets = md.indexOf("## Targets");
        assertTrue(headline > 0 && glossary > headline && targets > glossary && md.indexOf("\n## ", targets + 1) < 0, md);
        assertTrue(md.contains("- `rocksjavaBytes` [peers]:") && md.contains("- `ffm-critical` [Ferry]:"), md);
        // 1.02 +- 1.5 would meet <= 1.05x on the figure alone: its error is larger than itself
        assertTrue(md.contains("| rocksdb 100 B scan-forward, ferry-jni <= 1.05x floor | 1.02 ± 1.50x | NOT JUDGED"), md);
        assertTrue(md.contains("| rocksdb 100 B scan-forward, ferry-jni <= 1.00x floor (issue 46) | 1.02 ± 1.50x | NOT JUDGED"), md);
        assertTrue(md.contains("RocksDB forward scans at or below the floor (issue 46)"), md);
        assertTrue(md.contains("| empty FFM critical downcall <= 6 ns | 4.6 ± 0.4 ns | MET |"), md);
        assertTrue(Files.exists(dir.resolve("chart-interleaved-scan-rocksdb.png")));
        assertTrue(Files.exists(dir.resolve("chart-jmh-call-noop.png")));
        assertFalse(md.contains("(not described"), md);
    }

    private static String jmh(String bench, String params, double score, double err, String unit) {
        return "{\"benchmark\":\"" + bench + "\",\"mode\":\"avgt\",\"threads\":1,\"forks\":1,\"params\":{" + params + "},"
                + "\"primaryMetric\":{\"score\":" + score + ",\"scoreError\":" + err + ",\"scoreUnit\":\"" + unit + "\","
                + "\"rawData\":[[1,2]]},\"secondaryMetrics\":{}}";
    }

    @Test
    void kafkaStoresAreComparedWithTheBuiltInStoreOnEachWorkload() throws IOException {
        String ferry = "\"engine\":\"ROCKSDB\",\"binding\":\"jni\",\"entries\":\"1000\",\"valueSize\":\"100\"";
        String lmdb = "\"engine\":\"LMDB\",\"binding\":\"ffm\",\"entries\":\"1000\",\"valueSize\":\"100\"";
        String builtin = "\"entries\":\"1000\",\"valueSize\":\"100\"";
        Files.writeString(dir.resolve("jmh-kafka.json"), "[" + String.join(",",
                jmh("dev.ferry.bench.kafka.KafkaBench.range100", ferry, 300, 30, "ns/op"),
                jmh("dev.ferry.bench.kafka.KafkaBench.range100", lmdb, 100, 10, "ns/op"),
                jmh("dev.ferry.bench.kafka.RocksJavaKafkaBench.range100", builtin, 600, 30, "ns/op"),
                jmh("dev.ferry.bench.kafka.KafkaBench.all", ferry, 200_000, 1000, "ns/op"), // 200 ns per entry
                jmh("dev.ferry.bench.kafka.RocksJavaKafkaBench.all", builtin, 0.5, 0.01, "ms/op"), // 500 ns per entry
                jmh("dev.ferry.bench.kafka.KafkaBench.restore", ferry, 2, 0.1, "ms/op"), // 2,000 ns per record
                jmh("dev.ferry.bench.kafka.RocksJavaKafkaBench.restore", builtin, 1, 0.1, "ms/op")) + "]");
        Report.main(new String[] {dir.toString()});
        List<Report.Row> rows = Report.rows(Report.list(dev.ferry.bench.report.Json.parse(Files.readString(dir.resolve("jmh-kafka.json")))));
        Report.ratios(rows);
        Report.Row range = rows.get(0);
        assertEquals("kafka", range.family);
        assertEquals("range100", range.workload);
        assertEquals("ferry-jni", range.variant);
        assertEquals("rocksdb", range.engine);
        assertEquals(2.0, range.speedup, 1e-9);
        assertEquals("lmdb", rows.get(1).engine);
        assertEquals(6.0, rows.get(1).speedup, 1e-9);
        assertEquals("kafka-builtin", rows.get(2).variant);
        assertEquals(200.0, rows.get(3).ns, 1e-9);
        assertEquals(500.0, rows.get(4).ns, 1e-9);
        assertEquals(2.5, rows.get(3).speedup, 1e-9);
        assertEquals(2000.0, rows.get(5).ns, 1e-9);
        assertEquals(0.5, rows.get(5).speedup, 1e-9);
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("## Kafka Streams state stores, JMH"), md);
        assertTrue(md.contains("| range100 | 100 | kafka-builtin | rocksdb | 600 | 30 | 1.00 |"), md);
        assertTrue(md.contains("| Kafka Streams store on rocksdb, ferry-jni, 100 B: range() of 100 >= 1.5x faster than Kafka's "
                + "built-in RocksDB store (JMH) | 2.00 ± 0.22x | MET |"), md);
        assertTrue(md.contains("| Kafka Streams store on lmdb, ferry-ffm, 100 B: range() of 100"), md);
        // restore: 2,000 ns per record against the built-in store's 1,000 (0.5x), the errors 0.1 of 2 and of 1
        assertTrue(md.contains("| Kafka Streams store on rocksdb, ferry-jni, 100 B: restore >= 1.5x faster than Kafka's "
                + "built-in RocksDB store (JMH) | 0.50 ± 0.06x | MISSED"), md);
        assertTrue(Files.exists(dir.resolve("chart-jmh-kafka-100-range100.png")), md);
        assertFalse(md.contains("(not described"), md);
    }
}
