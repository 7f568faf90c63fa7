package dev.ferry.bench.cannyls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every Ferry backend of the CannyLS reproduction replays the phases correctly on a small data set:
 * what was put is found with its full length, updates keep it found, deleted keys are absent, and the
 * result files are ekvsb's.
 */
class ReplayTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"ferry-rocksdb", "ferry-rocksdb-blob", "ferry-lmdb"})
    void phasesOnEveryBackend(String backend) throws Exception {
        int n = 60;
        int size = 100_000;
        List<Ekvsb.Task> put = Ekvsb.generate(Ekvsb.Method.PUT, n, n, CannyPlan.KEY_SIZE, size, 1, null);
        List<Ekvsb.Task> update = Ekvsb.generate(Ekvsb.Method.PUT, 10, n, CannyPlan.KEY_SIZE, size, 1, 2L);
        List<Ekvsb.Task> get = Ekvsb.generate(Ekvsb.Method.GET, n, n, CannyPlan.KEY_SIZE, 0, 1, 3L);
        List<Ekvsb.Task> delete = Ekvsb.generate(Ekvsb.Method.DELETE, 10, n, CannyPlan.KEY_SIZE, 0, 1, 4L);
        Path db = dir.resolve("db");
        try (Store s = Store.open(db, Replay.options(backend, null, 64L << 20))) {
            List<Ekvsb.Result> r = Replay.replay(s, put, size);
            assertEquals(n, r.size());
            r.forEach(x -> assertNull(x.error(), x.error()));
            assertEquals(10, Replay.replay(s, update, size).stream().filter(x -> x.error() == null).count());
            byte[] v = s.get(put.get(0).key().getBytes());
            assertEquals(size, v.length, "a value is stored whole");
        }
        try (Store s = Store.open(db, Replay.options(backend, null, 64L << 20))) {
            List<Ekvsb.Result> r = Replay.replay(s, get, size);
            Ekvsb.Summary sum = Ekvsb.summarize(r);
            assertEquals(n, sum.exists(), "every key put is found after reopening");
            assertEquals(0, sum.errors());
            Replay.replay(s, delete, size);
            List<String> deleted = new ArrayList<>();
            delete.forEach(t -> deleted.add(t.key()));
            Ekvsb.Summary after = Ekvsb.summarize(Replay.replay(s, get, size));
            assertEquals(n - deleted.size(), after.exists());
            assertEquals(deleted.size(), after.absents());
            // a read buffer smaller than the value is reported, not silently truncated
            List<Ekvsb.Result> small = Replay.replay(s, List.of(get.stream().filter(t -> !deleted.contains(t.key())).findFirst().get()), 10);
            assertEquals(1, Ekvsb.summarize(small).errors());
            assertTrue(small.get(0).error().contains("--max-value"), small.get(0).error());
        }
        Path out = dir.resolve("r.json");
        Ekvsb.writeResults(out, List.of(new Ekvsb.Result(0, "k", Ekvsb.Method.GET, 0, 1e-6, true, null)));
        assertTrue(Files.readString(out).contains("\"exists\":true"));
    }
}
