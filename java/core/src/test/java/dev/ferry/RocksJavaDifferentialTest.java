package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import org.junit.jupiter.api.BeforeEach;
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
 * closed before the other opens. Runs once per binding ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class RocksJavaDifferentialTest {
    static final List<String> FAMILIES = List.of("default", "cf-a", "cf-b");

    @TempDir
    Path dir;

    static {
        RocksDB.loadLibrary();
    }

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    /** @return the Ferry binding under test: "jni" or "ffm" */
    String binding() {
        return target.binding;
    }

    private StoreOptions ferryOptions() {
        return StoreOptions.rocksdb().binding(binding());
    }

    private Workload workload(long seed) {
        return new Workload(seed, FAMILIES, 0, 64);
    }

    private static byte[] le64(long v) {
        return java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static long le64(byte[] b) {
        return java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every entry of a RocksJava family, keys and values as strings (values of "n*" keys as uint64). */
    private static java.util.TreeMap<String, String> readAll(RocksDB db, ColumnFamilyHandle h) {
        java.util.TreeMap<String, String> m = new java.util.TreeMap<>();
        try (RocksIterator it = db.newIterator(h)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                String k = new String(it.key(), StandardCharsets.UTF_8);
                m.put(k, k.startsWith("n") ? Long.toString(le64(it.value())) : new String(it.value(), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    /** The same through Ferry. */
    private static java.util.TreeMap<String, String> readAll(Store store, ColumnFamily cf) {
        java.util.TreeMap<String, String> m = new java.util.TreeMap<>();
        try (Cursor c = store.cursor(cf, KeyRange.all(), null)) {
            while (c.next()) {
                String k = new String(c.keyBytes(), StandardCharsets.UTF_8);
                byte[] v = c.value().toByteArray();
                m.put(k, k.startsWith("n") ? Long.toString(le64(v)) : new String(v, StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    /** Entries of a family with a 4-byte prefix extractor and counters merged with uint64add. */
    private static java.util.TreeMap<String, String> familyModel() {
        java.util.TreeMap<String, String> m = new java.util.TreeMap<>();
        for (int i = 0; i < 500; i++) {
            m.put(String.format("p%03d/%04d", i % 23, i), "value-" + i);
        }
        for (int i = 1; i < 20; i++) {
            m.put("n" + i, Long.toString(i * (i + 1) / 2));
        }
        return m;
    }

    @MatrixTest
    void familyOptionsGivenByFerryAreTheOnesRocksJavaLoadsFromTheOptionsFile() throws Exception {
        Path db = dir.resolve("db");
        dev.ferry.ColumnFamilyOptions events = dev.ferry.ColumnFamilyOptions.of().compression(Compression.LZ4)
                .bloomBitsPerKey(10).blockSize(8192).fixedPrefixLength(4).mergeOperator(MergeOperator.UINT64_ADD);
        dev.ferry.ColumnFamilyOptions raw = dev.ferry.ColumnFamilyOptions.of().compression(Compression.NONE);
        java.util.TreeMap<String, String> model = familyModel();
        try (Store store = Store.open(db, ferryOptions())) {
            ColumnFamily e = store.createColumnFamily("events", events);
            ColumnFamily r = store.createColumnFamily("raw", raw);
            for (Map.Entry<String, String> x : model.entrySet()) {
                if (x.getKey().startsWith("n")) {
                    int n = Integer.parseInt(x.getKey().substring(1));
                    for (int j = 1; j <= n; j++) {
                        store.merge(e, utf8(x.getKey()), le64(j));
                    }
                } else {
                    store.put(e, utf8(x.getKey()), utf8(x.getValue()));
                    store.put(r, utf8(x.getKey()), utf8(x.getValue()));
                }
            }
            store.flush(e);
            store.flush(r);
        }
        List<ColumnFamilyDescriptor> descs = new ArrayList<>();
        try (DBOptions dbo = new DBOptions(); org.rocksdb.ConfigOptions co = new org.rocksdb.ConfigOptions()) {
            org.rocksdb.OptionsUtil.loadLatestOptions(co, db.toString(), dbo, descs);
            Map<String, ColumnFamilyDescriptor> byName = new java.util.HashMap<>();
            for (ColumnFamilyDescriptor d : descs) {
                byName.put(new String(d.getName(), StandardCharsets.UTF_8), d);
            }
            assertEquals(org.rocksdb.CompressionType.LZ4_COMPRESSION, byName.get("events").getOptions().compressionType());
            assertEquals(org.rocksdb.CompressionType.NO_COMPRESSION, byName.get("raw").getOptions().compressionType());
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try (RocksDB rdb = RocksDB.open(dbo, db.toString(), descs, handles)) {
                try {
                    int e = descs.indexOf(byName.get("events"));
                    int r = descs.indexOf(byName.get("raw"));
                    assertEquals(model, readAll(rdb, handles.get(e)), "RocksJava read Ferry's family with its loaded options");
                    java.util.TreeMap<String, String> plain = new java.util.TreeMap<>(model);
                    plain.keySet().removeIf(k -> k.startsWith("n"));
                    assertEquals(plain, readAll(rdb, handles.get(r)));
                    // the loaded merge operator is uint64add: RocksJava's own merge adds
                    rdb.merge(handles.get(e), utf8("n19"), le64(10));
                    assertEquals(200, le64(rdb.get(handles.get(e), utf8("n19"))));
                    // a prefix seek with the loaded prefix extractor finds the prefix's keys
                    try (org.rocksdb.ReadOptions ro = new org.rocksdb.ReadOptions().setPrefixSameAsStart(true);
                            RocksIterator it = rdb.newIterator(handles.get(e), ro)) {
                        int n = 0;
                        for (it.seek(utf8("p007")); it.isValid(); it.next()) {
                            assertTrue(new String(it.key(), StandardCharsets.UTF_8).startsWith("p007"));
                            n++;
                        }
                        assertEquals(model.subMap("p007", "p008").size(), n);
                    }
                } finally {
                    for (ColumnFamilyHandle h : handles) {
                        h.close();
                    }
                }
            }
        } finally {
            for (ColumnFamilyDescriptor d : descs) {
                d.getOptions().close();
            }
        }
    }

    @MatrixTest
    void familyWithOptionsWrittenByRocksJavaIsReadAndMergedByFerry() throws Exception {
        Path db = dir.resolve("db");
        java.util.TreeMap<String, String> model = familyModel();
        try (Options o = new Options().setCreateIfMissing(true);
                ColumnFamilyOptions eo = new ColumnFamilyOptions().setCompressionType(org.rocksdb.CompressionType.LZ4_COMPRESSION)
                        .useFixedLengthPrefixExtractor(4).setMergeOperatorName("uint64add");
                RocksDB rdb = RocksDB.open(o, db.toString())) {
            try (ColumnFamilyHandle e = rdb.createColumnFamily(new ColumnFamilyDescriptor(utf8("events"), eo))) {
                for (Map.Entry<String, String> x : model.entrySet()) {
                    if (x.getKey().startsWith("n")) {
                        int n = Integer.parseInt(x.getKey().substring(1));
                        for (int j = 1; j <= n; j++) {
                            rdb.merge(e, utf8(x.getKey()), le64(j));
                        }
                    } else {
                        rdb.put(e, utf8(x.getKey()), utf8(x.getValue()));
                    }
                }
                try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                    rdb.flush(fo, e);
                }
            }
        }
        // the family holds merge operands: Ferry refuses to open it without an operator for it
        FerryException.InvalidArgument bad = assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(db, ferryOptions()));
        assertTrue(bad.getMessage().contains("'events'"), bad.getMessage());
        dev.ferry.ColumnFamilyOptions events = dev.ferry.ColumnFamilyOptions.of().compression(Compression.LZ4)
                .fixedPrefixLength(4).mergeOperator(MergeOperator.UINT64_ADD);
        try (Store store = Store.open(db, ferryOptions().columnFamily("events", events))) {
            ColumnFamily e = store.columnFamily("events").orElseThrow();
            assertEquals(model, readAll(store, e), "Ferry read RocksJava's family");
            store.merge(e, utf8("n19"), le64(10));
            assertEquals(200, le64(store.get(e, utf8("n19"))));
            assertThrows(FerryException.NotSupported.class, () -> store.merge(utf8("n19"), le64(1)));
        }
    }

    // ---- checkpoints and merge operators, both ways ----

    @MatrixTest
    void checkpointMadeByFerryIsReadFullyByRocksJava() throws Exception {
        Workload w = workload(0xF0_0010L);
        Path db = dir.resolve("db");
        Path ckpt = dir.resolve("ckpt");
        try (Store store = Store.open(db, ferryOptions())) {
            Workload.apply(w.next(2500, 600), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
            store.checkpoint(ckpt);
            // writes after the checkpoint stay out of it
            for (ColumnFamily cf : store.columnFamilies()) {
                store.put(cf, utf8("written-after-the-checkpoint"), utf8("x"));
            }
        }
        FerryWorkloads.assertSubstantial(w, 100);
        verifyWithRocksJava(ckpt, w, "Ferry/" + binding() + " checkpoint, RocksJava read");
    }

    @MatrixTest
    void checkpointMadeByRocksJavaIsReadFullyByFerry() throws Exception {
        Workload w = workload(0xF0_0011L);
        Path db = dir.resolve("db");
        Path ckpt = dir.resolve("ckpt");
        try (RocksOpen ro = RocksOpen.open(db, true)) {
            Workload.apply(w.next(2500, 600), ro.target());
            try (org.rocksdb.Checkpoint cp = org.rocksdb.Checkpoint.create(ro.db)) {
                cp.createCheckpoint(ckpt.toString());
            }
            for (ColumnFamilyHandle h : ro.handles) {
                ro.db.put(h, utf8("written-after-the-checkpoint"), utf8("x"));
            }
        }
        FerryWorkloads.assertSubstantial(w, 100);
        try (Store store = Store.open(ckpt, ferryOptions().createIfMissing(false))) {
            FerryWorkloads.verify(store, w, "RocksJava checkpoint, Ferry/" + binding() + " read");
        }
    }

    /** The values merge operands combine to: counts (uint64add) and lists (stringappend), per key. */
    private static final class MergeModel {
        final java.util.TreeMap<String, Long> counts = new java.util.TreeMap<>();
        final java.util.TreeMap<String, String> lists = new java.util.TreeMap<>();

        /** Operands of round r: key i gets i + r added and "r.i" appended; some keys get a put first. */
        void round(int r, MergeWriter out) throws Exception {
            java.util.Random rnd = new java.util.Random(r);
            for (int i = 0; i < 200; i++) {
                String k = String.format("key%04d", rnd.nextInt(120));
                if (rnd.nextInt(10) == 0) {
                    out.putCount(k, 1000);
                    counts.put(k, 1000L);
                    out.putList(k, "base");
                    lists.put(k, "base");
                }
                out.add(k, i + r);
                counts.merge(k, (long) (i + r), Long::sum);
                String item = r + "." + i;
                out.append(k, item);
                lists.merge(k, item, (a, b) -> a + "," + b);
            }
        }
    }

    /** Where MergeModel's operands go. */
    private interface MergeWriter {
        void putCount(String k, long v) throws Exception;

        void putList(String k, String v) throws Exception;

        void add(String k, long v) throws Exception;

        void append(String k, String item) throws Exception;
    }

    private static final dev.ferry.ColumnFamilyOptions COUNTS =
            dev.ferry.ColumnFamilyOptions.of().mergeOperator(MergeOperator.UINT64_ADD);
    private static final dev.ferry.ColumnFamilyOptions LISTS =
            dev.ferry.ColumnFamilyOptions.of().mergeOperator(MergeOperator.STRING_APPEND);

    private StoreOptions mergeOptions() {
        return ferryOptions().columnFamily("counts", COUNTS).columnFamily("lists", LISTS);
    }

    private static void mergeWithFerry(Store store, MergeModel m, int round) throws Exception {
        ColumnFamily counts = store.columnFamily("counts").orElseGet(() -> store.createColumnFamily("counts", COUNTS));
        ColumnFamily lists = store.columnFamily("lists").orElseGet(() -> store.createColumnFamily("lists", LISTS));
        m.round(round, new MergeWriter() {
            @Override public void putCount(String k, long v) {
                store.put(counts, utf8(k), le64(v));
            }

            @Override public void putList(String k, String v) {
                store.put(lists, utf8(k), utf8(v));
            }

            @Override public void add(String k, long v) {
                store.merge(counts, utf8(k), le64(v));
            }

            @Override public void append(String k, String item) {
                try (dev.ferry.WriteBatch b = new dev.ferry.WriteBatch()) {
                    store.write(b.merge(lists, utf8(k), utf8(item)));
                }
            }
        });
    }

    private static void verifyWithFerry(Store store, MergeModel m, String ctx) {
        ColumnFamily counts = store.columnFamily("counts").orElseThrow();
        ColumnFamily lists = store.columnFamily("lists").orElseThrow();
        java.util.TreeMap<String, Long> gotCounts = new java.util.TreeMap<>();
        try (Cursor c = store.cursor(counts, KeyRange.all(), null)) {
            while (c.next()) {
                gotCounts.put(new String(c.keyBytes(), StandardCharsets.UTF_8), le64(c.value().toByteArray()));
            }
        }
        assertEquals(m.counts, gotCounts, ctx + ": uint64add counts");
        java.util.TreeMap<String, String> gotLists = new java.util.TreeMap<>();
        for (String k : m.lists.keySet()) {
            gotLists.put(k, new String(store.get(lists, utf8(k)), StandardCharsets.UTF_8));
        }
        assertEquals(m.lists, gotLists, ctx + ": stringappend lists");
    }

    /** A RocksJava database with the families counts (uint64add) and lists (stringappend). */
    private static void withRocksJavaMerging(Path db, RocksMergeBody body) throws Exception {
        try (DBOptions o = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
                ColumnFamilyOptions plain = new ColumnFamilyOptions();
                ColumnFamilyOptions add = new ColumnFamilyOptions().setMergeOperatorName("uint64add");
                ColumnFamilyOptions append = new ColumnFamilyOptions().setMergeOperatorName("stringappend")) {
            List<ColumnFamilyDescriptor> ds = List.of(new ColumnFamilyDescriptor(utf8("default"), plain),
                    new ColumnFamilyDescriptor(utf8("counts"), add), new ColumnFamilyDescriptor(utf8("lists"), append));
            List<ColumnFamilyHandle> hs = new ArrayList<>();
            try (RocksDB rdb = RocksDB.open(o, db.toString(), ds, hs)) {
                try {
                    body.run(rdb, hs.get(1), hs.get(2));
                    try (FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
                        rdb.flush(fo, hs.get(1)); // some operands in table files, some in the log
                    }
                } finally {
                    for (ColumnFamilyHandle h : hs) {
                        h.close();
                    }
                }
            }
        }
    }

    private interface RocksMergeBody {
        void run(RocksDB db, ColumnFamilyHandle counts, ColumnFamilyHandle lists) throws Exception;
    }

    private static void mergeWithRocksJava(RocksDB db, ColumnFamilyHandle counts, ColumnFamilyHandle lists, MergeModel m,
            int round) throws Exception {
        m.round(round, new MergeWriter() {
            @Override public void putCount(String k, long v) throws RocksDBException {
                db.put(counts, utf8(k), le64(v));
            }

            @Override public void putList(String k, String v) throws RocksDBException {
                db.put(lists, utf8(k), utf8(v));
            }

            @Override public void add(String k, long v) throws RocksDBException {
                db.merge(counts, utf8(k), le64(v));
            }

            @Override public void append(String k, String item) throws RocksDBException {
                db.merge(lists, utf8(k), utf8(item));
            }
        });
    }

    private static void verifyWithRocksJava(RocksDB db, ColumnFamilyHandle counts, ColumnFamilyHandle lists, MergeModel m,
            String ctx) throws RocksDBException {
        java.util.TreeMap<String, Long> gotCounts = new java.util.TreeMap<>();
        try (RocksIterator it = db.newIterator(counts)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                gotCounts.put(new String(it.key(), StandardCharsets.UTF_8), le64(it.value()));
            }
        }
        assertEquals(m.counts, gotCounts, ctx + ": uint64add counts");
        java.util.TreeMap<String, String> gotLists = new java.util.TreeMap<>();
        for (String k : m.lists.keySet()) {
            gotLists.put(k, new String(db.get(lists, utf8(k)), StandardCharsets.UTF_8));
        }
        assertEquals(m.lists, gotLists, ctx + ": stringappend lists");
    }

    @MatrixTest
    void mergesByFerryAreReadByRocksJavaWithTheSameOperatorsAndTheReverse() throws Exception {
        Path db = dir.resolve("db");
        MergeModel m = new MergeModel();
        try (Store store = Store.open(db, mergeOptions())) {
            mergeWithFerry(store, m, 1);
            store.flush(store.columnFamily("lists").orElseThrow());
            mergeWithFerry(store, m, 2); // these stay in the log
        }
        withRocksJavaMerging(db, (rdb, counts, lists) -> {
            verifyWithRocksJava(rdb, counts, lists, m, "Ferry/" + binding() + " merged, RocksJava read");
            mergeWithRocksJava(rdb, counts, lists, m, 3);
        });
        try (Store store = Store.open(db, mergeOptions())) {
            verifyWithFerry(store, m, "RocksJava merged on, Ferry/" + binding() + " read");
            mergeWithFerry(store, m, 4);
            store.compactRange(store.columnFamily("counts").orElseThrow(), null, null);
            verifyWithFerry(store, m, "Ferry merged and compacted");
        }
    }

    @MatrixTest
    void mergesByRocksJavaAreReadByFerryWithTheSameOperatorsAndTheReverse() throws Exception {
        Path db = dir.resolve("db");
        MergeModel m = new MergeModel();
        withRocksJavaMerging(db, (rdb, counts, lists) -> mergeWithRocksJava(rdb, counts, lists, m, 1));
        try (Store store = Store.open(db, mergeOptions())) {
            verifyWithFerry(store, m, "RocksJava merged, Ferry/" + binding() + " read");
            mergeWithFerry(store, m, 2);
        }
        withRocksJavaMerging(db, (rdb, counts, lists) ->
                verifyWithRocksJava(rdb, counts, lists, m, "Ferry/" + binding() + " merged on, RocksJava read"));
        // the store-wide operator serves a family too: counts read with StoreOptions.mergeOperator
        try (Store store = Store.open(db, ferryOptions().mergeOperator(MergeOperator.UINT64_ADD)
                .columnFamily("lists", LISTS))) {
            verifyWithFerry(store, m, "store-wide uint64add");
        }
    }

    @MatrixTest
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

    @MatrixTest
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

    @MatrixTest
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

    @MatrixTest
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

    @MatrixTest
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

    @MatrixTest
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

    @MatrixTest
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
