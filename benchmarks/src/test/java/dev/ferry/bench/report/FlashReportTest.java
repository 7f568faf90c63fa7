package dev.ferry.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flash report from canned raw outputs of both tools: the JSON lines C++ db_bench's wrapper
 * and the Java db_bench write (field for field as they print them), runs.tsv and plan.txt.
 */
class FlashReportTest {
    static final String ENGINE = "/cache/ferry/db_bench-11.8.1/librocksdbjni-linux64.so";
    static final String SHA = "265c656af5c6502cb8d71db1a74858509f706cc47f1a5b6f603c736d11ce677d";

    @TempDir
    Path dir;

    /** A line as CppDbBench writes it (threads counts readwhilewriting's writer). */
    static String cpp(String bench, String kind, double ops, int threads, String op, double p50, String enginePath, String sha) {
        return String.format(Locale.ROOT, "{\"tool\":\"cpp-db_bench\",\"api\":\"c++\",\"benchmark\":\"%s\",\"kind\":\"%s\",\"index\":1,"
                + "\"micros_per_op\":%s,\"ops_per_sec\":%d,\"seconds\":2.5,\"operations\":1000,\"mb_per_sec\":60.3,"
                + "\"message\":\"(1000 of 1000 found)\",\"threads\":%d,\"key_size\":16,\"value_size\":800,\"engine_path\":%s,"
                + "\"engine_sha256\":%s,\"binary\":\"/cache/ferry/db_bench-11.8.1/db_bench\",\"args\":\"--benchmarks=%s\","
                + "\"hist_%s_count\":1000,\"hist_%s_avg\":13.9857,\"hist_%s_max\":35244,\"hist_%s_p50\":%s,\"hist_%s_p75\":1.83,"
                + "\"hist_%s_p99\":5.56,\"hist_%s_p99_9\":1900.0,\"hist_%s_p99_99\":35244.0}",
                bench, kind, 1e6 / ops * threads, (long) ops, threads, q(enginePath), q(sha), bench, op, op, op, op, p50, op, op, op, op);
    }

    /** A line as the Java db_bench writes it. */
    static String java(String api, String bench, String kind, double ops, int threads, String op, double p50, String enginePath, String sha) {
        return String.format(Locale.ROOT, "{\"tool\":\"java-dbbench\",\"api\":\"%s\",\"benchmark\":\"%s\",\"kind\":\"%s\",\"index\":1,"
                + "\"micros_per_op\":%s,\"ops_per_sec\":%d,\"seconds\":0.010948,\"operations\":4000,\"mb_per_sec\":284.3252620341615,"
                + "\"message\":\"\",\"threads\":%d,\"num\":2000,\"reads\":2000,\"key_size\":16,\"value_size\":800,\"batch_size\":1,"
                + "\"seed\":1,\"db\":\"/tmp/fp2\",\"block_cache\":\"lru_cache\",\"engine_block_cache\":\"LRUCache, capacity 1.00 MB\","
                + "\"engine_path\":%s,\"engine_sha256\":%s,\"java\":\"25.0.3+9-LTS\",\"args\":\"--api=%s\",\"hist_%s_count\":4000,"
                + "\"hist_%s_avg\":4.866,\"hist_%s_p50\":%s,\"hist_%s_p75\":0.77,\"hist_%s_p99\":62.42857142857143,"
                + "\"hist_%s_p99_9\":1300.0000000002728,\"hist_%s_p99_99\":4099.99,\"hist_%s_max\":4177}",
                api, bench, kind, 1e6 / ops * threads, (long) ops, threads, q(enginePath), q(sha), api, op, op, op, p50, op, op, op, op, op);
    }

    static String q(String s) {
        return s == null ? "null" : "\"" + s + "\"";
    }

    private void write(String stem, String... lines) throws IOException {
        Files.createDirectories(dir.resolve("raw"));
        Files.write(dir.resolve("raw").resolve(stem + ".jsonl"), List.of(lines));
        Files.writeString(dir.resolve("raw").resolve(stem + ".txt"), "# canned\n");
    }

