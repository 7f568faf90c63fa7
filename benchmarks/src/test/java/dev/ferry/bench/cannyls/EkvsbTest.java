package dev.ferry.bench.cannyls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ekvsb's file formats and summary, as ekvsb 0.0.13 reads, writes and computes them. */
class EkvsbTest {
    @TempDir
    Path dir;

    @Test
    void readsEkvsbsWorkloadFormat() {
        // the shape `ekvsb workload` prints (one line, tagged tasks, values by size only)
        List<Ekvsb.Task> t = Ekvsb.parseWorkload(
                "[{\"PUT\":{\"key\":\"qj7eTTOJ\",\"value\":{\"size\":16}}},{\"GET\":{\"key\":\"6VPR7poS\"}},{\"DELETE\":{\"key\":\"6VPR7poS\"}}]");
        assertEquals(List.of(new Ekvsb.Task(Ekvsb.Method.PUT, "qj7eTTOJ", 16), new Ekvsb.Task(Ekvsb.Method.GET, "6VPR7poS", 0),
                new Ekvsb.Task(Ekvsb.Method.DELETE, "6VPR7poS", 0)), t);
        assertEquals(t, Ekvsb.parseWorkload(Ekvsb.workloadJson(t)));
    }

    @Test
    void refusesWhatIsNotAWorkload() {
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.parseWorkload("{}"));
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.parseWorkload("[{\"SCAN\":{\"key\":\"a\"}}]"));
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.parseWorkload("[{\"PUT\":{\"key\":\"a\"}}]"));
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.parseWorkload("[{\"GET\":{}}]"));
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.parseWorkload("[{\"PUT\":{\"key\":\"a\",\"value\":{\"size\":-1}}}]"));
    }

    @Test
    void summaryPicksEkvsbsPercentileElements() {
        // 200 tasks of 1..200 ms: ekvsb takes sorted[n/2], sorted[n*95/100], sorted[n*99/100]
        List<Ekvsb.Result> rs = new ArrayList<>();
        for (int i = 200; i >= 1; i--) {
            rs.add(new Ekvsb.Result(200 - i, "k" + i, Ekvsb.Method.GET, 0, i / 1000.0, i % 4 == 0 ? Boolean.FALSE : i % 4 == 1 ? null : Boolean.TRUE,
                    i == 7 ? "boom" : null));
        }
        Ekvsb.Summary s = Ekvsb.summarize(rs);
        assertEquals(199, s.oks());
        assertEquals(1, s.errors());
        assertEquals(50, s.absents());
        assertEquals(50, s.unknowns());
        assertEquals(100, s.exists());
        assertEquals(0.001, s.min(), 1e-12);
        assertEquals(0.101, s.median(), 1e-12);
        assertEquals(0.191, s.p95(), 1e-12);
        assertEquals(0.199, s.p99(), 1e-12);
        assertEquals(0.200, s.max(), 1e-12);
        assertEquals(20.1, s.elapsed(), 1e-9);
        assertEquals(200 / 20.1, s.ops(), 1e-9);
    }

    @Test
    void resultsRoundTripAndParseEkvsbsOwnLines() throws Exception {
        List<Ekvsb.Result> rs = List.of(new Ekvsb.Result(0, "a\"b", Ekvsb.Method.PUT, 0.5, 1.25e-5, null, null),
                new Ekvsb.Result(1, "c", Ekvsb.Method.GET, 0.75, 0.002, Boolean.TRUE, "failed \"x\""));
        Path f = dir.resolve("r.json");
        Ekvsb.writeResults(f, rs);
        assertEquals(rs, Ekvsb.readResults(f));
        // a line as `ekvsb run` prints it
        List<Ekvsb.Result> e = Ekvsb.parseResults("[\n  {\"seqno\":0,\"key\":\"qj7e\",\"method\":\"GET\",\"start_time\":0.000001,"
                + "\"elapsed\":0.000013,\"exists\":false,\"error\":null}\n]\n");
        assertEquals(new Ekvsb.Result(0, "qj7e", Ekvsb.Method.GET, 0.000001, 0.000013, Boolean.FALSE, null), e.get(0));
        Files.delete(f);
    }

    @Test
    void parsesEkvsbsSummaryAndComparesIt() {
        String printed = "{\n  \"oks\": 3,\n  \"errors\": 0,\n  \"existence\": {\n    \"exists\": 2,\n    \"absents\": 1,\n"
                + "    \"unknowns\": 0\n  },\n  \"elapsed\": 0.006,\n  \"ops\": 500.0,\n  \"latency\": {\n    \"min\": 0.001,\n"
                + "    \"median\": 0.002,\n    \"p95\": 0.003,\n    \"p99\": 0.003,\n    \"max\": 0.003\n  }\n}\n";
        Ekvsb.Summary s = Ekvsb.parseSummary(printed);
        Ekvsb.Summary mine = Ekvsb.summarize(List.of(new Ekvsb.Result(0, "a", Ekvsb.Method.GET, 0, 0.001, true, null),
                new Ekvsb.Result(1, "b", Ekvsb.Method.GET, 0, 0.002, true, null), new Ekvsb.Result(2, "c", Ekvsb.Method.GET, 0, 0.003, false, null)));
        assertTrue(CannyRun.same(mine, s), mine + " vs " + s);
        assertFalse(CannyRun.same(mine, new Ekvsb.Summary(3, 0, 2, 1, 0, 0.006, 500, 0.001, 0.0025, 0.003, 0.003, 0.003)));
    }

    @Test
    void generatedWorkloadsSampleTheSamePopulation() {
        List<Ekvsb.Task> all = Ekvsb.generate(Ekvsb.Method.PUT, 1000, 1000, 16, 100, 42, null);
        List<Ekvsb.Task> gets = Ekvsb.generate(Ekvsb.Method.GET, 50, 1000, 16, 100, 42, 7L);
        assertEquals(1000, all.size());
        assertEquals(50, gets.size());
        HashSet<String> keys = new HashSet<>();
        all.forEach(t -> keys.add(t.key()));
        assertEquals(1000, keys.size(), "random 16-character keys do not collide here");
        for (Ekvsb.Task t : gets) {
            assertTrue(keys.contains(t.key()), t.key());
            assertEquals(16, t.key().length());
            assertEquals(0, t.valueSize());
        }
        assertEquals(100, all.get(0).valueSize());
        assertThrows(IllegalArgumentException.class, () -> Ekvsb.generate(Ekvsb.Method.GET, 2, 1, 16, 0, 1, null));
    }

    @Test
    void planSizesAndSamples() {
        CannyPlan q = CannyPlan.of("quick");
        assertEquals(List.of("100KB", "1MB", "10MB"), q.sizes().stream().map(CannyPlan.Size::label).toList());
        assertEquals(50, q.sizes().get(0).sample(), "1% of 4,000 is 40: at least 50");
        assertEquals(50, q.sizes().get(2).sample(), "at least 50 of 60");
        assertEquals(20, new CannyPlan.Size("10MB", 10_000_000, 20).sample(), "all 20 when there are fewer than 50");
        CannyPlan f = CannyPlan.of("full");
        assertEquals(1_000, f.sizes().get(0).sample(), "1% of 100,000");
        assertEquals(30_000_000_000L, f.bytesPerBackend());
        assertEquals(List.of(new CannyPlan.Size("100KB", 100_000, 20), new CannyPlan.Size("10MB", 10_000_000, 3)),
                CannyPlan.parseSizes("100kb:20,10MB:3"));
        assertEquals(512, CannyPlan.bytes("512B"));
        assertThrows(IllegalArgumentException.class, () -> CannyPlan.parseSizes("100KB"));
        assertThrows(IllegalArgumentException.class, () -> CannyPlan.bytes("100GB"));
        assertThrows(IllegalArgumentException.class, () -> CannyPlan.of("huge"));
    }
}
