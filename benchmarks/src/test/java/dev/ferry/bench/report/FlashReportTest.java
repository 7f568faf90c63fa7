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
                + "engine_path,engine_sha256,raw", csv.get(0));
        assertEquals(15, csv.size(), "14 results, warm-ups left out: " + csv);
        assertTrue(csv.contains("cpp-db_bench,c++,readwhilewriting,32,336000,98.214,90.00,5.56,1900.00,35244,1000,2.500," + ENGINE + ","
                + SHA + ",raw/20-readwhilewriting-t32-cpp.txt"), "readers without the writer; C++ percentiles: " + csv);
        assertTrue(csv.contains("java-dbbench,rocksjava,fillseq,1,369000,2.710,2.31,62.43,1300.00,4177,4000,0.011," + ENGINE + "," + SHA
                + ",raw/03-fillseq-t1-rocksjava.txt"), "Java's write percentiles: " + csv);
        assertTrue(csv.stream().anyMatch(l -> l.startsWith("cpp-db_bench,c++,readseq,32,6840000,")), "the run, not the warm-up");

        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("SMOKE RUN"), "quick runs say so");
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
