package dev.ferry.rocksjava;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.ColumnFamily;
import dev.ferry.Cursor;
import dev.ferry.KeyRange;
import dev.ferry.Matrix;
import dev.ferry.MatrixTest;
import dev.ferry.Store;
import dev.ferry.StoreOptions;
import dev.ferry.Target;
import dev.ferry.WriteBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Snapshot;

/**
 * The RocksJava interop contract, run once per binding ({@link Target.Slice#ROCKSDB}): Ferry cursors and
 * point calls over RocksJava's own objects must see exactly what RocksJava sees (differential tests on
 * random workloads), and misuse with closed RocksJava objects must throw, never crash.
 *
 * <p>RocksInterop takes no binding: it uses the class path's default one, which is the binding of the
 * run's targets ({@link Target#underTest}). A run told to take both ({@code -Dferry.test.bindings=jni,ffm})
 * fails {@code runsOnTheExpectedBinding} on the binding that is not the default.
 */
@Matrix(Target.Slice.ROCKSDB)
class RocksInteropTest {
    @TempDir
    Path dir;
    DBOptions dbOptions;
    RocksDB db;
    ColumnFamilyHandle dflt;
    ColumnFamilyHandle other;
    final List<ColumnFamilyHandle> handles = new ArrayList<>();

    Target target;

    /** @return the binding this run tests: "jni" or "ffm" */
    String expectedBinding() {
        return target.binding;
    }

