package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ferry.rocksjava.RocksInterop;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.TtlDB;

/**
 * TTL stores ({@link StoreOptions#ttlSeconds(int)}) against RocksJava's {@code TtlDB}: a store written by
 * either is read whole, without the 4-byte timestamp suffixes, by the other; Ferry's interop calls on an
 * open TtlDB read what it reads; a plain open of a TTL store (or of its checkpoint) and a TTL open of a
 * plain store are refused, where RocksJava's plain open shows the suffixes; ingestion is refused; and
 * after the TTL has passed, a compaction drops the same entries in both. Runs once per binding
 * ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class TtlStoreDifferentialTest {
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

    private StoreOptions options() {
        return StoreOptions.rocksdb().binding(target.binding);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static TreeMap<String, String> workload(Random rnd) {
        TreeMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < 300; i++) {
            m.put(String.format("k%04d", rnd.nextInt(1000)), "v" + rnd.nextInt(1_000_000));
        }
        return m;
    }

    private static TreeMap<String, String> ferryAll(ReadView v) {
        TreeMap<String, String> m = new TreeMap<>();
        try (Cursor c = v.cursor(KeyRange.all())) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                m.put(new String(c.keyBytes(), StandardCharsets.UTF_8), new String(c.valueBytes(), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    private static TreeMap<String, String> rjAll(RocksDB db) {
        TreeMap<String, String> m = new TreeMap<>();
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                m.put(new String(it.key(), StandardCharsets.UTF_8), new String(it.value(), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    @MatrixTest
    void eachLibraryReadsTheOthersTtlStoreWithoutSuffixes() throws RocksDBException {
        Random rnd = new Random(4403);
        TreeMap<String, String> fw = workload(rnd);
        Path ferryPath = dir.resolve("ferry");
        try (Store s = Store.open(ferryPath, options().ttlSeconds(3600))) {
            WriteBatch batch = new WriteBatch();
            fw.forEach((k, v) -> batch.put(b(k), b(v)));
            s.write(batch);
            s.put(b("single"), b("x"));
            fw.put("single", "x");
            assertEquals(fw, ferryAll(s));
        }
        try (Options o = new Options(); TtlDB rj = TtlDB.open(o, ferryPath.toString(), 3600, false)) {
            assertEquals(fw, rjAll(rj));
            assertArrayEquals(b("x"), rj.get(b("single")));
        }
        TreeMap<String, String> rw = workload(rnd);
        Path rjPath = dir.resolve("rocksjava");
        try (Options o = new Options().setCreateIfMissing(true); TtlDB rj = TtlDB.open(o, rjPath.toString(), 3600, false)) {
            for (var e : rw.entrySet()) {
                rj.put(b(e.getKey()), b(e.getValue()));
            }
            // Ferry's interop calls reach the TTL layer through RocksDB's virtual methods
            assertEquals(rw, rjAll(rj));
            String k = rw.firstKey();
            assertArrayEquals(rj.get(b(k)), RocksInterop.get(rj, null, b(k)));
            TreeMap<String, String> seen = new TreeMap<>();
            try (Cursor c = RocksInterop.cursor(rj)) {
                for (boolean ok = c.first(); ok; ok = c.next()) {
                    seen.put(new String(c.keyBytes(), StandardCharsets.UTF_8), new String(c.valueBytes(), StandardCharsets.UTF_8));
                }
            }
            assertEquals(rw, seen);
        }
        try (Store s = Store.open(rjPath, options().ttlSeconds(3600))) {
            assertEquals(rw, ferryAll(s));
        }
        FerryException e = assertThrows(FerryException.InvalidArgument.class, () -> Store.open(rjPath, options()));
        assertTrue(e.getMessage().contains("TTL store"), e.getMessage());
    }

    @MatrixTest
    void whatWouldShowTheSuffixesIsRefused() throws RocksDBException {
        Path path = dir.resolve("ttl");
        Path cp = dir.resolve("cp");
        try (Store s = Store.open(path, options().ttlSeconds(60))) {
            s.put(b("k"), b("value"));
            s.checkpoint(cp);
            assertThrows(FerryException.NotSupported.class, () -> s.ingest(s.defaultColumnFamily(), List.of(dir.resolve("x.sst")), false));
        }
        assertThrows(FerryException.InvalidArgument.class, () -> Store.open(path, options()));
        assertThrows(FerryException.InvalidArgument.class, () -> Store.open(cp, options()));
        try (Store s = Store.open(cp, options().ttlSeconds(60))) {
            assertArrayEquals(b("value"), s.get(b("k")));
        }
        try (Options o = new Options(); RocksDB plain = RocksDB.open(o, cp.toString())) {
            assertEquals(b("value").length + 4, plain.get(b("k")).length); // why: RocksJava's plain open shows the suffix
        }
        Path plain = dir.resolve("plain");
        try (Store s = Store.open(plain, options())) {
            s.put(b("k"), b("v"));
        }
        assertThrows(FerryException.InvalidArgument.class, () -> Store.open(plain, options().ttlSeconds(60)));
        assertThrows(FerryException.InvalidArgument.class,
                () -> Store.open(dir.resolve("txn"), options().ttlSeconds(60).transactions(TransactionMode.PESSIMISTIC)));
        assertThrows(FerryException.NotSupported.class, () -> Store.open(path, options().ttlSeconds(60).readOnly(true)));
    }

    @MatrixTest
    void aCompactionAfterTheTtlDropsTheSameEntriesInBoth() throws Exception {
        Path ferryPath = dir.resolve("ferry");
        Path rjPath = dir.resolve("rocksjava");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add("k" + i);
        }
        try (Store s = Store.open(ferryPath, options().ttlSeconds(1));
                Options o = new Options().setCreateIfMissing(true);
                TtlDB rj = TtlDB.open(o, rjPath.toString(), 1, false)) {
            for (String k : keys) {
                s.put(b(k), b("v"));
                rj.put(b(k), b("v"));
            }
            Thread.sleep(2_100); // past the 1-second TTL of every entry (RocksDB's clock counts whole seconds)
            s.put(b("fresh"), b("v"));
            rj.put(b("fresh"), b("v"));
            s.flush();
            s.compactRange();
            rj.compactRange();
            assertEquals(rjAll(rj), ferryAll(s));
            assertEquals(List.of("fresh"), new ArrayList<>(ferryAll(s).keySet()));
        }
    }
}
