package dev.ferry.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tool's output has db_bench's shape, every benchmark runs on every API, errors are clear. */
class OutputTest {
    /** db_bench's result line. */
    static final Pattern LINE = Pattern.compile(
            "^(\\S+)\\s*: +([0-9.]+) micros/op (\\d+) ops/sec ([0-9.]+) seconds (\\d+) operations;( +[0-9.]+ MB/s)?(.*)$", Pattern.MULTILINE);

    @TempDir
    Path tmp;

    private static String[] run(List<String> args, int expectRc) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DbBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(expectRc, rc, () -> o + "\n" + e);
        return new String[] {o, e};
    }

    private static Matcher result(String out, String bench) {
        Matcher m = LINE.matcher(out);
        while (m.find()) {
            if (m.group(1).equals(bench)) {
                return m;
            }
        }
        throw new AssertionError("no result line for " + bench + " in\n" + out);
    }

    @Test
    void everyBenchmarkOnEveryApiPrintsDbBenchLines() throws Exception {
        for (String api : List.of("ferry-jni", "ferry-ffm", "rocksjava", "rocksjava-reuse", "rocksjava-direct")) {
            Path json = tmp.resolve(api + ".jsonl");
            String out = run(List.of("--api=" + api, "--db=" + tmp.resolve(api), "--num=500", "--seed=5", "--threads=2",
                    "--benchmarks=fillseq,readseq,readreverse,readrandom,multireadrandom,seekrandom,readwhilewriting,fillrandom,overwrite,stats",
                    "--batch_size=7", "--seek_nexts=3", "--writes_per_second=100000", "--json=" + json, "--progress_reports=false"), 0)[0];
            assertTrue(out.contains("Engine:     "), out);
            assertTrue(out.contains(" sha256 "), out);
            // each of 2 threads writes keys 0..496 (db_bench's fillseq per thread, in batches of 7 while within 500)
            assertEquals("994", result(out, "fillseq").group(5));
            assertEquals("994", result(out, "readseq").group(5), "each thread scans the 497 entries");
            assertEquals("994", result(out, "readreverse").group(5));
            assertTrue(result(out, "readrandom").group(7).contains(" of 500 found)"), out);
            Matcher mr = result(out, "multireadrandom");
            assertEquals("994", mr.group(5), "db_bench runs batches of 7 while the count stays within 500: 71 per thread");
            assertTrue(mr.group(7).contains(" of 497 found)"), out);
            assertTrue(result(out, "seekrandom").group(7).contains(" of 500 found)"), out);
            assertTrue(result(out, "readwhilewriting").group(7).contains("of 500 found)"), "the writer is left out of the merge");
            assertTrue(out.contains("** Compaction Stats [default] **"), "stats");
            List<String> lines = Files.readAllLines(json);
            assertEquals(9, lines.size());
            assertTrue(lines.get(0).startsWith("{\"tool\":\"java-dbbench\",\"api\":\"" + api + "\",\"benchmark\":\"fillseq\""), lines.get(0));
            assertTrue(lines.get(0).contains("\"engine_sha256\":\""), lines.get(0));
        }
    }

    @Test
    void histogramPrintsDbBenchsPercentiles() {
        String out = run(List.of("--db=" + tmp.resolve("h"), "--num=300", "--benchmarks=fillseq,readrandom", "--histogram",
                "--progress_reports=false", "--seed=1"), 0)[0];
        assertTrue(out.contains("Microseconds per write:\nCount: 300 Average: "), out);
        assertTrue(out.contains("Microseconds per read:\nCount: 300 Average: "), out);
        assertTrue(Pattern.compile("Percentiles: P50: [0-9.]+ P75: [0-9.]+ P99: [0-9.]+ P99\\.9: [0-9.]+ P99\\.99: [0-9.]+\n").matcher(out).find(), out);
        assertTrue(out.contains("------------------------------------------------------\n"), out);
    }

    @Test
    void repeatsAndWarmUpsAsDbBenchDoesThem() throws Exception {
        Path json = tmp.resolve("x.jsonl");
        String out = run(List.of("--db=" + tmp.resolve("x"), "--num=200", "--benchmarks=fillseq,readseq[X3-W1]", "--seed=4",
                "--progress_reports=false", "--json=" + json), 0)[0];
        assertTrue(out.contains("Warming up benchmark by running 1 times\n"), out);
        assertTrue(out.contains("Running benchmark for 3 times\n"), out);
        assertTrue(Pattern.compile("readseq \\[AVG 2 runs\\] : \\d+ \\(\u00b1 \\d+\\) ops/sec; +[0-9.]+ \\(\u00b1 [0-9.]+\\) MB/sec\n")
                .matcher(out).find(), out);
        assertTrue(Pattern.compile("readseq \\[MEDIAN 3 runs\\] : \\d+ ops/sec; +[0-9.]+ MB/sec\n").matcher(out).find(), out);
        List<String> lines = Files.readAllLines(json);
        assertEquals(5, lines.size(), "fillseq, one warm-up, three runs");
        assertTrue(lines.get(1).contains("\"benchmark\":\"readseq\",\"kind\":\"warmup\",\"index\":1"), lines.get(1));
        assertTrue(lines.get(4).contains("\"benchmark\":\"readseq\",\"kind\":\"run\",\"index\":3"), lines.get(4));
    }

    @Test
    void existingDatabaseIsKeptAndFillsAreSkipped() {
        Path db = tmp.resolve("keep");
        run(List.of("--db=" + db, "--num=200", "--benchmarks=fillseq", "--progress_reports=false", "--seed=2"), 0);
        String out = run(List.of("--db=" + db, "--num=200", "--benchmarks=fillseq,readseq", "--use_existing_db",
                "--progress_reports=false", "--seed=2"), 0)[0];
        assertTrue(out.contains("fillseq      : skipped (--use_existing_db is true)"), out);
        assertEquals("200", result(out, "readseq").group(5));
    }

    @Test
    void progressLinesGoToStderr() {
        String err = run(List.of("--db=" + tmp.resolve("p"), "--num=1200", "--benchmarks=fillseq", "--seed=3"), 0)[1];
        assertTrue(err.contains("... finished 100 ops"), err);
        assertTrue(err.contains("... finished 1000 ops"), err);
        assertTrue(err.contains("... finished 1500 ops") == false, "not past the ops done");
    }

    @Test
    void errorsAreClearAndExitOne() {
        assertTrue(run(List.of("--bogus=1"), 1)[1].contains("unknown command line flag 'bogus'"));
        assertTrue(run(List.of("--benchmarks=fillseq,compact"), 1)[1].contains("unknown benchmark 'compact'"));
        assertTrue(run(List.of("--benchmarks=readseq[Xa]"), 1)[1].contains("unknown benchmark arguments 'readseq[Xa]'"));
        assertTrue(run(List.of("--api=leveldb"), 1)[1].contains("unknown --api=leveldb"));
        assertTrue(run(List.of("--compression_type=brotli"), 1)[1].contains("Cannot parse compression type 'brotli'"));
        assertTrue(run(List.of("--writes_per_second=10", "--benchmark_write_rate_limit=5"), 1)[1].contains("not both"));
        assertTrue(run(List.of("--db=" + tmp.resolve("v"), "--benchmarks=fillseq", "--num=10", "--noverify_checksum", "--seed=1"), 1)[1]
                .contains("--verify_checksum=false"));
    }

    @Test
    void helpListsTheFlags() {
        String out = run(List.of("--num=5", "--help"), 0)[0];
        assertTrue(out.contains("--benchmarks ("), out);
        assertTrue(out.contains("--api ("), out);
        assertTrue(out.contains("--cache_numshardbits ("), out);
    }
}
