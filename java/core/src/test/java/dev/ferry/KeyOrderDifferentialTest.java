package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BuiltinComparator;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A {@link KeyOrder#REVERSE_BYTEWISE} family against RocksJava's column family with
 * {@code BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR}: the same random puts, deletes and range
 * deletes on both give the same scans (whole, bounded, both directions) and seeks; each library opens
 * the other's store and reads the same entries in the same order; and opening either's family with
 * the other comparator fails in both. Runs once per binding ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class KeyOrderDifferentialTest {
    @TempDir
    Path dir;

    static {
        RocksDB.loadLibrary();
    }

    private static final ColumnFamilyOptions REV = ColumnFamilyOptions.of().keyOrder(KeyOrder.REVERSE_BYTEWISE);

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    private StoreOptions options() {
        return StoreOptions.rocksdb().binding(target.binding);
    }

    private static byte[] key(Random rnd) {
        byte[] k = new byte[1 + rnd.nextInt(3)];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) "abc\u00ff".charAt(rnd.nextInt(4)); // 0xff: unsigned order matters
        }
        return k;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    private static List<String> ferryScan(ReadView v, ColumnFamily cf, KeyRange r, boolean forward) {
        List<String> out = new ArrayList<>();
        try (Cursor c = v.cursor(cf, r, null)) {
            for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
                out.add(hex(c.keyBytes()) + "=" + hex(c.valueBytes()));
            }
        }
        return out;
    }

    private static List<String> rjScan(RocksDB db, ColumnFamilyHandle h, byte[] lower, byte[] upper, boolean forward) {
        List<String> out = new ArrayList<>();
        try (org.rocksdb.ReadOptions ro = new org.rocksdb.ReadOptions();
                Slice lo = lower == null ? null : new Slice(lower);
                Slice up = upper == null ? null : new Slice(upper)) {
            if (lo != null) {
                ro.setIterateLowerBound(lo);
            }
            if (up != null) {
                ro.setIterateUpperBound(up);
            }
            try (RocksIterator it = db.newIterator(h, ro)) {
                for (if0(it, forward); it.isValid(); step(it, forward)) {
                    out.add(hex(it.key()) + "=" + hex(it.value()));
                }
            }
        }
        return out;
    }

    private static void if0(RocksIterator it, boolean forward) {
        if (forward) {
            it.seekToFirst();
        } else {
            it.seekToLast();
        }
    }

    private static void step(RocksIterator it, boolean forward) {
        if (forward) {
            it.next();
        } else {
            it.prev();
        }
    }

    private static List<ColumnFamilyDescriptor> descriptors(org.rocksdb.ColumnFamilyOptions rev) {
        return List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY), new ColumnFamilyDescriptor("rev".getBytes(), rev));
    }

    @MatrixTest
    void randomWritesGiveTheSameScansAsRocksJava() throws RocksDBException {
        Random rnd = new Random(4402);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (Store store = Store.open(dir.resolve("ferry"), options());
                org.rocksdb.ColumnFamilyOptions rev = new org.rocksdb.ColumnFamilyOptions()
                        .setComparator(BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR);
                DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB rj = RocksDB.open(o, dir.resolve("rocksjava").toString(), descriptors(rev), handles)) {
            ColumnFamily cf = store.createColumnFamily("rev", REV);
            ColumnFamilyHandle h = handles.get(1);
            for (int step = 0; step < 600; step++) {
                byte[] a = key(rnd);
                int op = rnd.nextInt(10);
                if (op < 6) {
                    byte[] v = key(rnd);
                    store.put(cf, a, v);
                    rj.put(h, a, v);
                } else if (op < 8) {
                    store.delete(cf, a);
                    rj.delete(h, a);
                } else {
                    byte[] e = key(rnd);
                    store.deleteRange(cf, a, e);
                    if (Arrays.compareUnsigned(a, e) > 0) { // non-empty in reverse order; RocksDB refuses the others
                        rj.deleteRange(h, a, e);
                    }
                }
                if (step % 100 == 99) {
                    store.flush(cf);
                    rj.flush(new org.rocksdb.FlushOptions().setWaitForFlush(true), h);
                }
                if (step % 20 == 0) {
                    assertEquals(rjScan(rj, h, null, null, true), ferryScan(store, cf, KeyRange.all(), true), "step " + step);
                    byte[] lo = key(rnd);
                    byte[] up = key(rnd);
                    KeyRange r = KeyRange.closedOpen(lo, up);
                    if (Arrays.compareUnsigned(lo, up) > 0) { // RocksDB needs lower before upper in its order
                        assertEquals(rjScan(rj, h, lo, up, true), ferryScan(store, cf, r, true), "range " + r);
                        assertEquals(rjScan(rj, h, lo, up, false), ferryScan(store, cf, r, false), "range " + r);
                    } else {
                        assertEquals(List.of(), ferryScan(store, cf, r, true), "empty range " + r);
                    }
                    assertEquals(rjScan(rj, h, lo, null, true), ferryScan(store, cf, KeyRange.atLeast(lo), true));
                    assertEquals(rjScan(rj, h, null, up, false), ferryScan(store, cf, KeyRange.lessThan(up), false));
                    byte[] s = key(rnd);
                    try (Cursor c = store.cursor(cf, KeyRange.all(), null); RocksIterator it = rj.newIterator(h)) {
                        it.seek(s);
                        assertEquals(it.isValid(), c.seek(s), "seek " + hex(s));
                        if (it.isValid()) {
                            assertEquals(hex(it.key()), hex(c.keyBytes()), "seek " + hex(s));
                        }
                        it.seekForPrev(s);
                        assertEquals(it.isValid(), c.seekForPrev(s), "seekForPrev " + hex(s));
                        if (it.isValid()) {
                            assertEquals(hex(it.key()), hex(c.keyBytes()), "seekForPrev " + hex(s));
                        }
                    }
                }
            }
            assertEquals(rjScan(rj, h, null, null, false), ferryScan(store, cf, KeyRange.all(), false));
        } finally {
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    @MatrixTest
    void eachLibraryReadsTheOthersReverseFamilyInTheSameOrder() throws RocksDBException {
        Path ferryPath = dir.resolve("ferry");
        Path rjPath = dir.resolve("rocksjava");
        List<String> written;
        try (Store store = Store.open(ferryPath, options())) {
            ColumnFamily cf = store.createColumnFamily("rev", REV);
            for (int i = 0; i < 300; i++) {
                store.put(cf, String.format("k%05d", i * 7 % 300).getBytes(), new byte[] {(byte) i});
            }
            written = ferryScan(store, cf, KeyRange.all(), true);
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (org.rocksdb.ColumnFamilyOptions rev = new org.rocksdb.ColumnFamilyOptions()
                        .setComparator(BuiltinComparator.REVERSE_BYTEWISE_COMPARATOR);
                DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            try (RocksDB rj = RocksDB.open(o, ferryPath.toString(), descriptors(rev), handles)) {
                assertEquals(written, rjScan(rj, handles.get(1), null, null, true));
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
                handles.clear();
            }
            try (RocksDB rj = RocksDB.open(o, rjPath.toString(), descriptors(rev), handles)) {
                for (int i = 0; i < 300; i++) {
                    rj.put(handles.get(1), String.format("k%05d", i * 7 % 300).getBytes(), new byte[] {(byte) i});
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
                handles.clear();
            }
            try (org.rocksdb.ColumnFamilyOptions plain = new org.rocksdb.ColumnFamilyOptions()) {
                assertThrows(RocksDBException.class, () -> RocksDB.open(o, ferryPath.toString(), descriptors(plain), handles));
            }
        }
        try (Store store = Store.open(rjPath, options().columnFamily("rev", REV))) {
            assertEquals(written, ferryScan(store, store.columnFamily("rev").orElseThrow(), KeyRange.all(), true));
        }
        assertThrows(FerryException.InvalidArgument.class, () -> Store.open(rjPath, options()));
    }
}
