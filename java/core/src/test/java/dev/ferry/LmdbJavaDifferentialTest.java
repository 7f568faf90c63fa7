package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.internal.NativeLibrary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.lmdbjava.ByteArrayProxy;
import org.lmdbjava.Cursor;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.GetOp;
import org.lmdbjava.Txn;

/**
 * Differential tests against lmdbjava (the reference LMDB binding): random workloads written
 * through Ferry's LMDB engine are read back with lmdbjava entry by entry, and the reverse.
 * Ferry's default family is LMDB's unnamed database, its other families are named databases.
 *
 * <p>LMDB must never be open twice in one process at once: Ferry's store is closed before
 * lmdbjava opens the environment and the other way round. lmdbjava is pointed at the liblmdb
 * copy Ferry extracted ({@code lmdbjava.native.lib}, set before lmdbjava's classes initialise),
 * so the process holds one liblmdb. Runs once per binding ({@link Target.Slice#LMDB}).
 */
@Matrix(Target.Slice.LMDB)
class LmdbJavaDifferentialTest {
    /** lmdbjava's property naming the LMDB library to load instead of extracting its own. */
    static final String LMDBJAVA_NATIVE_LIB = "lmdbjava.native.lib";
    static final List<String> FAMILIES = List.of("default", "cf-a", "cf-b");
    static final long MAP_SIZE = 256L << 20;
    static final int MAX_DBS = 16;

    static {
        System.setProperty(LMDBJAVA_NATIVE_LIB, NativeLibrary.lmdbPath().toString());
    }

