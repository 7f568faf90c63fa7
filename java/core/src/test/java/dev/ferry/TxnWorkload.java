package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Random transactions over one family for the differential tests: each transaction puts and
 * deletes keys, reads its own writes back, and commits or rolls back. The model keeps what
 * committed; {@link #overlay} what the open transaction wrote.
 */
final class TxnWorkload {
    /** One transaction: its ops (value null = delete) and whether it commits. */
    record Txn(List<Map.Entry<byte[], byte[]>> ops, boolean commit) { }

    /** What the library under test does with one transaction. */
    interface Runner {
        void begin() throws Exception;

        void put(byte[] k, byte[] v) throws Exception;

        void delete(byte[] k) throws Exception;

        byte[] get(byte[] k) throws Exception;

        void end(boolean commit) throws Exception;
    }

    final TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
    private final Random rnd;

    TxnWorkload(long seed) {
        rnd = new Random(seed);
    }

    List<Txn> next(int n) {
        List<Txn> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            List<Map.Entry<byte[], byte[]>> ops = new ArrayList<>();
            int m = 1 + rnd.nextInt(20);
            for (int j = 0; j < m; j++) {
                byte[] k = String.format("k%03d", rnd.nextInt(200)).getBytes(StandardCharsets.UTF_8);
                byte[] v = null;
                if (rnd.nextInt(4) != 0) {
                    v = new byte[1 + rnd.nextInt(300)];
                    rnd.nextBytes(v);
                }
                ops.add(new java.util.AbstractMap.SimpleEntry<>(k, v));
            }
            out.add(new Txn(ops, rnd.nextInt(5) != 0));
        }
        return out;
    }

    /** Runs the transactions through r, checking read-your-writes, and records what committed. */
    void apply(List<Txn> txns, Runner r, String what) throws Exception {
        for (Txn t : txns) {
            TreeMap<byte[], byte[]> overlay = new TreeMap<>(model.comparator());
            overlay.putAll(model);
            r.begin();
            for (Map.Entry<byte[], byte[]> op : t.ops()) {
                if (op.getValue() == null) {
                    r.delete(op.getKey());
                    overlay.remove(op.getKey());
                } else {
                    r.put(op.getKey(), op.getValue());
                    overlay.put(op.getKey(), op.getValue());
                }
                assertArrayEquals(overlay.get(op.getKey()), r.get(op.getKey()), what + ": read-your-writes");
            }
            r.end(t.commit());
            if (t.commit()) {
                model.clear();
                model.putAll(overlay);
            }
        }
    }

    /** Checks a full forward listing against the model. */
    void check(List<Map.Entry<byte[], byte[]>> entries, String what) {
        assertEquals(model.size(), entries.size(), what + ": entry count");
        int i = 0;
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getKey(), entries.get(i).getKey(), what + ": key #" + i);
            assertArrayEquals(e.getValue(), entries.get(i).getValue(), what + ": value #" + i);
            i++;
        }
    }

    /** Runs transactions through a Ferry store. */
    static Runner ferry(Store store) {
        return new Runner() {
            Transaction txn;

            @Override public void begin() { txn = store.beginTransaction(); }
            @Override public void put(byte[] k, byte[] v) { txn.put(k, v); }
            @Override public void delete(byte[] k) { txn.delete(k); }
            @Override public byte[] get(byte[] k) { return txn.get(k); }

            @Override
            public void end(boolean commit) {
                try (Transaction t = txn) {
                    if (commit) {
                        t.commit();
                    }
                }
            }
        };
    }

    /** Everything a Ferry store holds in its default family, through a cursor of a transaction too. */
    static List<Map.Entry<byte[], byte[]>> ferryEntries(Store store) {
        List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
        try (Transaction txn = store.beginTransaction(); Cursor c = txn.cursor(KeyRange.all())) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                out.add(new java.util.AbstractMap.SimpleEntry<>(c.keyBytes(), c.valueBytes()));
            }
        }
        return out;
    }
}
