package dev.ferry.bench.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Every store of the LmdbJava suite ({@link Stores#SUITE}), with the settings the suite runs it with,
 * stores the same small data set and gives back the same entries for the gets, in the same order for the
 * forward scan and in reverse order for the reverse scan (Chronicle Map, a hash map: every key's value and no
 * scans); a held read run ({@code readsBegin}) gives the same values and scans.
 */
class SuitePeerTest {
    static final List<String> SUITE = Stores.SUITE;

    /** The suite's settings per store (as LmdbRun passes them), sized for the small data set. */
    static String spec(String name) {
        return switch (name) {
            case "lmdbjava", "lmdbjni", "lwjgl-lmdb" -> name + ":nosync,writemap,map=67108864";
            case "ferry-lmdb-jni", "ferry-lmdb-ffm" -> name + ":writemap,map=67108864";
            case "rocksjava", "ferry-rocksdb-jni", "ferry-rocksdb-ffm" -> name + ":nocompression";
            case "mapdb" -> name + ":size=1048576";
            case "chronicle" -> name + ":entries=4000";
            default -> name;
        };
    }

    @ParameterizedTest
    @FieldSource("SUITE")
    void everyStoreReturnsTheModelsEntriesInOrderAndReverseOrder(String name, @TempDir Path dir) {
        PeerChecks d = new PeerChecks(18);
        KvStore s = Stores.open(spec(name), dir.resolve("store"), Stores.Servers.NONE);
        try {
            assertEquals(name, s.name());
            d.fill(s);
            d.checkGets(s);
            d.checkScan(s);
            d.checkScanReverse(s);
            s.readsBegin();
            for (int i = 0; i < d.keys.size(); i += 7) {
                assertArrayEquals(d.values.get(i), s.get(d.keys.get(i)), name + ": get in a read run");
            }
            d.checkScan(s); // scans inside a read run (LMDB: one read transaction per thread)
            d.checkScanReverse(s);
            s.readsEnd();
            s.readsEnd(); // idempotent
            byte[] k = d.keys.get(0);
            s.write(List.of(k), List.of(new byte[] {9, 9}), 0, 1);
            assertArrayEquals(new byte[] {9, 9}, s.get(k), name + ": a later batch overwrites");
        } finally {
            s.close();
        }
        s.close(); // idempotent
        PeerChecks.checkStorage(s, true);
    }

    @ParameterizedTest
    @FieldSource("SUITE")
    void appendWritesOfAscendingKeysStoreTheSameEntries(String name, @TempDir Path dir) {
        PeerChecks d = new PeerChecks(19);
        List<byte[]> keys = new java.util.ArrayList<>(d.model.keySet());
        List<byte[]> values = new java.util.ArrayList<>(d.model.values());
        String spec = spec(name) + (spec(name).contains(":") ? ",append" : ":append");
        try (KvStore s = Stores.open(spec, dir.resolve("store"), Stores.Servers.NONE)) {
            for (int i = 0; i < keys.size(); i += 300) {
                s.write(keys, values, i, Math.min(keys.size(), i + 300));
            }
            d.checkGets(s);
            d.checkScan(s);
        }
    }

    /** A batch larger than the adapter's WriteBatch limit goes in as consecutive batches: every entry, once. */
    @ParameterizedTest
    @FieldSource("FERRY")
    void ferryWritesABatchOverItsLimitAsConsecutiveBatches(String name, @TempDir Path dir) {
        PeerChecks d = new PeerChecks(20);
        List<byte[]> keys = new java.util.ArrayList<>(d.model.keySet());
        List<byte[]> values = new java.util.ArrayList<>(d.model.values());
        // a limit of about three entries, and of less than one entry: batches of 2-3 entries, then of 1
        for (long limit : new long[] {3 * (keys.get(0).length + values.get(0).length + 16L), 1}) {
            String spec = spec(name) + (spec(name).contains(":") ? "," : ":") + "batch=" + limit;
            try (KvStore s = Stores.open(spec, dir.resolve("store-" + limit), Stores.Servers.NONE)) {
                s.write(keys, values, 0, keys.size());
                d.checkGets(s);
                d.checkScan(s);
                d.checkScanReverse(s);
            }
        }
    }

    static final List<String> FERRY = List.of("ferry-lmdb-jni", "ferry-lmdb-ffm", "ferry-rocksdb-jni", "ferry-rocksdb-ffm");
}