    @BeforeEach
    void openDb(Target t) throws RocksDBException {
        target = t;
        RocksDB.loadLibrary();
        dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        List<ColumnFamilyDescriptor> cfs = List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(b("other")));
        db = RocksDB.open(dbOptions, dir.resolve("db").toString(), cfs, handles);
        dflt = handles.get(0);
        other = handles.get(1);
    }

    @AfterEach
    void closeDb() {
        for (ColumnFamilyHandle h : handles) {
            h.close();
        }
        db.close();
        dbOptions.close();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** An entry as "key=value" in hex-free form for readable diffs. */
    static String e(byte[] k, byte[] v) {
        return Arrays.toString(k) + "=" + v.length + ":" + Arrays.hashCode(v);
    }

    // ---- reference: RocksJava ----

    /** Every entry of a family through RocksJava, in order, filtered by the range. */
    List<String> rocksJava(ColumnFamilyHandle cf, Snapshot snap, KeyRange range, boolean forward) {
        List<String> r = new ArrayList<>();
        try (ReadOptions ro = new ReadOptions().setSnapshot(snap); RocksIterator it = db.newIterator(cf, ro)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                if (range.contains(it.key())) {
                    r.add(e(it.key(), it.value()));
                }
            }
        }
        if (!forward) {
            Collections.reverse(r);
        }
        return r;
    }

    static List<String> drain(Cursor c, boolean forward) {
        List<String> r = new ArrayList<>();
        for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
            r.add(e(c.keyBytes(), c.valueBytes()));
        }
        return r;
    }

    /** Random keys from a small space (so writes overwrite), some with 0xFF bytes and empty. */
    static byte[] randomKey(Random rnd) {
        int n = rnd.nextInt(400);
        if (n == 0) {
            return new byte[0];
        }
        byte[] k = String.format("k%03d", n).getBytes(StandardCharsets.UTF_8);
        if (n % 7 == 0) {
            k = Arrays.copyOf(k, k.length + 1);
            k[k.length - 1] = (byte) 0xFF;
        }
        return k;
    }

    static byte[] randomValue(Random rnd) {
        int n = rnd.nextInt(50) == 0 ? 70_000 + rnd.nextInt(40_000) : rnd.nextInt(300);
        byte[] v = new byte[n];
        rnd.nextBytes(v);
        return v;
    }

    List<KeyRange> ranges(Random rnd) {
        List<KeyRange> r = new ArrayList<>();
        r.add(KeyRange.all());
        r.add(KeyRange.prefix(b("k1")));
        r.add(KeyRange.atLeast(b("k2")));
        r.add(KeyRange.lessThan(b("k050")));
        for (int i = 0; i < 3; i++) {
            byte[] a = randomKey(rnd);
            byte[] z = randomKey(rnd);
            if (Arrays.compareUnsigned(a, z) > 0) {
                byte[] t = a;
                a = z;
                z = t;
            }
            r.add(KeyRange.closed(a, z));
        }
        r.add(KeyRange.closedOpen(b("k3"), b("k3"))); // empty
        return r;
    }

    /** Random puts (overwrites), deletes and range deletes through RocksJava on both families. */
    void randomWrites(Random rnd, int n) throws RocksDBException {
        for (int i = 0; i < n; i++) {
            ColumnFamilyHandle cf = rnd.nextBoolean() ? dflt : other;
            int op = rnd.nextInt(10);
            if (op < 7) {
                db.put(cf, randomKey(rnd), randomValue(rnd));
            } else if (op < 9) {
                db.delete(cf, randomKey(rnd));
            } else {
                byte[] a = randomKey(rnd);
                db.deleteRange(cf, a, Arrays.copyOf(a, a.length + 1));
            }
        }
    }

    void assertSameAsRocksJava(Random rnd, Snapshot snap) {
        for (ColumnFamilyHandle cf : handles) {
            for (KeyRange range : ranges(rnd)) {
                for (boolean forward : new boolean[] {true, false}) {
                    List<String> expected = rocksJava(cf, snap, range, forward);
                    try (Cursor c = RocksInterop.cursor(db, cf, snap, range)) {
                        assertEquals(expected, drain(c, forward), () -> range + (forward ? " forward" : " reverse"));
                    }
                }
            }
        }
    }

    // ---- tests ----

    @MatrixTest
    void runsOnTheExpectedBinding() {
        assertEquals(expectedBinding(), RocksInterop.binding());
    }

    @MatrixTest
    void cursorsSeeWhatRocksJavaSeesInMemtableAndFiles() throws RocksDBException {
        Random rnd = new Random(42);
        randomWrites(rnd, 1500);
        assertSameAsRocksJava(rnd, null);                 // memtable only
        try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            db.flush(fo, handles);
        }
        randomWrites(rnd, 800);                            // overwrites and deletes over the files
        assertSameAsRocksJava(rnd, null);
        db.compactRange(dflt);
        assertSameAsRocksJava(rnd, null);
    }

    @MatrixTest
    void cursorsReadTheirSnapshot() throws RocksDBException {
        Random rnd = new Random(7);
        randomWrites(rnd, 1000);
        Snapshot snap = db.getSnapshot();
        try {
            List<String> before = rocksJava(other, snap, KeyRange.all(), true);
            randomWrites(rnd, 1000);
            try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                db.flush(fo, handles);
            }
            assertSameAsRocksJava(rnd, snap);
            try (Cursor c = RocksInterop.cursor(db, other, snap, KeyRange.all())) {
                assertEquals(before, drain(c, true));
            }
        } finally {
            db.releaseSnapshot(snap);
            snap.close();
        }
    }

    @MatrixTest
    void seeksMatchRocksJava() throws RocksDBException {
        Random rnd = new Random(3);
        randomWrites(rnd, 1000);
        try (Cursor c = RocksInterop.cursor(db); RocksIterator it = db.newIterator()) {
            for (int i = 0; i < 300; i++) {
                byte[] k = randomKey(rnd);
                boolean back = rnd.nextBoolean();
                if (back) {
                    it.seekForPrev(k);
                } else {
                    it.seek(k);
                }
                boolean ok = back ? c.seekForPrev(k) : c.seek(k);
                assertEquals(it.isValid(), ok);
                for (int step = 0; ok && step < 5; step++) {
                    assertArrayEquals(it.key(), c.keyBytes());
                    assertArrayEquals(it.value(), c.valueBytes());
                    boolean fwd = rnd.nextBoolean();
                    if (fwd) {
                        it.next();
                    } else {
                        it.prev();
                    }
                    ok = fwd ? c.next() : c.prev();
                    assertEquals(it.isValid(), ok);
                }
            }
        }
    }

    @MatrixTest
    void wrappedIteratorContinuesFromItsPosition() throws RocksDBException {
        for (int i = 0; i < 100; i++) {
            db.put(b(String.format("k%03d", i)), b("v" + i));
        }
        try (RocksIterator it = db.newIterator()) {
            it.seek(b("k040"));
            try (Cursor c = RocksInterop.wrap(it)) {
                for (int i = 40; i < 50; i++) {
                    assertTrue(c.next());
                    assertEquals(String.format("k%03d", i), s(c.keyBytes()));
                    assertEquals("v" + i, s(c.valueBytes()));
                }
            }
            // RocksJava continues: the iterator stands on Ferry's last entry
            assertTrue(it.isValid());
            assertEquals("k049", s(it.key()));
            it.next();
            assertEquals("k050", s(it.key()));
            // again in reverse
            try (Cursor c = RocksInterop.wrap(it)) {
                assertTrue(c.prev());
                assertEquals("k050", s(c.keyBytes()));
                assertTrue(c.prev());
                assertEquals("k049", s(c.keyBytes()));
            }
            assertEquals("k049", s(it.key()));
            it.prev();
            assertEquals("k048", s(it.key()));
            // a wrapped cursor that runs off the end leaves the iterator invalid
            try (Cursor c = RocksInterop.wrap(it)) {
                int n = 0;
                while (c.next()) {
                    n++;
                }
                assertEquals(52, n);
            }
            assertFalse(it.isValid());
            it.seekToFirst();
            assertEquals("k000", s(it.key()));
        }
    }

    @MatrixTest
    void wrappedIteratorKeepsItsOwnReadOptions() throws RocksDBException {
        for (int i = 0; i < 100; i++) {
            db.put(other, b(String.format("k%03d", i)), b("v" + i));
        }
        Snapshot snap = db.getSnapshot();
        db.put(other, b("k010a"), b("after the snapshot"));
        try (Slice upper = new Slice(b("k020"));
                ReadOptions ro = new ReadOptions().setIterateUpperBound(upper).setSnapshot(snap);
                RocksIterator it = db.newIterator(other, ro)) {
            it.seekToFirst();
            it.next();
            List<String> keys = new ArrayList<>();
            try (Cursor c = RocksInterop.wrap(it)) {
                while (c.next()) {
                    keys.add(s(c.keyBytes()));
                }
                assertTrue(c.last());
                assertEquals("k019", s(c.keyBytes()));
                assertTrue(c.seek(b("k015")));
                assertEquals("k015", s(c.keyBytes()));
            }
            assertEquals(19, keys.size());
            assertEquals("k001", keys.get(0));
            assertEquals("k019", keys.get(18));
            assertEquals("k015", s(it.key()));
        } finally {
            db.releaseSnapshot(snap);
            snap.close();
        }
    }

    @MatrixTest
    void pointCallsMatchRocksJava() throws RocksDBException {
        Random rnd = new Random(11);
        randomWrites(rnd, 1000);
        for (ColumnFamilyHandle cf : handles) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                keys.add(randomKey(rnd));
            }
            List<byte[]> values = RocksInterop.multiGet(db, cf, keys);
            ByteBuffer direct = ByteBuffer.allocateDirect(200_000);
            for (int i = 0; i < keys.size(); i++) {
                byte[] expected = db.get(cf, keys.get(i));
                assertArrayEquals(expected, RocksInterop.get(db, cf, keys.get(i)));
                assertArrayEquals(expected, values.get(i));
                direct.clear();
                int n = RocksInterop.get(db, cf, keys.get(i), direct);
                assertEquals(expected == null ? RocksInterop.NOT_FOUND : expected.length, n);
                if (expected != null) {
                    byte[] got = new byte[n];
                    direct.flip().get(got);
                    assertArrayEquals(expected, got);
                }
            }
        }
        ByteBuffer small = ByteBuffer.allocate(4);
        db.put(b("long"), b("0123456789"));
        assertEquals(10, RocksInterop.get(db, null, b("long"), small));
        assertEquals("0123", new String(small.array(), StandardCharsets.UTF_8));
    }

    @MatrixTest
    void getsReadTheirSnapshot() throws RocksDBException {
        db.put(other, b("a"), b("1"));
        Snapshot snap = db.getSnapshot();
        try {
            db.put(other, b("a"), b("2"));
            db.put(other, b("b"), b("3"));
            assertEquals("1", s(RocksInterop.get(db, other, snap, b("a"))));
            assertNull(RocksInterop.get(db, other, snap, b("b")));
            assertEquals("2", s(RocksInterop.get(db, other, b("a"))));
            List<byte[]> v = RocksInterop.multiGet(db, other, snap, List.of(b("a"), b("b")));
            assertEquals("1", s(v.get(0)));
            assertNull(v.get(1));
        } finally {
            db.releaseSnapshot(snap);
            snap.close();
        }
    }

    @MatrixTest
    void writesLandWhereRocksJavaReads() throws RocksDBException {
        RocksInterop.put(db, null, b("p"), b("default"));
        RocksInterop.put(db, other, b("p"), b("other"));
        assertEquals("default", s(db.get(b("p"))));
        assertEquals("other", s(db.get(other, b("p"))));
        for (int i = 0; i < 10; i++) {
            db.put(other, b("r" + i), b("x"));
        }
        try (WriteBatch wb = new WriteBatch()) {
            wb.put(b("w1"), b("1")).put(b("w2"), b("2")).delete(b("p")).deleteRange(b("r2"), b("r5"));
            RocksInterop.write(db, other, wb);
        }
        assertEquals("1", s(db.get(other, b("w1"))));
        assertNull(db.get(other, b("p")));
        assertNull(db.get(other, b("r3")));
        assertEquals("x", s(db.get(other, b("r5"))));
        assertEquals("default", s(db.get(b("p"))));
        assertNull(db.get(b("w1")));
        try (WriteBatch wb = new WriteBatch()) {
            RocksInterop.write(db, wb.put(b("d"), b("default family")));
        }
        assertEquals("default family", s(db.get(b("d"))));
    }

    @MatrixTest
    void batchesNamingFerryFamiliesAreRefused() {
        try (Store store = Store.open(dir.resolve("ferry"), StoreOptions.rocksdb().binding(expectedBinding()));
                WriteBatch wb = new WriteBatch()) {
            ColumnFamily cf = store.createColumnFamily("x");
            wb.put(cf, b("k"), b("v"));
            assertThrows(IllegalArgumentException.class, () -> RocksInterop.write(db, wb));
        }
    }

    // ---- misuse: closed RocksJava objects throw, never crash ----

    @MatrixTest
    void closedDbThrowsBeforeAnyNativeCall() throws RocksDBException {
        db.put(b("a"), b("1"));
        try (RocksIterator it = db.newIterator()) {
            it.seekToFirst();
            closeDb();
            assertThrows(IllegalStateException.class, () -> RocksInterop.cursor(db));
            assertThrows(IllegalStateException.class, () -> RocksInterop.get(db, null, b("a")));
            assertThrows(IllegalStateException.class, () -> RocksInterop.multiGet(db, null, List.of(b("a"))));
            assertThrows(IllegalStateException.class, () -> RocksInterop.put(db, null, b("a"), b("2")));
            assertThrows(IllegalStateException.class, () -> RocksInterop.wrap(it));
        }
        openDb(target); // for @AfterEach
    }

    @MatrixTest
    void closingTheDbUnderAnOpenCursorThrowsOnTheNextFill() throws RocksDBException {
        for (int i = 0; i < 50; i++) {
            db.put(b("k" + i), b("v"));
        }
        Cursor c = RocksInterop.cursor(db);
        assertTrue(c.first()); // first page: one entry
        c.close();             // (closed cursors are fine)
        c = RocksInterop.cursor(db);
        assertTrue(c.first());
        closeDb();
        Cursor cc = c;
        assertThrows(IllegalStateException.class, cc::next);
        assertThrows(IllegalStateException.class, cc::first);
        c.close(); // frees Ferry's memory without touching the engine
        openDb(target);
    }

    @MatrixTest
    void closedColumnFamilyThrows() throws RocksDBException {
        ColumnFamilyHandle extra = db.createColumnFamily(new ColumnFamilyDescriptor(b("extra")));
        for (int i = 0; i < 20; i++) {
            db.put(extra, b("k" + i), b("v"));
        }
        Cursor c = RocksInterop.cursor(db, extra, null, KeyRange.all());
        assertTrue(c.first());
        extra.close();
        assertThrows(IllegalStateException.class, c::next);
        c.close();
        assertThrows(IllegalStateException.class, () -> RocksInterop.cursor(db, extra, null, KeyRange.all()));
        assertThrows(IllegalStateException.class, () -> RocksInterop.get(db, extra, b("k1")));
        // the default family handle never owns its native object, yet is open with its DB
        db.put(b("x"), b("1"));
        assertEquals("1", s(RocksInterop.get(db, db.getDefaultColumnFamily(), b("x"))));
    }

    @MatrixTest
    void familyOfAnotherDbIsRefused() throws RocksDBException {
        try (org.rocksdb.Options o = new org.rocksdb.Options().setCreateIfMissing(true);
                RocksDB db2 = RocksDB.open(o, dir.resolve("db2").toString())) {
            assertThrows(IllegalArgumentException.class, () -> RocksInterop.get(db2, other, b("a")));
        }
    }

    @MatrixTest
    void closedIteratorThrowsOnTheNextFill() throws RocksDBException {
        for (int i = 0; i < 50; i++) {
            db.put(b(String.format("k%02d", i)), b("v"));
        }
        RocksIterator it = db.newIterator();
        it.seekToFirst();
        Cursor c = RocksInterop.wrap(it);
        assertTrue(c.next());
        it.close();
        assertThrows(IllegalStateException.class, c::next);
        c.close();
        assertThrows(IllegalStateException.class, () -> RocksInterop.wrap(it));
    }

    @MatrixTest
    void closedDbUnderAWrappedIteratorThrows() throws RocksDBException {
        db.put(b("a"), b("1"));
        db.put(b("b"), b("2"));
        RocksIterator it = db.newIterator();
        it.seekToFirst();
        Cursor c = RocksInterop.wrap(it);
        assertTrue(c.next());
        closeDb();
        assertThrows(IllegalStateException.class, c::next);
        c.close();
        it.close(); // RocksJava skips the native delete after its DB closed
        openDb(target);
    }

    @MatrixTest
    void cursorIsConfinedToItsThread() throws Exception {
        db.put(b("a"), b("1"));
        try (Cursor c = RocksInterop.cursor(db)) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    c.first();
                } catch (Throwable x) {
                    thrown.set(x);
                }
            });
            t.start();
            t.join();
            assertTrue(thrown.get() instanceof IllegalStateException);
            assertTrue(c.first());
        }
    }
}
