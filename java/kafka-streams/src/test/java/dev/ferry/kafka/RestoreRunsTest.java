package dev.ferry.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LMDB restore runs on their own: many runs merge in stages, never reading more than the fan-in at once. */
class RestoreRunsTest {
    @TempDir
    Path tmp;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Forty runs with a fan-in of three take more than one stage (40 to 14 to 3 runs): the merge hands
     * over each key's newest record, deletes included, in key order, as the runs and the records in
     * memory applied in order leave them, and never has more than three run files open.
     */
    @Test
    void manyRunsMergeInStagesWithAtMostTheFanInOpen() throws Exception {
        RestoreRuns runs = new RestoreRuns(tmp.resolve("kv.restore-"), 3);
        Random r = new Random(11);
        TreeMap<String, String> newest = new TreeMap<>(); // a key's newest record; "" marks a delete
        for (int run = 0; run < 40; run++) {
            TreeMap<String, String> records = new TreeMap<>();
            for (int i = 0; i < 1 + r.nextInt(30); i++) {
                records.put(String.format("k%03d", r.nextInt(300)), r.nextInt(4) == 0 ? "" : "r" + run + "-" + i);
            }
            List<KeyValue<byte[], byte[]>> sorted = new ArrayList<>();
            records.forEach((k, v) -> sorted.add(KeyValue.pair(bytes(k), v.isEmpty() ? null : bytes(v))));
            runs.spill(sorted::get, sorted.size());
            newest.putAll(records);
        }
        assertEquals(40, runs.runs());
        assertEquals(40, runFiles());
        TreeMap<String, String> memory = new TreeMap<>();
        for (int i = 0; i < 20; i++) {
            memory.put(String.format("k%03d", r.nextInt(300)), i % 5 == 0 ? "" : "m" + i);
        }
        List<KeyValue<byte[], byte[]>> mem = new ArrayList<>();
        memory.forEach((k, v) -> mem.add(KeyValue.pair(bytes(k), v.isEmpty() ? null : bytes(v))));
        newest.putAll(memory);

        List<String> got = new ArrayList<>();
        runs.merge(mem::get, mem.size(), kv -> got.add(new String(kv.key, StandardCharsets.UTF_8) + "="
                + (kv.value == null ? "" : new String(kv.value, StandardCharsets.UTF_8))));
        List<String> want = new ArrayList<>();
        newest.forEach((k, v) -> want.add(k + "=" + v));
        assertEquals(want, got);
        assertTrue(runs.mostOpenReaders() <= 3, "run files open at once: " + runs.mostOpenReaders());
        assertEquals(3, runs.runs(), "merged into bigger runs first");
        assertEquals(3, runFiles(), "the runs merged into bigger ones are deleted");
        runs.clear();
        assertEquals(0, runFiles());
    }

    private long runFiles() throws java.io.IOException {
        try (var l = Files.list(tmp)) {
            return l.filter(p -> p.getFileName().toString().endsWith(RestoreRuns.SUFFIX)).count();
        }
    }
}
