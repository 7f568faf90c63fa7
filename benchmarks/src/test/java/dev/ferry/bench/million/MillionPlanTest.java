package dev.ferry.bench.million;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.bench.store.Stores;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MillionPlanTest {
    @Test
    void publishedSizes() {
        assertEquals(1_000_000, MillionPlan.ENTRIES);
        assertEquals(100_000, MillionPlan.GETS);
        assertEquals(3, MillionPlan.REPEATS);
        assertEquals(1, MillionPlan.Mode.QUICK.rounds());
        assertTrue(MillionPlan.Mode.FULL.rounds() > 1);
    }

    @Test
    void keysAreFourBigEndianBytesAndSortAsTheirInts() {
        assertArrayEquals(new byte[] {1, 2, 3, 4}, MillionPlan.key(0x01020304));
        assertArrayEquals(new byte[] {0, 0x0f, 0x42, 0x3f}, MillionPlan.key(999_999));
        assertTrue(Arrays.compareUnsigned(MillionPlan.key(255), MillionPlan.key(256)) < 0);
        assertTrue(Arrays.compareUnsigned(MillionPlan.key(65_535), MillionPlan.key(999_999)) < 0);
    }

    @Test
    void insertionOrderIsAShuffledPermutationFixedBySeed() {
        int[] a = MillionPlan.insertionOrder(10_000, 7);
        int[] sorted = a.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i]);
        }
        int inPlace = 0;
        for (int i = 0; i < a.length; i++) {
            inPlace += a[i] == i ? 1 : 0;
        }
        assertTrue(inPlace < 100, "random order, not sequential: " + inPlace + " entries in place");
        assertArrayEquals(a, MillionPlan.insertionOrder(10_000, 7));
        assertFalse(Arrays.equals(a, MillionPlan.insertionOrder(10_000, 8)));
    }

    @Test
    void getKeysExistAreTheSameForEverySystemAndDifferPerRepeat() {
        int[] g = MillionPlan.getKeys(1000, 5000, 1, 2, 1);
        assertEquals(5000, g.length);
        assertTrue(Arrays.stream(g).allMatch(k -> k >= 0 && k < 1000));
        assertArrayEquals(g, MillionPlan.getKeys(1000, 5000, 1, 2, 1));
        assertFalse(Arrays.equals(g, MillionPlan.getKeys(1000, 5000, 1, 2, 2)));
        assertFalse(Arrays.equals(g, MillionPlan.getKeys(1000, 5000, 1, 3, 1)));
    }

    @Test
    void roundsRotateSoEverySystemRunsOnceInEveryPlace() {
        List<String> s = List.of("a", "b", "c");
        List<MillionPlan.Run> runs = MillionPlan.runs(s, 3);
        assertEquals(9, runs.size());
        for (String x : s) {
            Set<Integer> places = new HashSet<>();
            for (MillionPlan.Run r : runs) {
                if (r.system().equals(x)) {
                    places.add(r.position());
                }
            }
            assertEquals(Set.of(1, 2, 3), places, x);
        }
        for (int round = 1; round <= 3; round++) {
            int rr = round;
            assertEquals(Set.copyOf(s), Set.copyOf(runs.stream().filter(r -> r.round() == rr).map(MillionPlan.Run::system).toList()));
        }
        assertEquals("b", runs.get(3).system());
        assertThrows(IllegalArgumentException.class, () -> MillionPlan.runs(s, 0));
    }

    @Test
    void everyPublishedSystemKeepsItsRowAndEveryRunnableOneHasAnAdapter() {
        Set<String> notRun = new HashSet<>();
        for (MillionPlan.System x : MillionPlan.SYSTEMS) {
            if (!x.runs()) {
                notRun.add(x.name());
            }
        }
        assertEquals(Set.of("bergdb", "mongodb", "riak"), notRun);
        Set<String> adapters = new HashSet<>(Stores.EMBEDDED);
        adapters.add("mariadb");
        assertEquals(adapters, Set.copyOf(MillionPlan.runnable()));
    }

    @Test
    void measureLoadsEveryEntryAndTimesThreeRepeats(@TempDir Path dir) {
        for (String system : List.of("treemap", "ferry-lmdb-jni", "ferry-rocksdb-ffm")) {
            MillionRun.Measured m = MillionRun.measure(system, dir.resolve(system), Stores.Servers.NONE, 3000, 500, 1);
            assertEquals(MillionPlan.REPEATS, m.getMicros().length, system);
            assertTrue(Arrays.stream(m.getMicros()).allMatch(u -> u > 0), system);
            assertEquals(Arrays.stream(m.getMicros()).min().orElseThrow(), m.bestMicros(), system);
            assertEquals(system.equals("treemap"), m.storageBytes() < 0, system);
        }
    }
}
