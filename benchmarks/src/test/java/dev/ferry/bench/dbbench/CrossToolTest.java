package dev.ferry.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferry.Store;
import dev.ferry.StoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * This tool against the real C++ db_bench over the same engine binary: each reads the other's
 * database, both write the same OPTIONS file for the same flags, both use the same engine file, and
 * db_bench's defaults are this tool's. Needs C++ db_bench built by
 * {@code benchmarks/cpp-dbbench/build.sh} (cached in the user's cache directory); CI never builds
 * it, so there these tests are skipped.
 */
class CrossToolTest {
    private static Path bin;

    @TempDir
    Path tmp;

    @BeforeAll
    static void findBinary() {
        bin = CppDbBench.defaultBinary();
    }

    @BeforeEach
    void needsBinary() {
        // per test, so that each one is reported as skipped, with this message
        assumeTrue(Files.isExecutable(bin), "C++ db_bench is not built (" + bin
                + " missing): run benchmarks/cpp-dbbench/build.sh to run the cross-tool tests");
    }

    private static CppDbBench.Run cpp(List<String> args) throws IOException {
        List<String> a = new ArrayList<>(args);
        a.add("--progress_reports=false");
        CppDbBench.Run r = CppDbBench.run(bin, a, null, System.err);
        assertEquals(0, r.exitCode(), () -> "C++ db_bench " + a + "\n" + r.stdout());
        return r;
    }

    private static Matcher result(String out, String bench) {
        Matcher m = OutputTest.LINE.matcher(out);
        while (m.find()) {
            if (m.group(1).equals(bench)) {
                return m;
            }
        }
        throw new AssertionError("no result line for " + bench + " in\n" + out);
    }

    @Test
    void javaReadsWhatCppWrote() throws IOException {
        Path db = tmp.resolve("cpp-written");
        cpp(List.of("--benchmarks=fillseq", "--num=3000", "--db=" + db, "--seed=11"));
        // content: key i holds the i-th value of db_bench's generator
        Values v = new Values(100, 0.5);
        try (Store s = Store.open(db, StoreOptions.rocksdb().createIfMissing(false))) {
            for (int i = 0; i < 3000; i++) {
                assertArrayEquals(v.nth(i), s.get(Keys.of(i, 16)), "key " + i);
            }
            assertTrue(s.get(Keys.of(3000, 16)) == null);
        }
        for (String api : List.of("ferry-jni", "ferry-ffm", "rocksjava")) {
            String out = FormatVectorsTest.run(List.of("--benchmarks=readseq,readreverse,readrandom,seekrandom", "--num=3000",
                    "--use_existing_db", "--db=" + db, "--seed=11", "--api=" + api, "--progress_reports=false"));
            assertEquals("3000", result(out, "readseq").group(5), api);
            assertEquals("3000", result(out, "readreverse").group(5), api);
            assertTrue(result(out, "readrandom").group(7).contains("(3000 of 3000 found)"), out);
            assertTrue(result(out, "seekrandom").group(7).contains("(3000 of 3000 found)"), out);
        }
    }

    @Test
    void cppReadsWhatJavaWroteAndFindsTheSameKeys() throws IOException {
        for (String api : List.of("ferry-ffm", "rocksjava")) {
            Path db = tmp.resolve("java-written-" + api);
            FormatVectorsTest.run(List.of("--benchmarks=fillrandom", "--num=4000", "--db=" + db, "--seed=77", "--api=" + api,
                    "--progress_reports=false"));
            // the same benchmark list on both sides: the readrandom thread gets the same seed, so draws the same keys
            List<String> reads = List.of("--benchmarks=readseq,readrandom", "--num=4000", "--use_existing_db", "--db=" + db, "--seed=77");
            String jr = FormatVectorsTest.run(concat(reads, "--api=" + api, "--progress_reports=false"));
            String distinct = result(jr, "readseq").group(5);
            String javaFound = result(jr, "readrandom").group(7).strip();
            String out = cpp(reads).stdout();
            assertEquals(distinct, result(out, "readseq").group(5), out);
            assertEquals(javaFound, result(out, "readrandom").group(7).strip(), out);
        }
    }

    @Test
    void fillsWriteTheSameDatabaseAsCpp() throws Exception {
        for (String flags : List.of("--benchmarks=fillrandom --num=4000 --seed=77 --threads=1",
                "--benchmarks=fillseq,overwrite --num=3000 --writes=1500 --seed=5 --batch_size=3 --value_size=300")) {
            Path c = tmp.resolve("cpp-fill");
            Path j = tmp.resolve("java-fill");
            cpp(concat(List.of(flags.split(" ")), "--db=" + c));
            FormatVectorsTest.run(concat(List.of(flags.split(" ")), "--db=" + j, "--api=ferry-jni", "--progress_reports=false"));
            assertEquals(MakeVectors.dump(c), MakeVectors.dump(j), flags);
        }
    }

    @Test
    void sameFlagsSameOptionsFileAsCppDbBench() throws IOException {
        int i = 0;
        for (String flags : OptionsFileTest.FLAG_SETS) {
            Path c = tmp.resolve("cpp" + i);
            Path j = tmp.resolve("java" + i++);
            List<String> a = OptionsFileTest.args(flags, c, "ferry-jni");
            a.remove("--api=ferry-jni");
            cpp(a);
            FormatVectorsTest.run(OptionsFileTest.args(flags, j, "ferry-jni"));
            assertEquals(OptionsFileTest.options(c), OptionsFileTest.options(j), flags);
        }
    }

    @Test
    void bothToolsRunTheSameEngineFile() throws IOException {
        CppDbBench.Run r = cpp(List.of("--benchmarks=fillseq", "--num=10", "--db=" + tmp.resolve("e")));
        assertTrue(r.engine().isPresent(), "C++ db_bench maps librocksdbjni");
        EngineBinary java = EngineBinary.ofProcess("self").orElseThrow();
        assertEquals(java.sha256(), r.engine().get().sha256(), "C++ " + r.engine().get().path() + " vs Java " + java.path());
        assertEquals(1, r.results().size());
        assertTrue(r.results().get(0).contains("\"engine_sha256\":\"" + java.sha256() + "\""), r.results().get(0));
    }

    @Test
    void sameOperationCountsAsCppDbBench() throws IOException {
        List<String> flags = List.of("--benchmarks=fillseq,readrandom,multireadrandom,seekrandom", "--num=700", "--batch_size=9",
                "--seek_nexts=4", "--threads=2", "--seed=3");
        String c = cpp(concat(flags, "--db=" + tmp.resolve("c"))).stdout();
        String j = FormatVectorsTest.run(concat(flags, "--db=" + tmp.resolve("j"), "--progress_reports=false"));
        for (String b : List.of("fillseq", "readrandom", "multireadrandom", "seekrandom")) {
            assertEquals(result(c, b).group(5), result(j, b).group(5), b + " operations");
            assertEquals(result(c, b).group(7).strip(), result(j, b).group(7).strip(), b + " message");
        }
    }

    private static List<String> concat(List<String> a, String... more) {
        List<String> r = new ArrayList<>(a);
        r.addAll(List.of(more));
        return r;
    }

    @Test
    void defaultsAreCppDbBenchDefaults() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(bin.toString(), "--helpfull").redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        // gflags --helpfull: "    -name (description, maybe on several lines) type: T\n      default: V"
        Pattern start = Pattern.compile("^    -(\\w+) \\(", Pattern.MULTILINE);
        Pattern typeDefault = Pattern.compile("\\)\\s+type: (\\w+)\\s+default: (\"[^\"]*\"|\\S+)");
        Matcher m = start.matcher(help);
        List<int[]> spans = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
            spans.add(new int[] {m.start()});
        }
        int checked = 0;
        List<String> seen = new ArrayList<>();
        for (int k = 0; k < names.size(); k++) {
            int end = k + 1 < spans.size() ? spans.get(k + 1)[0] : help.length();
            Matcher td = typeDefault.matcher(help.substring(spans.get(k)[0], end));
            Flags.Def d = Flags.definition(names.get(k));
            seen.add(names.get(k));
            if (d == null || d.javaOnly() || d.name().equals("benchmarks") || !td.find()) {
                continue;
            }
            String cppDefault = td.group(2).replaceAll("^\"|\"$", "");
            if (d.kind() == Flags.Kind.DOUBLE) {
                assertEquals(Double.parseDouble(cppDefault), Double.parseDouble(d.defaultValue()), d.name());
            } else {
                assertEquals(cppDefault, d.defaultValue(), d.name());
            }
            assertEquals(td.group(1), d.kind().name().toLowerCase(java.util.Locale.ROOT), d.name() + " type");
            checked++;
        }
        for (Flags.Def d : Flags.definitions()) {
            assertTrue(d.javaOnly() || seen.contains(d.name()), d.name() + " is not a db_bench flag");
        }
        assertNotNull(help);
        assertEquals(Flags.definitions().stream().filter(d -> !d.javaOnly() && !d.name().equals("benchmarks")).count(), checked);
    }
}