    /** The published table's figures, as if measured: C++ and RocksJava, plus Ferry. */
    private void canned(String javaSha) throws IOException {
        write("01-fillseq-t1-cpp", cpp("fillseq", "run", 371_000, 1, "write", 5.1, ENGINE, SHA));
        write("03-fillseq-t1-rocksjava", java("rocksjava", "fillseq", "run", 369_000, 1, "write", 2.31, ENGINE, javaSha));
        write("04-fillseq-t1-ferry-jni", java("ferry-jni", "fillseq", "run", 370_000, 1, "write", 2.26, ENGINE, javaSha));
        write("10-readrandom-t32-cpp", cpp("readrandom", "run", 303_000, 32, "read", 100, ENGINE, SHA));
        write("11-readrandom-t32-rocksjava", java("rocksjava", "readrandom", "run", 270_000, 32, "read", 120, ENGINE, javaSha));
        write("12-readrandom-t32-rocksjava-reuse", java("rocksjava-reuse", "readrandom", "run", 280_000, 32, "read", 110, ENGINE, javaSha));
        write("13-readrandom-t32-rocksjava-direct", java("rocksjava-direct", "readrandom", "run", 290_000, 32, "read", 105, ENGINE, javaSha));
        write("14-readrandom-t32-ferry-jni", java("ferry-jni", "readrandom", "run", 300_000, 32, "read", 101, ENGINE, javaSha));
        write("15-readrandom-t32-ferry-ffm", java("ferry-ffm", "readrandom", "run", 301_500, 32, "read", 101, ENGINE, javaSha));
        // both tools count readwhilewriting's writer in "threads"
        write("20-readwhilewriting-t32-cpp", cpp("readwhilewriting", "run", 336_000, 33, "read", 90, ENGINE, SHA));
        write("21-readwhilewriting-t32-rocksjava", java("rocksjava", "readwhilewriting", "run", 206_000, 33, "read", 150, ENGINE, javaSha));
        // warm-ups are not results
        write("30-readseq-t32-cpp", cpp("readseq", "warmup", 1_000, 32, "read", 9, ENGINE, SHA),
                cpp("readseq", "run", 6_840_000, 32, "read", 0.5, ENGINE, SHA));
        write("31-readseq-t32-rocksjava", java("rocksjava", "readseq", "warmup", 1_000, 32, "read", 9, ENGINE, javaSha),
                java("rocksjava", "readseq", "run", 2_120_000, 32, "read", 1.5, ENGINE, javaSha));
        write("32-readseq-t1-ferry-ffm", java("ferry-ffm", "readseq", "run", 500_000, 1, "read", 1.1, ENGINE, javaSha));
        Files.writeString(dir.resolve("plan.txt"), "mode: quick\nnum: 300000\nduration: 8\nseq_reads_total: 300000\nseq_warmup: true\n"
                + "why: quick: test sizes\ndata_dir: /data\nwall_seconds: 600\n");
        Files.writeString(dir.resolve("runs.tsv"), "index\tkind\tapi\tworkload\tthreads\texit\tseconds\tstem\tcommand\n"
                + "1\tMEASURE\tc++\tfillseq\t1\t0\t3.0\t01-fillseq-t1-cpp\tjava -cp b.jar dev.ferry.bench.dbbench.CppDbBench --benchmarks=fillseq\n"
                + "16\tMEASURE\tferry-jni\treadwhilewriting\t32\t1\t2.0\t16-readwhilewriting-t32-ferry-jni\tjava -cp b.jar DbBench --api=ferry-jni\n");
        Files.writeString(dir.resolve("machine.txt"), "cpu: canned CPU\ncores: 2\n");
    }

