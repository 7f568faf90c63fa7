package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractComparator;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ComparatorOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * A family ordered by a {@link JavaComparator} against RocksJava's column family with an
 * {@code org.rocksdb.AbstractComparator} of the same name and order: the same random puts, deletes and range
 * deletes give the same scans (both directions) and seeks, and each library opens the other's store and
 * reads the same entries in the same order. Runs once per binding ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class JavaComparatorDifferentialTest {
    @TempDir
    Path dir;

    static {
        RocksDB.loadLibrary();
    }

    private static final JavaComparatorContractTest.LengthFirst ORDER = new JavaComparatorContractTest.LengthFirst();
    private static final ColumnFamilyOptions FAMILY = ColumnFamilyOptions.of().javaComparator(ORDER);

    /** RocksJava's comparator of the same name and order. */
    static final class RjLengthFirst extends AbstractComparator {
        RjLengthFirst(ComparatorOptions o) {
            super(o);
        }

        @Override public String name() {
            return ORDER.name();
        }

        @Override public int compare(ByteBuffer a, ByteBuffer b) {
            byte[] x = new byte[a.remaining()];
            byte[] y = new byte[b.remaining()];
            a.duplicate().get(x);
            b.duplicate().get(y);
            return ORDER.compare(x, y);
        }
    }

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
            k[i] = (byte) "abc\u00ff".charAt(rnd.nextInt(4));
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

    private static List<String> ferryScan(StoreReader v, ColumnFamily cf, boolean forward) {
        List<String> out = new ArrayList<>();
        try (Cursor c = v.cursor(cf, KeyRange.all(), null)) {
            for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
                out.add(hex(c.keyBytes()) + "=" + hex(c.valueBytes()));
            }
        }
        return out;
    }

    private static List<String> rjScan(RocksDB db, ColumnFamilyHandle h, boolean forward) {
        List<String> out = new ArrayList<>();
        try (RocksIterator it = db.newIterator(h)) {
            if (forward) {
                it.seekToFirst();
            } else {
                it.seekToLast();
            }
            for (; it.isValid(); ) {
                out.add(hex(it.key()) + "=" + hex(it.value()));
                if (forward) {
                    it.next();
                } else {
                    it.prev();
                }
            }
        }
        return out;
    }

    private static List<ColumnFamilyDescriptor> descriptors(org.rocksdb.ColumnFamilyOptions o) {
        return List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY), new ColumnFamilyDescriptor("ordered".getBytes(), o));
    }

    @MatrixTest
    void randomWritesGiveTheSameScansAndSeeksAsRocksJava() throws RocksDBException {
        Random rnd = new Random(4404);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (Store store = Store.open(dir.resolve("ferry"), options());
                ComparatorOptions co = new ComparatorOptions();
                RjLengthFirst cmp = new RjLengthFirst(co);
                org.rocksdb.ColumnFamilyOptions fo = new org.rocksdb.ColumnFamilyOptions().setComparator(cmp);
                DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                RocksDB rj = RocksDB.open(o, dir.resolve("rocksjava").toString(), descriptors(fo), handles)) {
            ColumnFamily cf = store.createColumnFamily("ordered", FAMILY);
            ColumnFamilyHandle h = handles.get(1);
            for (int step = 0; step < 400; step++) {
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
                    if (ORDER.compare(a, e) < 0) { // non-empty in the comparator's order; RocksDB refuses the others
                        rj.deleteRange(h, a, e);
                    }
                }
                if (step % 100 == 99) {
                    store.flush(cf);
                    rj.flush(new org.rocksdb.FlushOptions().setWaitForFlush(true), h);
                }
                if (step % 20 == 0) {
                    assertEquals(rjScan(rj, h, true), ferryScan(store, cf, true), "step " + step);
                    assertEquals(rjScan(rj, h, false), ferryScan(store, cf, false), "step " + step);
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
                    byte[] g = key(rnd);
                    assertEquals(hex(orEmpty(rj.get(h, g))), hex(orEmpty(store.get(cf, g))), "get " + hex(g));
                }
            }
        } finally {
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    private static byte[] orEmpty(byte[] v) {
        return v == null ? new byte[] {'-'} : v;
    }

    @MatrixTest
    void eachLibraryReadsTheOthersFamilyInTheSameOrder() throws RocksDBException {
        Path ferryPath = dir.resolve("ferry");
        Path rjPath = dir.resolve("rocksjava");
        List<String> written;
        try (Store store = Store.open(ferryPath, options())) {
            ColumnFamily cf = store.createColumnFamily("ordered", FAMILY);
            for (int i = 0; i < 300; i++) {
                store.put(cf, Integer.toString(i * 7 % 300).getBytes(), new byte[] {(byte) i});
            }
            store.flush(cf);
            written = ferryScan(store, cf, true);
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (ComparatorOptions co = new ComparatorOptions();
                RjLengthFirst cmp = new RjLengthFirst(co);
                org.rocksdb.ColumnFamilyOptions fo = new org.rocksdb.ColumnFamilyOptions().setComparator(cmp);
                DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)) {
            try (RocksDB rj = RocksDB.open(o, ferryPath.toString(), descriptors(fo), handles)) {
                assertEquals(written, rjScan(rj, handles.get(1), true));
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
                handles.clear();
            }
            try (RocksDB rj = RocksDB.open(o, rjPath.toString(), descriptors(fo), handles)) {
                for (int i = 0; i < 300; i++) {
                    rj.put(handles.get(1), Integer.toString(i * 7 % 300).getBytes(), new byte[] {(byte) i});
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
                handles.clear();
            }
        }
        try (Store store = Store.open(rjPath, options().columnFamily("ordered", FAMILY))) {
            assertEquals(written, ferryScan(store, store.columnFamily("ordered").orElseThrow(), true));
        }
        assertThrows(FerryException.InvalidArgument.class, () -> Store.open(rjPath, options()));
    }
}
