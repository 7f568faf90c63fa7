package dev.ferry;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture every concern of the store contract shares: the contract every engine x binding x
 * transaction mode must meet, split by concern ({@link FamiliesContractTest}, {@link ReadsContractTest},
 * {@link WritesContractTest}, {@link CursorsContractTest}, {@link SnapshotsContractTest},
 * {@link ModelContractTest}, {@link AdminContractTest}, {@link LifecycleContractTest}). Each
 * {@link MatrixTest} runs unchanged on every {@link Target} of {@link Target.Slice#STORES} with a
 * store opened in a fresh directory. Where the engines really differ (LMDB rejects empty keys and
 * keys over 511 bytes; RocksDB compacts) the hooks below say so explicitly.
 */
@Matrix(Target.Slice.STORES)
abstract class StoreContract {
    static final java.util.Comparator<byte[]> UNSIGNED = Arrays::compareUnsigned;

    @TempDir
    Path dir;
    Store store;
    Target target;

    /** @return new options choosing the target's engine, binding and transaction mode */
    StoreOptions options() {
        return target.options();
    }

    /** @return whether the engine accepts a zero-length key */
    boolean allowsEmptyKey() {
        return options().engine() == Engine.ROCKSDB;
    }

    /** @return the engine's largest key, or -1 when practically unlimited */
    int maxKeySize() {
        return options().engine() == Engine.LMDB ? 511 : -1;
    }

    /**
     * @return whether the names of other column families are keys of the default family (LMDB
     *         keeps named databases as records of its unnamed one)
     */
    boolean familyNamesAreDefaultFamilyKeys() {
        return options().engine() == Engine.LMDB;
    }

    boolean lmdb() {
        return options().engine() == Engine.LMDB;
    }

    @BeforeEach
    void openStore(Target t) {
        target = t;
        store = Store.open(dir.resolve("db"), options());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    void putAll(String... kv) {
        for (int i = 0; i < kv.length; i += 2) {
            store.put(b(kv[i]), b(kv[i + 1]));
        }
    }

    static List<String> keys(Cursor c, boolean forward) {
        List<String> r = new ArrayList<>();
        for (boolean ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
            r.add(s(c.keyBytes()));
        }
        return r;
    }

    static byte[] le64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    static long le64(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Reopens the store with a merge operator (RocksDB); null on LMDB, which has none. */
    Store reopenWithMerge(MergeOperator op) {
        if (options().engine() != Engine.ROCKSDB) {
            return null;
        }
        store.close();
        store = Store.open(dir.resolve("db"), options().mergeOperator(op));
        return store;
    }
}
