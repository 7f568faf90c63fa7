package dev.ferry.bench.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/** The small data set every adapter must store and give back the same way, and the checks on it. */
final class PeerChecks {
    /** Keys: 4-byte big-endian ints (some with the top bit set), plus longer keys sharing prefixes. */
    final List<byte[]> keys = new ArrayList<>();
    final List<byte[]> values = new ArrayList<>();
    /** The reference: unsigned byte order, as every ordered store must scan. */
    final TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);

    PeerChecks(long seed) {
        Random r = new Random(seed);
        List<Integer> ints = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            ints.add(i);
        }
        for (int i = 0; i < 100; i++) {
            ints.add(0x80000000 + i * 7919); // negative as int: must sort after all the others
        }
        Collections.shuffle(ints, r);
        for (int k : ints) {
            byte[] v = new byte[1 + r.nextInt(120)];
            r.nextBytes(v);
            add(ByteBuffer.allocate(4).putInt(k).array(), v);
        }
        for (int i = 0; i < 200; i++) {
            byte[] k = new byte[5 + r.nextInt(20)];
            r.nextBytes(k);
            k[0] = (byte) (i % 3); // shares prefixes with the int keys 0x00.., 0x01.., 0x02..
            add(k, ByteBuffer.allocate(4).putInt(i).array());
        }
    }

    private void add(byte[] k, byte[] v) {
        if (model.put(k, v) == null) {
            keys.add(k);
            values.add(v);
        }
    }

    /** Writes the data set in batches of 97 entries. */
    void fill(KvStore s) {
        for (int i = 0; i < keys.size(); i += 97) {
            s.write(keys, values, i, Math.min(keys.size(), i + 97));
        }
    }

    /** Every key gives its value; absent keys give null. */
    void checkGets(KvStore s) {
        for (int i = 0; i < keys.size(); i++) {
            assertArrayEquals(values.get(i), s.get(keys.get(i)), () -> s.name() + ": get of an existing key");
        }
        assertNull(s.get(new byte[] {0x7f, 0x7f, 0x7f, 0x7f}), s.name() + ": absent key");
        assertNull(s.get(new byte[] {(byte) 0xff, 0, 0, 0, 0}), s.name() + ": absent key");
    }

    /** The scan gives exactly the model's entries in the model's order, and stops when told. */
    void checkScan(KvStore s) {
        if (!s.ordered()) {
            assertThrows(UnsupportedOperationException.class, () -> s.scan((k, v) -> true));
            return;
        }
        List<Map.Entry<byte[], byte[]>> expected = new ArrayList<>(model.entrySet());
        List<byte[][]> seen = new ArrayList<>();
        long n = s.scan((k, v) -> {
            seen.add(new byte[][] {bytes(k), bytes(v)});
            return true;
        });
        assertEquals(expected.size(), n, s.name() + ": scan count");
        assertEquals(expected.size(), seen.size(), s.name() + ": entries scanned");
        for (int i = 0; i < expected.size(); i++) {
            int at = i;
            assertArrayEquals(expected.get(i).getKey(), seen.get(i)[0], () -> s.name() + ": key at " + at);
            assertArrayEquals(expected.get(i).getValue(), seen.get(i)[1], () -> s.name() + ": value at " + at);
        }
        int[] visits = {0};
        long stopped = s.scan((k, v) -> ++visits[0] < 10);
        assertEquals(10, stopped, s.name() + ": a scan stops at the entry whose visit returns false");
        assertEquals(10, visits[0]);
    }

    /** The reverse scan gives exactly the model's entries in reverse order, and stops when told. */
    void checkScanReverse(KvStore s) {
        if (!s.ordered()) {
            assertThrows(UnsupportedOperationException.class, () -> s.scanReverse((k, v) -> true));
            return;
        }
        List<Map.Entry<byte[], byte[]>> expected = new ArrayList<>(model.descendingMap().entrySet());
        List<byte[][]> seen = new ArrayList<>();
        long n = s.scanReverse((k, v) -> {
            seen.add(new byte[][] {bytes(k), bytes(v)});
            return true;
        });
        assertEquals(expected.size(), n, s.name() + ": reverse scan count");
        assertEquals(expected.size(), seen.size(), s.name() + ": entries scanned in reverse");
        for (int i = 0; i < expected.size(); i++) {
            int at = i;
            assertArrayEquals(expected.get(i).getKey(), seen.get(i)[0], () -> s.name() + ": reverse key at " + at);
            assertArrayEquals(expected.get(i).getValue(), seen.get(i)[1], () -> s.name() + ": reverse value at " + at);
        }
        int[] visits = {0};
        assertEquals(7, s.scanReverse((k, v) -> ++visits[0] < 7), s.name() + ": a reverse scan stops when told");
    }

    /** Storage is reported after close: files for stores that keep them, -1 for in-memory ones. */
    static void checkStorage(KvStore s, boolean onDisk) {
        long b = s.storageBytes();
        if (onDisk) {
            assertTrue(b > 0, s.name() + ": storage bytes " + b);
        } else {
            assertEquals(-1, b, s.name() + ": in memory");
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
