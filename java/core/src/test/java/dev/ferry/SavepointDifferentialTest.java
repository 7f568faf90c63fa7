package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.TransactionDB;
import org.rocksdb.TransactionDBOptions;
import org.rocksdb.WriteOptions;

/**
 * Savepoints against RocksJava's ({@code org.rocksdb.Transaction.setSavePoint} and
 * {@code rollbackToSavePoint}): the same random sequence of puts, deletes, multi-record batches,
 * savepoints and rollbacks runs in a Ferry transaction and a RocksJava one, each on a store of its
 * own; after every step both read the same value for the key, a rollback with no savepoint fails in
 * both (RocksDB's NotFound), and the committed stores hold the same records. Both Ferry transaction
 * modes run against RocksJava's pessimistic TransactionDB. RocksJava has no
 * {@code Transaction.popSavePoint}: pops are covered by the model test of the transaction contract
 * suite. Runs once per binding ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class SavepointDifferentialTest {
    static final int KEYS = 12;

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

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @MatrixTest
    void randomSequencesAgreeWithRocksJava() throws Exception {
        for (TransactionMode mode : new TransactionMode[] {TransactionMode.PESSIMISTIC, TransactionMode.OPTIMISTIC}) {
            Path ferryPath = dir.resolve("ferry-" + mode);
            Path rjPath = dir.resolve("rocksjava-" + mode);
            try (Store store = Store.open(ferryPath, StoreOptions.rocksdb().binding(target.binding).transactions(mode));
                    Options o = new Options().setCreateIfMissing(true);
                    TransactionDBOptions to = new TransactionDBOptions();
                    TransactionDB rj = TransactionDB.open(o, to, rjPath.toString());
                    WriteOptions wo = new WriteOptions();
                    ReadOptions ro = new ReadOptions()) {
                Random rnd = new Random(43 + mode.ordinal());
                for (int round = 0; round < 30; round++) {
                    runRound(rnd, round, store, rj, wo, ro);
                }
                for (int i = 0; i < KEYS; i++) {
                    byte[] k = utf8("k" + i);
                    assertArrayEquals(rj.get(k), store.get(k), mode + " key k" + i + " after the rounds");
                }
            }
        }
    }

    private static void runRound(Random rnd, int round, Store store, TransactionDB rj, WriteOptions wo, ReadOptions ro)
            throws RocksDBException {
        try (Transaction f = store.beginTransaction();
                org.rocksdb.Transaction r = rj.beginTransaction(wo)) {
            for (int step = 0; step < 50; step++) {
                String at = "round " + round + " step " + step;
                byte[] k = utf8("k" + rnd.nextInt(KEYS));
                byte[] v = utf8(round + "." + step);
                switch (rnd.nextInt(7)) {
                    case 0, 1 -> {
                        f.put(k, v);
                        r.put(k, v);
                    }
                    case 2 -> {
                        f.delete(k);
                        r.delete(k);
                    }
                    case 3 -> {
                        byte[] k2 = utf8("k" + rnd.nextInt(KEYS));
                        try (WriteBatch wb = new WriteBatch()) {
                            f.write(wb.put(k, v).delete(k2).put(k2, v));
                        }
                        r.put(k, v);
                        r.delete(k2);
                        r.put(k2, v);
                    }
                    case 4 -> {
                        f.setSavePoint();
                        r.setSavePoint();
                    }
                    default -> {
                        RocksDBException expected = null;
                        try {
                            r.rollbackToSavePoint();
                        } catch (RocksDBException e) {
                            expected = e;
                        }
                        if (expected == null) {
                            f.rollbackToSavePoint();
                        } else {
                            assertEquals(Status.Code.NotFound, expected.getStatus().getCode(), at);
                            assertThrows(FerryException.NotFound.class, f::rollbackToSavePoint, at);
                        }
                    }
                }
                assertArrayEquals(r.get(ro, k), f.get(k), at);
            }
            for (int i = 0; i < KEYS; i++) {
                byte[] k = utf8("k" + i);
                assertArrayEquals(r.get(ro, k), f.get(k), "round " + round + " key k" + i);
            }
            if (rnd.nextInt(3) > 0) {
                f.commit();
                r.commit();
            }
        }
    }
}