    @TempDir
    Path dir;

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
        return StoreOptions.lmdb().binding(binding()).mapSize(MAP_SIZE).maxColumnFamilies(MAX_DBS);
    }

    private static Workload workload(long seed) {
        return new Workload(seed, FAMILIES, 1, 511);
    }

    @MatrixTest
    void ferryWritesAreReadIdenticallyByLmdbJava() throws Exception {
        Workload w = workload(0x1D_0001L);
        Path db = dir.resolve("db");
        try (Store store = Store.open(db, ferryOptions())) {
            assertEquals(binding(), store.binding());
            Workload.apply(w.next(2500, 600), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
        }
        FerryWorkloads.assertSubstantial(w, 150);
        verifyWithLmdbJava(db, w, "Ferry/" + binding() + " wrote, lmdbjava read");
    }

    @MatrixTest
    void lmdbJavaWritesAreReadIdenticallyByFerry() throws Exception {
        Workload w = workload(0x1D_0002L);
        Path db = dir.resolve("db");
        writeWithLmdbJava(db, w.next(2500, 600));
        FerryWorkloads.assertSubstantial(w, 150);
        try (Store store = Store.open(db, ferryOptions())) {
            FerryWorkloads.verify(store, w, "lmdbjava wrote, Ferry read");
        }
    }

    @MatrixTest
    void alternatingWritersAgreeAfterEachHandOver() throws Exception {
        Workload w = workload(0x1D_0003L);
        Path db = dir.resolve("db");
        for (int round = 0; round < 3; round++) {
            try (Store store = Store.open(db, ferryOptions())) {
                if (round > 0) {
                    FerryWorkloads.verify(store, w, "round " + round + ": lmdbjava wrote, Ferry read");
                }
                Workload.apply(w.next(500, 0), FerryWorkloads.target(store, FerryWorkloads.families(store, w, true)));
            }
            verifyWithLmdbJava(db, w, "round " + round + ": Ferry/" + binding() + " wrote, lmdbjava read");
            writeWithLmdbJava(db, w.next(500, 0));
        }
        try (Store store = Store.open(db, ferryOptions())) {
            FerryWorkloads.verify(store, w, "final: lmdbjava wrote, Ferry read");
        }
    }

    /** A database lmdbjava made in LMDB's integer or reverse key order: Ferry's reads assume another, so it refuses it. */
    @MatrixTest
    void aDatabaseInLmdbsIntegerOrReverseKeyOrderIsRefusedNotMisread() throws Exception {
        for (DbiFlags order : List.of(DbiFlags.MDB_INTEGERKEY, DbiFlags.MDB_REVERSEKEY)) {
            Path db = Files.createDirectories(dir.resolve(order.name()));
            try (Env<byte[]> env = Env.create(ByteArrayProxy.PROXY_BA).setMapSize(MAP_SIZE).setMaxDbs(MAX_DBS).open(db.toFile())) {
                Dbi<byte[]> dbi = env.openDbi("ordered", DbiFlags.MDB_CREATE, order);
                dbi.put(new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, new byte[] {1});
                dbi.put(new byte[] {0, 1, 0, 0, 0, 0, 0, 0}, new byte[] {2});
            }
            FerryException.NotSupported e = org.junit.jupiter.api.Assertions.assertThrows(FerryException.NotSupported.class,
                    () -> Store.open(db, ferryOptions()).close());
            assertTrue(e.getMessage().contains("'ordered'") && e.getMessage().contains(order.name()), e.getMessage());
        }
    }

    @MatrixTest
    void lmdbJavaLoadsFerrysLiblmdbCopy() throws Exception {
        Path lib = NativeLibrary.lmdbPath();
        assertEquals(lib.toString(), System.getProperty(LMDBJAVA_NATIVE_LIB));
        try (Store store = Store.open(dir.resolve("ferry"), ferryOptions())) {
            store.put(new byte[] {1}, new byte[] {2}); // Ferry's liblmdb is attached now
        }
        Path other = Files.createDirectories(dir.resolve("lmdbjava"));
        try (Env<byte[]> env = Env.create(ByteArrayProxy.PROXY_BA).setMapSize(MAP_SIZE).setMaxDbs(MAX_DBS).open(other.toFile())) {
            Dbi<byte[]> dbi = env.openDbi((String) null);
            dbi.put(new byte[] {3}, new byte[] {4, 5});
            try (Txn<byte[]> txn = env.txnRead()) {
                assertArrayEquals(new byte[] {4, 5}, dbi.get(txn, new byte[] {3}));
            }
        }
        Path maps = Paths.get("/proc/self/maps");
        // (under wine /proc/self/maps is readable, but it is wine's Linux process map, not the Windows module list)
        Assumptions.assumeTrue(!OS.WINDOWS.isCurrentOs() && Files.isReadable(maps), "needs /proc/self/maps (Linux)");
        TreeSet<String> lmdbs = new TreeSet<>();
        for (String line : Files.readAllLines(maps)) {
            int slash = line.indexOf('/');
            if (slash >= 0) {
                String file = line.substring(slash);
                String name = Paths.get(file).getFileName().toString();
                if (name.contains("lmdb") && name.contains(".so") && !name.contains("ferry.so") && !name.startsWith("libferry")) {
                    lmdbs.add(file);
                }
            }
        }
        assertEquals(new TreeSet<>(List.of(lib.toRealPath().toString())), lmdbs,
                "exactly one liblmdb mapped in the process, Ferry's: " + lmdbs);
    }

    // ---- lmdbjava side ----

    // ---- write transactions: Ferry's and lmdbjava's ----

    @MatrixTest
    void writeTransactionsAgreeWithLmdbJava() throws Exception {
        TxnWorkload w = new TxnWorkload(0x1D_7001L);
        Path db = dir.resolve("txn");
        for (int round = 0; round < 3; round++) {
            try (Store store = Store.open(db, ferryOptions())) {
                w.check(TxnWorkload.ferryEntries(store), "round " + round + ": Ferry reads");
                w.apply(w.next(40), TxnWorkload.ferry(store), "Ferry/" + binding());
            }
            try (Env<byte[]> env = openEnv(db)) {
                Dbi<byte[]> dbi = env.openDbi((String) null);
                List<Map.Entry<byte[], byte[]>> seen = new ArrayList<>();
                try (Txn<byte[]> txn = env.txnRead(); CursorIterable<byte[]> it = dbi.iterate(txn)) {
                    for (CursorIterable.KeyVal<byte[]> kv : it) {
                        seen.add(Map.entry(kv.key(), kv.val()));
                    }
                }
                w.check(seen, "round " + round + ": Ferry/" + binding() + " committed, lmdbjava read");
                w.apply(w.next(40), new TxnWorkload.Runner() {
                    Txn<byte[]> t;

                    @Override public void begin() { t = env.txnWrite(); }
                    @Override public void put(byte[] k, byte[] v) { dbi.put(t, k, v); }
                    @Override public void delete(byte[] k) { dbi.delete(t, k); }
                    @Override public byte[] get(byte[] k) { return dbi.get(t, k); }

                    @Override
                    public void end(boolean commit) {
                        try (Txn<byte[]> tt = t) {
                            if (commit) {
                                tt.commit();
                            } else {
                                tt.abort();
                            }
                        }
                    }
                }, "lmdbjava");
            }
        }
        try (Store store = Store.open(db, ferryOptions())) {
            w.check(TxnWorkload.ferryEntries(store), "final: lmdbjava committed, Ferry read");
        }
    }

    private static Env<byte[]> openEnv(Path db) throws IOException {
        Files.createDirectories(db);
        return Env.create(ByteArrayProxy.PROXY_BA).setMapSize(MAP_SIZE).setMaxDbs(MAX_DBS).open(db.toFile());
    }

    private static List<Dbi<byte[]>> openDbis(Env<byte[]> env, boolean create) {
        List<Dbi<byte[]>> out = new ArrayList<>();
        out.add(env.openDbi((String) null)); // LMDB's unnamed database = Ferry's default family
        for (String name : FAMILIES.subList(1, FAMILIES.size())) {
            out.add(create ? env.openDbi(name, DbiFlags.MDB_CREATE) : env.openDbi(name));
        }
        return out;
    }

    private static void writeWithLmdbJava(Path db, List<Workload.Op> ops) throws Exception {
        try (Env<byte[]> env = openEnv(db)) {
            List<Dbi<byte[]>> dbis = openDbis(env, true);
            Workload.apply(ops, new Workload.Target() {
                @Override
                public void put(int cf, byte[] key, byte[] value) {
                    inTxn(List.of(new Workload.Op(Workload.Kind.PUT, cf, key, value, null, null)));
                }

                @Override
                public void delete(int cf, byte[] key) {
                    inTxn(List.of(new Workload.Op(Workload.Kind.DELETE, cf, key, null, null, null)));
                }

                @Override
                public void deleteRange(int cf, byte[] begin, byte[] end) {
                    inTxn(List.of(new Workload.Op(Workload.Kind.DELETE_RANGE, cf, begin, null, end, null)));
                }

                @Override
                public void batch(List<Workload.Op> batch) {
                    inTxn(batch);
                }

                @Override
                public void flush() {
                    env.sync(true);
                }

                /** One write transaction for the operations, like a Ferry write batch. */
                private void inTxn(List<Workload.Op> batch) {
                    try (Txn<byte[]> txn = env.txnWrite()) {
                        for (Workload.Op op : batch) {
                            Dbi<byte[]> dbi = dbis.get(op.cf);
                            switch (op.kind) {
                                case PUT: dbi.put(txn, op.key, op.value); break;
                                case DELETE: dbi.delete(txn, op.key); break;
                                case DELETE_RANGE: {
                                    List<byte[]> doomed = new ArrayList<>();
                                    try (Cursor<byte[]> c = dbi.openCursor(txn)) {
                                        for (boolean ok = c.get(op.key, GetOp.MDB_SET_RANGE);
                                                ok && Arrays.compareUnsigned(c.key(), op.end) < 0; ok = c.next()) {
                                            doomed.add(c.key());
                                        }
                                    }
                                    for (byte[] k : doomed) {
                                        assertTrue(dbi.delete(txn, k));
                                    }
                                    break;
                                }
                                default: throw new IllegalArgumentException(op.kind.name());
                            }
                        }
                        txn.commit();
                    }
                }
            });
        }
    }

    private static void verifyWithLmdbJava(Path db, Workload w, String what) throws Exception {
        try (Env<byte[]> env = openEnv(db)) {
            String ctx = what + ", " + w;
            List<Dbi<byte[]>> dbis = openDbis(env, false); // a missing named database throws here
            try (Txn<byte[]> txn = env.txnRead()) {
                for (int i = 0; i < FAMILIES.size(); i++) {
                    String c = ctx + ", family " + FAMILIES.get(i);
                    Dbi<byte[]> dbi = dbis.get(i);
                    List<Map.Entry<byte[], byte[]>> exp = new ArrayList<>(FerryWorkloads.expected(w, i, Engine.LMDB).entrySet());
                    int n = 0;
                    try (CursorIterable<byte[]> it = dbi.iterate(txn)) {
                        for (CursorIterable.KeyVal<byte[]> kv : it) {
                            assertTrue(n < exp.size(), c + ": lmdbjava has more than " + exp.size() + " entries, extra key "
                                    + Workload.hex(kv.key()));
                            FerryWorkloads.checkEntry(c + ": forward #" + n, exp.get(n), kv.key(), kv.val());
                            n++;
                        }
                    }
                    assertEquals(exp.size(), n, c + ": forward entry count");
                    n = exp.size() - 1;
                    try (Cursor<byte[]> cur = dbi.openCursor(txn)) {
                        for (boolean ok = cur.last(); ok; ok = cur.prev(), n--) {
                            assertTrue(n >= 0, c + ": lmdbjava reverse cursor has more than " + exp.size() + " entries");
                            FerryWorkloads.checkEntry(c + ": reverse #" + n, exp.get(n), cur.key(), cur.val());
                        }
                    }
                    assertEquals(-1, n, c + ": reverse entry count");
                    for (byte[] k : w.probeKeys(i, 50)) {
                        assertArrayEquals(w.model(i).get(k), dbi.get(txn, k), c + ": lmdbjava get " + Workload.hex(k));
                    }
                }
            }
        }
    }

    // ---- duplicate keys: a DUPSORT database written by one side, read by the other ----

    /** A random DUPSORT workload applied to a model: key -> sorted values (unsigned byte order). */
    private static final class DupModel {
        final java.util.TreeMap<byte[], java.util.TreeSet<byte[]>> map = new java.util.TreeMap<>(Arrays::compareUnsigned);
        final java.util.Random r;

        DupModel(long seed) {
            r = new java.util.Random(seed);
        }

        byte[] key() {
            // skewed: key 0 collects hundreds of values (a sub-tree), the others a few (sub-pages)
            int k = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(40);
            return ("key-" + k).getBytes(StandardCharsets.UTF_8);
        }

        byte[] value() {
            byte[] v = new byte[1 + (r.nextInt(8) == 0 ? r.nextInt(511) : r.nextInt(40))];
            r.nextBytes(v);
            return v;
        }

        /** Runs n random operations through the callbacks, applying each to the model. */
        void run(int n, DupTarget t) {
            for (int i = 0; i < n; i++) {
                int op = r.nextInt(20);
                byte[] k = key();
                java.util.TreeSet<byte[]> vs = map.get(k);
                boolean big = k[k.length - 1] == '0' && k.length == 5; // key-0 keeps growing: never deleted whole
                if (op == 0 && !big) {
                    t.deleteKey(k);
                    map.remove(k);
                } else if (op < 4 && vs != null) {
                    byte[] v = new ArrayList<>(vs).get(r.nextInt(vs.size()));
                    t.deleteValue(k, v);
                    vs.remove(v);
                    if (vs.isEmpty()) {
                        map.remove(k);
                    }
                } else {
                    byte[] v = op == 4 && vs != null ? vs.first() : value(); // now and then an existing pair
                    t.put(k, v);
                    map.computeIfAbsent(k, x -> new java.util.TreeSet<>(Arrays::compareUnsigned)).add(v);
                }
            }
        }

        List<byte[][]> pairs() {
            List<byte[][]> out = new ArrayList<>();
            map.forEach((k, vs) -> vs.forEach(v -> out.add(new byte[][] {k, v})));
            return out;
        }
    }

    private interface DupTarget {
        void put(byte[] k, byte[] v);

        void deleteValue(byte[] k, byte[] v);

        void deleteKey(byte[] k);
    }

    @MatrixTest
    void ferryDupsortWritesAreReadIdenticallyByLmdbJava() throws Exception {
        DupModel m = new DupModel(0x1D_0017L);
        Path db = dir.resolve("db");
        try (Store store = Store.open(db, ferryOptions())) {
            ColumnFamily cf = store.createColumnFamily("dups", java.util.EnumSet.of(ColumnFamilyFlag.DUPSORT));
            m.run(6000, new DupTarget() {
                @Override public void put(byte[] k, byte[] v) { store.put(cf, k, v); }
                @Override public void deleteValue(byte[] k, byte[] v) { store.delete(cf, k, v); }
                @Override public void deleteKey(byte[] k) { store.delete(cf, k); }
            });
        }
        List<byte[][]> exp = m.pairs();
        assertTrue(m.map.get("key-0".getBytes(StandardCharsets.UTF_8)).size() > 300, "key-0 needs a sub-tree");
        try (Env<byte[]> env = openEnv(db)) {
            Dbi<byte[]> dbi = env.openDbi("dups", DbiFlags.MDB_DUPSORT);
            try (Txn<byte[]> txn = env.txnRead(); Cursor<byte[]> c = dbi.openCursor(txn)) {
                int n = 0;
                for (boolean ok = c.first(); ok; ok = c.next(), n++) {
                    assertTrue(n < exp.size(), "lmdbjava has more pairs than " + exp.size());
                    assertArrayEquals(exp.get(n)[0], c.key(), "key of pair " + n);
                    assertArrayEquals(exp.get(n)[1], c.val(), "value of pair " + n);
                    assertEquals(m.map.get(c.key()).size(), c.count(), "values of " + Workload.hex(c.key()));
                }
                assertEquals(exp.size(), n);
                for (boolean ok = c.last(); ok; ok = c.prev()) {
                    n--;
                    assertArrayEquals(exp.get(n)[0], c.key(), "reverse key of pair " + n);
                    assertArrayEquals(exp.get(n)[1], c.val(), "reverse value of pair " + n);
                }
                assertEquals(0, n);
            }
        }
    }

    @MatrixTest
    void lmdbJavaDupsortWritesAreReadIdenticallyByFerry() throws Exception {
        DupModel m = new DupModel(0x1D_0018L);
        Path db = dir.resolve("db");
        try (Env<byte[]> env = openEnv(db)) {
            Dbi<byte[]> dbi = env.openDbi("dups", DbiFlags.MDB_CREATE, DbiFlags.MDB_DUPSORT);
            m.run(6000, new DupTarget() {
                @Override public void put(byte[] k, byte[] v) { dbi.put(k, v); }
                @Override public void deleteValue(byte[] k, byte[] v) {
                    try (Txn<byte[]> txn = env.txnWrite()) {
                        assertTrue(dbi.delete(txn, k, v));
                        txn.commit();
                    }
                }
                @Override public void deleteKey(byte[] k) { dbi.delete(k); }
            });
        }
        List<byte[][]> exp = m.pairs();
        try (Store store = Store.open(db, ferryOptions())) {
            ColumnFamily cf = store.columnFamily("dups").orElseThrow();
            assertEquals(java.util.Set.of(ColumnFamilyFlag.DUPSORT), cf.flags());
            for (boolean walk : new boolean[] {true, false}) {
                try (dev.ferry.Cursor c = store.cursor(cf, KeyRange.all(), CursorOptions.defaults().pageWalk(walk))) {
                    int n = 0;
                    for (boolean ok = c.first(); ok; ok = c.next(), n++) {
                        assertTrue(n < exp.size(), "Ferry has more pairs than " + exp.size());
                        assertArrayEquals(exp.get(n)[0], c.keyBytes(), "key of pair " + n);
                        assertArrayEquals(exp.get(n)[1], c.valueBytes(), "value of pair " + n);
                    }
                    assertEquals(exp.size(), n);
                    for (boolean ok = c.last(); ok; ok = c.prev()) {
                        n--;
                        assertArrayEquals(exp.get(n)[1], c.valueBytes(), "reverse value of pair " + n);
                    }
                    assertEquals(0, n);
                    // one step per key
                    List<byte[]> keys = new ArrayList<>();
                    for (boolean ok = c.first(); ok; ok = c.nextKey()) {
                        keys.add(c.keyBytes());
                    }
                    assertEquals(m.map.size(), keys.size());
                }
            }
            m.map.forEach((k, vs) -> {
                assertEquals(vs.size(), store.valueCount(cf, k), "values of " + Workload.hex(k));
                assertArrayEquals(vs.first(), store.get(cf, k), "get of " + Workload.hex(k));
            });
        }
    }
}
