package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * PerfContext ({@link PerfContext}) on every engine x binding: with a counting level, RocksDB reads of the
 * calling thread count key comparisons and block reads by name, a reset zeroes them, another thread's
 * reads and reset leave them alone, the disabled level counts nothing, an unknown name is NotSupported; LMDB
 * operations count nothing.
 */
@Matrix(Target.Slice.ENGINES)
class PerfContextContractTest {
    @TempDir
    Path dir;
    Target target;

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    @AfterEach
    void disable() {
        PerfContext.setLevel(PerfContext.Level.DISABLE);
    }

    private static void readAll(Store s) {
        for (int i = 0; i < 200; i++) {
            s.get(String.format("k%05d", i).getBytes());
        }
    }

    @MatrixTest
    void theCallingThreadsReadsCountByName() throws Exception {
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            for (int i = 0; i < 200; i++) {
                s.put(String.format("k%05d", i).getBytes(), new byte[100]);
            }
            s.flush();
            PerfContext.setLevel(PerfContext.Level.COUNT);
            PerfContext.reset();
            Map<String, Long> zero = PerfContext.counters();
            assertTrue(zero.containsKey("user_key_comparison_count") && zero.containsKey("block_read_count"), zero.toString());
            assertEquals(0, PerfContext.counter("user_key_comparison_count"));
            readAll(s);
            long comparisons = PerfContext.counter("user_key_comparison_count");
            long blocks = PerfContext.counter("block_read_count");
            if (target.engine == Engine.ROCKSDB) {
                assertTrue(comparisons > 0, "200 gets compare keys");
                assertTrue(blocks > 0, "gets from a flushed table file read blocks");
                // another thread's context is its own: its reset and reads leave this thread's counters alone
                long other = CompletableFuture.supplyAsync(() -> {
                    PerfContext.setLevel(PerfContext.Level.COUNT);
                    PerfContext.reset();
                    readAll(s);
                    readAll(s);
                    return PerfContext.counter("user_key_comparison_count");
                }).get();
                assertTrue(other > comparisons, "the other thread counted its own reads: " + other);
                assertEquals(comparisons, PerfContext.counter("user_key_comparison_count"));
            } else {
                assertEquals(0, comparisons, "LMDB counts nothing in RocksDB's PerfContext");
            }
            PerfContext.reset();
            assertEquals(0, PerfContext.counter("user_key_comparison_count"));
            PerfContext.setLevel(PerfContext.Level.DISABLE);
            readAll(s);
            assertEquals(0, PerfContext.counter("user_key_comparison_count"));
            PerfContext.setLevel(PerfContext.Level.TIME);
            readAll(s);
            if (target.engine == Engine.ROCKSDB) {
                assertTrue(PerfContext.counter("user_key_comparison_count") > 0);
            }
            FerryException e = assertThrows(FerryException.NotSupported.class, () -> PerfContext.counter("no_such_counter"));
            assertTrue(e.getMessage().contains("no_such_counter"), e.getMessage());
        }
    }
}
