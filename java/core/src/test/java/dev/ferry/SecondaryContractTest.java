package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * Secondary instances ({@link StoreOptions#secondary(Path)}, {@link Store#tryCatchUpWithPrimary()}), on
 * every engine x binding: a secondary sees its primary's writes as of its open and of each catch-up, and
 * writes nothing; a store that is no secondary cannot catch up; LMDB has none. Against RocksJava's
 * {@code RocksDB.openAsSecondary}: a Ferry secondary and a RocksJava one of the same primary (Ferry's, then
 * RocksJava's) read the same entries after each catch-up.
 */
@Matrix(Target.Slice.ENGINES)
class SecondaryContractTest {
    @TempDir
    Path dir;
    Target target;

    static {
        RocksDB.loadLibrary();
    }

    @BeforeEach
    void setUp(Target t) {
        target = t;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static TreeMap<String, String> all(ReadView v) {
        TreeMap<String, String> m = new TreeMap<>();
        try (Cursor c = v.cursor(KeyRange.all())) {
            for (boolean ok = c.first(); ok; ok = c.next()) {
                m.put(new String(c.keyBytes(), StandardCharsets.UTF_8), new String(c.valueBytes(), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    private static TreeMap<String, String> all(RocksDB db) {
        TreeMap<String, String> m = new TreeMap<>();
        try (RocksIterator it = db.newIterator()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                m.put(new String(it.key(), StandardCharsets.UTF_8), new String(it.value(), StandardCharsets.UTF_8));
            }
        }
        return m;
    }

    @MatrixTest
    void lmdbHasNoSecondaryInstances() throws Exception {
        if (target.engine != Engine.LMDB) {
            return;
        }
        assertThrows(IllegalArgumentException.class, () -> target.options().secondary(dir.resolve("sec")));
        try (Store s = Store.open(dir.resolve("db"), target.options())) {
            assertThrows(FerryException.NotSupported.class, s::tryCatchUpWithPrimary);
        }
    }

    @MatrixTest
    void aSecondarySeesThePrimaryAsOfEachCatchUpAndWritesNothing() throws Exception {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        Path path = dir.resolve("db");
        try (Store primary = Store.open(path, target.options())) {
            assertThrows(FerryException.InvalidArgument.class, primary::tryCatchUpWithPrimary);
            primary.put(b("a"), b("1"));
            primary.flush();
            primary.put(b("b"), b("2")); // in the primary's log only
            try (Store sec = Store.open(path, target.options().secondary(dir.resolve("sec")))) {
                assertArrayEquals(b("1"), sec.get(b("a")));
                assertArrayEquals(b("2"), sec.get(b("b")));
                primary.put(b("c"), b("3"));
                primary.delete(b("a"));
                assertArrayEquals(b("1"), sec.get(b("a")));
                assertNull(sec.get(b("c")));
                sec.tryCatchUpWithPrimary();
                assertEquals(all(primary), all(sec));
                assertNull(sec.get(b("a")));
                assertThrows(FerryException.ReadOnly.class, () -> sec.put(b("x"), b("y")));
            }
            assertThrows(FerryException.InvalidArgument.class,
                    () -> Store.open(path, target.options().secondary(dir.resolve("s2")).transactions(TransactionMode.PESSIMISTIC)));
            assertThrows(FerryException.InvalidArgument.class, () -> Store.open(path, target.options().secondary(path)));
        }
        assertThrows(FerryException.NotFound.class, () -> Store.open(dir.resolve("missing"), target.options().secondary(dir.resolve("s3"))));
    }

    @MatrixTest
    void ferrysAndRocksJavasSecondariesReadTheSame() throws Exception {
        if (target.engine != Engine.ROCKSDB) {
            return;
        }
        Path path = dir.resolve("db");
        try (Store primary = Store.open(path, target.options());
                Options o = new Options()) {
            for (int i = 0; i < 200; i++) {
                primary.put(b(String.format("k%04d", i)), b("v" + i));
            }
            try (Store sec = Store.open(path, target.options().secondary(dir.resolve("ferry-sec")));
                    RocksDB rj = RocksDB.openAsSecondary(o, path.toString(), dir.resolve("rj-sec").toString())) {
                assertEquals(all(rj), all(sec));
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < 100; i++) {
                        int k = (round * 37 + i * 7) % 300;
                        if (i % 5 == 0) {
                            primary.delete(b(String.format("k%04d", k)));
                        } else {
                            primary.put(b(String.format("k%04d", k)), b("r" + round));
                        }
                    }
                    if (round == 1) {
                        primary.flush();
                    }
                    sec.tryCatchUpWithPrimary();
                    rj.tryCatchUpWithPrimary();
                    assertEquals(all(primary), all(sec), "round " + round);
                    assertEquals(all(rj), all(sec), "round " + round);
                }
            }
        }
        // RocksJava's primary, Ferry's secondary
        Path rjPath = dir.resolve("rj");
        try (Options o = new Options().setCreateIfMissing(true); RocksDB rj = RocksDB.open(o, rjPath.toString())) {
            rj.put(b("x"), b("1"));
            try (Store sec = Store.open(rjPath, target.options().secondary(dir.resolve("sec2")))) {
                assertEquals(all(rj), all(sec));
                rj.put(b("y"), b("2"));
                sec.tryCatchUpWithPrimary();
                assertEquals(all(rj), all(sec));
            }
        }
    }
}
