package dev.ferry.bench.flash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ferry.bench.dbbench.CppDbBench;
import dev.ferry.bench.dbbench.Flags;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reproduction passes the published flags (or says why not), in a plan both tools accept. */
class FlashPlanTest {
    private static final FlashPlan.Sizes SIZES = new FlashPlan.Sizes(300_000, 8, 300_000, true, "test");
    private static final Path DB = Path.of("/data/db");

    @TempDir
    Path tmp;

    private static Map<String, String> passed(List<String> args) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String a : args) {
            assertTrue(a.startsWith("--") && a.contains("="), a);
            String k = a.substring(2, a.indexOf('='));
            assertFalse(m.containsKey(k), "flag passed twice: " + k + " in " + args);
            m.put(k, a.substring(a.indexOf('=') + 1));
        }
        return m;
    }

    @Test
    void everyPublishedFlagIsPassedAsPublishedOrExplained() {
        for (String w : FlashPlan.WORKLOADS) {
            int threads = w.equals("fillseq") ? 1 : 32;
            List<FlashPlan.Deviation> dev = new ArrayList<>();
            Map<String, String> got = passed(FlashPlan.flags(w, threads, SIZES, DB, dev));
            Set<String> explained = new HashSet<>();
            dev.forEach(d -> explained.add(d.flag().split("[= ]")[0]));
            for (Map.Entry<String, String> e : FlashPlan.parse(FlashPlan.PUBLISHED_CPP.get(w)).entrySet()) {
                String k = e.getKey();
                if (FlashPlan.LEFT_OUT.containsKey(k)) {
                    assertFalse(got.containsKey(k), w + ": " + k + " is left out");
                    assertTrue(explained.contains(k), w + ": " + k + " left out without a reason");
                } else if (k.equals("db") || k.equals("benchmarks")) {
                    assertTrue(got.containsKey(k), w + ": " + k);
                } else if (!got.get(k).equals(e.getValue())) {
                    assertTrue(explained.contains(k), w + ": --" + k + "=" + got.get(k) + " differs from the published "
                            + e.getValue() + " without a reason");
                }
            }
            for (FlashPlan.Deviation d : dev) {
                assertFalse(d.why().isBlank(), d.toString());
            }
        }
    }

    @Test
    void thePublishedSettingsPerWorkload() {
        Map<String, String> fill = passed(FlashPlan.flags("fillseq", 1, SIZES, DB, null));
        Map<String, String> expectFill = Map.ofEntries(Map.entry("benchmarks", "fillseq"), Map.entry("threads", "1"),
                Map.entry("key_size", "16"), Map.entry("value_size", "800"), Map.entry("block_size", "65536"),
                Map.entry("cache_size", "1048576"), Map.entry("cache_numshardbits", "4"), Map.entry("bloom_bits", "10"),
                Map.entry("compression_type", "snappy"), Map.entry("compression_ratio", "0.5"), Map.entry("open_files", "500000"),
                Map.entry("disable_wal", "1"), Map.entry("sync", "0"), Map.entry("write_buffer_size", "134217728"),
                Map.entry("target_file_size_base", "67108864"), Map.entry("max_write_buffer_number", "3"),
                Map.entry("max_background_compactions", "20"), Map.entry("level0_file_num_compaction_trigger", "4"),
                Map.entry("level0_slowdown_writes_trigger", "8"), Map.entry("level0_stop_writes_trigger", "12"),
                Map.entry("num_levels", "6"), Map.entry("max_bytes_for_level_base", "10485760"), Map.entry("use_existing_db", "0"),
                Map.entry("num", "300000"), Map.entry("cache_type", "lru_cache"), Map.entry("histogram", "1"),
                Map.entry("db", "/data/db"));
        expectFill.forEach((k, v) -> assertEquals(v, fill.get(k), "fillseq --" + k));
        assertFalse(fill.containsKey("use_direct_reads"), "the writer is not a reader");

        for (String w : FlashPlan.READERS) {
            for (int t : List.of(1, 2, 32)) {
                Map<String, String> r = passed(FlashPlan.flags(w, t, SIZES, DB, null));
                assertEquals(String.valueOf(t), r.get("threads"), w);
                assertEquals("4096", r.get("block_size"), w);
                assertEquals("6", r.get("cache_numshardbits"), w);
                assertEquals("1048576", r.get("cache_size"), w);
                assertEquals("10", r.get("bloom_bits"), w);
                assertEquals("800", r.get("value_size"), w);
                assertEquals("1", r.get("use_existing_db"), w);
                assertEquals("1", r.get("use_direct_reads"), w);
                assertEquals("1", r.get("disable_wal"), w);
                assertEquals("300000", r.get("num"), w);
                assertEquals(String.valueOf(FlashPlan.SEED), r.get("seed"), w + ": every tool reads the same keys");
                if (w.equals("readseq")) {
                    assertEquals("readseq[X1-W1]", r.get("benchmarks"), "quick warms readseq up once");
                    assertEquals(String.valueOf(300_000 / t), r.get("reads"), "the run reads the database once in total");
                    assertFalse(r.containsKey("duration"));
                } else {
                    assertEquals(w, r.get("benchmarks"));
                    assertEquals("8", r.get("duration"), w);
                }
                assertEquals(w.equals("readwhilewriting") ? "snappy" : "none", r.get("compression_type"), w);
                assertEquals(w.equals("readwhilewriting") ? "10000" : null, r.get("writes_per_second"), w);
            }
        }
        FlashPlan.Sizes full = new FlashPlan.Sizes(10_000_000, 60, 10_000_000, false, "test");
        assertEquals("readseq", passed(FlashPlan.flags("readseq", 32, full, DB, null)).get("benchmarks"), "full: no warm-up pass");
    }

    @Test
    void theJavaToolAcceptsEveryRunsFlags() {
        for (String w : FlashPlan.WORKLOADS) {
            for (int t : List.of(1, 32)) {
                Flags f = Flags.parse(FlashPlan.flags(w, t, SIZES, DB, null));
                assertEquals(300_000, f.int64("num"), w);
                assertEquals(t == 32 && !w.equals("fillseq") ? 32 : t, f.int32("threads"), w);
                assertEquals(1_048_576, f.int64("cache_size"), w);
                assertEquals(w.equals("fillseq") ? 65536 : 4096, f.int32("block_size"), w);
            }
        }
    }

    @Test
    void cppDbBenchKnowsEveryRunsFlag() throws Exception {
        Path bin = CppDbBench.defaultBinary();
        assumeTrue(Files.isExecutable(bin), "C++ db_bench is not built (" + bin + "): run benchmarks/cpp-dbbench/build.sh");
        Process p = new ProcessBuilder(bin.toString(), "--helpfull").redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        for (String w : FlashPlan.WORKLOADS) {
            for (String k : passed(FlashPlan.flags(w, 1, SIZES, DB, null)).keySet()) {
                if (k.equals("writes_per_second")) {
                    continue; // the C++ wrapper turns it into --benchmark_write_rate_limit
                }
                assertTrue(help.contains("-" + k + " ("), "db_bench 11.8.1 has no --" + k);
            }
        }
    }

    @Test
    void readerThreadsAreOneTheCoresAnd32() {
        assertEquals(List.of(1, 2, 32), FlashPlan.readerThreads(2));
        assertEquals(List.of(1, 32), FlashPlan.readerThreads(1));
        assertEquals(List.of(1, 32), FlashPlan.readerThreads(32));
        assertEquals(List.of(1, 32, 64), FlashPlan.readerThreads(64));
    }

    @Test
    void runsFillOnceWithCppThenEveryToolReadsTheSameDatabase() {
        Path data = Path.of("/data");
        List<String> readers = List.of("rocksjava", "rocksjava-reuse", "ferry-jni", "ferry-ffm");
        List<FlashPlan.Run> runs = FlashPlan.runs(SIZES, 2, data, List.of("rocksjava", "ferry-jni", "ferry-ffm"), readers,
                FlashPlan.WORKLOADS, List.of());
        FlashPlan.Run first = runs.get(0);
        assertEquals(FlashPlan.CPP, first.api());
        assertEquals("fillseq", first.workload());
        assertEquals(FlashPlan.Kind.MEASURE, first.kind());
        assertEquals(data.resolve("shared"), first.db());
        assertEquals("fresh", first.dbSetup());
        assertEquals("waitforcompaction", runs.get(1).workload());
        assertEquals(FlashPlan.Kind.PREPARE, runs.get(1).kind());
        assertTrue(runs.get(1).args().contains("--use_existing_db=1"));
        for (int i = 2; i < 5; i++) {
            FlashPlan.Run r = runs.get(i);
            assertEquals("fillseq", r.workload());
            assertEquals(data.resolve("fill"), r.db(), "each Java tool writes its own database");
            assertEquals("fresh", r.dbSetup());
        }
        List<FlashPlan.Run> rest = runs.subList(5, runs.size());
        assertEquals(3 * 3 * 5, rest.size(), "3 workloads x threads 1, 2, 32 x C++ and 4 Java APIs");
        for (FlashPlan.Run r : rest) {
            boolean rww = r.workload().equals("readwhilewriting");
            assertEquals(rww ? data.resolve("rww") : data.resolve("shared"), r.db(), r.stem());
            assertEquals(rww ? "copy" : "shared", r.dbSetup(), r.stem());
            assertTrue(r.args().contains("--db=" + r.db()), r.stem());
        }
        // every tool in turn for one workload and thread count
        assertEquals(List.of(FlashPlan.CPP, "rocksjava", "rocksjava-reuse", "ferry-jni", "ferry-ffm"),
                rest.subList(0, 5).stream().map(FlashPlan.Run::api).toList());
        assertEquals(runs.size(), runs.stream().map(FlashPlan.Run::stem).distinct().count(), "one raw file per run");
        assertEquals("01-fillseq-t1-cpp-r1p1", first.stem(), "a measured run's stem names its repeat and place");
        assertEquals("02-waitforcompaction-t1-cpp", runs.get(1).stem(), "a preparation step has no place");
        assertEquals(List.of(2, 3, 4), runs.subList(2, 5).stream().map(FlashPlan.Run::position).toList(), "fills after C++'s");
        assertTrue(runs.stream().allMatch(r -> r.repeat() == 1));

        List<FlashPlan.Run> only = FlashPlan.runs(SIZES, 2, data, List.of("ferry-jni"), List.of("ferry-jni"), List.of("readrandom"), List.of(1));
        assertEquals(FlashPlan.Kind.PREPARE, only.get(0).kind(), "the C++ fill always makes the shared database");
        assertEquals(4, only.size());
    }

    @Test
    void rotationPutsEachToolInEachPlaceOnceOverTRepeats() {
        List<String> tools = List.of(FlashPlan.CPP, "rocksjava", "rocksjava-reuse", "ferry-jni", "ferry-ffm");
        int t = tools.size();
        assertEquals(tools, FlashPlan.order(tools, 0), "repeat 0 is the order of a single run, C++ first");
        assertEquals(List.of("rocksjava", "rocksjava-reuse", "ferry-jni", "ferry-ffm", FlashPlan.CPP), FlashPlan.order(tools, 1));
        int[][] count = new int[t][t];
        for (int r = 0; r < t; r++) {
            List<String> o = FlashPlan.order(tools, r);
            assertEquals(Set.copyOf(tools), Set.copyOf(o), "every tool runs once in a repeat");
            assertEquals(tools.get(r), o.get(0), "repeat r starts at tool r");
            for (int p = 0; p < t; p++) {
                count[tools.indexOf(o.get(p))][p]++;
            }
        }
        for (int i = 0; i < t; i++) {
            for (int p = 0; p < t; p++) {
                assertEquals(1, count[i][p], tools.get(i) + " in place " + (p + 1));
            }
        }
        assertEquals(FlashPlan.order(tools, 2), FlashPlan.order(tools, 2 + t), "repeat r and r + T run in the same order");
    }

    @Test
    void repeatsRunEveryCellOncePerRepeatInRotatedOrderOnTheSameDatabase() {
        Path data = Path.of("/data");
        List<String> fillApis = List.of("rocksjava", "ferry-jni");
        List<String> readers = List.of("ferry-jni", "ferry-ffm");
        int repeats = 3;
        List<FlashPlan.Run> runs = FlashPlan.runs(SIZES, 2, data, fillApis, readers, FlashPlan.WORKLOADS, List.of(1, 2), repeats);
        assertEquals(repeats * (3 + 3 * 2 * 3) + 1, runs.size(), "per repeat 3 fills and 3 readers x 2 thread counts x 3 tools; "
                + "one preparation step");
        assertEquals(1, runs.stream().filter(r -> r.kind() == FlashPlan.Kind.PREPARE).count(), "the shared database is made once");
        assertEquals(runs.size(), runs.stream().map(FlashPlan.Run::stem).distinct().count(), "one raw file per run");
        for (int i = 0; i < runs.size(); i++) {
            assertEquals(i + 1, runs.get(i).index());
        }
        List<FlashPlan.Run> measured = runs.stream().filter(r -> r.kind() == FlashPlan.Kind.MEASURE).toList();
        // every (workload, threads) cell: each tool once per repeat, in each place once over the 3 repeats
        Map<String, Map<String, Set<Integer>>> places = new java.util.TreeMap<>();
        for (FlashPlan.Run r : measured) {
            assertTrue(r.stem().endsWith("-r" + r.repeat() + "p" + r.position()), r.stem());
            places.computeIfAbsent(r.workload() + " t" + r.threads(), k -> new java.util.TreeMap<>())
                    .computeIfAbsent(r.api(), k -> new java.util.TreeSet<>()).add(r.position() * 10 + r.repeat());
        }
        assertEquals(7, places.size(), "fillseq t1 and 3 readers x 2 thread counts");
        for (Map.Entry<String, Map<String, Set<Integer>>> cell : places.entrySet()) {
            assertEquals(3, cell.getValue().size(), cell.getKey() + ": C++ and 2 Java APIs");
            for (Map.Entry<String, Set<Integer>> tool : cell.getValue().entrySet()) {
                Set<Integer> ps = new HashSet<>();
                Set<Integer> rs = new HashSet<>();
                tool.getValue().forEach(x -> {
                    ps.add(x / 10);
                    rs.add(x % 10);
                });
                assertEquals(Set.of(1, 2, 3), ps, cell.getKey() + " " + tool.getKey() + ": each place once");
                assertEquals(Set.of(1, 2, 3), rs, cell.getKey() + " " + tool.getKey() + ": once per repeat");
            }
        }
        // repeats run one after the other, each a whole pass over the cells
        for (int i = 1; i < measured.size(); i++) {
            assertTrue(measured.get(i).repeat() >= measured.get(i - 1).repeat(), measured.get(i).stem());
        }
        // fillseq: repeat 1's C++ fill makes the shared database; every other fill writes a fresh database of its own
        for (FlashPlan.Run r : measured) {
            if (r.workload().equals("fillseq")) {
                boolean sharedFill = r.repeat() == 1 && r.api().equals(FlashPlan.CPP);
                assertEquals(sharedFill ? data.resolve("shared") : data.resolve("fill"), r.db(), r.stem());
                assertEquals("fresh", r.dbSetup(), r.stem());
            } else {
                boolean rww = r.workload().equals("readwhilewriting");
                assertEquals(rww ? data.resolve("rww") : data.resolve("shared"), r.db(), "the readers of every repeat read the same data");
                assertEquals(rww ? "copy" : "shared", r.dbSetup(), r.stem());
            }
        }
        FlashPlan.Run fill2 = measured.stream().filter(r -> r.repeat() == 2 && r.workload().equals("fillseq")).findFirst().orElseThrow();
        assertEquals("rocksjava", fill2.api(), "repeat 2 starts at the second tool");
        List<FlashPlan.Run> rr3 = measured.stream().filter(r -> r.repeat() == 3 && r.workload().equals("readrandom") && r.threads() == 1).toList();
        assertEquals(List.of("ferry-ffm", FlashPlan.CPP, "ferry-jni"), rr3.stream().map(FlashPlan.Run::api).toList());
        assertEquals(List.of(1, 2, 3), rr3.stream().map(FlashPlan.Run::position).toList());

        List<FlashPlan.Run> readOnly = FlashPlan.runs(SIZES, 2, data, fillApis, readers, List.of("readseq"), List.of(1), 2);
        assertEquals(2 + 2 * 3, readOnly.size(), "without fillseq: the C++ fill and its compaction once, then 2 repeats of 3 tools");
        assertEquals(FlashPlan.Kind.PREPARE, readOnly.get(0).kind());
        assertEquals(0, readOnly.get(0).position());
        assertThrows(IllegalArgumentException.class,
                () -> FlashPlan.runs(SIZES, 2, data, fillApis, readers, FlashPlan.WORKLOADS, List.of(1), 0));
    }

    @Test
    void sizesFollowTheDisk() {
        long gb = 1_000_000_000L;
        FlashPlan.Sizes q = FlashPlan.sizes(FlashPlan.Mode.QUICK, 50 * gb, 0, 0);
        assertEquals(300_000, q.num());
        assertTrue(q.seqWarmup());
        FlashPlan.Sizes f = FlashPlan.sizes(FlashPlan.Mode.FULL, 100 * gb, 0, 0);
        assertEquals(FlashPlan.FULL_NUM, f.num());
        assertEquals(60, f.durationSeconds());
        FlashPlan.Sizes small = FlashPlan.sizes(FlashPlan.Mode.FULL, 10 * gb, 0, 0);
        assertTrue(small.num() < FlashPlan.FULL_NUM && small.num() >= 1_000_000, "scaled to the free space: " + small.num());
        assertTrue(small.neededBytes() + (1L << 30) <= 10 * gb);
        assertTrue(small.why().contains("10.0 GB were free"), small.why());
        assertThrows(IllegalStateException.class, () -> FlashPlan.sizes(FlashPlan.Mode.FULL, 2 * gb, 0, 0));
        assertEquals(123_000, FlashPlan.sizes(FlashPlan.Mode.QUICK, 50 * gb, 123_000, 3).num());
    }

    @Test
    void copiesLinkTableFilesAndCopyTheRest() throws IOException {
        Path from = Files.createDirectories(tmp.resolve("from"));
        Files.writeString(from.resolve("000008.sst"), "table");
        Files.writeString(from.resolve("MANIFEST-000005"), "manifest");
        Files.writeString(from.resolve("LOCK"), "");
        Path to = tmp.resolve("to");
        FlashRun.copyDb(from, to);
        assertTrue(Files.isSameFile(from.resolve("000008.sst"), to.resolve("000008.sst")), "a hard link");
        assertEquals("manifest", Files.readString(to.resolve("MANIFEST-000005")));
        assertFalse(Files.isSameFile(from.resolve("MANIFEST-000005"), to.resolve("MANIFEST-000005")), "a copy");
        assertFalse(Files.exists(to.resolve("LOCK")));
        FlashRun.delete(to);
        assertFalse(Files.exists(to));
        assertEquals("table", Files.readString(from.resolve("000008.sst")));
    }

    @Test
    void commandsAreQuotedForTheShell() {
        assertEquals("java --a=1 '--benchmarks=readseq[X1-W1]' 'it'\\''s'", FlashRun.shell(List.of("java", "--a=1", "--benchmarks=readseq[X1-W1]", "it's")));
        FlashPlan.Run r = new FlashPlan.Run(7, FlashPlan.Kind.MEASURE, "ferry-ffm", "readseq", 2, List.of("--num=5"), DB, "shared", 2, 3);
        List<String> cmd = FlashRun.command(r, "java", "b.jar", Path.of("/cache/db_bench"), Path.of("/out"));
        assertTrue(cmd.contains("-Djava.library.path=/cache"), "Java loads the engine file beside C++ db_bench: " + cmd);
        assertTrue(cmd.contains("--api=ferry-ffm"));
        assertEquals("--json=/out/raw/07-readseq-t2-ferry-ffm-r2p3.jsonl", cmd.get(cmd.size() - 1));
        FlashPlan.Run c = new FlashPlan.Run(1, FlashPlan.Kind.MEASURE, FlashPlan.CPP, "fillseq", 1, List.of("--num=5"), DB, "fresh", 1, 1);
        List<String> cc = FlashRun.command(c, "java", "b.jar", Path.of("/cache/db_bench"), Path.of("/out"));
        assertTrue(cc.contains("-Dferry.dbbench.cpp=/cache/db_bench") && cc.contains("dev.ferry.bench.dbbench.CppDbBench"), cc.toString());
    }
}
