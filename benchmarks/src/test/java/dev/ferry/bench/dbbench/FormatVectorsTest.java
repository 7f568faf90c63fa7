package dev.ferry.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys, values and random key sequences match C++ db_bench's: each case of
 * {@code dbbench-vectors.txt} (databases written by the real C++ db_bench 11.8.1 and listed by
 * {@link MakeVectors}; see the file's header) is run through this tool and the database it writes
 * must list the same entries, byte for byte.
 */
class FormatVectorsTest {
    @TempDir
    Path tmp;

    static Map<String, List<String>> vectors() throws IOException {
        Map<String, List<String>> cases = new LinkedHashMap<>();
        try (InputStream in = FormatVectorsTest.class.getResourceAsStream("dbbench-vectors.txt")) {
            List<String> cur = null;
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (l.startsWith("case ")) {
                    cur = new ArrayList<>();
                    cases.put(l.substring(5), cur);
                } else if (l.startsWith("entry ")) {
                    cur.add(l);
                }
            }
        }
        return cases;
    }

    static String run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DbBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, () -> "exit status of " + args + "\n" + o + "\n" + err.toString(StandardCharsets.UTF_8));
        return o;
    }

    @Test
    void databasesMatchCppDbBenchVectors() throws Exception {
        Map<String, List<String>> cases = vectors();
        assertEquals(MakeVectors.CASES.size(), cases.size());
        int i = 0;
        for (Map.Entry<String, List<String>> c : cases.entrySet()) {
            // every case through Ferry-JNI; the random ones through FFM and RocksJava as well
            List<String> apis = c.getKey().contains("fillrandom") ? List.of("ferry-jni", "ferry-ffm", "rocksjava") : List.of("ferry-jni");
            for (String api : apis) {
                Path db = tmp.resolve("case" + i++);
                List<String> a = new ArrayList<>(Arrays.asList(c.getKey().split(" ")));
                a.addAll(List.of("--db=" + db, "--api=" + api, "--progress_reports=false"));
                run(a);
                assertEquals(c.getValue(), MakeVectors.dump(db), c.getKey() + " via " + api);
            }
        }
    }

    @Test
    void mersenneTwisterMatchesTheStandardsCheckValue() {
        // C++ requires the 10000th output of a default-constructed std::mt19937_64 (seed 5489) to be 9981545732273789042
        Mt64 m = new Mt64(5489);
        for (int i = 1; i < 10000; i++) {
            m.next();
        }
        assertEquals("9981545732273789042", Long.toUnsignedString(m.next()));
    }

    @Test
    void lehmerMatchesRocksDbsRandom() {
        Lehmer r = new Lehmer(301);
        assertEquals(301 * 16807, r.next());
        assertEquals(1, new Lehmer(0).next() / 16807, "seed 0 becomes 1");
    }

    @Test
    void keysFollowDbBenchsLayout() {
        assertEquals("00000000000000013030303030303030", HexFormat.of().formatHex(Keys.of(1, 16)));
        assertEquals("0102030405060708", HexFormat.of().formatHex(Keys.of(0x0102030405060708L, 8)));
        assertEquals("0708", HexFormat.of().formatHex(Keys.of(0x0102030405060708L, 2)), "short keys keep the low bytes");
    }

    @Test
    void valuesStartOverAtTheEndOfTheBuffer() {
        Values v = new Values(400_000, 0.5);
        assertEquals(1_048_600, v.data().length);
        Values.Cursor c = v.cursor();
        assertEquals(0, c.next());
        assertEquals(400_000, c.next());
        assertEquals(0, c.next(), "a third value would run past the end");
        assertArrayEquals(v.nth(0), v.nth(2));
    }

    @Test
    void histogramBucketsAreRocksDbs() {
        long[] l = Histogram.bucketLimits();
        assertArrayEquals(new long[] {1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580, 870, 1300, 1900, 2900},
                Arrays.copyOf(l, 20));
        assertEquals(109, l.length);
        Histogram h = new Histogram();
        for (int i = 1; i <= 100; i++) {
            h.add(i);
        }
        assertEquals(100, h.count());
        assertEquals(1, h.min());
        assertEquals(100, h.max());
        assertEquals(50.5, h.average(), 1e-9);
        assertEquals(100.0, h.percentile(100), 1e-9);
    }
}
