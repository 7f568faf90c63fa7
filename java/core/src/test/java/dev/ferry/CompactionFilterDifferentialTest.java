package dev.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RemoveEmptyValueCompactionFilter;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * A compaction filter written in Java ({@link JavaCompactionFilter}) against RocksJava's C++ one: the same
 * random workload (about a third of the values empty, overwrites and deletes, flushes between rounds), one
 * store filtered by a Java filter that removes empty values, the other by RocksJava's
 * {@code RemoveEmptyValueCompactionFilter}, compacted fully: both must hold the same entries. Runs once per
 * binding ({@link Target.Slice#ROCKSDB}).
 */
@Matrix(Target.Slice.ROCKSDB)
class CompactionFilterDifferentialTest {
    static {
        RocksDB.loadLibrary();
    }

    @TempDir
    Path dir;

    Target target;

    @BeforeEach
    void target(Target t) {
        target = t;
    }

    /** The Java twin of RocksDB's RemoveEmptyValueCompactionFilter. */
    static final class RemoveEmpty implements JavaCompactionFilter.Factory {
        int entries;

        @Override public String name() {
            return "test.RemoveEmptyValue";
        }

        @Override public JavaCompactionFilter create(JavaCompactionFilter.Context context) {
            return (level, key, value) -> {
                synchronized (this) {
                    entries++;
                }
                return value.length == 0 ? JavaCompactionFilter.Decision.REMOVE : JavaCompactionFilter.Decision.KEEP;
            };
        }
    }

    @MatrixTest
    void aJavaFilterRemovesWhatRocksJavasCppFilterRemoves() throws RocksDBException {
        RemoveEmpty javaFilter = new RemoveEmpty();
        List<String> ferry = new ArrayList<>();
        List<String> rocks = new ArrayList<>();
        try (Store st = Store.open(dir.resolve("ferry"), StoreOptions.rocksdb().binding(target.binding)
                .javaCompactionFilter(javaFilter));
                RemoveEmptyValueCompactionFilter cpp = new RemoveEmptyValueCompactionFilter();
                Options o = new Options().setCreateIfMissing(true).setCompactionFilter(cpp);
                RocksDB db = RocksDB.open(o, dir.resolve("rocks").toString())) {
            Random r = new Random(44);
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 2000; i++) {
                    byte[] k = String.format("k%05d", r.nextInt(3000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    int op = r.nextInt(10);
                    if (op == 0) {
                        st.delete(k);
                        db.delete(k);
                    } else {
                        byte[] v = op < 4 ? new byte[0] : ("v" + r.nextInt(100)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                        st.put(k, v);
                        db.put(k, v);
                    }
                }
                st.flush();
                try (org.rocksdb.FlushOptions f = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
                    db.flush(f);
                }
            }
            st.compactRange();
            db.compactRange();
            try (Cursor c = st.cursor()) {
                for (boolean ok = c.first(); ok; ok = c.next()) {
                    ferry.add(StoreContract.s(c.keyBytes()) + "=" + StoreContract.s(c.valueBytes()));
                }
            }
            try (RocksIterator it = db.newIterator()) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    rocks.add(StoreContract.s(it.key()) + "=" + StoreContract.s(it.value()));
                }
            }
        }
        assertTrue(javaFilter.entries > 0, "the Java filter ran");
        assertTrue(ferry.stream().noneMatch(e -> e.endsWith("=")), "no empty value is left");
        assertEquals(rocks, ferry);
    }
}
