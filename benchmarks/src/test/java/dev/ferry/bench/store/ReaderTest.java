package dev.ferry.bench.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.StoreOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteOptions;

/**
 * db_bench's side of {@link KvStore}: Ferry on each binding and RocksJava in each loop style, opened as
 * db_bench opens them, write with put and batches and read back the same through their per-thread
 * readers (gets, multi-gets, seeks, scans both ways with a limit).
 */
class ReaderTest {
    private static final int N = 500;

    private static byte[] key(int i) {
        return String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
    }

    private static KvStore open(String api, Path dir) {
        return switch (api) {
            case "ferry-jni", "ferry-ffm" -> FerryPeer.openForDbBench(api.substring(6), dir, StoreOptions.rocksdb(), false);
            default -> {
                Options o = new Options().setCreateIfMissing(true);
                RocksJavaPeer.Style style = switch (api) {
                    case "rocksjava" -> RocksJavaPeer.Style.BYTES;
                    case "rocksjava-reuse" -> RocksJavaPeer.Style.REUSE;
                    default -> RocksJavaPeer.Style.DIRECT;
                };
                yield RocksJavaPeer.openForDbBench(style, dir, o, null, o, new WriteOptions(), new ReadOptions());
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"ferry-jni", "ferry-ffm", "rocksjava", "rocksjava-reuse", "rocksjava-direct"})
    void readersReadWhatPutsAndBatchesWrote(String api, @TempDir Path dir) {
        byte[] values = new byte[N + 100];
        for (int i = 0; i < values.length; i++) {
            values[i] = (byte) i;
        }
        try (KvStore s = open(api, dir.resolve("db"))) {
            assertEquals(api.startsWith("ferry") ? "ferry-rocksdb-" + api.substring(6) : api, s.name());
            List<byte[]> ks = new ArrayList<>();
            List<byte[]> vs = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                if (i % 2 == 0) {
                    s.put(key(i), values, i, 10 + i % 7);
                } else {
                    ks.add(key(i));
                    vs.add(java.util.Arrays.copyOfRange(values, i, i + 10 + i % 7));
                }
            }
            s.write(ks, vs, 0, ks.size());
            assertArrayEquals(java.util.Arrays.copyOfRange(values, 3, 16), s.get(key(3)), "get of a batched entry");
            long all = 0;
            for (int i = 0; i < N; i++) {
                all += key(i).length + 10 + i % 7;
            }
            try (KvStore.Reader r = s.reader()) {
                assertEquals(10 + 42 % 7, r.get(key(42)));
                assertEquals(-1, r.get("absent".getBytes(StandardCharsets.US_ASCII)));
                long[] bytes = new long[1];
                byte[][] mk = {key(1), key(2), "nope".getBytes(StandardCharsets.US_ASCII), key(499)};
                assertEquals(3, r.multiGet(mk, 4, bytes));
                assertEquals(key(1).length * 3L + 10 + 1 + 10 + 2 + 10 + 499 % 7, bytes[0]);
                bytes[0] = 0;
                assertTrue(r.seek(key(10), 3, bytes));
                assertEquals(3L * key(0).length + 10 + 3 + 10 + 4 + 10 + 5, bytes[0]);
                assertFalse(r.seek("key00000010x".getBytes(StandardCharsets.US_ASCII), 0, new long[1]));
                long[] counted = new long[1];
                assertEquals(all, r.scan(false, Long.MAX_VALUE, () -> counted[0]++));
                assertEquals(N, counted[0]);
                counted[0] = 0;
                assertEquals(key(0).length + 10 + 499 % 7 + key(0).length + 10 + 498 % 7, r.scan(true, 2, () -> counted[0]++));
                assertEquals(2, counted[0]);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"treemap", "lmdbjava"})
    void storesWithoutReaderSaySo(String name, @TempDir Path dir) {
        try (KvStore s = Stores.open(name, dir.resolve("s"), Stores.Servers.NONE)) {
            assertThrows(UnsupportedOperationException.class, s::reader);
            assertTrue(s.property("rocksdb.stats").isEmpty());
            s.put(key(1), new byte[] {9, 8, 7}, 1, 2);
            assertArrayEquals(new byte[] {8, 7}, s.get(key(1)));
        }
    }
}