    @Test
    void csvAndReportFromBothToolsOutputs() throws IOException {
        canned(SHA);
        FlashReport.main(new String[] {dir.toString()});

        List<String> csv = Files.readAllLines(dir.resolve("summary.csv"));
        assertEquals("tool,api,workload,threads,ops_per_sec,micros_per_op,p50_us,p99_us,p99_9_us,max_us,operations,seconds,"
                + "engine_path,engine_sha256,raw,repeat,position", csv.get(0));
        assertEquals(15, csv.size(), "14 results, warm-ups left out: " + csv);
        assertTrue(csv.contains("cpp-db_bench,c++,readwhilewriting,32,336000,98.214,90.00,5.56,1900.00,35244,1000,2.500," + ENGINE + ","
                + SHA + ",raw/20-readwhilewriting-t32-cpp.txt,1,0"), "readers without the writer; C++ percentiles; a stem without "
                + "a place is repeat 1, place unknown: " + csv);
        assertTrue(csv.contains("java-dbbench,rocksjava,fillseq,1,369000,2.710,2.31,62.43,1300.00,4177,4000,0.011," + ENGINE + "," + SHA
                + ",raw/03-fillseq-t1-rocksjava.txt,1,0"), "Java's write percentiles: " + csv);
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("cpp-db_bench,c++,readseq,32,6840000,")), "the run, not the warm-up");

        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("SMOKE RUN"), "quick runs say so");
        assertTrue(md.contains("One run per cell, the tools in a fixed order") && md.contains("the order is not rotated"),
                "a single repeat says its order is fixed: " + md);
        assertFalse(md.contains("## Order"), "no rotation to report");
        assertTrue(Files.readAllLines(dir.resolve("cells.csv")).contains("readrandom,32,ferry-ffm,1,301500,301500,301500,0.00,-0.50,-0.50,-0.50"));
        assertTrue(md.contains("**MATCH**"), md);
        assertFalse(md.contains("MISMATCH"));
        assertTrue(md.contains("| workload | threads | C++ | RocksJava | RocksJava best | Ferry-JNI | Ferry-FFM | Ferry vs C++ | RocksJava vs C++ |"));
        assertTrue(md.contains("| fillseq | 1 | 371,000 | 369,000 | (same put) | 370,000 |  | JNI -0.3% | -0.5% |"), md);
        assertTrue(md.contains("| readrandom | 32 | 303,000 | 270,000 | 290,000 (direct) | 300,000 | 301,500 | JNI -1.0%, FFM -0.5% | -10.9% (best -4.3%) |"), md);
        assertTrue(md.contains("| readwhilewriting | 32 | 336,000 | 206,000 |  |  |  |  | -38.7% |"), md);
        assertTrue(md.contains("| readseq | 32 | 6,840,000 | 2,120,000 |  |  |  |  | -69.0% |"), md);
        assertTrue(md.contains("| readseq | 1 |  |  |  |  | 500,000 |  |  |"), "no C++ figure, no difference: " + md);
        // the published table beside it, as ratios
        assertTrue(md.contains("| readseq (32 sequential readers) | 2120K | 6840K | -69.0% | 32 | -69.0% |"), md);
        assertTrue(md.contains("| readrandom | 32 | Ferry-FFM | 101.00 | 62.4 | 1300.0 | 4177 |"), "latency table: " + md);
        assertTrue(md.contains("# 16-readwhilewriting-t32-ferry-jni (measure, exit 1, 2.0 s)"), "commands: " + md);
        assertTrue(md.contains("## Failed runs\n\n- 16-readwhilewriting-t32-ferry-jni exited with 1"), md);
        assertTrue(md.contains("published: `db_bench --benchmarks=readwhilewriting"), "published commands: " + md);
        assertTrue(md.contains("| compression_ratio=50 | `--compression_ratio=0.5` |"), "deviations: " + md);
        assertTrue(md.contains("cpu: canned CPU"), "machine facts");
        for (String w : List.of("fillseq", "readrandom", "readwhilewriting", "readseq")) {
            for (String c : List.of("throughput", "latency")) {
                Path png = dir.resolve("chart-flash-" + w + "-" + c + ".png");
                assertTrue(Files.size(png) > 1000, png.toString());
                assertTrue(md.contains("](" + png.getFileName() + ")"), png.toString());
            }
        }
    }

    @Test
    void aDifferentEngineBinaryIsReportedLoudly() throws IOException {
        canned("0000000000000000000000000000000000000000000000000000000000000000");
        FlashReport.main(new String[] {dir.toString()});
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("# WARNING: ENGINE MISMATCH"), md);
        assertTrue(md.indexOf("ENGINE MISMATCH") < md.indexOf("## Results"), "at the top");
        assertTrue(md.contains("2 different SHA-256s"), md);
    }

    @Test
    void spreadIsMedianMinAndMax() {
        FlashReport.Spread odd = FlashReport.Spread.of(List.of(30.0, 10.0, 20.0));
        assertEquals(new FlashReport.Spread(20, 10, 30, 3), odd);
        assertEquals(50.0, odd.halfRangePercent(), 1e-9, "(30 - 10) / 2 of 20");
        assertEquals(new FlashReport.Spread(25, 10, 40, 4), FlashReport.Spread.of(List.of(40.0, 10.0, 30.0, 20.0)),
                "an even count: the mean of the middle two");
        assertEquals(new FlashReport.Spread(7, 7, 7, 1), FlashReport.Spread.of(List.of(Double.NaN, 7.0)), "NaN left out");
        assertEquals(0.0, FlashReport.Spread.of(List.of(7.0)).halfRangePercent());
        assertEquals(0, FlashReport.Spread.of(List.of()).n());
        assertTrue(Double.isNaN(FlashReport.Spread.of(List.of()).halfRangePercent()));
    }

    /** A stem as FlashRun names a measured run. */
    private static String stem(int index, String w, int t, String api, int repeat, int place) {
        return String.format(Locale.ROOT, "%02d-%s-t%d-%s-r%dp%d", index, w, t, api.equals("c++") ? "cpp" : api, repeat, place);
    }

    /** readrandom at 1 thread, C++, Ferry-JNI and Ferry-FFM, rotated over 3 repeats: r1 C++ JNI FFM, r2 JNI FFM C++, r3 FFM C++ JNI. */
    private void cannedRepeats(int repeats) throws IOException {
        List<String> tools = List.of("c++", "ferry-jni", "ferry-ffm");
        double[][] ops = { // per tool, per repeat
            {1000, 1100, 900},
            {950, 1210, 990},
            {1020, 1000, 1100}};
        int index = 3;
        StringBuilder tsv = new StringBuilder("index\tkind\tapi\tworkload\tthreads\trepeat\tposition\texit\tseconds\tstem\tcommand\n");
        for (int r = 0; r < repeats; r++) {
            for (int p = 0; p < 3; p++) {
                String api = tools.get((r + p) % 3);
                double v = ops[tools.indexOf(api)][r];
                String st = stem(index, "readrandom", 1, api, r + 1, p + 1);
                write(st, api.equals("c++") ? cpp("readrandom", "run", v, 1, "read", 300 + r, ENGINE, SHA)
                        : java(api, "readrandom", "run", v, 1, "read", 300 + r, ENGINE, SHA));
                tsv.append(index).append("\tMEASURE\t").append(api).append("\treadrandom\t1\t").append(r + 1).append('\t').append(p + 1)
                        .append("\t0\t9.0\t").append(st).append("\tjava -cp b.jar ").append(api).append('\n');
                index++;
            }
        }
        Files.writeString(dir.resolve("runs.tsv"), tsv.toString());
        Files.writeString(dir.resolve("plan.txt"), "mode: full\nnum: 300000\nduration: 8\nrepeats: " + repeats + "\n");
    }

    @Test
    void repeatsReportMediansSpreadsAndDifferencesFromTheMedians() throws IOException {
        cannedRepeats(3);
        FlashReport.main(new String[] {dir.toString()});
        String md = Files.readString(dir.resolve("report.md"));
        // C++ 900/1000/1100: median 1,000, ±10%; JNI 950/990/1210: median 990, ±13.1%; FFM 1000/1020/1100: median 1,020, ±4.9%.
        // Per repeat against C++: JNI -5.0, +10.0, +10.0 (r1 950/1000, r2 1210/1100, r3 990/900); FFM +2.0, -9.1, +22.2
        assertTrue(md.contains("| readrandom | 1 | 1,000 ±10.0% |  |  | 990 ±13.1% | 1,020 ±4.9% | JNI -1.0% (-5.0..+10.0), "
                + "FFM +2.0% (-9.1..+22.2) |  |"), md);
        assertTrue(md.contains("3 runs per cell (`--repeat 3`)"), md);
        assertFalse(md.contains("the order is not rotated"));
        assertTrue(md.contains("## Order") && md.contains("**Balanced**"), md);
        // place 1: C++ r1 1000 (0%), JNI r2 1210 (+22.2% of 990), FFM r3 1100 (+7.8% of 1020)
        assertTrue(md.contains("| 1 | 3 | +7.8% | +0.0% | +22.2% |"), md);
        assertTrue(md.contains("| readrandom | 1 | Ferry-JNI | 301.00 |"), "latency: the median of 300, 301, 302: " + md);
        assertTrue(md.contains("# 05-readrandom-t1-ferry-ffm-r1p3 (measure, exit 0, 9.0 s)"), "commands from the new runs.tsv: " + md);
        assertTrue(md.contains("- repeats: 3"), md);
        assertTrue(md.contains("librocksdbjni-linux64.so sha256 " + SHA + " (6 runs)"), "the engine check counts every repeat: " + md);
        List<String> cells = Files.readAllLines(dir.resolve("cells.csv"));
        assertEquals("workload,threads,api,runs,median_ops_per_sec,min_ops_per_sec,max_ops_per_sec,half_range_pct,vs_cpp_pct,"
                + "vs_cpp_min_pct,vs_cpp_max_pct", cells.get(0));
        assertTrue(cells.contains("readrandom,1,c++,3,1000,900,1100,10.00,,,"), cells.toString());
        assertTrue(cells.contains("readrandom,1,ferry-jni,3,990,950,1210,13.13,-1.00,-5.00,10.00"), cells.toString());
        List<String> csv = Files.readAllLines(dir.resolve("summary.csv"));
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("java-dbbench,ferry-jni,readrandom,1,1210,") && l.endsWith(
                ",raw/06-readrandom-t1-ferry-jni-r2p1.txt,2,1")), "every run keeps its repeat and place: " + csv);
    }

    @Test
    void repeatsFewerThanTheToolsAreNotBalanced() throws IOException {
        cannedRepeats(2);
        FlashReport.main(new String[] {dir.toString()});
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("**Not balanced**") && md.contains("in: readrandom t1."), md);
        assertTrue(md.contains("| readrandom | 1 | 1,050 ±4.8% |"), "median of two: their mean: " + md);
    }

    private static FlashReport.Result r(String api, String path, String sha) {
        return new FlashReport.Result(api.equals("c++") ? "cpp-db_bench" : "java-dbbench", api, "readrandom", 1, 1, 1, 1, 1, 1, 1, 1, 1,
                path, sha, "x");
    }

    @Test
    void engineCheckVerdicts() {
        List<FlashReport.Result> same = List.of(r("c++", ENGINE, SHA), r("ferry-jni", ENGINE, SHA), r("rocksjava", ENGINE, SHA));
        assertEquals(FlashReport.Verdict.MATCH, FlashReport.engineCheck(same).verdict());
        List<FlashReport.Result> copies = List.of(r("c++", ENGINE, SHA), r("ferry-jni", "/tmp/librocksdbjni123.so", SHA));
        FlashReport.EngineCheck c = FlashReport.engineCheck(copies);
        assertEquals(FlashReport.Verdict.SAME_BYTES_OTHER_PATH, c.verdict());
        assertTrue(c.detail().stream().anyMatch(d -> d.contains("/tmp/librocksdbjni123.so")), c.detail().toString());
        assertEquals(FlashReport.Verdict.MISMATCH,
                FlashReport.engineCheck(List.of(r("c++", ENGINE, SHA), r("ferry-ffm", ENGINE, "ab" + SHA.substring(2)))).verdict());
        assertEquals(FlashReport.Verdict.MISMATCH, FlashReport.engineCheck(List.of(r("c++", ENGINE, SHA), r("ferry-ffm", null, null))).verdict());
        assertEquals(FlashReport.Verdict.MISMATCH,
                FlashReport.engineCheck(List.of(r("c++", ENGINE, SHA), r("ferry-ffm", ENGINE, "unreadable"))).verdict());
        FlashReport.EngineCheck one = FlashReport.engineCheck(new ArrayList<>(List.of(r("c++", ENGINE, SHA))));
        assertEquals(FlashReport.Verdict.MISMATCH, one.verdict(), "nothing to compare is not a match");
        assertTrue(one.detail().contains("no Java results: nothing to compare"), one.detail().toString());
    }
}
