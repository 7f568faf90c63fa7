package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Point reads: get into arrays and buffers, multiGet, empty and oversized keys, slices and buffers as keys,
 * views' byte order, and read options on gets.
 */
class ReadsContractTest extends StoreContract {
    @MatrixTest
    void putThenGetReturnsValue() {
        store.put(b("k"), b("v"));
        assertEquals("v", s(store.get(b("k"))));
        assertEquals(StoreCore.of(store).options.engine, store.engine());
        assertEquals(options().binding, store.binding());
    }

    @MatrixTest
    void getMissingKeyReturnsNull() {
        assertNull(store.get(b("missing")));
        assertEquals(Store.NOT_FOUND, store.get(b("missing"), ByteBuffer.allocateDirect(8)));
    }

    @MatrixTest
    void zeroByteValueIsStoredAndDistinctFromMissing() {
        store.put(b("empty"), new byte[0]);
        assertArrayEquals(new byte[0], store.get(b("empty")));
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            assertEquals(0, c.value().length());
        }
    }

    @MatrixTest
    void emptyKeyFollowsEngineRule() {
        if (allowsEmptyKey()) {
            store.put(new byte[0], b("v"));
            assertEquals("v", s(store.get(new byte[0])));
        } else {
            FerryException e = assertThrows(FerryException.class, () -> store.put(new byte[0], b("v")));
            assertEquals(ErrorCode.KEY_SIZE, e.code());
        }
    }

    @MatrixTest
    void keySizeLimitIsReportedBeforeWriting() {
        int max = maxKeySize();
        if (max < 0) {
            byte[] big = new byte[4096];
            store.put(big, b("v"));
            assertEquals("v", s(store.get(big)));
            return;
        }
        store.put(new byte[max], b("ok"));
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> store.put(new byte[max + 1], b("v")));
        assertEquals(ErrorCode.KEY_SIZE, e.code());
        assertTrue(e.getMessage().contains(String.valueOf(max)), e.getMessage());
    }

    /** Keys and values on either side of the sizes a get's buffers might take (512 B keys, 2 KiB values), as
     * whole arrays, slices and through a snapshot, read back what was written; a bad slice and a dropped family
     * raise. */
    @MatrixTest
    void getsOfKeysAndValuesAroundBufferSizesReadBack() {
        Random r = new Random(35);
        int maxKey = maxKeySize() < 0 ? 4096 : maxKeySize();
        for (int kl : new int[] {1, 16, 511, 512, 513, 4096}) {
            if (kl > maxKey) {
                continue;
            }
            for (int vl : new int[] {0, 1, 2047, 2048, 2049, 70_000}) {
                byte[] k = new byte[kl];
                byte[] v = new byte[vl];
                r.nextBytes(k);
                r.nextBytes(v);
                store.put(k, v);
                assertArrayEquals(v, store.get(k), "key " + kl + " value " + vl);
                byte[] framed = new byte[kl + 3];
                System.arraycopy(k, 0, framed, 2, kl);
                assertArrayEquals(v, store.get(store.defaultColumnFamily(), framed, 2, kl), "slice, key " + kl + " value " + vl);
                try (Snapshot snap = store.snapshot()) {
                    assertArrayEquals(v, snap.get(k), "snapshot, key " + kl + " value " + vl);
                }
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> store.get(store.defaultColumnFamily(), new byte[4], 2, 3));
        ColumnFamily cf = store.createColumnFamily("gone");
        store.put(cf, b("k"), b("v"));
        store.dropColumnFamily(cf);
        assertThrows(IllegalStateException.class, () -> store.get(cf, b("k")));
    }

    @MatrixTest
    void largeValuesRoundTrip() {
        byte[] v = new byte[3 * 1024 * 1024 + 7];
        new Random(1).nextBytes(v);
        store.put(b("big"), v);
        assertArrayEquals(v, store.get(b("big")));
    }

    @MatrixTest
    void sliceAndBufferInputsAreEquivalent() {
        byte[] arr = b("xxkeyxx");
        store.put(store.defaultColumnFamily(), arr, 2, 3, b("--val--"), 2, 3);
        assertEquals("val", s(store.get(b("key"))));
        assertEquals("val", s(store.get(store.defaultColumnFamily(), arr, 2, 3)));
        ByteBuffer dk = ByteBuffer.allocateDirect(16);
        dk.put(b("dkey")).flip();
        ByteBuffer hv = ByteBuffer.wrap(b("heapval"));
        store.put(store.defaultColumnFamily(), dk, hv);
        assertEquals(0, dk.position(), "key buffer not moved");
        assertEquals("heapval", s(store.get(store.defaultColumnFamily(), dk)));
        ByteBuffer bigDirect = ByteBuffer.allocateDirect(40000);
        for (int i = 0; i < 40000; i++) {
            bigDirect.put((byte) i);
        }
        bigDirect.flip();
        store.put(store.defaultColumnFamily(), ByteBuffer.wrap(b("bd")), bigDirect);
        byte[] got = store.get(b("bd"));
        assertEquals(40000, got.length);
        assertEquals((byte) 39999, got[39999]);
        store.delete(store.defaultColumnFamily(), arr, 2, 3);
        assertNull(store.get(b("key")));
    }

    @MatrixTest
    void getIntoBufferReportsFullLengthWhenTooSmall() {
        store.put(b("k"), b("0123456789"));
        ByteBuffer small = ByteBuffer.allocateDirect(4);
        assertEquals(10, store.get(b("k"), small));
        assertEquals(4, small.position());
        assertEquals('3', small.get(3));
        ByteBuffer heap = ByteBuffer.allocate(32);
        heap.position(5);
        assertEquals(10, store.get(b("k"), heap));
        assertEquals(15, heap.position());
        assertEquals("0123456789", new String(heap.array(), 5, 10, StandardCharsets.UTF_8));
    }

    @MatrixTest
    void multiGetReturnsValuesInOrderWithNullsForMissing() {
        byte[] big = new byte[200_000];
        big[199_999] = 42;
        store.put(b("a"), b("1"));
        store.put(b("c"), big);
        store.put(b("d"), new byte[0]);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            keys.add(b(i % 4 == 0 ? "a" : i % 4 == 1 ? "b" : i % 4 == 2 ? "c" : "d"));
        }
        List<byte[]> vals = store.multiGet(keys);
        assertEquals(3000, vals.size());
        for (int i = 0; i < 3000; i++) {
            switch (i % 4) {
                case 0: assertEquals("1", s(vals.get(i))); break;
                case 1: assertNull(vals.get(i)); break;
                case 2: assertEquals(42, vals.get(i)[199_999]); break;
                default: assertEquals(0, vals.get(i).length);
            }
        }
    }

    @MatrixTest
    void viewNumbersAreBigEndianUnlessAnOrderIsGiven() {
        store.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, new byte[] {(byte) 0x80, 0, 0, 1});
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            View k = c.key();
            assertEquals(0x0102030405060708L, k.getLong(0));
            assertEquals(0x02030405, k.getInt(1));
            assertEquals((short) 0x0708, k.getShort(6));
            assertEquals(0x0807060504030201L, k.getLong(0, java.nio.ByteOrder.LITTLE_ENDIAN));
            assertEquals(0x05040302, k.getInt(1, java.nio.ByteOrder.LITTLE_ENDIAN));
            assertEquals((short) 0x0807, k.getShort(6, java.nio.ByteOrder.LITTLE_ENDIAN));
            assertEquals(0x0102030405060708L, k.getLong(0, java.nio.ByteOrder.BIG_ENDIAN));
            assertEquals(0x80000001, c.value().getInt(0));
            ByteBuffer bb = k.asByteBuffer();
            assertEquals(java.nio.ByteOrder.BIG_ENDIAN, bb.order());
            assertEquals(0x0102030405060708L, bb.getLong(0));
            assertEquals(ByteBuffer.wrap(k.toByteArray()).getLong(), k.getLong(0), "as a new ByteBuffer reads it");
            assertThrows(NullPointerException.class, () -> k.getShort(0, null));
        }
    }

    /**
     * get(key, ByteBuffer) writes as a relative ByteBuffer.put does: from the position, which
     * advances by the bytes written; the limit stays; the key buffer does not move; an absent key
     * changes nothing. The same through a snapshot, on heap and direct buffers.
     */
    @MatrixTest
    void getIntoABufferWritesAtItsPositionAdvancesItAndKeepsTheLimit() {
        store.put(b("k"), b("hello"));
        try (Snapshot snap = store.snapshot()) {
            for (boolean direct : new boolean[] {false, true}) {
                for (int via = 0; via < 2; via++) {
                    Snapshot sn = via == 1 ? snap : null;
                    ByteBuffer key = ByteBuffer.wrap(b("xk")).position(1);
                    ByteBuffer into = (direct ? ByteBuffer.allocateDirect(16) : ByteBuffer.allocate(16)).position(3).limit(12);
                    int n = sn == null ? store.get(store.defaultColumnFamily(), key, into)
                            : sn.get(store.defaultColumnFamily(), key, into);
                    String what = (direct ? "direct" : "heap") + (sn == null ? " store" : " snapshot");
                    assertEquals(5, n, what);
                    assertEquals(8, into.position(), what + ": position advanced by the bytes written");
                    assertEquals(12, into.limit(), what + ": limit kept");
                    assertEquals(1, key.position(), what + ": key not moved");
                    byte[] got = new byte[16];
                    into.get(0, got, 0, 12);
                    assertEquals("\0\0\0hello\0\0\0\0", new String(got, 0, 12, StandardCharsets.UTF_8), what);
                    // too small: fills the remaining bytes, reports the full length
                    into.position(9);
                    assertEquals(5, sn == null ? store.get(store.defaultColumnFamily(), key, into)
                            : sn.get(store.defaultColumnFamily(), key, into), what);
                    assertEquals(12, into.position(), what + ": position at the limit");
                    assertEquals("hel", s(Arrays.copyOfRange(bytesOf(into), 9, 12)), what);
                    // absent: nothing changes
                    into.position(4);
                    assertEquals(Store.NOT_FOUND, sn == null ? store.get(store.defaultColumnFamily(), ByteBuffer.wrap(b("no")), into)
                            : sn.get(store.defaultColumnFamily(), ByteBuffer.wrap(b("no")), into), what);
                    assertEquals(4, into.position(), what);
                    assertEquals(12, into.limit(), what);
                }
            }
        }
        ByteBuffer into = ByteBuffer.allocate(8);
        assertEquals(5, store.get(b("k"), into));
        assertEquals(5, into.position());
        assertEquals("hello", s(Arrays.copyOf(into.flip().array(), into.limit())));
    }

    private static byte[] bytesOf(ByteBuffer b) {
        byte[] a = new byte[b.capacity()];
        b.duplicate().clear().get(a);
        return a;
    }

    @MatrixTest
    void viewByteOrderMustNotBeNull() {
        putAll("abcdefgh", "12345678");
        try (Cursor c = store.cursor()) {
            assertTrue(c.first());
            assertThrows(NullPointerException.class, () -> c.key().getInt(0, null));
            assertThrows(NullPointerException.class, () -> c.key().getLong(0, null));
        }
    }

    @MatrixTest
    void readOptionsOnGetsGiveTheSameResults() {
        ColumnFamily cf = store.createColumnFamily("ro");
        for (int i = 0; i < 300; i++) {
            store.put(cf, b("k" + i), b("v" + i));
        }
        store.flush(cf);
        List<ReadOptions> all = List.of(ReadOptions.DEFAULT, ReadOptions.DEFAULT.fillCache(false),
                ReadOptions.DEFAULT.verifyChecksums(false), ReadOptions.DEFAULT.fillCache(false).verifyChecksums(false));
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 320; i += 3) {
            keys.add(b("k" + i));
        }
        List<byte[]> want = store.multiGet(cf, keys);
        try (Snapshot snap = store.snapshot()) {
            store.put(cf, b("k1"), b("changed"));
            for (ReadOptions o : all) {
                assertEquals("changed", s(store.get(cf, b("k1"), o)), o.toString());
                assertEquals("v1", s(snap.get(cf, b("k1"), o)), o.toString());
                assertEquals("v299", s(store.get(cf, b("k299"), o)), o.toString());
                assertNull(store.get(cf, b("k300"), o));
                List<byte[]> got = store.multiGet(cf, keys, o);
                List<byte[]> atSnap = snap.multiGet(cf, keys, o);
                assertEquals(want.size(), got.size());
                for (int i = 0; i < want.size(); i++) {
                    assertArrayEquals(want.get(i), atSnap.get(i), o + " key " + s(keys.get(i)));
                    assertArrayEquals(want.get(i), got.get(i), o + " key " + s(keys.get(i)));
                }
            }
        }
        ReadOptions o = ReadOptions.DEFAULT.fillCache(false).verifyChecksums(false);
        assertFalse(o.fillCache());
        assertFalse(o.verifyChecksums());
        assertEquals(ReadOptions.DEFAULT, o.fillCache(true).verifyChecksums(true));
        assertThrows(NullPointerException.class, () -> store.get(cf, b("k1"), (ReadOptions) null));
        assertThrows(NullPointerException.class, () -> store.multiGet(cf, keys, null));
        assertThrows(NullPointerException.class, () -> store.get(cf, null, o));
        store.close();
        assertThrows(IllegalStateException.class, () -> store.get(cf, b("k1"), o));
        assertThrows(IllegalStateException.class, () -> store.multiGet(cf, keys, o));
        store = Store.open(dir.resolve("db"), options());
    }

    @MatrixTest
    void getWithoutFillCacheLeavesTheBlockCacheAlone() {
        if (options().engine() != Engine.ROCKSDB) {
            return; // LMDB has no block cache (the options have no effect: readOptionsOnGetsGiveTheSameResults)
        }
        store.close();
        store = Store.open(dir.resolve("db"), options().statistics(true).blockCacheSize(8 << 20));
        for (int i = 0; i < 2000; i++) {
            store.put(b(String.format("key%05d", i)), b("value-".repeat(20) + i));
        }
        store.flush();
        long before = store.statistics().ticker("rocksdb.block.cache.add");
        for (int i = 0; i < 2000; i += 50) {
            assertNotNull(store.get(store.defaultColumnFamily(), b(String.format("key%05d", i)), ReadOptions.DEFAULT.fillCache(false)));
        }
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 2000; i += 97) {
            keys.add(b(String.format("key%05d", i)));
        }
        store.multiGet(store.defaultColumnFamily(), keys, ReadOptions.DEFAULT.fillCache(false));
        long untouched = store.statistics().ticker("rocksdb.block.cache.add");
        assertEquals(before, untouched, "reads with fillCache(false) added blocks to the cache");
        for (int i = 0; i < 2000; i += 50) {
            assertNotNull(store.get(b(String.format("key%05d", i))));
        }
        assertTrue(store.statistics().ticker("rocksdb.block.cache.add") > untouched, "default reads fill the cache");
    }
}
