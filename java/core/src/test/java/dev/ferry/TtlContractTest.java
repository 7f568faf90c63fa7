package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * TTL families ({@link ColumnFamilyOptions#ttl(long, int)}, issue 44 item 2): values carrying a big-endian
 * millisecond timestamp at a chosen offset are hidden from every read once expired on the store's TTL
 * clock ({@link Store#setTtlClock(long)}), and dropped by compactions; values without a timestamp stay;
 * the TTL holds again after a reopen with the family's options. LMDB refuses TTL families and the clock.
 * On every engine x binding x transaction mode.
 */
class TtlContractTest extends StoreContract {
    private static byte[] stamped(int pad, long ts, String tail) {
        ByteBuffer b = ByteBuffer.allocate(pad + 8 + tail.length());
        for (int i = 0; i < pad; i++) {
            b.put((byte) 'p');
        }
        return b.putLong(ts).put(b(tail)).array();
    }

    private static List<String> keysOf(ReadView v, ColumnFamily cf) {
        List<String> out = new ArrayList<>();
        try (Cursor c = v.cursor(cf, KeyRange.all(), null)) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                out.add(s(c.keyBytes()));
            }
        }
        return out;
    }

    @MatrixTest
    void lmdbRefusesTtlFamiliesAndTheClock() {
        if (!lmdb()) {
            return;
        }
        assertThrows(FerryException.NotSupported.class,
                () -> store.createColumnFamily("t", ColumnFamilyOptions.of().ttl(1000, 0)));
        assertThrows(FerryException.NotSupported.class, () -> store.setTtlClock(5));
    }

    @MatrixTest
    void ttlSettersCheckTheirRanges() {
        assertThrows(IllegalArgumentException.class, () -> ColumnFamilyOptions.of().ttl(0, 0));
        assertThrows(IllegalArgumentException.class, () -> ColumnFamilyOptions.of().ttl(10, -1));
        assertThrows(IllegalArgumentException.class, () -> ColumnFamilyOptions.of().ttl(10, 65537));
        ColumnFamilyOptions o = ColumnFamilyOptions.of().ttl(10, 1);
        assertEquals(10, o.ttlMillis().getAsLong());
        assertEquals(1, o.ttlTimestampOffset().getAsInt());
        assertEquals(o, ColumnFamilyOptions.of().ttl(10, 1));
    }

    @MatrixTest
    void expiredValuesAreHiddenFromEveryReadAndDroppedByCompaction() {
        if (lmdb()) {
            return;
        }
        ColumnFamily t = store.createColumnFamily("t", ColumnFamilyOptions.of().ttl(1000, 0));
        ColumnFamily m = store.createColumnFamily("m", ColumnFamilyOptions.of().ttl(500, 1)); // Flink's map state layout
        store.setTtlClock(10_000);
        store.put(t, b("k1"), stamped(0, 9_500, "live"));
        store.put(t, b("k2"), stamped(0, 9_000, "dead")); // expires at 10 000: now
        store.put(t, b("k3"), b("short")); // no timestamp: never expires
        store.put(m, b("a"), stamped(1, 9_600, "x"));
        store.put(m, b("b"), stamped(1, 9_400, "x"));
        assertArrayEquals(stamped(0, 9_500, "live"), store.get(t, b("k1")));
        assertNull(store.get(t, b("k2")));
        assertArrayEquals(b("short"), store.get(t, b("k3")));
        assertNull(store.get(m, b("b")));
        assertEquals(List.of("a"), keysOf(store, m));
        List<byte[]> got = store.multiGet(t, List.of(b("k1"), b("k2"), b("k3")));
        assertNull(got.get(1));
        assertEquals(List.of("k1", "k3"), keysOf(store, t));
        try (Snapshot snap = store.snapshot()) {
            assertEquals(List.of("k1", "k3"), keysOf(snap, t));
            assertNull(snap.get(t, b("k2")));
        }
        if (target.mode != TransactionMode.NONE) {
            try (Transaction x = store.beginTransaction()) {
                assertNull(x.get(t, b("k2")));
                assertNull(x.getForUpdate(t, b("k2")));
                assertEquals(List.of("k1", "k3"), keysOf(x, t));
            }
        }
        store.setTtlClock(0); // hidden, not gone
        assertEquals(List.of("k1", "k2", "k3"), keysOf(store, t));
        store.setTtlClock(10_000);
        store.flush(t);
        store.compactRange(t, null, null);
        store.setTtlClock(0);
        assertEquals(List.of("k1", "k3"), keysOf(store, t)); // the compaction dropped k2
        store.setTtlClock(-1); // the wall clock: everything stamped in 1970 has expired
        assertEquals(List.of("k3"), keysOf(store, t));
        long now = System.currentTimeMillis();
        store.put(t, b("k4"), stamped(0, now, "fresh"));
        assertEquals(List.of("k3", "k4"), keysOf(store, t));
    }

    @MatrixTest
    void aReopenWithTheFamilysTtlKeepsItsExpiry() {
        if (lmdb()) {
            return;
        }
        ColumnFamilyOptions o = ColumnFamilyOptions.of().ttl(1000, 0);
        ColumnFamily t = store.createColumnFamily("t", o);
        store.put(t, b("k"), stamped(0, 5_000, "v"));
        store.close();
        store = Store.open(dir.resolve("db"), options().columnFamily("t", o));
        ColumnFamily again = store.columnFamily("t").orElseThrow();
        assertNull(store.get(again, b("k"))); // 1970 on the wall clock
        store.setTtlClock(5_500);
        assertEquals(List.of("k"), keysOf(store, again));
        assertEquals(Arrays.toString(stamped(0, 5_000, "v")), Arrays.toString(store.get(again, b("k"))));
    }
}
