package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Differential tests against RocksJava (org.rocksdb:rocksdbjni, the reference binding): random
 * workloads written through Ferry are read back with RocksJava entry by entry, and the reverse.
 * The two libraries never hold the store open at the same time (RocksDB's LOCK file): one is
 * closed before the other opens. Subclasses choose the Ferry binding.
 */
public abstract class RocksJavaDifferentialTest {
    static final List<String> FAMILIES = List.of("default", "cf-a", "cf-b");

    @TempDir
    Path dir;

    static {
        RocksDB.loadLibrary();
    }

    /** @return the Ferry binding under test: "jni" or "ffm" */
    protected abstract String binding();

    private StoreOptions ferryOptions() {
        return StoreOptions.rocksdb().binding(binding());
    }

    private Workload workload(long seed) {
        return new Workload(seed, FAMILIES, 0, 64);
    }

    @Test
    void ferryWritesAreReadIdenticallyByRocksJava() throws Exception {
        Workload w = workload(0xF0_0001L);
        Path db = dir.resolve("db");
        try (Store store = Store.open(db, ferryOptions())) {
            assertEquals(binding(), store.binding());
            Workload.apply(w.next(3000, 700), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
        }
        FerryWorkloads.assertSubstantial(w, 150);
        assertSstFilesAndNonEmptyLog(db);
        verifyWithRocksJava(db, w, "Ferry/" + binding() + " wrote, RocksJava read");
    }

    /** Random sorted entries (puts, some deletes) over keys of 1..24 random bytes. */
    private static java.util.TreeMap<byte[], byte[]> randomSorted(long seed, int n) {
        java.util.Random r = new java.util.Random(seed);
        java.util.TreeMap<byte[], byte[]> m = new java.util.TreeMap<>(java.util.Arrays::compareUnsigned);
        while (m.size() < n) {
            byte[] k = new byte[1 + r.nextInt(24)];
            r.nextBytes(k);
            byte[] v = null;
            if (r.nextInt(10) != 0) {
                v = new byte[r.nextInt(200)];
                r.nextBytes(v);
            }
            m.put(k, v == null ? new byte[0] : v);
        }
        return m;
    }

    @Test
    void sstFileWrittenByFerryIsIngestedByRocksJava() throws Exception {
        java.util.TreeMap<byte[], byte[]> data = randomSorted(0x55_0001L, 5000);
        Path sst = dir.resolve("ferry.sst");
        try (SstFileWriter w = SstFileWriter.open(sst, null, binding())) {
            for (var e : data.entrySet()) {
                w.put(e.getKey(), e.getValue());
            }
            byte[] top = new byte[25]; // above every key of up to 24 bytes
            java.util.Arrays.fill(top, (byte) 0xff);
            w.delete(top);
            w.finish();
        }
        try (Options o = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(o, dir.resolve("rj").toString());
                IngestExternalFileOptions io = new IngestExternalFileOptions()) {
            db.ingestExternalFile(List.of(sst.toString()), io);
            try (RocksIterator it = db.newIterator()) {
                it.seekToFirst();
                for (var e : data.entrySet()) {
                    assertTrue(it.isValid(), "RocksJava ends early");
                    assertArrayEquals(e.getKey(), it.key());
                    assertArrayEquals(e.getValue(), it.value());
                    it.next();
                }
                assertTrue(!it.isValid(), "RocksJava has more entries");
            }
        }
    }

    @Test
    void sstFileWrittenByRocksJavaIsIngestedByFerry() throws Exception {
        java.util.TreeMap<byte[], byte[]> data = randomSorted(0x55_0002L, 5000);
        Path sst = dir.resolve("rj.sst");
        try (Options o = new Options(); org.rocksdb.EnvOptions env = new org.rocksdb.EnvOptions();
                org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(env, o)) {
            w.open(sst.toString());
            for (var e : data.entrySet()) {
                w.put(e.getKey(), e.getValue());
            }
            w.finish();
        }
        try (Store store = Store.open(dir.resolve("db"), ferryOptions())) {
            ColumnFamily cf = store.createColumnFamily("loaded");
            store.ingest(cf, List.of(sst), false);
            var it = data.entrySet().iterator();
            try (Cursor c = store.cursor(cf, KeyRange.all(), null)) {
                while (c.next()) {
                    assertTrue(it.hasNext(), "Ferry has more entries");
                    var e = it.next();
                    assertArrayEquals(e.getKey(), c.key().toByteArray());
                    assertArrayEquals(e.getValue(), c.value().toByteArray());
                }
            }
            assertTrue(!it.hasNext(), "Ferry ends early");
        }
    }

    @Test
    void rocksJavaWritesAreReadIdenticallyByFerry() throws Exception {
        Workload w = workload(0xF0_0002L);
        Path db = dir.resolve("db");
        writeWithRocksJava(db, w, w.next(3000, 700));
        FerryWorkloads.assertSubstantial(w, 150);
        assertSstFilesAndNonEmptyLog(db);
        try (Store store = Store.open(db, ferryOptions())) {
            FerryWorkloads.verify(store, w, "RocksJava wrote, Ferry read");
        }
    }

    @Test
    void alternatingWritersAgreeAfterEachHandOver() throws Exception {
        Workload w = workload(0xF0_0003L);
        Path db = dir.resolve("db");
        for (int round = 0; round < 3; round++) {
            try (Store store = Store.open(db, ferryOptions())) {
                if (round > 0) {
                    FerryWorkloads.verify(store, w, "round " + round + ": RocksJava wrote, Ferry read");
                }
                Workload.apply(w.next(600, 250), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
            }
            verifyWithRocksJava(db, w, "round " + round + ": Ferry/" + binding() + " wrote, RocksJava read");
            writeWithRocksJava(db, w, w.next(600, 250));
        }
        try (Store store = Store.open(db, ferryOptions())) {
            FerryWorkloads.verify(store, w, "final: RocksJava wrote, Ferry read");
        }
    }

    @Test
    void rangeDeletesInSstFilesHideOlderEntriesForBothLibraries() throws Exception {
        // range tombstones flushed to SST files over entries in older files, written by each side
        Workload w = workload(0xF0_0004L);
        Path db = dir.resolve("db");
        try (Store store = Store.open(db, ferryOptions())) {
            List<ColumnFamily> cfs = FerryWorkloads.families(store, w, true);
            Workload.Target t = FerryWorkloads.target(store, cfs);
            Workload.apply(w.next(800, 0), t);
            t.flush();
            for (int i = 0; i < 40; i++) {
                rangeOverLiveKeys(w, t, i % FAMILIES.size());
            }
            t.flush();
        }
        verifyWithRocksJava(db, w, "Ferry/" + binding() + " range deletes, RocksJava read");
        try (RocksOpen ro = RocksOpen.open(db, true)) {
            Workload.Target t = ro.target();
            for (int i = 0; i < 40; i++) {
                rangeOverLiveKeys(w, t, i % FAMILIES.size());
            }
            t.flush();
        }
        try (Store store = Store.open(db, ferryOptions())) {
            FerryWorkloads.verify(store, w, "RocksJava range deletes, Ferry read");
        }
    }

    /**
     * Checks that a closed store has both SST files and a non-empty write-ahead log, so the
     * reader reads flushed files and replays the unflushed tail into its memtables.
     */
    private static void assertSstFilesAndNonEmptyLog(Path db) throws IOException {
        long sst = 0;
        long log = 0;
        try (Stream<Path> files = Files.list(db)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String n = f.getFileName().toString();
                if (n.endsWith(".sst")) {
                    sst++;
                } else if (n.endsWith(".log")) {
                    log += Files.size(f);
                }
            }
        }
        assertTrue(sst > 0, db + ": no SST files");
        assertTrue(log > 0, db + ": no unflushed data in the write-ahead log");
    }

    /** Deletes [k_i, k_j) between two live keys of a family, in the model and the target. */
    private static void rangeOverLiveKeys(Workload w, Workload.Target t, int cf) throws Exception {
        List<byte[]> live = new ArrayList<>(w.model(cf).keySet());
        if (live.size() < 3) {
            return;
        }
        int a = w.random().nextInt(live.size() - 2);
        int b = a + 1 + w.random().nextInt(Math.min(10, live.size() - a - 1));
        byte[] lo = live.get(a);
        byte[] hi = live.get(b);
        w.model(cf).subMap(lo, true, hi, false).clear();
        t.deleteRange(cf, lo, hi);
    }

    // ---- transactions: Ferry's TransactionDB store and RocksJava's TransactionDB ----

    @Test
    void transactionsAgreeWithRocksJavaTransactionDb() throws Exception {
        TxnWorkload w = new TxnWorkload(0xF0_7001L);
        Path db = dir.resolve("txn");
        StoreOptions o = ferryOptions().transactions(TransactionMode.PESSIMISTIC);
        for (int round = 0; round < 3; round++) {
            try (Store store = Store.open(db, o)) {
                w.check(TxnWorkload.ferryEntries(store), "round " + round + ": Ferry reads");
                w.apply(w.next(40), TxnWorkload.ferry(store), "Ferry/" + binding());
            }
            try (Options opts = new Options().setCreateIfMissing(true);
                 org.rocksdb.TransactionDBOptions to = new org.rocksdb.TransactionDBOptions();
                 org.rocksdb.TransactionDB rdb = org.rocksdb.TransactionDB.open(opts, to, db.toString());
                 WriteOptions wo = new WriteOptions();
                 org.rocksdb.ReadOptions ro = new org.rocksdb.ReadOptions()) {
                List<Map.Entry<byte[], byte[]>> seen = new ArrayList<>();
                try (org.rocksdb.Transaction t = rdb.beginTransaction(wo); RocksIterator it = t.getIterator(ro)) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        seen.add(Map.entry(it.key(), it.value()));
                    }
                }
                w.check(seen, "round " + round + ": Ferry/" + binding() + " committed, RocksJava read");
                w.apply(w.next(40), new TxnWorkload.Runner() {
                    org.rocksdb.Transaction t;

                    @Override public void begin() { t = rdb.beginTransaction(wo); }
                    @Override public void put(byte[] k, byte[] v) throws RocksDBException { t.put(k, v); }
                    @Override public void delete(byte[] k) throws RocksDBException { t.delete(k); }
                    @Override public byte[] get(byte[] k) throws RocksDBException { return t.get(ro, k); }

                    @Override
                    public void end(boolean commit) throws RocksDBException {
                        try (org.rocksdb.Transaction tt = t) {
                            if (commit) {
                                tt.commit();
                            } else {
                                tt.rollback();
                            }
                        }
                    }
                }, "RocksJava");
            }
        }
        try (Store store = Store.open(db, o)) {
            w.check(TxnWorkload.ferryEntries(store), "final: RocksJava committed, Ferry read");
        }
    }

    // ---- RocksJava side ----

    private static void writeWithRocksJava(Path db, Workload w, List<Workload.Op> ops) throws Exception {
        try (RocksOpen ro = RocksOpen.open(db, true)) {
            Workload.apply(ops, ro.target());
        }
    }

    private static void verifyWithRocksJava(Path db, Workload w, String what) throws Exception {
        try (RocksOpen ro = RocksOpen.open(db, false)) {
            String ctx = what + ", " + w;
            TreeSet<String> names = new TreeSet<>();
            for (byte[] n : RocksDB.listColumnFamilies(new Options(), db.toString())) {
                names.add(new String(n, StandardCharsets.UTF_8));
            }
            assertEquals(new TreeSet<>(FAMILIES), names, ctx + ": column families");
            for (int i = 0; i < FAMILIES.size(); i++) {
                String c = ctx + ", family " + FAMILIES.get(i);
                ColumnFamilyHandle h = ro.handles.get(i);
                List<Map.Entry<byte[], byte[]>> exp = Workload.entries(w.model(i));
                int n = 0;
                try (RocksIterator it = ro.db.newIterator(h)) {
                    for (it.seekToFirst(); it.isValid(); it.next(), n++) {
                        assertTrue(n < exp.size(), c + ": RocksJava iterator has more than " + exp.size()
                                + " entries, extra key " + Workload.hex(it.key()));
                        FerryWorkloads.checkEntry(c + ": forward #" + n, exp.get(n), it.key(), it.value());
                    }
                    it.status();
                    assertEquals(exp.size(), n, c + ": forward entry count");
                    n = exp.size() - 1;
                    for (it.seekToLast(); it.isValid(); it.prev(), n--) {
                        assertTrue(n >= 0, c + ": RocksJava reverse iterator has more than " + exp.size() + " entries");
                        FerryWorkloads.checkEntry(c + ": reverse #" + n, exp.get(n), it.key(), it.value());
                    }
                    it.status();
                    assertEquals(-1, n, c + ": reverse entry count");
                }
                for (byte[] k : w.probeKeys(i, 50)) {
                    assertArrayEquals(w.model(i).get(k), ro.db.get(h, k), c + ": RocksJava get " + Workload.hex(k));
                }
            }
        }
    }

    /** A RocksJava database opened with every workload family; closes everything it opened. */
    static final class RocksOpen implements AutoCloseable {
        final DBOptions options;
        final ColumnFamilyOptions cfOptions = new ColumnFamilyOptions();
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        final RocksDB db;

        private RocksOpen(Path path, boolean create) throws RocksDBException {
            options = new DBOptions().setCreateIfMissing(create).setCreateMissingColumnFamilies(create);
            List<ColumnFamilyDescriptor> ds = new ArrayList<>();
            for (String name : FAMILIES) {
                ds.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), cfOptions));
            }
            RocksDB opened;
            try {
                opened = RocksDB.open(options, path.toString(), ds, handles);
            } catch (RocksDBException | RuntimeException e) {
                cfOptions.close();
                options.close();
                throw e;
            }
            db = opened;
        }

        static RocksOpen open(Path path, boolean create) throws RocksDBException {
            return new RocksOpen(path, create);
        }

        Workload.Target target() {
            return new Workload.Target() {
                @Override
                public void put(int cf, byte[] key, byte[] value) throws RocksDBException {
                    db.put(handles.get(cf), key, value);
                }

                @Override
                public void delete(int cf, byte[] key) throws RocksDBException {
                    db.delete(handles.get(cf), key);
                }

                @Override
                public void deleteRange(int cf, byte[] begin, byte[] end) throws RocksDBException {
                    db.deleteRange(handles.get(cf), begin, end);
                }

                @Override
                public void batch(List<Workload.Op> ops) throws RocksDBException {
                    try (WriteBatch wb = new WriteBatch(); WriteOptions wo = new WriteOptions()) {
                        for (Workload.Op op : ops) {
                            switch (op.kind) {
                                case PUT: wb.put(handles.get(op.cf), op.key, op.value); break;
                                case DELETE: wb.delete(handles.get(op.cf), op.key); break;
                                case DELETE_RANGE: wb.deleteRange(handles.get(op.cf), op.key, op.end); break;
                                default: throw new IllegalArgumentException(op.kind.name());
                            }
                        }
                        assertEquals(ops.size(), wb.count());
                        db.write(wo, wb);
                    }
                }

                @Override
                public void flush() throws RocksDBException {
                    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                        db.flush(fo, handles);
                    }
                }
            };
        }

        @Override
        public void close() {
            for (ColumnFamilyHandle h : handles) {
                h.close();
            }
            db.close();
            cfOptions.close();
            options.close();
        }
    }
}
